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
import {
  addPsu,
  adjustP,
  contrast,
  designEstimates,
  emptySums,
  isSmallBase,
  significantAt,
  stratumOf,
  wilsonInterval,
  type Adjust,
} from "./design.ts";
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

export function crossTab(respondents: Iterable<XtabRespondent>, spec: XtabSpec): XtabResult {
  const C = spec.groups.reduce((a, g) => a + g.length, 0);
  const k = C + 1;
  const sums = Array.from({ length: spec.rows }, () => emptySums(k));
  for (const s of sums) for (const [h, n] of spec.strata) stratumOf(s, h).n = n;
  for (const r of respondents) {
    const byRow = new Map<number, number>();
    const count = new Map<number, number>();
    for (const u of r.units) {
      byRow.set(u.row, (byRow.get(u.row) ?? 0) + u.y);
      count.set(u.row, (count.get(u.row) ?? 0) + 1);
    }
    for (const [row, y] of byRow) {
      const a = r.weight * y;
      const b = r.weight * count.get(row)!;
      const cells = [{ d: 0, a, b }, ...r.columns.map((c) => ({ d: c + 1, a, b }))];
      // addPsu counts the PSU in n_h; the strata's n is already the design's, so take it back.
      const h = stratumOf(sums[row]!, r.stratum);
      const n = h.n;
      addPsu(sums[row]!, r.stratum, cells);
      h.n = spec.strata.has(r.stratum) ? n : n + 1;
    }
  }
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
