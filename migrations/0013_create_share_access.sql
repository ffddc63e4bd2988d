-- Project shares: a project shared with a user (project_shares.user_id) is readable, never
-- writable, by that user from outside its client: the project and the rows its pages read (the
-- registry's `shared` scope). A second, permissive SELECT policy next to tenant_isolation (0008);
-- permissive policies combine with OR, and writes still need tenant_isolation.

-- SECURITY DEFINER: project_shares is itself tenant-isolated (the sharer's client), and the
-- recipient must learn which shares name them. Read through a scalar subquery in the policies,
-- so it runs once per statement.
create or replace function app_shared_project_ids() returns int[]
language sql stable security definer set search_path = public as $$
  select coalesce(array_agg(distinct s.project_id), '{}')
  from project_shares s
  where s.user_id = nullif(current_setting('app.user_id', true), '')::int
$$;

create index if not exists project_shares_user_id_idx on project_shares (user_id) where user_id is not null;

do $$
declare
  t record;
begin
  for t in
    select * from (values
      ('projects', 'id'), ('projects_regions', 'project_id'), ('test_options', 'project_id'),
      ('questions', 'project_id'), ('question_options', 'project_id'), ('project_questions', 'project_id'),
      ('project_objectives', 'project_id'), ('targets', 'project_id'), ('project_watchers', 'project_id'),
      ('project_survey_sessions', 'project_id'), ('project_schedules', 'project_id'), ('project_weeks', 'project_id'),
      ('responses', 'project_id'), ('text_responses', 'project_id'), ('themes', 'project_id'),
      ('text_responses_themes', 'project_id'), ('diagnose_score_themes', 'project_id'),
      ('regression_scores', 'project_id'), ('segments', 'project_id'), ('ai_project_summaries', 'project_id')
    ) as v(table_name, project_column)
  loop
    execute format('drop policy if exists shared_read on %I', t.table_name);
    execute format(
      'create policy shared_read on %I for select using (%I = any((select app_shared_project_ids())::int[]))',
      t.table_name, t.project_column);
  end loop;
end $$;
