// The cross-tab engine (analytics/crosstab.ts) against R's survey package: xtab.csv and
// xtab-reference.json (tests/fixtures/stats/xtab.R: svytotal of numerators and denominators,
// svycontrast's delta method, p.adjust BH / Bonferroni). Cells, SEs, intervals, every column test
// and its adjusted p-value to 1e-6; the letters follow from R's adjusted p-values.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { columnLetter, crossTab, crossTabPaced, XtabStopped, type XtabRespondent } from "@ideally/analytics/crosstab";
import { pacedCrossTab } from "../../api/src/domains/results/crosstab.service.ts";
import { ApiError } from "../../api/src/errors.ts";

const DIR = join(import.meta.dir, "../fixtures/stats");
const rows = parseCsvObjects(readFileSync(join(DIR, "xtab.csv"), "utf8")).rows;
interface RefCell {
  column: string;
  n: number;
  nEff: number;
  value: number;
  se: number;
  ci: number[];
}
interface Ref {
  scenarios: {
    name: string;
    columns: string[];
    rows: { row: string; cells: RefCell[] }[];
    tests: { row: string; a: string; b: string; diff: number; se: number; p: number; pAdjusted: number; pBonferroni: number }[];
  }[];
}
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
  r.out.cells.forEach((row, ri) => {
    row.forEach((c, ci) => {
      expect([...c.higherThan].sort()).toEqual(expectedLetters[ri]![ci]!.sort());
    });
  });
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

describe("crossTab: rules worked by hand", () => {
  const spec = (groups: number[][], strata: [string, number][]) => ({ rows: 1, groups, strata: new Map(strata), confidence: 95 as const, adjust: "bh" as const });

  test("several units of one row are summed: weight × units in the base", () => {
    // A (weight 2) has two units on the row, y 1 and 0: a = 2, b = 4; B (weight 1) one unit, y 1: a = 1, b = 1.
    // The share is 3/5, not 3/3 (weight alone in the base) nor 3/2.
    const out = crossTab(
      [
        {
          stratum: "s",
          weight: 2,
          columns: [0],
          units: [
            { row: 0, y: 1 },
            { row: 0, y: 0 },
          ],
        },
        { stratum: "s", weight: 1, columns: [0], units: [{ row: 0, y: 1 }] },
      ],
      spec([[0]], [["s", 2]]),
    );
    expect(out.cells[0]![0]!.value).toBeCloseTo(0.6, 12);
    expect(out.cells[0]![1]!.value).toBeCloseTo(0.6, 12);
  });

  test("a respondent in a stratum the spec does not list still counts in that stratum's n", () => {
    // Two respondents, y 1 and 0, weight 1, in a stratum missing from spec.strata: the mean 0.5 with
    // the textbook SE of a mean of two, sd/sqrt(2) = 0.7071/1.4142 = 0.5.
    const out = crossTab(
      [
        { stratum: "x", weight: 1, columns: [0], units: [{ row: 0, y: 1 }] },
        { stratum: "x", weight: 1, columns: [0], units: [{ row: 0, y: 0 }] },
      ],
      spec([[0]], []),
    );
    expect(out.cells[0]![0]!.value).toBe(0.5);
    expect(out.cells[0]![0]!.se).toBeCloseTo(0.5, 12);
  });

  test("a low base in the second column of a pair also stops the test", () => {
    // Column A: 100 respondents, half Top; column B: 30 with one weight of 1.05 (n_eff 29.9976), all Top.
    const rs: XtabRespondent[] = [
      ...Array.from({ length: 100 }, (_, i) => ({ stratum: "s", weight: 1, columns: [0], units: [{ row: 0, y: i % 2 }] })),
      ...[...Array(29).fill(1), 1.05].map((w: number) => ({ stratum: "s", weight: w, columns: [1], units: [{ row: 0, y: 1 }] })),
    ];
    const out = crossTab(rs, spec([[0, 1]], [["s", 130]]));
    expect(out.cells[0]![2]!.smallBase).toBe(true);
    expect(out.tests).toEqual([]);
    expect(out.cells[0]![2]!.higherThan).toEqual([]);
  });

  test("a cell's letters are in spreadsheet order: B .. Z, then AA, AB", () => {
    // 28 columns of one variable, 40 respondents each: column A at 90% Top, the others at 10%.
    // A is above every other column by far (z about 11), so it carries all 27 other letters.
    const rs: XtabRespondent[] = [];
    for (let c = 0; c < 28; c++) for (let i = 0; i < 40; i++) rs.push({ stratum: "s", weight: 1, columns: [c], units: [{ row: 0, y: (c === 0 ? i < 36 : i < 4) ? 1 : 0 }] });
    const out = crossTab(rs, spec([Array.from({ length: 28 }, (_, i) => i)], [["s", 28 * 40]]));
    expect(out.cells[0]![1]!.higherThan).toEqual([..."BCDEFGHIJKLMNOPQRSTUVWXYZ", "AA", "AB"]);
    expect(out.cells[0]![2]!.higherThan).toEqual([]);
  });
});

