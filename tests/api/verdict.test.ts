// The verdict-first summary (issue 23): the scorecard's rule on hand-made results, the action
// standard stored per project (set by Admins and Users, read by Viewers, refused when bad), the
// scorecard on the demo agreeing with QualResults' own tests, the 'None' benchmark of SPEC 7 (a
// 50% line tested against), and the AI summary's skews stated once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { scorecard, type ActionStandard } from "../../api/src/domains/results/verdict.ts";
import type { Measure } from "../../api/src/domains/results/results.service.ts";
/**
 * Two-sided p-values of the standard normal, 2(1 - Φ(z)), from the published tables (Φ to four
 * or more places; e.g. NIST/SEMATECH e-Handbook 1.3.6.7.1): 1.645 -> .1000, 1.96 -> .0500,
 * 2.576 -> .0100, 3.291 -> .0010.
 */
const NORMAL_TABLE = [
  { z: 0, p: 1 },
  { z: 0.5, p: 0.6171 },
  { z: 1, p: 0.3173 },
  { z: 1.5, p: 0.1336 },
  { z: 1.645, p: 0.1 },
  { z: 1.96, p: 0.05 },
  { z: 2, p: 0.0455 },
  { z: 2.5, p: 0.0124 },
  { z: 2.576, p: 0.01 },
  { z: 3, p: 0.0027 },
  { z: 3.291, p: 0.001 },
  { z: 4, p: 0.0000633 },
  { z: Infinity, p: 0 },
];
/** The table's rows just below and just above |z| (p falls as z grows). */
function bracket(z: number): [{ z: number; p: number }, { z: number; p: number }] {
  const i = NORMAL_TABLE.findIndex((r) => r.z > z);
  return [NORMAL_TABLE[i - 1]!, NORMAL_TABLE[i]!];
}
import { createDemoWorldDb, demoTeam, demoProject } from "../helpers/demo.ts";

// ---- the rule, on results written by hand ----

type Vs = { id: number; diff: number; significant: boolean };
function m(id: number, top2: number, o: { bench?: { diff: number; significant: boolean; indicative?: boolean } | null; vs?: Vs[]; nEff?: number } = {}): Measure {
  const nEff = o.nEff ?? 200;
  return {
    testOptionId: id,
    n: Math.round(nEff),
    weight: nEff,
    nEff,
    top2,
    se: 0.03,
    ci: [top2 - 0.06, top2 + 0.06],
    smallBase: nEff < 30,
    distribution: [],
    vsBenchmark: o.bench === null || o.bench === undefined ? null : { top2Percentage: (top2 - o.bench.diff) * 100, diff: o.bench.diff, se: 0.03, z: 0, pValue: 0, pAdjusted: 0, significant: o.bench.significant, lowBase: false, indicative: o.bench.indicative ?? false, quintile: null },
    vsOthers: (o.vs ?? []).map((v) => ({ testOptionId: v.id, diff: v.diff, se: 0.03, z: 0, pValue: 0, pAdjusted: 0, significant: v.significant, lowBase: false, paired: true })),
  };
}
const name = (id: number | null) => `Concept ${id}`;
const vsBench: ActionStandard = { standardQuestionId: 5, against: "benchmark" };
const vsOthers: ActionStandard = { standardQuestionId: 5, against: "others" };
const verdicts = (r: ReturnType<typeof scorecard>) => r.rows.map((x) => [x.testOptionId, x.rank, x.verdict]);

