// SPEC 7's rename: "PATCH project by key: body projectName, id". A PATCH body may repeat the key;
// it must be the URL's key, and it never changes which row is written.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
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

async function draft(name: string): Promise<number> {
  const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000 });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as number;
}

test("the rename body of SPEC 7 (projectName and id) renames the project", async () => {
  const id = await draft("Before");
  const res = await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Projects(${id})`, { projectName: "After", id });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  expect(res.body.projectName, "renamed").toBe("After");
  expect(res.body.id, "the same row").toBe(id);
});

test("an id that is not the URL's key is a 400 naming both, and nothing changes", async () => {
  const id = await draft("Keep me");
  const other = await draft("Other");
  const res = await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Projects(${id})`, { projectName: "Hijack", id: other });
  expect(res.status).toBe(400);
  expect(res.body.typename).toBe("ValidationError");
  expect(res.body.message).toContain(`id ${other} does not match the key ${id}`);
  const [a, b] = await tdb.db<{ project_name: string }[]>`select project_name from projects where id in (${id}, ${other}) order by id`;
  expect([a!.project_name, b!.project_name], "neither row changed").toEqual(["Keep me", "Other"]);
});

test("the key alone changes no field; a key of the wrong type is refused by validation", async () => {
  const id = await draft("Alone");
  const alone = await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Projects(${id})`, { id });
  expect(alone.status, JSON.stringify(alone.body)).toBe(200);
  expect(alone.body.projectName, "nothing but the stamp changes").toBe("Alone");
  const typed = await call(app, "acmeUser", 1003, "PATCH", `/api/v1/Projects(${id})`, { projectName: "X", id: "abc" });
  expect(typed.status).toBe(400);
});

test("repeating the key grants nothing: another tenant's project stays out of reach, a Viewer still cannot write", async () => {
  const id = await draft("Acme's");
  const globex = await call(app, "globexAdmin", 2001, "PATCH", `/api/v1/Projects(${id})`, { projectName: "Globex's now", id });
  expect(globex.status, "not Globex's project").toBe(404);
  const viewer = await call(app, "acmeViewer", 1003, "PATCH", `/api/v1/Projects(${id})`, { projectName: "Viewer's now", id });
  expect(viewer.status, "Viewers never write").toBe(403);
  const [row] = await tdb.db<{ project_name: string }[]>`select project_name from projects where id = ${id}`;
  expect(row!.project_name).toBe("Acme's");
});
