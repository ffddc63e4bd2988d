// Projects({key})/Access (issue 22): what the caller may do with a project, so pages offer only
// that: Admin and User write, a Viewer reads, a reader of a project shared from another client
// reads and is told whose it is and who shared it; unrelated clients see nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
let projectId = 0;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const [p] = await tdb.db<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (1003, 'Access test', 1, 0, 1000, 9004, 9004) returning id`;
  projectId = p!.id;
});
afterAll(async () => {
  await tdb.drop();
});

describe("Projects Access", () => {
  test("Admin and User of the team write; a Viewer reads", async () => {
    const [clientName] = await tdb.db<{ name: string }[]>`select name from clients where id = 1003`;
    for (const [who, roleId, canWrite] of [
      ["acmeAdmin", 1, true],
      ["acmeUser", 2, true],
      ["acmeViewer", 3, false],
    ] as const) {
      const res = await call(app, who, 1003, "GET", `/api/v1/Projects(${projectId})/Access`);
      expect(res.status, `${who}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(res.body, who).toEqual({ projectId, clientId: 1003, clientName: clientName!.name, shared: false, sharedBy: null, roleId, canWrite });
    }
  });

  test("another client's reader: 404 before the share; after it, read-only with the owner and the sharer named", async () => {
    expect((await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${projectId})/Access`)).status).toBe(404);
    const share = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${projectId})/Share`, { emails: ["admin@globex.test"] });
    expect(share.status, JSON.stringify(share.body)).toBe(200);
    const res = await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${projectId})/Access`);
    expect(res.status).toBe(200);
    const [sharer] = await tdb.db<{ n: string }[]>`select coalesce(nullif(trim(concat_ws(' ', first_name, last_name)), ''), email) as n from users where id = 9004`;
    const [owner] = await tdb.db<{ name: string }[]>`select name from clients where id = 1003`;
    expect(res.body).toEqual({ projectId, clientId: 1003, clientName: owner!.name, shared: true, sharedBy: sharer!.n, roleId: null, canWrite: false });
  });

  test("a bad key is a 400; an unknown project a 404", async () => {
    expect((await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(x)/Access")).status).toBe(400);
    expect((await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(999999)/Access")).status).toBe(404);
  });
});
