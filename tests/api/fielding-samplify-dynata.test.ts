// Samplify as Dynata's reference describes it (issue 36; decision record 0127), against the loopback
// fake (tests/helpers/samplify-fake.ts), which refuses a line item without the reference's required
// fields and records what it receives:
// - the run's targets and quotas go as the line item's `targets` and `quotaPlan`, with counts worked
//   by hand below; what has no Dynata attribute is named in a warning;
// - the test URL differs from the live one, and a test entry is sent to the end links but counts
//   for nothing (no session, no complete, no quota, no supplier outcome);
// - Dynata's end links carry the code the complete link asks for, verified here with node:crypto.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { ATTENTION } from "../../api/src/domains/fielding/engine.ts";
import { configureSamplify, SECURITY_KEY_1, SECURITY_KEY_2, startSamplifyFake, unconfigureSamplify, type SamplifyFake } from "../helpers/samplify-fake.ts";

let tdb: TestDb;
let app: App;
let fake: SamplifyFake;
const T = 1003;
const PUBLIC = "http://ideally.test";
const MALE = 4500001;
const FEMALE = 4500002;
const AGE_18_24 = 5100001;
const AGE_25_34 = 5100002;
const AUCKLAND = 4200102;

let runId: number;
let link: string;
let supplierId: number;
let item: Record<string, unknown>;
let runState: { samplify: { warnings: string[]; securityLevel: string | null } };

type Q = { key: string; type: string; options: { id: number; exclusive: boolean }[] };
type View = { respondentId: string; status: string; redirectUrl: string | null; message: string | null; page: { id: string; questions: Q[] } | null };

