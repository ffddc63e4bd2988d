// SQL of the users domain. Every statement runs in the caller's tenant transaction (enterTenant):
// client rows through row-level security, the rows above the request's client through the
// SECURITY DEFINER functions of migration 0012, which check the request's scope themselves.
// users and cognito_users carry no client column; their statements say whose rows they touch.
import type { Tx } from "../../db/client.ts";

/** Serialises membership removals and role changes, so two can never together leave a client without an Admin. */
export const MEMBERSHIP_LOCK = 7_311_012;

export interface MeRow {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  isStaff: boolean;
  isSuperAdmin: boolean;
  roleId: number;
  roleName: string;
  defaultClientId: number | null;
  onboardedAt: Date | null;
  hasPassword: boolean;
}

export async function me(tx: Tx, userId: number): Promise<MeRow | undefined> {
  const [r] = await tx<MeRow[]>`
    select u.id, u.email, u.first_name as "firstName", u.last_name as "lastName", u.is_staff as "isStaff",
           (u.is_staff and r.role_name = 'SuperAdmin') as "isSuperAdmin", u.role_id as "roleId", r.role_name as "roleName",
           u.default_client_id as "defaultClientId", u.onboarded_at as "onboardedAt",
           (u.password_hash is not null) as "hasPassword"
    from users u join user_roles r on r.id = u.role_id
    where u.id = ${userId}`;
  return r;
}

export interface IdentityRow {
  id: number;
  cognitoIdpId: number | null;
  cognitoIdp: { id: number; providerName: string; providerType: string } | null;
  username: string;
  status: string;
  lastLoginAt: Date | null;
}

/** A user's login identities; the identity provider where the request may see its client. */
export async function identitiesOf(tx: Tx, userId: number): Promise<IdentityRow[]> {
  return tx<IdentityRow[]>`
    select cu.id, cu.cognito_idp_id as "cognitoIdpId",
           case when i.id is null then null
                else json_build_object('id', i.id, 'providerName', i.provider_name, 'providerType', i.provider_type) end as "cognitoIdp",
           cu.username, cu.status, cu.last_login_at as "lastLoginAt"
    from cognito_users cu
    left join cognito_idps i on i.id = cu.cognito_idp_id
    where cu.user_id = ${userId}
    order by cu.id`;
}

export interface ClientBrief {
  id: number;
  name: string;
  tier: "Enterprise" | "Org" | "Team";
  parentId: number | null;
}

/** A client the request may see (row-level security), or undefined. */
export async function visibleClient(tx: Tx, id: number): Promise<ClientBrief | undefined> {
  const [r] = await tx<ClientBrief[]>`select id, name, tier, parent_id as "parentId" from clients where id = ${id}`;
  return r;
}

/** The user's effective role on a client: the most privileged membership of it or a client above it. */
export async function effectiveRole(tx: Tx, userId: number, clientId: number): Promise<number | null> {
  const [r] = await tx<{ role: number | null }[]>`
    select min(role_id)::int as role from user_and_clients
    where user_id = ${userId} and client_id = any(client_ancestors(${clientId}))`;
  return r?.role ?? null;
}

export interface ReachRow extends ClientBrief {
  roleId: number | null;
  isDirect: boolean;
}

/**
 * Every client the user reaches through a membership (the client and everything beneath it),
 * with the effective role there; plus `extra` (a client staff name in the header). Run in a
 * transaction entered without a client, whose scope is exactly that reach.
 */
export async function reach(tx: Tx, userId: number, extra: number | null): Promise<ReachRow[]> {
  return tx<ReachRow[]>`
    with mine as (
      select client_id, role_id from user_and_clients where user_id = ${userId}
    ), reached as (
      select d as id from mine, unnest(client_descendants(mine.client_id)) d
      union
      select ${extra}::int where ${extra}::int is not null
    )
    select c.id, c.name, c.tier, c.parent_id as "parentId",
           (select min(m.role_id)::int from mine m where m.client_id = any(client_ancestors(c.id))) as "roleId",
           exists (select 1 from mine m where m.client_id = c.id) as "isDirect"
    from reached r join clients c on c.id = r.id
    order by c.id`;
}

