// The users domain: who am I (Me, permissions, policies), the members pages (login status,
// inherited members, enable / disable / remove), one's own account (names, password) and the
// super-admin user actions. Every function takes the database, the request context and its input;
// tenant work runs in enterTenant, which also applies the route's access rule.
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { PasswordHasher } from "../../auth/passwords.ts";
import { LIMITS } from "../../auth/auth.service.ts";
import { clearAttempts, recentAttempts, recordAttempt } from "../../auth/auth.sql.ts";
import { resolvedFlagsIn, type ResolvedFlag } from "../flags/flags.service.ts";
import * as q from "./users.sql.ts";
import { CLIENT_ROLE_NAMES, permissionsFor, policiesFor, type ClientRole, type Permission, type Policy } from "./permissions.ts";

/**
 * The caller's own reach: no client chosen, so the scope is every client their memberships reach
 * (staff: all). For the calls about oneself, which must not fail because of a stale clientId.
 */
const ownReach = (ctx: RequestCtx): RequestCtx => ({ ...ctx, clientId: null, descendants: false });

const roleOf = (id: number | null) => (id === null || !CLIENT_ROLE_NAMES[id] ? null : { id, roleName: CLIENT_ROLE_NAMES[id]! });

/** Constraint violations of the user writes, in the API's words. */
function mapDbError(e: unknown): never {
  const code = (e as { code?: string }).code;
  const detail = (e as { detail?: string }).detail;
  if (code === "23505") throw new ApiError("Conflict", "A user with this email (or login name) exists", detail);
  if (code === "23503") throw new ApiError("ValidationError", "A client or role named in the request does not exist", detail);
  if (code === "23514" || code === "22P02") throw new ApiError("ValidationError", "A value breaks a constraint", detail);
  throw e;
}

// ---- Me ----

export interface Me {
  id: number;
  email: string;
  firstName: string | null;
  lastName: string | null;
  isStaff: boolean;
  isSuperAdmin: boolean;
  role: { id: number; roleName: string };
  cognitoUsers: { id: number; cognitoIdpId: number | null; cognitoIdp: q.IdentityRow["cognitoIdp"]; username: string }[];
  defaultClientId: number | null;
  defaultClient: q.ClientBrief | null;
  onboarded: boolean;
  onboardedAt: Date | null;
  client: (q.ClientBrief & { role: { id: number; roleName: string } | null }) | null;
  featureFlags?: ResolvedFlag[];
}

export async function me(db: Db, ctx: RequestCtx): Promise<Me> {
  const uid = ctx.principal.userId;
  return enterTenant(db, ownReach(ctx), async (tx) => {
    const u = await q.me(tx, uid);
    if (!u) throw new ApiError("Unauthorized", "Not signed in");
    const ids = await q.identitiesOf(tx, uid);
    // A default client the user no longer reaches is not shown (the web then picks another).
    const defaultClient = u.defaultClientId === null ? null : ((await q.visibleClient(tx, u.defaultClientId)) ?? null);
    const out: Me = {
      id: u.id,
      email: u.email,
      firstName: u.firstName,
      lastName: u.lastName,
      isStaff: u.isStaff,
      isSuperAdmin: u.isSuperAdmin,
      role: { id: u.roleId, roleName: u.roleName },
      cognitoUsers: ids.map((i) => ({ id: i.id, cognitoIdpId: i.cognitoIdpId, cognitoIdp: i.cognitoIdp, username: i.username })),
      defaultClientId: u.defaultClientId,
      defaultClient,
      onboarded: u.onboardedAt !== null,
      onboardedAt: u.onboardedAt,
      client: null,
    };
    if (ctx.clientId !== null) {
      // The scope of this transaction is the caller's reach: a client outside it is refused.
      const c = await q.visibleClient(tx, ctx.clientId);
      if (!c) throw new ApiError("Forbidden", `You do not have access to client ${ctx.clientId}`);
      out.client = { ...c, role: roleOf(await q.effectiveRole(tx, uid, c.id)) };
      out.featureFlags = await resolvedFlagsIn(tx, c.id, ctx.principal.isStaff);
    }
    return out;
  });
}

// ---- HmacMe ----

/** The message signed for the support chat's identity verification: `{userId}:{email}`. */
export const hmacMessage = (id: number, email: string) => `${id}:${email}`;

