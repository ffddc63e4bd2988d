// The results functions' fast path (domains/results/columnar.ts) against the SQL it replaces
// (results.sql.ts), on a random project (seeded: weights, regions, runs, panels, days with and
// without a time of completion, launch weeks, removed respondents, respondents who saw no test
// option, standard answers without a value, single and multiple choices, segment members) and on
// random response filters (fast-check, which prints its seed and the shrunk filter on failure).
// Then: the cache follows every change of the data, and never answers a caller who cannot read
// the project.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import fc from "fast-check";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import type { Tx } from "../../api/src/db/client.ts";
import { resolveFilter, type ResponseFilter } from "../../api/src/domains/results/filters.ts";
import { columnarAggregates, sqlAggregates } from "../../api/src/domains/results/results.service.ts";
import { clearResultsCache, configureResultsCache, resultsCacheStats } from "../../api/src/domains/results/columnar.ts";
import * as q from "../../api/src/domains/results/results.sql.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
let P: number;
const tos: number[] = [];
const runs: number[] = [];
let choices: number[] = [];
let qSingle: number;
let qMulti: number;
let pqSingle: number;
let pqMulti: number;
const SYSTEM = [4500001, 4500002, 4500003, 5100001, 5100002, 5100003, 5100004, 5100005, 5100006];
const SEGMENTS = [1001, 1002];

// mulberry32: the dataset is the same on every run.
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = seed;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const sql = tdb.db;
  const rand = rng(20261124);
  const pick = <X>(xs: X[]) => xs[Math.floor(rand() * xs.length)]!;
  [{ id: P }] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id) values (${T}, 'Columnar', 1, 900, 1000) returning id`;
  for (const name of ["A", "B", "C"]) {
    const [{ id }] = await sql<{ id: number }[]>`insert into test_options (client_id, project_id, concept_text, sort_order) values (${T}, ${P}, ${name}, ${tos.length + 1}) returning id`;
    tos.push(id);
  }
  const question = async (text: string, type: number, std: number | null, position: number) => {
    const [{ id: qid }] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${T}, ${P}, ${text}, ${type}) returning id`;
    const [{ id: pq }] = await sql<{ id: number }[]>`
      insert into project_questions (client_id, project_id, question_id, standard_question_id, question_position_id) values (${T}, ${P}, ${qid}, ${std}, ${position}) returning id`;
    return { qid, pq };
  };
  const std = { 5: await question("Likability", 1, 5, 5), 3: await question("Purchase intent", 1, 3, 5), 1: await question("Desire (outside the loop)", 1, 1, 5) };
  ({ qid: qSingle, pq: pqSingle } = await question("Where do you shop?", 1, null, 1));
  ({ qid: qMulti, pq: pqMulti } = await question("What stands out?", 2, null, 3));
  const options = async (qid: number, texts: string[]) => {
    const out: number[] = [];
    for (const [k, t] of texts.entries()) {
      const [{ id }] = await sql<{ id: number }[]>`insert into question_options (client_id, project_id, question_id, option_text, sort_order) values (${T}, ${P}, ${qid}, ${t}, ${k + 1}) returning id`;
      out.push(id);
    }
    return out;
  };
  const single = await options(qSingle, ["Online", "Supermarket", "Corner shop"]);
  const multi = await options(qMulti, ["Price", "Taste"]);
  choices = [...single, ...multi];
  const runDefs = [
    { region: 1, provider: 1, date: "2026-01-02" },
    { region: 2, provider: 2, date: "2026-01-05" },
    { region: 1, provider: 1, date: "2026-01-08" },
  ];
  for (const r of runDefs) {
    const [{ id }] = await sql<{ id: number }[]>`
      insert into survey_runs (client_id, region_id, schedule_date, survey_status_id, sample_provider_id) values (${T}, ${r.region}, ${r.date}, 90, ${r.provider}) returning id`;
    runs.push(id);
  }
  const rows: Record<string, unknown>[] = [];
  for (let k = 0; k < 90; k++) {
    const ri = Math.floor(rand() * runs.length);
    const run = runs[ri]!;
    const region = runDefs[ri]!.region;
    const customer = runDefs[ri]!.provider === 2;
    const at = rand() < 0.06 ? null : `2026-01-${String(1 + Math.floor(rand() * 10)).padStart(2, "0")}T${String(Math.floor(rand() * 24)).padStart(2, "0")}:30:00Z`;
    const status = rand() < 0.08 ? "Removed" : "Complete";
    const [{ id: ss }] = await sql<{ id: number }[]>`
      insert into survey_sessions (client_id, survey_run_id, region_id, status, completed_at) values (${T}, ${run}, ${region}, 'Complete', ${at}) returning id`;
    const [{ id: pss }] = await sql<{ id: number }[]>`
      insert into project_survey_sessions (client_id, project_id, survey_session_id, survey_run_id, region_id, is_customer_panel, weight, week, completed_at, status)
      values (${T}, ${P}, ${ss}, ${run}, ${region}, ${customer}, ${Math.round((0.2 + rand() * 2.8) * 1000) / 1000}, ${rand() < 0.3 ? 1 + Math.floor(rand() * 4) : null}, ${at}, ${status}) returning id`;
    const base = { client_id: T, project_id: P, survey_run_id: run, survey_session_id: ss, project_survey_session_id: pss, region_id: region, is_customer_panel: customer };
    const none = {
      project_question_id: null,
      question_id: null,
      standard_question_id: null,
      test_option_id: null,
      question_option_id: null,
      system_question_id: null,
      system_question_option_id: null,
      standard_answer_value: null,
    };
    rows.push({ ...base, ...none, system_question_id: 45, system_question_option_id: pick(SYSTEM.slice(0, 3)) });
    if (rand() < 0.85) rows.push({ ...base, ...none, system_question_id: 51, system_question_option_id: pick(SYSTEM.slice(3)) });
    rows.push({ ...base, ...none, project_question_id: pqSingle, question_id: qSingle, question_option_id: pick(single) });
    rows.push({ ...base, ...none, project_question_id: std[1].pq, question_id: std[1].qid, standard_question_id: 1, standard_answer_value: 1 + Math.floor(rand() * 4) });
    for (const to of tos) {
      if (rand() < 0.35) continue; // some see fewer options, a few none at all
      for (const s of [5, 3] as const) {
        rows.push({
          ...base,
          ...none,
          project_question_id: std[s].pq,
          question_id: std[s].qid,
          standard_question_id: s,
          test_option_id: to,
          standard_answer_value: rand() < 0.05 ? null : 1 + Math.floor(rand() * 4),
        });
      }
      for (const m of multi) if (rand() < 0.5) rows.push({ ...base, ...none, project_question_id: pqMulti, question_id: qMulti, test_option_id: to, question_option_id: m });
    }
    for (const g of SEGMENTS) if (rand() < 0.4) await sql`insert into project_group_segment_sessions (client_id, project_group_segment_id, survey_session_id) values (${T}, ${g}, ${ss})`;
  }
  for (let k = 0; k < rows.length; k += 500) await sql`insert into responses ${sql(rows.slice(k, k + 500))}`;
});
afterAll(async () => {
  configureResultsCache(256 * 2 ** 20);
  await tdb.drop();
});

