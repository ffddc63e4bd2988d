// Key drivers (Pratt 1987) on constructed data whose answer is known.
import { describe, expect, test } from "bun:test";
import { fUpperTail, incompleteBeta, keyDrivers, lnGamma, modelFTest } from "@ideally/analytics/drivers";

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
  const a = keyDrivers({
    rows: [
      [1, 1, 0],
      [2, 2, 1],
      [2, 1, 1],
      [3, 3, 0],
      [4, 3, 1],
    ],
    weights: [2, 1, 1, 1, 1],
  })!;
  const b = keyDrivers({
    rows: [
      [1, 1, 0],
      [1, 1, 0],
      [2, 2, 1],
      [2, 1, 1],
      [3, 3, 0],
      [4, 3, 1],
    ],
  })!;
  expect(a.beta[0]).toBeCloseTo(b.beta[0]!, 12);
  expect(a.rSquared).toBeCloseTo(b.rSquared, 12);
  expect(a.correlation[1]).toBeCloseTo(b.correlation[1]!, 12);
  // The point estimates are the same; the evidence is not: Kish's n_eff of the weights (36/8 = 4.5)
  // is not 6 rows. Same R², k = 2: the F-tests' residual df are 1.5 and 3, so F halves.
  expect(a.nEff).toBeCloseTo(4.5, 12);
  expect(b.nEff).toBeCloseTo(6, 12);
  expect(a.fTest.df2).toBeCloseTo(1.5, 12);
  expect(b.fTest.df2).toBeCloseTo(3, 12);
  expect(a.fTest.f / b.fTest.f).toBeCloseTo(0.5, 12);
});

test("missing answers are left out; too few or constant data give no result", () => {
  expect(
    keyDrivers({
      rows: [
        [1, 1],
        [2, 2],
        [null, 3],
      ],
    }),
  ).toBeNull();
  expect(
    keyDrivers({
      rows: [
        [1, 1],
        [2, 1],
        [3, 1],
        [4, 1],
      ],
    }),
  ).toBeNull();
  expect(
    keyDrivers({
      rows: [
        [1, 1],
        [2, 2],
        [3, 3],
        [4, 5],
        [null, 9],
      ],
    })!.n,
  ).toBe(4);
});

describe("a model that does not fit ranks nothing (finding 8, issue 37)", () => {
  // x and z orthogonal, mean 0, equal variance; y = r·x + √(1 − r²)·z has corr(x, y) = r, so R² = r².
  // `times` copies of the four-row pattern keep both properties with n = 4·times.
  const x = [-1, 1, -1, 1];
  const z = [-1, -1, 1, 1];
  const rows = (r2: number, times = 1) => Array.from({ length: times }, () => x.map((xi, i) => [Math.sqrt(r2) * xi + Math.sqrt(1 - r2) * z[i]!, xi])).flat();
  test("importances are withheld (NaN) below R² = 0.01, shown above (n 4,000: the F-test far from its edge)", () => {
    const below = keyDrivers({ rows: rows(0.0099, 1000) })!;
    expect(below.rSquared).toBeCloseTo(0.0099, 12);
    expect(below.importance.every(Number.isNaN)).toBe(true);
    const above = keyDrivers({ rows: rows(0.0101, 1000) })!;
    expect(above.rSquared).toBeCloseTo(0.0101, 12);
    expect(above.importance).toEqual([1]);
  });
  test("importances are withheld when the overall F-test is not significant at 5%: its edge at the published F(1, 10) critical value 4.965", () => {
    // n = 12, k = 1: F = R²/((1 − R²)/10), so R² = F/(F + 10). NIST/SEMATECH e-Handbook 1.3.6.7.3:
    // the upper 5% point of F(1, 10) is 4.965. Just under it (4.9) is not significant; just over (5.05) is.
    const at = (f: number) => keyDrivers({ rows: rows(f / (f + 10), 3) })!;
    const under = at(4.9);
    expect(under.fTest.f).toBeCloseTo(4.9, 9);
    expect(under.fTest.df2).toBeCloseTo(10, 9);
    expect(under.fits).toBe(false);
    expect(under.importance.every(Number.isNaN)).toBe(true);
    const over = at(5.05);
    expect(over.fits).toBe(true);
    expect(over.importance).toEqual([1]);
  });
  test("the issue's case: R² 0.023 from five measures on 230 respondents is not a model (F ≈ 1.05)", () => {
    const t = modelFTest(0.023, 5, 230);
    // F = (0.023/5)/(0.977/224) = 1.0547 (by hand).
    expect(t.f).toBeCloseTo(1.0547, 3);
    expect(t.pValue).toBeGreaterThan(0.3);
  });
  test("weights: the F-test counts Kish's effective base, not rows", () => {
    // Weights 1 and 3 alternating: n_eff = (Σw)²/Σw² = (2n)²/(5n) = 0.8n for n rows.
    const r = rows(0.3, 3);
    const d = keyDrivers({ rows: r, weights: r.map((_, i) => (i % 2 ? 3 : 1)) })!;
    expect(d.nEff).toBeCloseTo(0.8 * 12, 9);
    expect(d.fTest.df2).toBeCloseTo(0.8 * 12 - 2, 9);
  });
});