export async function hmacMe(db: Db, ctx: RequestCtx, input: { secret: string | undefined }): Promise<{ userId: number; email: string; hmac: string }> {
  if (!input.secret) {
    throw new ApiError("ServiceUnavailable", "Support-chat identity verification is not configured on this server (HMAC_SECRET is unset)");
  }
  const secret = input.secret;
  const u = await enterTenant(db, ownReach(ctx), (tx) => q.me(tx, ctx.principal.userId));
  if (!u) throw new ApiError("Unauthorized", "Not signed in");
  const key = await crypto.subtle.importKey("raw", new TextEncoder().encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, new TextEncoder().encode(hmacMessage(u.id, u.email))));
  return { userId: u.id, email: u.email, hmac: Array.from(sig, (b) => b.toString(16).padStart(2, "0")).join("") };
}

// ---- permissions and policies ----

export interface MyPermissions {
  clientId: number | null;
  role: { id: number; roleName: string } | null;
  isStaff: boolean;
  value: Permission[];
}

export async function myPermissions(db: Db, ctx: RequestCtx): Promise<MyPermissions> {
  // The tenant entry resolves the role on the request's client (and refuses a client the caller
  // cannot use): 1-3, 0 for staff without a membership, null without a client.
  const role = await enterTenant(db, { ...ctx, descendants: false }, async (_tx, r) => r as ClientRole);
  return {
    clientId: ctx.clientId,
    role: roleOf(role),
    isStaff: ctx.principal.isStaff,
    value: permissionsFor(role, ctx.principal),
  };
}

export async function hasPermission(db: Db, ctx: RequestCtx, input: { permission: Permission }): Promise<{ permission: Permission; clientId: number | null; value: boolean }> {
  const mine = await myPermissions(db, ctx);
  return { permission: input.permission, clientId: ctx.clientId, value: mine.value.includes(input.permission) };
}

export interface ClientPolicies {
  clientId: number;
  clientName: string;
  tier: q.ClientBrief["tier"];
  parentId: number | null;
  role: { id: number; roleName: string } | null;
  isDirect: boolean;
  policies: Policy[];
}

export async function myPolicies(db: Db, ctx: RequestCtx): Promise<{ isIdeallyAdmin: boolean; value: ClientPolicies[] }> {
  const isStaff = ctx.principal.isStaff;
  const rows = await enterTenant(db, ownReach(ctx), (tx) => q.reach(tx, ctx.principal.userId, isStaff ? ctx.clientId : null));
  return {
    isIdeallyAdmin: isStaff,
    value: rows.map((r) => ({
      clientId: r.id,
      clientName: r.name,
      tier: r.tier,
      parentId: r.parentId,
      role: roleOf(r.roleId),
      isDirect: r.isDirect,
      policies: policiesFor(r.tier, r.roleId as ClientRole, isStaff),
    })),
  };
}

// ---- members pages ----

export async function inheritedUserCount(db: Db, ctx: RequestCtx): Promise<{ clientId: number; value: number; directUserCount: number }> {
  const clientId = requireClient(ctx);
  const c = await enterTenant(db, { ...ctx, descendants: false }, (tx) => q.memberCounts(tx, clientId));
  return { clientId, value: c.inheritedOnly, directUserCount: c.direct };
}

export async function cognitoStatus(db: Db, ctx: RequestCtx): Promise<{ clientId: number | null; value: q.LoginStatusRow[] }> {
  // Staff without a client (the /admin area) see every user; otherwise the request's client (and
  // with requestscope descendants, every client beneath it).
  if (ctx.clientId === null && !ctx.principal.isStaff) throw new ApiError("BadRequest", "A clientId header is required");
  const value = await enterTenant(db, ctx, (tx) => q.loginStatus(tx, ctx.clientId === null));
  return { clientId: ctx.clientId, value };
}

function requireClient(ctx: RequestCtx): number {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required");
  return ctx.clientId;
}

export type UserState = q.UserSummary & { endedSessions: number };

/**
 * Enable / Disable. Staff: anyone (staff accounts only by a super admin). An Admin of the request's
 * client: a user whose memberships all lie in that client or beneath it (an Admin never locks a
 * person out of a client they do not administer). Nobody disables themselves. Disabling ends
 * the user's sessions; app_enter refuses a disabled user at once in any case.
 */
