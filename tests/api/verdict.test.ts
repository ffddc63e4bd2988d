// The verdict-first summary (issue 23): the scorecard's rule on hand-made results, the action
// standard stored per project (set by Admins and Users, read by Viewers, refused when bad), the
// scorecard on the demo agreeing with QualResults' own tests, the 'None' benchmark of SPEC 7 (a
// 50% line tested against), and the AI summary's skews stated once.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { scorecard, verdictHeadline, type ActionStandard, type ScoreRow } from "../../api/src/domains/results/verdict.ts";
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
import { jsonParam } from "../../api/src/db/params.ts";
import { createDemoWorldDb, demoTeam, demoProject, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

// ---- the rule, on results written by hand ----
// Each case is worked by hand from the rule as docs/statistics.md "The verdict" states it; the
// expected rows below were written from that text, before the code was changed.

type Vs = { id: number; diff: number; significant: boolean };
type Bench = { norm: number; significant: boolean; indicative?: boolean };
function m(id: number, top2: number, o: { bench?: Bench | null; vs?: Vs[]; nEff?: number } = {}): Measure {
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
    vsBenchmark:
      o.bench === null || o.bench === undefined
        ? null
        : {
            top2Percentage: o.bench.norm,
            diff: top2 - o.bench.norm / 100,
            se: 0.03,
            z: 0,
            pValue: 0,
            pAdjusted: 0,
            significant: o.bench.significant,
            lowBase: false,
            indicative: o.bench.indicative ?? false,
            quintile: null,
          },
    vsOthers: (o.vs ?? []).map((v) => ({ testOptionId: v.id, diff: v.diff, se: 0.03, z: 0, pValue: 0, pAdjusted: 0, significant: v.significant, lowBase: false, paired: true })),
  };
}
/** Paired tests both ways from one list of (a, b, significant): the diff is a's top-2-box less b's. */
function paired(shares: Record<number, number>, sig: [number, number, boolean][]): Record<number, Vs[]> {
  const out: Record<number, Vs[]> = {};
  for (const [a, b, s] of sig) {
    out[a] = [...(out[a] ?? []), { id: b, diff: shares[a]! - shares[b]!, significant: s }];
    out[b] = [...(out[b] ?? []), { id: a, diff: shares[b]! - shares[a]!, significant: s }];
  }
  return out;
}
const name = (id: number | null) => `Concept ${id}`;
const vsBench: ActionStandard = { standardQuestionId: 5, against: "benchmark" };
const vsOthers: ActionStandard = { standardQuestionId: 5, against: "others" };
const verdicts = (r: ReturnType<typeof scorecard>) => r.rows.map((x) => [x.testOptionId, x.rank, x.verdict, x.firm]);
const reason = (r: ReturnType<typeof scorecard>, id: number) => r.rows.find((x) => x.testOptionId === id)!.reason;

