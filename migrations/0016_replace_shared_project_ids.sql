-- app_shared_project_ids() runs in the row-level security of every shared table, once per
-- statement. As an SQL-language SECURITY DEFINER function it was planned on every call (0.34 ms,
-- measured with the OData benchmark's statement); PL/pgSQL keeps its plan for the session.
create or replace function app_shared_project_ids() returns int[]
language plpgsql stable security definer set search_path = public as $$
declare
  ids int[];
begin
  select coalesce(array_agg(distinct s.project_id), '{}') into ids
  from project_shares s
  where s.user_id = nullif(current_setting('app.user_id', true), '')::int;
  return ids;
end $$;
