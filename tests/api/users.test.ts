// The users domain through the HTTP API: Me, HmacMe, permissions and policies, the members pages
// (login status, inherited members, enable / disable / remove), one's own account (names,
// password), the super-admin user actions and CognitoUsers AdminDelete. Happy, error and security
// cases; real tokens where sessions matter.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { permissionsFor, policiesFor, PERMISSION_NAMES } from "../../api/src/domains/users/permissions.ts";

let tdb: TestDb;
let app: App; // fixture principals by name (tests/helpers/app.ts)
let real: App; // real sign-in and tokens
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  ({ app: real } = await realApp(tdb.db));
});
afterAll(async () => {
  await tdb.drop();
});

type Res = { status: number; body: any };
async function send(a: App, auth: string, method: string, path: string, opts: { clientId?: number; scope?: string; body?: unknown } = {}): Promise<Res> {
  const headers: Record<string, string> = { authorization: `Bearer ${auth}` };
  if (opts.clientId !== undefined) headers.clientId = String(opts.clientId);
  if (opts.scope) headers.requestscope = opts.scope;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await a.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
/** As a fixture principal (testApp). */
const as = (who: string, method: string, path: string, opts: { clientId?: number; scope?: string; body?: unknown } = {}) => send(app, who, method, path, opts);
/** With a real access token (realApp). */
const withToken = (token: string, method: string, path: string, opts: { clientId?: number; body?: unknown } = {}) => send(real, token, method, path, opts);
const sql = () => tdb.db;

describe("Users/Me", () => {
  test("the signed-in user: names, user role, login identities, default client, onboarding", async () => {
    const r = await as("acmeUser", "GET", "/api/v1/Users/Me");
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      id: 9004,
      email: "user@acme.test",
      firstName: "Uma",
      lastName: "User",
      isStaff: false,
      isSuperAdmin: false,
      role: { id: 1, roleName: "User" },
      cognitoUsers: [{ id: 9004, cognitoIdpId: null, cognitoIdp: null, username: "user@acme.test" }],
      defaultClientId: 1003,
      defaultClient: { id: 1003, name: "Acme Team A", tier: "Team", parentId: 1002 },
      onboarded: true,
      client: null,
    });
    expect(r.body.featureFlags, "no flags without a clientId header").toBeUndefined();
  });

  test("with a clientId header: the client, the caller's effective role there, and the resolved flags", async () => {
    const r = await as("acmeUser", "GET", "/api/v1/Users/Me", { clientId: 1003 });
    expect(r.status).toBe(200);
    expect(r.body.client).toEqual({ id: 1003, name: "Acme Team A", tier: "Team", parentId: 1002, role: { id: 2, roleName: "User" } });
    const mr = r.body.featureFlags.find((f: any) => f.ff === "MarketReach");
    expect(mr, "Acme Team A has MarketReach through ClientFeatures").toEqual({ id: 3, ff: "MarketReach", isEnabled: true, source: "client" });
    const inherited = await as("acmeAdmin", "GET", "/api/v1/Users/Me", { clientId: 1004 });
    expect(inherited.body.client.role, "an enterprise Admin is Admin of its teams").toEqual({ id: 1, roleName: "Admin" });
  });

  test("an SSO identity names its provider", async () => {
    const r = await as("acmeAdmin", "GET", "/api/v1/Users/Me", { clientId: 1003 });
    const sso = r.body.cognitoUsers.find((c: any) => c.cognitoIdpId !== null);
    expect(sso).toEqual({ id: 9013, cognitoIdpId: 1001, cognitoIdp: { id: 1001, providerName: "AcmeSSO", providerType: "SAML" }, username: "AcmeSSO_admin@acme.test" });
  });

  test("staff: the SuperAdmin user role; on a client without a membership, no client role", async () => {
    const r = await as("staff", "GET", "/api/v1/Users/Me", { clientId: 2001 });
    expect(r.status).toBe(200);
    expect(r.body.role).toEqual({ id: 3, roleName: "SuperAdmin" });
    expect(r.body.isSuperAdmin).toBe(true);
    expect(r.body.client).toMatchObject({ id: 2001, role: null });
  });

  test("another tenant's client is refused", async () => {
    const r = await as("acmeUser", "GET", "/api/v1/Users/Me", { clientId: 2001 });
    expect(r.status, "Acme's user names Globex").toBe(403);
  });

  test("not signed in is 401", async () => {
    const res = await app.request("/api/v1/Users/Me");
    expect(res.status).toBe(401);
  });
});

describe("Users/HmacMe", () => {
  test("503 with a clear message while HMAC_SECRET is unset", async () => {
    const saved = process.env.HMAC_SECRET;
    delete process.env.HMAC_SECRET;
    try {
      const r = await as("acmeUser", "GET", "/api/v1/Users/HmacMe");
      expect(r.status).toBe(503);
      expect(r.body.typename).toBe("ServiceUnavailable");
      expect(r.body.message).toContain("HMAC_SECRET");
    } finally {
      if (saved !== undefined) process.env.HMAC_SECRET = saved;
    }
  });

  test("HMAC-SHA256 of '{id}:{email}' with HMAC_SECRET, per user", async () => {
    const saved = process.env.HMAC_SECRET;
    process.env.HMAC_SECRET = "support-chat-test-secret";
    try {
      const r = await as("acmeUser", "GET", "/api/v1/Users/HmacMe");
      expect(r.status).toBe(200);
      const expected = createHmac("sha256", "support-chat-test-secret").update("9004:user@acme.test").digest("hex");
      expect(r.body).toEqual({ userId: 9004, email: "user@acme.test", hmac: expected });
      const other = await as("acmeViewer", "GET", "/api/v1/Users/HmacMe");
      expect(other.body.hmac, "each user gets their own hash").not.toBe(expected);
    } finally {
      if (saved === undefined) delete process.env.HMAC_SECRET;
      else process.env.HMAC_SECRET = saved;
    }
  });
});