const post = async (path: string, body: unknown) => {
  const r = await app.request(`/s/api/${link}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as View };
};

/** Answers that qualify (a man of 18-24 in Auckland) and pass the attention check. */
function answers(v: View): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const q of v.page!.questions) {
    if (q.key === "s45") out[q.key] = MALE;
    else if (q.key === "s51") out[q.key] = AGE_18_24;
    else if (q.key === "s42") out[q.key] = AUCKLAND;
    else if (q.key === ATTENTION.key) out[q.key] = ATTENTION.correct;
    else if (q.type === "text") out[q.key] = "It sounds tasty and good value";
    else if (q.type === "multiple") out[q.key] = [q.options.find((o) => !o.exclusive)!.id];
    // A different answer on each scale item in turn: never one answer on every item (straight-lining).
    else out[q.key] = q.options[Object.keys(out).length % q.options.length]!.id;
  }
  return out;
}

async function walk(v: View): Promise<View> {
  let cur = v;
  for (let i = 0; i < 30 && cur.status === "InProgress"; i++) {
    const r = await post(`/${cur.respondentId}/answers`, { pageId: cur.page!.id, answers: answers(cur) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    cur = r.body;
  }
  return cur;
}

/** The entry query Dynata sends: the survey URL's query with its respondent id and the project's Secure Key 2 in place. */
const entryOf = (surveyUrl: string, psid: string) =>
  surveyUrl
    .slice(surveyUrl.indexOf("?") + 1)
    .replace("<#IdParameter[Value]>", encodeURIComponent(psid))
    .replace("<#Project[Secure Key 2]>", SECURITY_KEY_2);

/** Dynata's complete link for a psid, with its code computed independently: hex HMAC-SHA256 keyed by securityKey1 over the link before `&med=`. */
const dynataComplete = (psid: string) => {
  const unsigned = `http://127.0.0.1:${fake.port}/respondent/exit?rst=1&psid=${psid}`;
  return `${unsigned}&med=${createHmac("sha256", SECURITY_KEY_1).update(unsigned).digest("hex")}`;
};

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  fake = startSamplifyFake();
  configureSamplify(fake.port);
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Dynata study", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = created.body.id as number;
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" });
  const targets = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
    targets: [
      { systemQuestionOptionId: MALE, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: FEMALE, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: AGE_18_24, quotaPercent: 33.33 },
      { systemQuestionOptionId: AGE_25_34, quotaPercent: 33.33 },
      { systemQuestionOptionId: AUCKLAND },
    ],
  });
  expect(targets.status, JSON.stringify(targets.body)).toBe(200);
  await tdb.db`update projects_regions set sample_size = 300 where project_id = ${id}`;
  await tdb.db`update projects set incidence_estimate = 0.2 where id = ${id}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const [run] = await fielding.createSurveys(tdb.db, id);
  runId = run!.surveyRunId;
  link = run!.surveyLink;
  const supplier = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name: "Dynata (Samplify)",
    entryParameter: "psid",
    completeUrl: "https://dynata.example/c?psid={rid}",
    screenOutUrl: "https://dynata.example/s?psid={rid}",
    overQuotaUrl: "https://dynata.example/q?psid={rid}",
    qualityTerminateUrl: "https://dynata.example/t?psid={rid}",
  });
  supplierId = supplier.body.id;
  expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${runId})/SetSampleSupplier`, { sampleSupplierId: supplierId })).status).toBe(200);
  await fielding.launchRun(tdb.db, runId, PUBLIC);
  const order = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${runId})/CreateOrUpdateSamplifyProject`, { targetCompletes: 300 });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  item = fake.received.at(-1)!;
  runState = order.body;
}, 120_000);
afterAll(async () => {
  fake?.stop();
  unconfigureSamplify();
  await tdb.drop();
});

test("the line item carries the run's targets and quotas, counts worked by hand; what has no Dynata attribute is named", async () => {
  expect(item.targets, "the Demand API's required count of completes").toEqual([{ type: "COMPLETE", count: 300 }]);
  expect(item.requiredCompletes).toBe(300);
  expect(item.indicativeIncidence).toBe(20);
  // By hand, 300 completes:
  // - Gender, only these, 50% + 50%: caps ceil(300 x 0.5) = 150 each; only men and women qualify,
  //   so a filter on attribute 11 with options 1 (Male) and 2 (Female). Nothing left to others.
  // - Age group, 33.33% + 33.33%, the rest open: caps ceil(300 x 0.3333) = ceil(99.99) = 100 each;
  //   the other four bands share 300 - 200 = 100. Everyone qualifies: no age filter.
  // - Region, Auckland (no quota): Dynata's reference names no region attribute: a warning.
  expect(item.quotaPlan).toEqual({
    filters: [{ attributeId: "11", options: ["1", "2"], operator: "include" }],
    quotaGroups: [
      {
        name: "Gender",
        quotaCells: [
          { quotaNodes: [{ attributeId: "11", options: ["1"] }], count: 150 },
          { quotaNodes: [{ attributeId: "11", options: ["2"] }], count: 150 },
        ],
      },
      {
        name: "Age group",
        quotaCells: [
          { quotaNodes: [{ attributeId: "13", options: ["18-24"] }], count: 100 },
          { quotaNodes: [{ attributeId: "13", options: ["25-34"] }], count: 100 },
          { quotaNodes: [{ attributeId: "13", options: ["35-44", "45-54", "55-64", "65-99"] }], count: 100 },
        ],
      },
    ],
  });
  expect(runState.samplify.warnings).toEqual([`"Region" ("Auckland") is not sent to Samplify: Dynata's reference names no attribute for it; the survey screens on it`]);
  expect(runState.samplify.securityLevel).toBe("MEDIUM");
});

test("a line item without the reference's required targets is refused by the fake (the shape is checked, not assumed)", async () => {
  const { lineItemProblems } = await import("../helpers/samplify-fake.ts");
  const { targets: _, ...withoutTargets } = item;
  expect(lineItemProblems(withoutTargets)).toBe("targets is required");
  expect(lineItemProblems({ ...item, quotaPlan: { filters: [{ attributeId: "11", options: ["3"] }] } })).toBe("quotaPlan.filters[0]: attribute 11 (Gender) has options 1 and 2");
  expect(lineItemProblems(item)).toBeNull();
});

