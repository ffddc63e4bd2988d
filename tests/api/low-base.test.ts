// One base rule (issue 37, docs/statistics.md "The low base"): below the low base (Kish n_eff under
// 30) no test is made: no p-value, never significant, out of the family; at 30 the test is made. The
// case: a concept every respondent rates top-2 (100%) against one at 66.7%, on 30 respondents each,
// disjoint (a split-cell design), against SPEC 7's 'None' line of 50%. With 30 respondents at equal
// weights n_eff is exactly 30 and both tests are made (the difference is large); with one weight of
// 1.1 among 30 n_eff is (29 + 1.1)²/(29 + 1.21) = 906.01/30.21 = 29.9904, a low base, and neither
// the concept's test against the other nor against the line is made.
import { expect, test } from "bun:test";
import { designEstimates, fixedNorm, sumsFromRows, type LongRow } from "@ideally/analytics/design";
import { designTopTwoBoxes, marketTotals } from "../../api/src/domains/results/results.service.ts";

function view(firstWeight: number) {
  const rows: LongRow[] = [];
  for (let i = 0; i < 30; i++) rows.push({ respondent: `a${i}`, stratum: "1", weight: i === 0 ? firstWeight : 1, domain: 0, y: 1 });
  for (let i = 0; i < 30; i++) rows.push({ respondent: `b${i}`, stratum: "1", weight: 1, domain: 1, y: i < 20 ? 1 : 0 });
  const est = designEstimates(sumsFromRows(rows, 2));
  const norm = new Map([[5, { ...fixedNorm(0.5), respondents: 0 }]]);
  return designTopTwoBoxes([], new Map([[5, { domains: [1, 2], est }]]), 99, "bh", norm);
}

test("at n_eff 30 the tests are made; at 29.99 none is, and nothing is marked", () => {
  const at = view(1);
  const [a, b] = at.bySq.get(5)!;
  expect(a!.nEff).toBe(30);
  expect(a!.smallBase).toBe(false);
  expect(a!.vsOthers[0]!.significant, "100% against 66.7% on 30 each is significant at 99%").toBe(true);
  expect(a!.vsOthers[0]!.pValue).toBeGreaterThan(0);
  // 100% has no variance and the line none: that test is undefined (no p-value, null rather than NaN);
  // the others are made: the other concept against the line, and the two concepts.
  expect(a!.vsBenchmark!.lowBase).toBe(false);
  expect(a!.vsBenchmark!.pValue).toBeNull();
  expect(b!.vsBenchmark!.pValue).toBeGreaterThan(0);
  expect(at.tests).toBe(2);

  const below = view(1.1);
  const [x, y] = below.bySq.get(5)!;
  expect(x!.nEff).toBeCloseTo(906.01 / 30.21, 12);
  expect(x!.smallBase).toBe(true);
  for (const t of [x!.vsOthers[0]!, y!.vsOthers[0]!, x!.vsBenchmark!]) {
    expect(t.significant).toBe(false);
    expect(t.pValue).toBeNull();
    expect(t.pAdjusted).toBeNull();
    expect(t.lowBase).toBe(true);
  }
  // The other concept (n_eff 30) is still tested against the line, and alone in the family.
  expect(y!.vsBenchmark!.lowBase).toBe(false);
  expect(y!.vsBenchmark!.pValue).toBeGreaterThan(0);
  expect(below.tests).toBe(1);
  expect(b!.vsBenchmark!.lowBase).toBe(false);
});

test("the market table: a market cell below the low base is not compared with the other markets", () => {
  // Two markets (runs 1 and 2), one option: 30 respondents in market 1 (n_eff 30 or 29.99), 30 in market 2.
  const cells = (w0: number) => {
    const out = [];
    for (const [run, n, tops, w] of [
      [1, 30, 30, w0],
      [2, 30, 20, 1],
    ] as const) {
      // Per run: sums of the design cell of option 7 with itself (results.sql.ts designCells).
      const ws = Array.from({ length: n }, (_, i) => (i === 0 ? w : 1));
      const ys = Array.from({ length: n }, (_, i) => (i < tops ? 1 : 0));
      out.push({
        run,
        standardQuestionId: 5,
        a: 7,
        b: 7,
        nn: n,
        aa: ws.reduce((s, x, i) => s + x * x * ys[i]!, 0),
        ab: ws.reduce((s, x, i) => s + x * x * ys[i]!, 0),
        bb: ws.reduce((s, x) => s + x * x, 0),
        sA: ws.reduce((s, x, i) => s + x * ys[i]!, 0),
        sB: ws.reduce((s, x) => s + x, 0),
      });
    }
    return out;
  };
  const strata = [
    { run: 1, regionId: 1, n: 30, sumW: 30 },
    { run: 2, regionId: 2, n: 30, sumW: 30 },
  ];
  const made = marketTotals(cells(1), strata, 99, "sample").markets[0]!.measures[0]!.results[0]!.vsMarkets[0]!;
  expect(made.lowBase).toBe(false);
  expect(made.significant).toBe(true);
  const not = marketTotals(cells(1.1), strata, 99, "sample").markets[0]!.measures[0]!.results[0]!.vsMarkets[0]!;
  expect(not.lowBase).toBe(true);
  expect(not.significant).toBe(false);
  expect(not.pValue).toBeNull();
});