describe("Users/MyPermissions and HasPermission", () => {
  test("the vocabulary follows the role on the request's client", async () => {
    const viewer = await as("acmeViewer", "GET", "/api/v1/Users/MyPermissions", { clientId: 1003 });
    expect(viewer.status).toBe(200);
    expect(viewer.body.role).toEqual({ id: 3, roleName: "Viewer" });
    expect(viewer.body.value).toContain("results.view");
    expect(viewer.body.value, "Viewers never write").not.toContain("projects.create");

    const user = await as("acmeUser", "GET", "/api/v1/Users/MyPermissions", { clientId: 1003 });
    expect(user.body.value).toEqual(expect.arrayContaining(["projects.create", "projects.submit", "credits.view", "chat.use"]));
    expect(user.body.value).not.toContain("members.manage");

    const admin = await as("acmeAdmin", "GET", "/api/v1/Users/MyPermissions", { clientId: 1004 });
    expect(admin.body.role, "inherited from the enterprise").toEqual({ id: 1, roleName: "Admin" });
    expect(admin.body.value).toEqual(expect.arrayContaining(["members.manage", "members.invite", "credits.manage", "client.manage"]));
    expect(
      admin.body.value.some((p: string) => p.startsWith("admin.")),
      "no admin.* for client Admins",
    ).toBe(false);
  });

  test("staff hold every client permission and admin.*; only a super admin admin.superAdmin", async () => {
    const ops = await as("ops", "GET", "/api/v1/Users/MyPermissions", { clientId: 1003 });
    expect(ops.body.role, "staff without a membership have no client role").toBeNull();
    expect(ops.body.value).toEqual(expect.arrayContaining(["members.manage", "admin.access", "admin.features"]));
    expect(ops.body.value).not.toContain("admin.superAdmin");
    const sa = await as("staff", "GET", "/api/v1/Users/MyPermissions");
    expect(sa.body.value).toContain("admin.superAdmin");
    expect(sa.body.value, "no client permissions without a client").not.toContain("projects.view");
  });

  test("without a client a member holds nothing", async () => {
    const r = await as("acmeUser", "GET", "/api/v1/Users/MyPermissions");
    expect(r.body).toEqual({ clientId: null, role: null, isStaff: false, value: [] });
  });

  test("HasPermission answers one; an unknown permission is a 400; another tenant's client a 403", async () => {
    expect((await as("acmeUser", "GET", "/api/v1/Users/HasPermission?permission=projects.submit", { clientId: 1003 })).body).toEqual({
      permission: "projects.submit",
      clientId: 1003,
      value: true,
    });
    expect((await as("acmeViewer", "GET", "/api/v1/Users/HasPermission?permission=projects.submit", { clientId: 1003 })).body.value).toBe(false);
    const bad = await as("acmeUser", "GET", "/api/v1/Users/HasPermission?permission=projects.fly", { clientId: 1003 });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("permission");
    expect((await as("globexAdmin", "GET", "/api/v1/Users/HasPermission?permission=projects.view", { clientId: 1003 })).status).toBe(403);
  });

  test("the pure rules: each role holds what the role below holds", () => {
    const v = permissionsFor(3, { isStaff: false, isSuperAdmin: false });
    const u = permissionsFor(2, { isStaff: false, isSuperAdmin: false });
    const a = permissionsFor(1, { isStaff: false, isSuperAdmin: false });
    expect(v.every((p) => u.includes(p)) && u.every((p) => a.includes(p))).toBe(true);
    expect(permissionsFor(0, { isStaff: true, isSuperAdmin: true })).toEqual([...PERMISSION_NAMES]);
  });
});

