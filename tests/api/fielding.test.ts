// Fielding: runs from a project's started wave, the respondent engine (validation, targets and
// quotas, attention check, resume, one response per respondent), the simulated panel, processing
// with raking, the project reaching its results, and a processing crash retried without
// duplicates. Driven through the API where the API has the call, and the services otherwise.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as respondents from "../../api/src/domains/fielding/respondents.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { ATTENTION, pages, validatePage, afterPage, type SurveyDefinition } from "../../api/src/domains/fielding/engine.ts";

let tdb: TestDb;
let app: App;
const T = 1003;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

/** An Idea project at Awaiting Survey (300): two concepts, NZ, price questions, 40 completes. */
async function approvedProject(opts: { sampleSize?: number; targets?: boolean; customer?: boolean } = {}): Promise<number> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", {
    projectName: `Fielding ${Math.random().toString(36).slice(2, 7)}`,
    projectTypeId: 1,
    frameworkId: 1000,
    regionIds: [1],
  });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  for (const conceptText of ["Oat milk barista blend", "Sparkling yerba mate"]) {
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText })).status).toBe(201);
  }
  expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/CreatePriceSensitivities`, { minPrice: 2, maxPrice: 12 })).status).toBe(200);
  await tdb.db`update projects_regions set sample_size = ${opts.sampleSize ?? 40}, is_customer_panel = ${opts.customer ?? false} where project_id = ${id}`;
  if (opts.targets) {
    // Women only, with a 60% quota on 18-24s among... ages 18-34 only.
    await tdb.db`insert into targets (client_id, project_id, system_question_option_id) values (${T}, ${id}, 4500002)`;
    await tdb.db`insert into targets (client_id, project_id, system_question_option_id, quota_percent) values (${T}, ${id}, 5100001, 50), (${T}, ${id}, 5100002, 50)`;
  }
  const approved = await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`);
  expect(approved.body.statusCode).toBe(300);
  return id;
}

