// The client tree through the HTTP API: creating Enterprises, Orgs and Teams (node and tier row in
// one transaction), Orgs and Teams Rename (skipped when unchanged), Teams ExtrapolatedUsers.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

type Res = { status: number; body: any };
async function as(who: string, method: string, path: string, opts: { clientId?: number; scope?: string; body?: unknown } = {}): Promise<Res> {
  const headers: Record<string, string> = { authorization: `Bearer ${who}` };
  if (opts.clientId !== undefined) headers.clientId = String(opts.clientId);
  if (opts.scope) headers.requestscope = opts.scope;
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const sql = () => tdb.db;

describe("POST Enterprises", () => {
  test("staff create an enterprise: the client node and its enterprises row", async () => {
    const r = await as("ops", "POST", "/api/v1/Enterprises", {
      body: { name: "Umbrella Enterprise", industry: "health", hsCompanyId: "hs-9", ssoRequired: true, allowedEmailDomains: ["Umbrella.test"] },
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      clientId: r.body.id,
      name: "Umbrella Enterprise",
      tier: "Enterprise",
      parentId: null,
      industry: "health",
      hsCompanyId: "hs-9",
      ssoRequired: true,
      allowedEmailDomains: ["umbrella.test"],
    });
    expect(r.body.createdAt).toMatch(/^\d{4}-\d\d-\d\dT.*Z$/);
    const [row] = await sql()`select c.tier, e.sso_required from clients c join enterprises e on e.id = c.id where c.id = ${r.body.id}`;
    expect(row).toEqual({ tier: "Enterprise", sso_required: true });
    const read = await as("staff", "GET", `/api/v1/Enterprises(${r.body.id})`);
    expect(read.status, "readable through the generic routes").toBe(200);
  });

  test("client Admins cannot; bad bodies are 400", async () => {
    const admin = await as("acmeAdmin", "POST", "/api/v1/Enterprises", { clientId: 1001, body: { name: "Acme 2" } });
    expect(admin.status).toBe(403);
    expect(admin.body.message, "the route's policy answers before row security").toBe("This is for Ideally staff only");
    expect((await as("staff", "POST", "/api/v1/Enterprises", { body: { name: "" } })).status).toBe(400);
    expect((await as("staff", "POST", "/api/v1/Enterprises", { body: { name: "X", parentId: 1001 } })).status, "an enterprise has no parent").toBe(400);
    const industry = await as("staff", "POST", "/api/v1/Enterprises", { body: { name: "X", industry: "astrology" } });
    expect(industry.status).toBe(400);
    expect(industry.body.message).toBe("The parent client, industry or region does not exist");
    const [{ n }] = (await sql()`select count(*)::int as n from clients where name = 'X'`) as any;
    expect(n, "nothing half-made").toBe(0);
  });
});

describe("POST Orgs and Teams", () => {
  let orgId = 0;

  test("an enterprise Admin creates an org under it (the parent defaults to the request's client) and administers it at once", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Orgs", { clientId: 1001, body: { name: "Acme Org 2" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tier: "Org", parentId: 1001, industry: "fmcg", ssoRequired: false, allowedEmailDomains: [] });
    orgId = r.body.id;
    const pol = await as("acmeAdmin", "GET", "/api/v1/Users/MyPolicies");
    expect(pol.body.value.find((v: any) => v.clientId === orgId).policies, "inherited from the enterprise").toEqual(["OrgAdmin"]);
  });

  test("an Admin creates a team under an org they administer, with its settings", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Teams", { clientId: orgId, body: { name: "Acme Team C", autoProjectWatch: true, defaultRegionId: 2 } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ tier: "Team", parentId: orgId, autoProjectWatch: true, defaultRegionId: 2, industry: "fmcg" });
    const ext = await as("acmeAdmin", "GET", `/api/v1/ExtendedTeams(${r.body.id})`, { clientId: 1001, scope: "descendants" });
    expect(ext.body).toMatchObject({ teamName: "Acme Team C", orgId, enterpriseId: 1001 });
    const explicit = await as("acmeAdmin", "POST", "/api/v1/Teams", { clientId: 1003, body: { name: "Acme Team D", parentId: 1002 } });
    expect(explicit.status, "an explicit parent the caller administers").toBe(201);
    expect(explicit.body.parentId).toBe(1002);
  });

  test("a User or Viewer cannot", async () => {
    expect((await as("acmeUser", "POST", "/api/v1/Teams", { clientId: 1003, body: { name: "Nope" } })).status).toBe(403);
    expect((await as("acmeViewer", "POST", "/api/v1/Orgs", { clientId: 1003, body: { name: "Nope" } })).status).toBe(403);
  });

  test("the parent must be one the caller administers: Globex cannot add to Acme, Acme not to Initech", async () => {
    const g = await as("globexAdmin", "POST", "/api/v1/Teams", { clientId: 2001, body: { name: "Sneaky", parentId: 1002 } });
    expect(g.status).toBe(403);
    const i = await as("acmeAdmin", "POST", "/api/v1/Teams", { clientId: 1003, body: { name: "Sneaky", parentId: 3002 } });
    expect(i.status).toBe(403);
    const [{ n }] = (await sql()`select count(*)::int as n from clients where name = 'Sneaky'`) as any;
    expect(n).toBe(0);
  });

  test("the tree's shape is kept: no team under a team, no org under an org", async () => {
    const t = await as("acmeAdmin", "POST", "/api/v1/Teams", { clientId: 1003, body: { name: "Sub team" } });
    expect(t.status, "the parent defaults to Team A, a team").toBe(400);
    expect(t.body.typename).toBe("ValidationError");
    expect((await as("staff", "POST", "/api/v1/Orgs", { body: { name: "Sub org", parentId: 1002 } })).status).toBe(400);
  });

  test("staff create a top-level team; a failed tier row leaves no client behind", async () => {
    const r = await as("staff", "POST", "/api/v1/Teams", { body: { name: "Soylent" } });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({ parentId: null, industry: null, defaultRegionId: 1 });
    const bad = await as("staff", "POST", "/api/v1/Teams", { body: { name: "Bad region team", defaultRegionId: 424242 } });
    expect(bad.status).toBe(400);
    const [{ n }] = (await sql()`select count(*)::int as n from clients where name = 'Bad region team'`) as any;
    expect(n, "the client node went with the failed team row").toBe(0);
  });

  test("unknown fields are refused", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Teams", { clientId: 1002, body: { name: "T", tier: "Enterprise" } });
    expect(r.status).toBe(400);
    expect(r.body.errors.length).toBeGreaterThan(0);
  });
});

