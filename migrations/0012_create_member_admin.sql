-- Member administration and the client tree, for the users, tenancy and flags domains.
--
-- Row-level security shows a request only its own client (or its subtree). Some answers need rows
-- above it: who reaches a team through an org or enterprise membership, whether a client keeps an
-- Admin after a membership goes, where a user belongs besides the request's client. These
-- SECURITY DEFINER functions read those rows, each after checking that the request may see the
-- client it asks about (the settings app_enter() made), and each returns only what its caller needs.
-- Sessions (auth_sessions) are closed to the app role altogether; app_revoke_user_sessions is its
-- one door, for the caller's own sessions, a disabled user's, or when staff ask.

-- The request may touch client p (its scope, or staff across all clients); else 42501.
create or replace function app_check_client(p int) returns void
language plpgsql stable as $$
begin
  if p is null or not (app_all_clients() or p = any(app_client_ids())) then
    raise exception 'no access to client %', p using errcode = '42501';
  end if;
end $$;

-- Everyone who reaches a client: a membership of the client itself or of a client above it (roles
-- inherit downwards). Per user the most privileged membership wins, then the nearest, as in the
-- extrapolated_user_and_clients view; has_direct says whether the user also holds a membership of
-- the client itself.
create or replace function app_client_members(p_client int)
returns table (
  user_id int, role_id int, source_client_id int, source_client_name text, source_tier text,
  source_user_and_client_id int, is_inherited boolean, has_direct boolean, depth int)
language plpgsql stable security definer set search_path = public as $$
#variable_conflict use_column
begin
  perform app_check_client(p_client);
  return query
  with anc as (
    select a.id, (a.n - 1)::int as depth
    from unnest(client_ancestors(p_client)) with ordinality as a(id, n)
  ), m as (
    select uc.user_id, uc.role_id, uc.client_id, uc.id as uc_id, anc.depth
    from user_and_clients uc join anc on anc.id = uc.client_id
  )
  select distinct on (m.user_id)
    m.user_id, m.role_id, m.client_id, c.name, c.tier, m.uc_id, m.depth > 0,
    exists (select 1 from m d where d.user_id = m.user_id and d.depth = 0), m.depth
  from m join clients c on c.id = m.client_id
  order by m.user_id, m.role_id, m.depth;
end $$;

-- How many of a user's memberships lie in the subtree of p_client (the client and every client
-- beneath it), and how many outside it: an Admin of p_client administers the first kind only.
create or replace function app_user_membership_scope(p_user int, p_client int, out inside int, out outside int)
language plpgsql stable security definer set search_path = public as $$
declare
  v_sub int[];
begin
  perform app_check_client(p_client);
  v_sub := client_descendants(p_client);
  select count(*) filter (where uc.client_id = any(v_sub))::int,
         count(*) filter (where not (uc.client_id = any(v_sub)))::int
    into inside, outside
  from user_and_clients uc
  where uc.user_id = p_user;
end $$;

-- Ends a user's login sessions (and with them their access tokens, see app_enter), optionally
-- keeping one (the caller's own, after a password change) or only those of one sign-in method.
-- Allowed for the caller's own sessions, for a disabled user's, and for staff.
create or replace function app_revoke_user_sessions(p_user int, p_reason text, p_keep uuid default null, p_method text default null)
returns int
language plpgsql volatile security definer set search_path = public as $$
declare
  v_caller int := app_user_id();
  v_n int;
begin
  if v_caller is null or not (
       p_user = v_caller
    or exists (select 1 from users where id = p_user and disabled_at is not null)
    or exists (select 1 from users where id = v_caller and is_staff and disabled_at is null)) then
    raise exception 'may not end the sessions of user %', p_user using errcode = '42501';
  end if;
  update auth_sessions
     set revoked_at = now(), revoked_reason = p_reason
   where user_id = p_user and revoked_at is null
     and (p_keep is null or id <> p_keep)
     and (p_method is null or method = p_method);
  get diagnostics v_n = row_count;
  return v_n;
end $$;

-- Creates a client node and its tier row in the caller's transaction. A new client is outside the
-- request's row-level-security scope by construction (its id did not exist at tenant entry), so the
-- insert and the answer go through here. Who may: staff anywhere; an Admin of the parent (a
-- membership of the parent or of a client above it) for an Org or a Team under that parent.
-- Tier-specific settings come as JSON: ssoRequired and allowedEmailDomains (Enterprise, Org),
-- autoProjectWatch and defaultRegionId (Team).
create or replace function app_create_client(
  p_tier text, p_name text, p_parent int, p_industry text, p_hs_company_id text, p_settings jsonb default '{}')
returns table (
  id int, name text, tier text, parent_id int, industry text, hs_company_id text,
  settings jsonb, created_at timestamptz)
language plpgsql volatile security definer set search_path = public as $$
#variable_conflict use_column
declare
  v_caller int := app_user_id();
  v_staff boolean;
  v_c clients;
  v_settings jsonb;
begin
  select u.is_staff into v_staff from users u where u.id = v_caller and u.disabled_at is null;
  if not found then
    raise exception 'not signed in' using errcode = '42501';
  end if;
  if not v_staff and (p_tier = 'Enterprise' or p_parent is null or not exists (
      select 1 from user_and_clients uc
      where uc.user_id = v_caller and uc.role_id = 1 and uc.client_id = any(client_ancestors(p_parent)))) then
    raise exception 'only staff or an Admin of the parent client may create this client' using errcode = '42501';
  end if;

  -- A new client takes its parent's industry unless one is given.
  insert into clients (name, tier, parent_id, industry, hs_company_id)
  values (p_name, p_tier, p_parent,
          coalesce(p_industry, (select c.industry from clients c where c.id = p_parent)), p_hs_company_id)
  returning * into v_c;

  if p_tier = 'Enterprise' then
    insert into enterprises (id, client_id, sso_required, allowed_email_domains)
    values (v_c.id, v_c.id, coalesce((p_settings ->> 'ssoRequired')::boolean, false),
            coalesce(p_settings -> 'allowedEmailDomains', '[]'))
    returning jsonb_build_object('ssoRequired', sso_required, 'allowedEmailDomains', allowed_email_domains) into v_settings;
  elsif p_tier = 'Org' then
    insert into orgs (id, client_id, sso_required, allowed_email_domains)
    values (v_c.id, v_c.id, coalesce((p_settings ->> 'ssoRequired')::boolean, false),
            coalesce(p_settings -> 'allowedEmailDomains', '[]'))
    returning jsonb_build_object('ssoRequired', sso_required, 'allowedEmailDomains', allowed_email_domains) into v_settings;
  else
    insert into teams (id, client_id, auto_project_watch, default_region_id)
    values (v_c.id, v_c.id, coalesce((p_settings ->> 'autoProjectWatch')::boolean, false),
            coalesce((p_settings ->> 'defaultRegionId')::int, 1))
    returning jsonb_build_object('autoProjectWatch', auto_project_watch, 'defaultRegionId', default_region_id) into v_settings;
  end if;

  return query select v_c.id, v_c.name, v_c.tier, v_c.parent_id, v_c.industry, v_c.hs_company_id, v_settings, v_c.created_at;
end $$;
