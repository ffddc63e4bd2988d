// Raking (iterative proportional fitting) with Kish design effect: cases known by construction,
// and the ANES 2024 example data of the R package ipf (blank = missing).
import { describe, expect, test } from "bun:test";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { kish, rake, rakeLevels } from "@ideally/analytics/rake";

const rows = (spec: [string, string | null, number][]) => spec.flatMap(([sex, age, count]) => Array.from({ length: count }, () => ({ sex, age })));

describe("raking, by hand", () => {
  test("one variable: weights are target / sample share, in one pass", () => {
    const res = rake(
      rows([
        ["M", "y", 3],
        ["F", "y", 1],
      ]),
      { targets: { sex: { M: 1, F: 1 } } },
    );
    expect(res.converged).toBe(true);
    expect(res.iterations).toBe(1);
    expect(res.weights.map((w) => +w.toFixed(12))).toEqual([2 / 3, 2 / 3, 2 / 3, 2].map((w) => +w.toFixed(12)));
    // Σw = 4, Σw² = 3·4/9 + 4 = 16/3: n_eff = 3, deff = 4/3.
    expect(res.nEff).toBeCloseTo(3, 10);
    expect(res.deff).toBeCloseTo(4 / 3, 10);
    expect(res.minWeight).toBeCloseTo(2 / 3, 12);
    expect(res.maxWeight).toBeCloseTo(2, 12);
  });

  // 2×2 sample counts (M,y)=1, (M,o)=2, (F,y)=3, (F,o)=4, targets 50/50 on both. IPF keeps the
  // cross-product ratio (1·4)/(2·3) = 2/3 and meets margins 5/5, so the weighted cells are
  // t, 5−t, 5−t, t with t²/(5−t)² = 2/3: t = 5√(2/3)/(1+√(2/3)); total 10 = n, so mean 1 as is.
  test("two variables converge to the IPF solution", () => {
    const data = rows([
      ["M", "y", 1],
      ["M", "o", 2],
      ["F", "y", 3],
      ["F", "o", 4],
    ]);
    const res = rake(data, { targets: { sex: { M: 0.5, F: 0.5 }, age: { y: 50, o: 50 } }, tolerance: 1e-10 });
    const r = Math.sqrt(2 / 3);
    const t = (5 * r) / (1 + r);
    expect(res.converged).toBe(true);
    expect(res.maxError).toBeLessThanOrEqual(1e-10);
    expect(res.weights[0]).toBeCloseTo(t, 8); // the (M,y) respondent
    expect(res.weights[1]).toBeCloseTo((5 - t) / 2, 8); // (M,o)
    expect(res.weights[3]).toBeCloseTo((5 - t) / 3, 8); // (F,y)
    expect(res.weights[6]).toBeCloseTo(t / 4, 8); // (F,o)
    expect(res.weights.reduce((a, b) => a + b, 0)).toBeCloseTo(10, 10);
  });

  test("missing values are left out of that variable's margin", () => {
    // 2 blank-age respondents: age margin is over the other 10 only.
    const data = [
      ...rows([
        ["M", "y", 1],
        ["M", "o", 2],
        ["F", "y", 3],
        ["F", "o", 4],
      ]),
      { sex: "M", age: "" },
      { sex: "F", age: null },
    ];
    const res = rake(data, { targets: { sex: { M: 0.5, F: 0.5 }, age: { y: 0.3, o: 0.7 } } });
    expect(res.converged).toBe(true);
    expect(res.missing).toEqual({ sex: 0, age: 2 });
    let y = 0;
    let o = 0;
    data.forEach((d, i) => {
      if (d.age === "y") y += res.weights[i];
      else if (d.age === "o") o += res.weights[i];
    });
    expect(y / (y + o)).toBeCloseTo(0.3, 6);
    expect(res.margins.age.y).toBeCloseTo(0.3, 6);
    expect(res.weights.reduce((a, b) => a + b, 0) / data.length).toBeCloseTo(1, 12);
  });

  test("starting weights are raked from, not replaced", () => {
    const res = rake(
      rows([
        ["M", "y", 2],
        ["F", "y", 2],
      ]),
      { targets: { sex: { M: 0.5, F: 0.5 } }, startWeights: [1, 3, 1, 1] },
    );
    // M total 4 -> 2, F total 2 -> 2: factors 1/2 and 1; then mean 1.
    expect(res.weights).toEqual([0.5, 1.5, 1, 1]);
  });

  // 5 M, 5 F raked to 90/10: weights 1.8 and 0.2 (deff = 10·16.4/100 = 1.64).
  test("cap: binding but feasible, and infeasible", () => {
    const data = rows([
      ["M", "y", 5],
      ["F", "y", 5],
    ]);
    const free = rake(data, { targets: { sex: { M: 0.9, F: 0.1 } } });
    expect(free.deff).toBeCloseTo(1.64, 10);
    expect(free.nEff).toBeCloseTo(100 / 16.4, 10);
    const five = rake(data, { targets: { sex: { M: 0.9, F: 0.1 } }, cap: 5 });
    expect(five.converged).toBe(true);
    expect(five.capBinds).toBe(true);
    expect(five.minWeight).toBeCloseTo(0.2, 9);
    const tight = rake(data, { targets: { sex: { M: 0.9, F: 0.1 } }, cap: 1.5, maxIterations: 50 });
    expect(tight.converged).toBe(false);
    expect(tight.iterations).toBe(50);
    expect(tight.capBinds).toBe(true);
    expect(tight.maxWeight).toBeLessThanOrEqual(1.5 + 1e-9);
    expect(tight.minWeight).toBeGreaterThanOrEqual(1 / 1.5 - 1e-9);
    expect(tight.maxError).toBeGreaterThan(0.1);
  });

  test("errors: unknown level, target level with nobody", () => {
    expect(() => rake([{ sex: "X" }], { targets: { sex: { M: 1 } } })).toThrow(/no target/);
    expect(() => rake([{ sex: "M" }], { targets: { sex: { M: 1, F: 1 } } })).toThrow(/no weighted respondents/);
  });

  test("kish", () => {
    expect(kish([1, 1, 1, 1])).toEqual({ n: 4, sumW: 4, nEff: 4, deff: 1 });
    expect(kish([2, 0]).nEff).toBe(1);
  });
});