export async function setEnabled(db: Db, ctx: RequestCtx, input: { userId: number; enabled: boolean }): Promise<UserState> {
  const id = input.userId;
  const notFound = () => new ApiError("NotFound", `Users(${id}) not found among the members of this client`);
  return enterTenant(db, ctx, async (tx) => {
    const target = await q.userSummary(tx, id);
    if (!target) throw notFound();
    if (!input.enabled && id === ctx.principal.userId) throw new ApiError("Conflict", "You cannot disable your own account");
    if (!ctx.principal.isStaff) {
      if (target.isStaff) throw notFound();
      const s = await q.membershipScope(tx, id, requireClient(ctx));
      if (s.inside === 0) throw notFound();
      if (s.outside > 0) {
        throw new ApiError("Forbidden", "This user also belongs to clients you do not administer; an Admin of all of them or Ideally support can do this");
      }
    } else if (target.isStaff && !ctx.principal.isSuperAdmin) {
      throw new ApiError("Forbidden", "Only a super admin can disable or enable staff accounts");
    }
    const row = (await q.setDisabled(tx, id, !input.enabled))!;
    const endedSessions = input.enabled ? 0 : await q.revokeSessions(tx, id, "user disabled");
    return { ...row, endedSessions };
  });
}

/**
 * Removes the user's membership of the request's client, nothing else (memberships above or
 * beneath it stay). Refused when the client would be left without an enabled Admin reaching it.
 */
export async function removeFromAccount(db: Db, ctx: RequestCtx, input: { userId: number }): Promise<{ userId: number; clientId: number; removedRole: { id: number; roleName: string } }> {
  const clientId = requireClient(ctx);
  return enterTenant(db, ctx, async (tx) => {
    await q.lockMemberships(tx);
    const removed = await q.deleteMembership(tx, input.userId, clientId);
    if (!removed) throw new ApiError("NotFound", `Users(${input.userId}) has no membership of client ${clientId}`);
    if (removed.roleId === 1 && (await q.adminCount(tx, clientId)) === 0) {
      throw new ApiError("Conflict", `This is the last Admin of client ${clientId}; make someone else Admin first`);
    }
    if (!(await q.stillReaches(tx, input.userId, clientId))) await q.clearDefaultClient(tx, input.userId, clientId);
    return { userId: input.userId, clientId, removedRole: roleOf(removed.roleId)! };
  });
}

/**
 * Changes the role of the user's membership of the request's client (the members page). Nobody
 * changes their own role, and the client keeps an enabled Admin reaching it, under the same lock
 * as RemoveFromAccount.
 */
export async function changeRole(
  db: Db,
  ctx: RequestCtx,
  input: { userId: number; roleId: 1 | 2 | 3 },
): Promise<{ userId: number; clientId: number; role: { id: number; roleName: string }; previousRole: { id: number; roleName: string } }> {
  const clientId = requireClient(ctx);
  if (input.userId === ctx.principal.userId) throw new ApiError("Conflict", "You cannot change your own role; ask another Admin");
  return enterTenant(db, ctx, async (tx) => {
    await q.lockMemberships(tx);
    const changed = await q.setMembershipRole(tx, input.userId, clientId, input.roleId);
    if (!changed) throw new ApiError("NotFound", `Users(${input.userId}) has no membership of client ${clientId}`);
    if (changed.previousRoleId === 1 && input.roleId !== 1 && (await q.adminCount(tx, clientId)) === 0) {
      throw new ApiError("Conflict", `This is the last Admin of client ${clientId}; make someone else Admin first`);
    }
    return { userId: input.userId, clientId, role: roleOf(input.roleId)!, previousRole: roleOf(changed.previousRoleId)! };
  });
}

// ---- one's own account ----

export async function setNames(db: Db, ctx: RequestCtx, input: { firstName: string; lastName: string }): Promise<q.UserSummary> {
  return enterTenant(db, ownReach(ctx), async (tx) => {
    const row = await q.setNames(tx, ctx.principal.userId, input.firstName, input.lastName);
    if (!row) throw new ApiError("Unauthorized", "Not signed in");
    return row;
  });
}

/**
 * Changes one's password after verifying the current one, and ends every other login session.
 * Wrong current passwords count against the same limit as sign-in failures (per account).
 */
