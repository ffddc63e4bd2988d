// Design-based variance, paired and independent comparisons, multiple-comparison control, Wilson
// intervals and norms (analytics/design.ts) against R's survey package: the expected
// values are tests/fixtures/stats/reference.json, written by tests/fixtures/stats/reference.R
// (survey 4.1.1) from the committed CSVs there. R is not needed to run this file.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";
import {
  adjustP,
  compareLong,
  designEffect,
  fixedNorm,
  isSmallBase,
  normDistribution,
  normQuintile,
  significantAt,
  testAgainstNorm,
  THIN_NORM,
  wilsonInterval,
  type LongInput,
} from "@ideally/analytics/design";

const dir = join(import.meta.dir, "../fixtures/stats");
const csv = (f: string) => parseCsvObjects(readFileSync(join(dir, f), "utf8")).rows;
interface RefGroup {
  group: string;
  n: number;
  nEff: number;
  share: number;
  se: number;
  ci?: number[] | Record<string, never>;
}
interface RefComp {
  a: string;
  b: string;
  diff: number;
  se: number;
  cov: number;
  p: number;
  pAdjusted: number;
  pBonferroni: number;
}
interface Ref {
  scenarios: { name: string; groups: RefGroup[]; comparisons: RefComp[] }[];
  norm: { scores: number[]; concept: number; se: number; mean: number; sd: number; count: number; z: number; p: number };
}
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
  // reference.R tests every pair (its split scenario has a group of 21): minBase 0 tests them all too.
  const got = compareLong(rows, { confidence: 95, adjust: "bh", minBase: 0 });
  const bonf = compareLong(rows, { confidence: 95, adjust: "bonferroni", minBase: 0 });
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
    expect(Math.abs(c.p! - e.p)).toBeLessThan(1e-6);
    expect(Math.abs(c.pAdjusted! - e.pAdjusted)).toBeLessThan(1e-6);
    expect(Math.abs(bonf.comparisons[i]!.pAdjusted! - e.pBonferroni)).toBeLessThan(1e-6);
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
    got.comparisons.forEach((c, i) => {
      expect(c.se).toBeGreaterThan(paired[i]!.se);
    });
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
    bonf.comparisons.forEach((c, i) => {
      expect(c.pAdjusted).toBeGreaterThanOrEqual(none.comparisons[i]!.p!);
    });
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