describe("the scorecard's rule", () => {
  test("against the benchmark: significantly above is go, significantly below no-go, the rest consider; ranked by top-2-box", () => {
    const r = scorecard(
      [
        m(1, 0.5, { bench: { diff: -0.1, significant: true } }),
        m(2, 0.7, { bench: { diff: 0.1, significant: true } }),
        m(3, 0.62, { bench: { diff: 0.02, significant: false } }),
        m(4, 0.55, { bench: { diff: 0.08, significant: false, indicative: true } }),
        m(5, 0.6, { bench: null }),
      ],
      vsBench,
      name,
    );
    expect(verdicts(r)).toEqual([
      [2, 1, "go"],
      [3, 2, "consider"],
      [5, 3, "consider"],
      [4, 4, "consider"],
      [1, 5, "no-go"],
    ]);
    expect(r.rows[0]!.reason).toBe("10.0 points above the benchmark's 60.0%, significantly.");
    expect(r.rows.find((x) => x.testOptionId === 4)!.reason).toContain("indicative");
    expect(r.rows.find((x) => x.testOptionId === 5)!.reason).toContain("no benchmark");
  });

  test("against each other: go only when significantly above every other concept, no-go when significantly behind the leader", () => {
    const clear = scorecard(
      [
        m(1, 0.7, { vs: [{ id: 2, diff: 0.1, significant: true }, { id: 3, diff: 0.2, significant: true }] }),
        m(2, 0.6, { vs: [{ id: 1, diff: -0.1, significant: true }, { id: 3, diff: 0.1, significant: false }] }),
        m(3, 0.5, { vs: [{ id: 1, diff: -0.2, significant: true }, { id: 2, diff: -0.1, significant: false }] }),
      ],
      vsOthers,
      name,
    );
    expect(verdicts(clear)).toEqual([[1, 1, "go"], [2, 2, "no-go"], [3, 3, "no-go"]]);
    expect(clear.rows[1]!.reason).toBe("10.0 points behind Concept 1, significantly.");
    // The leader is not clear of concept 2: both are consider; 3 is behind the leader significantly.
    const tie = scorecard(
      [
        m(1, 0.7, { vs: [{ id: 2, diff: 0.05, significant: false }, { id: 3, diff: 0.2, significant: true }] }),
        m(2, 0.65, { vs: [{ id: 1, diff: -0.05, significant: false }, { id: 3, diff: 0.15, significant: true }] }),
        m(3, 0.5, { vs: [{ id: 1, diff: -0.2, significant: true }, { id: 2, diff: -0.15, significant: true }] }),
      ],
      vsOthers,
      name,
    );
    expect(verdicts(tie)).toEqual([[1, 1, "consider"], [2, 2, "consider"], [3, 3, "no-go"]]);
    expect(tie.against).toBe("others");
  });

  test("equal top-2-box shares a rank; one concept against 'others' is judged against the benchmark", () => {
    const r = scorecard([m(1, 0.6, { bench: { diff: 0, significant: false } }), m(2, 0.6, { bench: { diff: 0, significant: false } })], vsBench, name);
    expect(r.rows.map((x) => x.rank)).toEqual([1, 1]);
    const one = scorecard([m(1, 0.7, { bench: { diff: 0.1, significant: true } })], vsOthers, name);
    expect(one.against).toBe("benchmark");
    expect(verdicts(one)).toEqual([[1, 1, "go"]]);
  });

  test("a low base is never go or no-go: n eff 29.99 is consider, 30 keeps its verdict (the small-base edge)", () => {
    const low = scorecard([m(1, 0.8, { bench: { diff: 0.2, significant: true }, nEff: 29.99 }), m(2, 0.3, { bench: { diff: -0.3, significant: true }, nEff: 29.99 })], vsBench, name);
    expect(verdicts(low)).toEqual([[1, 1, "consider"], [2, 2, "consider"]]);
    expect(low.rows[0]!.reason).toStartWith("Low base (n eff 30.0)");
    const edge = scorecard([m(1, 0.8, { bench: { diff: 0.2, significant: true }, nEff: 30 })], vsBench, name);
    expect(verdicts(edge)).toEqual([[1, 1, "go"]]);
  });
});

// ---- through the API, on the demo ----

let tdb: TestDb;
let app: App;
const tokens: Record<string, string> = {};
let team: number;
let idea: number;
let tracker: number;

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb());
  ({ app } = await realApp(tdb.db));
  for (const who of ["user", "viewer", "admin"]) tokens[who] = (await login(app, `${who}@acme.test`, DEMO_PASSWORD)).token;
  team = await demoTeam(tdb.db);
  idea = await demoProject(tdb.db, team, "Plant-based snacks idea screen");
  tracker = await demoProject(tdb.db, team, "Brand message tracker");
}, 240_000);
afterAll(async () => {
  await tdb.drop();
}, 30_000);