describe("the verdict's rule, on cases worked by hand", () => {
  test("a norm that can be tested: above is go, below no-go; level with it, no-go when another concept is significantly ahead", () => {
    // Norm 60%. 1 (70%) is significantly above it; 2 (65%) and 3 (55%) are not. Paired: 1 vs 3 and
    // 2 vs 3 significant, 1 vs 2 not. So 3 has two concepts ahead (rank 3), 1 and 2 none (rank 1).
    const s = { 1: 0.7, 2: 0.65, 3: 0.55 };
    const vs = paired(s, [
      [1, 2, false],
      [1, 3, true],
      [2, 3, true],
    ]);
    const r = scorecard(
      [
        m(3, 0.55, { bench: { norm: 60, significant: false }, vs: vs[3] }),
        m(1, 0.7, { bench: { norm: 60, significant: true }, vs: vs[1] }),
        m(2, 0.65, { bench: { norm: 60, significant: false }, vs: vs[2] }),
      ],
      vsBench,
      name,
    );
    expect(verdicts(r)).toEqual([
      [1, 1, "go", true],
      [2, 1, "consider", true],
      [3, 3, "no-go", true],
    ]);
    expect(reason(r, 1)).toBe("10.0 points above the benchmark's 60.0%, significantly.");
    expect(reason(r, 2)).toBe("65.0%, not significantly different from the benchmark's 60.0%; no concept significantly ahead.");
    expect(reason(r, 3)).toBe("Not significantly different from the benchmark's 60.0%, and Concept 1 and Concept 2 are significantly ahead.");
    expect(r.rows.find((x) => x.testOptionId === 3)!.behind).toEqual([1, 2]);
    // Significantly below the norm is no-go whatever the paired tests; a go behind another go says so.
    const two = paired({ 1: 0.8, 2: 0.7, 3: 0.4 }, [
      [1, 2, true],
      [1, 3, true],
      [2, 3, true],
    ]);
    const r2 = scorecard(
      [
        m(1, 0.8, { bench: { norm: 60, significant: true }, vs: two[1] }),
        m(2, 0.7, { bench: { norm: 60, significant: true }, vs: two[2] }),
        m(3, 0.4, { bench: { norm: 60, significant: true }, vs: two[3] }),
      ],
      vsBench,
      name,
    );
    expect(verdicts(r2)).toEqual([
      [1, 1, "go", true],
      [2, 2, "go", true],
      [3, 3, "no-go", true],
    ]);
    expect(reason(r2, 2)).toBe("10.0 points above the benchmark's 60.0%, significantly. Concept 1 is significantly ahead.");
    expect(reason(r2, 3)).toBe("20.0 points below the benchmark's 60.0%, significantly. Concept 1 and Concept 2 are significantly ahead.");
    // A consider below the norm's point estimate says so.
    const one = scorecard([m(1, 0.58, { bench: { norm: 60, significant: false } })], vsBench, name);
    expect(reason(one, 1)).toBe("58.0%, not significantly different from the benchmark's 60.0%; no concept significantly ahead. Below the benchmark's 60.0% (2.0 points).");
  });

  test("an indicative norm (the issue's demo case): its point estimate decides with the paired tests, never every concept the same", () => {
    // Norm 73.1%, too few projects to test. 1 (78%) and 2 (75%) are above it with nobody
    // significantly ahead: go, not firm. 3 (68.9%) is below it and 1 is significantly ahead: no-go.
    // 4 (72%) is below it but nobody is significantly ahead: consider. 5 (74%) is above it but 1 is
    // significantly ahead: consider, saying so.
    const s = { 1: 0.78, 2: 0.75, 3: 0.689, 4: 0.72, 5: 0.74 };
    const vs = paired(s, [
      [1, 2, false],
      [1, 3, true],
      [1, 4, false],
      [1, 5, true],
      [2, 3, false],
      [2, 4, false],
      [2, 5, false],
      [3, 4, false],
      [3, 5, false],
      [4, 5, false],
    ]);
    const thin = { norm: 73.1, significant: false, indicative: true };
    const r = scorecard(
      [1, 2, 3, 4, 5].map((id) => m(id, s[id as keyof typeof s], { bench: thin, vs: vs[id] })),
      vsBench,
      name,
    );
    expect(verdicts(r)).toEqual([
      [1, 1, "go", false],
      [2, 1, "go", false],
      [4, 1, "consider", false],
      [5, 2, "consider", false],
      [3, 2, "no-go", false],
    ]);
    expect(new Set(r.rows.map((x) => x.verdict)).size).toBe(3);
    expect(reason(r, 1)).toBe("4.9 points above the benchmark's 73.1%, with no concept significantly ahead. The benchmark is indicative (too few projects to test against).");
    expect(reason(r, 3)).toBe("4.2 points below the benchmark's 73.1%, and Concept 1 is significantly ahead. The benchmark is indicative (too few projects to test against).");
    expect(reason(r, 4)).toBe("1.1 points below the benchmark's 73.1%, with no concept significantly ahead. The benchmark is indicative (too few projects to test against).");
    expect(reason(r, 5)).toBe("0.9 points above the benchmark's 73.1%, but Concept 1 is significantly ahead. The benchmark is indicative (too few projects to test against).");
    // The point estimate's edge: exactly at the norm is at or above it (go); a hair below is not.
    const at = scorecard([m(1, 0.75, { bench: { norm: 75, significant: false, indicative: true } })], vsBench, name);
    expect(verdicts(at)).toEqual([[1, 1, "go", false]]);
    const under = scorecard([m(1, 0.7499, { bench: { norm: 75, significant: false, indicative: true } })], vsBench, name);
    expect(verdicts(under)).toEqual([[1, 1, "consider", false]]);
  });

  test("against each other: go only when significantly ahead of every other concept, no-go when any is significantly ahead", () => {
    const s = { 1: 0.7, 2: 0.6, 3: 0.5 };
    const clearVs = paired(s, [
      [1, 2, true],
      [1, 3, true],
      [2, 3, false],
    ]);
    const clear = scorecard(
      [1, 2, 3].map((id) => m(id, s[id as keyof typeof s], { vs: clearVs[id] })),
      vsOthers,
      name,
    );
    // 3 is behind 1 only (2 vs 3 not significant): rank 2, beside 2.
    expect(verdicts(clear)).toEqual([
      [1, 1, "go", true],
      [2, 2, "no-go", true],
      [3, 2, "no-go", true],
    ]);
    expect(reason(clear, 1)).toBe("Significantly ahead of every other concept.");
    expect(reason(clear, 2)).toBe("Concept 1 is significantly ahead.");
    const tieVs = paired({ 1: 0.7, 2: 0.65, 3: 0.5 }, [
      [1, 2, false],
      [1, 3, true],
      [2, 3, true],
    ]);
    const tie = scorecard([m(1, 0.7, { vs: tieVs[1] }), m(2, 0.65, { vs: tieVs[2] }), m(3, 0.5, { vs: tieVs[3] })], vsOthers, name);
    expect(verdicts(tie)).toEqual([
      [1, 1, "consider", true],
      [2, 1, "consider", true],
      [3, 3, "no-go", true],
    ]);
    expect(reason(tie, 2)).toBe("Level with Concept 1 (not significantly different); no concept significantly ahead.");
    expect(tie.against).toBe("others");
    // With a norm in the view, a consider below its point estimate says so.
    const below = scorecard([m(1, 0.7, { bench: { norm: 72, significant: false }, vs: tieVs[1] }), m(2, 0.65, { bench: { norm: 72, significant: false }, vs: tieVs[2] })], vsOthers, name);
    expect(reason(below, 1)).toBe("Level with Concept 2 (not significantly different); no concept significantly ahead. Below the benchmark's 72.0% (2.0 points).");
  });

  test("no norm in the view: judged on the tests between concepts; one concept alone is consider; 'others' with one concept is judged on the benchmark", () => {
    const vs = paired({ 1: 0.7, 2: 0.5 }, [[1, 2, true]]);
    const r = scorecard([m(1, 0.7, { bench: null, vs: vs[1] }), m(2, 0.5, { bench: null, vs: vs[2] })], vsBench, name);
    expect(verdicts(r)).toEqual([
      [1, 1, "go", true],
      [2, 2, "no-go", true],
    ]);
    expect(reason(r, 1)).toBe("No benchmark in the view: judged on the tests between concepts. Significantly ahead of every other concept.");
    const alone = scorecard([m(1, 0.7, { bench: null })], vsBench, name);
    expect(verdicts(alone)).toEqual([[1, 1, "consider", false]]);
    const one = scorecard([m(1, 0.7, { bench: { norm: 60, significant: true } })], vsOthers, name);
    expect(one.against).toBe("benchmark");
    expect(verdicts(one)).toEqual([[1, 1, "go", true]]);
  });

  test("a low base is never go or no-go: n eff 29.99 is consider (not firm), 30 keeps its verdict (the low base's edge)", () => {
    const low = scorecard([m(1, 0.8, { bench: { norm: 60, significant: true }, nEff: 29.99 }), m(2, 0.3, { bench: { norm: 60, significant: true }, nEff: 29.99 })], vsBench, name);
    expect(verdicts(low)).toEqual([
      [1, 1, "consider", false],
      [2, 1, "consider", false],
    ]);
    expect(reason(low, 1)).toBe("Low base (n eff 29.9, under 30): not tested, read with care.");
    expect(reason(low, 2)).toBe("Low base (n eff 29.9, under 30): not tested, read with care. Below the benchmark's 60.0% (30.0 points).");
    const edge = scorecard([m(1, 0.8, { bench: { norm: 60, significant: true }, nEff: 30 })], vsBench, name);
    expect(verdicts(edge)).toEqual([[1, 1, "go", true]]);
  });
});