describe("crossTabPaced: a large cross-tab shares the process", () => {
  // 12,000 respondents in 3 strata, two banner variables (3 and 2 columns), 4 rows.
  const many: XtabRespondent[] = Array.from({ length: 12_000 }, (_, i) => ({
    stratum: `s${i % 3}`,
    weight: 0.5 + (i % 7) / 4,
    columns: [i % 3, 3 + (i % 2)],
    units: [
      { row: i % 4, y: (i * 7919) % 3 === 0 ? 1 : 0 },
      { row: (i + 1) % 4, y: i % 5 === 0 ? 1 : 0 },
    ],
  }));
  const spec = {
    rows: 4,
    groups: [
      [0, 1, 2],
      [3, 4],
    ],
    strata: new Map([
      ["s0", 4000],
      ["s1", 4000],
      ["s2", 4000],
    ]),
    confidence: 95 as const,
    adjust: "bh" as const,
  };
  /** A clock that moves 1 ms each time it is read. */
  const ticking = () => {
    let t = 0;
    return () => ++t;
  };

  test("gives the event loop back between slices, and the same table as crossTab", async () => {
    // With the clock moving 1 ms a look and a slice of 10 ms, the sums pause about every 2,560
    // respondents: a callback queued before they start runs before they end.
    const order: string[] = [];
    setImmediate(() => order.push("other work"));
    const paced = await crossTabPaced(many, spec, { sliceMs: 10, now: ticking() });
    order.push("cross-tab done");
    expect(order).toEqual(["other work", "cross-tab done"]);
    expect(paced).toEqual(crossTab(many, spec));
  });

  test("pauses as often as its slices say: 12,000 respondents, a look every 256, a pause every 10 looks", async () => {
    let pauses = 0;
    await crossTabPaced(many, spec, { sliceMs: 10, now: ticking(), pause: async () => void pauses++ });
    // Looks at 256, 512, .. 11,776 (46 looks). The clock reads 1 at the start (the slice ends at 11),
    // k + 1 at look k, so the first pause falls at look 10; it is read once more after each pause
    // (the next slice's end), so the later ones fall at looks 20, 30 and 40: four.
    expect(pauses).toBe(4);
  });

  test("stops at its deadline, and when its request goes away", async () => {
    await expect(crossTabPaced(many, spec, { sliceMs: 10, now: ticking(), deadline: 50, pause: async () => {} })).rejects.toEqual(new XtabStopped("deadline"));
    const gone = new AbortController();
    gone.abort();
    await expect(crossTabPaced(many, spec, { sliceMs: 10, now: ticking(), signal: gone.signal, pause: async () => {} })).rejects.toEqual(new XtabStopped("aborted"));
    // At the very edge: a deadline the clock never passes lets it finish.
    expect(await crossTabPaced(many, spec, { sliceMs: 10, now: ticking(), deadline: 1e9, pause: async () => {} })).toEqual(crossTab(many, spec));
  });

  test("XtabStopped says which limit stopped it", () => {
    expect(new XtabStopped("deadline")).toMatchObject({ reason: "deadline", message: "the cross-tab ran past its time limit" });
    expect(new XtabStopped("aborted")).toMatchObject({ reason: "aborted", message: "the cross-tab's request went away" });
  });

  test("the deadline is checked once more at the end: past it, a small table (no look at the clock on the way) stops too", async () => {
    const ten = many.slice(0, 10);
    // performance.now() is the clock when none is given: a deadline already behind it stops the work.
    await expect(crossTabPaced(ten, spec, { sliceMs: 10, deadline: performance.now() - 1 })).rejects.toThrow("the cross-tab ran past its time limit");
    // The ticking clock reads 1 at the start and 2 at the end: a deadline of 2 is reached, not passed
    // ("past its deadline"), so it finishes; a deadline of 1 is passed.
    expect(await crossTabPaced(ten, spec, { sliceMs: 10, now: ticking(), deadline: 2 })).toEqual(crossTab(ten, spec));
    await expect(crossTabPaced(ten, spec, { sliceMs: 10, now: ticking(), deadline: 1 })).rejects.toThrow("the cross-tab ran past its time limit");
  });

  test("a slice ends when the clock reaches its end: at 10 ms of a 10 ms slice it pauses, at 9.999 it does not", async () => {
    // 300 respondents: one look at the clock (after 256). The clock reads 0 at the start (the slice ends at 10), then `at`.
    const pausesWith = async (at: number) => {
      let reads = 0;
      let pauses = 0;
      await crossTabPaced(many.slice(0, 300), spec, { sliceMs: 10, now: () => (reads++ === 0 ? 0 : at), pause: async () => void pauses++ });
      return pauses;
    };
    expect(await pausesWith(10)).toBe(1);
    expect(await pausesWith(9.999)).toBe(0);
  });

  test("past its deadline at a look it stops there, without pausing again; gone during a pause it reads no further respondent", async () => {
    let pauses = 0;
    let reads = 0;
    const lateClock = () => (reads++ === 0 ? 0 : 100); // 0 at the start, then 100: the first look (256) is past the slice and the deadline
    const late = crossTabPaced(many.slice(0, 600), spec, { sliceMs: 10, now: lateClock, deadline: 50, pause: async () => void pauses++ });
    await expect(late).rejects.toThrow("the cross-tab ran past its time limit");
    expect(pauses).toBe(0);

    let read = 0;
    function* counted() {
      for (const r of many.slice(0, 1000)) {
        read++;
        yield r;
      }
    }
    const gone = new AbortController();
    let looks = 0;
    const clock = () => (looks++ === 0 ? 0 : 100); // the first slice is over at the first look, after 256 respondents
    const run = crossTabPaced(counted(), spec, { sliceMs: 10, now: clock, signal: gone.signal, pause: async () => gone.abort() });
    // The request goes away during the pause that follows that look.
    await expect(run).rejects.toThrow("the cross-tab's request went away");
    expect(read).toBe(256);
  });

  test("through the service: the request's statement timeout is the limit, answered 503 with a Retry-After", async () => {
    const clock = { now: ticking(), pause: async () => {} };
    const err = await pacedCrossTab(many, spec, { limits: { statementTimeoutMs: 30 } }, clock).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).retryAfter).toBe(2);
    expect((err as ApiError).message).toBe("The cross-tab ran longer than the 0.03 s limit and was stopped: narrow it (fewer stub rows, fewer banner variables or a tighter filter) and try again");
    const gone = new AbortController();
    gone.abort();
    const left = await pacedCrossTab(many, spec, { limits: { signal: gone.signal } }, clock).catch((e: unknown) => e);
    expect((left as { code?: string }).code).toBe("CLIENT_GONE");
  });
});
