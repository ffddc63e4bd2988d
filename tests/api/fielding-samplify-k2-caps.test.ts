// Samplify: Dynata's k2 checked on entry, and a changed order's caps sent again (issue 36;
// decision record 0136), against the loopback fake built from Dynata's public reference
// (tests/helpers/samplify-fake.ts):
// - the survey URLs carry `k2=<#Project[Secure Key 2]>` where the reference's line item example
//   puts it (before the respondent's id); Dynata fills it with the project's Secure Key 2, which the
//   line item's answer gives as endLinks.securityKey2 (the fake's SECURITY_KEY_2, "42614": a value
//   of the test, not computed by the code under test). An entry without it, or with another
//   value, is refused (403) and nothing is stored;
// - staff changing the run's completes (CreateOrUpdateSamplifyProject again) changes the survey's
//   own caps and the line item's quota cells, worked by hand below.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import type { SurveyDefinition } from "../../api/src/domains/fielding/engine.ts";
import { withCompletes } from "../../api/src/domains/fielding/definition.ts";
import { configureSamplify, SECURITY_KEY_2, startSamplifyFake, unconfigureSamplify, type SamplifyFake } from "../helpers/samplify-fake.ts";
import { enterAndWalk, FEMALE, MALE, respondentPost, type SupplierRun } from "../helpers/supplier-run.ts";

let tdb: TestDb;
let app: App;
let fake: SamplifyFake;
const T = 1003;
const PUBLIC = "http://ideally.test";
const AGE_18_24 = 5100001;
const AGE_25_34 = 5100002;

let run: SupplierRun;
let supplierId: number;
let item: Record<string, unknown>;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  fake = startSamplifyFake();
  configureSamplify(fake.port);
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Dynata k2 and caps", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = created.body.id as number;
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" });
  const targets = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
    targets: [
      { systemQuestionOptionId: MALE, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: FEMALE, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: AGE_18_24, quotaPercent: 33.33 },
      { systemQuestionOptionId: AGE_25_34, quotaPercent: 33.33 },
    ],
  });
  expect(targets.status, JSON.stringify(targets.body)).toBe(200);
  await tdb.db`update projects_regions set sample_size = 300 where project_id = ${id}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const [r] = await fielding.createSurveys(tdb.db, id);
  run = { id: r!.surveyRunId, link: r!.surveyLink };
  const supplier = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name: "Dynata (Samplify)",
    entryParameter: "psid",
    completeUrl: "https://dynata.example/c?psid={rid}",
    screenOutUrl: "https://dynata.example/s?psid={rid}",
    overQuotaUrl: "https://dynata.example/q?psid={rid}",
    qualityTerminateUrl: "https://dynata.example/t?psid={rid}",
  });
  supplierId = supplier.body.id;
  expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/SetSampleSupplier`, { sampleSupplierId: supplierId })).status).toBe(200);
  await fielding.launchRun(tdb.db, run.id, PUBLIC);
  const order = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/CreateOrUpdateSamplifyProject`, { targetCompletes: 300 });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  item = fake.received.at(-1)!;
}, 120_000);
afterAll(async () => {
  fake?.stop();
  unconfigureSamplify();
  await tdb.drop();
});

/** The entry Dynata sends: the survey URL's query with its placeholders filled as Dynata fills them. */
const entryOf = (surveyUrl: string, psid: string, k2: string | null) => {
  const q = surveyUrl.slice(surveyUrl.indexOf("?") + 1).replace("<#IdParameter[Value]>", encodeURIComponent(psid));
  return k2 === null ? q.replace("&k2=<#Project[Secure Key 2]>", "") : q.replace("<#Project[Secure Key 2]>", k2);
};
const sessions = async () =>
  (
    await tdb.db<
      { n: number }[]
    >`select (select count(*)::int from survey_sessions where survey_run_id = ${run.id}) + (select count(*)::int from survey_test_sessions where survey_run_id = ${run.id}) as n`
  )[0]!.n;

test("the survey URLs carry k2 where the reference puts it; an entry with Dynata's Secure Key 2 enters, a wrong or missing one is refused and nothing stored", async () => {
  expect(item.surveyURL).toBe(`${PUBLIC}/s/${run.link}?supplier=${supplierId}&k2=<#Project[Secure Key 2]>&psid=<#IdParameter[Value]>`);
  expect(item.surveyTestURL as string).toContain("&k2=<#Project[Secure Key 2]>&psid=<#IdParameter[Value]>");
  const live = item.surveyURL as string;
  for (const [k2, why] of [
    ["42615", "another key"],
    [null, "no k2"],
    ["", "an empty k2"],
    [SECURITY_KEY_2.slice(0, -1), "a prefix of the key"],
  ] as const) {
    const r = await respondentPost(app, run, "/start", { entryQuery: entryOf(live, "K-REFUSED", k2) });
    expect(r.status, why).toBe(403);
  }
  const test = await respondentPost(app, run, "/start", { entryQuery: entryOf(item.surveyTestURL as string, "K-TEST", "00000") });
  expect(test.status, "the test link is checked the same way").toBe(403);
  expect(await sessions()).toBe(0);
  const ok = await respondentPost(app, run, "/start", { entryQuery: entryOf(live, "K-1", SECURITY_KEY_2) });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  expect(ok.body.status).toBe("InProgress");
  const tester = await enterAndWalk(app, run, entryOf(item.surveyTestURL as string, "K-TEST", SECURITY_KEY_2), MALE);
  expect(tester.redirectUrl).toStartWith(`http://127.0.0.1:${fake.port}/respondent/exit?`);
});

