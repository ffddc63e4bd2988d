// Two run creations at once (the fielding tick's beside staff's CreateDecipherSurveys, or two ticks)
// make one run per wave and market: createSurveys takes one lock (fielding.service.ts). Before it,
// both read the same ready group and each made a run (3 of 3 tries).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
}, 120_000);
afterAll(async () => {
  await tdb.drop();
});

/** A draft Idea project (one concept, NZ, simulated panel) of `completes`. */
async function draft(completes: number): Promise<number> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", {
    projectName: `Created once ${Math.random().toString(36).slice(2, 7)}`,
    projectTypeId: 1,
    frameworkId: 1000,
    regionIds: [1],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as number;
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Oat milk barista blend" })).status).toBe(201);
  await tdb.db`update projects_regions set sample_size = ${completes}, is_customer_panel = false where project_id = ${id}`;
  return id;
}
const runsOf = (projectId: number) =>
  tdb.db<{ id: number; status: number; simulated: number }[]>`
    select r.id, r.survey_status_id as status, (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and s.is_simulated) as simulated
    from survey_runs r where r.id in (select survey_run_id from project_schedules where project_id = ${projectId}) order by r.id`;

describe("run creation", () => {
  test("two run creations at once (a tick beside CreateDecipherSurveys) make one run for the wave, with its schedules", async () => {
    const id = await draft(20);
    expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
    const [a, b] = await Promise.all([fielding.createSurveys(tdb.db, id), fielding.createSurveys(tdb.db, id)]);
    expect([...a!, ...b!].length, "one of them found the wave already made into a run").toBe(1);
    const made = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_runs where id = any(${[...a!, ...b!].map((x) => x.surveyRunId)}::int[])`;
    expect(made[0]!.n).toBe(1);
    expect((await runsOf(id)).map((r) => r.id)).toEqual([...a!, ...b!].map((x) => x.surveyRunId));
  });
});
