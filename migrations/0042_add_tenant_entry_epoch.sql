-- 0042: the tenant entry's epoch (issue 26). app_enter (0009) resolves a request's user, login
-- session and membership in six queries on every request. Its outcome depends only on a few
-- tables; every change to them that can alter it moves one counter, in the same transaction (the
-- triggers below). An API process keeps each outcome with the epoch it was computed under
-- (api/src/db/tx.ts) and hands both back on the next request of the same token and client:
-- app_tenant_entry() reuses them only while the epoch is still the same, else it runs app_enter
-- afresh. A sign-out, a disabled user, a removed or changed membership or a moved client is thus
-- seen on the very next request of every process (docs/decisions.md).

create table app_auth_epoch (
  one boolean primary key default true check (one),
  value bigint not null
);
insert into app_auth_epoch (value) values (0);

create or replace function app_auth_epoch_bump() returns trigger
language plpgsql security definer set search_path = public as $$
begin
  update app_auth_epoch set value = value + 1;
  return null;
end $$;

-- Statement-level: one bump per statement, even if it changed no row (a bump only costs every
-- process one full app_enter per token and client).
create trigger users_auth_epoch after update of id, is_staff, disabled_at or delete or truncate on users
  for each statement execute function app_auth_epoch_bump();
create trigger auth_sessions_auth_epoch after update of id, user_id, expires_at, revoked_at or delete or truncate on auth_sessions
  for each statement execute function app_auth_epoch_bump();
create trigger user_and_clients_auth_epoch after insert or update or delete or truncate on user_and_clients
  for each statement execute function app_auth_epoch_bump();
create trigger clients_auth_epoch after insert or update of id, parent_id or delete or truncate on clients
  for each statement execute function app_auth_epoch_bump();

-- The tenant entry with a remembered outcome, after the request's transaction has made the
-- remembered settings (db/tx.ts: the statement before this one). The epoch is read first: a change
-- committed after that read can only make an outcome stored under it newer than the epoch says,
-- never older, so a reused outcome is never one from before a change. The same epoch (and, with a
-- session, its remembered expiry still ahead): null, the settings stand (what app_enter would make:
-- nothing it reads has changed). p_epoch null (nothing remembered) or another epoch: app_enter
-- decides and makes the settings anew, over the remembered ones, and the new outcome comes back as
-- 'role|epoch|client ids|all clients|session expiry'.
-- SECURITY DEFINER without a SET clause (a SET clause costs every call a settings save and
-- restore: this runs on every request), so every name in it is schema-qualified. Nothing here
-- gives the app role more than it has: the settings are ones set_config can make anyway; what
-- keeps a request in its tenant is that only the API makes them.
create or replace function app_tenant_resume(
  p_epoch bigint, p_user int, p_client int, p_descendants boolean, p_session uuid, p_expires timestamptz)
returns text
language plpgsql volatile security definer as $$
declare
  v_epoch bigint;
  v_role int;
  v_expires timestamptz;
begin
  select a.value into v_epoch from public.app_auth_epoch a;
  if p_epoch is not null and p_epoch = v_epoch and (p_session is null or p_expires > pg_catalog.now()) then
    return null;
  end if;
  v_role := public.app_enter(p_user, p_client, p_descendants, p_session);
  if p_session is not null then
    select s.expires_at into v_expires from public.auth_sessions s where s.id = p_session;
  end if;
  return pg_catalog.concat_ws('|', coalesce(v_role::text, ''), v_epoch::text,
    pg_catalog.current_setting('app.client_ids'), pg_catalog.current_setting('app.all_clients'), coalesce(v_expires::text, ''));
end $$;
