// Every change to a project's set-up raises ProjectUpdated on its client's channel, whichever path
// wrote it (here: the generic PATCH and POST), once per table and transaction, and only at commit.
// (Fixture project 2002 is a live Draft of Globex.)
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
let stop: () => Promise<void>;
const events: NotifiedEvent[] = [];

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  stop = await subscribe(tdb.url, (ev) => void events.push(ev));
});
afterAll(async () => {
  await stop();
  await tdb.drop();
});

async function settle() {
  await Bun.sleep(150);
}

test("editing a draft project and adding a test option raise ProjectUpdated on the client channel", async () => {
  events.length = 0;
  const rename = await call(app, "globexAdmin", 2001, "PATCH", "/api/v1/Projects(2002)", { projectName: "Renamed draft" });
  expect(rename.status).toBe(200);
  const option = await call(app, "globexAdmin", 2001, "POST", "/api/v1/TestOptions", { projectId: 2002, conceptText: "Plan B" });
  expect(option.status).toBe(201);
  const second = await call(app, "globexAdmin", 2001, "POST", "/api/v1/TestOptions", { projectId: 2002, conceptText: "Plan C" });
  expect(second.body.sortOrder, "a new test option goes last").toBe(option.body.sortOrder + 1);
  await settle();
  const mine = events.filter((e) => e.event === "ProjectUpdated").map((e) => [e.channel, (e.data as { projectId: number; changed: string }).changed]);
  expect(mine).toContainEqual(["client-2001", "project"]);
  expect(mine).toContainEqual(["client-2001", "test_options"]);
});

test("a failed write raises nothing", async () => {
  events.length = 0;
  const bad = await call(app, "acmeUser", 1003, "POST", "/api/v1/TestOptions", { projectId: 424242, conceptText: "Nowhere" });
  expect(bad.status).toBe(409);
  await settle();
  expect(events.filter((e) => e.event === "ProjectUpdated")).toEqual([]);
});