/** Deep equality with floating-point sums compared to 1e-9 (the two paths add in different orders). */
function near(a: unknown, b: unknown, path = "$"): string | null {
  if (typeof a === "number" && typeof b === "number") return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(a), Math.abs(b)) ? null : `${path}: ${a} vs ${b}`;
  if (Array.isArray(a) && Array.isArray(b)) {
    if (a.length !== b.length) return `${path}: length ${a.length} vs ${b.length}`;
    for (let k = 0; k < a.length; k++) {
      const d = near(a[k], b[k], `${path}[${k}]`);
      if (d) return d;
    }
    return null;
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const ka = Object.keys(a).sort();
    const kb = Object.keys(b).sort();
    if (ka.join() !== kb.join()) return `${path}: keys ${ka} vs ${kb}`;
    for (const k of ka) {
      const d = near((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k], `${path}.${k}`);
      if (d) return d;
    }
    return null;
  }
  return Object.is(a, b) ? null : `${path}: ${String(a)} vs ${String(b)}`;
}

const some = <X>(xs: X[]) => fc.option(fc.subarray(xs, { minLength: 1 }), { nil: undefined });
const day = fc.integer({ min: 0, max: 11 }).map((d) => `2026-01-${String(1 + d).padStart(2, "0")}`);
const filterArb: fc.Arbitrary<ResponseFilter> = fc
  .record(
    {
      filterIds: some(SYSTEM),
      questionOptionsIds: fc.constant(null).chain(() => some(choices)),
      excludeQuestionOptionsIds: fc.constant(null).chain(() => some(choices)),
      regionIds: some([1, 2]),
      surveyIds: fc.constant(null).chain(() => some(runs)),
      testOptionIds: fc.constant(null).chain(() => some(tos)),
      projectGroupSegmentIds: some(SEGMENTS),
      panelType: fc.constantFrom<ResponseFilter["panelType"]>(undefined, null, "Customer", "Ideally", true, false),
      dates: fc.option(fc.tuple(day, day, fc.constantFrom("", "T00:00:00Z", "T23:59:59.999Z", "T13:00:00+05:00")), { nil: undefined }),
      onlyFrom: fc.boolean(),
    },
    { requiredKeys: [] },
  )
  .map(({ dates, onlyFrom, ...f }) => {
    if (!dates) return f;
    const [a, b, time] = dates;
    const [from, to] = a <= b ? [a, b] : [b, a];
    return onlyFrom ? { ...f, dateFrom: from + time } : { ...f, dateFrom: from + time, dateTo: to + time };
  });