describe("Users/MyPolicies", () => {
  const policies = async (who: string, clientId?: number) => {
    const r = await as(who, "GET", "/api/v1/Users/MyPolicies", { clientId });
    expect(r.status).toBe(200);
    return { ideally: r.body.isIdeallyAdmin, by: Object.fromEntries(r.body.value.map((v: any) => [v.clientId, v.policies])) };
  };

  test("each fixture user's policies match the rules", async () => {
    expect(await policies("acmeAdmin")).toEqual({
      ideally: false,
      by: { 1001: ["EnterpriseAdmin"], 1002: ["OrgAdmin"], 1003: ["TeamUser", "TeamAdmin"], 1004: ["TeamUser", "TeamAdmin"] },
    });
    expect(await policies("acmeUser")).toEqual({ ideally: false, by: { 1003: ["TeamUser"] } });
    expect(await policies("acmeViewer"), "a Viewer reaches the team but holds no policy").toEqual({ ideally: false, by: { 1003: [] } });
    expect(await policies("globexAdmin")).toEqual({ ideally: false, by: { 2001: ["TeamUser", "TeamAdmin"] } });
    expect(await policies("staff")).toEqual({ ideally: true, by: {} });
    expect(await policies("ops", 2001), "staff get the client they name").toEqual({ ideally: true, by: { 2001: ["IdeallyAdmin"] } });
  });

  test("a stale clientId does not matter: policies are per client the caller reaches", async () => {
    expect(await policies("acmeUser", 2001)).toEqual({ ideally: false, by: { 1003: ["TeamUser"] } });
  });

  test("rows say where the role comes from", async () => {
    const r = await as("acmeAdmin", "GET", "/api/v1/Users/MyPolicies");
    const b = r.body.value.find((v: any) => v.clientId === 1004);
    expect(b).toEqual({ clientId: 1004, clientName: "Acme Team B", tier: "Team", parentId: 1002, role: { id: 1, roleName: "Admin" }, isDirect: false, policies: ["TeamUser", "TeamAdmin"] });
  });

  test("the pure rules", () => {
    expect(policiesFor("Team", 3, false)).toEqual([]);
    expect(policiesFor("Org", 2, false)).toEqual([]);
    expect(policiesFor("Enterprise", 1, true)).toEqual(["IdeallyAdmin", "EnterpriseAdmin"]);
  });
});

describe("Users/InheritedUserCount", () => {
  test("counts users reaching the client only through a membership higher up", async () => {
    const b = await as("acmeAdmin", "GET", "/api/v1/Users/InheritedUserCount", { clientId: 1004 });
    expect(b.status).toBe(200);
    expect(b.body, "admin@acme reaches Team B through the enterprise").toEqual({ clientId: 1004, value: 1, directUserCount: 0 });
    const a = await as("acmeViewer", "GET", "/api/v1/Users/InheritedUserCount", { clientId: 1003 });
    expect(a.body, "on Team A admin@acme is also a direct member").toEqual({ clientId: 1003, value: 0, directUserCount: 3 });
  });

  test("needs a client; another tenant's client is refused", async () => {
    expect((await as("staff", "GET", "/api/v1/Users/InheritedUserCount")).status).toBe(400);
    expect((await as("globexAdmin", "GET", "/api/v1/Users/InheritedUserCount", { clientId: 1003 })).status).toBe(403);
  });
});

