// The generic entity layer through the HTTP API: answers, errors, writes, tenant scope and the
// one-statement rule for $expand.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { newApp, type App } from "../../api/src/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { withTenant } from "../../api/src/db/tx.ts";

let tdb: TestDb;
let app: App;
const statements: string[] = [];
beforeAll(async () => {
  tdb = await createTestDb({ onQuery: (t) => statements.push(t) });
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

describe("reads", () => {
  test("the foundation's acceptance query answers exactly", async () => {
    const res = await app.request("/api/v1/StandardQuestions?$filter=id le 6&$orderby=id desc&$select=id", {
      headers: { authorization: "Bearer acmeUser", clientId: "1003" },
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('{"value":[{"id":6},{"id":5},{"id":4},{"id":3},{"id":2},{"id":1}]}');
  });

  test("no /api/v1 call is anonymous", async () => {
    const res = await call(app, null, null, "GET", "/api/v1/StandardQuestions");
    expect(res.status).toBe(401);
    expect(res.body.typename).toBe("Unauthorized");
    expect(res.headers.get("x-error-trace-id"), "every error carries a trace id").toMatch(/^[0-9a-f-]{36}$/);
  });

  test("a bad $filter is a 400 naming the token and its position", async () => {
    const res = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects?$filter=${encodeURIComponent("projectName eq 'x' and nosuch eq 1")}`);
    expect(res.status).toBe(400);
    expect(res.body.typename).toBe("ODataQueryError");
    expect(res.body.message).toContain("nosuch");
    expect(res.body.message).toMatch(/position \d+/);
  });

  test("an unknown query option is a 400 naming it", async () => {
    const res = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects?$frobnicate=1");
    expect(res.status).toBe(400);
    expect(res.body.message).toContain("$frobnicate");
  });

  test("a missing key is a 404 in the error shape; a malformed key a 400", async () => {
    const missing = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(424242)");
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ typename: "NotFound", message: "Projects(424242) not found" });
    const bad = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(abc)");
    expect(bad.status).toBe(400);
    expect(bad.body.typename).toBe("ValidationError");
  });

  test("the tenant scope: each client sees only its own rows, also inside $expand", async () => {
    const acme = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects?$select=id,clientId&$expand=testOptions($select=clientId)");
    const globex = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects?$select=id,clientId&$expand=testOptions($select=clientId)");
    expect(acme.body.value.length).toBeGreaterThan(0);
    expect(globex.body.value.length).toBeGreaterThan(0);
    for (const p of acme.body.value) {
      expect(p.clientId, "Acme sees Acme's projects only").toBe(1003);
      for (const t of p.testOptions) expect(t.clientId).toBe(1003);
    }
    // Acme shared project 1001 with admin@globex (fixtures): the one Acme project Globex sees.
    for (const p of globex.body.value) if (p.id !== 1001) expect(p.clientId, "Globex sees Globex's projects only").toBe(2001);
    const acmeId = acme.body.value.find((p: { id: number }) => p.id !== 1001).id;
    const cross = await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${acmeId})`);
    expect(cross.status, "another tenant's row is not found").toBe(404);
    const count = await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects/$count?$filter=clientId eq 1003 and id ne 1001`);
    expect(count.body, "counting another tenant's rows finds none").toBe(0);
  });

  test("row-level security alone keeps tenants apart (no registry scope in the SQL)", async () => {
    const globex = { userId: 9006, clientId: 2001, descendants: false };
    const rows = await withTenant(tdb.db, globex, (tx) => tx<{ id: number; client_id: number }[]>`select id, client_id from projects`);
    expect(rows.length).toBeGreaterThan(0);
    expect(
      rows.every((r) => r.client_id === 2001 || r.id === 1001),
      "RLS shows Globex only its rows (and the project shared with it)",
    ).toBe(true);
    const acmeRows = await withTenant(tdb.db, globex, (tx) => tx<{ n: number }[]>`select count(*)::int as n from test_options where client_id = 1003 and project_id <> 1001`);
    expect(acmeRows[0]!.n, "Acme's rows are invisible to Globex").toBe(0);
    await expect(
      withTenant(tdb.db, globex, (tx) => tx`insert into segments (client_id, project_id, name) values (1003, 1001, 'x')`),
      "RLS refuses writing into another tenant",
    ).rejects.toThrow();
    await expect(
      withTenant(tdb.db, { userId: 9006, clientId: 1003, descendants: false }, async () => 1),
      "entering a client without a membership fails",
    ).rejects.toThrow(/no access/);
  });

  test("roles inherit down the client tree, and requestscope descendants widens the rows", async () => {
    // admin@acme is Admin of the enterprise 1001, so of Team B (1004) too, without a membership there.
    const teamB = await call(app, "acmeAdmin", 1004, "GET", "/api/v1/Teams(1004)");
    expect(teamB.status, "inherited access to a team beneath the enterprise").toBe(200);
    const userOnB = await call(app, "acmeUser", 1004, "GET", "/api/v1/Teams(1004)");
    expect(userOnB.status, "a member of Team A only has no access to Team B").toBe(403);
    expect(userOnB.body.typename).toBe("Forbidden");

    const res = await app.request("/api/v1/Projects?$select=clientId", {
      headers: { authorization: "Bearer acmeAdmin", clientId: "1002", requestscope: "descendants" },
    });
    const clients = new Set(((await res.json()) as { value: { clientId: number }[] }).value.map((p) => p.clientId));
    expect([...clients].sort(), "the org's page sees both teams' projects").toEqual([1003, 1004]);
    const plain = await call(app, "acmeAdmin", 1002, "GET", "/api/v1/Projects?$select=clientId");
    expect(plain.body.value, "without descendants: the org's own rows only").toEqual([]);
  });

  test("a page cut short by the server's page size carries @odata.nextLink", async () => {
    await tdb.db`insert into segments (client_id, project_id, name) select 1003, 1001, 'bulk ' || g from generate_series(1, 120) g`;
    const first = await call(app, "acmeUser", 1003, "GET", "/api/v1/Segments?$select=id&$filter=projectId eq 1001&$count=true");
    expect(first.body.value.length, "default page size").toBe(100);
    expect(first.body["@odata.count"]).toBe(122);
    expect(first.body["@odata.nextLink"]).toContain("$skip=100");
    const second = await call(app, "acmeUser", 1003, "GET", first.body["@odata.nextLink"]);
    expect(second.body.value.length).toBe(22);
    expect(second.body["@odata.nextLink"]).toBeUndefined();
    await tdb.db`delete from segments where name like 'bulk %'`;
  });

  test("a list with a two-level $expand is one SQL statement", async () => {
    statements.length = 0;
    const res = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects?$top=50&$expand=projectsRegions($expand=region),testOptions");
    expect(res.status).toBe(200);
    expect(res.body.value.some((p: any) => p.projectsRegions.some((r: any) => r.region?.regionName))).toBe(true);
    // Not data: the transaction's control, and the tenant entry (simple text, or readAsTenant's
    // prepared settings and app_tenant_resume in its single-Sync pipeline).
    const data = statements.filter((s) => !/^\s*(begin|commit|rollback|select set_config|select app_tenant_resume)/i.test(s));
    expect(data.length, `one data statement, got:\n${data.join("\n---\n")}`).toBe(1);
  });
});

describe("writes", () => {
  test("create, update and delete a segment; the tenant comes from the request, not the body", async () => {
    const created = await call(app, "acmeUser", 1003, "POST", "/api/v1/Segments", {
      projectId: 1001,
      name: "Over 55s",
      responsesFilters: { filterIds: [5100006] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.clientId).toBe(1003);
    expect(created.body.responsesFilters).toEqual({ filterIds: [5100006] });
    const id = created.body.id;

    const patched = await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Segments(${id})`, { name: "55 plus" });
    expect(patched.status).toBe(200);
    expect(patched.body.name).toBe("55 plus");

    const foreign = await call(app, "globexAdmin", 2001, "PATCH", `/api/v1/Segments(${id})`, { name: "mine now" });
    expect(foreign.status, "another tenant cannot change it").toBe(404);

    const del = await call(app, "acmeUser", 1003, "DELETE", `/api/v1/Segments(${id})`);
    expect(del.status).toBe(204);
    expect((await call(app, "acmeUser", 1003, "GET", `/api/v1/Segments(${id})`)).status).toBe(404);
  });

  test("a body naming the tenant or an unknown field is refused field by field", async () => {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Segments", { projectId: 1001, name: "x", clientId: 2001, colour: "red" });
    expect(res.status).toBe(400);
    expect(res.body.typename).toBe("ValidationError");
    const text = JSON.stringify(res.body.errors);
    expect(text).toContain("clientId");
    expect(text).toContain("colour");
  });

  test("a missing required field is named", async () => {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Segments", { projectId: 1001 });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain("name");
  });

  test("a viewer never writes", async () => {
    const res = await call(app, "acmeViewer", 1003, "POST", "/api/v1/Segments", { projectId: 1001, name: "x" });
    expect(res.status).toBe(403);
  });

  test("a reference to another tenant's row is refused and nothing is written", async () => {
    const before = await tdb.db`select count(*)::int as n from segments`;
    const res = await call(app, "globexAdmin", 2001, "POST", "/api/v1/Segments", { projectId: 1001, name: "sneaky" });
    expect(res.status).toBe(409);
    const after = await tdb.db`select count(*)::int as n from segments`;
    expect(after[0]!.n).toBe(before[0]!.n);
  });

  test("DELETE on a soft-delete set moves the row to the trash", async () => {
    // Test option 1004 belongs to a Draft project (1003), which can still be edited.
    const del = await call(app, "acmeUser", 1003, "DELETE", "/api/v1/TestOptions(1004)");
    expect(del.status).toBe(204);
    expect((await call(app, "acmeUser", 1003, "GET", "/api/v1/TestOptions(1004)")).status).toBe(404);
    const [row] = await tdb.db`select deleted_at from test_options where id = 1004`;
    expect(row!.deleted_at, "the row is kept with deleted_at").not.toBeNull();
  });

  test("global reference data is written by staff only", async () => {
    const res = await call(app, "acmeAdmin", 1003, "PATCH", "/api/v1/Prompts(1001)", { name: "x" });
    expect(res.status).toBe(403);
  });
});

describe("errors", () => {
  test("an unexpected failure answers 500 in the error shape, with a trace id and no internals", async () => {
    const broken = newApp({
      checkAnswers: true,
      db: tdb.db,
      registry,
      authenticate: async () => {
        throw new Error("connect ECONNREFUSED 10.0.0.7:5432 at Socket.internalConnect (node:net:1)");
      },
    });
    const errors: unknown[] = [];
    const orig = console.error;
    console.error = (...a: unknown[]) => void errors.push(a);
    try {
      const res = await broken.request("/api/v1/Projects");
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(JSON.parse(text)).toEqual({ typename: "InternalError", message: "An unexpected error occurred" });
      expect(text, "no message, path or stack of the failure").not.toMatch(/ECONNREFUSED|node:net|at Socket/);
      const trace = res.headers.get("x-error-trace-id")!;
      expect(trace).toMatch(/^[0-9a-f-]{36}$/);
      expect(JSON.stringify(errors), "the server log keeps the failure with the trace id").toContain(trace);
    } finally {
      console.error = orig;
    }
  });
});