describe("the columnar path equals the SQL", () => {
  test("every aggregate, on random filters", async () => {
    const tx = tdb.db as unknown as Tx;
    const head = (await q.project(tx, P))!;
    let chosenSome = 0;
    await fc.assert(
      fc.asyncProperty(filterArb, async (filters) => {
        const f = await resolveFilter(tx, filters);
        const a = sqlAggregates(tx, P, f);
        const b = await columnarAggregates(tx, head, f);
        const pairs: [string, unknown, unknown][] = [
          ["countsByOptionAndWeek", await a.countsByOptionAndWeek(), await b.countsByOptionAndWeek()],
          ["stdQuestionCounts", await a.stdQuestionCounts(), await b.stdQuestionCounts()],
          ["weightSums", await a.weightSums(), await b.weightSums()],
          ["scaleAnswers", await a.scaleAnswers(null), await b.scaleAnswers(null)],
          ["scaleAnswers([5])", await a.scaleAnswers([5]), await b.scaleAnswers([5])],
          ["optionAnswers(single)", await a.optionAnswers(qSingle), await b.optionAnswers(qSingle)],
          ["optionAnswers(multi)", await a.optionAnswers(qMulti), await b.optionAnswers(qMulti)],
          ["demographics", await a.demographics(), await b.demographics()],
          ["designCells", await a.designCells(null), await b.designCells(null)],
          ["designCells([5])", await a.designCells([5]), await b.designCells([5])],
          ["designStrata", await a.designStrata(), await b.designStrata()],
        ];
        for (const [name, x, y] of pairs) {
          const d = near(x, y);
          if (d) throw new Error(`${name} differs for ${JSON.stringify(filters)}: ${d}`);
        }
        if ((pairs[2]![1] as unknown[]).length) chosenSome++;
      }),
      { numRuns: 120 },
    );
    // The property means little if every random filter chose nobody.
    expect(chosenSome, "some random filters choose respondents").toBeGreaterThan(25);
  }, 120_000);

  test("the API answers the same with the cache on and off", async () => {
    const filters = [{}, { filterIds: [4500002], regionIds: [1] }, { testOptionIds: [tos[1]], questionOptionsIds: [choices[0], choices[1]], dateFrom: "2026-01-03", dateTo: "2026-01-07" }];
    const urls = (f: unknown) => {
      const e = encodeURIComponent(JSON.stringify(f));
      return [
        `/api/v1/Projects(${P})/ResponsesCount?filters=${e}`,
        `/api/v1/Responses/QualResults?projectId=${P}&filters=${e}`,
        `/api/v1/Responses/QualResults?projectId=${P}&projectQuestionId=${pqMulti}&filters=${e}`,
        `/api/v1/Responses/WeightSum?projectId=${P}&filters=${e}`,
        `/api/v1/Responses/DemographicsResults?projectId=${P}&filters=${e}`,
      ];
    };
    for (const f of filters) {
      for (const url of urls(f)) {
        configureResultsCache(64 * 2 ** 20);
        const fast = await call(app, "acmeViewer", T, "GET", url);
        configureResultsCache(0);
        const slow = await call(app, "acmeViewer", T, "GET", url);
        expect(fast.status, `${url}: ${JSON.stringify(fast.body)}`).toBe(200);
        expect(near(fast.body, slow.body), `${url} fast = slow`).toBeNull();
      }
    }
    configureResultsCache(64 * 2 ** 20);
  });
});

