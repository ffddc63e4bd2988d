// Key drivers (Pratt 1987) on constructed data whose answer is known.
import { describe, expect, test } from "bun:test";
import { keyDrivers } from "../../api/src/analytics/drivers.ts";

test("an exact linear outcome: R² 1, standardised betas as constructed, importance shares sum to 1", () => {
  // x1 and x2 uncorrelated (a balanced 2x2 design), y = 2·x1 + x2: standardised betas 2/√5 and 1/√5.
  const rows: number[][] = [];
  for (const x1 of [0, 1]) for (const x2 of [0, 1]) for (let r = 0; r < 3; r++) rows.push([2 * x1 + x2, x1, x2]);
  const d = keyDrivers({ rows })!;
  expect(d.rSquared).toBeCloseTo(1, 12);
  expect(d.beta[0]).toBeCloseTo(2 / Math.sqrt(5), 12);
  expect(d.beta[1]).toBeCloseTo(1 / Math.sqrt(5), 12);
  // Uncorrelated predictors: Pratt importance = β² / R² = 4/5 and 1/5.
  expect(d.importance[0]).toBeCloseTo(0.8, 12);
  expect(d.importance[1]).toBeCloseTo(0.2, 12);
});

test("weights count: a respondent of weight 2 is two of weight 1", () => {
  const a = keyDrivers({ rows: [[1, 1, 0], [2, 2, 1], [2, 1, 1], [3, 3, 0], [4, 3, 1]], weights: [2, 1, 1, 1, 1] })!;
  const b = keyDrivers({ rows: [[1, 1, 0], [1, 1, 0], [2, 2, 1], [2, 1, 1], [3, 3, 0], [4, 3, 1]] })!;
  expect(a.beta[0]).toBeCloseTo(b.beta[0]!, 12);
  expect(a.rSquared).toBeCloseTo(b.rSquared, 12);
  expect(a.importance.reduce((x, y) => x + y, 0)).toBeCloseTo(1, 12);
});

test("missing answers are left out; too few or constant data give no result", () => {
  expect(keyDrivers({ rows: [[1, 1], [2, 2], [null, 3]] })).toBeNull();
  expect(keyDrivers({ rows: [[1, 1], [2, 1], [3, 1], [4, 1]] })).toBeNull();
  expect(keyDrivers({ rows: [[1, 1], [2, 2], [3, 3], [4, 5], [null, 9]] })!.n).toBe(4);
});

describe("a model that explains under 1% of the variance (finding 8)", () => {
  // x and z orthogonal, mean 0, equal variance; y = r·x + √(1 − r²)·z has corr(x, y) = r, so R² = r².
  const x = [-1, 1, -1, 1];
  const z = [-1, -1, 1, 1];
  const rows = (r2: number) => x.map((xi, i) => [Math.sqrt(r2) * xi + Math.sqrt(1 - r2) * z[i]!, xi]);
  test("importances are withheld (NaN) below R² = 0.01, shown above", () => {
    const below = keyDrivers({ rows: rows(0.0099) })!;
    expect(below.rSquared).toBeCloseTo(0.0099, 12);
    expect(below.importance.every(Number.isNaN)).toBe(true);
    const above = keyDrivers({ rows: rows(0.0101) })!;
    expect(above.rSquared).toBeCloseTo(0.0101, 12);
    expect(above.importance).toEqual([1]);
  });
});
