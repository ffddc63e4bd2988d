// The results functions' design-based statistics against R's survey package: the datasets of
// tests/fixtures/stats (sequential.csv, waves.csv) are loaded as projects (a market run per market,
// or per market and wave), and QualResults and WaveData must reproduce reference.json (written by
// reference.R with svydesign(ids=~respondent, strata=~market, weights=~w), svyby(covmat=TRUE),
// svycontrast, p.adjust "BH") to 1e-6, on the columnar path and on the SQL path.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { configureResultsCache } from "../../api/src/domains/results/columnar.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

const DIR = join(import.meta.dir, "../fixtures/stats");
const csv = (f: string) => parseCsvObjects(readFileSync(join(DIR, f), "utf8")).rows;
interface Ref {
  scenarios: {
    name: string;
    groups: { group: string; n: number; nEff: number; share: number; se: number; ci: number[] }[];
    comparisons: { a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; pBonferroni: number }[];
  }[];
}
const ref = JSON.parse(readFileSync(join(DIR, "reference.json"), "utf8")) as Ref;
const scenario = (name: string) => ref.scenarios.find((s) => s.name === name)!;
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6);

let tdb: TestDb;
let app: App;
const T = 1003;
let P: number;
let W: number;
const option = new Map<string, number>();
let reachOne: number;
let reachTwo: number;