async function statusOf(id: number): Promise<number> {
  const [r] = await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${id}`;
  return r!.s;
}

describe("a project fielded by the simulated panel", () => {
  let projectId: number;
  let runId: number;

  test("the started wave becomes a run with the questionnaire; launching it takes the project to 400", async () => {
    projectId = await approvedProject();
    const runs = await fielding.createSurveys(tdb.db, projectId);
    expect(runs.length).toBe(1);
    runId = runs[0]!.surveyRunId;
    const [run] = await tdb.db<{ definition: SurveyDefinition; status: number; target: number }[]>`
      select definition, survey_status_id as status, target_completes as target from survey_runs where id = ${runId}`;
    expect(run!.status).toBe(0);
    expect(run!.target).toBe(40);
    expect(run!.definition.testOptions.map((t) => t.conceptText)).toEqual(["Oat milk barista blend", "Sparkling yerba mate"]);
    expect(run!.definition.loop.filter((q) => q.type === "price").length).toBe(8);
    expect(run!.definition.demographics.map((q) => q.systemQuestionId)).toContain(51);
    expect((await fielding.createSurveys(tdb.db, projectId)).length).toBe(0);
    await fielding.launchRun(tdb.db, runId, "http://ideally.test");
    expect(await statusOf(projectId)).toBe(400);
  });

  test("N simulated completes add exactly N project sessions, live", async () => {
    const r = await panel.simulate(tdb.db, runId, 15);
    expect(r.completes).toBe(15);
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_survey_sessions where project_id = ${projectId}`;
    expect(n).toBe(15);
    const [{ rn }] = await tdb.db<{ rn: number }[]>`select count(distinct survey_session_id)::int as rn from responses where project_id = ${projectId}`;
    expect(rn).toBe(15);
  });

  test("the run closes at its quota and processing rakes it to the census margins", async () => {
    const r = await panel.simulate(tdb.db, runId, 1000);
    expect(r.totalCompletes).toBe(40);
    expect(r.closed).toBe(true);
    const p = await fielding.processRun(tdb.db, runId);
    expect(p.weighting).not.toBeNull();
    const w = p.weighting!;
    expect(w.deff).toBeGreaterThanOrEqual(1);
    // Weights stay within the cap, 0.2 to 5 around a mean of 1 (DOMAIN.md), whichever way it goes.
    expect(w.cap).toBe(5);
    expect(w.minWeight).toBeGreaterThanOrEqual(0.2 - 1e-9);
    expect(w.maxWeight).toBeLessThanOrEqual(5 + 1e-9);
    // Margins met within 0.001, or the cap binds: then a weight sits at the cap and the miss is
    // reported (both outcomes are checked, never neither).
    const atCap = Math.abs(w.maxWeight - 5) < 1e-6 || Math.abs(w.minWeight - 0.2) < 1e-6;
    expect(w.capBinds, `capBinds says whether a weight sits at the cap (${w.minWeight}..${w.maxWeight})`).toBe(atCap);
    if (w.capBinds) expect(w.maxError).toBeGreaterThan(0);
    else expect(w.maxError).toBeLessThanOrEqual(0.001);
    // The reported error is the largest miss over the margins it reports (a level nobody had is
    // left out and the other levels' shares renormalised).
    const misses = Object.entries(w.targets).flatMap(([v, t]) => {
      const total = Object.values(t).reduce((a, b) => a + b, 0);
      return Object.entries(t).map(([l, share]) => Math.abs((w.margins[v]?.[l] ?? 0) - share / total));
    });
    expect(misses.length).toBeGreaterThan(0);
    expect(w.maxError).toBeCloseTo(Math.max(...misses), 9);
    expect(p.projectStatusCode).toBe(900);
    const [{ s }] = await tdb.db<{ s: number }[]>`select sum(weight)::float8 as s from project_survey_sessions where project_id = ${projectId}`;
    expect(s).toBeCloseTo(40, 6);
    const [ev] = await tdb.db`select event from data_events_log where project_id = ${projectId} and event = 'ResultsReady'`;
    expect(ev).toBeDefined();
    const again = await fielding.processRun(tdb.db, runId);
    expect(again.alreadyProcessed).toBe(true);
  });

  test("price answers are in increasing order for every respondent", async () => {
    const rows = await tdb.db<{ ok: boolean }[]>`
      select bool_and(tc < b and b < e and e < te) as ok from (
        select survey_session_id, test_option_id,
          max(numeric_value) filter (where standard_question_id = 19) tc, max(numeric_value) filter (where standard_question_id = 20) b,
          max(numeric_value) filter (where standard_question_id = 21) e, max(numeric_value) filter (where standard_question_id = 22) te
        from responses where project_id = ${projectId} and numeric_value is not null group by 1, 2) x`;
    expect(rows[0]!.ok).toBe(true);
  });
});

