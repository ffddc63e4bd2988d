// A wave's sample supplier, chosen before its run exists (issue 36; docs/decisions/0145). The
// fielding tick makes and launches the runs of approved projects on its own, so a supplier set on
// the run (SetSampleSource between CreateDecipherSurveys and LaunchSurvey) raced it: staff who
// wanted real sample for a wave lost to the tick, and the simulated panel answered the run. Now
// staff set `sampleSupplierId` on the project's schedules while it awaits approval; the run the
// tick makes carries it from birth, the simulated panel never answers it, and SchedulingState says
// it. Rules: staff only (403), a supplier that exists (404) and is not the simulated panel (409),
// not with the customer panel (400), and fixed once the wave's run exists (409, pointing at the
// run's own SetSampleSource); nothing changes on a refusal.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { createSupplier } from "../helpers/supplier-run.ts";
import type { App } from "../../api/src/app.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { simulatedSupplier } from "../../api/src/domains/fielding/suppliers.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
let supplierId: number;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  supplierId = await createSupplier(app, "Wave Sample");
});
afterAll(async () => {
  await tdb.drop();
});

/** A project of Acme Team A submitted and approved by its Admin: awaiting staff approval (100), its wave scheduled and charged. */
async function awaitingStaff(name: string, n = 200): Promise<{ projectId: number; scheduleIds: number[] }> {
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: n });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText: "Cold brew" })).status).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${p.body.id})/Submit`)).body.statusCode).toBe(50);
  expect((await call(app, "acmeAdmin", T, "POST", `/api/v1/Projects(${p.body.id})/Approve`)).body.statusCode).toBe(100);
  const rows = await tdb.db<{ id: number }[]>`select id from project_schedules where project_id = ${p.body.id} order by id`;
  expect(rows.length, "Submit scheduled the wave").toBe(1);
  return { projectId: p.body.id, scheduleIds: rows.map((r) => r.id) };
}

/** Staff approve twice (100 to 200, then 200 to 300: Awaiting Survey), as fielding-live.test.ts does. */
async function staffApprove(projectId: number): Promise<number> {
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${projectId})/Approve`)).body.statusCode).toBe(200);
  return (await call(app, "staff", T, "POST", `/api/v1/Projects(${projectId})/Approve`)).body.statusCode;
}
const patch = (id: number, body: unknown, who: "staff" | "acmeAdmin" = "staff") => call(app, who, T, "PATCH", `/api/v1/ProjectSchedules(${id})`, body);
const scheduleOf = async (id: number) =>
  (await tdb.db<{ supplier: number | null; customer: boolean }[]>`select sample_supplier_id as supplier, is_customer_panel as customer from project_schedules where id = ${id}`)[0];
