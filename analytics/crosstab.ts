// A cross-tab with column-letter significance (pure: no I/O, no app imports).
//
// The table: rows (a measure's top-2-box per test option, or a question's answers) by banner
// columns (the options of one or more banner variables: a demographic, a question, the market, a
// saved filter set), with a Total column first. A cell (row r, column c) is the weighted share
//   p_rc = Σ_i a_irc / Σ_i b_irc,  a = Σ_{units of i in base(r) ∩ c} w·y_r,  b = Σ_{same units} w,
// a ratio mean estimated as a domain of the stratified design of design.ts (strata = market runs,
// PSUs = respondents, every respondent of the project in n_h). Its covariance with the other cells
// of the row is the Taylor linearisation of design.ts, so overlapping columns (a multi-choice
// question as banner) and disjoint ones are handled alike: R's svytotal of the numerators and
// denominators with svycontrast's delta method gives the same (tests/fixtures/stats/xtab.R).
//
// Significance: within each banner variable, every pair of its columns on every row is tested
// (p_a − p_b over √(V_aa + V_bb − 2·V_ab), two-sided normal); the table's tests form one family,
// adjusted by Benjamini-Hochberg, Bonferroni or none (design.ts adjustP). A cell carries the
// letters of the columns of its banner variable that are significantly LOWER than it (the
// convention of Q and SPSS Custom Tables: "A" in column B means B is above A). The Total column has
// no letter and is not tested; nor is a cell with a low base (Kish n_eff below 30, as Q's minimum
// sample size for testing), which is shown and flagged.
import { adjustP, contrast, designEstimates, emptySums, isSmallBase, significantAt, stratumOf, wilsonInterval, type Adjust, type DesignSums } from "./design.ts";
import type { Confidence } from "./significance.ts";

/** One respondent of the filtered set, with the banner columns they belong to and their answers. */
export interface XtabRespondent {
  stratum: string;
  weight: number;
  /** Banner columns (indices into the banner's columns, the Total excluded) the respondent is in. */
  columns: readonly number[];
  /** Answer units: a row of the stub and its value (0/1 for a share). Several units per row are summed. */
  units: readonly { row: number; y: number }[];
}

export interface XtabSpec {
  rows: number;
  /** Banner variables, each a list of its column indices (0-based over all banner columns). */
  groups: readonly (readonly number[])[];
  /** Every PSU of the design per stratum (the project's complete respondents: filters are domains). */
  strata: ReadonlyMap<string, number>;
  confidence: Confidence;
  adjust: Adjust;
}

export interface XtabCell {
  n: number;
  nEff: number;
  value: number;
  se: number;
  ci: [number, number];
  smallBase: boolean;
  /** Letters of the columns in the same banner variable significantly lower than this cell. */
  higherThan: string[];
}

export interface XtabTest {
  row: number;
  /** Banner column indices (a before b). */
  a: number;
  b: number;
  diff: number;
  se: number;
  p: number;
  pAdjusted: number;
  significant: boolean;
}

export interface XtabResult {
  /** Column letters, A.. over the banner columns (the Total has none). */
  letters: string[];
  /** cells[row][0] is the Total; cells[row][1 + c] banner column c. */
  cells: XtabCell[][];
  tests: XtabTest[];
}