describe("Users/CognitoStatus", () => {
  test("per user of the client: login status and last login", async () => {
    await sql()`update users set last_login_at = '2025-06-01T10:00:00Z' where id = 9004`;
    await sql()`update cognito_users set status = 'FORCE_CHANGE_PASSWORD' where user_id = 9005 and cognito_idp_id is null`;
    const r = await as("acmeAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1003 });
    await sql()`update cognito_users set status = 'CONFIRMED' where user_id = 9005 and cognito_idp_id is null`;
    expect(r.status).toBe(200);
    const by = Object.fromEntries(r.body.value.map((u: any) => [u.userId, u]));
    expect(Object.keys(by).sort()).toEqual(["9003", "9004", "9005"]);
    expect(by[9003]).toMatchObject({ status: "confirmed", roleId: 1, isInherited: false });
    expect(by[9003].identities.length).toBe(2);
    expect(by[9004]).toMatchObject({ status: "confirmed", roleId: 2, lastLoginAt: "2025-06-01T10:00:00.000Z" });
    expect(by[9005].status, "a password to change before the first sign-in").toBe("force-change");
  });

  test("external and invited users", async () => {
    await sql()`insert into users (id, email, password_hash) values (9101, 'sso-only@acme.test', null), (9102, 'invited@acme.test', null)`;
    await sql()`insert into user_and_clients (user_id, client_id, role_id) values (9101, 1004, 2), (9102, 1004, 3)`;
    await sql()`insert into cognito_users (user_id, cognito_idp_id, username, status) values (9101, 1001, 'AcmeSSO_sso-only@acme.test', 'EXTERNAL_PROVIDER')`;
    const r = await as("acmeAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1004 });
    const by = Object.fromEntries(r.body.value.map((u: any) => [u.userId, u.status]));
    expect(by).toEqual({ 9003: "confirmed", 9101: "external", 9102: "invited" });
    const inherited = r.body.value.find((u: any) => u.userId === 9003);
    expect(inherited.isInherited, "admin@acme reaches Team B from the enterprise").toBe(true);
  });

  test("requestscope descendants covers the clients beneath; staff without a client see everyone", async () => {
    const d = await as("acmeAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1002, scope: "descendants" });
    expect(d.body.value.map((u: any) => u.userId).sort()).toEqual([9003, 9004, 9005, 9101, 9102]);
    const all = await as("ops", "GET", "/api/v1/Users/CognitoStatus");
    expect(all.body.value.map((u: any) => u.userId)).toEqual(expect.arrayContaining([9001, 9002, 9006]));
  });

  test("Users and Viewers are refused; so is another tenant", async () => {
    expect((await as("acmeUser", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1003 })).status).toBe(403);
    expect((await as("acmeViewer", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1003 })).status).toBe(403);
    expect((await as("globexAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1003 })).status).toBe(403);
  });
});

describe("Users Enable and Disable", () => {
  test("a team Admin disables a member: that member's token and refresh token stop working at once", async () => {
    const { token, cookie } = await login(real, "user@acme.test");
    expect((await withToken(token, "GET", "/api/v1/Users/Me", { clientId: 1003 })).status).toBe(200);

    const r = await as("acmeAdmin", "POST", "/api/v1/Users(9004)/Disable", { clientId: 1003 });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 9004, email: "user@acme.test" });
    expect(r.body.disabledAt).not.toBeNull();
    expect(r.body.endedSessions, "the login session is revoked").toBeGreaterThanOrEqual(1);

    expect((await withToken(token, "GET", "/api/v1/Users/Me", { clientId: 1003 })).status, "the access token is dead").toBe(401);
    const refreshed = await real.request("/auth/Login/Refresh", { method: "POST", headers: { cookie } });
    expect(refreshed.status, "so is the refresh token").toBe(422);
    const again = await real.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "user@acme.test", password: "Password123!" }),
    });
    expect(again.status, "a disabled user cannot sign in").toBe(401);
    const status = await as("acmeAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1003 });
    expect(status.body.value.find((u: any) => u.userId === 9004).status).toBe("disabled");
  });

  test("Enable lets them back in", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Users(9004)/Enable", { clientId: 1003 });
    expect(r.status).toBe(200);
    expect(r.body.disabledAt).toBeNull();
    const { token } = await login(real, "user@acme.test");
    expect((await withToken(token, "GET", "/api/v1/Users/Me", { clientId: 1003 })).status).toBe(200);
  });

  test("a User or Viewer cannot", async () => {
    expect((await as("acmeUser", "POST", "/api/v1/Users(9005)/Disable", { clientId: 1003 })).status).toBe(403);
    expect((await as("acmeViewer", "POST", "/api/v1/Users(9004)/Disable", { clientId: 1003 })).status).toBe(403);
    const [u] = await sql()`select disabled_at from users where id = 9005`;
    expect(u!.disabled_at).toBeNull();
  });

  test("Globex cannot touch Acme's users", async () => {
    const own = await as("globexAdmin", "POST", "/api/v1/Users(9004)/Disable", { clientId: 2001 });
    expect(own.status, "not a member of Globex").toBe(404);
    const acme = await as("globexAdmin", "POST", "/api/v1/Users(9004)/Disable", { clientId: 1003 });
    expect(acme.status, "not a member of Acme Team A").toBe(403);
    const [u] = await sql()`select disabled_at from users where id = 9004`;
    expect(u!.disabled_at).toBeNull();
  });

  test("an Admin does not lock someone out of clients they do not administer", async () => {
    await sql()`insert into users (id, email) values (9103, 'both@acme.test')`;
    await sql()`insert into user_and_clients (user_id, client_id, role_id) values (9103, 1003, 2), (9103, 2001, 2)`;
    const r = await as("acmeAdmin", "POST", "/api/v1/Users(9103)/Disable", { clientId: 1003 });
    expect(r.status).toBe(403);
    expect(r.body.message).toContain("clients you do not administer");
    expect((await as("ops", "POST", "/api/v1/Users(9103)/Disable")).status, "staff can").toBe(200);
  });

  test("an enterprise Admin administers the members of its teams", async () => {
    expect((await as("acmeAdmin", "POST", "/api/v1/Users(9005)/Disable", { clientId: 1001 })).status).toBe(200);
    expect((await as("acmeAdmin", "POST", "/api/v1/Users(9005)/Enable", { clientId: 1001 })).status).toBe(200);
  });

  test("nobody disables themselves; staff accounts only by a super admin; a missing user is 404", async () => {
    expect((await as("acmeAdmin", "POST", "/api/v1/Users(9003)/Disable", { clientId: 1003 })).status).toBe(409);
    expect((await as("acmeAdmin", "POST", "/api/v1/Users(9001)/Disable", { clientId: 1003 })).status, "staff are nobody's members").toBe(404);
    expect((await as("ops", "POST", "/api/v1/Users(9001)/Disable")).status).toBe(403);
    expect((await as("staff", "POST", "/api/v1/Users(9002)/Disable")).status).toBe(200);
    expect((await as("staff", "POST", "/api/v1/Users(9002)/Enable")).status).toBe(200);
    expect((await as("staff", "POST", "/api/v1/Users(424242)/Disable")).status).toBe(404);
  });
});

