// Significance of top-2-box differences, from the definitions in DOMAIN.md:
// - Top-2-box (T2B) on the 4-point scale (1 Top, 2 Second top, 3 Second bottom, 4 Bottom):
//   T2B = Σ w·[answer <= 2] / Σ w over respondents who answered (an answer outside 1..4 or
//   missing is not an answer).
// - Kish (1965) effective sample size n_eff = (Σw)² / Σw² stands in for n when weighted.
// - Two-proportion z-test with pooled p̂ = (p₁n₁ + p₂n₂)/(n₁ + n₂):
//   z = (p₁ − p₂) / √(p̂(1 − p̂)(1/n₁ + 1/n₂)); two-sided p-value 2·(1 − Φ(|z|)) = erfc(|z|/√2).
// - Φ via erfc: Φ(x) = erfc(−x/√2)/2, with erfc from Abramowitz and Stegun (1964) 7.1.6 and 7.1.14
//   (series and continued fraction; relative error below 3e-11, see erfc), extended to negative
//   arguments by erfc(−x) = 2 − erfc(x).
// - Confidence 90 / 95 (default) / 99 %: significant when |z| exceeds the exact two-sided critical
//   value (1.6449, 1.9600, 2.5758). Bases with n_eff < 30 are flagged small.
// Compare a segment with the rest of the sample, never with a total that contains it.
// Pure: no I/O, no app imports.

export type Confidence = 90 | 95 | 99;
export const Z_CRITICAL: Record<Confidence, number> = { 90: 1.6448536269514722, 95: 1.959963984540054, 99: 2.5758293035489004 };
export const SMALL_BASE = 30;

/**
 * erfc(x): for 0 <= x < 3 from the series erf(x) = (2/√π)·e^(−x²)·Σ 2ⁿx^(2n+1)/(1·3·…·(2n+1))
 * (Abramowitz and Stegun 1964, 7.1.6; all terms positive, no cancellation); for x >= 3 the continued
 * fraction erfc(x) = e^(−x²)/√π · 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + …)))) (A&S 7.1.14), evaluated by
 * Lentz's method; reflected for x < 0 by erfc(−x) = 2 − erfc(x). (Replaces A&S 7.1.26, whose 1.5e-7
 * error grew past 1e-6 once p-values are multiplied for multiple comparisons.)
 * Accuracy against mpmath at 50 digits on x = 0, 0.01, ..., 26.99 (2026-12-06): relative error at most
 * 2.7e-11 below 3 (1 − erf cancels: the series' absolute error, about 1e-16, over an erfc down to 2.2e-5)
 * and 4e-15 from 3 to 7.1 (z = 10), growing with the rounding of x² in e^(−x²) to 6e-14 at x = 23.6,
 * until erfc falls below the smallest normal double (x > 26.5). The tests hold it to 1e-9 relative at published values, z = 0.5 to 12
 * (tests/fixtures/stats/normal-tail.json).
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x === Infinity) return 0;
  if (x < 3) {
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (2 * x * x) / (2 * n + 1);
      sum += term;
      if (term < sum * 1e-17) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * Math.exp(-x * x) * sum;
  }
  // Lentz: f = x + K(a_n / x) with a_n = n/2.
  const tiny = 1e-300;
  let f = x;
  let C = x;
  let D = 0;
  for (let n = 1; n < 500; n++) {
    const a = n / 2;
    D = x + a * D;
    D = D === 0 ? tiny : 1 / D;
    C = x + a / C;
    if (C === 0) C = tiny;
    const delta = C * D;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / (Math.sqrt(Math.PI) * f);
}

/** Standard normal CDF Φ(x). */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

export interface Proportion {
  /** Weighted share. */
  p: number;
  /** Respondents who answered (unweighted). */
  n: number;
  /** Kish effective base of those respondents (equals n when unweighted). */
  nEff: number;
  /** Sum of their weights. */
  sumW: number;
}

/** Weighted top-2-box of 4-point answers (1..4); null/other values are not answers. */
export function topTwoBox(answers: readonly (number | null | undefined)[], weights?: readonly number[]): Proportion {
  if (weights && weights.length !== answers.length) throw new RangeError("weights must match answers");
  let s = 0;
  let s2 = 0;
  let hit = 0;
  let n = 0;
  answers.forEach((a, i) => {
    if (a == null || !Number.isInteger(a) || a < 1 || a > 4) return;
    const w = weights ? weights[i] : 1;
    if (!Number.isFinite(w) || w < 0) throw new RangeError(`weight must be finite and >= 0, got ${w}`);
    n++;
    s += w;
    s2 += w * w;
    if (a <= 2) hit += w;
  });
  return { p: s > 0 ? hit / s : NaN, n, nEff: s2 > 0 ? (s * s) / s2 : 0, sumW: s };
}

export interface ZTestResult {
  diff: number;
  pooled: number;
  z: number;
  /** Two-sided. */
  pValue: number;
  confidence: Confidence;
  significant: boolean;
  /** Either base has n_eff < 30. */
  smallBase: boolean;
}

/** Two-proportion z-test with pooled p̂; pass n_eff as n for weighted data. */
export function twoProportionZTest(a: { p: number; n: number }, b: { p: number; n: number }, confidence: Confidence = 95): ZTestResult {
  if (!(confidence in Z_CRITICAL)) throw new RangeError("confidence must be 90, 95 or 99");
  const diff = a.p - b.p;
  const smallBase = !(a.n >= SMALL_BASE) || !(b.n >= SMALL_BASE);
  const pooled = (a.p * a.n + b.p * b.n) / (a.n + b.n);
  const se = Math.sqrt(pooled * (1 - pooled) * (1 / a.n + 1 / b.n));
  if (!(a.n > 0) || !(b.n > 0) || !Number.isFinite(diff)) {
    return { diff, pooled, z: NaN, pValue: NaN, confidence, significant: false, smallBase };
  }
  // p̂ of 0 or 1: both groups identical and degenerate, no evidence of a difference.
  const z = se > 0 ? diff / se : 0;
  const pValue = Math.min(1, erfc(Math.abs(z) / Math.SQRT2)); // = 2·(1 − Φ(|z|))
  return { diff, pooled, z, pValue, confidence, significant: Math.abs(z) > Z_CRITICAL[confidence], smallBase };
}

/** T2B of two groups of answers, tested with Kish effective bases. */
export function compareTopTwoBox(
  a: { answers: readonly (number | null | undefined)[]; weights?: readonly number[] },
  b: { answers: readonly (number | null | undefined)[]; weights?: readonly number[] },
  confidence: Confidence = 95,
): { a: Proportion; b: Proportion; test: ZTestResult } {
  const pa = topTwoBox(a.answers, a.weights);
  const pb = topTwoBox(b.answers, b.weights);
  return { a: pa, b: pb, test: twoProportionZTest({ p: pa.p, n: pa.nEff }, { p: pb.p, n: pb.nEff }, confidence) };
}