test("staff change the run's completes: the survey's caps and the line item's quota cells follow (worked by hand)", async () => {
  const order = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/CreateOrUpdateSamplifyProject`, { targetCompletes: 400 });
  expect(order.status, JSON.stringify(order.body)).toBe(200);
  const sent = fake.received.at(-1)!;
  // 400 completes: gender 50% + 50% -> ceil(200) = 200 each; age 33.33% -> ceil(133.32) = 134 each,
  // the other four bands 400 - 268 = 132.
  expect(sent.requiredCompletes).toBe(400);
  expect(sent.targets).toEqual([{ type: "COMPLETE", count: 400 }]);
  expect(sent.quotaPlan).toEqual({
    filters: [{ attributeId: "11", options: ["1", "2"], operator: "include" }],
    quotaGroups: [
      {
        name: "Gender",
        quotaCells: [
          { quotaNodes: [{ attributeId: "11", options: ["1"] }], count: 200 },
          { quotaNodes: [{ attributeId: "11", options: ["2"] }], count: 200 },
        ],
      },
      {
        name: "Age group",
        quotaCells: [
          { quotaNodes: [{ attributeId: "13", options: ["18-24"] }], count: 134 },
          { quotaNodes: [{ attributeId: "13", options: ["25-34"] }], count: 134 },
          { quotaNodes: [{ attributeId: "13", options: ["35-44", "45-54", "55-64", "65-99"] }], count: 132 },
        ],
      },
    ],
  });
  const [{ def }] = await tdb.db<{ def: SurveyDefinition }[]>`select definition as def from survey_runs where id = ${run.id}`;
  const byKey = Object.fromEntries(def.targets.map((t) => [t.key, t]));
  expect(def.targetCompletes).toBe(400);
  expect(byKey.s45!.quotas).toEqual({ [MALE]: 200, [FEMALE]: 200 });
  expect(byKey.s51!.quotas).toEqual({ [AGE_18_24]: 134, [AGE_25_34]: 134 });
  expect(byKey.s51!.othersQuota).toBe(132);
});

test("a snapshot taken before shares were kept is rescaled from its caps (cap / completes)", () => {
  const old = {
    targetCompletes: 300,
    targets: [{ key: "s45", optionIds: [MALE, FEMALE], quotas: { [MALE]: 150, [FEMALE]: 150 }, onlyThese: true, othersQuota: null }],
    crossed: [{ keys: ["s45", "s51"], cells: [{ optionIds: [MALE, AGE_18_24], cap: 30 }] }],
  } as unknown as SurveyDefinition;
  const next = withCompletes(old, 500);
  // 150 / 300 = 50% -> 250 of 500; 30 / 300 = 10% -> 50 of 500.
  expect(next.targets[0]!.quotas).toEqual({ [MALE]: 250, [FEMALE]: 250 });
  expect(next.crossed![0]!.cells[0]!.cap).toBe(50);
  expect(next.targetCompletes).toBe(500);
});

test("a supplier taking its respondent id in k2 cannot be ordered through Samplify (409, the order unchanged)", async () => {
  const [{ before }] = await tdb.db<{ before: number }[]>`select target_completes as before from survey_runs where id = ${run.id}`;
  expect((await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${supplierId})`, { entryParameter: "k2" })).status).toBe(200);
  try {
    const order = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/CreateOrUpdateSamplifyProject`, { targetCompletes: before + 1 });
    expect(order.status, JSON.stringify(order.body)).toBe(409);
    expect(order.body.message).toContain("k2");
    const [{ after }] = await tdb.db<{ after: number }[]>`select target_completes as after from survey_runs where id = ${run.id}`;
    expect(after).toBe(before);
  } finally {
    await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${supplierId})`, { entryParameter: "psid" });
  }
});
