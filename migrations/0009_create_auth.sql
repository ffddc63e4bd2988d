-- Sign-in state and the per-request tenant entry.

-- The key that signs access tokens when AUTH_SECRET is not configured: made once per database so
-- every API process of one deployment shares it.
create table auth_secrets (
  name text primary key,
  value text not null,
  created_at timestamptz(3) not null default now()
);

-- A login session is a family of refresh tokens. Each refresh uses its token once and issues the
-- next; presenting a used token again (reuse) revokes the whole family.
create table auth_sessions (
  id uuid primary key,
  user_id integer not null references users (id) on delete cascade,
  method text not null check (method in ('password', 'saml', 'oidc', 'invite')),
  user_agent text,
  ip text,
  created_at timestamptz(3) not null default now(),
  last_used_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null,
  revoked_at timestamptz(3),
  revoked_reason text
);
create index auth_sessions_user_id_idx on auth_sessions (user_id);

create table auth_refresh_tokens (
  token_hash text primary key,              -- sha-256 of the token; the token itself is never stored
  session_id uuid not null references auth_sessions (id) on delete cascade,
  created_at timestamptz(3) not null default now(),
  used_at timestamptz(3)
);
create index auth_refresh_tokens_session_id_idx on auth_refresh_tokens (session_id);

-- Failed and throttled attempts per key (account or IP) for rate limiting.
create table auth_attempts (
  id bigint generated always as identity primary key,
  key text not null,
  created_at timestamptz(3) not null default now()
);
create index auth_attempts_key_created_idx on auth_attempts (key, created_at);

-- The client tree: a client and everything beneath it / a client and everything above it. The
-- tiers make the tree at most three deep (Enterprise -> Org -> Team, enforced by
-- clients_check_tree), so plain joins do what a recursive query would. PL/pgSQL keeps their plans
-- (an SQL-language function is planned on every call): these run on every request (app_enter).
create or replace function client_descendants(p_client int) returns int[]
language plpgsql stable as $$
declare r int[];
begin
  select array_agg(c.id order by c.id) into r
  from clients c
  where c.id = p_client
     or c.parent_id = p_client
     or c.parent_id in (select m.id from clients m where m.parent_id = p_client);
  return coalesce(r, '{}');
end $$;

create or replace function client_ancestors(p_client int) returns int[]
language plpgsql stable as $$
declare r int[];
begin
  select array_remove(array[c1.id, c2.id, c3.id], null) into r
  from clients c1
  left join clients c2 on c2.id = c1.parent_id
  left join clients c3 on c3.id = c2.parent_id
  where c1.id = p_client;
  return coalesce(r, '{}');
end $$;

-- Enters a request's tenant: checks the user and their membership, then sets the transaction-local
-- settings that row-level security reads (see 0008). Returns the caller's effective role on the
-- chosen client (1 Admin, 2 User, 3 Viewer; 0 for provider staff acting without a membership;
-- null when no client is chosen). Roles inherit downwards: a membership on an org or enterprise
-- applies to every client beneath it, and the most privileged applicable membership wins.
-- SECURITY DEFINER: it reads memberships and sessions before row-level security applies to the
-- request (the app role has no access to auth_sessions at all). p_session null is for system
-- callers (jobs), which hold no login session.
create or replace function app_enter(p_user int, p_client int, p_descendants boolean, p_session uuid default null)
returns int
language plpgsql volatile security definer set search_path = public as $$
declare
  v_staff boolean;
  v_disabled timestamptz;
  v_role int;
  v_ids int[];
begin
  select is_staff, disabled_at into v_staff, v_disabled from users where id = p_user;
  if not found or v_disabled is not null then
    raise exception 'user % cannot sign in', p_user using errcode = '28000';
  end if;
  -- A signed-out (revoked) or expired login session ends its access tokens at once.
  if p_session is not null and not exists (
    select 1 from auth_sessions where id = p_session and user_id = p_user and revoked_at is null and expires_at > now()
  ) then
    raise exception 'session ended' using errcode = '28000';
  end if;
  perform set_config('app.user_id', p_user::text, true);

  if p_client is null then
    if v_staff then
      perform set_config('app.all_clients', 'on', true);
      perform set_config('app.client_ids', '', true);
      return null;
    end if;
    -- Every client the user reaches through a membership, and their descendants.
    select coalesce(array_agg(distinct d), '{}') into v_ids
    from user_and_clients uc, unnest(client_descendants(uc.client_id)) d
    where uc.user_id = p_user;
    perform set_config('app.all_clients', 'off', true);
    perform set_config('app.client_ids', array_to_string(v_ids, ','), true);
    return null;
  end if;

  select min(uc.role_id) into v_role
  from user_and_clients uc
  where uc.user_id = p_user and uc.client_id = any(client_ancestors(p_client));
  if v_role is null then
    if not v_staff or not exists (select 1 from clients where id = p_client) then
      raise exception 'user % has no access to client %', p_user, p_client using errcode = '42501';
    end if;
    v_role := 0;
  end if;
  v_ids := case when p_descendants then client_descendants(p_client) else array[p_client] end;
  perform set_config('app.all_clients', 'off', true);
  perform set_config('app.client_ids', array_to_string(v_ids, ','), true);
  return v_role;
end $$;
