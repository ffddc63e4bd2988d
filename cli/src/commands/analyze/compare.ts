// `ideally analyze compare`: the results' statistics engine (api/src/analytics/design.ts) on your
// own long-format data, one row per respondent and rated option: each group's weighted top-box
// share with its design-based (Taylor linearised) SE and Wilson interval, and every pair of groups
// compared, paired when --respondent links a respondent's rows, stratified with --strata, p-values
// adjusted within the family of pairs (Benjamini-Hochberg by default). docs/statistics.md.
import { addPsu, ADJUST_NAMES, compareSums, emptySums, type Adjust, type CompareResult } from "../../../../api/src/analytics/design.ts";
import type { Confidence } from "../../../../api/src/analytics/significance.ts";
import { inputError, usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, printJson, table, warn } from "../../output.ts";
import { at, column, columnName, Float64Column, Int32Column, scanTable, shortName, weightCell } from "./input.ts";

export interface CompareCliOptions {
  value: string;
  top: string;
  group: string;
  weight?: string;
  strata?: string;
  respondent?: string;
  confidence?: string;
  adjust?: string;
  json?: boolean;
}

export type CompareOutput = CompareResult;

const pValue = (p: number) => (p < 0.0001 ? "<0.0001" : fmt(p, 4));

const ADJUSTS: readonly Adjust[] = ["bh", "none", "bonferroni"];
const CONFIDENCES: readonly Confidence[] = [90, 95, 99];

