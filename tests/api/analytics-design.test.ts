// Design-based variance, paired and independent comparisons, multiple-comparison control, Wilson
// intervals and norms (api/src/analytics/design.ts) against R's survey package: the expected
// values are tests/fixtures/stats/reference.json, written by tests/fixtures/stats/reference.R
// (survey 4.1.1) from the committed CSVs there. R is not needed to run this file.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "../../api/src/analytics/csv.ts";
import { adjustP, compareLong, isSmallBase, normDistribution, normQuintile, testAgainstNorm, THIN_NORM, wilsonInterval, type LongInput } from "../../api/src/analytics/design.ts";

const dir = join(import.meta.dir, "../fixtures/stats");
const csv = (f: string) => parseCsvObjects(readFileSync(join(dir, f), "utf8")).rows;
interface RefGroup { group: string; n: number; nEff: number; share: number; se: number; ci?: number[] | Record<string, never> }
interface RefComp { a: string; b: string; diff: number; se: number; cov: number; p: number; pAdjusted: number; pBonferroni: number }
interface Ref { scenarios: { name: string; groups: RefGroup[]; comparisons: RefComp[] }[]; norm: { scores: number[]; concept: number; se: number; mean: number; sd: number; count: number; z: number; p: number } }
const ref = JSON.parse(readFileSync(join(dir, "reference.json"), "utf8")) as Ref;
const scenario = (name: string) => ref.scenarios.find((s) => s.name === name)!;

function long(file: string, o: { group: string; respondent?: string; strata?: string; top?: boolean; keep?: (r: Record<string, string>) => boolean }): LongInput[] {
  return csv(file).map((r) => ({
    respondent: o.respondent ? r[o.respondent]! : null,
    stratum: o.strata ? r[o.strata]! : null,
    weight: Number(r.w),
    group: r[o.group]!,
    y: r.value === "" || (o.keep && !o.keep(r)) ? null : o.top === false ? Number(r.value) : Number(r.value) <= 2 ? 1 : 0,
  }));
}

function expectMatches(name: string, rows: LongInput[], withCi = true) {
  const s = scenario(name);
  const got = compareLong(rows, { confidence: 95, adjust: "bh" });
  const bonf = compareLong(rows, { confidence: 95, adjust: "bonferroni" });
  expect(got.groups.map((g) => g.group)).toEqual(s.groups.map((g) => g.group));
  s.groups.forEach((e, i) => {
    const g = got.groups[i]!;
    expect(g.n).toBe(e.n);
    expect(Math.abs(g.nEff - e.nEff)).toBeLessThan(1e-6);
    expect(Math.abs(g.share - e.share)).toBeLessThan(1e-6);
    expect(Math.abs(g.se - e.se)).toBeLessThan(1e-6);
    if (withCi && Array.isArray(e.ci)) {
      expect(Math.abs(g.ci[0] - e.ci[0]!)).toBeLessThan(1e-6);
      expect(Math.abs(g.ci[1] - e.ci[1]!)).toBeLessThan(1e-6);
    }
  });
  expect(got.comparisons.length).toBe(s.comparisons.length);
  s.comparisons.forEach((e, i) => {
    const c = got.comparisons[i]!;
    expect([c.a, c.b]).toEqual([e.a, e.b]);
    expect(Math.abs(c.diff - e.diff)).toBeLessThan(1e-6);
    expect(Math.abs(c.se - e.se)).toBeLessThan(1e-6);
    expect(Math.abs(c.p - e.p)).toBeLessThan(1e-6);
    expect(Math.abs(c.pAdjusted - e.pAdjusted)).toBeLessThan(1e-6);
    expect(Math.abs(bonf.comparisons[i]!.pAdjusted - e.pBonferroni)).toBeLessThan(1e-6);
  });
  return got;
}

