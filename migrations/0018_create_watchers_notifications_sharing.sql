-- Watchers, notifications and sharing (docs/decisions.md "Watchers, notifications and sharing").

-- A project shared with a person who already has an account (Projects Share): a notification type
-- of its own, next to SPEC 4's eight.
insert into notification_types (id, name, description, default_title) values
  (9, 'ProjectShared', 'A project was shared with the user', 'A project was shared with you')
on conflict (id) do nothing;

-- A person's own notifications, whichever client they are about: Notifications All lists them and
-- MarkAsRead marks them, in a request with no client (tenant_isolation matches on client_id, so
-- without these the list would depend on the clientId header). Permissive: OR-ed with the others.
create policy own_read on notifications for select
  using (user_id = (select app_user_id()));
create policy own_update on notifications for update
  using (user_id = (select app_user_id()))
  with check (user_id = (select app_user_id()));

-- Auto project watch (Teams UpdateAutoProjectWatch): a project created in a team that has it on
-- gets every (direct, enabled) member of the team as a watcher. Only projects created by a request
-- (app.user_id set: Create, Duplicate, the seeding action); rows written by migrations, seeds and
-- fixtures are left as they are. SECURITY DEFINER: the creator may not read every membership row.
create or replace function app_auto_watch_project() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  if coalesce(current_setting('app.user_id', true), '') = '' then
    return null;
  end if;
  insert into project_watchers (client_id, project_id, user_id)
  select new.client_id, new.id, uc.user_id
  from teams t
  join user_and_clients uc on uc.client_id = t.id
  join users u on u.id = uc.user_id and u.disabled_at is null
  where t.id = new.client_id and t.auto_project_watch
  on conflict (project_id, user_id) do nothing;
  return null;
end $$;

create trigger projects_auto_watch after insert on projects
  for each row execute function app_auto_watch_project();

-- Watchers hear of their project's status changes. Every status change of every domain writes a
-- StatusChanged row to data_events_log (lifecycle.service.ts changeStatus / recordStatusChange);
-- this deferred trigger turns it into one notification per watcher at COMMIT, after the action's
-- own notifications (to approvers, to the submitter) are written, so a watcher who already got a
-- notification about the project in this transaction gets no second one, and the actor none. The
-- realtime event goes out on user-{id} through the same NOTIFY channel as every other event
-- (api/src/jobs/channel.ts), at commit. Status changes with no SPEC 4 notification (Unsubmit,
-- MarkAsDemo, a staff review step) raise none.
create or replace function app_notify_project_watchers() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  v_to int := (new.data->>'to')::int;
  v_action text := new.data->>'action';
  v_type text;
  v_type_id int;
  v_title text;
  v_project record;
  v_url text;
  v_body text;
  v_id int;
  w record;
begin
  v_type := case
    when v_action = 'Submit' then 'SurveySubmittedForApproval'
    when v_action in ('Approve', 'SuperApprove') and v_to in (100, 300) then 'SurveyApproved'
    when v_action = 'Decline' then 'SurveyApprovalDeclined'
    when v_to = 400 then 'ProjectSentOutForSurvey'
    when v_to in (800, 900) then 'ProjectReady'
  end;
  if v_type is null or new.project_id is null then
    return null;
  end if;
  select id, default_title into v_type_id, v_title from notification_types where name = v_type;
  select id, client_id, project_name into v_project from projects where id = new.project_id;
  if v_project.id is null then
    return null;
  end if;
  -- SPEC 2's link for a project at a status (as lifecycle.service.ts projectUrl).
  v_url := '/' || v_project.client_id || case
    when v_to = 50 then '/projects/' || v_project.id || '/review'
    when v_to < 200 then '/projects/' || v_project.id
    when v_to < 400 then '/project-surveys/' || v_project.id
    else '/results/' || v_project.id end;
  v_body := v_project.project_name || ': ' || coalesce((select name from project_statuses where id = v_to), v_to::text);
  for w in
    select pw.user_id
    from project_watchers pw
    join users u on u.id = pw.user_id and u.disabled_at is null
    where pw.project_id = v_project.id
      and pw.user_id is distinct from new.user_id
      and not exists (
        select 1 from notifications n
        where n.user_id = pw.user_id and n.project_id = v_project.id and n.created_at = now()::timestamptz(3))
    order by pw.user_id
  loop
    insert into notifications (user_id, client_id, notification_type_id, title, body, project_id, url, data)
    values (w.user_id, v_project.client_id, v_type_id, v_title, v_body, v_project.id, v_url,
            jsonb_build_object('projectId', v_project.id, 'projectName', v_project.project_name,
                               'clientId', v_project.client_id, 'statusCode', v_to,
                               'previousStatusCode', (new.data->>'from')::int, 'action', v_action, 'watching', true))
    returning id into v_id;
    perform pg_notify('ideally_events', json_build_object(
      'channel', 'user-' || w.user_id,
      'event', v_type,
      'data', json_build_object('notificationId', v_id, 'title', v_title, 'body', v_body, 'url', v_url,
                                'projectId', v_project.id, 'clientId', v_project.client_id,
                                'statusCode', v_to, 'action', v_action, 'watching', true),
      'userId', w.user_id,
      'clientId', v_project.client_id)::text);
  end loop;
  return null;
end $$;

create constraint trigger data_events_log_notify_watchers after insert on data_events_log
  deferrable initially deferred
  for each row when (new.entity_type = 'Project' and new.event = 'StatusChanged')
  execute function app_notify_project_watchers();