describe("raking anes24.csv", async () => {
  const { rows: anes } = parseCsvObjects(await Bun.file(new URL("../fixtures/reference-data/anes24.csv", import.meta.url)).text());
  // Illustrative target shares (not census figures); the test checks the method, not the targets.
  const targets = {
    sex: { Female: 0.51, Male: 0.49 },
    race: { White: 0.6, Black: 0.12, Hispanic: 0.17, Asian: 0.06, Other: 0.05 },
  };

  test("margins met, mean 1, deff >= 1, blanks left out", () => {
    const t0 = performance.now();
    const res = rake(anes, { targets, tolerance: 1e-6 });
    const ms = performance.now() - t0;
    expect(anes.length).toBe(966);
    expect(res.converged).toBe(true);
    expect(res.maxError).toBeLessThanOrEqual(1e-6);
    const blankRace = anes.filter((r) => r.race.trim() === "").length;
    const blankSex = anes.filter((r) => r.sex.trim() === "").length;
    expect(res.missing).toEqual({ sex: blankSex, race: blankRace });
    expect(blankRace).toBeGreaterThan(0);
    // Recompute each margin independently over the respondents who answered.
    for (const [v, shares] of Object.entries(targets)) {
      const totals: Record<string, number> = {};
      let sum = 0;
      anes.forEach((r, i) => {
        const level = r[v].trim();
        if (level === "") return;
        totals[level] = (totals[level] ?? 0) + res.weights[i];
        sum += res.weights[i];
      });
      for (const [level, share] of Object.entries(shares)) expect(Math.abs(totals[level] / sum - share)).toBeLessThanOrEqual(1e-6);
    }
    // A blank-race respondent is adjusted by sex only: all such respondents of one sex share a weight.
    const blankRaceFemale = new Set(anes.flatMap((r, i) => (r.race.trim() === "" && r.sex === "Female" ? [res.weights[i].toFixed(12)] : [])));
    expect(blankRaceFemale.size).toBe(1);
    const mean = res.weights.reduce((a, b) => a + b, 0) / res.weights.length;
    expect(mean).toBeCloseTo(1, 12);
    expect(res.deff).toBeGreaterThanOrEqual(1);
    expect(res.nEff).toBeCloseTo(anes.length / res.deff, 8);
    const capped = rake(anes, { targets, cap: 5 });
    expect(capped.converged).toBe(true);
    expect(capped.maxWeight).toBeLessThanOrEqual(5 + 1e-9);
    const tight = rake(anes, { targets, cap: 2 });
    expect(tight.capBinds).toBe(true);
    expect(tight.maxWeight).toBeLessThanOrEqual(2 + 1e-9);
    console.log(
      `Rake anes24 (sex, race): n=${anes.length} missing sex ${blankSex}, race ${blankRace}; iterations ${res.iterations}, max error ${res.maxError.toExponential(2)}, ` +
        `deff ${res.deff.toFixed(4)}, n_eff ${res.nEff.toFixed(1)}, weights ${res.minWeight.toFixed(4)}..${res.maxWeight.toFixed(4)}; ` +
        `cap 5: binds ${capped.capBinds}, iterations ${capped.iterations}; cap 2: binds ${tight.capBinds}, converged ${tight.converged}, iterations ${tight.iterations}, max error ${tight.maxError.toExponential(2)}; ${ms.toFixed(1)} ms`,
    );
  });
});