describe("design-based estimates reproduce R survey (svyby covmat, svycontrast, p.adjust)", () => {
  test("sequential monadic, stratified by market, paired comparisons", () => {
    const got = expectMatches("sequential", long("sequential.csv", { group: "option", respondent: "respondent", strata: "market" }));
    expect(got.comparisons.every((c) => c.paired)).toBe(true);
    expect(got.method).toMatchObject({ variance: "taylor-linearisation", strata: true, paired: true, adjust: "bh", adjustName: "Benjamini-Hochberg" });
  });
  test("a weighted mean (answer value) per option", () => {
    expectMatches("sequential-mean", long("sequential.csv", { group: "option", respondent: "respondent", strata: "market", top: false }), false);
  });
  test("a filtered subgroup is a domain of the whole design", () => {
    expectMatches("sequential-female", long("sequential.csv", { group: "option", respondent: "respondent", strata: "market", keep: (r) => r.gender === "F" }));
  });
  test("without strata", () => {
    const got = expectMatches("sequential-unstratified", long("sequential.csv", { group: "option", respondent: "respondent" }));
    expect(got.method.strata).toBe(false);
  });
  test("without respondent ids every row is a unit: independent comparisons, wider than paired", () => {
    const got = expectMatches("sequential-rows", long("sequential.csv", { group: "option", strata: "market" }));
    expect(got.comparisons.every((c) => !c.paired)).toBe(true);
    const paired = scenario("sequential").comparisons;
    got.comparisons.forEach((c, i) => expect(c.se).toBeGreaterThan(paired[i]!.se));
  });
  test("split cells: disjoint samples, and 100% of 21 gets an interval that is not zero width", () => {
    const got = expectMatches("split", long("split.csv", { group: "option", respondent: "respondent", strata: "market" }));
    expect(got.comparisons.every((c) => !c.paired)).toBe(true);
    const d = got.groups.find((g) => g.group === "D")!;
    expect(d.share).toBe(1);
    expect(d.ci[1]).toBe(1);
    // Wilson at p = 1 with the Kish n_eff standing in (no variance to read n* from): lower = n_eff/(n_eff + z²).
    expect(d.nEff).toBeLessThan(21);
    expect(d.ci[0]).toBeCloseTo(d.nEff / (d.nEff + 1.959963984540054 ** 2), 12);
  });
  test("waves: disjoint samples in their own market-run strata", () => {
    const got = expectMatches("waves", long("waves.csv", { group: "wave", respondent: "respondent", strata: "run" }));
    expect(got.comparisons[0]!.paired).toBe(false);
  });
});

describe("multiple comparisons", () => {
  test("BH and Bonferroni as R's p.adjust (hand-worked)", () => {
    // p = .01, .04, .03, .2: BH sorted .01·4/1 = .04, .03·4/2 = .06, .04·4/3 = .0533 -> cummin from the top: .2, .0533, .0533, .04.
    expect(adjustP([0.01, 0.04, 0.03, 0.2], "bh").map((x) => +x.toFixed(10))).toEqual([0.04, 0.0533333333, 0.0533333333, 0.2]);
    expect(adjustP([0.01, 0.04, 0.03, 0.3], "bonferroni")).toEqual([0.04, 0.16, 0.12, 1]);
    expect(adjustP([0.01, NaN, 0.03], "bh").map((x) => (Number.isNaN(x) ? null : +x.toFixed(10)))).toEqual([0.02, null, 0.03]);
    expect(adjustP([0.01, 0.5], "none")).toEqual([0.01, 0.5]);
  });
  test("adjustment changes what is significant", () => {
    const rows = long("sequential.csv", { group: "option", respondent: "respondent", strata: "market", keep: (r) => r.gender === "F" });
    const none = compareLong(rows, { confidence: 95, adjust: "none" });
    const bonf = compareLong(rows, { confidence: 95, adjust: "bonferroni" });
    expect(none.comparisons.map((c) => c.pAdjusted)).toEqual(none.comparisons.map((c) => c.p));
    bonf.comparisons.forEach((c, i) => expect(c.pAdjusted).toBeGreaterThanOrEqual(none.comparisons[i]!.p));
  });
});