// Edges of the rules in analytics/design.ts, each expected value worked by hand (python's math for
// the Wilson bounds and erfc) from the formulas in the file's comments.
describe("design: edges worked by hand", () => {
  const Z = 1.959963984540054;
  const row = (group: string, y: number | null, respondent: string | null = null, stratum: string | null = null, weight = 1): LongInput => ({ respondent, stratum, weight, group, y });

  test("significance: adjusted p below 1 − confidence, strictly; NaN never", () => {
    expect([0.0499, 0.05, 0.5, Number.NaN].map((p) => significantAt(p, 95))).toEqual([true, false, false, false]);
    expect([0.0099, 0.01, 0.02].map((p) => significantAt(p, 99))).toEqual([true, false, false]);
    expect([0.0999, 0.1].map((p) => significantAt(p, 90))).toEqual([true, false]);
  });

  test("the method block names the adjustment, the interval and whether strata and pairing were used", () => {
    const rows = [row("a", 1, "r1", "s"), row("a", 0, "r2", "s"), row("b", 1, "r1", "s"), row("b", 1, "r2", "s")];
    expect(compareLong(rows, { confidence: 95, adjust: "bonferroni" }).method).toMatchObject({ adjustName: "Bonferroni", interval: "wilson-neff", strata: true, paired: true });
    expect(compareLong(rows, { confidence: 95, adjust: "none" }).method.adjustName).toBe("none");
    expect(compareLong([row("a", 1), row("b", 0)], { confidence: 95, adjust: "bh" }).method).toMatchObject({ strata: false, paired: false });
    // One row with a respondent id or a stratum is enough to say so.
    expect(compareLong([row("a", 1, "r1", null), row("b", 0, null, "s")], { confidence: 95, adjust: "bh" }).method).toMatchObject({ strata: true, paired: true });
  });

  test("groups come out sorted by name whatever the input order", () => {
    const got = compareLong([row("c", 1), row("a", 0), row("b", 1), row("a", 1)], { confidence: 95, adjust: "bh" });
    expect(got.groups.map((g) => g.group)).toEqual(["a", "b", "c"]);
    expect(got.comparisons.map((c) => [c.a, c.b])).toEqual([
      ["a", "b"],
      ["a", "c"],
      ["b", "c"],
    ]);
  });

  test("100% against 0%: the pooled binomial SE with Kish bases, either way round", () => {
    // 10 at 0% and 30 at 100%, independent: pooled .75, SE √(.75·.25·(1/10 + 1/30)) = 0.158113883,
    // z = 6.32455532, p = erfc(z/√2) = 2.5396286e-10.
    const rows = [...Array.from({ length: 10 }, () => row("a", 0)), ...Array.from({ length: 30 }, () => row("b", 1))];
    // The arithmetic of the contrast: tested whatever the bases (minBase 0).
    const ab = compareLong(rows, { confidence: 95, adjust: "none", minBase: 0 }).comparisons[0]!;
    expect(ab.diff).toBe(-1);
    expect(ab.se).toBeCloseTo(0.15811388300841897, 12);
    expect(ab.z).toBeCloseTo(-6.324555320336758, 9);
    expect(ab.p! / 2.539628589470881e-10).toBeCloseTo(1, 6);
    const flipped = rows.map((r) => ({ ...r, y: 1 - r.y! }));
    const ba = compareLong(flipped, { confidence: 95, adjust: "none", minBase: 0 }).comparisons[0]!;
    expect(ba.diff).toBe(1);
    expect(ba.se).toBeCloseTo(0.15811388300841897, 12);
    // 100% against 100%: no evidence of a difference, z 0 and p 1.
    const same = compareLong([row("a", 1), row("a", 1), row("b", 1), row("b", 1)], { confidence: 95, adjust: "none", minBase: 0 }).comparisons[0]!;
    expect([same.diff, same.se, same.z, same.p]).toEqual([0, 0, 0, 1]);
  });

  test("a stratum of one respondent adds no variance (survey's lonely.psu = certainty)", () => {
    // s1: y 1 and 0; s2: y 1. p = 2/3, W = 3; s1's scores (1 − 2/3)/3 = 1/9 and −2/9, mean −1/18,
    // squares about it 2·(1/6)² = 1/18, times n/(n − 1) = 2: variance 1/9, SE 1/3.
    const g = compareLong([row("a", 1, "r1", "s1"), row("a", 0, "r2", "s1"), row("a", 1, "r3", "s2")], { confidence: 95, adjust: "bh" }).groups[0]!;
    expect(g.share).toBeCloseTo(2 / 3, 12);
    expect(g.se).toBeCloseTo(1 / 3, 12);
  });

  test("a group nobody answered: no share, no variance, no base", () => {
    const got = compareLong([row("a", 1, "r1"), row("a", 0, "r2"), row("b", null, "r1"), row("b", null, "r2")], { confidence: 95, adjust: "bh" });
    const b = got.groups[1]!;
    expect(b.group).toBe("b");
    expect([b.n, b.nEff, b.se]).toEqual([0, 0, 0]);
    expect(b.share).toBeNaN();
    expect(b.smallBase).toBe(true);
  });

  test("Wilson: n* from the variance, capped at n; the Kish base at 0%, 100% or no variance; nothing without a base", () => {
    // p .5, se .05: n* = .25/.0025 = 100, capped at n = 50.
    const capped = wilsonInterval(0.5, 0.05, 50, 100, 95);
    expect(capped.nStar).toBe(50);
    expect(capped.lo).toBeCloseTo(0.3664451431682858, 12);
    expect(capped.hi).toBeCloseTo(0.6335548568317142, 12);
    // No variance at p .5: the Kish base, 30.
    const flat = wilsonInterval(0.5, 0, 50, 30, 95);
    expect(flat.nStar).toBe(30);
    expect(flat.lo).toBeCloseTo(0.33154125640533766, 12);
    // 0% and 100% with a variance: still the Kish base (40), one end exact: z²/(40 + z²) and 40/(40 + z²).
    const zero = wilsonInterval(0, 0.1, 50, 40, 95);
    expect([zero.lo, zero.nStar]).toEqual([0, 40]);
    expect(zero.hi).toBeCloseTo((Z * Z) / (40 + Z * Z), 12);
    const one = wilsonInterval(1, 0.1, 50, 40, 95);
    expect([one.hi, one.nStar]).toEqual([1, 40]);
    expect(one.lo).toBeCloseTo(40 / (40 + Z * Z), 12);
    expect(wilsonInterval(1, 0, 7, 7, 95).hi).toBe(1);
    expect(wilsonInterval(0.5, 0, 0, 0, 95)).toEqual({ lo: Number.NaN, hi: Number.NaN, nStar: 0 });
    expect(wilsonInterval(Number.NaN, 0.1, 50, 50, 95)).toEqual({ lo: Number.NaN, hi: Number.NaN, nStar: 0 });
  });

  test("norms: scores that are not numbers are left out and the rest sorted; a fixed value adds no variance", () => {
    const d = normDistribution([0.3, Number.NaN, 0.1, 0.2]);
    expect(d.scores).toEqual([0.1, 0.2, 0.3]);
    expect(d.count).toBe(3);
    expect(d.mean).toBeCloseTo(0.2, 12);
    expect(d.sd).toBeCloseTo(0.1, 12);
    expect(fixedNorm(0.5)).toEqual({ mean: 0.5, sd: 0, count: Number.POSITIVE_INFINITY, scores: [] });
    // (0.6 − 0.5)/0.05 = 2.
    const t = testAgainstNorm(0.6, 0.05, fixedNorm(0.5));
    expect(t.z).toBeCloseTo(2, 12);
    expect([t.thin, t.quintile]).toEqual([false, null]);
    // Equal to the norm with no variance at all: z 0, not NaN; different with no variance: no z.
    expect(testAgainstNorm(0.5, 0, fixedNorm(0.5)).z).toBe(0);
    expect(testAgainstNorm(0.6, 0, fixedNorm(0.5)).z).toBeNaN();
    expect(testAgainstNorm(0.6, 0, fixedNorm(0.5)).p).toBeNaN();
  });

  test("quintile of a score tied with every project: the middle fifth (mid-rank 50%)", () => {
    expect(normQuintile(0.5, [0.5, 0.5, 0.5, 0.5, 0.5])).toBe(3);
  });
});

