-- Single sign-on: SAML identity providers of a client (CreateSaml / UpdateSaml), the sign-in
-- state of SAML and LinkedIn (OpenID Connect) flows, and the single-use codes that hand a
-- finished sign-in over to the web app (GET /auth/Saml/Code).

-- What the service provider needs to talk to an identity provider, whether it came as a metadata
-- document or as parts (entry point, certificate, issuer). metadata_xml keeps the document as the
-- admin gave it; these columns are what was read from it.
alter table cognito_idps
  add column entry_point text check (entry_point ~ '^https?://'),
  add column idp_issuer text check (char_length(idp_issuer) <= 1024),
  -- PEM certificates the IdP signs with (more than one during a certificate rollover).
  add column idp_certs jsonb not null default '[]' check (jsonb_typeof(idp_certs) = 'array'),
  -- The IdP's metadata asks for signed AuthnRequests (WantAuthnRequestsSigned).
  add column want_authn_requests_signed boolean not null default false;

-- An IdP configured by parts has no metadata document.
alter table cognito_idps drop constraint if exists cognito_idps_check;
alter table cognito_idps add constraint cognito_idps_source_check
  check (metadata_url is not null or metadata_xml is not null or entry_point is not null);

-- An email domain belongs to one identity provider: sign-in picks the IdP by the email's domain,
-- and a second claim on a domain (another client's admin) must not be able to capture it.
-- SECURITY DEFINER: the claim has to be checked against every client's IdPs, which the admin's
-- own tenant transaction cannot see (row-level security). The advisory lock serialises
-- concurrent claims, so two admins cannot both take a domain.
create function cognito_idps_check_domains() returns trigger
language plpgsql security definer set search_path = public as $$
declare
  taken text;
begin
  perform pg_advisory_xact_lock(7311010);
  select d into taken
  from jsonb_array_elements_text(new.email_domains) d
  where exists (select 1 from cognito_idps o where o.id <> new.id and o.email_domains ? lower(d))
  limit 1;
  if taken is not null then
    raise exception 'the email domain % already belongs to another identity provider', taken
      using errcode = 'unique_violation', constraint = 'cognito_idps_email_domain_key';
  end if;
  return new;
end $$;

create trigger cognito_idps_check_domains before insert or update of email_domains on cognito_idps
  for each row execute function cognito_idps_check_domains();

-- AuthnRequests we sent and not yet answered: the ACS accepts a response only InResponseTo one
-- of these, once (node-saml's request-id cache, kept here so every API process shares it).
create table saml_requests (
  id text primary key,                       -- the AuthnRequest ID
  idp_id integer not null references cognito_idps (id) on delete cascade,
  state text not null,                       -- the web app's state, echoed back at the end
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null
);
create index saml_requests_expires_at_idx on saml_requests (expires_at);

-- Assertion IDs already used: an assertion signs in once (replay protection). Kept past the
-- assertion's own validity window (see saml.service.ts), then deleted.
create table saml_assertions (
  idp_id integer not null references cognito_idps (id) on delete cascade,
  assertion_id text not null,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null,
  primary key (idp_id, assertion_id)
);
create index saml_assertions_expires_at_idx on saml_assertions (expires_at);

-- OpenID Connect sign-ins under way: the state we sent to the provider (hashed: it is the lookup
-- key), the nonce the id_token must carry, the PKCE verifier, and the web app's own state.
create table oidc_requests (
  state_hash text primary key,
  provider text not null check (provider in ('linkedin')),
  web_state text not null,
  nonce text not null,
  code_verifier text not null,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null
);
create index oidc_requests_expires_at_idx on oidc_requests (expires_at);

-- A finished external sign-in waiting for the web app to exchange it (GET /auth/Saml/Code):
-- short-lived, single-use, stored only as a hash, bound to the web app's state.
create table sso_codes (
  code_hash text primary key,
  user_id integer not null references users (id) on delete cascade,
  method text not null check (method in ('saml', 'oidc')),
  state text not null,
  idp_id integer references cognito_idps (id) on delete cascade,
  created_at timestamptz(3) not null default now(),
  expires_at timestamptz(3) not null,
  used_at timestamptz(3)
);
create index sso_codes_expires_at_idx on sso_codes (expires_at);

-- The app role (requests' tenant transactions) gets table grants on everything after each
-- migrate (db/migrate.ts); these tables hold sign-in secrets and are used only by the sign-in
-- code, which runs as the owner. Row-level security without policies hides every row from the
-- app role, while the owner (no FORCE) is not bound.
alter table saml_requests enable row level security;
alter table saml_assertions enable row level security;
alter table oidc_requests enable row level security;
alter table sso_codes enable row level security;

select ensure_foreign_key_indexes();
