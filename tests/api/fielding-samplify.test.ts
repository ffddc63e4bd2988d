// The Samplify adapter (issue 21) against a loopback fake of Dynata's Samplify API that follows
// the published shapes (auth /token/password; POST /projects, /projects/{p}/lineItems,
// /projects/{p}/buy, /projects/{p}/lineItems/{l}/{launch|pause|close}; GET /projects/{p}/feasibility;
// every answer {data, status}): create the project with a line item per market (quota, incidence,
// length of interview, days in field), add the second market, launch (buying first), pause, close,
// feasibility and cost. Off unless configured: 503 without SAMPLIFY_*.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { runFieldingTick as fieldingTick } from "../../api/src/domains/fielding/fielding.jobs.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
let fake: ReturnType<typeof Bun.serve>;

type LineItem = Record<string, unknown> & { extLineItemId: string; state: string };
const projects = new Map<string, { extProjectId: string; title: string; state: string; lineItems: LineItem[] }>();
const calls: string[] = [];
let signIns = 0;

const ok = (data: unknown, status = 200) => Response.json({ data, status: { message: "success", errors: [] } }, { status });
const fail = (status: number, message: string) => Response.json({ data: null, status: { message: "fail", errors: [{ code: String(status), message }] } }, { status });

/** The line item fields the reference marks required, with their types. */
function lineItemProblems(l: Record<string, unknown>): string | null {
  for (const k of ["extLineItemId", "title", "countryISOCode", "languageISOCode"]) if (typeof l[k] !== "string" || !l[k]) return `${k} is required`;
  for (const k of ["indicativeIncidence", "daysInField", "lengthOfInterview", "requiredCompletes"]) if (typeof l[k] !== "number" || !((l[k] as number) > 0)) return `${k} must be a positive number`;
  if (!/^[A-Z]{2}$/.test(l.countryISOCode as string)) return "countryISOCode must be ISO 3166 alpha-2";
  if ((l.indicativeIncidence as number) > 100) return "indicativeIncidence is a percentage";
  return null;
}

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  fake = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const url = new URL(req.url);
      const path = url.pathname;
      calls.push(`${req.method} ${path}`);
      if (path === "/auth/v1/token/password" && req.method === "POST") {
        const b = (await req.json()) as { clientId?: string; username?: string; password?: string };
        if (b.clientId !== "cid" || b.username !== "ideally" || b.password !== "pw") return Response.json({ message: "bad credentials" }, { status: 401 });
        signIns++;
        return Response.json({ accessToken: `tok-${signIns}`, expiresIn: 3600, refreshToken: "r", refreshExpiresIn: 7200 });
      }
      if (req.headers.get("authorization") !== `Bearer tok-${signIns}`) return fail(401, "unauthorised");
      const m = path.match(/^\/sample\/v1\/projects(?:\/([^/]+))?(?:\/(lineItems|buy|close|feasibility))?(?:\/([^/]+))?(?:\/(launch|pause|close))?$/);
      if (!m) return fail(404, "no such route");
      const [, pid, sub, lid, action] = m;
      if (!pid && req.method === "POST") {
        const b = (await req.json()) as { extProjectId?: string; title?: string; notificationEmails?: string[]; category?: { surveyTopic?: string[] }; lineItems?: Record<string, unknown>[] };
        if (!b.extProjectId || !b.title || !b.notificationEmails?.length || !b.category?.surveyTopic?.length || !b.lineItems?.length) return fail(400, "extProjectId, title, notificationEmails, category and lineItems are required");
        for (const l of b.lineItems) {
          const p = lineItemProblems(l);
          if (p) return fail(400, p);
        }
        if (projects.has(b.extProjectId)) return fail(400, "project exists");
        const p = { extProjectId: b.extProjectId, title: b.title, state: "PROVISIONED", lineItems: b.lineItems.map((l) => ({ ...l, state: "PROVISIONED" }) as LineItem) };
        projects.set(b.extProjectId, p);
        return ok(p, 201);
      }
      const p = projects.get(decodeURIComponent(pid!));
      if (!p) return fail(404, "no such project");
      if (sub === "lineItems" && !lid && req.method === "POST") {
        const l = (await req.json()) as Record<string, unknown>;
        const problem = lineItemProblems(l);
        if (problem) return fail(400, problem);
        const item = { ...l, state: "PROVISIONED" } as LineItem;
        p.lineItems.push(item);
        return ok(item, 201);
      }
      if (sub === "lineItems" && lid && !action && req.method === "POST") {
        const item = p.lineItems.find((x) => x.extLineItemId === decodeURIComponent(lid));
        if (!item) return fail(404, "no such line item");
        Object.assign(item, await req.json());
        return ok(item);
      }
      if (sub === "lineItems" && lid && action) {
        const item = p.lineItems.find((x) => x.extLineItemId === decodeURIComponent(lid));
        if (!item) return fail(404, "no such line item");
        if (action === "launch" && item.state !== "AWAITING_APPROVAL" && item.state !== "PAUSED") return fail(400, `cannot launch a ${item.state} line item: buy it first`);
        item.state = { launch: "LAUNCHED", pause: "PAUSED", close: "CLOSED" }[action]!;
        return ok(item);
      }
      if (sub === "buy") {
        const list = (await req.json()) as { extLineItemId: string; surveyURL: string; surveyTestURL: string }[];
        if (!Array.isArray(list) || list.some((x) => !x.surveyURL || !x.surveyTestURL)) return fail(400, "surveyURL and surveyTestURL are required");
        return ok(list.map((x) => {
          const item = p.lineItems.find((l) => l.extLineItemId === x.extLineItemId)!;
          item.state = "AWAITING_APPROVAL";
          return { extLineItemId: x.extLineItemId, state: item.state };
        }));
      }
      if (sub === "feasibility" && req.method === "GET") {
        return ok(p.lineItems.map((l) => ({
          extLineItemId: l.extLineItemId,
          feasibility: { status: "READY", costPerInterview: 2.5, currency: "USD", feasible: (l.requiredCompletes as number) <= 1000, totalCount: 1000, valueCounts: [] },
        })));
      }
      return fail(405, "not allowed");
    },
  });
}, 120_000);
afterAll(async () => {
  fake?.stop(true);
  for (const k of ["SAMPLIFY_CLIENT_ID", "SAMPLIFY_USERNAME", "SAMPLIFY_PASSWORD", "SAMPLIFY_BASE_URL", "SAMPLIFY_AUTH_URL"]) delete process.env[k];
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

  process.env.SAMPLIFY_CLIENT_ID = "cid";
  process.env.SAMPLIFY_USERNAME = "ideally";
  process.env.SAMPLIFY_PASSWORD = "pw";
  process.env.SAMPLIFY_BASE_URL = `http://127.0.0.1:${fake.port}/sample/v1`;
  process.env.SAMPLIFY_AUTH_URL = `http://127.0.0.1:${fake.port}/auth/v1`;

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
  expect(first.body.samplify).toEqual({ extProjectId: `ideally-${id}-w1`, extLineItemId: `run-${nz!.surveyRunId}`, state: "PROVISIONED" });
  const second = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${au!.surveyRunId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 250 });
  expect(second.status, JSON.stringify(second.body)).toBe(200);
  const p = projects.get(`ideally-${id}-w1`)!;
  expect(p.lineItems.map((l) => [l.extLineItemId, l.countryISOCode, l.requiredCompletes, l.indicativeIncidence, l.languageISOCode])).toEqual([
    [`run-${nz!.surveyRunId}`, "NZ", 300, 45, "en"],
    [`run-${au!.surveyRunId}`, "AU", 250, 45, "en"],
  ]);
  const li = p.lineItems[0]!;
  expect(li.surveyURL).toBe(`${PUBLIC}/s/${nz!.surveyLink}?supplier=${supplier.body.id}`);
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
  signIns++;
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