describe("the verdict in one sentence", () => {
  const row = (id: number, rank: number, verdict: ScoreRow["verdict"], firm = true): ScoreRow => ({
    testOptionId: id,
    rank,
    top2: 0.5,
    ci: [0.4, 0.6],
    n: 100,
    nEff: 100,
    smallBase: false,
    verdict,
    firm,
    behind: [],
    reason: "",
  });
  test("names the concepts that pass, which ranks first, what to consider, or that none passes; and says when nothing rests on a test against a norm", () => {
    expect(verdictHeadline([row(1, 1, "go"), row(2, 2, "consider"), row(3, 3, "no-go")], name)).toBe("Go: Concept 1 meets the action standard.");
    expect(verdictHeadline([row(1, 1, "go"), row(2, 2, "go"), row(3, 3, "go")], name)).toBe("Go: Concept 1, Concept 2 and Concept 3 meet the action standard. Concept 1 ranks first.");
    expect(verdictHeadline([row(1, 1, "go"), row(2, 1, "go")], name)).toBe("Go: Concept 1 and Concept 2 meet the action standard.");
    expect(verdictHeadline([row(1, 1, "consider"), row(2, 1, "consider"), row(3, 3, "no-go")], name)).toBe("No concept clearly meets the action standard; consider Concept 1 and Concept 2.");
    expect(verdictHeadline([row(1, 1, "no-go"), row(2, 1, "no-go")], name)).toBe("No go: no concept meets the action standard.");
    expect(verdictHeadline([row(1, 1, "go", false), row(2, 2, "no-go", false)], name)).toBe("Go: Concept 1 meets the action standard. Read with care: no verdict here rests on a test against a norm.");
    expect(verdictHeadline([row(1, 1, "go", false), row(2, 2, "no-go", true)], name)).toBe("Go: Concept 1 meets the action standard.");
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
}, DEMO_WORLD_HOOK_MS);
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
  test("ranks the concepts by QualResults' own paired tests and judges each as the rule says; under All markets the tests separate the concepts and the verdict decides", async () => {
    for (const qs of ["confidence=95&adjust=bh&benchmarkTypeId=1", `benchmarkTypeId=1&total=markets&filters=${encodeURIComponent(JSON.stringify({ regionIds: [1, 2] }))}`]) {
      const sc = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&${qs}`);
      expect(sc.status).toBe(200);
      const q = await call("user", "GET", `/api/v1/Responses/QualResults?projectId=${idea}&${qs}`);
      const measure = q.body.measures.find((x: { standardQuestionId: number }) => x.standardQuestionId === sc.body.standard.standardQuestionId);
      type R = Measure & { testOptionId: number };
      const names = new Map((await tdb.db<{ id: number; name: string }[]>`select id, concept_text as name from test_options where project_id = ${idea}`).map((o) => [o.id, o.name]));
      const results = measure.results as R[];
      expect(sc.body.rows.length).toBe(results.length);
      expect(sc.body.rows.length).toBeGreaterThan(1);
      // The rule of docs/statistics.md, applied here to QualResults' answer.
      const aheadOf = (r: R) => results.filter((o) => r.vsOthers.some((t) => t.testOptionId === o.testOptionId && t.significant && t.diff < 0)).map((o) => o.testOptionId);
      const expected = (r: R): string => {
        const ahead = aheadOf(r).length > 0;
        const b = r.vsBenchmark;
        if (r.smallBase) return "consider";
        if (b && !b.indicative) return b.significant ? (b.diff > 0 ? "go" : "no-go") : ahead ? "no-go" : "consider";
        if (b) return r.top2 * 100 >= b.top2Percentage && !ahead ? "go" : r.top2 * 100 < b.top2Percentage && ahead ? "no-go" : "consider";
        return ahead ? "no-go" : results.every((o) => o === r || r.vsOthers.some((t) => t.testOptionId === o.testOptionId && t.significant && t.diff > 0)) ? "go" : "consider";
      };
      for (const row of sc.body.rows) {
        const r = results.find((x) => x.testOptionId === row.testOptionId)!;
        expect(row.top2).toBe(r.top2);
        expect(row.rank, qs).toBe(1 + aheadOf(r).length);
        expect(row.behind).toEqual(aheadOf(r));
        expect(row.verdict, `${qs}: ${row.reason}`).toBe(expected(r));
        for (const id of aheadOf(r)) expect(row.reason, "names each concept significantly ahead").toContain(names.get(id)!);
        if (r.vsBenchmark && r.top2 * 100 < r.vsBenchmark.top2Percentage) expect(row.reason, "says it is below the norm").toContain("below the benchmark's");
      }
      expect(sc.body.headline.length).toBeGreaterThan(0);
    }
  });

  test("where the paired tests separate the demo's concepts (All markets), the verdict gives at least two decisions (issue 37)", async () => {
    const qs = `benchmarkTypeId=1&total=markets&filters=${encodeURIComponent(JSON.stringify({ regionIds: [1, 2] }))}`;
    const q = await call("user", "GET", `/api/v1/Responses/QualResults?projectId=${idea}&${qs}`);
    // Every measure on which a paired test separates two concepts, as the action standard in turn.
    const separated = (q.body.measures as { standardQuestionId: number; results: Measure[] }[]).filter((m) => m.results.some((r) => !r.smallBase && r.vsOthers.some((t) => t.significant)));
    expect(separated.length, "the demo's concepts are separated on some measure").toBeGreaterThan(0);
    for (const m of separated) {
      expect((await call("user", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: m.standardQuestionId, against: "benchmark" })).status).toBe(200);
      const sc = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&${qs}`);
      expect(new Set(sc.body.rows.map((r: ScoreRow) => r.verdict)).size, `${m.standardQuestionId}: ${JSON.stringify(sc.body.rows.map((r: ScoreRow) => [r.verdict, r.reason]))}`).toBeGreaterThanOrEqual(
        2,
      );
    }
    expect((await call("user", "PUT", `/api/v1/Projects(${idea})/ActionStandard`, { standardQuestionId: 5, against: "benchmark" })).status).toBe(200);
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

describe("Responses/SummaryCurrent: whether an AI summary still agrees with the view (issue 37)", () => {
  test("a summary citing the view's figures is current; one citing a norm that has moved since is not, and says so; another project's summary is a 404", async () => {
    const qs = "benchmarkTypeId=1&total=markets";
    const q = await call("user", "GET", `/api/v1/Responses/QualResults?projectId=${idea}&${qs}`);
    const r = q.body.measures[0].results[0];
    const cite = (norm: number) => [
      {
        value: r.top2,
        source: { fn: "QualResults", filters: {}, benchmarkTypeId: 1, total: "markets", standardQuestionId: q.body.measures[0].standardQuestionId, testOptionId: r.testOptionId, field: "top2" },
      },
      {
        value: norm,
        source: {
          fn: "QualResults",
          filters: {},
          benchmarkTypeId: 1,
          total: "markets",
          standardQuestionId: q.body.measures[0].standardQuestionId,
          testOptionId: r.testOptionId,
          field: "vsBenchmark.top2Percentage",
        },
      },
    ];
    const write = async (refs: unknown) =>
      (
        await tdb.db<{ id: number }[]>`
        insert into ai_project_summaries (client_id, project_id, summary_type, status, content, generated_at, benchmark_type_id, total, references_data)
        values (${team}, ${idea}, 'FullTestSummary', 'Ready', 'A summary.', now(), 1, 'markets', ${jsonParam(tdb.db, refs)}) returning id`
      )[0]!.id;
    const now = await write(cite(r.vsBenchmark.top2Percentage));
    // The norm as it was before another project moved it: 0.4 points lower.
    const then = await write(cite(r.vsBenchmark.top2Percentage - 0.4));
    const ask = (id: number, project = idea) => call("viewer", "GET", `/api/v1/Responses/SummaryCurrent?projectId=${project}&summaryId=${id}&${qs}`);
    expect((await ask(now)).body).toEqual({ summaryId: now, current: true, note: null });
    const stale = await ask(then);
    expect(stale.body.current).toBe(false);
    expect(stale.body.note).toContain("cites figures or states a verdict that have changed since");
    expect((await ask(now, tracker)).status).toBe(404);
    // A summary that states the verdict: current while it is the view's verdict, not once the standard changes.
    const sc = await call("user", "GET", `/api/v1/Responses/Scorecard?projectId=${idea}&${qs}`);
    const stated = await write(cite(r.vsBenchmark.top2Percentage));
    await tdb.db`update ai_project_summaries set content = ${`## Title\n\n**Verdict** (action standard: Likability): ${sc.body.headline} In the order the paired tests give: ...`} where id = ${stated}`;
    expect((await ask(stated)).body.current).toBe(true);
    await tdb.db`update ai_project_summaries set content = ${"## Title\n\n**Verdict** (action standard: Likability): Go: a concept the view does not pass meets the action standard."} where id = ${stated}`;
    const changed = await ask(stated);
    expect(changed.body.current).toBe(false);
    expect(changed.body.note).toContain("states a verdict");
    await tdb.db`delete from ai_project_summaries where id in (${now}, ${then}, ${stated})`;
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
