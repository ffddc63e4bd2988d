// The Samplify adapter (issue 21) against a loopback fake of Dynata's Samplify API that follows
// the published shapes (tests/helpers/samplify-fake.ts): create the project with a line item per market (quota, incidence,
// length of interview, days in field), add the second market, launch (buying first), pause, close,
// feasibility and cost. Off unless configured: 503 without SAMPLIFY_*.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { runFieldingTick as fieldingTick } from "../../api/src/domains/fielding/fielding.jobs.ts";
import { configureSamplify, startSamplifyFake, unconfigureSamplify, type SamplifyFake } from "../helpers/samplify-fake.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
let fake: SamplifyFake;
let projects: SamplifyFake["projects"];
let calls: string[];

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  fake = startSamplifyFake();
  projects = fake.projects;
  calls = fake.calls;
}, 120_000);
afterAll(async () => {
  fake?.stop();
  unconfigureSamplify();
  await tdb.drop();
});

test("the Samplify adapter: a project with a line item per market, launch, pause, close, feasibility and cost", async () => {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Samplify study", projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2] });
  const id = created.body.id as number;
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" });
  await tdb.db`update projects_regions set sample_size = 300 where project_id = ${id}`;
  await tdb.db`update projects set incidence_estimate = 0.45 where id = ${id}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const runs = await fielding.createSurveys(tdb.db, id);
  expect(runs.length).toBe(2);
  const supplier = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name: "Dynata (Samplify)",
    entryParameter: "psid",
    completeUrl: "https://dynata.example/c?psid={rid}",
    screenOutUrl: "https://dynata.example/s?psid={rid}",
    overQuotaUrl: "https://dynata.example/q?psid={rid}",
    qualityTerminateUrl: "https://dynata.example/t?psid={rid}",
  });
  for (const r of runs) {
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${r.surveyRunId})/SetSampleSupplier`, { sampleSupplierId: supplier.body.id })).status).toBe(200);
    await fielding.launchRun(tdb.db, r.surveyRunId, PUBLIC);
  }
  const [nz, au] = runs.sort((a, b) => a.regionId - b.regionId);

  // Off unless configured.
  expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/SamplifyLineItemState`, { action: "launch" })).status).toBe(503);
  expect((await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${nz!.surveyRunId})/SamplifyFeasibility`)).status).toBe(503);
  const local = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 300 });
  expect(local.status, "without Samplify, the panel order is set locally").toBe(200);
  expect(local.body.samplify).toBeNull();
  expect(calls.length, "no call went out").toBe(0);

  configureSamplify(fake.port);

  // Refusals of the line item's operations (issue 27: an error-path test per operation), Samplify
  // configured: no line item yet (409, nothing sent out), staff only (403), an unknown run (404).
  const noItem = `Survey run ${au!.surveyRunId} has no Samplify line item: CreateOrUpdateSamplifyProject first`;
  const feas409 = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${au!.surveyRunId})/SamplifyFeasibility`);
  expect(feas409.status).toBe(409);
  expect(feas409.body.message).toBe(noItem);
  const state409 = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${au!.surveyRunId})/SamplifyLineItemState`, { action: "launch" });
  expect(state409.status).toBe(409);
  expect(state409.body.message).toBe(noItem);
  expect(calls.length, "a refused call sends nothing to Samplify").toBe(0);
  expect((await call(app, "acmeAdmin", T, "GET", `/api/v1/SurveyRuns(${au!.surveyRunId})/SamplifyFeasibility`)).status, "staff only").toBe(403);
  expect((await call(app, "staff", null, "GET", "/api/v1/SurveyRuns(99999999)/SamplifyFeasibility")).status).toBe(404);
  expect((await call(app, "staff", null, "POST", "/api/v1/SurveyRuns(99999999)/SamplifyLineItemState", { action: "pause" })).status).toBe(404);
  const badAction = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${au!.surveyRunId})/SamplifyLineItemState`, { action: "restart" });
  expect(badAction.status).toBe(400);
  // A run with no sample supplier cannot be ordered from Samplify: 409 saying what to do first,
  // nothing sent, and the panel order (its quota) not changed either.
  const [{ supplierId, target }] = await tdb.db<{ supplierId: number; target: number }[]>`
    select sample_supplier_id as "supplierId", target_completes as target from survey_runs where id = ${au!.surveyRunId}`;
  await tdb.db`update survey_runs set sample_supplier_id = null where id = ${au!.surveyRunId}`;
  const noSupplier = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${au!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: target + 7 });
  expect(noSupplier.status).toBe(409);
  expect(noSupplier.body.message).toBe(`Survey run ${au!.surveyRunId} has no sample supplier: set the supplier Samplify sends respondents as (SetSampleSupplier) first`);
  expect(calls.length, "nothing sent to Samplify").toBe(0);
  const [{ after }] = await tdb.db<{ after: number }[]>`select target_completes as after from survey_runs where id = ${au!.surveyRunId}`;
  expect(after, "the refused order left the run's quota as it was").toBe(target);
  await tdb.db`update survey_runs set sample_supplier_id = ${supplierId} where id = ${au!.surveyRunId}`;
  // A market Samplify does not field ("Other markets", 999999): 409 naming it, nothing sent or changed.
  await tdb.db`update survey_runs set region_id = 999999 where id = ${au!.surveyRunId}`;
  const otherMarket = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${au!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: target + 7 });
  expect(otherMarket.status).toBe(409);
  expect(otherMarket.body.message).toMatch(/^Samplify does not field region 999999 \(.+\): only New Zealand, Australia, the USA and Singapore$/);
  expect(calls.length).toBe(0);
  expect((await tdb.db<{ t: number }[]>`select target_completes as t from survey_runs where id = ${au!.surveyRunId}`)[0]!.t).toBe(target);
  await tdb.db`update survey_runs set region_id = 2 where id = ${au!.surveyRunId}`;

  const first = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 300 });
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body.samplify).toEqual({ extProjectId: `ideally-${id}-w1`, extLineItemId: `run-${nz!.surveyRunId}`, state: "PROVISIONED", securityLevel: "MEDIUM", warnings: [] });
  const second = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${au!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 250 });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  const p = projects.get(`ideally-${id}-w1`)!;
  expect(p.lineItems.map((l) => [l.extLineItemId, l.countryISOCode, l.requiredCompletes, l.indicativeIncidence, l.languageISOCode])).toEqual([
    [`run-${nz!.surveyRunId}`, "NZ", 300, 45, "en"],
    [`run-${au!.surveyRunId}`, "AU", 250, 45, "en"],
  ]);
  const li = p.lineItems[0]!;
  // Dynata's k2 and respondent id where the reference's surveyURL examples put them (the supplier's entry parameter, psid).
  expect(li.surveyURL).toBe(`${PUBLIC}/s/${nz!.surveyLink}?supplier=${supplier.body.id}&k2=<#Project[Secure Key 2]>&psid=<#IdParameter[Value]>`);
  expect(li.daysInField, "to the run's field end, 14 days").toBe(14);
  expect(li.lengthOfInterview as number).toBeGreaterThanOrEqual(1);

  // An update changes the quota of the existing line item.
  expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 320 })).status).toBe(200);
  expect(p.lineItems[0]!.requiredCompletes).toBe(320);
  expect(p.lineItems.length).toBe(2);

  const launched = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/SamplifyLineItemState`, { action: "launch" });
  expect(launched.status, JSON.stringify(launched.body)).toBe(200);
  expect(launched.body.state).toBe("LAUNCHED");
  expect(calls).toContain(`POST /sample/v1/projects/ideally-${id}-w1/buy`);
  expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/SamplifyLineItemState`, { action: "pause" })).body.state).toBe("PAUSED");
  expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/SamplifyLineItemState`, { action: "close" })).body.state).toBe("CLOSED");
  expect((await call(app, "acmeAdmin", T, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/SamplifyLineItemState`, { action: "close" })).status, "staff only").toBe(403);

  const f = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${au!.surveyRunId})/SamplifyFeasibility`);
  expect(f.status).toBe(200);
  expect(f.body.feasibility).toEqual({ status: "READY", costPerInterview: 2.5, currency: "USD", feasible: true, totalCount: 1000 });
  expect(f.body.estimatedCost, "2.50 per interview x 250").toBe(625);

  // A token the server no longer takes: signed in again once, then the call goes through.
  fake.expireToken();
  expect((await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${au!.surveyRunId})/SamplifyFeasibility`)).status).toBe(200);
  const [row] = await tdb.db<{ state: string }[]>`select samplify_state as state from survey_runs where id = ${nz!.surveyRunId}`;
  expect(row!.state).toBe("CLOSED");
}, 120_000);