const sessionsOf = async (runId: number) => (await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`)[0]!.n;

describe("a wave's sample supplier, set before its run exists", () => {
  test("set while the project awaits approval, the run the tick makes is the supplier's from birth and the simulated panel never answers it", async () => {
    const { projectId, scheduleIds } = await awaitingStaff("Wave supplier");
    const set = await patch(scheduleIds[0]!, { sampleSupplierId: supplierId });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.sampleSupplierId).toBe(supplierId);
    const state = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/SchedulingState`);
    expect(
      state.body.regions[0].upcoming.map((s: { sampleSupplierId: number | null }) => s.sampleSupplierId),
      "the team's scheduling view says it",
    ).toEqual([supplierId]);

    expect(await staffApprove(projectId)).toBe(300);
    // The tick makes and launches the run, then keeps ticking: a field day of the panel's reach each
    // time, had it answered this run.
    const first = await panel.tick(tdb.db, PUBLIC, { batch: 50, panel: true });
    expect(first.created).toBeGreaterThanOrEqual(1);
    const [run] = await tdb.db<{ id: number; source: string; supplier: number | null; status: number; provider: number }[]>`
      select r.id, r.sample_source as source, r.sample_supplier_id as supplier, r.survey_status_id as status, r.sample_provider_id as provider
      from survey_runs r join project_schedules s on s.survey_run_id = r.id where s.project_id = ${projectId}`;
    expect([run!.source, run!.supplier, run!.status, run!.provider]).toEqual(["supplier", supplierId, 50, 1]);
    for (let i = 0; i < 5; i++) await panel.tick(tdb.db, PUBLIC, { batch: 50, panel: true });
    expect(await sessionsOf(run!.id), "no respondent but the supplier's signed ones").toBe(0);
    const runs = await call(app, "staff", T, "GET", `/api/v1/SurveyRuns(${run!.id})?$select=sampleSource`);
    expect(runs.body.sampleSource).toBe("supplier");
  });

  test("cleared again before approval, the wave goes back to the project's panel", async () => {
    const { projectId, scheduleIds } = await awaitingStaff("Wave supplier cleared", 20);
    expect((await patch(scheduleIds[0]!, { sampleSupplierId: supplierId })).status).toBe(200);
    const cleared = await patch(scheduleIds[0]!, { sampleSupplierId: null });
    expect([cleared.status, cleared.body.sampleSupplierId]).toEqual([200, null]);
    expect(await staffApprove(projectId)).toBe(300);
    await panel.tick(tdb.db, PUBLIC, { batch: 50, panel: true });
    const [run] = await tdb.db<{ source: string }[]>`
      select r.sample_source as source from survey_runs r join project_schedules s on s.survey_run_id = r.id where s.project_id = ${projectId}`;
    expect(run!.source).toBe("simulated");
  });

  test("refused, with nothing changed: a member (403), an unknown supplier (404), the simulated panel (409), with the customer panel (400)", async () => {
    const { scheduleIds } = await awaitingStaff("Wave supplier refusals", 20);
    const id = scheduleIds[0]!;
    expect((await patch(id, { sampleSupplierId: supplierId }, "acmeAdmin")).status).toBe(403);
    const unknown = await patch(id, { sampleSupplierId: 987654 });
    expect([unknown.status, unknown.body.message]).toEqual([404, "SampleSuppliers(987654) not found"]);
    const sim = await tdb.db.begin((tx) => simulatedSupplier(tx));
    const simulated = await patch(id, { sampleSupplierId: sim.id });
    expect([simulated.status, simulated.body.message]).toEqual([
      409,
      `SampleSuppliers(${sim.id}) is the simulated panel: it answers the runs whose sample source is simulated (SetSampleSource simulated), never a supplier's run`,
    ]);
    const both = await patch(id, { sampleSupplierId: supplierId, isCustomerPanel: true });
    expect([both.status, both.body.errors]).toEqual([400, [{ path: "sampleSupplierId", message: "Must be null (or false) when the other is set" }]]);
    expect(await scheduleOf(id)).toEqual({ supplier: null, customer: false });
    // A customer-panel wave refuses a supplier, and a supplier's wave the customer panel.
    expect((await patch(id, { isCustomerPanel: true })).status).toBe(200);
    const onCustomer = await patch(id, { sampleSupplierId: supplierId });
    expect([onCustomer.status, onCustomer.body.errors]).toEqual([400, [{ path: "sampleSupplierId", message: "Must be null (or false) when the other is set" }]]);
    expect((await patch(id, { isCustomerPanel: false })).status).toBe(200);
    expect((await patch(id, { sampleSupplierId: supplierId })).status).toBe(200);
    const toCustomer = await patch(id, { isCustomerPanel: true });
    expect([toCustomer.status, toCustomer.body.errors]).toEqual([400, [{ path: "isCustomerPanel", message: "Must be null (or false) when the other is set" }]]);
    expect(await scheduleOf(id)).toEqual({ supplier: supplierId, customer: false });
  });

  test("once the wave's run exists its source is the run's: 409 naming SetSampleSource, the wave unchanged", async () => {
    const { projectId, scheduleIds } = await awaitingStaff("Wave supplier late", 20);
    expect(await staffApprove(projectId)).toBe(300);
    const made = await call(app, "staff", null, "POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId });
    const runId = made.body.runs[0].surveyRunId as number;
    const late = await patch(scheduleIds[0]!, { sampleSupplierId: supplierId });
    expect([late.status, late.body.message]).toEqual([
      409,
      `ProjectSchedules(${scheduleIds[0]}) already has survey run ${runId}: its sample source is the run's now (SurveyRuns(${runId})/SetSampleSource, while it has no respondent)`,
    ]);
    expect(await scheduleOf(scheduleIds[0]!)).toEqual({ supplier: null, customer: false });
    // Other fields of a run wave stay writable as before.
    expect((await patch(scheduleIds[0]!, { sampleSize: 25 })).status).toBe(200);
  });
});
