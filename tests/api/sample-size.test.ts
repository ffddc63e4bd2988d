// Completes per market are editable until the project is submitted (issue 22): ChangeTargets
// takes sampleSize for every region of a Draft (1 to 100000, the create call's bounds, at and past
// each edge); an added region takes the project's size, not the creation default; a submitted
// project's size is fixed.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
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

async function project(status = 0): Promise<number> {
  const [p] = await tdb.db<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (1003, 'Sample size', 1, ${status}, 1000, 9004, 9004) returning id`;
  await tdb.db`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (1003, ${p!.id}, 1, 250, false)`;
  return p!.id;
}
async function sizes(id: number): Promise<Record<number, number>> {
  const rows = await tdb.db<{ r: number; n: number }[]>`select region_id as r, sample_size as n from projects_regions where project_id = ${id}`;
  return Object.fromEntries(rows.map((x) => [x.r, x.n]));
}
const change = (id: number, body: object) => call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: [], ...body });

describe("ChangeTargets sampleSize", () => {
  test("a Draft's size changes in every region; an added region takes the project's size", async () => {
    const id = await project();
    const add = await change(id, { regionIds: [1, 2] });
    expect(add.status, JSON.stringify(add.body)).toBe(200);
    expect(await sizes(id), "Australia added at the project's 250, not 200").toEqual({ 1: 250, 2: 250 });
    const res = await change(id, { sampleSize: 400 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(await sizes(id)).toEqual({ 1: 400, 2: 400 });
  });

  test("bounds: 1 and 100000 accepted, 0 and 100001 refused with the field named", async () => {
    const id = await project();
    for (const n of [1, 100000]) {
      expect((await change(id, { sampleSize: n })).status, `${n}`).toBe(200);
      expect((await sizes(id))[1]).toBe(n);
    }
    for (const n of [0, 100001]) {
      const res = await change(id, { sampleSize: n });
      expect(res.status, `${n}`).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(["sampleSize"]);
    }
    expect((await sizes(id))[1], "nothing half-written").toBe(100000);
  });

  test("fixed once submitted; a Viewer may not change it", async () => {
    const submitted = await project(100);
    expect((await change(submitted, { sampleSize: 300 })).status).toBe(409);
    expect((await sizes(submitted))[1]).toBe(250);
    const id = await project();
    expect((await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: [], sampleSize: 300 })).status).toBe(403);
  });
});