test("closing a run closes its Samplify line item: ForceCloseSurvey at once, a field-end close with the fielding tick", async () => {
  // The previous test left Samplify configured, with the AU line item provisioned (never launched).
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Samplify closes", projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2] });
  const id = created.body.id as number;
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Iced tea" });
  await tdb.db`update projects_regions set sample_size = 100, is_customer_panel = true where project_id = ${id}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const runs = (await fielding.createSurveys(tdb.db, id)).sort((a, b) => a.regionId - b.regionId);
  const [supplier] = await tdb.db<{ id: number }[]>`select id from sample_suppliers order by id limit 1`;
  for (const r of runs) {
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${r.surveyRunId})/SetSampleSupplier`, { sampleSupplierId: supplier!.id })).status).toBe(200);
    await fielding.launchRun(tdb.db, r.surveyRunId, PUBLIC);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${r.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 100 })).status).toBe(200);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${r.surveyRunId})/SamplifyLineItemState`, { action: "launch" })).body.state).toBe("LAUNCHED");
  }
  const p = projects.get(`ideally-${id}-w1`)!;
  const item = (runId: number) => p.lineItems.find((l) => l.extLineItemId === `run-${runId}`)!;
  const [nz, au] = runs;

  const closed = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${nz!.surveyRunId})/ForceCloseSurvey`);
  expect(closed.status, JSON.stringify(closed.body)).toBe(200);
  expect(item(nz!.surveyRunId).state, "ForceCloseSurvey closes the line item").toBe("CLOSED");
  expect(calls).toContain(`POST /sample/v1/projects/ideally-${id}-w1/lineItems/run-${nz!.surveyRunId}/close`);
  expect(item(au!.surveyRunId).state, "the other market runs on").toBe("LAUNCHED");

  // At its field end the run closes in the fielding tick, and its line item with it.
  await tdb.db`update survey_runs set field_end_at = now() - interval '1 minute' where id = ${au!.surveyRunId}`;
  await fieldingTick(tdb.db, PUBLIC);
  const [st] = await tdb.db<{ status: number; state: string }[]>`select survey_status_id as status, samplify_state as state from survey_runs where id = ${au!.surveyRunId}`;
  expect(st!.status).toBe(90);
  expect(item(au!.surveyRunId).state).toBe("CLOSED");
  expect(st!.state).toBe("CLOSED");
}, 120_000);