describe("Users RemoveFromAccount", () => {
  test("removes the membership of the request's client only; the user then cannot use it", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Users(9005)/RemoveFromAccount", { clientId: 1003 });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ userId: 9005, clientId: 1003, removedRole: { id: 3, roleName: "Viewer" } });
    expect((await as("acmeViewer", "GET", "/api/v1/Users/Me", { clientId: 1003 })).status).toBe(403);
    const me = await as("acmeViewer", "GET", "/api/v1/Users/Me");
    expect(me.body.defaultClientId, "a default client they no longer reach is cleared").toBeNull();
    const [{ n }] = (await sql()`select count(*)::int as n from users where id = 9005`) as any;
    expect(n, "the user itself stays").toBe(1);
    expect((await as("acmeAdmin", "POST", "/api/v1/Users(9005)/RemoveFromAccount", { clientId: 1003 })).status, "already gone").toBe(404);
  });

  test("an Admin leaves a team he also administers from above: it keeps an Admin, and he now counts as inherited", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Users(9003)/RemoveFromAccount", { clientId: 1003 });
    expect(r.status).toBe(200);
    const count = await as("acmeAdmin", "GET", "/api/v1/Users/InheritedUserCount", { clientId: 1003 });
    expect(count.body, "admin@acme (member of 1001) now reaches 1003 only from above").toEqual({ clientId: 1003, value: 1, directUserCount: 1 });
    const [m] = await sql()`select count(*)::int as n from user_and_clients where user_id = 9003 and client_id = 1001`;
    expect(m!.n, "the enterprise membership is untouched").toBe(1);
  });

  test("the last Admin of a client cannot be removed", async () => {
    const g = await as("globexAdmin", "POST", "/api/v1/Users(9006)/RemoveFromAccount", { clientId: 2001 });
    expect(g.status).toBe(409);
    expect(g.body.message).toContain("last Admin");
    const e = await as("acmeAdmin", "POST", "/api/v1/Users(9003)/RemoveFromAccount", { clientId: 1001 });
    expect(e.status, "nobody else administers the enterprise").toBe(409);
    expect((await as("staff", "POST", "/api/v1/Users(9006)/RemoveFromAccount", { clientId: 2001 })).status, "staff neither").toBe(409);
  });

  test("two Admins removed at once: one goes, the other stays as the last Admin", async () => {
    await sql()`insert into users (id, email) values (9104, 'second@globex.test')`;
    await sql()`insert into user_and_clients (user_id, client_id, role_id) values (9104, 2001, 1)`;
    const both = await Promise.all([
      as("staff", "POST", "/api/v1/Users(9006)/RemoveFromAccount", { clientId: 2001 }),
      as("staff", "POST", "/api/v1/Users(9104)/RemoveFromAccount", { clientId: 2001 }),
    ]);
    expect(both.map((r) => r.status).sort()).toEqual([200, 409]);
    const [{ n }] = (await sql()`select count(*)::int as n from user_and_clients where client_id = 2001 and role_id = 1`) as any;
    expect(n, "Globex keeps exactly one Admin").toBe(1);
    await sql()`insert into user_and_clients (user_id, client_id, role_id) values (9006, 2001, 1) on conflict do nothing`;
    await sql()`delete from user_and_clients where user_id = 9104`;
  });

  test("Users and other tenants are refused; a client is required", async () => {
    expect((await as("acmeUser", "POST", "/api/v1/Users(9005)/RemoveFromAccount", { clientId: 1003 })).status).toBe(403);
    expect((await as("globexAdmin", "POST", "/api/v1/Users(9004)/RemoveFromAccount", { clientId: 1003 })).status).toBe(403);
    expect((await as("globexAdmin", "POST", "/api/v1/Users(9004)/RemoveFromAccount", { clientId: 2001 })).status).toBe(404);
    expect((await as("staff", "POST", "/api/v1/Users(9004)/RemoveFromAccount")).status).toBe(400);
  });

  afterAll(async () => {
    await sql()`insert into user_and_clients (user_id, client_id, role_id) values (9005, 1003, 3), (9003, 1003, 1) on conflict do nothing`;
    await sql()`update users set default_client_id = 1003 where id = 9005`;
  });
});

describe("Users ChangeRole", () => {
  test("changes the role of the membership of the request's client only; the permissions follow", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Users(9005)/ChangeRole", { clientId: 1003, body: { roleId: 2 } });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ userId: 9005, clientId: 1003, role: { id: 2, roleName: "User" }, previousRole: { id: 3, roleName: "Viewer" } });
    const perms = await as("acmeViewer", "GET", "/api/v1/Users/MyPermissions", { clientId: 1003 });
    expect(perms.body.role, "the new role is effective at once").toEqual({ id: 2, roleName: "User" });
    const back = await as("acmeAdmin", "POST", "/api/v1/Users(9005)/ChangeRole", { clientId: 1003, body: { roleId: 3 } });
    expect(back.body.previousRole.id).toBe(2);
  });

  test("the last Admin cannot be demoted; nobody changes their own role", async () => {
    const g = await as("staff", "POST", "/api/v1/Users(9006)/ChangeRole", { clientId: 2001, body: { roleId: 2 } });
    expect(g.status, "Globex has one Admin").toBe(409);
    expect(g.body.message).toContain("last Admin");
    const [{ n }] = (await sql()`select count(*)::int as n from user_and_clients where user_id = 9006 and client_id = 2001 and role_id = 1`) as any;
    expect(n, "the refused change rolled back").toBe(1);
    const self = await as("acmeAdmin", "POST", "/api/v1/Users(9003)/ChangeRole", { clientId: 1003, body: { roleId: 2 } });
    expect(self.status).toBe(409);
    expect(self.body.message).toContain("your own role");
  });

  test("Users, other tenants and members without a membership here are refused; the body is checked", async () => {
    expect((await as("acmeUser", "POST", "/api/v1/Users(9005)/ChangeRole", { clientId: 1003, body: { roleId: 1 } })).status).toBe(403);
    expect((await as("globexAdmin", "POST", "/api/v1/Users(9005)/ChangeRole", { clientId: 1003, body: { roleId: 1 } })).status).toBe(403);
    expect((await as("globexAdmin", "POST", "/api/v1/Users(9005)/ChangeRole", { clientId: 2001, body: { roleId: 1 } })).status, "not a Globex member").toBe(404);
    const bad = await as("acmeAdmin", "POST", "/api/v1/Users(9005)/ChangeRole", { clientId: 1003, body: { roleId: 4 } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].path).toBe("roleId");
  });
});