describe("the respondent engine", () => {
  let link: string;
  let def: SurveyDefinition;
  let id: number;

  beforeAll(async () => {
    id = await approvedProject({ sampleSize: 3, targets: true, customer: true });
    const [run] = await fielding.createSurveys(tdb.db, id);
    await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
    link = run!.surveyLink;
    def = (await tdb.db<{ d: SurveyDefinition }[]>`select definition as d from survey_runs where id = ${run!.surveyRunId}`)[0]!.d;
  });

  test("a customer-panel run's respondent link is given to the team (issue 36: it was on no page), to viewers too", async () => {
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${id})/DecipherCompletesCounts`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.value.map((v: { isCustomerPanel: boolean; respondentLink: string | null }) => [v.isCustomerPanel, v.respondentLink])).toEqual([[true, `http://localhost/s/${link}`]]);
  });

  const demographics = (gender: number, age: number) => Object.fromEntries(def.demographics.map((q) => [q.key, q.key === "s45" ? gender : q.key === "s51" ? age : q.options[0]!.id]));

  test("someone outside the targets is screened out", async () => {
    const s = await respondents.startSession(tdb.db, link, "panel-1");
    expect(s.page!.kind).toBe("demographics");
    const after = await respondents.submitPage(tdb.db, link, s.respondentId, "demographics", demographics(4500001, 5100001));
    expect(after.status).toBe("ScreenedOut");
    const again = await respondents.submitPage(tdb.db, link, s.respondentId, "demographics", demographics(4500002, 5100001)).catch((e) => e);
    expect(again.code).toBe("Conflict");
  });

  test("bad answers are refused with the failing fields and nothing saved; reload resumes", async () => {
    const s = await respondents.startSession(tdb.db, link, "panel-2");
    const bad = await respondents.submitPage(tdb.db, link, s.respondentId, "demographics", {}).catch((e) => e);
    expect(bad.code).toBe("ValidationError");
    expect(bad.errors.length).toBe(def.demographics.length);
    const ok = await respondents.submitPage(tdb.db, link, s.respondentId, "demographics", demographics(4500002, 5100001));
    expect(ok.status).toBe("InProgress");
    const resumed = await respondents.getSession(tdb.db, link, s.respondentId);
    expect(resumed.page!.id).toBe(ok.page!.id);
    // The same panel id comes back to the same session.
    expect((await respondents.startSession(tdb.db, link, "panel-2")).respondentId).toBe(s.respondentId);
  });

  test("price answers out of order are refused with a clear message", () => {
    const all = pages(def, [def.testOptions[0]!.id]);
    const price = all.find((p) => p.kind === "price")!;
    const keys = price.questions.map((q) => `${q.key}:t${price.testOptionId}`);
    const r = validatePage(def, price, { [keys[0]!]: 5, [keys[1]!]: 4, [keys[2]!]: 8, [keys[3]!]: 9 });
    expect("errors" in r && r.errors[0]!.message).toBe("The price at which it is a bargain must be higher than the price at which it is too cheap");
  });

  test("equal prices are refused: each Van Westendorp price must be strictly higher than the one before", () => {
    // Van Westendorp (1976): too cheap < bargain < getting expensive < too expensive.
    const all = pages(def, [def.testOptions[0]!.id]);
    const price = all.find((p) => p.kind === "price")!;
    const keys = price.questions.map((q) => `${q.key}:t${price.testOptionId}`);
    const answer = (v: number[]) => validatePage(def, price, Object.fromEntries(keys.map((k, i) => [k, v[i]])));
    const pairs = ["a bargain|too cheap", "getting expensive|a bargain", "too expensive|getting expensive"];
    for (const [i, v] of [
      [4, 4, 8, 9],
      [4, 5, 5, 9],
      [4, 5, 8, 8],
    ].entries()) {
      const r = answer(v);
      const [hi, lo] = pairs[i]!.split("|");
      expect("errors" in r && r.errors).toEqual([{ path: keys[i + 1]!, message: `The price at which it is ${hi} must be higher than the price at which it is ${lo}` }]);
    }
    // Just above the edge: one cent higher each time is accepted.
    expect(answer([4, 4.01, 4.02, 4.03])).toEqual({ answers: Object.fromEntries(keys.map((k, i) => [k, [4, 4.01, 4.02, 4.03][i]])) });
  });

  test("the attention check screens out a wrong answer", () => {
    const all = pages(def, [def.testOptions[0]!.id]);
    const i = all.findIndex((p) => p.kind === "attention");
    expect(afterPage(def, all, i, { [ATTENTION.key]: 0 }, { completesByOption: {}, completesByAnswer: {} })).toEqual({ status: "ScreenedOut", reason: "attention check" });
  });

  test("a full quota sends the next respondent of that group to the over-quota end", async () => {
    // Quota: 50% of 3 completes = 2 for 18-24s. Fill it with simulated 18-24 women.
    const quota = def.targets.find((t) => t.key === "s51")!;
    expect(quota.quotas["5100001"]).toBe(2);
    const r = afterPage(def, pages(def, [def.testOptions[0]!.id]), 0, demographics(4500002, 5100001), { completesByOption: {}, completesByAnswer: { "s51:5100001": 2 } });
    expect(r).toEqual({ status: "OverQuota", reason: "quota s51" });
  });
});

