// SQL of the account flows (password reset, accepting invitations, share-link registration,
// temporary passwords). Except where a caller passes an Admin's tenant transaction (team invite
// tokens), these run as the owner: nobody is signed in yet.
import type { Db, Tx } from "../db/client.ts";

type Sql = Db | Tx;

// ---- tokens ----

/** What an emailed account token is for. */
export type TokenPurpose = "PasswordReset" | "TeamInvite" | "RegistrationEmail";

export async function insertToken(
  sql: Sql,
  t: { hash: string; purpose: TokenPurpose; userId: number | null; email: string; clientId: number | null; linkInviteId: number | null; createdByUserId: number | null; ttlSeconds: number },
): Promise<void> {
  await sql`
    insert into account_tokens (token_hash, purpose, user_id, email, client_id, link_invite_id, created_by_user_id, expires_at)
    values (${t.hash}, ${t.purpose}, ${t.userId}, ${t.email}, ${t.clientId}, ${t.linkInviteId}, ${t.createdByUserId},
            now() + make_interval(secs => ${t.ttlSeconds}))`;
}

export async function revokeTokens(sql: Sql, t: { purpose: TokenPurpose; userId?: number; email?: string; clientId?: number; linkInviteId?: number }): Promise<void> {
  await sql`
    update account_tokens set revoked_at = now()
    where purpose = ${t.purpose} and used_at is null and revoked_at is null
      and ${t.userId === undefined ? sql`true` : sql`user_id = ${t.userId}`}
      and ${t.email === undefined ? sql`true` : sql`lower(email) = lower(${t.email})`}
      and ${t.clientId === undefined ? sql`true` : sql`client_id = ${t.clientId}`}
      and ${t.linkInviteId === undefined ? sql`true` : sql`link_invite_id = ${t.linkInviteId}`}`;
}

export interface TokenRow {
  purpose: TokenPurpose;
  userId: number | null;
  email: string;
  clientId: number | null;
  linkInviteId: number | null;
  usedAt: Date | null;
  revokedAt: Date | null;
  expired: boolean;
}

/** The token's row, locked: two uses of one token serialise here and the second finds it used. */
export async function tokenForUpdate(tx: Tx, hash: string): Promise<TokenRow | undefined> {
  const [r] = await tx<TokenRow[]>`
    select purpose, user_id as "userId", email, client_id as "clientId", link_invite_id as "linkInviteId",
           used_at as "usedAt", revoked_at as "revokedAt", (expires_at <= now()) as expired
    from account_tokens where token_hash = ${hash}
    for update`;
  return r;
}

/** The token's row without a lock: to refuse a bad token before any costly work. */
export async function peekToken(sql: Sql, hash: string): Promise<TokenRow | undefined> {
  const [r] = await sql<TokenRow[]>`
    select purpose, user_id as "userId", email, client_id as "clientId", link_invite_id as "linkInviteId",
           used_at as "usedAt", revoked_at as "revokedAt", (expires_at <= now()) as expired
    from account_tokens where token_hash = ${hash}`;
  return r;
}

export async function markTokenUsed(tx: Tx, hash: string): Promise<void> {
  await tx`update account_tokens set used_at = now() where token_hash = ${hash}`;
}

// ---- users ----

export async function setPassword(tx: Tx, userId: number, passwordHash: string, names: { firstName?: string; lastName?: string } = {}): Promise<void> {
  await tx`
    update users
       set password_hash = ${passwordHash},
           first_name = coalesce(${names.firstName ?? null}, first_name),
           last_name = coalesce(${names.lastName ?? null}, last_name)
     where id = ${userId}`;
}

/** A person who registered through a share link. Undefined when the email was taken meanwhile. */
export async function createUser(tx: Tx, u: { email: string; firstName: string | null; lastName: string | null; passwordHash: string }): Promise<number | undefined> {
  const [r] = await tx<{ id: number }[]>`
    insert into users (email, first_name, last_name, password_hash)
    values (${u.email}, ${u.firstName}, ${u.lastName}, ${u.passwordHash})
    on conflict ((lower(email))) do nothing
    returning id`;
  return r?.id;
}

/** The person's password identity (cognito_users, no identity provider) is confirmed. */
export async function confirmPasswordIdentity(tx: Tx, userId: number, email: string): Promise<void> {
  const done = await tx`update cognito_users set status = 'CONFIRMED' where user_id = ${userId} and cognito_idp_id is null`;
  if (done.count === 0) {
    await tx`insert into cognito_users (user_id, username, status) values (${userId}, lower(${email}), 'CONFIRMED')
             on conflict (username) do nothing`;
  }
}

export async function passwordIdentityStatus(sql: Sql, userId: number): Promise<string | undefined> {
  const [r] = await sql<{ status: string }[]>`
    select status from cognito_users where user_id = ${userId} and cognito_idp_id is null order by id limit 1`;
  return r?.status;
}

/** Once the person has an account, their pending team invites count as accepted. */
export async function acceptPendingTeamInvites(tx: Tx, userId: number, email: string): Promise<void> {
  await tx`
    update link_invites set accepted_at = now(), accepted_by_user_id = ${userId}
    where invite_type = 'TeamInvite' and lower(email) = lower(${email}) and accepted_at is null`;
}

/** Ends every login session of the user (and with them their access tokens, see app_enter). */
export async function revokeAllSessions(tx: Tx, userId: number, reason: string): Promise<number> {
  const r = await tx`
    update auth_sessions set revoked_at = now(), revoked_reason = ${reason}
    where user_id = ${userId} and revoked_at is null`;
  return r.count;
}

export interface PendingInvite {
  clientName: string;
  expiresAt: Date | null;
}

/** The newest pending (not accepted, not expired) team invite of a client for an email. */
export async function pendingTeamInvite(sql: Sql, email: string, clientId: number): Promise<PendingInvite | undefined> {
  const [r] = await sql<PendingInvite[]>`
    select c.name as "clientName", li.expires_at as "expiresAt"
    from link_invites li join clients c on c.id = li.client_id
    where li.invite_type = 'TeamInvite' and lower(li.email) = lower(${email}) and li.client_id = ${clientId} and li.accepted_at is null
      and (li.expires_at is null or li.expires_at > now())
    order by li.created_at desc limit 1`;
  return r;
}