export interface MemberCounts {
  direct: number;
  inheritedOnly: number;
}

/** Enabled users reaching a client: with a membership of it, and only through one above it. */
export async function memberCounts(tx: Tx, clientId: number): Promise<MemberCounts> {
  const [r] = await tx<MemberCounts[]>`
    select count(*) filter (where m.has_direct)::int as direct,
           count(*) filter (where not m.has_direct)::int as "inheritedOnly"
    from app_client_members(${clientId}) m
    join users u on u.id = m.user_id
    where u.disabled_at is null`;
  return r!;
}

export interface LoginStatusRow {
  userId: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  roleId: number | null;
  isInherited: boolean | null;
  status: "invited" | "confirmed" | "force-change" | "external" | "disabled";
  lastLoginAt: Date | null;
  invitedAt: Date | null;
  disabledAt: Date | null;
  identities: { id: number; cognitoIdpId: number | null; username: string; status: string; lastLoginAt: string | null }[];
}

/**
 * Login status per user: every user (`allUsers`, staff without a client), or the users reaching
 * the clients of the request's scope (its client, and with requestscope descendants the clients
 * beneath it). Status: disabled; confirmed (a confirmed password login, or a password and no
 * identity rows); external (signs in through an identity provider only); force-change (must set a
 * new password first); invited (nothing usable yet).
 */
export async function loginStatus(tx: Tx, allUsers: boolean): Promise<LoginStatusRow[]> {
  const members = allUsers
    ? tx`select u.id as user_id, null::int as role_id, null::boolean as is_inherited from users u`
    : tx`select distinct on (m.user_id) m.user_id, m.role_id, m.is_inherited
         from unnest(app_client_ids()) cid cross join lateral app_client_members(cid) m
         order by m.user_id, m.role_id, m.depth`;
  return tx<LoginStatusRow[]>`
    with members as (${members})
    select u.id as "userId", u.email, u.first_name as "firstName", u.last_name as "lastName",
           mb.role_id as "roleId", mb.is_inherited as "isInherited",
           case
             when u.disabled_at is not null then 'disabled'
             when coalesce(ids.password_confirmed, false) or (u.password_hash is not null and coalesce(ids.n, 0) = 0) then 'confirmed'
             when coalesce(ids.external, false) then 'external'
             when coalesce(ids.must_change, false) then 'force-change'
             else 'invited'
           end as status,
           greatest(u.last_login_at, ids.last_login_at) as "lastLoginAt",
           u.invited_at as "invitedAt", u.disabled_at as "disabledAt",
           coalesce(ids.list, '[]'::json) as identities
    from members mb
    join users u on u.id = mb.user_id
    left join lateral (
      select count(*)::int as n,
             bool_or(cu.cognito_idp_id is null and cu.status = 'CONFIRMED') as password_confirmed,
             bool_or(cu.cognito_idp_id is not null or cu.status = 'EXTERNAL_PROVIDER') as external,
             bool_or(cu.status in ('FORCE_CHANGE_PASSWORD', 'RESET_REQUIRED')) as must_change,
             max(cu.last_login_at) as last_login_at,
             json_agg(json_build_object('id', cu.id, 'cognitoIdpId', cu.cognito_idp_id, 'username', cu.username,
                                        'status', cu.status, 'lastLoginAt', cu.last_login_at) order by cu.id) as list
      from cognito_users cu where cu.user_id = u.id
    ) ids on true
    order by lower(u.email)`;
}

export interface UserSummary {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  isStaff: boolean;
  isSuperAdmin: boolean;
  disabledAt: Date | null;
  onboardedAt: Date | null;
}

