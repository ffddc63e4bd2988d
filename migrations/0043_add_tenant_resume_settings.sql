-- 0043: the remembered tenant entry makes its own settings (issue 26). The entry (api/src/db/tx.ts)
-- sent `select set_config(...)` five times and then `select app_tenant_resume(...)` (0042) as one
-- simple query on every request. PostgreSQL parses, resolves and plans every function call of a
-- simple query each time (no plan is kept): the five set_config calls cost more than the resume
-- itself (callgrind: 274k instructions per entry and COMMIT). The entry is now `set local role`,
-- `set local statement_timeout` (utility statements: no function lookup) and this overload, which
-- takes the remembered settings and makes them itself when it keeps the outcome (PL/pgSQL keeps its
-- expressions' plans for the session): 186k instructions.
--
-- Same outcome as 0042 in every case: the same epoch, both settings given and (with a session)
-- the remembered expiry still ahead: the remembered settings are made, null is returned; anything
-- else: app_enter decides and makes the settings afresh, and the outcome comes back as
-- 'role|epoch|client ids|all clients|session expiry'. The settings are made here after the epoch
-- check, in one call, so no order of evaluation can let remembered settings overwrite the ones
-- app_enter has just made. Nothing here gives the app role more than it has: the settings are ones
-- set_config can make anyway; what keeps a request in its tenant is that only the API makes them.
-- SECURITY DEFINER without a SET clause, every name schema-qualified (as 0042). The six-argument
-- app_tenant_resume stays for processes still running the previous entry during a deploy.
create or replace function app_tenant_resume(
  p_epoch bigint, p_user int, p_client int, p_descendants boolean, p_session uuid, p_expires timestamptz,
  p_client_ids text, p_all_clients boolean)
returns text
language plpgsql volatile security definer as $$
declare
  v_epoch bigint;
  v_role int;
  v_expires timestamptz;
  v_set text;
begin
  select a.value into v_epoch from public.app_auth_epoch a;
  if p_epoch is not null and p_epoch = v_epoch and (p_session is null or p_expires > pg_catalog.now())
     and p_client_ids is not null and p_all_clients is not null then
    v_set := pg_catalog.set_config('app.user_id', p_user::text, true);
    v_set := pg_catalog.set_config('app.all_clients', case when p_all_clients then 'on' else 'off' end, true);
    v_set := pg_catalog.set_config('app.client_ids', p_client_ids, true);
    return null;
  end if;
  v_role := public.app_enter(p_user, p_client, p_descendants, p_session);
  if p_session is not null then
    select s.expires_at into v_expires from public.auth_sessions s where s.id = p_session;
  end if;
  return pg_catalog.concat_ws('|', coalesce(v_role::text, ''), v_epoch::text,
    pg_catalog.current_setting('app.client_ids'), pg_catalog.current_setting('app.all_clients'), coalesce(v_expires::text, ''));
end $$;