async function session(sql: TestDb["db"], project: number, run: number, region: number, w: number) {
  const [{ id: ss }] = await sql<
    { id: number }[]
  >`insert into survey_sessions (client_id, survey_run_id, region_id, status, completed_at) values (${T}, ${run}, ${region}, 'Complete', '2026-01-05T10:00:00Z') returning id`;
  const [{ id: pss }] = await sql<{ id: number }[]>`
    insert into project_survey_sessions (client_id, project_id, survey_session_id, survey_run_id, region_id, weight, completed_at)
    values (${T}, ${project}, ${ss}, ${run}, ${region}, ${w}, '2026-01-05T10:00:00Z') returning id`;
  return { client_id: T, project_id: project, survey_run_id: run, survey_session_id: ss, project_survey_session_id: pss, region_id: region, is_customer_panel: false };
}

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const sql = tdb.db;
  // Sequential monadic: options A, B, C; one market run per market; Likability (standard question 5).
  [{ id: P }] = await sql<{ id: number }[]>`insert into projects (client_id, project_name, project_type_id, status_code, framework_id) values (${T}, 'R reference', 1, 900, 1000) returning id`;
  for (const [i, o] of ["A", "B", "C"].entries()) {
    const [{ id }] = await sql<{ id: number }[]>`insert into test_options (client_id, project_id, concept_text, sort_order) values (${T}, ${P}, ${o}, ${i + 1}) returning id`;
    option.set(o, id);
  }
  const [{ id: q5 }] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${T}, ${P}, 'Likability', 1) returning id`;
  const [{ id: pq5 }] = await sql<
    { id: number }[]
  >`insert into project_questions (client_id, project_id, question_id, standard_question_id, question_position_id) values (${T}, ${P}, ${q5}, 5, 5) returning id`;
  const [{ id: notSure }] = await sql<
    { id: number }[]
  >`insert into question_options (client_id, project_id, question_id, option_text, sort_order, is_not_sure) values (${T}, ${P}, ${q5}, 'Not sure', 5, true) returning id`;
  // The markets on regions of the reference data (the labels only name strata).
  const region: Record<string, number> = { GB: 1, DE: 2, FR: 15 };
  const runs = new Map<string, number>();
  for (const m of Object.keys(region)) {
    const [{ id }] = await sql<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, survey_status_id) values (${T}, ${region[m]}, '2026-01-05', 90) returning id`;
    runs.set(m, id);
  }
  // A market reach question (two options, no "none"): respondent k chooses One when k % 3 = 0, Two when 1, nothing when 2.
  const [{ id: qR }] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${T}, ${P}, 'Which would you buy?', 2) returning id`;
  [{ id: reachOne }] = await sql<{ id: number }[]>`insert into question_options (client_id, project_id, question_id, option_text, sort_order) values (${T}, ${P}, ${qR}, 'One', 1) returning id`;
  [{ id: reachTwo }] = await sql<{ id: number }[]>`insert into question_options (client_id, project_id, question_id, option_text, sort_order) values (${T}, ${P}, ${qR}, 'Two', 2) returning id`;
  const [{ id: pqR }] = await sql<{ id: number }[]>`insert into project_questions (client_id, project_id, question_id, question_position_id) values (${T}, ${P}, ${qR}, 3) returning id`;
  const [{ id: mr }] = await sql<
    { id: number }[]
  >`insert into project_market_reach (client_id, project_id, question_id, reach_depth, max_combination_size) values (${T}, ${P}, ${qR}, 1, 2) returning id`;
  await sql`insert into project_market_reach_options (client_id, project_market_reach_id, question_option_id, sort_order) values (${T}, ${mr}, ${reachOne}, 1), (${T}, ${mr}, ${reachTwo}, 2)`;
  const byResp = new Map<string, Record<string, string>[]>();
  for (const r of csv("sequential.csv")) (byResp.get(r.respondent!) ?? byResp.set(r.respondent!, []).get(r.respondent!)!).push(r);
  let k = 0;
  for (const rs of byResp.values()) {
    const first = rs[0]!;
    const base = await session(sql, P, runs.get(first.market!)!, region[first.market!]!, Number(first.w));
    const choice = [reachOne, reachTwo, null][k++ % 3];
    if (choice) await sql`insert into responses ${sql({ ...base, project_question_id: pqR, question_id: qR, question_option_id: choice })}`;
    await sql`insert into responses ${sql({ ...base, system_question_id: 45, system_question_option_id: first.gender === "F" ? 4500002 : 4500001 })}`;
    for (const r of rs) {
      // A blank value is "not sure": a response without an answer on the scale.
      await sql`insert into responses ${sql({ ...base, project_question_id: pq5, question_id: q5, standard_question_id: 5, test_option_id: option.get(r.option!)!, standard_answer_value: r.value === "" ? null : Number(r.value), question_option_id: r.value === "" ? notSure : null })}`;
    }
  }
  // A tracker: two waves, a run per market and wave (wave_number on its schedule).
  [{ id: W }] = await sql<{ id: number }[]>`insert into projects (client_id, project_name, project_type_id, status_code, framework_id) values (${T}, 'R waves', 1, 900, 1000) returning id`;
  const [{ id: wq }] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${T}, ${W}, 'Likability', 1) returning id`;
  const [{ id: wpq }] = await sql<
    { id: number }[]
  >`insert into project_questions (client_id, project_id, question_id, standard_question_id, question_position_id) values (${T}, ${W}, ${wq}, 5, 5) returning id`;
  const waveRuns = new Map<string, number>();
  for (const r of csv("waves.csv")) {
    if (!waveRuns.has(r.run!)) {
      const [{ id }] = await sql<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, survey_status_id) values (${T}, ${region[r.market!]}, '2026-01-05', 90) returning id`;
      await sql`insert into project_schedules (client_id, project_id, region_id, survey_run_id, schedule_date, wave_number) values (${T}, ${W}, ${region[r.market!]}, ${id}, '2026-01-05', ${Number(r.wave!.slice(1))})`;
      waveRuns.set(r.run!, id);
    }
    const base = await session(sql, W, waveRuns.get(r.run!)!, region[r.market!]!, Number(r.w));
    await sql`insert into responses ${sql({ ...base, project_question_id: wpq, question_id: wq, standard_question_id: 5, standard_answer_value: Number(r.value) })}`;
  }
}, 120_000);
afterAll(async () => {
  configureResultsCache(256 * 2 ** 20);
  await tdb.drop();
});

type Test = { testOptionId: number | null; diff: number; se: number; pValue: number; pAdjusted: number; significant: boolean; paired: boolean };
type M = { testOptionId: number; n: number; nEff: number; top2: number; se: number; ci: [number, number]; vsOthers: Test[] };

async function qual(filters: unknown, adjust?: string) {
  const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${P}&filters=${encodeURIComponent(JSON.stringify(filters))}${adjust ? `&adjust=${adjust}` : ""}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as { method: { adjust: string; adjustName: string; tests: number; variance: string }; measures: { standardQuestionId: number; results: M[] }[] };
}

function expectScenario(body: Awaited<ReturnType<typeof qual>>, name: string, adjust: "bh" | "bonferroni" = "bh") {
  const s = scenario(name);
  const results = body.measures.find((m) => m.standardQuestionId === 5)!.results;
  const of = (g: string) => results.find((r) => r.testOptionId === option.get(g))!;
  for (const e of s.groups) {
    const m = of(e.group);
    expect(m.n).toBe(e.n);
    close(m.nEff, e.nEff);
    close(m.top2, e.share);
    close(m.se, e.se);
    close(m.ci[0], e.ci[0]!);
    close(m.ci[1], e.ci[1]!);
  }
  for (const e of s.comparisons) {
    const t = of(e.a).vsOthers.find((o) => o.testOptionId === option.get(e.b))!;
    close(t.diff, e.diff);
    close(t.se, e.se);
    close(t.pValue, e.p);
    close(t.pAdjusted, adjust === "bh" ? e.pAdjusted : e.pBonferroni);
    expect(t.paired).toBe(true);
    // The same test seen from the other side.
    const back = of(e.b).vsOthers.find((o) => o.testOptionId === option.get(e.a))!;
    close(back.diff, -e.diff);
    close(back.pAdjusted, t.pAdjusted);
  }
}

for (const path of ["columnar", "sql"] as const) {
  describe(`QualResults reproduces R survey (${path} path)`, () => {
    beforeAll(() => configureResultsCache(path === "sql" ? 0 : 256 * 2 ** 20));
    test("all respondents: stratified by market run, paired options, Benjamini-Hochberg within the view", async () => {
      const body = await qual({});
      expectScenario(body, "sequential");
      expect(body.method).toMatchObject({ variance: "taylor-linearisation", adjust: "bh", adjustName: "Benjamini-Hochberg", tests: 3 });
    });
    test("Bonferroni when chosen", async () => {
      const body = await qual({}, "bonferroni");
      expectScenario(body, "sequential", "bonferroni");
      expect(body.method.adjustName).toBe("Bonferroni");
    });
    test("a filter (women) is a domain: every respondent stays in the design", async () => {
      expectScenario(await qual({ filterIds: [4500002] }), "sequential-female");
    });
  });
}

type Cell = { testOptionId: number; n: number; nEff: number; top2: number; se: number; ci: [number, number] };
function expectCells(results: Cell[], name: string, kish = true) {
  const s = scenario(name);
  for (const e of s.groups) {
    const m = results.find((r) => r.testOptionId === option.get(e.group))!;
    expect(m.n).toBe(e.n);
    if (kish) close(m.nEff, e.nEff);
    close(m.top2, e.share);
    close(m.se, e.se);
    close(m.ci[0], e.ci[0]!);
    close(m.ci[1], e.ci[1]!);
  }
}

describe("markets: the market-by-market table and the all-markets total", () => {
  test("each market's figures are its runs' (R: the design restricted to the market)", async () => {
    configureResultsCache(256 * 2 ** 20);
    const body = (await qual({})) as unknown as { markets: { regionId: number; measures: { standardQuestionId: number; results: Cell[] }[] }[] };
    const market: Record<number, string> = { 1: "GB", 2: "DE", 15: "FR" };
    expect(body.markets.map((m) => m.regionId)).toEqual([1, 2, 15]);
    for (const m of body.markets) expectCells(m.measures[0]!.results, `sequential-market-${market[m.regionId]}`);
  });
  test("all markets weighted by population, disclosed with the sources (R: weights rescaled per market)", async () => {
    const body = (await qual({})) as unknown as {
      allMarkets: { weighting: string; note: string | null; shares: { regionId: number; source: string | null; share: number }[]; measures: { results: Cell[] }[] };
    };
    expect(body.allMarkets.weighting).toBe("population");
    expect(body.allMarkets.note).toBe(null);
    expect(body.allMarkets.shares.every((x) => x.source !== null)).toBe(true);
    close(
      body.allMarkets.shares.reduce((a, x) => a + x.share, 0),
      1,
    );
    expectCells(body.allMarkets.measures[0]!.results, "sequential-population", false);
  });
  test("by sample when chosen: the total equals the sample-weighted measures", async () => {
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${P}&marketWeighting=sample`);
    expect(r.body.allMarkets.weighting).toBe("sample");
    expectCells(r.body.allMarkets.measures[0].results, "sequential");
  });
});

