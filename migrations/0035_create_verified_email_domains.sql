-- 0035: an email domain routes sign-ins to a client's identity provider only once the client owns
-- it (issue 19, finding 3). A domain is owned by one client at a time: proven by the DNS TXT record
-- of Clients ValidateDomainRecord (method 'dns'), or approved by staff (method 'staff'). An IdP's
-- claim on a domain (cognito_idps.email_domains) is *verified* when the domain is owned by the IdP's
-- client or a client above it, and *pending* otherwise; sign-in routes by verified claims only.
create table verified_email_domains (
  domain text primary key check (domain = lower(domain) and domain like '%_._%'),
  client_id integer not null references clients (id) on delete cascade,
  method text not null check (method in ('dns', 'staff')),
  verified_by_user_id integer references users (id) on delete set null,
  verified_at timestamptz(3) not null default now()
);
create index verified_email_domains_client_idx on verified_email_domains (client_id);

-- Staff verify (ValidateDomainRecord is a staff action); everyone else reads ownership only
-- through the functions below, which say no more than whether a claim is verified.
alter table verified_email_domains enable row level security;
create policy staff_all on verified_email_domains
  using (exists (select 1 from users u where u.id = (select app_user_id()) and u.is_staff and u.disabled_at is null))
  with check (exists (select 1 from users u where u.id = (select app_user_id()) and u.is_staff and u.disabled_at is null));

-- Domains a client verified before this table existed (ValidateDomainRecord set clients.domain).
insert into verified_email_domains (domain, client_id, method, verified_at)
select distinct on (lower(domain)) lower(domain), id, 'dns', domain_verified_at
from clients where domain is not null and domain_verified_at is not null
order by lower(domain), domain_verified_at;

-- Is a domain owned by this client or a client above it (the IdP's claim verified)?
create or replace function idp_domain_verified(p_client int, p_domain text) returns boolean
language sql stable security definer set search_path = public as $$
  select exists (select 1 from verified_email_domains v where v.domain = lower(p_domain) and v.client_id = any(client_ancestors(p_client)))
$$;

-- The verified ones among an IdP's claimed domains (the security page shows the rest as pending).
create or replace function idp_verified_domains(p_client int, p_domains jsonb) returns jsonb
language sql stable security definer set search_path = public as $$
  select coalesce(jsonb_agg(d order by d), '[]'::jsonb)
  from jsonb_array_elements_text(p_domains) d
  where idp_domain_verified(p_client, d)
$$;

-- A claim is refused when the domain is owned by a client outside the IdP's line (another client's
-- verified domain), is the provider's own (the email domain of a super admin: a staff member may
-- have a client's address, the provider's super admins do not), or is already a
-- verified claim of another IdP. A pending claim of another IdP blocks nobody: it never routes.
-- SECURITY DEFINER: the claim is checked against every client's rows, which the admin's tenant
-- transaction cannot see. The advisory lock serialises concurrent claims.
create or replace function cognito_idps_check_domains() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  d text;
begin
  perform pg_advisory_xact_lock(7311010);
  for d in select lower(x) from jsonb_array_elements_text(new.email_domains) x loop
    if exists (select 1 from users u where u.is_staff and u.role_id = 3 and lower(split_part(u.email, '@', 2)) = d) then
      raise exception 'the email domain % is the provider''s own', d
        using errcode = 'unique_violation', constraint = 'cognito_idps_email_domain_owner';
    end if;
    if exists (select 1 from verified_email_domains v where v.domain = d and not (v.client_id = any(client_ancestors(new.client_id)))) then
      raise exception 'the email domain % is verified by another client', d
        using errcode = 'unique_violation', constraint = 'cognito_idps_email_domain_owner';
    end if;
    if exists (select 1 from cognito_idps o where o.id <> new.id and o.email_domains ? d and idp_domain_verified(o.client_id, d)) then
      raise exception 'the email domain % already belongs to another identity provider', d
        using errcode = 'unique_violation', constraint = 'cognito_idps_email_domain_key';
    end if;
  end loop;
  return new;
end $$;