export async function runCompare(file: string, o: CompareCliOptions): Promise<CompareOutput> {
  const adjust = ADJUSTS.find((a) => a === (o.adjust ?? "bh").toLowerCase());
  if (!adjust) throw usageError(`--adjust ${o.adjust}: expected bh, none or bonferroni`);
  const confidence = CONFIDENCES.find((c) => String(c) === (o.confidence ?? "95").trim());
  if (!confidence) throw usageError(`--confidence ${o.confidence}: expected 90, 95 or 99`);
  const top = new Set(
    o.top
      .split(",")
      .map((s) => s.trim())
      .filter((s) => s !== ""),
  );
  if (top.size === 0) throw usageError("--top: give the values that count as top box, e.g. --top 1,2");
  // The file is streamed into each respondent's cells (one per group they answered: Σw·y and Σw)
  // in typed arrays, a respondent's cells linked in the order they were met. The design's sums
  // are then added respondent by respondent in the order compareLong (design.ts) adds them, so the
  // figures are the same to the last bit: answered respondents in the order of their first answered
  // row, then those with no answered row (still units of the design, in n_h).
  let st!: ReturnType<typeof newState>;
  let head!: { header: string[]; file: string };
  let sCol = -1;
  let rCol = -1;
  let vCol = -1;
  let gCol = -1;
  const t = await scanTable(file, (h) => {
    head = h;
    vCol = column(h, o.value, "--value");
    gCol = column(h, o.group, "--group");
    const wCol = o.weight != null ? column(h, o.weight, "--weight") : -1;
    sCol = o.strata != null ? column(h, o.strata, "--strata") : -1;
    rCol = o.respondent != null ? column(h, o.respondent, "--respondent") : -1;
    st = newState();
    const s = st;
    return (fields, line) => {
      const weight = wCol >= 0 ? weightCell(h, fields, line, wCol) : 1;
      const group = fields[gCol]!.trim();
      if (group === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, gCol))}: blank group`);
      const stratum = sCol >= 0 ? fields[sCol]!.trim() : "";
      if (sCol >= 0 && stratum === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, sCol))}: blank stratum`);
      const id = rCol >= 0 ? fields[rCol]!.trim() : null;
      if (id === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, rCol))}: blank respondent`);
      // A respondent's rows must agree on their weight and stratum (both belong to the respondent).
      let r: number;
      const hCode = code(s.strata, s.strataNames, stratum);
      if (id === null) r = s.newRespondent(weight, hCode, line);
      else {
        const known = s.ids.get(id);
        if (known === undefined) {
      r = s.newRespondent(weight, hCode, line);
      s.ids.set(id, r);
    }
        else {
          r = known;
          if (s.weight.get(r) !== weight || s.stratum.get(r) !== hCode)
            throw inputError(`${at(h, line)}: respondent ${shortName(id)} has another weight or stratum than on line ${s.firstLine.get(r)}`);
        }
      }
      const v = fields[vCol]!.trim();
      // A blank value is not an answer ("not sure"): the row stays in the design, outside the domain.
      if (v === "") {
        s.unanswered.push(r);
        return;
      }
      const y = top.has(v) ? 1 : 0;
      s.answer(r, code(s.groups, s.groupNames, group), weight * y, weight);
    };
  });
  if (st.answeredOrder.length === 0) throw inputError(`${t.file}: no row has a value in ${shortName(columnName(head, vCol))}`);
  // Domains in the order of their names (as R orders factor levels).
  const names = [...st.groupNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const domainOf = st.groupNames.map((g) => names.indexOf(g));
  const sums = emptySums(names.length);
  // Read in place (get), not joined (view): the cells of millions of rows are not copied. One
  // scratch list of cells serves every respondent (addPsu reads it and keeps nothing).
  const scratch = names.map(() => ({ d: 0, a: 0, b: 0 }));
  const cells: { d: number; a: number; b: number }[] = [];
  for (let q = 0; q < st.answeredOrder.length; q++) {
    const r = st.answeredOrder.get(q);
    cells.length = 0;
    for (let c = st.head.get(r); c >= 0; c = st.cellNext.get(c)) {
      const x = scratch[cells.length]!;
      x.d = domainOf[st.cellGroup.get(c)]!;
      x.a = st.cellA.get(c);
      x.b = st.cellB.get(c);
      cells.push(x);
    }
    addPsu(sums, st.strataNames[st.stratum.get(r)]!, cells);
  }
  const added = new Uint8Array(st.respondents);
  for (let q = 0; q < st.unanswered.length; q++) {
    const r = st.unanswered.get(q);
    if (st.head.get(r) >= 0 || added[r]) continue;
    added[r] = 1;
    addPsu(sums, st.strataNames[st.stratum.get(r)]!, []);
  }
  const res = compareSums(sums, names, { confidence, adjust, paired: rCol >= 0, strata: sCol >= 0 });
  const out: CompareOutput = res;
  for (const g of out.groups) if (g.n < 2) warn(`group ${g.group} has ${g.n} respondent: no variance`);
  if (o.json) printJson(out);
  else {
    const how = [
      "Taylor-linearised variance",
      out.method.strata ? `strata ${columnName(head, sCol)}` : "no strata",
      out.method.paired ? `paired by ${columnName(head, rCol)}` : "rows independent",
      `${ADJUST_NAMES[adjust]} adjustment`,
      `${confidence}% confidence`,
    ];
    // The method on as many lines as the terminal needs (80 columns when not a terminal).
    const width = process.stdout.columns || 80;
    const lines: string[] = [];
    for (const part of how) {
      const last = lines.length ? lines[lines.length - 1]! : null;
      if (last !== null && last.length + 2 + part.length <= width) lines[lines.length - 1] = `${last}, ${part}`;
      else lines.push(part);
    }
    process.stdout.write(`${bold(`Top box (${[...top].join(", ")}) of ${columnName(head, vCol)} by ${columnName(head, gCol)}`)}\n${dim(lines.join("\n"))}\n`);
    process.stdout.write(
      `${table(
        ["group", "n", "n eff", "share", "se", `${confidence}% interval`, ""],
        out.groups.map((g) => [g.group, String(g.n), fmt(g.nEff, 1), pct(g.share), fmt(g.se * 100, 2), `${pct(g.ci[0])} – ${pct(g.ci[1])}`, g.smallBase ? "low base" : ""]),
      )}\n\n`,
    );
    process.stdout.write(
      `${table(
        ["a", "b", "diff", "se", "p", "p adj", ""],
        out.comparisons.map((c) => [c.a, c.b, fmt(c.diff * 100, 1), fmt(c.se * 100, 2), pValue(c.p), pValue(c.pAdjusted), c.significant ? "*" : ""]),
      )}\n`,
    );
    process.stdout.write(dim(`* significant at ${confidence}% after adjustment\ndiff and se in points; low base: n eff < ${out.method.smallBase}\n`));
  }
  return out;
}

/** A string's code in a dictionary, adding it when new. */
function code(dict: Map<string, number>, names: string[], key: string): number {
  let c = dict.get(key);
  if (c === undefined) {
    c = names.length;
    dict.set(key, c);
    names.push(key);
  }
  return c;
}

/** What `compare` keeps while it streams: respondents, their cells, dictionaries. */
function newState() {
  const s = {
    ids: new Map<string, number>(),
    strata: new Map<string, number>(),
    strataNames: [] as string[],
    groups: new Map<string, number>(),
    groupNames: [] as string[],
    respondents: 0,
    weight: new Float64Column(),
    stratum: new Int32Column(),
    firstLine: new Int32Column(),
    /** A respondent's first and last cell, -1 for none. */
    head: new Int32Column(),
    tail: new Int32Column(),
    cellGroup: new Int32Column(),
    cellA: new Float64Column(),
    cellB: new Float64Column(),
    cellNext: new Int32Column(),
    /** Respondents in the order of their first answered row. */
    answeredOrder: new Int32Column(),
    /** Respondents of rows without a value, in row order. */
    unanswered: new Int32Column(),
    newRespondent(weight: number, stratum: number, line: number): number {
      s.weight.push(weight);
      s.stratum.push(stratum);
      s.firstLine.push(line);
      s.head.push(-1);
      s.tail.push(-1);
      return s.respondents++;
    },
    /** Adds a·, b· to respondent r's cell of group g (a new cell at the end of their list if none). */
    answer(r: number, g: number, a: number, b: number): void {
      let c = s.head.get(r);
      while (c >= 0 && s.cellGroup.get(c) !== g) c = s.cellNext.get(c);
      if (c < 0) {
        c = s.cellGroup.length;
        s.cellGroup.push(g);
        s.cellA.push(0);
        s.cellB.push(0);
        s.cellNext.push(-1);
        if (s.head.get(r) < 0) {
          s.head.set(r, c);
          s.answeredOrder.push(r);
        } else s.cellNext.set(s.tail.get(r), c);
        s.tail.set(r, c);
      }
      s.cellA.set(c, s.cellA.get(c) + a);
      s.cellB.set(c, s.cellB.get(c) + b);
    },
  };
  return s;
}
