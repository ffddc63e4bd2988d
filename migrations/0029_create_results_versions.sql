-- 0040: a version per project's results data, bumped by every change of its responses or its
-- respondents (weights, status, week, removal). The results functions answer from an in-memory
-- columnar copy of a project's respondents and answers (domains/results/columnar.ts) and reload it
-- when the version they read in their own transaction differs from the copy's. Versions come from
-- one sequence, so a project deleted and recreated never reuses an old number.
create sequence results_version_seq;

create table results_versions (
  project_id integer primary key,
  version bigint not null
);

-- Statement-level with transition tables: a bulk insert of a run's responses is one bump per
-- project, not one per row. The upsert's row lock serialises only writers of the same project's
-- results, until their commit (ingest of one complete is a short transaction).
create or replace function bump_results_version() returns trigger
language plpgsql as $$
begin
  if tg_op = 'DELETE' then
    insert into results_versions (project_id, version)
    select project_id, nextval('results_version_seq') from (select distinct project_id from old_rows) d
    on conflict (project_id) do update set version = excluded.version;
  else
    insert into results_versions (project_id, version)
    select project_id, nextval('results_version_seq') from (select distinct project_id from new_rows) d
    on conflict (project_id) do update set version = excluded.version;
  end if;
  return null;
end $$;

do $$
declare t text;
begin
  foreach t in array array['responses', 'project_survey_sessions']
  loop
    execute format('create trigger results_version_ins after insert on %I referencing new table as new_rows
                    for each statement execute function bump_results_version()', t);
    execute format('create trigger results_version_upd after update on %I referencing new table as new_rows
                    for each statement execute function bump_results_version()', t);
    execute format('create trigger results_version_del after delete on %I referencing old table as old_rows
                    for each statement execute function bump_results_version()', t);
  end loop;
end $$;