describe("raking against R's survey::rake (tests/fixtures/stats/rake.R)", () => {
  const sex = "M F F M F M F F M F F M F F F M M F F M F F M F F F M F M F".split(" ");
  const age = "y o m o y m o o y m o o y m o m o y o o m o y o m o o y m o".split(" ");
  const reg = "N S S N S S N S S N S S S N S N S S N S S S N S N S S N S S".split(" ");
  const w0 = [1, 1, 2, 1, 1, 1, 1, 0.5, 1, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1.5, 1, 1, 1, 1, 1, 1, 1, 1, 1];
  const data = sex.map((s, i) => ({ sex: s, age: age[i], reg: reg[i] }));
  const targets = { sex: { M: 0.48, F: 0.52 }, age: { y: 0.3, m: 0.35, o: 0.35 }, reg: { N: 0.45, S: 0.55 } };

  test("the same weights to 1e-6, from the same starting weights", async () => {
    const expected = (await Bun.file(new URL("../fixtures/stats/rake.out", import.meta.url)).text()).trim().split(/\s+/).map(Number);
    expect(expected.length).toBe(30);
    const res = rake(data, { targets, startWeights: w0, tolerance: 1e-12 });
    expect(res.converged).toBe(true);
    res.weights.forEach((w, i) => {
      expect(Math.abs(w - expected[i]!), `respondent ${i}`).toBeLessThan(1e-6);
    });
  });
});

