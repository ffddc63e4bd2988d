// The cross-tab engine (api/src/analytics/crosstab.ts) against R's survey package: xtab.csv and
// xtab-reference.json (tests/fixtures/stats/xtab.R: svytotal of numerators and denominators,
// svycontrast's delta method, p.adjust BH / Bonferroni). Cells, SEs, intervals, every column test
// and its adjusted p-value to 1e-6; the letters follow from R's adjusted p-values.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "../../api/src/analytics/csv.ts";
import { columnLetter, crossTab, type XtabRespondent } from "../../api/src/analytics/crosstab.ts";

const DIR = join(import.meta.dir, "../fixtures/stats");
const rows = parseCsvObjects(readFileSync(join(DIR, "xtab.csv"), "utf8")).rows;
interface RefCell { column: string; n: number; nEff: number; value: number; se: number; ci: number[] }
interface Ref { scenarios: { name: string; columns: string[]; rows: { row: string; cells: RefCell[] }[]; tests: { row: string; a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; pBonferroni: number }[] }[] }
const ref = JSON.parse(readFileSync(join(DIR, "xtab-reference.json"), "utf8")) as Ref;
const close = (a: number, b: number) => expect(Math.abs(a - b)).toBeLessThan(1e-6);

const strata = new Map<string, number>();
for (const r of rows) strata.set(r.market!, (strata.get(r.market!) ?? 0) + 1);

/** The banner as R builds it: per variable, its columns and who is in each. */
type Banner = { name: string; columns: { label: string; has: (r: Record<string, string>) => boolean }[] }[];
function run(banner: Banner, stubRows: string[], units: (r: Record<string, string>) => { row: number; y: number }[], adjust: "bh" | "bonferroni" | "none" = "bh") {
  const cols = banner.flatMap((v) => v.columns.map((c) => ({ key: `${v.name}:${c.label}`, has: c.has })));
  let i = 0;
  const groups = banner.map((v) => v.columns.map(() => i++));
  const respondents: XtabRespondent[] = rows.map((r) => ({
    stratum: r.market!,
    weight: Number(r.w),
    columns: cols.flatMap((c, k) => (c.has(r) ? [k] : [])),
    units: units(r),
  }));
  return { cols, out: crossTab(respondents, { rows: stubRows.length, groups, strata, confidence: 95, adjust }) };
}

function expectScenario(name: string, r: ReturnType<typeof run>, stubRows: string[], adjust: "bh" | "bonferroni") {
  const s = ref.scenarios.find((x) => x.name === name)!;
  expect(["Total", ...r.cols.map((c) => c.key)]).toEqual(s.columns);
  for (const [ri, row] of s.rows.entries()) {
    expect(row.row).toBe(stubRows[ri]!);
    for (const [ci, e] of row.cells.entries()) {
      const c = r.out.cells[ri]![ci]!;
      expect(c.n).toBe(e.n);
      close(c.nEff, e.nEff);
      close(c.value, e.value);
      close(c.se, e.se);
      close(c.ci[0], e.ci[0]!);
      close(c.ci[1], e.ci[1]!);
    }
  }
  const colIndex = (key: string) => r.cols.findIndex((c) => c.key === key);
  expect(r.out.tests.length).toBe(s.tests.length);
  const expectedLetters = r.out.cells.map((row) => row.map(() => [] as string[]));
  for (const e of s.tests) {
    const ri = stubRows.indexOf(e.row);
    const t = r.out.tests.find((x) => x.row === ri && x.a === colIndex(e.a) && x.b === colIndex(e.b))!;
    close(t.diff, e.diff);
    close(t.se, e.se);
    close(t.p, e.p);
    const pa = adjust === "bh" ? e.pAdjusted : e.pBonferroni;
    close(t.pAdjusted, pa);
    expect(t.significant).toBe(pa < 0.05);
    if (pa < 0.05) {
      const [hi, lo] = e.diff > 0 ? [e.a, e.b] : [e.b, e.a];
      expectedLetters[ri]![colIndex(hi) + 1]!.push(columnLetter(colIndex(lo)));
    }
  }
  r.out.cells.forEach((row, ri) => row.forEach((c, ci) => expect([...c.higherThan].sort()).toEqual(expectedLetters[ri]![ci]!.sort())));
  return expectedLetters.flat(2).length;
}

