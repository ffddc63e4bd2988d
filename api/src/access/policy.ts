// Who may call an operation: declared once per route (published as the operation's `x-access`
// in the OpenAPI document, from which docs/permissions.md is generated) and enforced here, in two
// steps: what the token alone decides (before any database work), and the client role, which the
// database resolves when the request enters its tenant (enterTenant below).
import type { Db, Tx } from "../db/client.ts";
import { readManyAsTenant, withTenant, type EffectiveRole } from "../db/tx.ts";
import { ApiError } from "../errors.ts";
import { tenantOf, type Access, type RequestCtx } from "./principal.ts";

/**
 * - anonymous: no sign-in (the auth calls).
 * - signedIn: every signed-in user; the tenant scope limits what they reach.
 * - member: a role on the request's client of at least `minRole` (1 Admin, 2 User, 3 Viewer; a
 *   lower number is more privileged); provider staff pass too.
 * - self: the signed-in user acting on their own account.
 * - staff: provider staff (the IdeallyAdmin policy).
 * - superAdmin: staff with the super-admin user role.
 */
export type { Access };

export const access = {
  anonymous: { kind: "anonymous" } as Access,
  signedIn: { kind: "signedIn" } as Access,
  self: { kind: "self" } as Access,
  admin: { kind: "member", minRole: 1 } as Access,
  user: { kind: "member", minRole: 2 } as Access,
  viewer: { kind: "member", minRole: 3 } as Access,
  staff: { kind: "staff" } as Access,
  superAdmin: { kind: "superAdmin" } as Access,
};

/** The label published as `x-access` and used in docs/permissions.md. */
export function accessLabel(a: Access): string {
  return a.kind === "member" ? `member:${["", "Admin", "User", "Viewer"][a.minRole]}` : a.kind;
}

export function parseAccessLabel(label: string): Access | undefined {
  switch (label) {
    case "anonymous":
    case "signedIn":
    case "self":
    case "staff":
    case "superAdmin":
      return { kind: label };
    case "member:Admin":
      return access.admin;
    case "member:User":
      return access.user;
    case "member:Viewer":
      return access.viewer;
  }
  return undefined;
}

export const MATRIX_ROLES = ["Admin", "User", "Viewer", "staff", "super admin"] as const;

/** One row of the permission matrix: may each kind of caller use the operation? */
export function matrixRow(a: Access): Record<(typeof MATRIX_ROLES)[number], boolean> {
  const staffOk = a.kind !== "superAdmin";
  const member = (role: 1 | 2 | 3) => a.kind === "anonymous" || a.kind === "signedIn" || a.kind === "self" || (a.kind === "member" && role <= a.minRole);
  return { Admin: member(1), User: member(2), Viewer: member(3), staff: staffOk, "super admin": true };
}

/** The checks the token alone decides. */
export function checkBeforeDb(a: Access, ctx: RequestCtx | undefined): void {
  if (a.kind === "anonymous") return;
  if (!ctx) throw new ApiError("Unauthorized", "Not signed in");
  const p = ctx.principal;
  if (a.kind === "staff" && !p.isStaff) throw new ApiError("Forbidden", "This is for Ideally staff only");
  if (a.kind === "superAdmin" && !(p.isStaff && p.isSuperAdmin)) throw new ApiError("Forbidden", "This needs a super admin");
  if (a.kind === "member" && ctx.clientId === null && !p.isStaff) {
    throw new ApiError("BadRequest", "A clientId header is required");
  }
}

/** The role check, once the database has resolved the caller's role on the client. */
export function checkRole(a: Access, ctx: RequestCtx, role: EffectiveRole): void {
  if (a.kind !== "member" || ctx.principal.isStaff) return;
  if (role === null || role === 0 || role > a.minRole) {
    const need = ["", "an Admin", "a User or Admin", "a member"][a.minRole];
    throw new ApiError("Forbidden", `This needs ${need} of the client`);
  }
}

/**
 * For operations that need a User or Admin role: resolves the caller's role before the body is
 * validated or any work starts, so a refused caller always gets 403. (enterTenant checks again in
 * the transaction that does the work.)
 */
export async function checkRoleEarly(db: Db, a: Access, ctx: RequestCtx): Promise<void> {
  if (a.kind !== "member" || a.minRole === 3 || ctx.principal.isStaff) return;
  const t = tenantOf(ctx);
  const [row] = await db<{ role: number | null }[]>`
    select app_enter(${t.userId}, ${t.clientId}, ${t.descendants}, ${t.sessionId ?? null}::uuid) as role`;
  checkRole(a, ctx, (row?.role ?? null) as EffectiveRole);
}

/**
 * Runs fn in the request's tenant transaction after the access check of the operation the request
 * is for (ctx.access, set by the route). Every service that touches tenant data goes through here.
 */
export async function enterTenant<T>(db: Db, ctx: RequestCtx, fn: (tx: Tx, role: EffectiveRole) => Promise<T>): Promise<T> {
  return withTenant(db, tenantOf(ctx), async (tx, role) => {
    if (ctx.access) checkRole(ctx.access, ctx, role);
    return fn(tx, role);
  });
}

/**
 * Reads in the caller's tenant in one round trip (db/tx.ts readManyAsTenant): fn starts all its
 * statements at once. The role is checked when the answers are back; the statements only read,
 * under row-level security, and a refused caller gets nothing of them.
 */
export async function readAsCaller<T>(db: Db, ctx: RequestCtx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const { value, role } = await readManyAsTenant(db, tenantOf(ctx), fn);
  if (ctx.access) checkRole(ctx.access, ctx, role);
  return value;
}
