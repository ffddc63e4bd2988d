-- 0034: the websocket follows sessions and memberships as of now (issue 19, findings 4 and 5).
--
-- A connection ticket works once: the ticket id is recorded when a socket opens with it, so a
-- second use (on any API process) is refused. Kept until shortly after the ticket expires.
create table websocket_tickets (
  id uuid primary key,
  user_id integer not null references users (id) on delete cascade,
  session_id uuid not null references auth_sessions (id) on delete cascade,
  used_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null
);
create index websocket_tickets_expires_at_idx on websocket_tickets (expires_at);
-- Sign-in state, like saml_requests: no policies, so the app role never reaches it.
alter table websocket_tickets enable row level security;

-- The events that close sockets, on the event channel every API process listens to
-- (jobs/channel.ts), sent at commit whatever path made the change: logout, refresh-token reuse,
-- password change or reset, disabling, staff changes of a user (SessionEnded, per session), and a
-- membership removed (MembershipRemoved: RemoveFromAccount, SuperAdminUserUpdate, a deleted user).
create or replace function realtime_session_ended() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  perform pg_notify('ideally_events', json_build_object(
    'channel', 'user-' || new.user_id, 'event', 'SessionEnded',
    'data', json_build_object('sessionId', new.id), 'userId', new.user_id)::text);
  return null;
end $$;

create trigger auth_sessions_realtime_ended after update of revoked_at on auth_sessions
  for each row when (old.revoked_at is null and new.revoked_at is not null)
  execute function realtime_session_ended();

create or replace function realtime_membership_removed() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  perform pg_notify('ideally_events', json_build_object(
    'channel', 'user-' || old.user_id, 'event', 'MembershipRemoved',
    'data', json_build_object('clientId', old.client_id), 'userId', old.user_id, 'clientId', old.client_id)::text);
  return null;
end $$;

create trigger user_and_clients_realtime_removed after delete on user_and_clients
  for each row execute function realtime_membership_removed();