test("the test URL differs from the live one; a test entry reaches Dynata's end link and counts for nothing", async () => {
  const live = item.surveyURL as string;
  const testUrl = item.surveyTestURL as string;
  expect(live).toBe(`${PUBLIC}/s/${link}?supplier=${supplierId}&k2=<#Project[Secure Key 2]>&psid=<#IdParameter[Value]>`);
  expect(testUrl).not.toBe(live);
  const [{ key }] = await tdb.db<{ key: string }[]>`select test_entry_key::text as key from survey_runs where id = ${runId}`;
  expect(testUrl).toBe(`${PUBLIC}/s/${link}?supplier=${supplierId}&test=${key}&k2=<#Project[Secure Key 2]>&psid=<#IdParameter[Value]>`);

  // The order is one complete: a test complete must not fill it.
  await tdb.db`update survey_runs set target_completes = 1 where id = ${runId}`;
  const start = await post("/start", { entryQuery: entryOf(testUrl, "TEST-1") });
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  const end = await walk(start.body);
  expect(end.status).toBe("Complete");
  expect(end.redirectUrl, "the tester reaches Dynata's complete link, code and all").toBe(dynataComplete("TEST-1"));
  const [counted] = await tdb.db<{ sessions: number; outcomes: number; status: number }[]>`
    select (select count(*)::int from survey_sessions where survey_run_id = ${runId}) as sessions,
           (select count(*)::int from supplier_outcomes where survey_run_id = ${runId}) as outcomes,
           (select survey_status_id from survey_runs where id = ${runId}) as status`;
  expect(counted, "no session, no supplier outcome, the run still open").toEqual({ sessions: 0, outcomes: 0, status: 50 });
  const csv = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${runId})/ReconciliationCsv`);
  expect(String(csv.body).trim().split(/\r?\n/).length, "the reconciliation lists no test entry").toBe(1);

  // A test key that is not the run's is refused; a live entry cannot pass as a test.
  const forged = await post("/start", { entryQuery: entryOf(testUrl.replace(key, "00000000-0000-4000-8000-000000000000"), "TEST-2") });
  expect(forged.status).toBe(403);

  // A live respondent's complete counts, fills the order of one, and goes back with its code.
  const real = await walk((await post("/start", { entryQuery: entryOf(live, "LIVE-1") })).body);
  expect(real.status).toBe("Complete");
  expect(real.redirectUrl).toBe(dynataComplete("LIVE-1"));
  const [after] = await tdb.db<{ completes: number; status: number }[]>`
    select (select count(*)::int from survey_sessions where survey_run_id = ${runId} and status = 'Complete') as completes,
           (select survey_status_id from survey_runs where id = ${runId}) as status`;
  expect(after).toEqual({ completes: 1, status: 90 });
});

test("Dynata's screen-out and over-quota links carry the respondent's id and no code (the reference's links have none)", async () => {
  const { dynataEndLink } = await import("../../api/src/domains/fielding/suppliers.ts");
  const [{ e }] = await tdb.db<{ e: { complete: string; screenout: string; overquota: string; securityKey1: string } }[]>`select samplify_end_links as e from survey_runs where id = ${runId}`;
  const origin = `http://127.0.0.1:${fake.port}`;
  expect(await dynataEndLink(e, "R 9", "screenOut")).toBe(`${origin}/respondent/exit?rst=2&psid=R%209`);
  expect(await dynataEndLink(e, "R9", "overQuota")).toBe(`${origin}/respondent/exit?rst=3&psid=R9`);
  expect(await dynataEndLink(e, "R9", "qualityTerminate"), "Dynata has no quality link: a screen-out").toBe(`${origin}/respondent/exit?rst=2&psid=R9`);
  expect(await dynataEndLink(e, "R9", "complete")).toBe(dynataComplete("R9"));
});