describe("processing survives a crash half-way", () => {
  test("a processing run that fails after ingesting is retried with exactly one copy of every response", async () => {
    const id = await approvedProject({ sampleSize: 20 });
    const [run] = await fielding.createSurveys(tdb.db, id);
    await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
    // Completes stay unprocessed: answered straight into sessions, as a crash before ingest leaves them.
    await panel.simulate(tdb.db, run!.surveyRunId, 20);
    await tdb.db`delete from project_survey_sessions where project_id = ${id}`;
    await tdb.db`update survey_sessions set processed_at = null where survey_run_id = ${run!.surveyRunId}`;
    const crashed = await fielding.processRun(tdb.db, run!.surveyRunId, { failAfterIngest: true }).catch((e) => e);
    expect(crashed).toBeInstanceOf(Error);
    const [{ n0 }] = await tdb.db<{ n0: number }[]>`select count(*)::int as n0 from project_survey_sessions where project_id = ${id}`;
    expect(n0).toBe(0);
    const ok = await fielding.processRun(tdb.db, run!.surveyRunId);
    expect(ok.ingested).toBe(20);
    const [{ n, d }] = await tdb.db<{ n: number; d: number }[]>`
      select count(*)::int as n, count(distinct (survey_session_id, question_option_id, test_option_id, question_id, system_question_id))::int as d
      from responses where project_id = ${id} and numeric_value is null`;
    expect(n).toBe(d);
    const [{ p }] = await tdb.db<{ p: number }[]>`select count(*)::int as p from project_survey_sessions where project_id = ${id}`;
    expect(p).toBe(20);
  });
});

