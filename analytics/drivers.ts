// Key-driver analysis: how much each measure explains an outcome (purchase intent), by weighted
// least squares on standardised respondent-level scores, with relative importance by Pratt's
// measure (Pratt 1987, "Dividing the indivisible: using simple symmetry to partition variance
// explained"; Thomas, Hughes and Zumbo 1998):
//   - y and every x_j are standardised with the survey weights (weighted mean 0, variance 1);
//   - β solves (XᵀWX)β = XᵀWy (Gaussian elimination with partial pivoting);
//   - R² = Σ_j β_j·r_j, with r_j the weighted correlation of x_j with y;
//   - importance_j = β_j·r_j / R²: the shares sum to 1 (a negative share flags a suppressor);
//     withheld (NaN) when the model does not fit: R² < MIN_R_SQUARED (shares of a model that
//     explains under 1% are noise), or the overall F-test of R² = 0 not significant at
//     MODEL_ALPHA (issue 37: R² 0.023 on about 230 respondents and five measures, F = 1.05,
//     p = 0.39, had its importances ranked). F = (R²/k) / ((1 − R²)/(n − k − 1)) on (k, n − k − 1)
//     degrees of freedom (Cohen, Cohen, West and Aiken 2003, *Applied Multiple Regression/Correlation
//     Analysis*, 3rd ed., eq. 3.6.1), with n Kish's effective base of the weights (as the low base).
// Respondents missing the outcome or any predictor are left out (listwise). Pure: no I/O.

/** Below this R² the importances are not shown (finding 8: a model explaining under 1% of the variance). */
export const MIN_R_SQUARED = 0.01;
/** The overall F-test's level: a model whose R² is not significantly above 0 at it ranks nothing. */
export const MODEL_ALPHA = 0.05;

/**
 * ln Γ(x) for x ≥ 0.5 (Lanczos 1964, g = 7, nine coefficients as tabulated by Godfrey; relative
 * error about 1e-15). The F-test calls it with half degrees of freedom, never below 0.5.
 */
export function lnGamma(x: number): number {
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const z = x - 1;
  let a = c[0]!;
  for (let i = 1; i < 9; i++) a += c[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(a);
}

/** The continued fraction of I_x(a, b) (DLMF 8.17.22), by the modified Lentz method; converges for x < (a + 1)/(a + b + 2). */
function betaFraction(x: number, a: number, b: number): number {
  const tiny = 1e-300;
  let c = 1;
  let d = 1 - ((a + b) * x) / (a + 1);
  d = Math.abs(d) < tiny ? tiny : d;
  d = 1 / d;
  let h = d;
  for (let m = 1; m <= 1000; m++) {
    for (const even of [true, false]) {
      const coef = even ? (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)) : (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1));
      d = 1 + coef * d;
      d = Math.abs(d) < tiny ? tiny : d;
      c = 1 + coef / c;
      c = Math.abs(c) < tiny ? tiny : c;
      d = 1 / d;
      h *= d * c;
      if (!even && Math.abs(d * c - 1) < 1e-15) return h;
    }
  }
  return h;
}

/** The regularised incomplete beta function I_x(a, b) (DLMF 8.17.2), with the symmetry I_x(a, b) = 1 − I_{1−x}(b, a) where the fraction converges slowly. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(lnGamma(a + b) - lnGamma(a) - lnGamma(b) + a * Math.log(x) + b * Math.log(1 - x));
  if (x < (a + 1) / (a + b + 2)) return (front * betaFraction(x, a, b)) / a;
  return 1 - (front * betaFraction(1 - x, b, a)) / b;
}

/** P(F > f) for F on (d1, d2) degrees of freedom: I_{d2/(d2 + d1·f)}(d2/2, d1/2) (DLMF 8.17 and 26.5.28 of Abramowitz and Stegun 1964). */
export function fUpperTail(f: number, d1: number, d2: number): number {
  if (!(f > 0)) return 1;
  return incompleteBeta(d2 / (d2 + d1 * f), d2 / 2, d1 / 2);
}

