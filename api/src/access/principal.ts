// Who is calling and which client the request names. The auth layer builds these from the token
// and headers; the generic entity layer and every service take them as arguments, never from a
// request body. Membership and role are resolved in the database when the request enters its
// tenant (db/tx.ts, app_enter), so a revoked membership or a disabled user takes effect at once.
import type { StatementLimits, TenantRequest } from "../db/tx.ts";

/** Who may call a route (access/policy.ts enforces it; declared here, where the request carries it). */
export type Access = { kind: "anonymous" } | { kind: "signedIn" } | { kind: "self" } | { kind: "member"; minRole: 1 | 2 | 3 } | { kind: "staff" } | { kind: "superAdmin" };

export interface Principal {
  userId: number;
  /** Provider staff (the IdeallyAdmin policy). */
  isStaff: boolean;
  /** Staff with the super-admin user role: needed for the super-admin actions. */
  isSuperAdmin: boolean;
}

export interface RequestCtx {
  principal: Principal;
  /** The client the request names (clientId header), or null (e.g. the /admin area). */
  clientId: number | null;
  /** requestscope `descendants`: the client and every client beneath it (org and enterprise pages). */
  descendants: boolean;
  /** The login session of the access token (checked on every request: logout ends it at once). */
  sessionId?: string | null;
  /** Who may call the operation being served (set by its route; enforced by access/policy.ts). */
  access?: Access;
  /** What bounds this request's statements (app.ts: timeout, disconnect, the user's share of the pool). */
  limits?: StatementLimits;
}

/** Staff working across all clients: no clientId, so no tenant predicate (RLS: app.all_clients). */
export function isAllClients(ctx: RequestCtx): boolean {
  return ctx.principal.isStaff && ctx.clientId === null;
}

export function tenantOf(ctx: RequestCtx): TenantRequest {
  return { userId: ctx.principal.userId, clientId: ctx.clientId, descendants: ctx.descendants, sessionId: ctx.sessionId ?? null, limits: ctx.limits };
}