describe("intervals and bases", () => {
  test("Wilson never has zero width and stays in [0, 1]", () => {
    const zero = wilsonInterval(0, 0, 50, 50, 95);
    expect(zero.lo).toBe(0);
    expect(zero.hi).toBeCloseTo(1.959963984540054 ** 2 / (50 + 1.959963984540054 ** 2), 12);
    const mid = wilsonInterval(0.5, 0.05, 1000, 100, 95);
    // n* = .25/.0025 = 100.
    expect(mid.nStar).toBeCloseTo(100, 9);
    expect(mid.hi - mid.lo).toBeGreaterThan(0);
  });
  test("low base: 30 is not small, 29.99 is, 30.01 is not", () => {
    expect(isSmallBase(30)).toBe(false);
    expect(isSmallBase(29.99)).toBe(true);
    expect(isSmallBase(30.01)).toBe(false);
  });
});

describe("norms as distributions", () => {
  test("mean, between-project SD and the test against the norm (R reference)", () => {
    const n = ref.norm;
    const d = normDistribution(n.scores);
    expect(d.count).toBe(n.count);
    expect(Math.abs(d.mean - n.mean)).toBeLessThan(1e-12);
    expect(Math.abs(d.sd - n.sd)).toBeLessThan(1e-12);
    const t = testAgainstNorm(n.concept, n.se, d);
    expect(Math.abs(t.z - n.z)).toBeLessThan(1e-9);
    expect(Math.abs(t.p - n.p)).toBeLessThan(1e-9);
    expect(t.thin).toBe(false);
  });
  test("thin at fewer than THIN_NORM projects: 4 thin, 5 not, 6 not", () => {
    expect(THIN_NORM).toBe(5);
    expect(testAgainstNorm(0.9, 0.01, normDistribution([0.5, 0.52, 0.48, 0.5])).thin).toBe(true);
    expect(testAgainstNorm(0.9, 0.01, normDistribution([0.5, 0.52, 0.48, 0.5, 0.51])).thin).toBe(false);
    expect(testAgainstNorm(0.9, 0.01, normDistribution([0.5, 0.52, 0.48, 0.5, 0.51, 0.49])).thin).toBe(false);
  });
  test("quintiles from the mid-rank percentile", () => {
    const s = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0];
    expect(normQuintile(0.05, s)).toBe(1); // 0%
    expect(normQuintile(0.25, s)).toBe(2); // 2/10 = 20% -> second fifth
    expect(normQuintile(0.2, s)).toBe(1); // (1 + .5)/10 = 15%
    expect(normQuintile(0.95, s)).toBe(5);
    expect(normQuintile(2, s)).toBe(5); // 100% capped
    expect(normQuintile(0.5, [])).toBe(null);
  });
});

describe("all-markets total", () => {
  test("a market without a population figure falls back to sample weighting, and says so", async () => {
    const { marketTotals } = await import("../../api/src/domains/results/results.service.ts");
    const cells = [
      { run: 1, standardQuestionId: 5, a: null, b: null, nn: 2, aa: 1, ab: 1, bb: 2, sA: 1, sB: 2 },
      { run: 2, standardQuestionId: 5, a: null, b: null, nn: 2, aa: 0, ab: 0, bb: 2, sA: 0, sB: 2 },
    ];
    const strata = [
      { run: 1, regionId: 1, n: 2, sumW: 2 },
      { run: 2, regionId: 999999, n: 2, sumW: 2 },
    ];
    const t = marketTotals(cells, strata, 95, "population");
    expect(t.allMarkets.weighting).toBe("sample");
    expect(t.allMarkets.note).toBe("No population figure for region 999999: markets weighted by sample");
    expect(t.allMarkets.measures[0]!.results[0]!.top2).toBe(0.25);
    // Both known (NZ and AU): weighted by population, NZ's 1/2 at its population share.
    const known = marketTotals(cells, [strata[0]!, { ...strata[1]!, regionId: 2 }], 95, "population");
    expect(known.allMarkets.weighting).toBe("population");
    expect(known.allMarkets.measures[0]!.results[0]!.top2).toBeCloseTo((0.5 * 5_338_900) / (5_338_900 + 27_204_809), 12);
    expect(known.markets.map((m) => m.measures[0]!.results[0]!.top2)).toEqual([0.5, 0]);
  });
});
