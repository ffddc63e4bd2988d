// Respondent quality before weighting (issue 21): the rules at their edges (speeders under a third
// of the run's median, straight-lining across at least 6 scale items, gibberish and pasted open
// answers), and the simulated panel's poor respondents flagged, excluded (replaced while the quota
// is open, never weighted) and counted per reason in the run's report, through the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { answerKey, type SurveyDefinition } from "../../api/src/domains/fielding/engine.ts";
import { median, qualityFlags, runMedian } from "../../api/src/domains/fielding/quality.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
let projectId: number;
let runId: number;
let def: SurveyDefinition;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Quality", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  projectId = created.body.id as number;
  for (const conceptText of ["Oat milk barista blend", "Sparkling yerba mate"]) {
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId, conceptText })).status).toBe(201);
  }
  await tdb.db`update projects_regions set sample_size = 200 where project_id = ${projectId}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${projectId})/SuperApprove`)).body.statusCode).toBe(300);
  const [run] = await fielding.createSurveys(tdb.db, projectId);
  runId = run!.surveyRunId;
  def = (await tdb.db<{ d: SurveyDefinition }[]>`select definition as d from survey_runs where id = ${runId}`)[0]!.d;
}, 120_000);
afterAll(async () => {
  await tdb.drop();
});

describe("the rules at their edges", () => {
  const order = () => def.testOptions.map((t) => t.id);
  /** Scale answers down the grids: `values` per item in turn (1 Top .. 4 Bottom). */
  function grid(values: number[]): Record<string, number> {
    const out: Record<string, number> = {};
    let i = 0;
    for (const t of order()) {
      for (const q of def.loop) {
        if (q.type !== "single" || !q.options.some((o) => o.standardAnswerValue !== null)) continue;
        const v = values[i++ % values.length]!;
        out[answerKey(q, t)] = q.options.find((o) => o.standardAnswerValue === v)!.id;
      }
    }
    return out;
  }
  const base = { testOptionOrder: [] as number[], lengthSeconds: 300, medianSeconds: 300, duplicateDevice: false };

  test("a speeder takes under a third of the run's median: 99.9 s of 300 flagged, 100 s and 100.1 s not", () => {
    const answers = grid([1, 2, 3]);
    const f = (len: number) => qualityFlags(def, { ...base, answers, testOptionOrder: order(), lengthSeconds: len });
    expect(f(99.9)).toContain("speeder");
    expect(f(100)).not.toContain("speeder");
    expect(f(100.1)).not.toContain("speeder");
  });

  test("the median needs 10 completes", () => {
    expect(runMedian([10, 20, 30, 40, 50, 60, 70, 80, 90])).toBeNull();
    expect(runMedian([10, 20, 30, 40, 50, 60, 70, 80, 90, 100])).toBe(55);
  });

  test("the median of lengths in the order they arrive (unsorted), worked by hand", () => {
    // Sorted by hand: 40 55 60 75 90 120 180 200 300 600 1200 (11 lengths): the 6th is 120.
    expect(runMedian([300, 60, 1200, 90, 40, 600, 120, 75, 200, 55, 180])).toBe(120);
    // Sorted by hand: 45 60 90 150 240 | 250 300 310 400 900 (10 lengths): (240 + 250) / 2 = 245.
    // Sorting as text (the default sort) would give 150 240 250 300 310 400 45 60 90 900: (310 + 400) / 2.
    expect(runMedian([900, 45, 310, 240, 60, 400, 150, 250, 90, 300])).toBe(245);
    // The middle two as they arrive, unsorted, would be (60 + 400) / 2 = 230.
    const lengths = [900, 45, 310, 240, 60, 400, 150, 250, 90, 300];
    runMedian(lengths);
    expect(lengths, "the run's lengths are left in their order").toEqual([900, 45, 310, 240, 60, 400, 150, 250, 90, 300]);
    expect(median([7, 3, 5]), "three lengths").toBe(5);
    expect(median([8, 2]), "two lengths").toBe(5);
    expect(median([]), "none").toBeNull();
  });

  test("straight-lining: one answer on every scale item (at least 5) is flagged; one different answer is not", () => {
    const items = Object.keys(grid([1])).length;
    expect(items, "the two concepts' grids have at least 6 items").toBeGreaterThanOrEqual(6);
    expect(qualityFlags(def, { ...base, answers: grid([2]), testOptionOrder: order() })).toContain("straightliner");
    const varied = grid(Array.from({ length: items }, (_, i) => (i === items - 1 ? 3 : 2)));
    expect(qualityFlags(def, { ...base, answers: varied, testOptionOrder: order() })).not.toContain("straightliner");
    // 5 items, a single concept's grid (issue 36: at 6 a one-concept test could never flag one): judged.
    const five = Object.fromEntries(Object.entries(grid([2])).slice(0, 5));
    expect(qualityFlags(def, { ...base, answers: five, testOptionOrder: order() })).toContain("straightliner");
    // 4 items: too few to tell.
    const four = Object.fromEntries(Object.entries(grid([2])).slice(0, 4));
    expect(qualityFlags(def, { ...base, answers: four, testOptionOrder: order() })).not.toContain("straightliner");
  });

  test("a duplicate device is flagged", () => {
    expect(qualityFlags(def, { ...base, answers: grid([1, 2]), testOptionOrder: order(), duplicateDevice: true })).toEqual(["duplicate"]);
  });

  test("gibberish and pasted open answers (the text check)", () => {
    const texts = [...def.screener, ...def.loop, ...def.followUps].filter((q) => q.type === "text");
    expect(texts.length, "the framework asks open questions").toBeGreaterThan(0);
    const t0 = order()[0]!;
    const keyOf = (i: number) => answerKey(texts[i]!, def.loop.includes(texts[i]!) ? t0 : null);
    const gib = qualityFlags(def, { ...base, answers: { ...grid([1, 2]), [keyOf(0)]: "asdf asdf" }, testOptionOrder: [t0] });
    expect(gib).toContain("gibberish");
    const ok = qualityFlags(def, { ...base, answers: { ...grid([1, 2]), [keyOf(0)]: "Tastes fresh and the price seems fair" }, testOptionOrder: [t0] });
    expect(ok).toEqual([]);
  });
});

