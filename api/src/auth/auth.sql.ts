// SQL of sign-in: users by email, login sessions (refresh-token families) and attempts.
// These run as the table owner, outside any tenant: nobody is signed in yet.
import type { Db, Tx } from "../db/client.ts";

type Sql = Db | Tx;

export interface LoginUser {
  id: number;
  email: string;
  passwordHash: string | null;
  isStaff: boolean;
  isSuperAdmin: boolean;
  disabled: boolean;
  /** Status of the password identity (cognito_users without an IdP), if any. */
  passwordStatus: string | null;
}

export async function userByEmail(db: Sql, email: string): Promise<LoginUser | undefined> {
  const [u] = await db<LoginUser[]>`
    select u.id, u.email, u.password_hash as "passwordHash", u.is_staff as "isStaff",
           (u.is_staff and r.role_name = 'SuperAdmin') as "isSuperAdmin", (u.disabled_at is not null) as disabled,
           (select cu.status from cognito_users cu where cu.user_id = u.id and cu.cognito_idp_id is null limit 1) as "passwordStatus"
    from users u join user_roles r on r.id = u.role_id
    where lower(u.email) = lower(${email})`;
  return u;
}

export async function userById(db: Sql, id: number): Promise<LoginUser | undefined> {
  const [u] = await db<LoginUser[]>`
    select u.id, u.email, u.password_hash as "passwordHash", u.is_staff as "isStaff",
           (u.is_staff and r.role_name = 'SuperAdmin') as "isSuperAdmin", (u.disabled_at is not null) as disabled,
           (select cu.status from cognito_users cu where cu.user_id = u.id and cu.cognito_idp_id is null limit 1) as "passwordStatus"
    from users u join user_roles r on r.id = u.role_id
    where u.id = ${id}`;
  return u;
}

export async function createSession(db: Sql, s: { id: string; userId: number; method: string; userAgent: string | null; ip: string | null; days: number }): Promise<void> {
  await db`
    insert into auth_sessions (id, user_id, method, user_agent, ip, expires_at)
    values (${s.id}, ${s.userId}, ${s.method}, ${s.userAgent}, ${s.ip}, now() + make_interval(days => ${s.days}))`;
  await db`update users set last_login_at = now() where id = ${s.userId}`;
}

export async function addRefreshToken(db: Sql, sessionId: string, tokenHash: string): Promise<void> {
  await db`insert into auth_refresh_tokens (token_hash, session_id) values (${tokenHash}, ${sessionId})`;
}

export interface RefreshRow {
  sessionId: string;
  userId: number;
  usedAt: Date | null;
  /** Seconds since the token was rotated (null: not used yet). */
  usedSecondsAgo: number | null;
  /** Rotated by a refresh whose new token is still unused, and not given its one grace yet (migration 0048). */
  graceOpen: boolean;
  revokedAt: Date | null;
  expired: boolean;
}

/** The token's row, locked: concurrent refreshes with one token serialise here. */
export async function refreshTokenForUpdate(tx: Tx, tokenHash: string): Promise<RefreshRow | undefined> {
  const [r] = await tx<RefreshRow[]>`
    select t.session_id as "sessionId", s.user_id as "userId", t.used_at as "usedAt",
           s.revoked_at as "revokedAt", (s.expires_at <= now()) as expired,
           extract(epoch from now() - t.used_at)::float8 as "usedSecondsAgo",
           t.grace_used_at is null and exists (select 1 from auth_refresh_tokens x where x.token_hash = t.replaced_by and x.used_at is null) as "graceOpen"
    from auth_refresh_tokens t join auth_sessions s on s.id = t.session_id
    where t.token_hash = ${tokenHash}
    for update of t, s`;
  return r;
}

export async function markRefreshUsed(tx: Tx, tokenHash: string, replacedBy: string): Promise<void> {
  await tx`update auth_refresh_tokens set used_at = now(), replaced_by = ${replacedBy} where token_hash = ${tokenHash}`;
  await tx`update auth_sessions set last_used_at = now()
           where id = (select session_id from auth_refresh_tokens where token_hash = ${tokenHash})`;
}

export async function revokeSession(db: Sql, sessionId: string, reason: string): Promise<void> {
  await db`update auth_sessions set revoked_at = coalesce(revoked_at, now()), revoked_reason = coalesce(revoked_reason, ${reason})
           where id = ${sessionId}`;
}

export async function sessionOfToken(db: Sql, tokenHash: string): Promise<string | undefined> {
  const [r] = await db<{ sessionId: string }[]>`select session_id as "sessionId" from auth_refresh_tokens where token_hash = ${tokenHash}`;
  return r?.sessionId;
}

// ---- rate limiting ----

export async function recentAttempts(db: Sql, key: string, windowSeconds: number): Promise<{ n: number; oldest: Date | null; newest: Date | null }> {
  const [r] = await db<{ n: number; oldest: Date | null; newest: Date | null }[]>`
    select count(*)::int as n, min(created_at) as oldest, max(created_at) as newest from auth_attempts
    where key = ${key} and created_at > now() - make_interval(secs => ${windowSeconds})`;
  return r!;
}

export async function recordAttempt(db: Sql, keys: readonly string[]): Promise<void> {
  if (!keys.length) return;
  await db`insert into auth_attempts (key) select unnest(${keys as string[]}::text[])`;
}

export async function clearAttempts(db: Sql, key: string): Promise<void> {
  await db`delete from auth_attempts where key = ${key}`;
}

/** Every sign-in failure counted against an account: its own counter and each (account, address) one. */
export async function clearSignInFailuresOf(db: Sql, email: string): Promise<void> {
  const e = email.trim().toLowerCase();
  await db`delete from auth_attempts where key = ${`login:account:${e}`} or starts_with(key, ${`login:pair:${e} `})`;
}

export async function idpForDomain(db: Sql, domain: string): Promise<{ id: number; providerName: string; clientId: number } | undefined> {
  const [r] = await db<{ id: number; providerName: string; clientId: number }[]>`
    select id, provider_name as "providerName", client_id as "clientId" from cognito_idps
    where is_enabled and email_domains @> ${db.json([domain.toLowerCase()])}
      and idp_domain_verified(client_id, ${domain.toLowerCase()}) -- a pending claim never routes (migration 0035)
    order by id limit 1`;
  return r;
}

/**
 * Single sign-on required (manage-org / manage-enterprise security): an enterprise or org at or
 * above one of the given clients has sso_required set.
 */
export async function ssoRequired(db: Sql, by: { userId: number } | { clientId: number }): Promise<boolean> {
  const clients =
    "userId" in by ? db`select unnest(client_ancestors(uc.client_id)) as id from user_and_clients uc where uc.user_id = ${by.userId}` : db`select unnest(client_ancestors(${by.clientId}::int)) as id`;
  const [r] = await db<{ required: boolean }[]>`
    with c as (${clients})
    select exists (select 1 from enterprises e join c on c.id = e.id where e.sso_required)
        or exists (select 1 from orgs o join c on c.id = o.id where o.sso_required) as required`;
  return r!.required;
}

/**
 * The one grace of a rotated token presented again in time (auth.service.ts refresh): its unused
 * successor is retired (used, replaced by nothing: presented later it is a reuse) and the grace is spent.
 */
export async function spendGrace(tx: Tx, tokenHash: string): Promise<void> {
  await tx`update auth_refresh_tokens x set used_at = now() from auth_refresh_tokens t
           where t.token_hash = ${tokenHash} and x.token_hash = t.replaced_by and x.used_at is null`;
  await tx`update auth_refresh_tokens set grace_used_at = now() where token_hash = ${tokenHash}`;
}