const summaryColumns = (tx: Tx) => tx`
  u.id, u.email, u.first_name as "firstName", u.last_name as "lastName", u.is_staff as "isStaff",
  (u.is_staff and u.role_id = 3) as "isSuperAdmin", u.disabled_at as "disabledAt", u.onboarded_at as "onboardedAt"`;

export async function userSummary(tx: Tx, id: number): Promise<UserSummary | undefined> {
  const [r] = await tx<UserSummary[]>`select ${summaryColumns(tx)} from users u where u.id = ${id}`;
  return r;
}

/** How many of the user's memberships lie in the subtree of `clientId`, and how many outside. */
export async function membershipScope(tx: Tx, userId: number, clientId: number): Promise<{ inside: number; outside: number }> {
  const [r] = await tx<{ inside: number; outside: number }[]>`select inside, outside from app_user_membership_scope(${userId}, ${clientId})`;
  return r!;
}

export async function setDisabled(tx: Tx, id: number, disabled: boolean): Promise<UserSummary | undefined> {
  const [r] = disabled
    ? await tx<UserSummary[]>`update users u set disabled_at = coalesce(u.disabled_at, now()) where u.id = ${id} returning ${summaryColumns(tx)}`
    : await tx<UserSummary[]>`update users u set disabled_at = null where u.id = ${id} returning ${summaryColumns(tx)}`;
  return r;
}

/** Ends a user's login sessions (all, all but `keep`, or those of one sign-in method); how many. */
export async function revokeSessions(tx: Tx, userId: number, reason: string, opts: { keep?: string | null; method?: string } = {}): Promise<number> {
  const [r] = await tx<{ n: number }[]>`
    select app_revoke_user_sessions(${userId}, ${reason}, ${opts.keep ?? null}::uuid, ${opts.method ?? null}::text) as n`;
  return r?.n ?? 0;
}

export async function lockMemberships(tx: Tx): Promise<void> {
  await tx`select pg_advisory_xact_lock(${MEMBERSHIP_LOCK})`;
}

/** Removes the user's membership of one client; its role, or undefined when there was none. */
export async function deleteMembership(tx: Tx, userId: number, clientId: number): Promise<{ id: number; roleId: number } | undefined> {
  const [r] = await tx<{ id: number; roleId: number }[]>`
    delete from user_and_clients where user_id = ${userId} and client_id = ${clientId}
    returning id, role_id as "roleId"`;
  return r;
}

/** Sets the role of the user's membership of one client; the previous role, or undefined when there was none. */
export async function setMembershipRole(tx: Tx, userId: number, clientId: number, roleId: number): Promise<{ previousRoleId: number } | undefined> {
  const [r] = await tx<{ previousRoleId: number }[]>`
    update user_and_clients uc set role_id = ${roleId}, updated_at = now()
    from (select id, role_id from user_and_clients where user_id = ${userId} and client_id = ${clientId} for update) old
    where uc.id = old.id
    returning old.role_id as "previousRoleId"`;
  return r;
}

/** Enabled Admins reaching a client (a membership of it or of a client above it). */
export async function adminCount(tx: Tx, clientId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`
    select count(*)::int as n from app_client_members(${clientId}) m join users u on u.id = m.user_id
    where m.role_id = 1 and u.disabled_at is null`;
  return r!.n;
}

/** The clients the user is a direct Admin of. */
export async function adminMembershipsOf(tx: Tx, userId: number): Promise<number[]> {
  const rows = await tx<{ clientId: number }[]>`select client_id as "clientId" from user_and_clients where user_id = ${userId} and role_id = 1`;
  return rows.map((r) => r.clientId);
}

/** Whether the user still reaches the client after a change (any membership of it or above it). */
export async function stillReaches(tx: Tx, userId: number, clientId: number): Promise<boolean> {
  const [r] = await tx<{ ok: boolean }[]>`select exists (select 1 from app_client_members(${clientId}) where user_id = ${userId}) as ok`;
  return r!.ok;
}

