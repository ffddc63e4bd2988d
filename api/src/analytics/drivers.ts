// Key-driver analysis: how much each measure explains an outcome (purchase intent), by weighted
// least squares on standardised respondent-level scores, with relative importance by Pratt's
// measure (Pratt 1987, "Dividing the indivisible: using simple symmetry to partition variance
// explained"; Thomas, Hughes and Zumbo 1998):
//   - y and every x_j are standardised with the survey weights (weighted mean 0, variance 1);
//   - β solves (XᵀWX)β = XᵀWy (Gaussian elimination with partial pivoting);
//   - R² = Σ_j β_j·r_j, with r_j the weighted correlation of x_j with y;
//   - importance_j = β_j·r_j / R²: the shares sum to 1 (a negative share flags a suppressor);
//     withheld (NaN) when R² < MIN_R_SQUARED: shares of a model that explains under 1% are noise.
// Respondents missing the outcome or any predictor are left out (listwise). Pure: no I/O.

/** Below this R² the importances are not shown (finding 8: a model explaining under 1% of the variance). */
export const MIN_R_SQUARED = 0.01;

export interface DriverInput {
  /** rows[i] = [y, x_1, ..., x_k]; null is missing. */
  rows: readonly (readonly (number | null)[])[];
  weights?: readonly number[];
}

export interface DriverResult {
  n: number;
  rSquared: number;
  /** Standardised coefficients β_j, in predictor order. */
  beta: number[];
  /** Weighted correlation of each predictor with the outcome. */
  correlation: number[];
  /** Pratt importance shares, summing to 1 (NaN when R² is below MIN_R_SQUARED). */
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
  return {
    n: kept.length,
    rSquared,
    beta,
    correlation: xy,
    importance: beta.map((b, j) => (rSquared >= MIN_R_SQUARED ? (b * xy[j]!) / rSquared : NaN)),
  };
}