export async function setPassword(db: Db, ctx: RequestCtx, input: { currentPassword: string; newPassword: string }, passwords: PasswordHasher | undefined): Promise<{ endedSessions: number }> {
  if (!passwords) throw new ApiError("ServiceUnavailable", "Password changes are not available on this server");
  const uid = ctx.principal.userId;
  if (input.newPassword === input.currentPassword) {
    throw new ApiError("ValidationError", "The new password must differ from the current one", undefined, [{ path: "newPassword", message: "must differ from the current password" }]);
  }
  // Attempts are sign-in state (auth_attempts), kept by the table owner outside any tenant, as in auth.service.ts.
  const attemptKey = `password:user:${uid}`;
  const l = LIMITS.passwordChangePerUser;
  const { n, oldest } = await recentAttempts(db, attemptKey, l.windowSeconds);
  if (n >= l.max) {
    const retry = oldest ? Math.max(1, Math.ceil((oldest.getTime() + l.windowSeconds * 1000 - Date.now()) / 1000)) : l.windowSeconds;
    throw new ApiError("TooManyRequests", `Too many password attempts. Try again in ${retry} seconds.`, undefined, undefined, retry);
  }
  const hash = await enterTenant(db, ownReach(ctx), (tx) => q.passwordHashOf(tx, uid));
  if (hash === undefined) throw new ApiError("Unauthorized", "Not signed in");
  if (hash === null) throw new ApiError("Conflict", "This account signs in through single sign-on and has no password to change");
  // Verified outside the transaction: argon2 takes tens of milliseconds; the write below checks the hash is unchanged.
  if (!(await passwords.verify(input.currentPassword, hash))) {
    await recordAttempt(db, [attemptKey]);
    throw new ApiError("ValidationError", "The current password is incorrect", undefined, [{ path: "currentPassword", message: "is incorrect" }]);
  }
  const newHash = await passwords.hash(input.newPassword);
  const endedSessions = await enterTenant(db, ownReach(ctx), async (tx) => {
    if (!(await q.replacePassword(tx, uid, hash, newHash))) {
      throw new ApiError("Conflict", "The password was changed meanwhile; sign in again and retry");
    }
    return q.revokeSessions(tx, uid, "password changed", { keep: ctx.sessionId ?? null });
  });
  await clearAttempts(db, attemptKey);
  return { endedSessions };
}

// ---- super admin ----

export interface MembershipInput {
  clientId: number;
  roleId: 1 | 2 | 3;
}

export interface SuperAdminUserInput {
  email?: string;
  firstName?: string | null;
  lastName?: string | null;
  isStaff?: boolean;
  roleId?: 1 | 2 | 3;
  defaultClientId?: number | null;
  memberships?: MembershipInput[];
}

/** A temporary password: 120 random bits, URL-safe, above the minimum length. */
export function temporaryPassword(): string {
  const b = crypto.getRandomValues(new Uint8Array(15));
  return btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_");
}

/** The user role follows the staff flag unless given: 1 User for non-staff, 2 Staff for staff. */
function staffAndRole(isStaff: boolean | undefined, roleId: number | undefined, current?: { isStaff: boolean; roleId: number }) {
  const staff = isStaff ?? current?.isStaff ?? (roleId !== undefined && roleId > 1);
  let role = roleId ?? current?.roleId ?? (staff ? 2 : 1);
  if (roleId === undefined) {
    if (!staff && role > 1) role = 1;
    if (staff && role === 1) role = 2;
  }
  if (!staff && role > 1) {
    throw new ApiError("ValidationError", "Only staff can hold the Staff or SuperAdmin user role", undefined, [{ path: "roleId", message: "needs isStaff: true" }]);
  }
  return { isStaff: staff, roleId: role };
}

function uniqueMemberships(m: MembershipInput[] | undefined): void {
  if (m && new Set(m.map((x) => x.clientId)).size !== m.length) {
    throw new ApiError("ValidationError", "A client appears twice in memberships", undefined, [{ path: "memberships", message: "one entry per client" }]);
  }
}