export async function clearDefaultClient(tx: Tx, userId: number, clientId: number): Promise<void> {
  await tx`update users set default_client_id = null where id = ${userId} and default_client_id = ${clientId}`;
}

export async function setNames(tx: Tx, userId: number, firstName: string, lastName: string): Promise<UserSummary | undefined> {
  const [r] = await tx<UserSummary[]>`
    update users u set first_name = ${firstName}, last_name = ${lastName}, onboarded_at = coalesce(u.onboarded_at, now())
    where u.id = ${userId}
    returning ${summaryColumns(tx)}`;
  return r;
}

export async function passwordHashOf(tx: Tx, userId: number): Promise<string | null | undefined> {
  const [r] = await tx<{ hash: string | null }[]>`select password_hash as hash from users where id = ${userId}`;
  return r ? r.hash : undefined;
}

/**
 * Replaces the password if it is still the one verified (compare-and-set: a concurrent change
 * wins, this one fails) and confirms the password login. False when the hash moved meanwhile.
 */
export async function replacePassword(tx: Tx, userId: number, oldHash: string, newHash: string): Promise<boolean> {
  const rows = await tx`update users set password_hash = ${newHash} where id = ${userId} and password_hash = ${oldHash} returning id`;
  if (!rows.length) return false;
  await tx`update cognito_users set status = 'CONFIRMED'
           where user_id = ${userId} and cognito_idp_id is null and status in ('FORCE_CHANGE_PASSWORD', 'RESET_REQUIRED', 'UNCONFIRMED')`;
  return true;
}

// ---- super admin ----

export interface AdminUserRow {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  isStaff: boolean;
  roleId: number;
  roleName: string;
  defaultClientId: number | null;
  invitedAt: Date | null;
  onboardedAt: Date | null;
  disabledAt: Date | null;
  createdAt: Date;
  memberships: { id: number; clientId: number; clientName: string; tier: ClientBrief["tier"]; roleId: number }[];
  cognitoUsers: { id: number; cognitoIdpId: number | null; username: string; status: string }[];
}

/** A user as the super-admin actions answer it (run by staff across all clients). */
export async function adminUser(tx: Tx, id: number): Promise<AdminUserRow | undefined> {
  const [r] = await tx<AdminUserRow[]>`
    select u.id, u.email, u.first_name as "firstName", u.last_name as "lastName", u.is_staff as "isStaff",
           u.role_id as "roleId", r.role_name as "roleName", u.default_client_id as "defaultClientId",
           u.invited_at as "invitedAt", u.onboarded_at as "onboardedAt", u.disabled_at as "disabledAt", u.created_at as "createdAt",
           coalesce((select json_agg(json_build_object('id', uc.id, 'clientId', uc.client_id, 'clientName', c.name,
                                                      'tier', c.tier, 'roleId', uc.role_id) order by uc.client_id)
                     from user_and_clients uc join clients c on c.id = uc.client_id where uc.user_id = u.id), '[]'::json) as memberships,
           coalesce((select json_agg(json_build_object('id', cu.id, 'cognitoIdpId', cu.cognito_idp_id, 'username', cu.username,
                                                      'status', cu.status) order by cu.id)
                     from cognito_users cu where cu.user_id = u.id), '[]'::json) as "cognitoUsers"
    from users u join user_roles r on r.id = u.role_id
    where u.id = ${id}`;
  return r;
}

export interface NewUser {
  email: string;
  firstName: string | null;
  lastName: string | null;
  isStaff: boolean;
  roleId: number;
  defaultClientId: number | null;
  passwordHash: string;
}