/** The overall F-test of a regression's R² = 0, with k predictors on an effective base n. */
export function modelFTest(rSquared: number, k: number, n: number): { f: number; df1: number; df2: number; pValue: number } {
  const df2 = n - k - 1;
  if (!(df2 > 0)) return { f: Number.NaN, df1: k, df2, pValue: 1 };
  const f = rSquared >= 1 ? Number.POSITIVE_INFINITY : rSquared / k / ((1 - rSquared) / df2);
  return { f, df1: k, df2, pValue: f === Number.POSITIVE_INFINITY ? 0 : fUpperTail(f, k, df2) };
}

export interface DriverInput {
  /** rows[i] = [y, x_1, ..., x_k]; null is missing. */
  rows: readonly (readonly (number | null)[])[];
  weights?: readonly number[];
}

export interface DriverResult {
  n: number;
  /** Kish's effective base of the kept rows' weights: the F-test's n. */
  nEff: number;
  rSquared: number;
  /** The overall F-test of R² = 0 (see the header). */
  fTest: { f: number; df1: number; df2: number; pValue: number };
  /** R² reaches MIN_R_SQUARED and the F-test is significant at MODEL_ALPHA: the importances are shown. */
  fits: boolean;
  /** Standardised coefficients β_j, in predictor order. */
  beta: number[];
  /** Weighted correlation of each predictor with the outcome. */
  correlation: number[];
  /** Pratt importance shares, summing to 1 (NaN when the model does not fit). */
  importance: number[];
}

function solve(a: number[][], b: number[]): number[] | null {
  const n = b.length;
  const m = a.map((row, i) => [...row, b[i]!]);
  for (let c = 0; c < n; c++) {
    let p = c;
    for (let r = c + 1; r < n; r++) if (Math.abs(m[r]![c]!) > Math.abs(m[p]![c]!)) p = r;
    if (Math.abs(m[p]![c]!) < 1e-12) return null; // collinear predictors
    [m[c], m[p]] = [m[p]!, m[c]!];
    for (let r = 0; r < n; r++) {
      if (r === c) continue;
      const f = m[r]![c]! / m[c]![c]!;
      for (let k = c; k <= n; k++) m[r]![k]! -= f * m[c]![k]!;
    }
  }
  return m.map((row, i) => row[n]! / row[i]!);
}

export function keyDrivers(input: DriverInput): DriverResult | null {
  const k = (input.rows[0]?.length ?? 1) - 1;
  const kept: { v: number[]; w: number }[] = [];
  input.rows.forEach((r, i) => {
    const w = input.weights ? input.weights[i]! : 1;
    if (!(w > 0) || r.some((x) => x === null || !Number.isFinite(x))) return;
    kept.push({ v: r as number[], w });
  });
  if (k < 1 || kept.length <= k + 1) return null;
  const sumW = kept.reduce((a, r) => a + r.w, 0);
  const cols = k + 1;
  const mean = Array.from({ length: cols }, (_, j) => kept.reduce((a, r) => a + r.w * r.v[j]!, 0) / sumW);
  const sd = Array.from({ length: cols }, (_, j) => Math.sqrt(kept.reduce((a, r) => a + r.w * (r.v[j]! - mean[j]!) ** 2, 0) / sumW));
  if (sd.some((s) => !(s > 0))) return null; // a constant column explains nothing
  const z = kept.map((r) => ({ w: r.w, v: r.v.map((x, j) => (x - mean[j]!) / sd[j]!) }));
  // Weighted correlation matrix of the standardised columns.
  const corr = (i: number, j: number) => z.reduce((a, r) => a + r.w * r.v[i]! * r.v[j]!, 0) / sumW;
  const xx = Array.from({ length: k }, (_, i) => Array.from({ length: k }, (_, j) => corr(i + 1, j + 1)));
  const xy = Array.from({ length: k }, (_, i) => corr(i + 1, 0));
  const beta = solve(xx, xy);
  if (!beta) return null;
  const rSquared = beta.reduce((a, b, j) => a + b * xy[j]!, 0);
  const nEff = sumW ** 2 / kept.reduce((a, r) => a + r.w * r.w, 0);
  const fTest = modelFTest(rSquared, k, nEff);
  const fits = rSquared >= MIN_R_SQUARED && fTest.pValue < MODEL_ALPHA;
  return {
    n: kept.length,
    nEff,
    rSquared,
    fTest,
    fits,
    beta,
    correlation: xy,
    importance: beta.map((b, j) => (fits ? (b * xy[j]!) / rSquared : NaN)),
  };
}
