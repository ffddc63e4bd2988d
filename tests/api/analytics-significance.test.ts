// Weighted top-2-box and the pooled two-proportion z-test with Kish effective bases.
import { describe, expect, test } from "bun:test";
import { compareTopTwoBox, erfc, normalCdf, topTwoBox, twoProportionZTest } from "../../api/src/analytics/significance.ts";

describe("normal CDF", () => {
  test("known values (A&S 7.1.26 accuracy)", () => {
    expect(normalCdf(0)).toBeCloseTo(0.5, 8);
    expect(normalCdf(1.959963984540054)).toBeCloseTo(0.975, 6);
    expect(normalCdf(-1)).toBeCloseTo(0.15865525393145707, 6);
    expect(normalCdf(2.5758293035489004)).toBeCloseTo(0.995, 6);
    expect(erfc(0)).toBeCloseTo(1, 8);
    expect(erfc(-3)).toBeCloseTo(2 - erfc(3), 15);
  });
});

describe("top-2-box", () => {
  test("weighted share of valid answers, with Kish base", () => {
    // Answered: 1 (w2), 2 (w1), 3 (w1), 4 (w0); null and 7 are not answers. T2B = 3/4.
    const t = topTwoBox([1, 2, 3, 4, null, 7], [2, 1, 1, 0, 5, 5]);
    expect(t.n).toBe(4);
    expect(t.sumW).toBe(4);
    expect(t.p).toBe(0.75);
    expect(t.nEff).toBeCloseTo(16 / 6, 12);
    expect(topTwoBox([1, 3, 4, 2])).toEqual({ p: 0.5, n: 4, nEff: 4, sumW: 4 });
    expect(Number.isNaN(topTwoBox([null]).p)).toBe(true);
  });
});

describe("two-proportion z-test", () => {
  // .6 vs .5 on 100 each: p̂ = .55, SE = √(.55·.45·.02) = .0703562, z = 1.4213381, two-sided p = .1552.
  test("pooled z and p-value", () => {
    const r = twoProportionZTest({ p: 0.6, n: 100 }, { p: 0.5, n: 100 });
    expect(r.pooled).toBeCloseTo(0.55, 12);
    expect(r.z).toBeCloseTo(1.4213381090374029, 10);
    expect(r.pValue).toBeCloseTo(0.15521848968468402, 6);
    expect(r.significant).toBe(false);
    expect(r.smallBase).toBe(false);
    expect(twoProportionZTest({ p: 0.6, n: 100 }, { p: 0.5, n: 100 }, 90).significant).toBe(false);
    // z = 1.4213·√2 = 2.01 at n = 200 each: significant at 95, not at 99.
    expect(twoProportionZTest({ p: 0.6, n: 200 }, { p: 0.5, n: 200 }, 95).significant).toBe(true);
    expect(twoProportionZTest({ p: 0.6, n: 200 }, { p: 0.5, n: 200 }, 99).significant).toBe(false);
    expect(twoProportionZTest({ p: 0.5, n: 200 }, { p: 0.6, n: 200 }).z).toBeLessThan(0);
  });

  test("degenerate and small bases", () => {
    const same = twoProportionZTest({ p: 1, n: 50 }, { p: 1, n: 50 });
    expect(same.z).toBe(0);
    expect(same.pValue).toBeCloseTo(1, 8);
    expect(twoProportionZTest({ p: 0.6, n: 29.9 }, { p: 0.5, n: 100 }).smallBase).toBe(true);
    expect(twoProportionZTest({ p: 0.6, n: 0 }, { p: 0.5, n: 100 }).significant).toBe(false);
  });

  test("weighted comparison uses n_eff, so weighting widens the test", () => {
    // 100 vs 100 answers with T2B .6 vs .5; weights alternating 0.5/1.5 give n_eff = 80 per group.
    const a = Array.from({ length: 100 }, (_, i) => (i % 10 < 6 ? 1 : 4));
    const b = Array.from({ length: 100 }, (_, i) => (i % 20 < 10 ? 2 : 3));
    const w = Array.from({ length: 100 }, (_, i) => (i % 2 === 0 ? 0.5 : 1.5));
    const unweighted = compareTopTwoBox({ answers: a }, { answers: b });
    const weighted = compareTopTwoBox({ answers: a, weights: w }, { answers: b, weights: w });
    expect(weighted.a.p).toBeCloseTo(0.6, 12);
    expect(weighted.b.p).toBeCloseTo(0.5, 12);
    expect(weighted.a.nEff).toBeCloseTo(80, 10); // (100)² / (50·.25 + 50·2.25)
    expect(unweighted.test.z).toBeCloseTo(1.4213381090374029, 10);
    expect(weighted.test.z).toBeCloseTo(1.4213381090374029 * Math.sqrt(0.8), 10);
  });
});