describe("Orgs and Teams Rename", () => {
  test("an Admin renames; the same name again is skipped (nothing written)", async () => {
    const r = await as("acmeAdmin", "POST", "/api/v1/Orgs(1002)/Rename", { clientId: 1002, body: { name: "Acme Org Renamed" } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ id: 1002, name: "Acme Org Renamed", tier: "Org", renamed: true });
    const [before] = await sql()`select updated_at from clients where id = 1002`;
    const again = await as("acmeAdmin", "POST", "/api/v1/Orgs(1002)/Rename", { clientId: 1002, body: { name: " Acme Org Renamed " } });
    expect(again.status).toBe(200);
    expect(again.body.renamed, "unchanged after trimming").toBe(false);
    const [after] = await sql()`select updated_at from clients where id = 1002`;
    expect(after!.updated_at).toEqual(before!.updated_at);
  });

  test("a team Admin renames their team; a team beneath the request's client needs requestscope descendants", async () => {
    expect((await as("acmeAdmin", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 1003, body: { name: "Acme Team Alpha" } })).body.renamed).toBe(true);
    expect((await as("acmeAdmin", "POST", "/api/v1/Teams(1004)/Rename", { clientId: 1002, body: { name: "Acme Team Beta" } })).status).toBe(404);
    const d = await as("acmeAdmin", "POST", "/api/v1/Teams(1004)/Rename", { clientId: 1002, scope: "descendants", body: { name: "Acme Team Beta" } });
    expect(d.status).toBe(200);
    expect(d.body.name).toBe("Acme Team Beta");
  });

  test("a User cannot; Globex cannot rename Acme's team; the set must match the tier", async () => {
    expect((await as("acmeUser", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 1003, body: { name: "Hijacked" } })).status).toBe(403);
    expect((await as("globexAdmin", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 1003, body: { name: "Hijacked" } })).status).toBe(403);
    expect((await as("globexAdmin", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 2001, body: { name: "Hijacked" } })).status).toBe(404);
    expect((await as("acmeAdmin", "POST", "/api/v1/Orgs(1003)/Rename", { clientId: 1003, body: { name: "Not an org" } })).status).toBe(404);
    const [c] = await sql()`select name from clients where id = 1003`;
    expect(c!.name).toBe("Acme Team Alpha");
  });

  test("bad names are 400", async () => {
    expect((await as("acmeAdmin", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 1003, body: { name: "" } })).status).toBe(400);
    expect((await as("acmeAdmin", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 1003, body: { name: "x".repeat(201) } })).status).toBe(400);
    expect((await as("acmeAdmin", "POST", "/api/v1/Teams(1003)/Rename", { clientId: 1003, body: {} })).status).toBe(400);
  });
});