test("the simulated panel's poor respondents are flagged, excluded, replaced and counted in the report", async () => {
  await fielding.launchRun(tdb.db, runId, "http://ideally.test");
  let closed = false;
  for (let i = 0; i < 10 && !closed; i++) closed = (await panel.simulate(tdb.db, runId, 100)).closed;
  expect(closed, "the quota is met despite the exclusions").toBe(true);
  const [db] = await tdb.db<{ complete: number; flagged: number; flaggedComplete: number; speeder: number; straightliner: number; gibberish: number; duplicate: number; attention: number }[]>`
    select count(*) filter (where status = 'Complete')::int as complete,
           count(*) filter (where cardinality(quality_flags) > 0)::int as flagged,
           count(*) filter (where status = 'Complete' and cardinality(quality_flags) > 0)::int as "flaggedComplete",
           count(*) filter (where 'speeder' = any(quality_flags))::int as speeder,
           count(*) filter (where 'straightliner' = any(quality_flags))::int as straightliner,
           count(*) filter (where 'gibberish' = any(quality_flags))::int as gibberish,
           count(*) filter (where 'duplicate' = any(quality_flags))::int as duplicate,
           count(*) filter (where 'attention' = any(quality_flags))::int as attention
    from survey_sessions where survey_run_id = ${runId}`;
  expect(db!.complete).toBe(200);
  expect(db!.flaggedComplete, "no flagged respondent counts as a complete").toBe(0);
  for (const k of ["speeder", "straightliner", "gibberish", "duplicate", "attention"] as const) expect(db![k], `some ${k}s in 200 completes`).toBeGreaterThan(0);
  const share = db!.flagged / (db!.complete + db!.flagged);
  expect(share, "a realistic share of poor respondents (5-30%)").toBeGreaterThan(0.05);
  expect(share).toBeLessThan(0.3);
  const processed = await fielding.processRun(tdb.db, runId);
  expect(processed.weighting!.n, "only valid completes are weighted").toBe(200);
  const [{ bad }] = await tdb.db<{ bad: number }[]>`
    select count(*)::int as bad from project_survey_sessions p join survey_sessions s on s.id = p.survey_session_id
    where p.survey_run_id = ${runId} and cardinality(s.quality_flags) > 0`;
  expect(bad, "no flagged respondent in the results").toBe(0);

  const staff = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${runId})/QualityReport`);
  expect(staff.status).toBe(200);
  expect(staff.body.completes).toBe(200);
  expect(staff.body.excluded).toBe(db!.flagged);
  expect(staff.body.byReason.speeder).toBe(db!.speeder);
  expect(staff.body.byReason.straightliner).toBe(db!.straightliner);
  expect(staff.body.byReason.attention).toBe(db!.attention);
  const team = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/QualityReport`);
  expect(team.status).toBe(200);
  expect(team.body.value[0].byReason.duplicate).toBe(db!.duplicate);
  expect((await call(app, "acmeViewer", T, "GET", `/api/v1/SurveyRuns(${runId})/QualityReport`)).status, "the run's report is staff's").toBe(403);
  const other = await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${projectId})/QualityReport`);
  expect([other.status, other.body], "another client's project").toEqual([404, { typename: "NotFound", message: `No project ${projectId}` }]);
}, 120_000);