describe("ResponsesCount: a measure's respondents exclude 'not sure', as its top-2-box base does (finding 8)", () => {
  for (const path of ["columnar", "sql"] as const) {
    test(`${path} path`, async () => {
      configureResultsCache(path === "sql" ? 0 : 256 * 2 ** 20);
      const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${P})/ResponsesCount`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      // R's n per option: respondents who answered on the scale (146 rated each option; a few were not sure).
      for (const g of scenario("sequential").groups) {
        const row = r.body.value.find((x: { testOptionId: number }) => x.testOptionId === option.get(g.group));
        expect(row.count).toBe(146);
        expect(row.stdQuestions["5"]).toBe(g.n);
      }
    });
  }
});

describe("MarketReachResults: the base is every respondent (finding 8)", () => {
  test("respondents who chose nothing stay in the base: reach is not 100% by construction", async () => {
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/MarketReachResults?projectId=${P}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    // Independent: from the CSV, respondent k (in file order) chose One (k % 3 = 0), Two (1) or nothing (2).
    const w = [...new Map(csv("sequential.csv").map((x) => [x.respondent!, Number(x.w)])).values()];
    const total = w.reduce((a, b) => a + b, 0);
    const share = (m: number) => w.filter((_, k) => k % 3 === m).reduce((a, b) => a + b, 0) / total;
    expect(r.body.respondents).toBe(w.length);
    close(r.body.items[0].reach, share(0));
    close(r.body.items[1].reach, share(1));
    const pair = r.body.byK.find((x: { k: number }) => x.k === 2).sets[0];
    close(pair.reach, share(0) + share(1));
    expect(pair.reach).toBeLessThan(1);
  });
});

describe("WaveData: wave-on-wave significance (independent samples, market runs as strata)", () => {
  test("reproduces R's contrast of the two waves", async () => {
    configureResultsCache(256 * 2 ** 20);
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/WaveData?projectId=${W}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const s = scenario("waves");
    const [w1, w2] = r.body.waves as { wave: number; measures: { standardQuestionId: number; results: (M & { vsPreviousWave: (Test & { wave: number }) | null })[] }[] }[];
    const m1 = w1!.measures[0]!.results[0]!;
    const m2 = w2!.measures[0]!.results[0]!;
    close(m1.top2, s.groups[0]!.share);
    close(m1.se, s.groups[0]!.se);
    close(m2.top2, s.groups[1]!.share);
    close(m2.se, s.groups[1]!.se);
    expect(m1.vsPreviousWave).toBe(null);
    const c = s.comparisons[0]!;
    expect(m2.vsPreviousWave!.wave).toBe(1);
    close(m2.vsPreviousWave!.diff, -c.diff);
    close(m2.vsPreviousWave!.se, c.se);
    close(m2.vsPreviousWave!.pValue, c.p);
    expect(r.body.method).toMatchObject({ adjust: "bh", tests: 1 });
  });
});

describe("ExportExcel of a tracker: a Waves sheet with wave-on-wave significance", () => {
  test("each wave's top-2-box, SE and the change from the previous wave with its p, as R computes them", async () => {
    const res = await app.request(`/api/v1/Projects(${W})/ExportExcel`, { headers: { authorization: "Bearer acmeViewer", clientId: String(T) } });
    expect(res.status).toBe(200);
    const ExcelJS = (await import("exceljs")).default;
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load(await res.arrayBuffer());
    const ws = wb.getWorksheet("Waves");
    expect(ws, "a Waves sheet for a project with two waves").toBeDefined();
    const rows: unknown[][] = [];
    ws!.eachRow((row) => void rows.push((row.values as unknown[]).slice(1)));
    const head = rows.findIndex((r) => r[0] === "Wave");
    const cols = rows[head]! as string[];
    const body = rows.slice(head + 1).filter((r) => typeof r[0] === "number");
    const cell = (r: unknown[], name: string) => r[cols.indexOf(name)] as number;
    const s = scenario("waves");
    const c = s.comparisons[0]!;
    expect(body.map((r) => r[0])).toEqual([1, 2]);
    close(cell(body[0]!, "top-2-box"), s.groups[0]!.share);
    close(cell(body[0]!, "SE"), s.groups[0]!.se);
    close(cell(body[1]!, "top-2-box"), s.groups[1]!.share);
    close(cell(body[1]!, "SE"), s.groups[1]!.se);
    expect(body[0]![cols.indexOf("vs previous wave (pts)")] ?? null).toBe(null);
    close(cell(body[1]!, "vs previous wave (pts)") / 100, -c.diff);
    close(cell(body[1]!, "p"), c.p);
    // One test in the view's family: Benjamini-Hochberg leaves its p as it is.
    close(cell(body[1]!, "p adjusted"), c.pAdjusted);
    expect(String(body[1]![cols.indexOf("significance")])).toBe(c.pAdjusted < 0.05 ? (c.diff < 0 ? "significantly above wave 1" : "significantly below wave 1") : "not significant");
    expect(rows.flat().map(String).join("\n")).toContain("independent samples");
  });
});