describe("Teams ExtrapolatedUsers", () => {
  test("direct members with their roles", async () => {
    const r = await as("acmeViewer", "GET", "/api/v1/Teams(1003)/ExtrapolatedUsers", { clientId: 1003 });
    expect(r.status).toBe(200);
    expect(r.body.teamId).toBe(1003);
    expect(r.body.value.map((u: any) => [u.userId, u.roleName, u.isInherited, u.sourceClientId])).toEqual([
      [9003, "Admin", false, 1003],
      [9004, "User", false, 1003],
      [9005, "Viewer", false, 1003],
    ]);
  });

  test("inherited users, with the membership their role comes from", async () => {
    const r = await as("acmeAdmin", "GET", "/api/v1/Teams(1004)/ExtrapolatedUsers", { clientId: 1004 });
    expect(r.body.value).toEqual([
      {
        userId: 9003,
        email: "admin@acme.test",
        firstName: "Ada",
        lastName: "Admin",
        roleId: 1,
        roleName: "Admin",
        isInherited: true,
        hasDirectMembership: false,
        sourceClientId: 1001,
        sourceClientName: "Acme Enterprise",
        sourceTier: "Enterprise",
        sourceUserAndClientId: 1002,
        disabledAt: null,
      },
    ]);
  });

  test("the most privileged membership wins, and a direct one is still reported", async () => {
    await sql()`insert into user_and_clients (user_id, client_id, role_id) values (9005, 1002, 2)`;
    const r = await as("acmeAdmin", "GET", "/api/v1/Teams(1003)/ExtrapolatedUsers", { clientId: 1003 });
    const vic = r.body.value.find((u: any) => u.userId === 9005);
    expect(vic).toMatchObject({ roleName: "User", isInherited: true, hasDirectMembership: true, sourceClientId: 1002 });
    await sql()`delete from user_and_clients where user_id = 9005 and client_id = 1002`;
  });

  test("another tenant's team, a team outside the request's scope, and a non-team are not found", async () => {
    expect((await as("globexAdmin", "GET", "/api/v1/Teams(1003)/ExtrapolatedUsers", { clientId: 2001 })).status).toBe(404);
    expect((await as("globexAdmin", "GET", "/api/v1/Teams(1003)/ExtrapolatedUsers", { clientId: 1003 })).status).toBe(403);
    expect((await as("acmeAdmin", "GET", "/api/v1/Teams(1004)/ExtrapolatedUsers", { clientId: 1003 })).status).toBe(404);
    expect((await as("acmeAdmin", "GET", "/api/v1/Teams(1002)/ExtrapolatedUsers", { clientId: 1002 })).status).toBe(404);
    expect((await as("acmeAdmin", "GET", "/api/v1/Teams(1004)/ExtrapolatedUsers", { clientId: 1002, scope: "descendants" })).status).toBe(200);
  });
});