describe("Users SetNames", () => {
  test("sets the names and completes onboarding", async () => {
    await sql()`update users set onboarded_at = null where id = 9005`;
    expect((await as("acmeViewer", "GET", "/api/v1/Users/Me")).body.onboarded).toBe(false);
    const r = await as("acmeViewer", "POST", "/api/v1/Users/SetNames", { body: { firstName: "  Victoria ", lastName: "Viewer-Smith" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 9005, firstName: "Victoria", lastName: "Viewer-Smith" });
    expect(r.body.onboardedAt).not.toBeNull();
    const me = await as("acmeViewer", "GET", "/api/v1/Users/Me");
    expect(me.body).toMatchObject({ firstName: "Victoria", onboarded: true });
  });

  test("a second call keeps the first onboarding time", async () => {
    const before = (await as("acmeViewer", "GET", "/api/v1/Users/Me")).body.onboardedAt;
    const r = await as("acmeViewer", "POST", "/api/v1/Users/SetNames", { body: { firstName: "Vic", lastName: "Viewer" } });
    expect(r.body.onboardedAt).toBe(before);
  });

  test("bad bodies are 400 naming the field; nobody else's names change", async () => {
    const blank = await as("acmeUser", "POST", "/api/v1/Users/SetNames", { body: { firstName: " ", lastName: "x" } });
    expect(blank.status).toBe(400);
    expect(blank.body.errors[0].path).toBe("firstName");
    const extra = await as("acmeUser", "POST", "/api/v1/Users/SetNames", { body: { firstName: "a", lastName: "b", userId: 9005 } });
    expect(extra.status, "the target is always the signed-in user").toBe(400);
    expect((await as("acmeUser", "POST", "/api/v1/Users/SetNames", { body: {} })).status).toBe(400);
  });
});

describe("Users SetPassword", () => {
  test("without a password hasher (a data-only app) it is 503", async () => {
    const r = await as("acmeUser", "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: "Password123!", newPassword: "Another-pass-1" } });
    expect(r.status).toBe(503);
  });

  test("verifies the current password, changes it, and ends the other sessions only", async () => {
    const a = await login(real, "viewer@acme.test");
    const b = await login(real, "viewer@acme.test");
    const wrong = await withToken(a.token, "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: "nope-nope-nope", newPassword: "New-password-42" } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors).toEqual([{ path: "currentPassword", message: "is incorrect" }]);

    const ok = await withToken(a.token, "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: "Password123!", newPassword: "New-password-42" } });
    expect(ok.status).toBe(200);
    expect(ok.body.endedSessions).toBeGreaterThanOrEqual(1);
    expect((await withToken(a.token, "GET", "/api/v1/Users/Me")).status, "this session goes on").toBe(200);
    expect((await withToken(b.token, "GET", "/api/v1/Users/Me")).status, "the other session ended").toBe(401);
    await login(real, "viewer@acme.test", "New-password-42");
    await expect(login(real, "viewer@acme.test", "Password123!")).rejects.toThrow("401");
    const [cu] = await sql()`select status from cognito_users where id = 9005`;
    expect(cu!.status, "a password of their own: no longer force-change").toBe("CONFIRMED");
  });

  test("the new password must differ and meet the length rule", async () => {
    const { token } = await login(real, "user@acme.test");
    const same = await withToken(token, "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: "Password123!", newPassword: "Password123!" } });
    expect(same.status).toBe(400);
    expect(same.body.message).toBe("The new password must differ from the current one");
    const short = await withToken(token, "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: "Password123!", newPassword: "short" } });
    expect(short.status).toBe(400);
    expect(short.body.errors[0].path).toBe("newPassword");
  });

  test("an SSO-only account has no password to change", async () => {
    const r = await send(real, await tokenFor(9101), "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: "whatever-1234", newPassword: "Whatever-12345" } });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe("This account signs in through single sign-on and has no password to change");
  });

  test("wrong current passwords are rate limited like sign-in", async () => {
    const { token } = await login(real, "admin@globex.test");
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await withToken(token, "POST", "/api/v1/Users/SetPassword", { body: { currentPassword: `wrong-${i}-wrong`, newPassword: "Brand-new-pass-1" } });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
  });
});

/** An access token for a user without a password (a session made directly, as SSO sign-in would). */
async function tokenFor(userId: number): Promise<string> {
  const { signAccessToken } = await import("../../api/src/auth/jwt.ts");
  const { loadSigningKey } = await import("../../api/src/auth/keys.ts");
  const key = await loadSigningKey(tdb.db, undefined);
  const sid = crypto.randomUUID();
  await sql()`insert into auth_sessions (id, user_id, method, expires_at) values (${sid}, ${userId}, 'saml', now() + interval '1 day')`;
  return signAccessToken(key, { sub: String(userId), sid, staff: false, sa: false });
}

describe("Users SuperAdminUserCreate and SuperAdminUserUpdate", () => {
  let created: any;
  let superToken = "";
  /** As the super admin with a real token: creating users hashes a temporary password. */
  const asSuper = async (method: string, path: string, body: unknown) => {
    superToken ||= (await login(real, "staff@ideally.test")).token;
    return send(real, superToken, method, path, { body });
  };

  test("ops (staff, not super admin) and client Admins are refused", async () => {
    const body = { email: "refused@acme.test" };
    expect((await as("ops", "POST", "/api/v1/Users/SuperAdminUserCreate", { body })).status).toBe(403);
    expect((await as("acmeAdmin", "POST", "/api/v1/Users/SuperAdminUserCreate", { clientId: 1003, body })).status).toBe(403);
    expect((await as("ops", "POST", "/api/v1/Users(9004)/SuperAdminUserUpdate", { body: { isStaff: true } })).status).toBe(403);
    const [{ n }] = (await sql()`select count(*)::int as n from users where email = 'refused@acme.test'`) as any;
    expect(n).toBe(0);
  });

  test("a super admin creates a user with memberships and a temporary password, answered once", async () => {
    const r = await asSuper("POST", "/api/v1/Users/SuperAdminUserCreate", {
      email: "New.Person@acme.test",
      firstName: "New",
      lastName: "Person",
      memberships: [{ clientId: 1004, roleId: 1 }],
    });
    expect(r.status).toBe(201);
    created = r.body.user;
    expect(r.body.temporaryPassword.length).toBeGreaterThanOrEqual(16);
    expect(created).toMatchObject({
      email: "New.Person@acme.test",
      isStaff: false,
      roleId: 1,
      roleName: "User",
      defaultClientId: 1004,
      memberships: [{ clientId: 1004, clientName: "Acme Team B", tier: "Team", roleId: 1 }],
      cognitoUsers: [{ cognitoIdpId: null, username: "new.person@acme.test", status: "FORCE_CHANGE_PASSWORD" }],
    });
    const pending = await as("acmeAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1004 });
    expect(pending.body.value.find((u: any) => u.userId === created.id).status).toBe("force-change");
    // The temporary password alone does not sign in: the person chooses their own first.
    await expect(login(real, "new.person@acme.test", r.body.temporaryPassword)).rejects.toThrow("NewPasswordRequired");
    const first = await real.request("/auth/Login/NewPasswordRequired", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "new.person@acme.test", password: r.body.temporaryPassword, newPassword: "Chosen-password-1" }),
    });
    expect(first.status).toBe(200);
    const { token } = await login(real, "new.person@acme.test", "Chosen-password-1");
    expect((await withToken(token, "GET", "/api/v1/Users/Me", { clientId: 1004 })).body.client.role).toEqual({ id: 1, roleName: "Admin" });
    const status = await as("acmeAdmin", "GET", "/api/v1/Users/CognitoStatus", { clientId: 1004 });
    expect(status.body.value.find((u: any) => u.userId === created.id).status, "their own password now").toBe("confirmed");
  });

  test("staff users and roles; bad input", async () => {
    const s = await asSuper("POST", "/api/v1/Users/SuperAdminUserCreate", { email: "helper@ideally.test", isStaff: true });
    expect(s.status).toBe(201);
    expect(s.body.user).toMatchObject({ isStaff: true, roleId: 2, roleName: "Staff", memberships: [] });
    const dup = await asSuper("POST", "/api/v1/Users/SuperAdminUserCreate", { email: "NEW.person@ACME.test" });
    expect(dup.status, "emails are unique regardless of case").toBe(409);
    expect(dup.body.message).toBe("A user with this email (or login name) exists");
    const role = await as("staff", "POST", "/api/v1/Users/SuperAdminUserCreate", { body: { email: "x@acme.test", roleId: 3, isStaff: false } });
    expect(role.status, "SuperAdmin needs staff").toBe(400);
    expect(role.body.message).toBe("Only staff can hold the Staff or SuperAdmin user role");
    const client = await asSuper("POST", "/api/v1/Users/SuperAdminUserCreate", { email: "y@acme.test", memberships: [{ clientId: 424242, roleId: 2 }] });
    expect(client.status).toBe(400);
    expect(client.body.message).toBe("A client or role named in the request does not exist");
    const twice = await as("staff", "POST", "/api/v1/Users/SuperAdminUserCreate", {
      body: {
        email: "z@acme.test",
        memberships: [
          { clientId: 1003, roleId: 2 },
          { clientId: 1003, roleId: 3 },
        ],
      },
    });
    expect(twice.status).toBe(400);
    expect(twice.body.message).toBe("A client appears twice in memberships");
    expect((await sql()`select 1 from users where lower(email) in ('x@acme.test', 'y@acme.test', 'z@acme.test')`).length, "no refused create made a user").toBe(0);
    expect((await as("staff", "POST", "/api/v1/Users/SuperAdminUserCreate", { body: { email: "not-an-email" } })).status).toBe(400);
  });

  test("update: staff flag and role end the user's sessions; memberships are replaced", async () => {
    const { token } = await login(real, "user@acme.test");
    const r = await as("staff", "POST", "/api/v1/Users(9004)/SuperAdminUserUpdate", {
      body: {
        isStaff: true,
        memberships: [
          { clientId: 1003, roleId: 2 },
          { clientId: 1004, roleId: 3 },
        ],
      },
    });
    expect(r.status).toBe(200);
    expect(r.body.user).toMatchObject({ isStaff: true, roleId: 2 });
    expect(r.body.user.memberships.map((m: any) => [m.clientId, m.roleId])).toEqual([
      [1003, 2],
      [1004, 3],
    ]);
    expect(r.body.endedSessions).toBeGreaterThanOrEqual(1);
    expect((await withToken(token, "GET", "/api/v1/Users/Me")).status, "a token with the old claims is dead").toBe(401);
    const back = await as("staff", "POST", "/api/v1/Users(9004)/SuperAdminUserUpdate", { body: { isStaff: false, memberships: [{ clientId: 1003, roleId: 2 }] } });
    expect(back.body.user).toMatchObject({ isStaff: false, roleId: 1 });
  });

  test("update: names only keep sessions; a password reset answers a new temporary password", async () => {
    const { token } = await login(real, "user@acme.test");
    const names = await as("staff", "POST", "/api/v1/Users(9004)/SuperAdminUserUpdate", { body: { firstName: "Uma", lastName: "Userson" } });
    expect(names.body.endedSessions).toBe(0);
    expect((await withToken(token, "GET", "/api/v1/Users/Me")).status).toBe(200);
    const reset = await as("staff", "POST", `/api/v1/Users(${created.id})/SuperAdminUserUpdate`, { body: { resetPassword: true } });
    expect(reset.status, "a password reset needs the hasher: the data-only app answers 503").toBe(503);
    const realReset = await asSuper("POST", `/api/v1/Users(${created.id})/SuperAdminUserUpdate`, { resetPassword: true });
    expect(realReset.status).toBe(200);
    // The new temporary password is right, and asks for a password of the person's own.
    await expect(login(real, "new.person@acme.test", realReset.body.temporaryPassword)).rejects.toThrow("NewPasswordRequired");
  });

  test("update: a new email renames the password login, and sign-in follows it", async () => {
    const r = await as("staff", "POST", "/api/v1/Users(9005)/SuperAdminUserUpdate", { body: { email: "Vic.Viewer@acme.test" } });
    expect(r.status).toBe(200);
    expect(r.body.user.email).toBe("Vic.Viewer@acme.test");
    expect(r.body.user.cognitoUsers[0].username).toBe("vic.viewer@acme.test");
    await login(real, "vic.viewer@acme.test", "New-password-42");
  });

  test("update refuses: a client's last Admin, one's own super admin role, nothing to do, no such user", async () => {
    const last = await as("staff", "POST", "/api/v1/Users(9006)/SuperAdminUserUpdate", { body: { memberships: [{ clientId: 2001, roleId: 2 }] } });
    expect(last.status).toBe(409);
    expect(last.body.message).toBe("Client 2001 would be left without an Admin; make someone else Admin first");
    const [m] = await sql()`select role_id from user_and_clients where user_id = 9006 and client_id = 2001`;
    expect(m!.role_id, "rolled back").toBe(1);
    const own = await as("staff", "POST", "/api/v1/Users(9001)/SuperAdminUserUpdate", { body: { roleId: 2 } });
    expect(own.status).toBe(409);
    expect(own.body.message).toBe("You cannot take away your own super admin role");
    const nothing = await as("staff", "POST", "/api/v1/Users(9004)/SuperAdminUserUpdate", { body: {} });
    expect(nothing.status).toBe(400);
    expect(nothing.body.message).toBe("Nothing to update");
    expect((await as("staff", "POST", "/api/v1/Users(424242)/SuperAdminUserUpdate", { body: { firstName: "x" } })).status).toBe(404);
    const taken = await as("staff", "POST", "/api/v1/Users(9004)/SuperAdminUserUpdate", { body: { email: "admin@acme.test" } });
    expect(taken.status).toBe(409);
    expect(taken.body.message).toBe("A user with this email (or login name) exists");
    const [u] = await sql()`select email from users where id = 9004`;
    expect(u!.email, "unchanged").toBe("user@acme.test");
  });
});

describe("CognitoUsers AdminDelete", () => {
  test("staff remove a login identity; clients' Admins cannot", async () => {
    expect((await as("acmeAdmin", "POST", "/api/v1/CognitoUsers(9013)/AdminDelete", { clientId: 1003 })).status).toBe(403);
    const r = await as("ops", "POST", "/api/v1/CognitoUsers(9013)/AdminDelete");
    expect(r.status).toBe(204);
    const rows = await sql()`select id from cognito_users where id = 9013`;
    expect(rows.length).toBe(0);
    expect((await as("ops", "POST", "/api/v1/CognitoUsers(9013)/AdminDelete")).status).toBe(404);
  });

  test("removing the password login removes the password and ends the sessions", async () => {
    const fresh = (await login(real, "admin@globex.test")).token;
    expect((await as("staff", "POST", "/api/v1/CognitoUsers(9006)/AdminDelete")).status).toBe(204);
    expect((await withToken(fresh, "GET", "/api/v1/Users/Me")).status).toBe(401);
    await expect(login(real, "admin@globex.test")).rejects.toThrow("401");
  });
});
