-- Row-level security: the second wall behind the registry scope. Every API request runs as the
-- role ideally_app (NOBYPASSRLS, see api/src/db/tx.ts) with transaction-local settings:
--   app.user_id      the signed-in user
--   app.client_ids   comma-separated client ids the request may touch ('' = none)
--   app.all_clients  'on' for provider staff working across clients (the /admin area)
-- Migrations, seeds and jobs run as the owner and are not bound.

create or replace function app_client_ids() returns int[]
language sql stable parallel safe as $$
  select case when coalesce(current_setting('app.client_ids', true), '') = '' then '{}'::int[]
              else string_to_array(current_setting('app.client_ids', true), ',')::int[] end
$$;

create or replace function app_all_clients() returns boolean
language sql stable parallel safe as $$
  select coalesce(current_setting('app.all_clients', true), 'off') = 'on'
$$;

create or replace function app_user_id() returns int
language sql stable parallel safe as $$
  select nullif(current_setting('app.user_id', true), '')::int
$$;

-- Every base table with a client_id column: rows of the request's clients only. The settings are
-- read through scalar subqueries so PostgreSQL evaluates them once per statement (an InitPlan),
-- not once per row.
do $$
declare r record;
begin
  for r in
    select c.table_name
    from information_schema.columns c
    join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
    where c.table_schema = 'public' and c.column_name = 'client_id' and t.table_type = 'BASE TABLE'
  loop
    execute format('alter table %I enable row level security', r.table_name);
    execute format('alter table %I force row level security', r.table_name);
    execute format('drop policy if exists tenant_isolation on %I', r.table_name);
    execute format(
      'create policy tenant_isolation on %I using ((select app_all_clients()) or client_id = any((select app_client_ids())::int[])) '
      'with check ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))', r.table_name);
  end loop;
end $$;

-- The client tree itself: a request sees the clients it may touch.
alter table clients enable row level security;
alter table clients force row level security;
create policy tenant_isolation on clients
  using ((select app_all_clients()) or id = any((select app_client_ids())::int[]))
  with check ((select app_all_clients()) or id = any((select app_client_ids())::int[]));