// deno-lint-ignore no-explicit-any
async function call(who: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const res = await app.request(path, {
    method,
    headers: { authorization: `Bearer ${tokens[who]}`, clientId: String(team), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() };
}

describe("the action standard, per project", () => {
  test("the default is the headline measure against the benchmark; a User sets it; a Viewer reads it and may not change it", async () => {
    const d = await call("viewer", "GET", `/api/v1/Projects(${idea})/ActionStandard`);
    expect(d.status).toBe(200);
    // SPEC 9: the headline measure is standard question 5 when asked.
    expect(d.body).toMatchObject({ projectId: idea, standardQuestionId: 5, against: "benchmark", isDefault: true });
    expect(d.body.measures.map((x: { standardQuestionId: number }) => x.standardQuestionId)[0]).toBe(5);
    const other = d.body.measures[1].standardQuestionId as number;

    const set = await call("user", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: other, against: "others" });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({ standardQuestionId: other, against: "others", isDefault: false });
    const read = await call("viewer", "GET", `/api/v1/Projects(${idea})/ActionStandard`);
    expect(read.body).toMatchObject({ standardQuestionId: other, against: "others", isDefault: false });

    const viewer = await call("viewer", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: 5, against: "benchmark" });
    expect(viewer.status).toBe(403);
    expect((await call("admin", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: 5, against: "benchmark" })).status).toBe(200);
  });

  test("bad standards are refused with the error shape: a measure the project does not ask, an unknown 'against', extra fields", async () => {
    const notAsked = await call("user", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: 22, against: "benchmark" });
    expect(notAsked.status).toBe(400);
    expect(notAsked.body.message).toContain("asks no scaled standard question 22");
    const against = await call("user", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: 5, against: "best" });
    expect(against.status).toBe(400);
    expect(against.body.errors[0].path).toContain("against");
    const extra = await call("user", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: 5, against: "benchmark", sql: "drop table projects" });
    expect(extra.status).toBe(400);
    const stored = await tdb.db<{ s: unknown }[]>`select action_standard as s from projects where id = ${idea}`;
    expect(stored[0]!.s).toEqual({ standardQuestionId: 5, against: "benchmark" });
  });
});

describe("the scorecard on the demo", () => {
  test("ranks the concepts on the standard's measure with QualResults' own figures and marks, one verdict each", async () => {
    const qs = "confidence=95&adjust=bh&benchmarkTypeId=1";
    const sc = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&${qs}`);
    expect(sc.status).toBe(200);
    const q = await call("user", "GET", `/api/v1/Responses/QualResults?projectId=${idea}&${qs}`);
    const measure = q.body.measures.find((x: { standardQuestionId: number }) => x.standardQuestionId === sc.body.standard.standardQuestionId);
    expect(sc.body.rows.length).toBe(measure.results.length);
    expect(sc.body.rows.length).toBeGreaterThan(1);
    for (const [i, row] of sc.body.rows.entries()) {
      const r = measure.results.find((x: { testOptionId: number }) => x.testOptionId === row.testOptionId);
      expect(row.top2).toBe(r.top2);
      if (i) expect(row.top2).toBeLessThanOrEqual(sc.body.rows[i - 1].top2);
      const b = r.vsBenchmark;
      const expected = r.smallBase || !b || b.indicative || !b.significant ? "consider" : b.diff > 0 ? "go" : "no-go";
      expect(row.verdict).toBe(expected);
    }
  });

  test("All markets: judged on the all-markets total, as QualResults total=markets on screen", async () => {
    const qs = `benchmarkTypeId=1&total=markets&filters=${encodeURIComponent(JSON.stringify({ regionIds: [1, 2] }))}`;
    const sc = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&${qs}`);
    const q = await call("user", "GET", `/api/v1/Responses/QualResults?projectId=${idea}&${qs}`);
    const m = q.body.measures.find((x: { standardQuestionId: number }) => x.standardQuestionId === sc.body.standard.standardQuestionId);
    const sample = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&benchmarkTypeId=1&filters=${encodeURIComponent(JSON.stringify({ regionIds: [1, 2] }))}`);
    expect(sc.body.rows.length).toBeGreaterThan(1);
    for (const row of sc.body.rows) expect(row.top2).toBe(m.results.find((r: { testOptionId: number }) => r.testOptionId === row.testOptionId).top2);
    expect(sc.body.rows.map((r: { top2: number }) => r.top2)).not.toEqual(sample.body.rows.map((r: { top2: number }) => r.top2));
  });

  test("a filter that matches nobody: an empty scorecard with base 0", async () => {
    // Respondents in a market the project does not field in: nobody.
    const filters = encodeURIComponent(JSON.stringify({ regionIds: [999] }));
    const sc = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&filters=${filters}`);
    expect(sc.status).toBe(200);
    expect(sc.body).toMatchObject({ base: 0, rows: [] });
  });
});

