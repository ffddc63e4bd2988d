// A run's sample source, explicit (issue 36): every run said nothing of where its respondents came
// from (an Ideally-panel flag, a supplier id and a simulated flag, each read apart). Now a run reads
// `sampleSource` (simulated, customer or supplier) on the SurveyRuns entity, its state and the
// project's DecipherCompletesCounts, staff set it with SetSampleSource before the run has
// respondents (409 after: its results would mix two kinds of sample), members are refused, and
// only a simulated run is answered by the simulated panel's tick.
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

/** A Draft run of an Ideally-panel project of Acme Team A (super-approved, charged), n completes in New Zealand. */
async function draftRun(name: string, n = 20): Promise<{ projectId: number; runId: number }> {
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: n });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText: "Cold brew" })).status).toBe(201);
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {})).body.statusCode).toBe(300);
  const [r] = await fielding.createSurveys(tdb.db, p.body.id);
  return { projectId: p.body.id, runId: r!.surveyRunId };
}

const source = async (runId: number) => (await call(app, "staff", T, "GET", `/api/v1/SurveyRuns(${runId})?$select=sampleSource,isCustomerPanel`)).body;
const setSource = (runId: number, body: unknown, who = "staff") => call(app, who, T, "POST", `/api/v1/SurveyRuns(${runId})/SetSampleSource`, body);

describe("the sample source of a run", () => {
  test("a new Ideally-panel run reads simulated on the entity", async () => {
    const { runId } = await draftRun("Source default");
    expect(await source(runId)).toEqual({ sampleSource: "simulated", isCustomerPanel: false });
  });

  test("staff set each source before the run has respondents; the entity, the run's state and the project's counts read it", async () => {
    const { projectId, runId } = await draftRun("Source set");
    const customer = await setSource(runId, { sampleSource: "customer" });
    expect(customer.status, JSON.stringify(customer.body)).toBe(200);
    expect([customer.body.sampleSource, customer.body.isCustomerPanel, customer.body.sampleSupplierId]).toEqual(["customer", true, null]);
    expect(await source(runId)).toEqual({ sampleSource: "customer", isCustomerPanel: true });
    const [def] = await tdb.db<{ c: boolean }[]>`select (definition->>'isCustomerPanel')::boolean as c from survey_runs where id = ${runId}`;
    expect(def!.c, "the questionnaire snapshot says which panel it asks").toBe(true);

    const supplier = await setSource(runId, { sampleSource: "supplier", sampleSupplierId: supplierId });
    expect(supplier.status, JSON.stringify(supplier.body)).toBe(200);
    expect([supplier.body.sampleSource, supplier.body.isCustomerPanel, supplier.body.sampleSupplierId]).toEqual(["supplier", false, supplierId]);
    const counts = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect(
      counts.body.value.map((r: { sampleSource: string }) => r.sampleSource),
      "the team's status view reads it",
    ).toEqual(["supplier"]);

    const back = await setSource(runId, { sampleSource: "simulated" });
    expect([back.status, back.body.sampleSource, back.body.sampleSupplierId]).toEqual([200, "simulated", null]);
  });

  test("bad input: a supplier run without its supplier or with an unknown one, a supplier on another source, an unknown source; nothing changes", async () => {
    const { runId } = await draftRun("Source bad input");
    const noSupplier = await setSource(runId, { sampleSource: "supplier" });
    expect(noSupplier.status).toBe(400);
    expect(noSupplier.body.errors).toEqual([{ path: "sampleSupplierId", message: "Required when sampleSource is supplier" }]);
    expect((await setSource(runId, { sampleSource: "supplier", sampleSupplierId: 987654 })).status).toBe(404);
    const stray = await setSource(runId, { sampleSource: "customer", sampleSupplierId: supplierId });
    expect(stray.status).toBe(400);
    expect(stray.body.errors).toEqual([{ path: "sampleSupplierId", message: "Must be null or absent when sampleSource is customer" }]);
    expect((await setSource(runId, { sampleSource: "panel" })).status).toBe(400);
    expect(await source(runId)).toEqual({ sampleSource: "simulated", isCustomerPanel: false });
  });

  test("members are refused (403): the source is staff's", async () => {
    const { runId } = await draftRun("Source members");
    expect((await setSource(runId, { sampleSource: "customer" }, "acmeAdmin")).status).toBe(403);
    expect(await source(runId)).toEqual({ sampleSource: "simulated", isCustomerPanel: false });
  });

  test("once the run has respondents its source cannot change (409, nothing changed); the same source again is no change", async () => {
    const { runId } = await draftRun("Source answered", 200);
    await fielding.launchRun(tdb.db, runId, PUBLIC);
    await panel.tick(tdb.db, PUBLIC, { batch: 5 });
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`;
    expect(n, "the simulated panel answered it").toBeGreaterThan(0);
    const r = await setSource(runId, { sampleSource: "customer" });
    expect(r.status).toBe(409);
    expect(r.body.message).toBe(
      `Survey run ${runId} already has ${n} respondents from its simulated source: its sample source cannot change, or its results would mix two kinds of sample. Choose the source on the project's schedules while it awaits approval (PATCH ProjectSchedules: sampleSupplierId or isCustomerPanel), or on the run before it launches (CreateDecipherSurveys, SetSampleSource, LaunchSurvey).`,
    );
    expect(await source(runId)).toEqual({ sampleSource: "simulated", isCustomerPanel: false });
    expect((await setSource(runId, { sampleSource: "simulated" })).status).toBe(200);
  });

  test("the tick's simulated panel answers only a simulated run: a customer run and a supplier run launched beside it gain nobody", async () => {
    const customer = await draftRun("Source customer run");
    const supplier = await draftRun("Source supplier run");
    const simulated = await draftRun("Source simulated run", 200);
    expect((await setSource(customer.runId, { sampleSource: "customer" })).status).toBe(200);
    expect((await setSource(supplier.runId, { sampleSource: "supplier", sampleSupplierId: supplierId })).status).toBe(200);
    for (const r of [customer, supplier, simulated]) await fielding.launchRun(tdb.db, r.runId, PUBLIC);
    await panel.tick(tdb.db, PUBLIC, { batch: 5 });
    const counts = await tdb.db<{ id: number; n: number }[]>`
      select r.id, (select count(*)::int from survey_sessions s where s.survey_run_id = r.id) as n
      from survey_runs r where r.id = any(${[customer.runId, supplier.runId, simulated.runId]}::int[]) order by r.id`;
    expect(counts.find((c) => c.id === customer.runId)!.n).toBe(0);
    expect(counts.find((c) => c.id === supplier.runId)!.n).toBe(0);
    expect(counts.find((c) => c.id === simulated.runId)!.n).toBeGreaterThan(0);
  });
});
