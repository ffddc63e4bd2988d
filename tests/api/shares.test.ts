// A project shared with a user of another client: readable (with the rows its pages read), never
// writable, and nothing else of the sharing client becomes visible. The registry's `shared` sets
// and the shared_read policies of migration 0013 must agree.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { registry } from "../../api/src/entities/index.ts";
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

// tests/helpers/fixtures.sql: Acme's project 1001 is shared with admin@globex (9006).
test("the recipient reads the shared project and its rows, from their own client", async () => {
  const p = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1001)?$expand=testOptions($select=id),projectsRegions");
  expect(p.status, JSON.stringify(p.body)).toBe(200);
  expect(p.body.clientId).toBe(1003);
  expect(p.body.testOptions.length).toBeGreaterThan(0);
  const list = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects?$select=id,clientId");
  const acme = list.body.value.filter((r: { clientId: number }) => r.clientId === 1003).map((r: { id: number }) => r.id);
  expect(acme, "of Acme's projects only the shared one").toEqual([1001]);
  const segs = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Segments?$filter=projectId eq 1001&$select=id");
  expect(segs.body.value.length, "the shared project's saved filter sets").toBeGreaterThan(0);
  const other = await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1002)");
  expect(other.status, "an unshared Acme project stays invisible").toBe(404);
  const credits = await call(app, "globexAdmin", 2001, "GET", "/api/v1/CreditLogs/$count?$filter=clientId eq 1003");
  expect(credits.body, "client-scoped rows (money) are not shared").toBe(0);
});

test("the recipient cannot change the shared project", async () => {
  const res = await call(app, "globexAdmin", 2001, "PATCH", "/api/v1/Projects(1001)", { projectName: "Mine now" });
  expect(res.status).toBe(404);
  const del = await call(app, "globexAdmin", 2001, "DELETE", "/api/v1/TestOptions(1001)");
  expect(del.status).toBe(404);
  const [row] = await tdb.db`select project_name from projects where id = 1001`;
  expect(row!.project_name).toBe("Snack bar ideas");
});

test("every shared set's table has the shared_read policy, and only those", async () => {
  const shared = [...registry.sets.values()]
    .filter((s) => s.scope === "shared" && !s.view)
    .map((s) => s.table)
    .sort();
  const rows = await tdb.db<{ tablename: string }[]>`select tablename from pg_policies where policyname = 'shared_read' order by tablename`;
  expect(rows.map((r) => r.tablename)).toEqual(shared);
});