export async function insertUser(tx: Tx, u: NewUser): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into users (email, first_name, last_name, is_staff, role_id, default_client_id, password_hash, invited_at)
    values (${u.email}, ${u.firstName}, ${u.lastName}, ${u.isStaff}, ${u.roleId}, ${u.defaultClientId}, ${u.passwordHash}, now())
    returning id`;
  return r!.id;
}

/** The password login of a user, waiting for the first sign-in to set a password of their own. */
export async function upsertPasswordIdentity(tx: Tx, userId: number, username: string): Promise<void> {
  const [existing] = await tx<{ id: number }[]>`select id from cognito_users where user_id = ${userId} and cognito_idp_id is null order by id limit 1`;
  if (existing) {
    await tx`update cognito_users set status = 'FORCE_CHANGE_PASSWORD' where id = ${existing.id}`;
  } else {
    await tx`insert into cognito_users (user_id, username, status) values (${userId}, ${username}, 'FORCE_CHANGE_PASSWORD')`;
  }
}

export interface UserPatch {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  isStaff?: boolean;
  roleId?: number;
  defaultClientId?: number | null;
  passwordHash?: string;
}

export async function updateUser(tx: Tx, id: number, p: UserPatch): Promise<void> {
  const cols: Record<string, unknown> = {};
  if (p.email !== undefined) cols.email = p.email;
  if (p.firstName !== undefined) cols.first_name = p.firstName;
  if (p.lastName !== undefined) cols.last_name = p.lastName;
  if (p.isStaff !== undefined) cols.is_staff = p.isStaff;
  if (p.roleId !== undefined) cols.role_id = p.roleId;
  if (p.defaultClientId !== undefined) cols.default_client_id = p.defaultClientId;
  if (p.passwordHash !== undefined) cols.password_hash = p.passwordHash;
  if (!Object.keys(cols).length) return;
  // sql(object): postgres.js writes `col = $n` for each key (the names above) and binds the values.
  await tx`update users set ${tx(cols)} where id = ${id}`;
}

/** The password login is named by the email: it follows an email change. */
export async function renamePasswordIdentity(tx: Tx, userId: number, email: string): Promise<void> {
  await tx`update cognito_users set username = ${email.toLowerCase()} where user_id = ${userId} and cognito_idp_id is null`;
}

export async function membershipsOf(tx: Tx, userId: number): Promise<{ clientId: number; roleId: number }[]> {
  return tx<{ clientId: number; roleId: number }[]>`
    select client_id as "clientId", role_id as "roleId" from user_and_clients where user_id = ${userId} order by client_id`;
}

/** Makes the user's memberships exactly `wanted`; the clients whose Admin membership went or was lowered. */
export async function replaceMemberships(tx: Tx, userId: number, wanted: { clientId: number; roleId: number }[]): Promise<number[]> {
  const before = await membershipsOf(tx, userId);
  const want = new Map(wanted.map((m) => [m.clientId, m.roleId]));
  const lostAdmin = before.filter((m) => m.roleId === 1 && want.get(m.clientId) !== 1).map((m) => m.clientId);
  const gone = before.filter((m) => !want.has(m.clientId)).map((m) => m.clientId);
  if (gone.length) await tx`delete from user_and_clients where user_id = ${userId} and client_id = any(${gone}::int[])`;
  for (const m of wanted) {
    await tx`
      insert into user_and_clients (user_id, client_id, role_id) values (${userId}, ${m.clientId}, ${m.roleId})
      on conflict (user_id, client_id) do update set role_id = excluded.role_id
      where user_and_clients.role_id is distinct from excluded.role_id`;
  }
  return lostAdmin;
}

/** Deletes a login identity; its owner and provider, or undefined when there is none. */
export async function deleteIdentity(tx: Tx, id: number): Promise<{ userId: number; cognitoIdpId: number | null } | undefined> {
  const [r] = await tx<{ userId: number; cognitoIdpId: number | null }[]>`
    delete from cognito_users where id = ${id} returning user_id as "userId", cognito_idp_id as "cognitoIdpId"`;
  return r;
}

/** Without its password login a user has no password: sign-in by password stops too. */
export async function dropPasswordIfNoPasswordIdentity(tx: Tx, userId: number): Promise<void> {
  await tx`update users set password_hash = null
           where id = ${userId} and not exists (select 1 from cognito_users where user_id = ${userId} and cognito_idp_id is null)`;
}
