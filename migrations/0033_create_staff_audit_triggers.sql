-- Every change provider staff make to the rows the admin area edits leaves an audit row in
-- data_events_log (who, what, when), whichever path wrote it: the domain actions (Users
-- Enable/Disable, SuperAdminUserCreate/Update, FeatureFlags switches, SurveyRuns actions) and the
-- generic writes (ClientFeatures, Notifications, TranslatedTextRegions, ProjectGroups and their
-- tags and versions). The actor is the request's user (app.user_id, set by app_enter in the same
-- transaction), so the audit row commits or rolls back with the change. Changes by non-staff and
-- by the backend services user (5380, jobs and ticks) are not admin actions and are not written
-- here; the domains that audit their own actions (clients, credits, lifecycle, prompts, commands)
-- keep doing so and their tables have no trigger.
--
-- Trigger arguments: entity type, the column naming the entity (id, or a parent's id), and an
-- event prefix (e.g. 'Membership' -> MembershipCreated on the User entity).

create or replace function audit_staff_change() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  v_user int := nullif(current_setting('app.user_id', true), '')::int;
  v_new jsonb := case when tg_op = 'DELETE' then null else to_jsonb(new) end;
  v_old jsonb := case when tg_op = 'INSERT' then null else to_jsonb(old) end;
  v_row jsonb := coalesce(v_new, v_old);
  v_data jsonb := '{}';
  v_key text;
  v_event text;
begin
  if v_user is null or v_user = 5380 or not exists (select 1 from users where id = v_user and is_staff) then
    return null;
  end if;
  -- Never copy secrets into the log.
  v_new := v_new - 'password_hash';
  v_old := v_old - 'password_hash';
  if tg_op = 'UPDATE' then
    for v_key in select jsonb_object_keys(v_new) loop
      -- Sign-ins touch last_login_at: not an admin action.
      if v_key not in ('updated_at', 'last_login_at') and (v_new -> v_key) is distinct from (v_old -> v_key) then
        v_data := v_data || jsonb_build_object(v_key, jsonb_build_object('from', v_old -> v_key, 'to', v_new -> v_key));
      end if;
    end loop;
    if v_data = '{}' then
      return null; -- nothing an admin would see changed
    end if;
    v_data := jsonb_build_object('changes', v_data);
  else
    v_data := jsonb_build_object('row', coalesce(v_new, v_old) - 'created_at' - 'updated_at');
  end if;
  v_event := tg_argv[2] || case tg_op when 'INSERT' then 'Created' when 'UPDATE' then 'Updated' else 'Deleted' end;
  insert into data_events_log (client_id, user_id, entity_type, entity_id, event, data)
  values (
    case when (v_row ->> 'client_id') ~ '^\d+$' and exists (select 1 from clients where id = (v_row ->> 'client_id')::int)
         then (v_row ->> 'client_id')::int end,
    v_user,
    tg_argv[0],
    (v_row ->> tg_argv[1])::int,
    v_event,
    v_data
  );
  return null;
end $$;

create trigger audit_staff after insert or update or delete on users
  for each row execute function audit_staff_change('User', 'id', '');
create trigger audit_staff after insert or update or delete on user_and_clients
  for each row execute function audit_staff_change('User', 'user_id', 'Membership');
create trigger audit_staff after insert or update or delete on cognito_users
  for each row execute function audit_staff_change('User', 'user_id', 'Login');
create trigger audit_staff after insert or update or delete on feature_flags
  for each row execute function audit_staff_change('FeatureFlag', 'id', '');
create trigger audit_staff after insert or update or delete on client_features
  for each row execute function audit_staff_change('ClientFeature', 'id', '');
create trigger audit_staff after update of survey_status_id, target_completes on survey_runs
  for each row execute function audit_staff_change('SurveyRun', 'id', '');
create trigger audit_staff after update of status on survey_sessions
  for each row when (new.status = 'Removed') execute function audit_staff_change('SurveyRun', 'survey_run_id', 'Respondent');
create trigger audit_staff after insert on notifications
  for each row execute function audit_staff_change('Notification', 'id', '');
create trigger audit_staff after update on translated_text_regions
  for each row execute function audit_staff_change('TranslatedTextRegions', 'id', '');
create trigger audit_staff after insert or update or delete on project_groups
  for each row execute function audit_staff_change('ProjectGroup', 'id', '');
create trigger audit_staff after insert or update or delete on project_group_tags
  for each row execute function audit_staff_change('ProjectGroup', 'project_group_id', 'Tag');
create trigger audit_staff after insert or update or delete on project_group_versions
  for each row execute function audit_staff_change('ProjectGroup', 'project_group_id', 'Version');
