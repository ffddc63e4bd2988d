// Responses/CrossTab end to end: tests/fixtures/stats/xtab.csv loaded as a project (a market run per
// market; gender and age as demographics; a multi-choice channel question; a single-choice intent
// question; concepts A and B rated on Likability) must reproduce xtab-reference.json (R survey:
// svytotal + svycontrast, p.adjust BH) to 1e-6, letters included; and hostile input is refused with
// the error shape of SPEC 8 (typename, message, errors[path]).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

const DIR = join(import.meta.dir, "../fixtures/stats");
const data = parseCsvObjects(readFileSync(join(DIR, "xtab.csv"), "utf8")).rows;
interface RefCell {
  column: string;
  n: number;
  nEff: number;
  value: number;
  se: number;
  ci: number[];
}
interface Ref {
  scenarios: { name: string; columns: string[]; rows: { row: string; cells: RefCell[] }[]; tests: { row: string; a: string; b: string; diff: number; se: number; p: number; pAdjusted: number }[] }[];
}
const ref = JSON.parse(readFileSync(join(DIR, "xtab-reference.json"), "utf8")) as Ref;
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6);

let tdb: TestDb;
let app: App;
const T = 1003;
let P: number;
let pqChannel: number;
let pqIntent: number;
let pqText: number;
let segmentF: number;
let globexQuestion: number;
const option = new Map<string, number>();
const channelOption = new Map<string, number>();
const intentOption = new Map<string, number>();
const REGION: Record<string, number> = { GB: 1, DE: 2, FR: 15 };
const GENDER: Record<string, number> = { F: 4500002, M: 4500001 };
// R's age bands stand on three of the platform's (only the grouping matters).
const AGE: Record<string, number> = { "18-34": 5100002, "35-54": 5100003, "55+": 5100005 };

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const sql = tdb.db;
  [{ id: P }] = await sql<{ id: number }[]>`insert into projects (client_id, project_name, project_type_id, status_code, framework_id) values (${T}, 'Cross-tab reference', 1, 900, 1000) returning id`;
  for (const r of Object.values(REGION)) await sql`insert into projects_regions (client_id, project_id, region_id, sample_size) values (${T}, ${P}, ${r}, 100)`;
  for (const [i, o] of ["A", "B"].entries()) {
    const [{ id }] = await sql<{ id: number }[]>`insert into test_options (client_id, project_id, concept_text, sort_order) values (${T}, ${P}, ${o}, ${i + 1}) returning id`;
    option.set(o, id);
  }
  const question = async (text: string, type: number, options: string[], into: Map<string, number>, standard: number | null = null) => {
    const [{ id: qid }] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${T}, ${P}, ${text}, ${type}) returning id`;
    for (const [i, o] of options.entries()) {
      const [{ id }] = await sql<{ id: number }[]>`insert into question_options (client_id, project_id, question_id, option_text, sort_order) values (${T}, ${P}, ${qid}, ${o}, ${i + 1}) returning id`;
      into.set(o, id);
    }
    const [{ id: pq }] = await sql<
      { id: number }[]
    >`insert into project_questions (client_id, project_id, question_id, standard_question_id, question_position_id) values (${T}, ${P}, ${qid}, ${standard}, 3) returning id`;
    return { qid, pq };
  };
  const like = await question("Likability", 1, [], new Map(), 5);
  const ch = await question("Where do you shop?", 2, ["ch1", "ch2", "ch3"], channelOption);
  pqChannel = ch.pq;
  const it = await question("How likely are you to buy?", 1, ["1", "2", "3"], intentOption);
  pqIntent = it.pq;
  pqText = (await question("Anything else?", 3, [], new Map())).pq;
  const runs = new Map<string, number>();
  for (const m of Object.keys(REGION)) {
    const [{ id }] = await sql<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, survey_status_id) values (${T}, ${REGION[m]}, '2026-01-05', 90) returning id`;
    runs.set(m, id);
  }
  for (const r of data) {
    const region = REGION[r.market!]!;
    const [{ id: ss }] = await sql<
      { id: number }[]
    >`insert into survey_sessions (client_id, survey_run_id, region_id, status, completed_at) values (${T}, ${runs.get(r.market!)!}, ${region}, 'Complete', '2026-01-05T10:00:00Z') returning id`;
    const [{ id: pss }] = await sql<{ id: number }[]>`
      insert into project_survey_sessions (client_id, project_id, survey_session_id, survey_run_id, region_id, weight, completed_at)
      values (${T}, ${P}, ${ss}, ${runs.get(r.market!)!}, ${region}, ${Number(r.w)}, '2026-01-05T10:00:00Z') returning id`;
    const base = { client_id: T, project_id: P, survey_run_id: runs.get(r.market!)!, survey_session_id: ss, project_survey_session_id: pss, region_id: region, is_customer_panel: false };
    const rows: Record<string, unknown>[] = [
      { ...base, system_question_id: 45, system_question_option_id: GENDER[r.gender!] },
      { ...base, system_question_id: 51, system_question_option_id: AGE[r.age!] },
    ];
    for (const c of ["ch1", "ch2", "ch3"]) if (r[c] === "1") rows.push({ ...base, project_question_id: ch.pq, question_id: ch.qid, question_option_id: channelOption.get(c)! });
    if (r.intent !== "") rows.push({ ...base, project_question_id: it.pq, question_id: it.qid, question_option_id: intentOption.get(r.intent!)! });
    for (const o of ["A", "B"]) {
      const v = r[`v${o}`];
      if (v !== "") rows.push({ ...base, project_question_id: like.pq, question_id: like.qid, standard_question_id: 5, test_option_id: option.get(o)!, standard_answer_value: Number(v) });
    }
    const keys = ["system_question_id", "system_question_option_id", "project_question_id", "question_id", "question_option_id", "standard_question_id", "test_option_id", "standard_answer_value"];
    await sql`insert into responses ${sql(rows.map((x) => ({ ...Object.fromEntries(keys.map((k) => [k, null])), ...x })))}`;
  }
  [{ id: segmentF }] = await sql<
    { id: number }[]
  >`insert into segments (client_id, project_id, name, responses_filters) values (${T}, ${P}, 'Women', ${sql.json({ filterIds: [4500002] })}) returning id`;
  // Another tenant's project and question.
  const [{ id: G }] = await sql<
    { id: number }[]
  >`insert into projects (client_id, project_name, project_type_id, status_code, framework_id) values (2001, 'Globex results', 1, 900, 1000) returning id`;
  const [{ id: gq }] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (2001, ${G}, 'Secret', 1) returning id`;
  [{ id: globexQuestion }] = await sql<{ id: number }[]>`insert into project_questions (client_id, project_id, question_id, question_position_id) values (2001, ${G}, ${gq}, 3) returning id`;
}, 120_000);
afterAll(async () => {
  await tdb.drop();
});

type Body = {
  columns: { key: string; label: string; letter: string | null; variable: string | null }[];
  rows: { key: string; label: string; cells: { n: number; nEff: number; value: number; se: number; ci: [number, number]; smallBase: boolean; higherThan: string[] }[] }[];
  method: { tests: number; adjust: string; comparisons: string };
};
const url = (q: Record<string, string>) => `/api/v1/Responses/CrossTab?${new URLSearchParams({ projectId: String(P), ...q })}`;
async function xtab(q: Record<string, string>) {
  const r = await call(app, "acmeViewer", T, "GET", url(q));
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as Body;
}

/** Compares a response to an R scenario; `colOf` maps R's column names to the response's column keys. */
function expectScenario(body: Body, name: string, rowKey: (r: string) => string, colOf: (c: string) => string) {
  const s = ref.scenarios.find((x) => x.name === name)!;
  const col = (c: string) => body.columns.findIndex((x) => x.key === colOf(c));
  const expected = new Map<string, string[]>();
  for (const row of s.rows) {
    const got = body.rows.find((r) => r.key === rowKey(row.row))!;
    for (const e of row.cells) {
      const c = got.cells[col(e.column)]!;
      expect(c.n).toBe(e.n);
      close(c.nEff, e.nEff);
      close(c.value, e.value);
      close(c.se, e.se);
      close(c.ci[0], e.ci[0]!);
      close(c.ci[1], e.ci[1]!);
      expected.set(`${row.row}|${e.column}`, []);
    }
  }
  for (const t of s.tests) {
    if (!(t.pAdjusted < 0.05)) continue;
    const [hi, lo] = t.diff > 0 ? [t.a, t.b] : [t.b, t.a];
    expected.get(`${t.row}|${hi}`)!.push(body.columns[col(lo)]!.letter!);
  }
  let letters = 0;
  for (const [k, want] of expected) {
    const [r, c] = k.split("|") as [string, string];
    const got = body.rows.find((x) => x.key === rowKey(r))!.cells[col(c)]!.higherThan;
    expect([...got].sort()).toEqual(want.sort());
    letters += want.length;
  }
  expect(letters).toBeGreaterThan(0);
  expect(body.method.tests).toBe(s.tests.length);
}

describe("CrossTab reproduces R survey", () => {
  test("Likability (top-2-box per concept) by gender and age", async () => {
    const body = await xtab({ rows: "measure:5", banner: "demographic:45,demographic:51" });
    expect(body.columns[0]).toMatchObject({ key: "total", letter: null });
    // Letters run across the banner: gender's columns, then age's.
    expect(body.columns.slice(1).map((c) => c.letter)).toEqual(["A", "B", "C", "D", "E"]);
    const genderLabel: Record<string, string> = { F: "Female", M: "Male" };
    const ageLabel: Record<string, string> = { "18-34": "25-34", "35-54": "35-44", "55+": "55-64" };
    expectScenario(
      body,
      "measure-by-gender-age",
      (r) => `option:${option.get(r)}`,
      (c) => {
        if (c === "Total") return "total";
        const [v, l] = c.split(":") as [string, string];
        return v === "gender" ? `demographic:45:${genderLabel[l]}` : `demographic:51:${ageLabel[l]}`;
      },
    );
  });
  test("intent by a multi-choice question (overlapping columns) and the market", async () => {
    const body = await xtab({ rows: `question:${pqIntent}`, banner: `question:${pqChannel},market` });
    expectScenario(
      body,
      "question-by-channel-market",
      (r) => `option:${intentOption.get(r)}`,
      (c) => {
        if (c === "Total") return "total";
        const [v, l] = c.split(":") as [string, string];
        return v === "channel" ? `question:${pqChannel}:${channelOption.get(l)}` : `market:${REGION[l]}`;
      },
    );
  });
  test("a saved filter set is a column; the filters narrow every cell", async () => {
    const body = await xtab({ rows: "measure:5", banner: `segment:${segmentF}`, filters: JSON.stringify({ regionIds: [1] }) });
    expect(body.columns.map((c) => c.label)).toEqual(["Total", "Women"]);
    const gbWomen = data.filter((r) => r.market === "GB" && r.gender === "F" && r.vA !== "").length;
    const gb = data.filter((r) => r.market === "GB" && r.vA !== "").length;
    const a = body.rows.find((r) => r.key === `option:${option.get("A")}`)!;
    expect(a.cells.map((c) => c.n)).toEqual([gb, gbWomen]);
    // One column in the variable: nothing to compare.
    expect(body.method.tests).toBe(0);
  });
  test("the market columns are the filter's markets", async () => {
    const body = await xtab({ rows: "measure:5", banner: "market", filters: JSON.stringify({ regionIds: [1, 15] }) });
    expect(body.columns.map((c) => c.key)).toEqual(["total", "market:1", "market:15"]);
  });
});

describe("CrossTab refuses hostile input with the error shape", () => {
  async function refused(q: Record<string, string>, status: number, path?: string, who: "acmeViewer" | "globexAdmin" = "acmeViewer", client = T) {
    const r = await call(app, who, client, "GET", url(q));
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    expect(typeof r.body.typename).toBe("string");
    expect(typeof r.body.message).toBe("string");
    if (path) expect(r.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    return r.body;
  }
  test("unknown or foreign question ids, unknown demographics and filter sets are 400, naming the field", async () => {
    await refused({ rows: "question:999999", banner: "market" }, 400, "rows");
    await refused({ rows: "measure:5", banner: "question:999999" }, 400, "banner.0");
    await refused({ rows: "measure:5", banner: `market,question:${globexQuestion}` }, 400, "banner.1");
    await refused({ rows: `question:${globexQuestion}`, banner: "market" }, 400, "rows");
    await refused({ rows: "measure:5", banner: "demographic:999999" }, 400, "banner.0");
    await refused({ rows: "measure:5", banner: "segment:999999" }, 400, "banner");
    await refused({ rows: "measure:999", banner: "market" }, 400, "rows");
    // An open question has no options to be rows or columns.
    await refused({ rows: `question:${pqText}`, banner: "market" }, 400, "rows");
    await refused({ rows: "measure:5", banner: `question:${pqText}` }, 400, "banner.0");
    // A standard measure is asked for as a measure.
    await refused(
      { rows: `question:${(await tdb.db<{ id: number }[]>`select id from project_questions where project_id = ${P} and standard_question_id = 5`)[0]!.id}`, banner: "market" },
      400,
      "rows",
    );
  });
  test("another tenant cannot read the project: 404, as if it did not exist", async () => {
    await refused({ rows: "measure:5", banner: "market" }, 404, undefined, "globexAdmin", 2001);
  });
  test("malformed specs and injection attempts are 400", async () => {
    await refused({ rows: "measure:5;drop table responses", banner: "market" }, 400);
    await refused({ rows: "measure:5", banner: "market;select 1" }, 400, "banner.0");
    await refused({ rows: "measure:5", banner: "" }, 400, "banner");
    await refused({ rows: "measure:5", banner: "market,market" }, 400, "banner.1");
    await refused({ rows: "measure:5", banner: "market", filters: "{not json" }, 400);
  });
  test("huge banners are refused before anything is read: 8 variables pass, 9 do not; 60 columns pass, 61 do not", async () => {
    const demos = [45, 51, 37, 60, 43];
    const eight = [...demos.map((d) => `demographic:${d}`), "market", `question:${pqChannel}`, `question:${pqIntent}`];
    expect((await xtab({ rows: "measure:5", banner: eight.join(",") })).columns.length).toBeGreaterThan(8);
    await refused({ rows: "measure:5", banner: [...eight, `segment:${segmentF}`].join(",") }, 400, "banner");
    // 60 filter sets are one variable of 60 columns; 61 are too many.
    const segs = await tdb.db<{ id: number }[]>`
      insert into segments (client_id, project_id, name, responses_filters) select ${T}, ${P}, 'S' || g, '{}' from generate_series(1, 60) g returning id`;
    const sixty = segs.map((s) => `segment:${s.id}`);
    expect((await xtab({ rows: "measure:5", banner: sixty.join(",") })).columns.length).toBe(61);
    await refused({ rows: "measure:5", banner: [...sixty, `segment:${segmentF}`].join(",") }, 400, "banner");
    // A banner string beyond 2000 characters never reaches the parser.
    await refused({ rows: "measure:5", banner: Array.from({ length: 300 }, (_, i) => `segment:${1000000 + i}`).join(",") }, 400);
  });
});

describe("QualResults: market by market and the all-markets total", () => {
  type MarketCell = { testOptionId: number; n: number; top2: number; se: number; vsMarkets: { regionId: number; diff: number; se: number; pValue: number; pAdjusted: number; significant: boolean }[] };
  type Qual = {
    total: string;
    markets: { regionId: number; measures: { standardQuestionId: number; results: MarketCell[] }[] }[];
    marketsMethod: { tests: number; adjust: string };
    allMarkets: { weighting: string; shares: { regionId: number; share: number }[] };
    measures: { standardQuestionId: number; results: { testOptionId: number; n: number; top2: number; vsOthers: unknown[] }[] }[];
  };
  const qual = async (q: string) => {
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${P}${q}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as Qual;
  };
  test("each market against the others reproduces R (independent samples, BH over the table)", async () => {
    const body = await qual("");
    const s = ref.scenarios.find((x) => x.name === "measure-by-market")!;
    expect(body.marketsMethod.tests).toBe(s.tests.length);
    const cell = (market: string, o: string) => body.markets.find((m) => m.regionId === REGION[market])!.measures[0]!.results.find((r) => r.testOptionId === option.get(o))!;
    for (const row of s.rows)
      for (const e of row.cells.slice(1)) {
        const c = cell(e.column.split(":")[1]!, row.row);
        expect(c.n).toBe(e.n);
        close(c.top2, e.value);
        close(c.se, e.se);
      }
    let significant = 0;
    for (const t of s.tests) {
      const [a, b] = [t.a.split(":")[1]!, t.b.split(":")[1]!];
      const ab = cell(a, t.row).vsMarkets.find((x) => x.regionId === REGION[b])!;
      const ba = cell(b, t.row).vsMarkets.find((x) => x.regionId === REGION[a])!;
      close(ab.diff, t.diff);
      close(ba.diff, -t.diff);
      close(ab.se, t.se);
      close(ab.pValue, t.p);
      close(ab.pAdjusted, t.pAdjusted);
      expect(ab.significant).toBe(t.pAdjusted < 0.05);
      expect(ba.significant).toBe(ab.significant);
      if (ab.significant) significant++;
    }
    expect(significant).toBeGreaterThan(0);
  });
  test("total=markets: the measures, with their tests, are the population-weighted total", async () => {
    const { MARKET_POPULATION } = await import("@ideally/analytics/populations");
    const body = await qual("&total=markets");
    expect(body.total).toBe("markets");
    expect(body.allMarkets.weighting).toBe("population");
    // By hand: each market's weights times its population share over its weighted sample share.
    const W = data.reduce((a, r) => a + Number(r.w), 0);
    const P = Object.values(REGION).reduce((a, r) => a + MARKET_POPULATION[r]!.population, 0);
    const f = (m: string) => MARKET_POPULATION[REGION[m]!]!.population / P / (data.filter((r) => r.market === m).reduce((a, r) => a + Number(r.w), 0) / W);
    for (const o of ["A", "B"]) {
      const rated = data.filter((r) => r[`v${o}`] !== "");
      const num = rated.reduce((a, r) => a + f(r.market!) * Number(r.w) * (Number(r[`v${o}`]) <= 2 ? 1 : 0), 0);
      const den = rated.reduce((a, r) => a + f(r.market!) * Number(r.w), 0);
      const m = body.measures[0]!.results.find((r) => r.testOptionId === option.get(o))!;
      close(m.top2, num / den);
      expect(m.n).toBe(rated.length);
      expect(m.vsOthers.length).toBe(1);
    }
    // The default total is the sample-weighted one, and differs.
    const sample = await qual("");
    expect(sample.total).toBe("sample");
    const a = option.get("A");
    expect(Math.abs(sample.measures[0]!.results.find((r) => r.testOptionId === a)!.top2 - body.measures[0]!.results.find((r) => r.testOptionId === a)!.top2)).toBeGreaterThan(1e-4);
  });
});

describe("ExportExcel: the Cross-tabs sheet", () => {
  test("holds CrossTab's figures and letters for the same filters (Likability by gender, age and market)", async () => {
    const filters = JSON.stringify({ regionIds: [1, 2] });
    const res = await app.request(`/api/v1/Projects(${P})/ExportExcel?filters=${encodeURIComponent(filters)}`, { headers: { authorization: "Bearer acmeViewer", clientId: String(T) } });
    expect(res.status).toBe(200);
    const ExcelJS = (await import("exceljs")).default;
    const wb = new ExcelJS.Workbook();
    await wb.xlsx.load((await res.arrayBuffer()) as never);
    const ws = wb.getWorksheet("Cross-tabs")!;
    const api = await xtab({ rows: "measure:5", banner: "demographic:45,demographic:51,market", filters });
    const rows = Array.from(ws.getSheetValues(), (r) => (Array.isArray(r) ? Array.from(r.slice(1)) : []));
    const head = rows.find((r) => r[1] === "Total")!;
    expect(head[0]).toBe("Test option");
    expect(head.slice(1)).toEqual(api.columns.map((c) => (c.letter ? `${c.label} (${c.letter})` : c.label)));
    let letters = 0;
    for (const r of api.rows) {
      const at = rows.findIndex((x) => x[0] === r.label);
      expect(rows[at]!.slice(1)).toEqual(r.cells.map((c) => c.value ?? undefined));
      expect(rows[at + 1]![0]).toBe("   significantly above");
      expect(rows[at + 1]!.slice(1).map((v) => v ?? "")).toEqual(r.cells.map((c) => c.higherThan.join("")));
      expect(rows[at + 2]!.slice(1).map(String)).toEqual(r.cells.map((c) => (c.smallBase ? `${c.n} (low base)` : String(c.n))));
      letters += r.cells.reduce((a, c) => a + c.higherThan.length, 0);
    }
    expect(letters).toBeGreaterThan(0);
    expect(rows.map((r) => String(r[0] ?? "")).join("\n")).toContain("Benjamini-Hochberg adjustment over the table's");
  });
});

describe("Scorecard under All markets", () => {
  test("total=markets: the scorecard's figures are QualResults' all-markets total", async () => {
    const q = (await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${P}&total=markets`)).body as {
      measures: { standardQuestionId: number; results: { testOptionId: number; top2: number }[] }[];
    };
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/Scorecard?projectId=${P}&total=markets`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const sq = r.body.standard.standardQuestionId as number;
    const rows = r.body.rows as { testOptionId: number; top2: number }[];
    expect(rows.length).toBe(2);
    for (const row of rows) close(row.top2, q.measures.find((m) => m.standardQuestionId === sq)!.results.find((x) => x.testOptionId === row.testOptionId)!.top2);
  });
});

describe("total=markets beyond the measures: questions, demographics and the cross-tab", () => {
  // By hand from the fixture: each market's population share (analytics/populations.ts, the published
  // figures), its weighted sample share, and the weighted share of an answer within each market.
  const byHand = async () => {
    const { MARKET_POPULATION } = await import("@ideally/analytics/populations");
    const markets = Object.keys(REGION);
    const Ptot = markets.reduce((a, m) => a + MARKET_POPULATION[REGION[m]!]!.population, 0);
    const pi = (m: string) => MARKET_POPULATION[REGION[m]!]!.population / Ptot;
    const W = data.reduce((a, r) => a + Number(r.w), 0);
    const f = (m: string) => pi(m) / (data.filter((r) => r.market === m).reduce((a, r) => a + Number(r.w), 0) / W);
    /** Weighted share of `yes` among `base`, each respondent's weight times g(market). */
    const share = (base: (r: (typeof data)[number]) => boolean, yes: (r: (typeof data)[number]) => boolean, g: (m: string) => number = () => 1) => {
      const b = data.filter(base);
      return b.reduce((a, r) => a + g(r.market!) * Number(r.w) * (yes(r) ? 1 : 0), 0) / b.reduce((a, r) => a + g(r.market!) * Number(r.w), 0);
    };
    return { markets, pi, f, share };
  };

  test("a demographic: the all-markets share is the population-weighted average of the markets' shares, not the sample-weighted one", async () => {
    const h = await byHand();
    const female = (r: (typeof data)[number]) => r.gender === "F";
    // Every respondent answers gender: the reweighted share is Σ π_m · share_m.
    const expected = h.markets.reduce((a, m) => a + h.pi(m) * h.share((r) => r.market === m, female), 0);
    const sampleWeighted = h.share(() => true, female);
    expect(Math.abs(expected - sampleWeighted)).toBeGreaterThan(1e-3);
    const get = async (q: string) => {
      const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/DemographicsResults?projectId=${P}${q}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body as { total: string; questions: { systemQuestionId: number; options: { systemQuestionOptionId: number; share: number; count: number }[] }[] };
    };
    const pick = (b: Awaited<ReturnType<typeof get>>) => b.questions.find((x) => x.systemQuestionId === 45)!.options.find((o) => o.systemQuestionOptionId === GENDER.F)!;
    const markets = await get("&total=markets");
    expect(markets.total).toBe("markets");
    close(pick(markets).share, expected);
    expect(pick(markets).count).toBe(data.filter(female).length);
    const sample = await get("");
    expect(sample.total).toBe("sample");
    close(pick(sample).share, sampleWeighted);
  });

  test("a question: each answer's all-markets share reweights every market to its population share", async () => {
    const h = await byHand();
    const answered = (r: (typeof data)[number]) => r.intent !== "";
    const get = async (q: string) => {
      const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${P}&projectQuestionId=${pqIntent}${q}`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return (r.body as { question: { total: string; results: { testOptionId: number | null; n: number; options: { questionOptionId: number; share: number }[] }[] } }).question;
    };
    const markets = await get("&total=markets");
    const sample = await get("");
    expect(markets.total).toBe("markets");
    expect(sample.total).toBe("sample");
    // Not every respondent answered: the ratio of the reweighted sums, as QualResults' top-2-box.
    for (const o of ["1", "2", "3"]) {
      const yes = (r: (typeof data)[number]) => r.intent === o;
      close(markets.results[0]!.options.find((x) => x.questionOptionId === intentOption.get(o))!.share, h.share(answered, yes, h.f));
      close(sample.results[0]!.options.find((x) => x.questionOptionId === intentOption.get(o))!.share, h.share(answered, yes));
    }
    expect(markets.results[0]!.n).toBe(data.filter(answered).length);
    // The two totals differ on this fixture (its markets' samples are not their populations' shares).
    const one = intentOption.get("1")!;
    expect(Math.abs(markets.results[0]!.options.find((x) => x.questionOptionId === one)!.share - sample.results[0]!.options.find((x) => x.questionOptionId === one)!.share)).toBeGreaterThan(1e-3);
  });

  test("the cross-tab: its Total and every column reweight each market to its population share", async () => {
    const h = await byHand();
    const markets = await xtab({ rows: "measure:5", banner: "demographic:45", total: "markets" });
    const sample = await xtab({ rows: "measure:5", banner: "demographic:45" });
    const colF = markets.columns.findIndex((c) => c.key === "demographic:45:Female");
    expect(colF).toBeGreaterThan(0);
    for (const o of ["A", "B"]) {
      const rated = (r: (typeof data)[number]) => r[`v${o}`] !== "";
      const top2 = (r: (typeof data)[number]) => Number(r[`v${o}`]) <= 2;
      const row = (b: Body) => b.rows.find((r) => r.key === `option:${option.get(o)}`)!;
      close(row(markets).cells[0]!.value, h.share(rated, top2, h.f));
      close(row(sample).cells[0]!.value, h.share(rated, top2));
      expect(Math.abs(row(markets).cells[0]!.value - row(sample).cells[0]!.value)).toBeGreaterThan(1e-4);
      expect(row(markets).cells[0]!.n).toBe(data.filter(rated).length);
      close(
        row(markets).cells[colF]!.value,
        h.share((r) => rated(r) && r.gender === "F", top2, h.f),
      );
    }
  });
});