describe("raking, edges and refusals", () => {
  const data = rows([
    ["M", "y", 3],
    ["F", "y", 1],
  ]);
  const half = { sex: { M: 1, F: 1 } };

  test("the cap must be above 1; just above is taken", () => {
    expect(() => rake(data, { targets: half, cap: 1 })).toThrow("cap must be > 1");
    expect(() => rake(data, { targets: half, cap: 0.5 })).toThrow("cap must be > 1");
    expect(() => rake(data, { targets: half, cap: Number.NaN })).toThrow("cap must be > 1");
    expect(rake(data, { targets: half, cap: 1.0001, maxIterations: 3 }).iterations).toBe(3);
  });

  test("starting weights: one per row, finite, not negative; zero is kept at zero", () => {
    expect(() => rake(data, { targets: half, startWeights: [1, 1, 1] })).toThrow("startWeights must have one entry per row");
    expect(() => rake(data, { targets: half, startWeights: [1, 1, -1, 1] })).toThrow("startWeights must be finite and >= 0");
    expect(() => rake(data, { targets: half, startWeights: [1, 1, Infinity, 1] })).toThrow("startWeights must be finite and >= 0");
    const res = rake(data, { targets: half, startWeights: [0, 1, 1, 1] });
    expect(res.weights[0]).toBe(0);
    // M: two of weight 1 carry half, F one carries half; mean 1 over all four rows.
    expect(res.weights.map((w) => +w.toFixed(12))).toEqual([0, 1, 1, 2]);
    expect(res.minWeight).toBe(0);
  });

  test("targets must be non-negative with a positive sum; a level at 0 with nobody in it is fine", () => {
    expect(() => rake(data, { targets: { sex: { M: 1, F: -0.1 } } })).toThrow("targets for sex must be non-negative with a positive sum");
    expect(() => rake(data, { targets: { sex: { M: 0, F: 0 } } })).toThrow("targets for sex must be non-negative with a positive sum");
    expect(() => rake(data, { targets: { sex: { M: 1, F: Number.NaN } } })).toThrow("targets for sex");
    const res = rake(data, { targets: { sex: { M: 1, F: 1, X: 0 } } });
    expect(res.converged).toBe(true);
    expect(res.margins.sex).toEqual({ M: 0.5, F: 0.5, X: 0 });
  });

  test("a sample already on target converges with no pass; tolerance and maxIterations are honoured", () => {
    const even = rows([
      ["M", "y", 2],
      ["F", "y", 2],
    ]);
    const res = rake(even, { targets: half });
    expect(res.iterations).toBe(0);
    expect(res.converged).toBe(true);
    expect(res.weights).toEqual([1, 1, 1, 1]);
    expect(res.capBinds).toBe(false);
    // With a cap, one pass is always made (the cap is checked by the pass).
    expect(rake(even, { targets: half, cap: 3 }).iterations).toBe(1);
    // An error just inside the tolerance stops at once; just outside needs a pass.
    const skew = rows([
      ["M", "y", 51],
      ["F", "y", 49],
    ]);
    expect(rake(skew, { targets: half, tolerance: 0.0101 }).iterations).toBe(0); // the error is 0.01 (and a float hair)
    expect(rake(skew, { targets: half, tolerance: 0.0099 }).iterations).toBe(1);
    const twoVars = rows([
      ["M", "y", 1],
      ["M", "o", 2],
      ["F", "y", 3],
      ["F", "o", 4],
    ]);
    const capped = rake(twoVars, { targets: { sex: half.sex, age: { y: 1, o: 1 } }, maxIterations: 2, tolerance: 1e-15 });
    expect(capped.iterations).toBe(2);
    expect(capped.converged).toBe(false);
    expect(capped.maxError).toBeGreaterThan(1e-15);
  });

  test("values: numbers and padded strings match their level; NaN and blanks are missing", () => {
    const res = rake([{ g: 1 }, { g: " 2 " }, { g: 2 }, { g: Number.NaN }, { g: "  " }, { g: undefined }], { targets: { g: { "1": 1, "2": 1 } } });
    expect(res.missing).toEqual({ g: 3 });
    expect(res.margins.g).toEqual({ "1": 0.5, "2": 0.5 });
    // The one "1" carries what the two "2"s do; the missing keep their weight before the mean is taken.
    const w = res.weights;
    expect(w[0]! / w[1]!).toBeCloseTo(2, 12);
    expect(w[3]).toBeCloseTo(w[4]!, 12);
  });

  test("no rows: nothing to rake, no NaN", () => {
    const res = rake([], { targets: half });
    expect(res.weights).toEqual([]);
    expect(res.minWeight).toBe(0);
    expect(res.maxWeight).toBe(0);
    expect(res.nEff).toBe(0);
  });

  test("capBinds: a weight exactly at the cap or at 1/cap binds; inside both does not", () => {
    // Targets 2:1 on 2 and 2 respondents: free weights 4/3 and 2/3.
    const d = rows([
      ["M", "y", 2],
      ["F", "y", 2],
    ]);
    const t = { sex: { M: 2, F: 1 } };
    expect(rake(d, { targets: t, cap: 1.5 }).capBinds).toBe(true); // 2/3 = 1/1.5
    expect(rake(d, { targets: t, cap: 4 / 3 }).capBinds).toBe(true); // 4/3 = cap
    expect(rake(d, { targets: t, cap: 1.6 }).capBinds).toBe(false);
  });

  test("a variable nobody answered is refused by name (its margin could never be met)", () => {
    const d = rows([
      ["M", null, 3],
      ["F", null, 1],
    ]);
    expect(() => rake(d, { targets: { sex: { M: 1, F: 1 }, age: { y: 1, o: 1 } } })).toThrow("age: every row is missing it, so it cannot be raked to");
    // One answer is enough: the variable is raked over that respondent.
    const one = rake([...d, { sex: "F", age: "y" }], { targets: { sex: { M: 1, F: 1 }, age: { y: 1, o: 0 } } });
    expect(one.converged).toBe(true);
    expect(one.margins.age).toEqual({ y: 1, o: 0 });
  });

  test("all starting weights 0: they stay 0, nothing is NaN", () => {
    const res = rake(
      rows([
        ["M", "y", 2],
        ["F", "y", 2],
      ]),
      { targets: { sex: { M: 1, F: 1 } }, startWeights: [0, 0, 0, 0] },
    );
    expect(res.weights).toEqual([0, 0, 0, 0]);
    expect(res.maxError).toBe(0.5);
  });

  test("with a cap, a zero weight stays 0 and does not count as binding", () => {
    const res = rake(
      rows([
        ["M", "y", 2],
        ["F", "y", 2],
      ]),
      { targets: { sex: { M: 1, F: 1 } }, startWeights: [0, 1, 1, 1], cap: 3 },
    );
    expect(res.weights[0]).toBe(0);
    // M's one weighted respondent carries half: 2 of a total of 4 (mean 1); F's two carry 1 each.
    expect(res.weights.map((w) => +w.toFixed(9))).toEqual([0, 2, 1, 1]);
    expect(res.capBinds).toBe(false);
  });

  test("an error exactly at the tolerance counts as converged", () => {
    // 3 M and 1 F against 50/50: the error is exactly 0.25 in binary floating point.
    const d = rows([
      ["M", "y", 3],
      ["F", "y", 1],
    ]);
    expect(rake(d, { targets: { sex: { M: 1, F: 1 } }, tolerance: 0.25 }).iterations).toBe(0);
    expect(rake(d, { targets: { sex: { M: 1, F: 1 } }, tolerance: 0.2499 }).iterations).toBe(1);
  });

  test("an error reaching exactly the tolerance after a round ends the rounds there", () => {
    // One variable: a round rakes it exactly. 3 M and 1 F to 50/50: M's weights become 2/3 (3 x 2/3 = 2
    // in binary floating point) and F's 2, so the error after round 1 is exactly 0: converged at a
    // tolerance of 0, after that one round (a strict "<" would run all 100 rounds, never converged).
    const d = rows([
      ["M", "y", 3],
      ["F", "y", 1],
    ]);
    const r = rake(d, { targets: { sex: { M: 1, F: 1 } }, tolerance: 0 });
    expect([r.iterations, r.converged, r.maxError]).toEqual([1, true, 0]);
  });

  test("coded rows (rakeLevels): a level list per variable, one level a row, each level below the targets' count", () => {
    const targets = { sex: { M: 1, F: 1 } };
    // Levels 0 = M, 1 = F (Object.keys order); -1 = missing.
    const ok = rakeLevels({ rows: 3, level: { sex: Int32Array.from([0, 1, -1]) } }, { targets });
    expect(ok.converged).toBe(true);
    expect(ok.missing).toEqual({ sex: 1 });
    expect(() => rakeLevels({ rows: 3, level: {} }, { targets })).toThrow(new RangeError("sex: expected a level for each of the 3 rows"));
    expect(() => rakeLevels({ rows: 3, level: { sex: Int32Array.from([0, 1]) } }, { targets })).toThrow(new RangeError("sex: expected a level for each of the 3 rows"));
    expect(() => rakeLevels({ rows: 3, level: { sex: Int32Array.from([0, 1, 0, 1]) } }, { targets })).toThrow(new RangeError("sex: expected a level for each of the 3 rows"));
    // Two target levels: index 1 is the last, 2 is past it (the edge), 7 far past.
    expect(() => rakeLevels({ rows: 3, level: { sex: Int32Array.from([0, 2, 1]) } }, { targets })).toThrow(new RangeError("row 1: sex level 2 has no target"));
    expect(() => rakeLevels({ rows: 3, level: { sex: Int32Array.from([0, 1, 7]) } }, { targets })).toThrow(new RangeError("row 2: sex level 7 has no target"));
  });

  test("kish of no weight: n_eff 0 and no design effect", () => {
    const k = kish([0, 0]);
    expect(k.nEff).toBe(0);
    expect(k.deff).toBeNaN();
    expect(kish([1, 3])).toEqual({ n: 2, sumW: 4, nEff: 1.6, deff: 1.25 });
  });
});
