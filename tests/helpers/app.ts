// The app under test with a stand-in for sign-in: a bearer token names one of the fixture
// principals, and the clientId header chooses the client. Membership checks belong to the auth
// layer and are tested there; these tests exercise the generic layer given a principal.
import { newApp, type App } from "../../api/src/app.ts";
import type { Principal, RequestCtx } from "../../api/src/access/principal.ts";
import { registry } from "../../api/src/entities/index.ts";
import { ApiError } from "../../api/src/errors.ts";
import type { Db } from "../../api/src/db/client.ts";

/** Fixture users (tests/helpers/fixtures.sql) and their role on the fixture clients. */
export const PRINCIPALS: Record<string, { principal: Principal; roles: Record<number, 1 | 2 | 3> }> = {
  staff: { principal: { userId: 9001, isStaff: true, isSuperAdmin: true }, roles: {} },
  ops: { principal: { userId: 9002, isStaff: true, isSuperAdmin: false }, roles: {} },
  acmeAdmin: { principal: { userId: 9003, isStaff: false, isSuperAdmin: false }, roles: { 1003: 1, 1001: 1 } },
  acmeUser: { principal: { userId: 9004, isStaff: false, isSuperAdmin: false }, roles: { 1003: 2 } },
  acmeViewer: { principal: { userId: 9005, isStaff: false, isSuperAdmin: false }, roles: { 1003: 3 } },
  globexAdmin: { principal: { userId: 9006, isStaff: false, isSuperAdmin: false }, roles: { 2001: 1 } },
};

export function testApp(db: Db): App {
  return newApp({
    db,
    registry,
    authenticate: async (c): Promise<RequestCtx> => {
      const token = c.req.header("authorization")?.replace(/^Bearer /, "");
      const who = token ? PRINCIPALS[token] : undefined;
      if (!who) throw new ApiError("Unauthorized", "Not signed in");
      const header = c.req.header("clientId");
      const clientId = header ? Number(header) : null;
      if (clientId === null) {
        if (!who.principal.isStaff) throw new ApiError("BadRequest", "clientId header required");
        return { principal: who.principal, scope: { clientId: null, clientIds: "all", roleId: null } };
      }
      const roleId = who.roles[clientId] ?? null;
      if (roleId === null && !who.principal.isStaff) throw new ApiError("Forbidden", "Not a member of this client");
      return { principal: who.principal, scope: { clientId, clientIds: [clientId], roleId } };
    },
  });
}

/** Request helper: `call(app, "acmeUser", 1003, "GET", "/api/v1/Projects")`. */
export async function call(
  app: App,
  who: keyof typeof PRINCIPALS | null,
  clientId: number | null,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: any; headers: Headers }> {
  const headers: Record<string, string> = {};
  if (who) headers.authorization = `Bearer ${who}`;
  if (clientId !== null) headers.clientId = String(clientId);
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, headers: res.headers };
}
