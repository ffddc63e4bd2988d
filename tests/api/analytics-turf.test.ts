// TURF reach and frequency: hand-computed cases, exhaustive vs greedy, and the turfR example data
// (180 weighted respondents, 10 items) against a plainly written brute force.
import { describe, expect, test } from "bun:test";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { binomial, turf, turfReach } from "@ideally/analytics/turf";

describe("TURF, by hand", () => {
  // Items 0,1,2. r0 {0} w1, r1 {1} w1, r2 {1,2} w2, r3 {2} w1; total weight 5.
  // Item shares .2, .6, .6. Every pair reaches 4/5; frequency {1,2} = 1.2, {0,1} = {0,2} = .8.
  const acceptance = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 1, 1],
    [0, 0, 1],
  ];
  const weights = [1, 1, 2, 1];

  test("weighted reach and frequency, ranked by reach then frequency", () => {
    const res = turf({ acceptance, weights }, { k: 2 });
    expect(res.method).toBe("exhaustive");
    expect(res.evaluated).toBe(3);
    expect(res.sets.map((s) => s.items)).toEqual([
      [1, 2],
      [0, 1],
      [0, 2],
    ]);
    expect(res.sets[0].reach).toBeCloseTo(0.8, 12);
    expect(res.sets[0].frequency).toBeCloseTo(1.2, 12);
    expect(res.sets[1].frequency).toBeCloseTo(0.8, 12);
    expect(res.itemReach.map((x) => +x.toFixed(12))).toEqual([0.2, 0.6, 0.6]);
  });

  test("unweighted, and depth 2", () => {
    const res = turf({ acceptance }, { k: 2, top: 1 });
    expect(res.sets).toEqual([{ items: [1, 2], reach: 0.75, frequency: 1 }]);
    const d2 = turf({ acceptance, weights }, { k: 2, depth: 2 });
    expect(d2.sets[0].items).toEqual([1, 2]);
    expect(d2.sets[0].reach).toBeCloseTo(0.4, 12);
    expect(d2.sets[1].reach).toBe(0);
    expect(turfReach({ acceptance, weights }, [0, 1, 2], 2).reach).toBeCloseTo(0.4, 12);
    expect(turfReach({ acceptance, weights }, [0, 1, 2], 3).reach).toBe(0);
  });

  // Items A, B, C; r1,r2 {A,B}; r3,r4 {A,C}; r5 {B}; r6 {C}. Greedy takes A (4/6), then B
  // (5/6; B and C tie, B has the lower index); the best pair is {B,C} with reach 1.
  test("greedy is the documented greedy, and can miss the optimum", () => {
    const acc = [
      [1, 1, 0],
      [1, 1, 0],
      [1, 0, 1],
      [1, 0, 1],
      [0, 1, 0],
      [0, 0, 1],
    ];
    const g = turf({ acceptance: acc }, { k: 2, greedy: true });
    expect(g.method).toBe("greedy");
    // frequency: A accepted by 4, B by 3, over 6 respondents.
    expect(g.sets.map((s) => s.items)).toEqual([[0, 1]]);
    expect(g.sets[0].reach).toBeCloseTo(5 / 6, 12);
    expect(g.sets[0].frequency).toBeCloseTo(7 / 6, 12);
    const best = turf({ acceptance: acc }, { k: 2 });
    expect(best.sets[0].items).toEqual([1, 2]);
    expect(best.sets[0].reach).toBe(1);
    // Over the cap, the search is greedy.
    expect(turf({ acceptance: acc }, { k: 2, cap: 2 }).method).toBe("greedy");
  });

  test("binomial and argument checks", () => {
    expect(binomial(10, 3)).toBe(120);
    expect(binomial(40, 20)).toBe(137846528820);
    expect(binomial(100, 50, 2_000_000)).toBe(Infinity);
    expect(() => turf({ acceptance }, { k: 4 })).toThrow();
    expect(() => turf({ acceptance }, { k: 2, depth: 3 })).toThrow();
  });

  test("bitsets across word boundaries agree with a direct count (70 respondents, 8 items)", () => {
    let seed = 7;
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    const acc = Array.from({ length: 70 }, () => Array.from({ length: 8 }, () => (rand() < 0.2 ? 1 : 0)));
    const w = acc.map(() => 0.5 + rand());
    const res = turf({ acceptance: acc, weights: w }, { k: 3, depth: 2, top: 56 });
    expect(res.sets.length).toBe(56);
    const total = w.reduce((a, b) => a + b, 0);
    for (const s of res.sets) {
      let hit = 0;
      for (let i = 0; i < acc.length; i++) if (s.items.filter((j) => acc[i][j]).length >= 2) hit += w[i];
      expect(s.reach).toBeCloseTo(hit / total, 12);
    }
  });
});

