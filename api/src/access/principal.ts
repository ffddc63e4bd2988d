// Who is calling and which clients' rows they may reach. The auth layer builds these; the generic
// entity layer and every service take them as arguments, never from a request body.

export interface Principal {
  userId: number;
  /** Provider staff (the IdeallyAdmin policy). */
  isStaff: boolean;
  /** Staff with the super-admin user role: needed for the super-admin actions. */
  isSuperAdmin: boolean;
}

export type RequestScopeMode = "client" | "descendants";

export interface ClientScope {
  /** The client named by the clientId header, if any. */
  clientId: number | null;
  /**
   * The clients whose rows this request may touch: the chosen client, or with requestscope
   * `descendants` the client and every client beneath it. "all" only for staff without a
   * clientId header (the /admin area).
   */
  clientIds: readonly number[] | "all";
  /** The caller's effective role on clientId (1 Admin, 2 User, 3 Viewer); null for staff-only access. */
  roleId: 1 | 2 | 3 | null;
}

export interface RequestCtx {
  principal: Principal;
  scope: ClientScope;
}

/** Viewers never write; staff write wherever they can read. */
export function canWrite(ctx: RequestCtx): boolean {
  if (ctx.principal.isStaff) return true;
  return ctx.scope.roleId === 1 || ctx.scope.roleId === 2;
}
