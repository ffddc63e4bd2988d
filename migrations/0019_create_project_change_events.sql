-- ProjectUpdated for every authoring change. Status changes, shares, watchers, duplicates and
-- schedules publish their own, richer event from their services; the edits of a project's set-up
-- reach the database through many paths (the generic PATCH/POST/DELETE of the entity layer, the
-- authoring actions, SuperAdminUpdate), so one trigger per table says it for all of them. Same
-- payload shape as jobs/channel.ts publish(): NOTIFY sends at COMMIT, nothing on ROLLBACK, and
-- identical payloads of one transaction go out once, so a bulk insert is one event per table.
create or replace function notify_project_changed() returns trigger
language plpgsql as $$
declare
  r record;
begin
  r := case when tg_op = 'DELETE' then old else new end;
  if tg_table_name = 'projects' then
    -- The lifecycle's own event covers a status change.
    if tg_op = 'UPDATE' and new.status_code is distinct from old.status_code then return null; end if;
    perform pg_notify('ideally_events', json_build_object(
      'channel', 'client-' || r.client_id, 'event', 'ProjectUpdated', 'clientId', r.client_id,
      'data', json_build_object('projectId', r.id, 'changed', 'project'))::text);
  elsif r.project_id is not null then
    perform pg_notify('ideally_events', json_build_object(
      'channel', 'client-' || r.client_id, 'event', 'ProjectUpdated', 'clientId', r.client_id,
      'data', json_build_object('projectId', r.project_id, 'changed', tg_table_name))::text);
  end if;
  return null;
end $$;

do $$
declare t text;
begin
  foreach t in array array['projects', 'test_options', 'questions', 'question_options', 'project_questions',
                           'targets', 'projects_regions', 'project_price_sensitivities', 'project_market_reach',
                           'project_objectives']
  loop
    execute format('drop trigger if exists project_changed on %I', t);
    execute format('create trigger project_changed after insert or update or delete on %I
                    for each row execute function notify_project_changed()', t);
  end loop;
end $$;