export async function superAdminUserCreate(
  db: Db,
  ctx: RequestCtx,
  input: SuperAdminUserInput & { email: string },
  passwords: PasswordHasher | undefined,
): Promise<{ user: q.AdminUserRow; temporaryPassword: string }> {
  uniqueMemberships(input.memberships);
  const { isStaff, roleId } = staffAndRole(input.isStaff, input.roleId);
  if (!passwords) throw new ApiError("ServiceUnavailable", "Creating users with a password is not available on this server");
  const temp = temporaryPassword();
  const passwordHash = await passwords.hash(temp);
  const user = await enterTenant(db, ownReach(ctx), async (tx) => {
    const id = await q
      .insertUser(tx, {
        email: input.email,
        firstName: input.firstName ?? null,
        lastName: input.lastName ?? null,
        isStaff,
        roleId,
        defaultClientId: input.defaultClientId ?? input.memberships?.[0]?.clientId ?? null,
        passwordHash,
      })
      .catch(mapDbError);
    await q.upsertPasswordIdentity(tx, id, input.email.toLowerCase()).catch(mapDbError);
    if (input.memberships?.length) await q.replaceMemberships(tx, id, input.memberships).catch(mapDbError);
    return (await q.adminUser(tx, id))!;
  });
  return { user, temporaryPassword: temp };
}

export async function superAdminUserUpdate(
  db: Db,
  ctx: RequestCtx,
  input: SuperAdminUserInput & { userId: number; resetPassword?: boolean },
  passwords: PasswordHasher | undefined,
): Promise<{ user: q.AdminUserRow; temporaryPassword?: string; endedSessions: number }> {
  const { userId, resetPassword, memberships, ...fields } = input;
  if (!Object.values(fields).some((v) => v !== undefined) && memberships === undefined && !resetPassword) {
    throw new ApiError("ValidationError", "Nothing to update");
  }
  uniqueMemberships(memberships);
  let temp: string | undefined;
  let passwordHash: string | undefined;
  if (resetPassword) {
    if (!passwords) throw new ApiError("ServiceUnavailable", "Password resets are not available on this server");
    temp = temporaryPassword();
    passwordHash = await passwords.hash(temp);
  }
  return enterTenant(db, ownReach(ctx), async (tx) => {
    if (memberships) await q.lockMemberships(tx);
    const cur = await q.adminUser(tx, userId);
    if (!cur) throw new ApiError("NotFound", `Users(${userId}) not found`);
    const next = staffAndRole(fields.isStaff, fields.roleId, cur);
    if (userId === ctx.principal.userId && (!next.isStaff || next.roleId !== 3)) {
      throw new ApiError("Conflict", "You cannot take away your own super admin role");
    }
    await q
      .updateUser(tx, userId, {
        email: fields.email,
        firstName: fields.firstName,
        lastName: fields.lastName,
        isStaff: next.isStaff !== cur.isStaff ? next.isStaff : undefined,
        roleId: next.roleId !== cur.roleId ? next.roleId : undefined,
        defaultClientId: fields.defaultClientId,
        passwordHash,
      })
      .catch(mapDbError);
    if (fields.email !== undefined && fields.email !== cur.email) await q.renamePasswordIdentity(tx, userId, fields.email).catch(mapDbError);
    if (resetPassword) await q.upsertPasswordIdentity(tx, userId, (fields.email ?? cur.email).toLowerCase()).catch(mapDbError);
    if (memberships) {
      const lost = await q.replaceMemberships(tx, userId, memberships).catch(mapDbError);
      for (const clientId of lost) {
        if ((await q.adminCount(tx, clientId)) === 0) {
          throw new ApiError("Conflict", `Client ${clientId} would be left without an Admin; make someone else Admin first`);
        }
      }
    }
    // Access tokens carry the staff flags and sign-in identity: a change to them ends the sessions.
    const changedAccess = next.isStaff !== cur.isStaff || next.roleId !== cur.roleId || (fields.email !== undefined && fields.email.toLowerCase() !== cur.email.toLowerCase()) || !!resetPassword;
    const endedSessions = changedAccess ? await q.revokeSessions(tx, userId, "account changed by a super admin") : 0;
    const user = (await q.adminUser(tx, userId))!;
    return temp === undefined ? { user, endedSessions } : { user, temporaryPassword: temp, endedSessions };
  });
}

/** CognitoUsers AdminDelete: removes a login identity and ends the user's sessions. */
export async function adminDeleteIdentity(db: Db, ctx: RequestCtx, input: { id: number }): Promise<void> {
  await enterTenant(db, ownReach(ctx), async (tx) => {
    const gone = await q.deleteIdentity(tx, input.id);
    if (!gone) throw new ApiError("NotFound", `CognitoUsers(${input.id}) not found`);
    if (gone.cognitoIdpId === null) await q.dropPasswordIfNoPasswordIdentity(tx, gone.userId);
    await q.revokeSessions(tx, gone.userId, "login identity removed by staff");
  });
}
