// Weighted top-2-box and the pooled two-proportion z-test with Kish effective bases.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "bun:test";
import { twoSidedP } from "@ideally/analytics/design";
import { compareTopTwoBox, erfc, normalCdf, topTwoBox, twoProportionZTest } from "@ideally/analytics/significance";

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

  test("unequal bases: p̂ pools the successes, weighted by each base (worked by hand)", () => {
    // .6 of 300 vs .45 of 100 (DOMAIN.md's pooled p̂ = (p₁n₁ + p₂n₂)/(n₁ + n₂)):
    //   successes 180 + 45 = 225 of 400, p̂ = 225/400 = .5625 (the plain mean of .6 and .45 would be .525);
    //   p̂(1 - p̂) = .5625 x .4375 = .24609375; 1/300 + 1/100 = 4/300;
    //   SE² = .24609375 x 4/300 = .00328125 = 21/6400, SE = √21/80 = .0572821962;
    //   z = .15 / (√21/80) = 12/√21 = 4√21/7 = 2.6186146828;
    //   two-sided p: the normal table gives Φ(2.62) = .99560, so p = 2(1 - .99560) = .0088 at z = 2.62
    //   (2.6186 lies between 2.61, Φ .99547, and 2.62: p between .0088 and .0091).
    //   |z| > 1.9600 and > 2.5758: significant at 95 and at 99.
    const r = twoProportionZTest({ p: 0.6, n: 300 }, { p: 0.45, n: 100 });
    expect(r.pooled).toBeCloseTo(0.5625, 12);
    expect(r.diff).toBeCloseTo(0.15, 12);
    expect(r.z).toBeCloseTo((4 * Math.sqrt(21)) / 7, 10);
    expect(r.pValue).toBeGreaterThan(0.0088);
    expect(r.pValue).toBeLessThan(0.0091);
    expect([r.significant, twoProportionZTest({ p: 0.6, n: 300 }, { p: 0.45, n: 100 }, 99).significant, r.smallBase]).toEqual([true, true, false]);
    // The other way round: the same p̂ and |z|, z negative.
    const back = twoProportionZTest({ p: 0.45, n: 100 }, { p: 0.6, n: 300 });
    expect(back.pooled).toBeCloseTo(0.5625, 12);
    expect(back.z).toBeCloseTo((-4 * Math.sqrt(21)) / 7, 10);
    // From the answers: 180 of 300 and 45 of 100 in the top two boxes, unweighted (n_eff = n).
    const a = Array.from({ length: 300 }, (_, i) => (i < 180 ? (i % 2 ? 1 : 2) : 3));
    const b = Array.from({ length: 100 }, (_, i) => (i < 45 ? 1 : 4));
    const t = compareTopTwoBox({ answers: a }, { answers: b }).test;
    expect([t.pooled, t.z]).toEqual([r.pooled, r.z]);
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

describe("topTwoBox: what counts as an answer, and bad weights", () => {
  test("only whole answers 1..4 count; 0, 5, 2.5, null and NaN are not answers", () => {
    // Hand count: answers 1, 2, 4 count (n 3), top-2 are 1 and 2: p = 2/3.
    const r = topTwoBox([1, 2, 4, 0, 5, 2.5, null, undefined, Number.NaN]);
    expect(r).toEqual({ p: 2 / 3, n: 3, nEff: 3, sumW: 3 });
  });
  test("weights: Kish n_eff = (Σw)² / Σw²; a zero weight answers but weighs nothing", () => {
    const r = topTwoBox([1, 3, 4], [2, 1, 0]);
    expect(r.n).toBe(3);
    expect(r.sumW).toBe(3);
    expect(r.p).toBeCloseTo(2 / 3, 12);
    expect(r.nEff).toBeCloseTo(9 / 5, 12);
  });
  test("no weight at all: p is not a number and n_eff is 0", () => {
    const r = topTwoBox([1, 2], [0, 0]);
    expect(r.p).toBeNaN();
    expect(r.nEff).toBe(0);
    expect(r.n).toBe(2);
    expect(topTwoBox([]).p).toBeNaN();
  });
  test("weights that do not match the answers, negative or infinite weights are refused", () => {
    expect(() => topTwoBox([1, 2], [1])).toThrow("weights must match answers");
    expect(() => topTwoBox([1, 2], [1, -0.5])).toThrow("weight must be finite and >= 0, got -0.5");
    expect(() => topTwoBox([1, 2], [1, Number.POSITIVE_INFINITY])).toThrow("weight must be finite and >= 0, got Infinity");
    // A non-answer's weight is never looked at.
    expect(topTwoBox([1, null], [1, -1]).n).toBe(1);
  });
  test("erfc of NaN is NaN; erfc is symmetric about 1", () => {
    expect(erfc(Number.NaN)).toBeNaN();
    expect(erfc(-0.5) + erfc(0.5)).toBeCloseTo(2, 12);
  });
});

describe("twoProportionZTest: degenerate inputs and the critical value's edge", () => {
  test("an unknown confidence is refused", () => {
    expect(() => twoProportionZTest({ p: 0.5, n: 50 }, { p: 0.4, n: 50 }, 80 as never)).toThrow("confidence must be 90, 95 or 99");
  });
  test("a side with no base (n 0), on either side, or a p that is not a number: no z, never significant", () => {
    for (const [a, b] of [
      [
        { p: 0.9, n: 0 },
        { p: 0.1, n: 100 },
      ],
      [
        { p: 0.9, n: 100 },
        { p: 0.1, n: 0 },
      ],
      [
        { p: Number.NaN, n: 100 },
        { p: 0.1, n: 100 },
      ],
    ]) {
      const r = twoProportionZTest(a!, b!);
      expect(r.z).toBeNaN();
      expect(r.pValue).toBeNaN();
      expect(r.significant).toBe(false);
    }
  });
  test("significant just above the critical value, not just below it", () => {
    // Pooled p 0.5 on two bases of n: z = diff / sqrt(0.25 · 2/n). Choose the diff that gives z = 1.959963984540054 exactly.
    const n = 200;
    const zc = 1.959963984540054;
    const d = zc * Math.sqrt(0.25 * (2 / n));
    const at = twoProportionZTest({ p: 0.5 + d / 2, n }, { p: 0.5 - d / 2, n });
    expect(at.z).toBeCloseTo(zc, 9);
    const above = twoProportionZTest({ p: 0.5 + d / 2 + 1e-6, n }, { p: 0.5 - d / 2 - 1e-6, n });
    const below = twoProportionZTest({ p: 0.5 + d / 2 - 1e-6, n }, { p: 0.5 - d / 2 + 1e-6, n });
    expect(above.significant).toBe(true);
    expect(below.significant).toBe(false);
  });
});

// Reference values from outside the code: tests/fixtures/stats/normal-tail.py (mpmath at 50 digits,
// cross-checked against the C library's erfc) wrote normal-tail.json. Each is held to 1e-9 relative,
// far into the tail where the p-values of a strong difference (and the adjusted p-values made from
// them) live: z = 4.5 to 12 is erfc's continued-fraction branch (x = z/√2 >= 3).
describe("erfc and the normal's tails against published values (mpmath, 1e-9 relative)", () => {
  const ref = JSON.parse(readFileSync(new URL("../fixtures/stats/normal-tail.json", import.meta.url), "utf8")) as {
    erfc: { x: number; erfc: string }[];
    twoSided: { z: number; p: string }[];
    lowerTail: { z: number; cdf: string }[];
  };
  const relErr = (got: number, want: number) => Math.abs(got - want) / Math.abs(want);

  test("the fixture reaches the tail: z = 4.5, 5, 6, 8 and 10 are in it", () => {
    for (const z of [4.5, 5, 6, 8, 10]) expect(ref.twoSided.some((r) => r.z === z)).toBe(true);
    expect(ref.erfc.some((r) => r.x >= 20)).toBe(true);
  });

  test.each(ref.erfc.map((r) => [r.x, r.erfc] as const))("erfc(%p) = %s", (x, want) => {
    expect(relErr(erfc(x), Number(want))).toBeLessThan(1e-9);
  });

  test.each(ref.twoSided.map((r) => [r.z, r.p] as const))("two-sided p at z = %p is %s", (z, want) => {
    const p = Number(want);
    // The p-value the z-test reports (pooled p̂ = 0.5 on two bases of 200: z = diff / 0.05).
    const r = twoProportionZTest({ p: 0.5 + z * 0.025, n: 200 }, { p: 0.5 - z * 0.025, n: 200 });
    expect(relErr(r.z, z)).toBeLessThan(1e-12);
    expect(relErr(r.pValue, p)).toBeLessThan(1e-9);
    // The same with the groups the other way round (z negative).
    const back = twoProportionZTest({ p: 0.5 - z * 0.025, n: 200 }, { p: 0.5 + z * 0.025, n: 200 });
    expect(relErr(back.pValue, p)).toBeLessThan(1e-9);
    // The design-based tests' p-value (design.ts), which the adjusted p-values are made from.
    expect(relErr(twoSidedP(z), p)).toBeLessThan(1e-9);
    expect(relErr(twoSidedP(-z), p)).toBeLessThan(1e-9);
    // Both tails of Φ: the lower to 1e-9 relative; the upper, Φ(z) near 1, to within a few
    // doubles' spacing there (1.1e-16), as 1 - p/2 cannot be held closer in a double.
    expect(relErr(normalCdf(-z), p / 2)).toBeLessThan(1e-9);
    expect(Math.abs(normalCdf(z) - (1 - p / 2))).toBeLessThan(Math.max(3e-16, 1e-9 * p));
  });

  test.each(ref.lowerTail.map((r) => [r.z, r.cdf] as const))("Φ(%p) = %s", (z, want) => {
    expect(relErr(normalCdf(z), Number(want))).toBeLessThan(1e-9);
  });

  test("from x = 3 on (the continued fraction, z >= 4.24) erfc is good to 1e-13 relative, as docs/statistics.md states", () => {
    // docs/statistics.md: 4e-15 measured from x = 3 to 7.1; z/√2 itself is rounded, which alone moves
    // erfc by up to 2x²·1.1e-16 (1.6e-14 at z = 12), so the bound here is 1e-13.
    const tail = ref.erfc.filter((r) => r.x >= 3);
    expect(tail.length).toBeGreaterThanOrEqual(10);
    for (const r of tail) expect(relErr(erfc(r.x), Number(r.erfc))).toBeLessThan(1e-13);
    for (const r of ref.twoSided.filter((r) => r.z >= 4.25)) expect(relErr(erfc(r.z / Math.SQRT2), Number(r.p))).toBeLessThan(1e-13);
  });

  test("at the infinities: erfc(∞) = 0, erfc(−∞) = 2, Φ(−∞) = 0, Φ(∞) = 1 (the limits of the definition)", () => {
    expect(erfc(Number.POSITIVE_INFINITY)).toBe(0);
    expect(erfc(Number.NEGATIVE_INFINITY)).toBe(2);
    expect(normalCdf(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(normalCdf(Number.POSITIVE_INFINITY)).toBe(1);
  });

  test("a p-value of 5.7e-7 (z = 5) is not 100 times off, and Bonferroni over 20 tests keeps it below 0.05", () => {
    const p = Number(ref.twoSided.find((r) => r.z === 5)!.p); // 5.7330e-7
    const r = twoProportionZTest({ p: 0.625, n: 200 }, { p: 0.375, n: 200 });
    expect(r.pValue).toBeGreaterThan(p * (1 - 1e-9));
    expect(r.pValue).toBeLessThan(p * (1 + 1e-9));
    expect(Math.min(1, 20 * r.pValue)).toBeLessThan(1.2e-5);
  });
});