describe("TURF on turf_ex_data.csv", async () => {
  const { header, rows } = parseCsvObjects(await Bun.file(new URL("../fixtures/reference-data/turf_ex_data.csv", import.meta.url)).text());
  const items = header.filter((h) => h.startsWith("item_"));
  const acceptance = rows.map((r) => items.map((h) => Number(r[h])));
  const weights = rows.map((r) => Number(r.wgt));

  test("exhaustive k=3 equals a brute-force recomputation; greedy within 1 − 1/e", () => {
    expect(rows.length).toBe(180);
    expect(items.length).toBe(10);
    const res = turf({ acceptance, weights }, { k: 3, top: 5 });

    // Brute force, written plainly.
    const total = weights.reduce((a, b) => a + b, 0);
    let best = { set: [] as number[], reach: -1, freq: -1 };
    for (let a = 0; a < 10; a++)
      for (let b = a + 1; b < 10; b++)
        for (let c = b + 1; c < 10; c++) {
          let reached = 0;
          let freq = 0;
          for (let i = 0; i < rows.length; i++) {
            const count = acceptance[i][a] + acceptance[i][b] + acceptance[i][c];
            if (count >= 1) reached += weights[i];
            freq += count * weights[i];
          }
          const reach = reached / total;
          freq /= total;
          if (reach > best.reach + 1e-12 || (Math.abs(reach - best.reach) <= 1e-12 && freq > best.freq)) best = { set: [a, b, c], reach, freq };
        }
    expect(res.sets[0].items).toEqual(best.set);
    expect(res.sets[0].reach).toBeCloseTo(best.reach, 12);
    expect(res.sets[0].frequency).toBeCloseTo(best.freq, 12);
    for (let i = 1; i < res.sets.length; i++) expect(res.sets[i].reach).toBeLessThanOrEqual(res.sets[i - 1].reach);

    const g = turf({ acceptance, weights }, { k: 3, greedy: true });
    expect(g.sets[0].reach).toBeGreaterThanOrEqual((1 - 1 / Math.E) * best.reach);
    expect(g.sets[0].reach).toBeLessThanOrEqual(best.reach + 1e-12);
    const name = (s: number[]) => s.map((j) => items[j]).join("+");
    console.log(
      `TURF turf_ex_data k=3: ${res.sets.map((s) => `${name(s.items)} reach ${s.reach.toFixed(4)} freq ${s.frequency.toFixed(4)}`).join("; ")}; ` +
        `greedy ${name(g.sets[0].items)} reach ${g.sets[0].reach.toFixed(4)}`,
    );
  });

  test("unit weights (byte tables) agree with no weights (popcount)", () => {
    const a = turf({ acceptance }, { k: 4, top: 20 });
    const b = turf({ acceptance, weights: weights.map(() => 1) }, { k: 4, top: 20 });
    expect(b.sets.map((s) => s.items)).toEqual(a.sets.map((s) => s.items));
    a.sets.forEach((s, i) => {
      expect(b.sets[i].reach).toBeCloseTo(s.reach, 12);
    });
  });

  test("exhaustive search evaluates every one of the C(10, k) sets for every k", () => {
    for (let k = 1; k <= 10; k++) expect(turf({ acceptance, weights }, { k }).evaluated).toBe(binomial(10, k));
  });
});