describe("the fielding calls through the API", () => {
  let projectId: number;
  let runId: number;
  let link: string;

  test("staff create and launch the runs; members cannot", async () => {
    projectId = await approvedProject({ sampleSize: 30 });
    expect((await call(app, "acmeAdmin", T, "POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId })).status).toBe(403);
    const created = await call(app, "staff", T, "POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId });
    expect(created.status).toBe(200);
    runId = created.body.runs[0].surveyRunId;
    expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/RunSimulatedData`, { completes: 5 })).status, "a Draft run takes no answers").toBe(409);
    const launched = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/LaunchSurvey`);
    expect(launched.status).toBe(200);
    expect(launched.body.surveyStatus).toBe("Live");
    expect(launched.body.surveyUrl.endsWith(`/s/${launched.body.surveyLink}`)).toBe(true);
    link = launched.body.surveyLink;
    expect(await statusOf(projectId)).toBe(400);
  });

  test("a respondent answers through the public API; N simulated completes raise the counts by exactly N", async () => {
    const started = await app.request(`/s/api/${link}/start`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(started.status).toBe(200);
    const view = (await started.json()) as { respondentId: string; page: { id: string; questions: { key: string; options: { id: number }[] }[] } };
    expect(view.page.id).toBe("demographics");
    const bad = await app.request(`/s/api/${link}/${view.respondentId}/answers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pageId: "demographics", answers: {} }),
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { errors: unknown[] }).errors.length).toBe(view.page.questions.length);
    expect((await app.request(`/s/api/00000000-0000-0000-0000-000000000000/start`, { method: "POST" })).status).toBe(404);

    const before = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect(before.status).toBe(200);
    const sim = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/RunSimulatedData`, { completes: 7 });
    expect(sim.body.completes).toBe(7);
    const after = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect(after.body.value[0].complete - before.body.value[0].complete).toBe(7);
    expect(after.body.value[0].inProgress).toBe(1);
    expect(after.body.value[0].respondentLink, "an Ideally-panel run's link is the panel's, shown to no team").toBeNull();
    const other = await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect([other.status, other.body], "another client's project").toEqual([404, { typename: "NotFound", message: `No project ${projectId}` }]);
  });

  test("staff list and remove respondents; the run closes and is processed", async () => {
    const list = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/DecipherRespondents`, { status: "Complete", pageSize: 2 });
    expect(list.body.total).toBe(7);
    expect(list.body.value.length).toBe(2);
    const gone = list.body.value[0].respondentId as string;
    const removed = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/RemoveRespondentsCsv`, { csv: `respondent\n${gone}\nnot-a-respondent\n` });
    expect(removed.body.removed).toBe(1);
    expect(removed.body.notFound).toEqual(["not-a-respondent"]);
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_survey_sessions where project_id = ${projectId}`;
    expect(n).toBe(6);
    const closed = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ForceCloseSurvey`);
    expect(closed.body.surveyStatus).toBe("Closed");
    const processed = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/StartSurveyProcessing`);
    expect(processed.status).toBe(200);
    expect(processed.body.projectStatusCode).toBe(900);
    expect(processed.body.weighting.n).toBe(6);
    const rebuilt = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/BackwardsSync`);
    expect(rebuilt.body.ingested).toBe(6);
    const [{ r }] = await tdb.db<{ r: number }[]>`select count(distinct survey_session_id)::int as r from responses where project_id = ${projectId}`;
    expect(r).toBe(6);
    const counts = await call(app, "staff", T, "GET", `/api/v1/SurveyRuns(${runId})/DecipherTranslationCounts`);
    expect(counts.body.texts).toBeGreaterThan(10);
  });
});

test("processing stores the drivers of purchase intent (RegressionScores)", async () => {
  const rows = await tdb.db<{ n: number; given: number; total: number | null }[]>`
    select count(*)::int as n, count(importance)::int as given, sum(importance)::float8 as total from regression_scores
    where project_id = (select project_id from project_survey_sessions group by project_id order by count(*) desc limit 1) and test_option_id is null`;
  expect(rows[0]!.n, "one score per other measure").toBeGreaterThan(2);
  // Importances are all given (summing to 1) or, for a model that does not fit, all withheld
  // (docs/statistics.md 'Key drivers'; the rule's edges are in analytics-drivers.test.ts).
  if (rows[0]!.given) {
    expect(rows[0]!.given).toBe(rows[0]!.n);
    expect(rows[0]!.total!).toBeCloseTo(1, 6);
  } else expect(rows[0]!.total).toBeNull();
  const viewer = await call(app, "acmeViewer", T, "GET", `/api/v1/RegressionScores?$filter=outcomeStandardQuestionId eq 3&$top=1`);
  expect(viewer.status).toBe(200);
  expect(viewer.body.value.length).toBe(1);
});

test("processing codes the open answers into themes with sentiment", async () => {
  const [r] = await tdb.db<{ themes: number; coded: number; answers: number; sentiments: number }[]>`
    select (select count(*)::int from themes) as themes,
           (select count(distinct text_response_id)::int from text_responses_themes) as coded,
           (select count(*)::int from text_responses) as answers,
           (select count(*)::int from text_responses where sentiment is not null) as sentiments`;
  expect(r!.themes).toBeGreaterThan(2);
  expect(r!.coded / r!.answers, "most simulated answers fall in a theme").toBeGreaterThan(0.5);
  expect(r!.sentiments).toBe(r!.answers);
});

test("a concept's image reaches the respondent as a signed link", async () => {
  const id = await approvedProject({ sampleSize: 5 });
  await tdb.db`update test_options set file = ${tdb.db.json({ key: `clients/${T}/uploads/concept.png`, fileType: "image/png", fileName: "concept.png" } as never)} where project_id = ${id}`;
  const [run] = await fielding.createSurveys(tdb.db, id);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  const post = (path: string, body: unknown) => app.request(`/s/api/${run!.surveyLink}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  const start = (await (await post("/start", {})).json()) as { respondentId: string; page: { id: string; questions: { key: string; options: { id: number }[] }[] } };
  const answers = Object.fromEntries(start.page.questions.map((q) => [q.key, q.options[0]!.id]));
  const next = (await (await post(`/${start.respondentId}/answers`, { pageId: "demographics", answers })).json()) as { page: { kind: string; concept: { imageUrl: string | null } } };
  expect(next.page.kind).toBe("concept");
  expect(next.page.concept.imageUrl).toContain("/api/files/");
});

test("with purchase intent set up, respondents answer the NMS follow-ups and the price results carry trial and revenue optima", async () => {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "NMS check", projectTypeId: 1, frameworkId: 1010, regionIds: [1] });
  const id = created.body.id as number;
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" });
  expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/CreatePriceSensitivities`, { minPrice: 2, maxPrice: 8, purchaseIntent: true })).status).toBe(200);
  await tdb.db`update projects_regions set sample_size = 60 where project_id = ${id}`;
  await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`);
  const [run] = await fielding.createSurveys(tdb.db, id);
  const def = (await tdb.db<{ d: SurveyDefinition }[]>`select definition as d from survey_runs where id = ${run!.surveyRunId}`)[0]!.d;
  const t = def.testOptions[0]!.id;
  const all = pages(def, [t]);
  const intent = all.find((p) => p.kind === "intent")!;
  expect(all[all.indexOf(intent) - 1]!.kind, "asked right after the prices").toBe("price");
  const bad = validatePage(def, intent, { [`intent20:t${t}`]: 6 });
  expect("errors" in bad && bad.errors.map((e) => e.path)).toEqual([`intent20:t${t}`, `intent21:t${t}`]);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  await panel.simulate(tdb.db, run!.surveyRunId, 60);
  const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from responses where project_id = ${id} and purchase_intent is not null`;
  expect(n, "an intent at the bargain and at the expensive price per respondent").toBe(120);
  const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/PriceSensitivityResults?projectId=${id}`);
  const price = r.body.value[0];
  expect(price.trialOptimal).not.toBeNull();
  expect(price.revenueOptimal.price).toBeGreaterThan(0);
});

describe("SurveyRuns staff actions: the panel order (CreateOrUpdateSamplifyProject) and the run fixes, with their refusals", () => {
  let runId: number;
  const order = (who: "staff" | "acmeAdmin", id: number, body: unknown) => call(app, who, T, "POST", `/api/v1/SurveyRuns(${id})/CreateOrUpdateSamplifyProject`, body);

  test("staff set the quota of a live run; it stays open below its completes and closes at them", async () => {
    const projectId = await approvedProject({ sampleSize: 40 });
    runId = (await fielding.createSurveys(tdb.db, projectId))[0]!.surveyRunId;
    await fielding.launchRun(tdb.db, runId, "http://ideally.test");
    expect((await panel.simulate(tdb.db, runId, 5)).totalCompletes).toBe(5);
    // Just above the completes: stays Live with the new quota, in the run and its survey.
    const six = await order("staff", runId, { targetCompletes: 6 });
    expect(six.status, JSON.stringify(six.body)).toBe(200);
    expect(six.body).toMatchObject({ id: runId, targetCompletes: 6, surveyStatusId: 50 });
    const [row] = await tdb.db<{ target: number; def: number }[]>`select target_completes as target, (definition->>'targetCompletes')::int as def from survey_runs where id = ${runId}`;
    expect(row).toEqual({ target: 6, def: 6 });
    // At the completes: the run has them, so it closes.
    const five = await order("staff", runId, { targetCompletes: 5 });
    expect(five.body).toMatchObject({ targetCompletes: 5, surveyStatusId: 90 });
    expect(five.body.closedAt).not.toBeNull();
  });

  test("a closed run's order cannot change: 409 naming the run", async () => {
    const res = await order("staff", runId, { targetCompletes: 50 });
    expect(res.status).toBe(409);
    expect(res.body.message).toBe(`Survey run ${runId} is Closed: its panel order cannot change`);
  });

  let draft: number;
  test("staff only (403), an unknown run (404), and a quota outside 1..100000 (400) change nothing", async () => {
    const projectId = await approvedProject();
    draft = (await fielding.createSurveys(tdb.db, projectId))[0]!.surveyRunId;
    const before = await tdb.db`select target_completes from survey_runs where id = ${draft}`;
    const admin = await order("acmeAdmin", draft, { targetCompletes: 10 });
    expect(admin.status).toBe(403);
    expect((await order("staff", 99999999, { targetCompletes: 10 })).status).toBe(404);
    for (const bad of [{ targetCompletes: 0 }, { targetCompletes: 100001 }, { targetCompletes: 2.5 }, {}, { targetCompletes: 10, extra: 1 }]) {
      const res = await order("staff", draft, bad);
      expect(res.status, JSON.stringify(bad)).toBe(400);
      expect(res.body.typename).toBe("ValidationError");
    }
    expect(await tdb.db`select target_completes from survey_runs where id = ${draft}`).toEqual(before);
    // The edges themselves are accepted on a Draft run.
    expect((await order("staff", draft, { targetCompletes: 1 })).body).toMatchObject({ targetCompletes: 1, surveyStatusId: 0 });
    expect((await order("staff", draft, { targetCompletes: 100000 })).body).toMatchObject({ targetCompletes: 100000, surveyStatusId: 0 });
  });

  // The other staff actions on a run, refused for the reason their rule names, and for nobody else.
  const act = (who: "staff" | "acmeAdmin", id: number, action: string, body?: unknown) => call(app, who, T, "POST", `/api/v1/SurveyRuns(${id})/${action}`, body);

  test("SyncDecipherSurvey: a Closed run's survey is not rebuilt (409); a Draft's is", async () => {
    const closed = await act("staff", runId, "SyncDecipherSurvey");
    expect(closed.status).toBe(409);
    expect(closed.body.message).toBe(`Survey run ${runId} is Closed: only a Draft, Testing or Live run can be synced`);
    expect((await act("staff", draft, "SyncDecipherSurvey")).body).toMatchObject({ id: draft, surveyStatusId: 0 });
    expect((await act("acmeAdmin", draft, "SyncDecipherSurvey")).status).toBe(403);
    expect((await act("staff", 99999999, "SyncDecipherSurvey")).status).toBe(404);
  });

  test("ProcessProjectData: a run still open is not processed (409, close it first)", async () => {
    const open = await act("staff", draft, "ProcessProjectData");
    expect(open.status).toBe(409);
    expect(open.body.message).toBe(`Survey run ${draft} is Draft: close it first (it closes at its quota, or ForceCloseSurvey)`);
    expect((await act("acmeAdmin", runId, "ProcessProjectData")).status).toBe(403);
    expect((await act("staff", 99999999, "ProcessProjectData")).status).toBe(404);
  });

  test("RemoveUuidsFromSurvey: ids it does not know are named, none removed; an empty list is a 400", async () => {
    const res = await act("staff", runId, "RemoveUuidsFromSurvey", { uuids: ["no-such-respondent"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ surveyRunId: runId, removed: 0, notFound: ["no-such-respondent"] });
    const empty = await act("staff", runId, "RemoveUuidsFromSurvey", { uuids: [] });
    expect(empty.status).toBe(400);
    expect(empty.body.typename).toBe("ValidationError");
    expect((await act("acmeAdmin", runId, "RemoveUuidsFromSurvey", { uuids: ["x"] })).status).toBe(403);
    expect((await act("staff", 99999999, "RemoveUuidsFromSurvey", { uuids: ["x"] })).status).toBe(404);
  });

  test("ReuploadTranslations: staff only, an existing run", async () => {
    expect((await act("staff", draft, "ReuploadTranslations")).body).toMatchObject({ id: draft });
    expect((await act("acmeAdmin", draft, "ReuploadTranslations")).status).toBe(403);
    expect((await act("staff", 99999999, "ReuploadTranslations")).status).toBe(404);
  });
});