describe("the F distribution's upper tail", () => {
  test("ln Γ at known values: Γ(1/2) = √π, Γ(1) = Γ(2) = 1, Γ(5) = 24, Γ(10.5) = 1133278.388948786 (DLMF 5.4)", () => {
    expect(Math.abs(lnGamma(0.5) - Math.log(Math.sqrt(Math.PI)))).toBeLessThan(1e-13);
    expect(Math.abs(lnGamma(1))).toBeLessThan(1e-13);
    expect(Math.abs(lnGamma(2))).toBeLessThan(1e-13);
    expect(Math.abs(lnGamma(5) - Math.log(24))).toBeLessThan(1e-13);
    expect(Math.abs(lnGamma(10.5) - Math.log(1133278.388948786))).toBeLessThan(1e-12);
  });
  test("the ends: I_0 = 0 and I_1 = 1; no F (0, negative, NaN) is a p-value of 1; a perfect fit is p 0; no residual degrees of freedom is no test", () => {
    expect(incompleteBeta(0, 2, 3)).toBe(0);
    expect(incompleteBeta(-0.1, 2, 3)).toBe(0);
    expect(incompleteBeta(1, 2, 3)).toBe(1);
    expect(incompleteBeta(1.1, 2, 3)).toBe(1);
    // I_x(1, b) = 1 − (1 − x)^b and I_x(a, 1) = x^a (DLMF 8.17.1 with B(1, b) = 1/b), both sides of the symmetry switch.
    for (const x of [0.05, 0.3, 0.5, 0.7, 0.95]) {
      expect(Math.abs(incompleteBeta(x, 1, 4) - (1 - (1 - x) ** 4))).toBeLessThan(1e-13);
      expect(Math.abs(incompleteBeta(x, 3, 1) - x ** 3)).toBeLessThan(1e-13);
    }
    expect(fUpperTail(0, 3, 10)).toBe(1);
    expect(fUpperTail(-1, 3, 10)).toBe(1);
    expect(fUpperTail(Number.NaN, 3, 10)).toBe(1);
    expect(modelFTest(1, 2, 10)).toEqual({ f: Number.POSITIVE_INFINITY, df1: 2, df2: 7, pValue: 0 });
    const none = modelFTest(0.9, 3, 4);
    expect(none.df2).toBe(0);
    expect(none.pValue).toBe(1);
    expect(Number.isNaN(none.f)).toBe(true);
  });
  test("equals the closed forms for 2 numerator or 2 denominator degrees of freedom", () => {
    // d1 = 2: P(F > f) = (d2/(d2 + 2f))^(d2/2); d2 = 2: P(F > f) = 1 − (d1·f/(d1·f + 2))^(d1/2).
    for (const [f, d] of [
      [0.5, 3],
      [1, 10],
      [3.7, 7],
      [12, 40],
      [0.01, 100],
    ] as const) {
      expect(Math.abs(fUpperTail(f, 2, d) - (d / (d + 2 * f)) ** (d / 2))).toBeLessThan(1e-12);
      expect(Math.abs(fUpperTail(f, d, 2) - (1 - ((d * f) / (d * f + 2)) ** (d / 2)))).toBeLessThan(1e-12);
    }
  });
  test("gives 5% and 1% at the published critical values (NIST/SEMATECH e-Handbook 1.3.6.7.3)", () => {
    const table = [
      { d1: 1, d2: 10, f: 4.965, p: 0.05 },
      { d1: 1, d2: 10, f: 10.044, p: 0.01 },
      { d1: 5, d2: 100, f: 2.305, p: 0.05 },
      { d1: 5, d2: 100, f: 3.206, p: 0.01 },
    ];
    for (const t of table) expect(Math.abs(fUpperTail(t.f, t.d1, t.d2) - t.p), JSON.stringify(t)).toBeLessThan(0.0005);
  });
});