describe("TURF, edges and refusals", () => {
  const acceptance = [
    [1, 0, 0],
    [0, 1, 0],
    [0, 1, 1],
    [0, 0, 1],
  ];

  test("input that cannot be a table of respondents is refused, naming the fault", () => {
    expect(() => turf({ acceptance, weights: [1, 1, 1] }, { k: 1 })).toThrow("weights must have one entry per respondent");
    expect(() => turf({ acceptance, weights: [1, -0.5, 1, 1] }, { k: 1 })).toThrow("weight must be finite and >= 0, got -0.5");
    expect(() => turf({ acceptance, weights: [1, Number.NaN, 1, 1] }, { k: 1 })).toThrow("got NaN");
    expect(() => turf({ acceptance, weights: [1, Infinity, 1, 1] }, { k: 1 })).toThrow("got Infinity");
    expect(() =>
      turf(
        {
          acceptance: [
            [1, 0, 0],
            [0, 1],
          ],
        },
        { k: 1 },
      ),
    ).toThrow("respondent 1 has 2 items, expected 3");
    // A weight of exactly 0 is allowed (a respondent raked out).
    expect(turf({ acceptance, weights: [0, 1, 1, 1] }, { k: 1 }).itemReach[0]).toBe(0);
  });

  test("k and depth outside their ranges, at each edge", () => {
    expect(() => turf({ acceptance }, { k: 0 })).toThrow("k must be an integer in 1..3");
    expect(() => turf({ acceptance }, { k: 1.5 })).toThrow("k must be an integer in 1..3");
    expect(() => turf({ acceptance }, { k: 4 })).toThrow("k must be an integer in 1..3");
    expect(turf({ acceptance }, { k: 3 }).sets).toEqual([{ items: [0, 1, 2], reach: 1, frequency: 1.25 }]);
    expect(turf({ acceptance }, { k: 1 }).evaluated).toBe(3);
    expect(() => turf({ acceptance }, { k: 2, depth: 0 })).toThrow("depth must be an integer in 1..k");
    expect(() => turf({ acceptance }, { k: 2, depth: 1.5 })).toThrow("depth must be an integer in 1..k");
    expect(() => turf({ acceptance }, { k: 2, depth: 3 })).toThrow("depth must be an integer in 1..k");
    expect(turf({ acceptance }, { k: 2, depth: 2 }).sets[0]).toEqual({ items: [1, 2], reach: 0.25, frequency: 1 });
    expect(() => turf({ acceptance: [] }, { k: 1 })).toThrow("k must be an integer in 1..0");
  });

  test("binomial at its edges", () => {
    expect(binomial(5, -1)).toBe(0);
    expect(binomial(5, 6)).toBe(0);
    expect(binomial(0, 0)).toBe(1);
    expect(binomial(5, 0)).toBe(1);
    expect(binomial(5, 5)).toBe(1);
    expect(binomial(5, 1)).toBe(5);
    expect(binomial(5, 4)).toBe(5);
    expect(binomial(52, 5)).toBe(2598960);
    // The limit: a count equal to it is returned; one past it is Infinity.
    expect(binomial(10, 3, 120)).toBe(120);
    expect(binomial(10, 3, 119)).toBe(Infinity);
  });

  test("the cap: C(n, k) equal to it is searched exhaustively, one over it greedily", () => {
    expect(turf({ acceptance }, { k: 2, cap: 3 }).method).toBe("exhaustive");
    expect(turf({ acceptance }, { k: 2, cap: 2 }).method).toBe("greedy");
  });

  test("nobody weighted: every reach and share is 0, not NaN", () => {
    const res = turf({ acceptance, weights: [0, 0, 0, 0] }, { k: 2 });
    expect(res.itemReach).toEqual([0, 0, 0]);
    for (const s of res.sets) expect(s).toMatchObject({ reach: 0, frequency: 0 });
    expect(turfReach({ acceptance, weights: [0, 0, 0, 0] }, [0, 1])).toEqual({ reach: 0, frequency: 0 });
    const g = turf({ acceptance, weights: [0, 0, 0, 0] }, { k: 2, greedy: true });
    expect(g.sets[0]).toEqual({ items: [0, 1], reach: 0, frequency: 0 });
  });

  test("top: how many sets come back, ties broken by frequency then by the lower items", () => {
    // Four items, each accepted by one respondent of four, item 3 also by respondent 0:
    // every pair with item 3 reaches 2/4 or 3/4.
    const acc = [
      [1, 0, 0, 1],
      [0, 1, 0, 0],
      [0, 0, 1, 0],
      [0, 0, 0, 1],
    ];
    expect(turf({ acceptance: acc }, { k: 2, top: 0 }).sets).toEqual([]);
    const all = turf({ acceptance: acc }, { k: 2, top: 6 });
    // Reach: {1,3} {2,3} = 3/4 (freq 3/4); {0,1} {0,2} {1,2} = 2/4 (freq 2/4); {0,3} = 2/4 (freq 3/4).
    expect(all.sets.map((s) => s.items)).toEqual([
      [1, 3],
      [2, 3],
      [0, 3],
      [0, 1],
      [0, 2],
      [1, 2],
    ]);
    expect(all.sets.map((s) => s.reach)).toEqual([0.75, 0.75, 0.5, 0.5, 0.5, 0.5]);
    expect(all.sets.map((s) => s.frequency)).toEqual([0.75, 0.75, 0.75, 0.5, 0.5, 0.5]);
    // The best two of six, found while walking: the same first two.
    expect(turf({ acceptance: acc }, { k: 2, top: 2 }).sets.map((s) => s.items)).toEqual([
      [1, 3],
      [2, 3],
    ]);
    // Top 4 keeps {0,3} (higher frequency) and the first of the three 2/4 sets by index.
    expect(turf({ acceptance: acc }, { k: 2, top: 4 }).sets.map((s) => s.items)).toEqual([
      [1, 3],
      [2, 3],
      [0, 3],
      [0, 1],
    ]);
    expect(turf({ acceptance: acc }, { k: 2 }).sets.length).toBe(6); // default top 10, only 6 exist
  });

  test("greedy: a tie in reach goes to the higher frequency, not the lower index; its count of evaluations", () => {
    // r0 {A}, r1 {A}, r2 {A,C}, r3 {B}, r4 {C}. Step 1 takes A (3/5). Step 2: B and C each add one
    // respondent (reach 4/5), C's frequency is (3 + 2)/5 = 1, B's (3 + 1)/5 = 0.8: C wins though B
    // comes first.
    const acc = [
      [1, 0, 0],
      [1, 0, 0],
      [1, 0, 1],
      [0, 1, 0],
      [0, 0, 1],
    ];
    const g = turf({ acceptance: acc }, { k: 2, greedy: true });
    expect(g.sets[0].items).toEqual([0, 2]);
    expect(g.sets[0].reach).toBeCloseTo(0.8, 12);
    expect(g.sets[0].frequency).toBeCloseTo(1, 12);
    // 3 candidates, then 2.
    expect(g.evaluated).toBe(5);
    expect(g.itemReach.map((x) => +x.toFixed(12))).toEqual([0.6, 0.2, 0.4]);
  });

  test("greedy: a higher frequency never outweighs a lower reach; sets come back in index order", () => {
    // r0-r2 {A,C}, r3 {B}, r4 {}. Step 1: A and C tie (3/5), A comes first. Step 2: {A,B} reaches
    // 4/5 (frequency 4/5), {A,C} 3/5 (frequency 6/5): reach wins.
    const acc = [
      [1, 0, 1],
      [1, 0, 1],
      [1, 0, 1],
      [0, 1, 0],
      [0, 0, 0],
    ];
    const g = turf({ acceptance: acc }, { k: 2, greedy: true });
    expect(g.sets[0]).toEqual({ items: [0, 1], reach: 0.8, frequency: 0.8 });
    // r0-r2 {C}, r3 {A}, r4 {B}: C first, then A (ties B, lower index): reported as [0, 2].
    const later = [
      [0, 0, 1],
      [0, 0, 1],
      [0, 0, 1],
      [1, 0, 0],
      [0, 1, 0],
    ];
    expect(turf({ acceptance: later }, { k: 2, greedy: true }).sets[0]!.items).toEqual([0, 2]);
  });

  test("booleans are accepted as answers", () => {
    const res = turf({ acceptance: acceptance.map((r) => r.map((x) => x === 1)) }, { k: 2, top: 1 });
    expect(res.sets).toEqual([{ items: [1, 2], reach: 0.75, frequency: 1 }]);
  });
});