const top2 = (v: string | undefined) => (v === "" || v === undefined ? [] : [{ y: Number(v) <= 2 ? 1 : 0 }]);
const measureBanner: Banner = [
  { name: "gender", columns: ["F", "M"].map((l) => ({ label: l, has: (r) => r.gender === l })) },
  { name: "age", columns: ["18-34", "35-54", "55+"].map((l) => ({ label: l, has: (r) => r.age === l })) },
];
const measureUnits = (r: Record<string, string>) => [...top2(r.vA).map((u) => ({ row: 0, ...u })), ...top2(r.vB).map((u) => ({ row: 1, ...u }))];
const questionBanner: Banner = [
  { name: "channel", columns: ["ch1", "ch2", "ch3"].map((l) => ({ label: l, has: (r) => r[l] === "1" })) },
  { name: "market", columns: ["DE", "FR", "GB"].map((l) => ({ label: l, has: (r) => r.market === l })) },
];
const questionUnits = (r: Record<string, string>) => (r.intent === "" ? [] : [0, 1, 2].map((k) => ({ row: k, y: Number(r.intent) === k + 1 ? 1 : 0 })));

describe("crossTab reproduces R survey", () => {
  for (const adjust of ["bh", "bonferroni"] as const) {
    test(`a measure (top-2-box per concept) by gender and age, ${adjust}`, () => {
      const letters = expectScenario("measure-by-gender-age", run(measureBanner, ["A", "B"], measureUnits, adjust), ["A", "B"], adjust);
      expect(letters).toBeGreaterThan(0);
    });
    test(`a question by a multi-choice question (overlapping columns) and the market, ${adjust}`, () => {
      const letters = expectScenario("question-by-channel-market", run(questionBanner, ["1", "2", "3"], questionUnits, adjust), ["1", "2", "3"], adjust);
      expect(letters).toBeGreaterThan(0);
    });
  }
  test("letters after Z go on as in a spreadsheet", () => {
    expect([0, 1, 25, 26, 27, 51, 52].map(columnLetter)).toEqual(["A", "B", "Z", "AA", "AB", "AZ", "BA"]);
  });
  test("no adjustment: the raw p-values decide, and more columns differ than under BH", () => {
    const none = run(questionBanner, ["1", "2", "3"], questionUnits, "none").out;
    const s = ref.scenarios.find((x) => x.name === "question-by-channel-market")!;
    for (const t of none.tests) {
      expect(t.pAdjusted).toBe(t.p);
      expect(t.significant).toBe(t.p < 0.05);
    }
    expect(none.tests.filter((t) => t.significant).length).toBe(s.tests.filter((t) => t.p < 0.05).length);
    expect(none.tests.filter((t) => t.significant).length).toBeGreaterThan(s.tests.filter((t) => t.pAdjusted < 0.05).length);
  });
  test("a low base (Kish n_eff below 30) is not tested: 30 respondents are, 29.998 effective are not", () => {
    // Column A: everyone answers Top (p = 1, no variance to linearise); column B: half of 100.
    const make = (aWeights: number[]): XtabRespondent[] => [
      ...aWeights.map((w) => ({ stratum: "s", weight: w, columns: [0], units: [{ row: 0, y: 1 }] })),
      ...Array.from({ length: 100 }, (_, i) => ({ stratum: "s", weight: 1, columns: [1], units: [{ row: 0, y: i % 2 }] })),
    ];
    const spec = (n: number) => ({ rows: 1, groups: [[0, 1]], strata: new Map([["s", n]]), confidence: 95 as const, adjust: "bh" as const });
    const thirty = crossTab(make(Array(30).fill(1)), spec(130));
    expect(thirty.cells[0]![1]!.nEff).toBe(30);
    expect(thirty.tests.length).toBe(1);
    expect(thirty.cells[0]![1]!.higherThan).toEqual(["B"]);
    // One weight of 1.05 among 30: n_eff = 30.05² / (29 + 1.05²) = 29.9976.
    const below = crossTab(make([...Array(29).fill(1), 1.05]), spec(130));
    expect(below.cells[0]![1]!.nEff).toBeCloseTo(29.9976, 4);
    expect(below.cells[0]![1]!.smallBase).toBe(true);
    expect(below.tests.length).toBe(0);
    expect(below.cells[0]![1]!.higherThan).toEqual([]);
  });
});