/** A, B, .. Z, AA, AB, .. (spreadsheet style). */
export function columnLetter(i: number): string {
  let s = "";
  for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

/** The running sums of a cross-tab: respondents are added one at a time, then finished. */
function accumulator(spec: XtabSpec) {
  const C = spec.groups.reduce((a, g) => a + g.length, 0);
  const k = C + 1;
  const sums = Array.from({ length: spec.rows }, () => emptySums(k));
  for (const s of sums) for (const [h, n] of spec.strata) stratumOf(s, h).n = n;
  // Only the covariances the tests use are summed: within a banner variable (and each column's
  // own variance). A respondent's value on a row is the same in every column they are in, so the
  // cost is (columns the respondent is in)² within each variable, not k².
  const groupOf = new Array<number>(k).fill(-1);
  spec.groups.forEach((g, i) => {
    for (const c of g) groupOf[c + 1] = i;
  });
  const add = (r: XtabRespondent) => {
    const byRow = new Map<number, { y: number; units: number }>();
    for (const u of r.units) {
      const x = byRow.get(u.row) ?? byRow.set(u.row, { y: 0, units: 0 }).get(u.row)!;
      x.y += u.y;
      x.units++;
    }
    if (!byRow.size) return;
    const cells = [0, ...new Set(r.columns.map((c) => c + 1))];
    const pairs: number[] = [];
    for (const d of cells) for (const e of cells) if (d === e || (groupOf[d] !== -1 && groupOf[d] === groupOf[e])) pairs.push(d * k + e);
    for (const [row, { y, units }] of byRow) {
      const a = r.weight * y;
      const b = r.weight * units;
      const h = stratumOf(sums[row]!, r.stratum);
      if (!spec.strata.has(r.stratum)) h.n++;
      for (const d of cells) {
        h.count[d]!++;
        h.A[d]! += a;
        h.B[d]! += b;
      }
      const aa = a * a;
      const ab = a * b;
      const bb = b * b;
      for (const x of pairs) {
        h.NN[x]!++;
        h.AA[x]! += aa;
        h.AB[x]! += ab;
        h.BB[x]! += bb;
      }
    }
  };
  return { add, finish: () => finish(sums, C, spec) };
}

export function crossTab(respondents: Iterable<XtabRespondent>, spec: XtabSpec): XtabResult {
  const acc = accumulator(spec);
  for (const r of respondents) acc.add(r);
  return acc.finish();
}

/**
 * How a cross-tab on a large project shares its process (crosstab.service.ts): the sums run in
 * slices of about `sliceMs`, with the event loop given back between them, so other requests are
 * answered meanwhile; the work stops (XtabStopped) past `deadline` or once `signal` aborts.
 */
export interface XtabPace {
  sliceMs: number;
  /** A `now()` value after which the work stops. */
  deadline?: number;
  signal?: AbortSignal;
  /** The clock (performance.now by default) and the pause between slices (a macrotask by default). */
  now?: () => number;
  pause?: () => Promise<void>;
}

/** A paced cross-tab stopped: past its deadline, or its request went away. */
export class XtabStopped extends Error {
  constructor(readonly reason: "deadline" | "aborted") {
    super(reason === "deadline" ? "the cross-tab ran past its time limit" : "the cross-tab's request went away");
  }
}

/** How many respondents are added between two looks at the clock. */
const CHECK_EVERY = 256;

/** crossTab in slices (XtabPace): the same result, computed without holding the event loop. */
export async function crossTabPaced(respondents: Iterable<XtabRespondent>, spec: XtabSpec, pace: XtabPace): Promise<XtabResult> {
  const now = pace.now ?? (() => performance.now());
  const pause = pace.pause ?? (() => new Promise<void>((r) => setImmediate(r)));
  const check = () => {
    if (pace.signal?.aborted) throw new XtabStopped("aborted");
    if (pace.deadline !== undefined && now() > pace.deadline) throw new XtabStopped("deadline");
  };
  const acc = accumulator(spec);
  let sliceEnd = now() + pace.sliceMs;
  let i = 0;
  for (const r of respondents) {
    acc.add(r);
    if (++i % CHECK_EVERY) continue;
    if (now() < sliceEnd) continue;
    check();
    await pause();
    check();
    sliceEnd = now() + pace.sliceMs;
  }
  check();
  return acc.finish();
}

function finish(sums: DesignSums[], C: number, spec: XtabSpec): XtabResult {
  const ests = sums.map((s) => designEstimates(s));
  const letters = Array.from({ length: C }, (_, i) => columnLetter(i));
  const cells: XtabCell[][] = ests.map((est) =>
    est.domains.map((d) => {
      const ci = wilsonInterval(d.estimate, d.se, d.n, d.nEff, spec.confidence);
      return { n: d.n, nEff: d.nEff, value: d.n > 0 ? d.estimate : NaN, se: d.se, ci: [ci.lo, ci.hi], smallBase: isSmallBase(d.nEff), higherThan: [] };
    }),
  );
  const tests: XtabTest[] = [];
  ests.forEach((est, row) => {
    for (const g of spec.groups)
      for (let x = 0; x < g.length; x++)
        for (let y = x + 1; y < g.length; y++) {
          const a = g[x]!;
          const b = g[y]!;
          // A low base (Kish n_eff below 30) is shown, flagged, and not tested: a cell of three
          // respondents who all agree has no variance to linearise and would "beat" every column.
          if (isSmallBase(est.domains[a + 1]!.nEff) || isSmallBase(est.domains[b + 1]!.nEff)) continue;
          const c = contrast(est, a + 1, b + 1);
          tests.push({ row, a, b, diff: c.diff, se: c.se, p: c.p, pAdjusted: NaN, significant: false });
        }
  });
  const adj = adjustP(
    tests.map((t) => t.p),
    spec.adjust,
  );
  tests.forEach((t, i) => {
    t.pAdjusted = adj[i]!;
    t.significant = significantAt(t.pAdjusted, spec.confidence);
    if (!t.significant) return;
    const [hi, lo] = t.diff > 0 ? [t.a, t.b] : [t.b, t.a];
    cells[t.row]![hi + 1]!.higherThan.push(letters[lo]!);
  });
  for (const row of cells) for (const c of row) c.higherThan.sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
  return { letters, cells, tests };
}
