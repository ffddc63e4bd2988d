-- 0022: the value a client publishes in a DNS TXT record to prove it owns its email domain
-- (Clients ValidateDomainRecord): random per client, so nobody can guess another client's.
alter table clients
  add column domain_verification_token uuid not null default gen_random_uuid(),
  add column domain_verified_at timestamptz(3);