describe("correlated predictors with weights, against R (tests/fixtures/stats/drivers.R)", () => {
  const y = [3, 5, 4, 6, 2, 7, 5, 4, 6, 3];
  const x1 = [1, 3, 2, 4, 1, 5, 3, 2, 4, 2];
  const x2 = [2, 2, 3, 5, 1, 4, 4, 2, 3, 1];
  const x3 = [5, 3, 4, 2, 5, 1, 2, 4, 3, 4];
  const w = [1, 2, 1, 0.5, 1.5, 1, 1, 2, 1, 0.5];
  const rows = y.map((v, i) => [v, x1[i]!, x2[i]!, x3[i]!]);
  const out = async () =>
    (await Bun.file(new URL("../fixtures/stats/drivers.out", import.meta.url)).text())
      .trim()
      .split("\n")
      .map((l) => l.trim().split(/\s+/).map(Number));

  test("betas, correlations, R² and Pratt shares (one negative: a suppressor) to 1e-9", async () => {
    const [beta, r, [r2], shares, [lmR2]] = await out();
    const d = keyDrivers({ rows, weights: w })!;
    expect(d.n).toBe(10);
    d.beta.forEach((b, j) => {
      expect(Math.abs(b - beta![j]!)).toBeLessThan(1e-9);
    });
    d.correlation.forEach((c, j) => {
      expect(Math.abs(c - r![j]!)).toBeLessThan(1e-9);
    });
    expect(Math.abs(d.rSquared - r2!)).toBeLessThan(1e-9);
    expect(Math.abs(d.rSquared - lmR2!)).toBeLessThan(1e-9);
    d.importance.forEach((s, j) => {
      expect(Math.abs(s - shares![j]!)).toBeLessThan(1e-9);
    });
    expect(d.importance[2]).toBeLessThan(0);
  });

  test("respondents with a weight of 0, a negative or missing weight, or a non-finite answer are left out", async () => {
    const [beta] = await out();
    const extra = [
      [9, 9, 9, 9],
      [1, 9, 1, 9],
      [1, 9, 9, 1],
      [2, Number.NaN, 1, 1],
      [2, 1, Infinity, 1],
    ];
    const d = keyDrivers({ rows: [...rows, ...extra], weights: [...w, 0, -1, Number.NaN, 1, 1] })!;
    expect(d.n).toBe(10);
    d.beta.forEach((b, j) => {
      expect(Math.abs(b - beta![j]!)).toBeLessThan(1e-9);
    });
  });

  test("collinear predictors (one a multiple of another) give no result rather than noise", () => {
    expect(keyDrivers({ rows: rows.map((r) => [r[0]!, r[1]!, 2 * r[1]! + 1]) })).toBeNull();
  });

  test("just enough respondents: k + 2 gives a model, k + 1 does not", () => {
    // Two predictors: 3 respondents cannot fit (no degrees of freedom left), 4 can.
    const four = [
      [1, 0, 0],
      [2, 1, 0],
      [2, 0, 1],
      [4, 1, 1],
    ];
    expect(keyDrivers({ rows: four.slice(0, 3) })).toBeNull();
    expect(keyDrivers({ rows: four })!.n).toBe(4);
    expect(keyDrivers({ rows: [] })).toBeNull();
    expect(keyDrivers({ rows: [[1], [2], [3]] })).toBeNull(); // no predictor
  });
});
