-- 0043 (h4): the norms' epoch (issue 26). A QualResults call with a benchmark read that benchmark's
-- norm in a transaction of its own (the stale check and the norm over the comparable projects'
-- cells, above the tenant): about 0.45 ms of server CPU on every call for a figure that changes
-- only when a comparable project's cells, facets or status, a category, or a completed project's
-- results change. Every such change moves one counter in the same transaction (the triggers
-- below); an API process keeps a norm with the counter's value read before it was computed
-- (domains/results/results.service.ts benchmarkNorm), and reuses it while a request, which reads
-- the counter with its other reads (app_norms_epoch()), finds the same value (docs/decisions.md).

create table norms_epoch (
  one boolean primary key default true check (one),
  value bigint not null
);
insert into norms_epoch (value) values (0);

create or replace function norms_epoch_bump() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  update norms_epoch set value = value + 1;
  return null;
end $$;

-- A results change of a completed project (status 800 and above: the projects a norm may read)
-- leaves its cells stale: the norm changes once they are rebuilt (before the next norm is read, or
-- by the norms job), and the counter moves now, so no norm from the old cells is reused. Results of
-- projects still in fielding change all the time and move nothing.
create or replace function norms_epoch_bump_completed() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if exists (select 1 from changed c join projects p on p.id = c.project_id where p.status_code >= 800) then
    update norms_epoch set value = value + 1;
  end if;
  return null;
end $$;

-- Statement-level: one bump per statement (a bump costs each API process one norm read).
create trigger norm_cells_norms_epoch after insert or update or delete or truncate on norm_cells
  for each statement execute function norms_epoch_bump();
create trigger projects_norms_epoch
  after insert or update of id, client_id, status_code, deleted_at, product_type, category_id, project_type_id or delete or truncate on projects
  for each statement execute function norms_epoch_bump();
create trigger categories_norms_epoch after insert or update or delete or truncate on categories
  for each statement execute function norms_epoch_bump();
create trigger results_versions_norms_epoch_ins after insert on results_versions referencing new table as changed
  for each statement execute function norms_epoch_bump_completed();
create trigger results_versions_norms_epoch_upd after update on results_versions referencing new table as changed
  for each statement execute function norms_epoch_bump_completed();
create trigger results_versions_norms_epoch_del after delete on results_versions referencing old table as changed
  for each statement execute function norms_epoch_bump_completed();

-- The counter, for a request's own transaction (the app role cannot read or change the table).
-- SECURITY DEFINER without a SET clause, the name schema-qualified.
create or replace function app_norms_epoch() returns bigint
language sql stable security definer as $$ select e.value from public.norms_epoch e $$;