test("adjustmentWords: a view that could test nothing says so, never 'over the view's 0 tests'", async () => {
  const { adjustmentWords } = await import("@ideally/analytics/design");
  expect(adjustmentWords({ adjust: "bh", tests: 15 })).toBe("Benjamini-Hochberg adjustment over the view's 15 tests");
  expect(adjustmentWords({ adjust: "bonferroni", tests: 1 })).toBe("Bonferroni adjustment over the view's 1 test");
  expect(adjustmentWords({ adjust: "none", tests: 15 })).toBe("no multiple-comparison adjustment");
  expect(adjustmentWords({ adjust: "bh", tests: 0 })).not.toContain("0 tests");
  expect(adjustmentWords({ adjust: "bh", tests: 0 })).toContain("nothing in this view could be tested");
});

describe("design effects and the minimum base (issue 37) on compareLong, against R's survey (clustered.R)", () => {
  // The "respondents" scenario: svydesign(ids = ~respondent, strata = ~site, weights = ~w), each
  // respondent a PSU, as compareLong takes them. Expected values: tests/fixtures/stats/clustered-reference.json.
  interface ClGroup {
    group: string;
    n: number;
    clusters: number;
    nEff: number;
    share: number;
    se: number;
    deff: number;
    ci: number[];
    lowBase: boolean;
  }
  interface ClComp {
    a: string;
    b: string;
    diff: number;
    se: number;
    tested: boolean;
    p: number | null;
    pAdjusted: number | null;
    pBonferroni: number | null;
  }
  const cl = JSON.parse(readFileSync(join(dir, "clustered-reference.json"), "utf8")) as { minBase: number; scenarios: { name: string; groups: ClGroup[]; comparisons: ClComp[] }[] };
  const s = cl.scenarios.find((x) => x.name === "respondents")!;
  const rows: LongInput[] = csv("clustered.csv").map((r) => ({
    respondent: r.respondent!,
    stratum: r.site!,
    weight: Number(r.w),
    group: r.option!,
    y: r.value === "" ? null : Number(r.value) <= 2 ? 1 : 0,
  }));
  const near = (got: number | null, want: number | null) => {
    expect(got).not.toBeNull();
    expect(Math.abs(got! - want!)).toBeLessThanOrEqual(1e-9 * Math.max(1, Math.abs(want!)));
  };

  test("each group's share, SE, Kish n_eff, design effect and low base as R gives them; pairs with the low-base group untested", () => {
    // Rows in shuffled order: the groups still come out sorted by name, as R orders factor levels.
    const shuffled = rows
      .map((r, i) => [((i * 7919) % rows.length) + i / rows.length, r] as const)
      .sort((a, b) => a[0] - b[0])
      .map(([, r]) => r);
    for (const input of [rows, shuffled]) {
      const got = compareLong(input, { confidence: 95, adjust: "bh" });
      expect(got.method.minBase).toBe(cl.minBase);
      expect(got.groups.map((g) => [g.group, g.n, g.smallBase])).toEqual(s.groups.map((g) => [g.group, g.n, g.lowBase]));
      s.groups.forEach((e, i) => {
        const g = got.groups[i]!;
        near(g.share, e.share);
        near(g.se, e.se);
        near(g.nEff, e.nEff);
        near(g.deff, e.deff);
        near(g.ci[0], e.ci[0]!);
        near(g.ci[1], e.ci[1]!);
      });
      expect(got.comparisons.map((c) => [c.a, c.b, c.tested])).toEqual(s.comparisons.map((c) => [c.a, c.b, c.tested]));
      s.comparisons.forEach((e, i) => {
        const c = got.comparisons[i]!;
        near(c.diff, e.diff);
        near(c.se, e.se);
        if (e.tested) {
          near(c.p, e.p);
          near(c.pAdjusted, e.pAdjusted);
        } else expect([c.z, c.p, c.pAdjusted, c.significant]).toEqual([null, null, null, false]);
      });
      // The family the adjustment runs over: the tested pairs only (D's three are not).
      expect(got.method.tests).toBe(s.comparisons.filter((c) => c.tested).length);
      expect(got.method.lonelyPsu).toBe("certainty");
      // Respondents are the PSUs here: no clusters above them; strata by site; paired by respondent.
      expect([got.method.clusters, got.method.strata, got.method.paired]).toEqual([false, true, true]);
      const bonf = compareLong(input, { confidence: 95, adjust: "bonferroni" });
      s.comparisons.forEach((e, i) => {
        if (e.tested) near(bonf.comparisons[i]!.pAdjusted, e.pBonferroni);
      });
    }
  });

  test("the minimum base at its edge: a group exactly at it is tested, just under it is not", () => {
    // The bases as computed (equal to R's to 1e-9, above): the edge is the comparison itself.
    const bases = compareLong(rows, { confidence: 95, adjust: "bh" }).groups;
    const d = bases.find((g) => g.group === "D")!;
    const at = compareLong(rows, { confidence: 95, adjust: "bh", minBase: d.nEff });
    expect(at.groups.find((g) => g.group === "D")!.smallBase).toBe(false);
    expect(at.comparisons.filter((c) => c.tested).length).toBe(6);
    expect(at.method.tests).toBe(6);
    const above = compareLong(rows, { confidence: 95, adjust: "bh", minBase: d.nEff + 1e-9 });
    expect(above.groups.map((g) => g.smallBase)).toEqual([false, false, false, true]);
    expect(above.comparisons.map((c) => c.tested)).toEqual([true, true, false, true, false, false]);
    // A pair is tested only when both groups are at the base: n_eff A 111.8 < B 114.7 < C 119.8, so a
    // base just above A's leaves A and D low and only B-C tested.
    const lowA = compareLong(rows, { confidence: 95, adjust: "bh", minBase: bases[0]!.nEff + 1e-9 });
    expect(lowA.groups.map((g) => g.smallBase)).toEqual([true, false, false, true]);
    expect(lowA.comparisons.map((c) => [c.a, c.b, c.tested])).toEqual([
      ["A", "B", false],
      ["A", "C", false],
      ["A", "D", false],
      ["B", "C", true],
      ["B", "D", false],
      ["C", "D", false],
    ]);
    expect(lowA.method.tests).toBe(1);
    // One test: its adjusted p is its own p under either adjustment.
    const bc = lowA.comparisons[3]!;
    expect(bc.pAdjusted).toBe(bc.p);
  });

  test("a group's design effect counts only its rows with a weight (m of Kish's deff): a zero-weight row is in the design, not in m", () => {
    // Group a: four rows, one with weight 0; b: three rows. m for a is 3, not 4.
    const row = (group: string, y: number, weight: number, respondent: string): LongInput => ({ respondent, stratum: null, weight, group, y });
    const got = compareLong([row("a", 1, 1, "r1"), row("a", 0, 2, "r2"), row("a", 1, 1, "r3"), row("a", 0, 0, "r4"), row("b", 1, 1, "r1"), row("b", 0, 1, "r2"), row("b", 1, 2, "r3")], {
      confidence: 95,
      adjust: "none",
      minBase: 0,
    }).groups;
    const a = got.find((g) => g.group === "a")!;
    expect(a.deff).not.toBeNull();
    expect(a.deff!).toBeCloseTo(designEffect(a.share, a.se, 3), 12);
    expect(Math.abs(a.deff! - designEffect(a.share, a.se, 4))).toBeGreaterThan(1e-6);
  });

  test('designEffect = se² / (p(1 − p)/(m − 1)) (Kish 1965; R\'s deff = "replace"), NaN without variance or under two observations', () => {
    // p .5, m 101: SRS variance .25/100 = .0025; se .05 gives .0025 / .0025 = 1.
    expect(designEffect(0.5, 0.05, 101)).toBeCloseTo(1, 12);
    // p .2, m 17: .16/16 = .01; se .05: .0025/.01 = .25. se .2: .04/.01 = 4.
    expect(designEffect(0.2, 0.05, 17)).toBeCloseTo(0.25, 12);
    expect(designEffect(0.2, 0.2, 17)).toBeCloseTo(4, 12);
    // m 2, the smallest: .25/1; se .25 gives .0625/.25 = .25. m 1 and 0: NaN.
    expect(designEffect(0.5, 0.25, 2)).toBeCloseTo(0.25, 12);
    expect(designEffect(0.5, 0.25, 1)).toBeNaN();
    expect(designEffect(0.5, 0.25, 0)).toBeNaN();
    expect(designEffect(0, 0.1, 50)).toBeNaN();
    expect(designEffect(1, 0.1, 50)).toBeNaN();
  });
});