describe("freshness and tenancy", () => {
  const count = async () => {
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/WeightSum?projectId=${P}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { count: number; weight: number };
  };

  test("a change of responses or respondents reloads the copy", async () => {
    configureResultsCache(64 * 2 ** 20);
    const before = await count();
    expect(resultsCacheStats().projects, "the project is cached").toBe(1);
    // A weight changes (reweighting after a removal): the next call sees it.
    const [pss] = await tdb.db<{ id: number; weight: number }[]>`
      select id, weight from project_survey_sessions where project_id = ${P} and status = 'Complete' order by id limit 1`;
    await tdb.db`update project_survey_sessions set weight = weight + 10 where id = ${pss!.id}`;
    const heavier = await count();
    expect(heavier.weight - before.weight, "the new weight is read").toBeCloseTo(10, 9);
    // A respondent is removed: one fewer.
    await tdb.db`update project_survey_sessions set status = 'Removed' where id = ${pss!.id}`;
    expect((await count()).count, "the removed respondent is gone").toBe(before.count - 1);
    // Deleting a response is a change too (one of this respondent's answers).
    const [{ version: v1 }] = await tdb.db<{ version: string }[]>`select version::text from results_versions where project_id = ${P}`;
    await tdb.db`delete from responses where id = (select max(id) from responses where project_id = ${P})`;
    const [{ version: v2 }] = await tdb.db<{ version: string }[]>`select version::text from results_versions where project_id = ${P}`;
    expect(BigInt(v2), "a delete bumps the version").toBeGreaterThan(BigInt(v1));
  });

  test("a cached project is still refused to another client's user", async () => {
    configureResultsCache(64 * 2 ** 20);
    await count();
    const r = await call(app, "globexAdmin", 2001, "GET", `/api/v1/Responses/QualResults?projectId=${P}`);
    expect(r.status, "Globex does not see Acme's project").toBe(404);
    const r2 = await call(app, "globexAdmin", T, "GET", `/api/v1/Responses/QualResults?projectId=${P}`);
    expect(r2.status, "nor by naming Acme's client").toBe(403);
  });

  test("a budget smaller than a project keeps nothing and still answers", async () => {
    configureResultsCache(1);
    expect((await count()).count, "answered").toBeGreaterThan(0);
    expect(resultsCacheStats().bytes, "nothing kept").toBe(0);
    clearResultsCache();
    configureResultsCache(64 * 2 ** 20);
  });
});

describe("design cells remembered per copy and selection (designCellsMemo)", () => {
  test("the same respondents give the same cells from memory; other respondents, another copy or beyond the kept number are computed", async () => {
    const col = await import("../../api/src/domains/results/columnar.ts");
    const tx = tdb.db as unknown as Tx;
    const head = (await q.project(tx, P))!;
    const c = await col.projectColumns(tx, P, head.resultsVersion);
    const all = await col.select(tx, c, await resolveFilter(tx, {}));
    const first = col.designCellsMemo(c, all, null);
    expect(first, "what designCells computes").toEqual(col.designCells(c, all, null));
    const again = col.designCellsMemo(c, { ...all, chosen: Uint8Array.from(all.chosen) }, null);
    expect(again, "equal respondents in another object: from memory").toBe(first);
    // One respondent fewer: other cells, computed.
    const fewer = Uint8Array.from(all.chosen);
    fewer[fewer.indexOf(1)] = 0;
    const other = col.designCellsMemo(c, { ...all, chosen: fewer }, null);
    expect(other).not.toBe(first);
    expect(other).toEqual(col.designCells(c, { ...all, chosen: fewer }, null));
    expect(other).not.toEqual(first);
    expect(col.designCellsMemo(c, all, [5]), "other questions: computed").toEqual(col.designCells(c, all, [5]));
    // Another copy of the same data (as after a refresh): nothing carried over.
    const copy = { ...c };
    expect(col.designCellsMemo(copy, all, null)).not.toBe(first);
    // The kept number: after DESIGN_CELLS_KEPT other selections the first is computed again.
    const fresh = { ...c };
    const base = col.designCellsMemo(fresh, all, null);
    for (let i = 0; i < col.DESIGN_CELLS_KEPT - 1; i++) col.designCellsMemo(fresh, all, [i + 100]);
    expect(col.designCellsMemo(fresh, all, null), `${col.DESIGN_CELLS_KEPT} kept: still there`).toBe(base);
    col.designCellsMemo(fresh, all, [999]);
    col.designCellsMemo(fresh, all, [998]);
    expect(col.designCellsMemo(fresh, all, null), "pushed out, computed again").not.toBe(base);
  });
});
