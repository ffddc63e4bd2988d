-- Email and the account flows: the outbox every email is written to, and the single-use tokens
-- that password resets, team invites and share-link registrations email to people.

-- Every email the product sends, newest last. Without SMTP (development) this is the delivery:
-- the dev mailbox (GET /api/v1/DevMailbox) reads it. With SMTP it is the audit of what was sent,
-- and then the tokens in links are redacted (the token's hash is all the database keeps).
create table email_outbox (
  id bigint generated always as identity primary key,
  "to" text not null check (char_length("to") <= 320),
  subject text not null,
  text text not null,
  html text not null,
  template text not null,                      -- which template made it (teamInvite, passwordReset, ...)
  created_at timestamptz(3) not null default now(),
  sent_at timestamptz(3),                      -- the SMTP server accepted it; null without SMTP
  error text                                   -- why SMTP delivery failed
);
create index email_outbox_to_created on email_outbox (lower("to"), created_at desc);

-- Single-use tokens sent by email, stored only as SHA-256 hashes:
--   PasswordReset      ForgotPassword -> ResetPassword, 1 hour
--   TeamInvite         an Admin's invite (POST /Users) -> AcceptInvitation, 7 days
--   RegistrationEmail  VerifyRegistrationEmail (share-link sign-up) -> AcceptInvitation, 24 hours
-- A token dies when used (used_at) or when a newer one replaces it (revoked_at).
create table account_tokens (
  token_hash text primary key,
  purpose text not null check (purpose in ('PasswordReset', 'TeamInvite', 'RegistrationEmail')),
  user_id integer references users (id) on delete cascade,     -- null: a registration for an email without an account
  email text not null check (char_length(email) <= 320),
  client_id integer references clients (id) on delete cascade, -- TeamInvite: the client invited to
  link_invite_id integer references link_invites (id) on delete cascade,
  created_by_user_id integer references users (id) on delete set null,
  expires_at timestamptz(3) not null,
  used_at timestamptz(3),
  revoked_at timestamptz(3),
  created_at timestamptz(3) not null default now(),
  check (purpose <> 'PasswordReset' or user_id is not null),
  check (purpose <> 'TeamInvite' or (user_id is not null and client_id is not null)),
  check (purpose <> 'RegistrationEmail' or link_invite_id is not null)
);
create index account_tokens_user_live on account_tokens (user_id, purpose) where used_at is null and revoked_at is null;
create index account_tokens_email_live on account_tokens (lower(email), purpose) where used_at is null and revoked_at is null;

-- The app role gets table grants on everything after each migrate (db/migrate.ts). Row-level
-- security (no FORCE: the owner, which runs the signed-out flows, is not bound) narrows that:
-- - account_tokens: an Admin's tenant transaction writes and revokes its client's team-invite
--   tokens (the invite is atomic with the membership it grants); every other token is the
--   sign-in code's alone.
-- - email_outbox: readable by provider staff only (the dev mailbox); written by the owner.
alter table account_tokens enable row level security;
create policy team_invite_tokens on account_tokens
  using (purpose = 'TeamInvite' and ((select app_all_clients()) or client_id = any((select app_client_ids())::int[])))
  with check (purpose = 'TeamInvite' and ((select app_all_clients()) or client_id = any((select app_client_ids())::int[])));

alter table email_outbox enable row level security;
create policy staff_read on email_outbox for select
  using (exists (select 1 from users u where u.id = (select app_user_id()) and u.is_staff and u.disabled_at is null));

-- Notifications about no client (PasswordReset: client_id null, see 0006) are invisible under
-- tenant_isolation, which matches on client_id. Their user may read them and mark them read.
create policy own_without_client_read on notifications for select
  using (client_id is null and user_id = (select app_user_id()));
create policy own_without_client_update on notifications for update
  using (client_id is null and user_id = (select app_user_id()))
  with check (client_id is null and user_id = (select app_user_id()));

select ensure_foreign_key_indexes();
