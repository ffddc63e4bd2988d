// The simulated panel never answers a supplier's run (issue 36): the fielding tick simulated every
// live run that was not a customer panel, whatever its sample supplier, and four supplier runs
// were filled by simulated respondents 7-40 s after launch. Now a run with a sample supplier takes
// only the supplier's (signed) respondents: the tick passes it by, RunSimulatedData refuses it, and
// a supplier cannot be put on a run that simulated respondents already answered. An Ideally-panel
// run without a supplier is still answered by the panel. The API's ways to make a run
// supplier-only (SetSampleSupplier) or a customer panel (PATCH ProjectSchedules isCustomerPanel,
// before the run is created) are staff's: members are refused.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { createSupplier } from "../helpers/supplier-run.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
let supplierId: number;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  supplierId = await createSupplier(app, "Outside Sample");
});
afterAll(async () => {
  await tdb.drop();
});

/** An Ideally-panel project of Acme Team A at 300 (super-approved, charged), n completes in New Zealand. */
async function approved(name: string, n = 20): Promise<number> {
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: n });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText: "Cold brew" })).status).toBe(201);
  const a = await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {});
  expect(a.body.statusCode, JSON.stringify(a.body)).toBe(300);
  return p.body.id;
}

const sessions = async (runId: number) =>
  (
    await tdb.db<{ all: number; simulated: number }[]>`
    select count(*)::int as all, count(*) filter (where is_simulated)::int as simulated from survey_sessions where survey_run_id = ${runId}`
  )[0]!;

describe("a run with a sample supplier takes no simulated respondent", () => {
  let supplierRun: number;
  let panelRun: number;

  test("launched beside an Ideally-panel run and ticked: the supplier's run gains nobody, the panel's run is answered", async () => {
    const a = await approved("Supplier only");
    const [ra] = await fielding.createSurveys(tdb.db, a);
    supplierRun = ra!.surveyRunId;
    const set = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${supplierRun})/SetSampleSupplier`, { sampleSupplierId: supplierId });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await fielding.launchRun(tdb.db, supplierRun, PUBLIC);

    // 200 completes: three batches of 10 leave it Live (for the last test of this block).
    const b = await approved("Ideally panel", 200);
    const [rb] = await fielding.createSurveys(tdb.db, b);
    panelRun = rb!.surveyRunId;
    await fielding.launchRun(tdb.db, panelRun, PUBLIC);

    for (let i = 0; i < 3; i++) await panel.tick(tdb.db, PUBLIC, { batch: 10 });
    expect(await sessions(supplierRun), "no simulated (or any) respondent on the supplier's run").toEqual({ all: 0, simulated: 0 });
    const own = await sessions(panelRun);
    expect(own.simulated, "the Ideally panel still answers its own run").toBeGreaterThan(0);
    expect(own.simulated).toBe(own.all);
    const [{ status }] = await tdb.db<{ status: number }[]>`select survey_status_id as status from survey_runs where id = ${supplierRun}`;
    expect(status, "still Live, waiting for the supplier's people").toBe(50);
  });

  test("RunSimulatedData on the supplier's run is refused (409) and stores nothing", async () => {
    const r = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${supplierRun})/RunSimulatedData`, { completes: 5 });
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.message).toContain(`Survey run ${supplierRun} takes respondents from sample supplier ${supplierId} only`);
    expect(await sessions(supplierRun)).toEqual({ all: 0, simulated: 0 });
  });

  test("a supplier cannot be put on a run the simulated panel has answered (409), and nothing changes", async () => {
    const r = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${panelRun})/SetSampleSupplier`, { sampleSupplierId: supplierId });
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.message).toContain("simulated respondents");
    const [{ s }] = await tdb.db<{ s: number | null }[]>`select sample_supplier_id as s from survey_runs where id = ${panelRun}`;
    expect(s).toBeNull();
  });
});

describe("making a run supplier-only or a customer panel is staff's", () => {
  test("SetSampleSupplier: a team Admin is refused (403) and the run keeps no supplier", async () => {
    const id = await approved("Admin tries a supplier");
    const [run] = await fielding.createSurveys(tdb.db, id);
    const r = await call(app, "acmeAdmin", T, "POST", `/api/v1/SurveyRuns(${run!.surveyRunId})/SetSampleSupplier`, { sampleSupplierId: supplierId });
    expect(r.status).toBe(403);
    const [{ s }] = await tdb.db<{ s: number | null }[]>`select sample_supplier_id as s from survey_runs where id = ${run!.surveyRunId}`;
    expect(s).toBeNull();
  });

  test("PATCH ProjectSchedules isCustomerPanel: a team Admin is refused (403); staff's makes the run a customer panel the simulated panel leaves alone", async () => {
    const id = await approved("Own list");
    const [schedule] = await tdb.db<{ id: number }[]>`select id from project_schedules where project_id = ${id} order by id limit 1`;
    const member = await call(app, "acmeAdmin", T, "PATCH", `/api/v1/ProjectSchedules(${schedule!.id})`, { isCustomerPanel: true });
    expect(member.status).toBe(403);
    const staff = await call(app, "staff", T, "PATCH", `/api/v1/ProjectSchedules(${schedule!.id})`, { isCustomerPanel: true });
    expect(staff.status, JSON.stringify(staff.body)).toBe(200);
    const [run] = await fielding.createSurveys(tdb.db, id);
    expect(run!.isCustomerPanel).toBe(true);
    await fielding.launchRun(tdb.db, run!.surveyRunId, PUBLIC);
    await panel.tick(tdb.db, PUBLIC, { batch: 10 });
    expect(await sessions(run!.surveyRunId)).toEqual({ all: 0, simulated: 0 });
  });
});