describe("SPEC 7's 'None' benchmark: a 50% line, tested against", () => {
  test("QualResults with benchmarkTypeId 0 puts every concept against 50% with z = (p − 0.5)/se", async () => {
    const q = await call("user", "GET", `/api/v1/Responses/QualResults?projectId=${idea}&benchmarkTypeId=0&adjust=none`);
    expect(q.status).toBe(200);
    expect(q.body.benchmarkTypeId).toBe(0);
    const all = q.body.measures.flatMap((x: { results: Measure[] }) => x.results) as Measure[];
    expect(all.length).toBeGreaterThan(0);
    let significant = 0;
    for (const r of all) {
      const b = r.vsBenchmark!;
      expect(b).not.toBeNull();
      expect(b.top2Percentage).toBe(50);
      expect(b.diff).toBeCloseTo(r.top2 - 0.5, 12);
      // A fixed line adds no variance: the test's se is the concept's own.
      expect(b.se).toBeCloseTo(r.se, 12);
      const z = (r.top2 - 0.5) / r.se;
      expect(b.z).toBeCloseTo(z, 9);
      // The p-value against the published standard normal table (two-sided p at |z|), not against
      // the code's own twoSidedP: p lies between the table's values at the points around |z|
      // (widened by half the table's last place, 0.00005, for its rounding).
      const [lo, hi] = bracket(Math.abs(z));
      expect(b.pValue, `|z| ${Math.abs(z)}`).toBeLessThanOrEqual(lo.p + 0.00005);
      expect(b.pValue, `|z| ${Math.abs(z)}`).toBeGreaterThanOrEqual(hi.p - 0.00005);
      // Past the table (|z| of 4 and more here) Gordon's (1941) published bounds on the normal tail,
      // φ(z)·z/(1 + z²) < 1 − Φ(z) < φ(z)/z with φ(z) = e^(−z²/2)/√(2π), are tight: within z²/(1 + z²).
      const az = Math.abs(z);
      if (az >= 1) {
        const phi = Math.exp((-az * az) / 2) / Math.sqrt(2 * Math.PI);
        expect(b.pValue, `|z| ${az}: Gordon's lower bound`).toBeGreaterThan((2 * phi * az) / (1 + az * az));
        expect(b.pValue, `|z| ${az}: Gordon's upper bound`).toBeLessThan((2 * phi) / az);
      }
      expect(b.indicative).toBe(false);
      // Significant at 95% exactly when |z| is past the published critical value 1.959964.
      expect(b.significant).toBe(Math.abs(z) > 1.959964);
      expect(b.pValue! < 0.05).toBe(Math.abs(z) > 1.959964);
      if (b.significant) significant++;
    }
    expect(significant).toBeGreaterThan(0);
  });
});

describe("the AI summary states each skew once", () => {
  test("no two skews of the demo summaries share a demographic and a test option", async () => {
    const { summaryFacts, projectContext, FigureBook } = await import("../../api/src/domains/ai/facts.ts");
    const { systemCtx } = await import("../../api/src/domains/lifecycle/lifecycle.service.ts");
    const ctx = systemCtx();
    let skews = 0;
    for (const id of [idea, tracker]) {
      const pc = await projectContext(tdb.db, ctx, id);
      const f = await summaryFacts(tdb.db, ctx, pc, new FigureBook(), { filters: {}, scope: null });
      const keys = f.skews.map((s) => `${s.demographic}|${s.testOption}`);
      expect(new Set(keys).size).toBe(keys.length);
      skews += f.skews.length;
    }
    expect(skews).toBeGreaterThan(0);
  }, 120_000);
});
