// `ideally analyze compare`: the results' statistics engine (analytics/design.ts) on your
// own long-format data, one row per respondent and rated option: each group's weighted top-box
// share with its design-based (Taylor linearised) SE and Wilson interval, and every pair of groups
// compared, paired when --respondent links a respondent's rows, stratified with --strata, p-values
// adjusted within the family of pairs (Benjamini-Hochberg by default). docs/statistics.md.
import { addPsu, ADJUST_NAMES, compareSums, emptySums, type Adjust, type CompareResult } from "@ideally/analytics/design";
import { SMALL_BASE, type Confidence } from "@ideally/analytics/significance";
import { inputError, usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, printJson, table, tableWidth, warn } from "../../output.ts";
import { at, column, columnName, DECIMAL, Float64Column, Int32Column, scanTable, shortName, weightCell } from "./input.ts";

export interface CompareCliOptions {
  value: string;
  top: string;
  group: string;
  weight?: string;
  strata?: string;
  cluster?: string;
  respondent?: string;
  scale?: string;
  minBase?: string;
  confidence?: string;
  adjust?: string;
  json?: boolean;
}

export type CompareOutput = CompareResult;

const pValue = (p: number | null) => (p === null ? "–" : p < 0.0001 ? "<0.0001" : fmt(p, 4));

const ADJUSTS: readonly Adjust[] = ["bh", "none", "bonferroni"];
const CONFIDENCES: readonly Confidence[] = [90, 95, 99];
const WHOLE = /^[-+]?\d+$/;

/** --scale LO-HI: whole numbers, LO below HI. */
function scaleOption(v: string | undefined): { lo: number; hi: number } | null {
  if (v === undefined) return null;
  const m = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(v);
  if (!m || Number(m[1]) >= Number(m[2])) throw usageError(`--scale ${v}: expected LO-HI in whole numbers, e.g. 1-5`);
  return { lo: Number(m[1]), hi: Number(m[2]) };
}

export async function runCompare(file: string, o: CompareCliOptions): Promise<CompareOutput> {
  const adjust = ADJUSTS.find((a) => a === (o.adjust ?? "bh").toLowerCase());
  if (!adjust) throw usageError(`--adjust ${o.adjust}: expected bh, none or bonferroni`);
  const confidence = CONFIDENCES.find((c) => String(c) === (o.confidence ?? "95").trim());
  if (!confidence) throw usageError(`--confidence ${o.confidence}: expected 90, 95 or 99`);
  const minBase = o.minBase === undefined ? SMALL_BASE : DECIMAL.test(o.minBase.trim()) ? Number(o.minBase) : NaN;
  if (!(minBase >= 0) || !Number.isFinite(minBase)) throw usageError(`--min-base ${o.minBase}: expected a number of effective respondents >= 0`);
  const scale = scaleOption(o.scale);
  const onScale = (x: number) => scale === null || (x >= scale.lo && x <= scale.hi);
  const scaleName = scale ? `${scale.lo}-${scale.hi}` : "";
  // The top-box values are points of the scale: whole numbers (read as numbers, so 2.0 is 2).
  const tops = o.top
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (tops.length === 0) throw usageError("--top: give the values that count as top box, e.g. --top 1,2");
  for (const t of tops) {
    if (!WHOLE.test(t) && !(DECIMAL.test(t) && Number.isInteger(Number(t)))) throw usageError(`--top ${t}: the top-box values are whole numbers of the scale, e.g. --top 1,2`);
    if (!onScale(Number(t))) throw usageError(`--top ${t}: not a point of the scale ${scaleName}`);
  }
  const top = new Set(tops.map(Number));
  const seen = new Set<number>();
  // The file is streamed into each respondent's cells (one per group they answered: Σw·y and Σw)
  // in typed arrays, a respondent's cells linked in the order they were met. The design's sums
  // are then added cluster by cluster (a cluster's cells are its respondents' added up; without
  // --cluster each respondent is its own cluster) in the order compareLong (design.ts) adds them,
  // so without clusters the figures are the same to the last bit: clusters in the order of their
  // first answered row, then those with no answered row (still units of the design, in n_h).
  let st!: ReturnType<typeof newState>;
  let head!: { header: string[]; file: string };
  let sCol = -1;
  let cCol = -1;
  let rCol = -1;
  let vCol = -1;
  let gCol = -1;
  const t = await scanTable(file, (h) => {
    head = h;
    vCol = column(h, o.value, "--value");
    gCol = column(h, o.group, "--group");
    const wCol = o.weight != null ? column(h, o.weight, "--weight") : -1;
    sCol = o.strata != null ? column(h, o.strata, "--strata") : -1;
    cCol = o.cluster != null ? column(h, o.cluster, "--cluster") : -1;
    rCol = o.respondent != null ? column(h, o.respondent, "--respondent") : -1;
    st = newState();
    seen.clear();
    const s = st;
    return (fields, line) => {
      const weight = wCol >= 0 ? weightCell(h, fields, line, wCol) : 1;
      const group = fields[gCol]!.trim();
      if (group === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, gCol))}: blank group`);
      const stratum = sCol >= 0 ? fields[sCol]!.trim() : "";
      if (sCol >= 0 && stratum === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, sCol))}: blank stratum`);
      const cluster = cCol >= 0 ? fields[cCol]!.trim() : "";
      if (cCol >= 0 && cluster === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, cCol))}: blank cluster`);
      const id = rCol >= 0 ? fields[rCol]!.trim() : null;
      if (id === "") throw inputError(`${at(h, line)}, ${shortName(columnName(h, rCol))}: blank respondent`);
      // A respondent's rows must agree on their weight, stratum and cluster (all belong to the respondent).
      const hCode = code(s.strata, s.strataNames, stratum);
      // Cluster ids are read within their stratum (R's nest = TRUE): cluster 1 of two strata is two clusters.
      const cl = cCol >= 0 ? s.clusterCode(hCode, cluster) : -1;
      let r: number;
      if (id === null) r = s.newRespondent(weight, hCode, cl, line);
      else {
        const known = s.ids.get(id);
        if (known === undefined) {
          r = s.newRespondent(weight, hCode, cl, line);
          s.ids.set(id, r);
        } else {
          r = known;
          if (s.weight.get(r) !== weight || s.stratum.get(r) !== hCode)
            throw inputError(`${at(h, line)}: respondent ${shortName(id)} has another weight or stratum than on line ${s.firstLine.get(r)}`);
          if (cl >= 0 && s.clusterOf.get(r) !== cl) throw inputError(`${at(h, line)}: respondent ${shortName(id)} is in another cluster than on line ${s.firstLine.get(r)}`);
        }
      }
      const v = fields[vCol]!.trim();
      // A blank value is not an answer ("not sure"): the row stays in the design, outside the domain.
      if (v === "") {
        s.unanswered.push(r);
        return;
      }
      // A value is a point of the scale: a number (2.0 is 2), whole, inside --scale when given.
      const x = DECIMAL.test(v) ? Number(v) : NaN;
      const where = `${at(h, line)}, ${shortName(columnName(h, vCol))}: "${shortName(v)}"`;
      if (!Number.isFinite(x)) throw inputError(`${where} is not a number on the scale`);
      if (!Number.isInteger(x)) throw inputError(`${where} is not a point of the scale (whole numbers)`);
      if (!onScale(x)) throw inputError(`${where} is outside the scale ${scaleName}`);
      seen.add(x);
      const y = top.has(x) ? 1 : 0;
      const g = code(s.groups, s.groupNames, group);
      if (weight !== 0) s.observations[g] = (s.observations[g] ?? 0) + 1;
      s.answer(r, g, weight * y, weight);
    };
  });
  if (st.answeredOrder.length === 0) throw inputError(`${t.file}: no row has a value in ${shortName(columnName(head, vCol))}`);
  // A --top value no row has is a mistake (a typo, another scale), unless --scale says it is a point nobody chose.
  const missing = [...top].filter((x) => !seen.has(x));
  if (missing.length && scale === null) {
    const values = [...seen].sort((a, b) => a - b);
    const shown = values.length > 10 ? `${values.slice(0, 10).join(", ")}, …` : values.join(", ");
    throw inputError(
      `${t.file}: --top ${missing.join(",")}: no row has the value${missing.length > 1 ? "s" : ""} ${missing.join(", ")} (values seen: ${shown}); with --scale a point nobody chose is allowed`,
    );
  }
  // Domains in the order of their names (as R orders factor levels).
  const names = [...st.groupNames].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const domainOf = st.groupNames.map((g) => names.indexOf(g));
  // Each group's bases on respondents: n, Kish n_eff, observations with a weight (for the design effect).
  const n = names.map(() => 0);
  const sumB = names.map(() => 0);
  const sumBB = names.map(() => 0);
  for (let q = 0; q < st.answeredOrder.length; q++) {
    for (let c = st.head.get(st.answeredOrder.get(q)); c >= 0; c = st.cellNext.get(c)) {
      const d = domainOf[st.cellGroup.get(c)]!;
      const b = st.cellB.get(c);
      n[d]!++;
      sumB[d]! += b;
      sumBB[d]! += b * b;
    }
  }
  const zero = names.find((_, d) => !(sumB[d]! > 0));
  if (zero !== undefined) throw inputError(`${t.file}: group ${shortName(zero)}: every weight is 0, so it has no share`);
  const bases = names.map((_, d) => ({ n: n[d]!, nEff: (sumB[d]! * sumB[d]!) / sumBB[d]!, observations: st.observations[st.groupNames.indexOf(names[d]!)] ?? 0 }));
  const sums = emptySums(names.length);
  addClusters(st, domainOf, names.length, sums);
  const clustered = cCol >= 0;
  const res = compareSums(sums, names, bases, { confidence, adjust, minBase, paired: rCol >= 0 || clustered, strata: sCol >= 0, clusters: clustered });
  const out: CompareOutput = res;
  // Strata of one cluster add no variance: say so (R's survey refuses them by default).
  const unit = clustered ? "cluster" : "respondent";
  const lonely = [...sums.strata].filter(([, h]) => h.n === 1).map(([k]) => k);
  if (lonely.length) {
    const rule = `it adds no variance (read as sampled with certainty, R's survey.lonely.psu "certainty"; R's default "fail" refuses such a design)`;
    if (sCol < 0) warn(`the file is one ${unit}: ${rule}`);
    else if (lonely.length === 1) warn(`stratum ${shortName(lonely[0]!)} has one ${unit}: ${rule}`);
    else {
      const shown = lonely
        .slice(0, 5)
        .map((x) => shortName(x, 20))
        .join(", ");
      warn(`strata ${shown}${lonely.length > 5 ? ` and ${lonely.length - 5} more` : ""} have one ${unit} each: ${rule.replace("it adds", "they add")}`);
    }
  }
  for (const g of out.groups) if (g.n < 2) warn(`group ${g.group} has ${g.n} respondent: no variance`);
  if (o.json) printJson(out);
  else printTable(out, { head, vCol, gCol, sCol, cCol, rCol, top: tops, adjust, confidence });
  return out;
}

/**
 * Adds the design's PSUs to `sums`: each cluster's cells (its respondents' cells added up per
 * domain), clusters in the order of their first answered respondent, then those with no answered
 * row. Without clusters each respondent is a PSU and no extra array is made.
 */
function addClusters(st: ReturnType<typeof newState>, domainOf: readonly number[], k: number, sums: ReturnType<typeof emptySums>): void {
  const clustered = st.clusterStratum.length > 0;
  const units = clustered ? st.clusterStratum.length : st.respondents;
  // Respondents by cluster (a counting sort): members of cluster c are members[start[c]..start[c + 1]).
  let start: Int32Array | null = null;
  let members: Int32Array | null = null;
  if (clustered) {
    start = new Int32Array(units + 1);
    for (let r = 0; r < st.respondents; r++) start[st.clusterOf.get(r) + 1]!++;
    for (let c = 0; c < units; c++) start[c + 1]! += start[c]!;
    const fill = start.slice(0, units);
    members = new Int32Array(st.respondents);
    for (let r = 0; r < st.respondents; r++) members[fill[st.clusterOf.get(r)]!++] = r;
  }
  const acc = Array.from({ length: k }, (_, d) => ({ d, a: 0, b: 0, on: false }));
  const cells: (typeof acc)[number][] = [];
  const done = new Uint8Array(units);
  const visit = (u: number) => {
    done[u] = 1;
    cells.length = 0;
    const from = start ? start[u]! : u;
    const to = start ? start[u + 1]! : u + 1;
    for (let i = from; i < to; i++) {
      const r = members ? members[i]! : i;
      for (let c = st.head.get(r); c >= 0; c = st.cellNext.get(c)) {
        const x = acc[domainOf[st.cellGroup.get(c)]!]!;
        if (!x.on) {
          x.on = true;
          x.a = 0;
          x.b = 0;
          cells.push(x);
        }
        x.a += st.cellA.get(c);
        x.b += st.cellB.get(c);
      }
    }
    const stratum = clustered ? st.clusterStratum.get(u) : st.stratum.get(u);
    addPsu(sums, st.strataNames[stratum]!, cells);
    for (const x of cells) x.on = false;
  };
  const unitOf = (r: number) => (clustered ? st.clusterOf.get(r) : r);
  for (let q = 0; q < st.answeredOrder.length; q++) {
    const u = unitOf(st.answeredOrder.get(q));
    if (!done[u]) visit(u);
  }
  // Units with no answered row, in the order they were met.
  for (let q = 0; q < st.unanswered.length; q++) {
    const u = unitOf(st.unanswered.get(q));
    if (!done[u]) visit(u);
  }
}

function printTable(
  out: CompareOutput,
  c: { head: { header: string[]; file: string }; vCol: number; gCol: number; sCol: number; cCol: number; rCol: number; top: string[]; adjust: Adjust; confidence: Confidence },
): void {
  const { head, confidence } = c;
  const minBase = out.method.minBase;
  const how = [
    "Taylor-linearised variance",
    c.cCol >= 0
      ? `clusters ${columnName(head, c.cCol)}${c.sCol >= 0 ? ` in strata ${columnName(head, c.sCol)}` : ", no strata"}`
      : out.method.strata
        ? `strata ${columnName(head, c.sCol)}`
        : "no strata",
    c.rCol >= 0 ? `paired by ${columnName(head, c.rCol)}` : c.cCol >= 0 ? "each row a respondent" : "rows independent",
    out.method.tests === 0
      ? "no test (every pair has a low base)"
      : `${c.adjust === "none" ? "no adjustment" : `${ADJUST_NAMES[c.adjust]} adjustment`} over ${out.method.tests} test${out.method.tests === 1 ? "" : "s"}`,
    `${confidence}% confidence`,
    `min base ${fmt(minBase, 1)} n eff`,
  ];
  // The method and the notes on as many lines as the terminal needs (80 columns when not a terminal).
  const width = process.stdout.columns || 80;
  process.stdout.write(`${bold(`Top box (${c.top.join(", ")}) of ${columnName(head, c.vCol)} by ${columnName(head, c.gCol)}`)}\n${dim(pack(how, ", ", width))}\n`);
  const interval = (g: CompareOutput["groups"][number]) => `${(g.ci[0] * 100).toFixed(1)}–${(g.ci[1] * 100).toFixed(1)}`;
  const rows = (withClusters: boolean) =>
    out.groups.map((g) => [
      g.group,
      String(g.n),
      ...(withClusters ? [String(g.clusters)] : []),
      fmt(g.nEff, 1),
      pct(g.share),
      fmt(g.se * 100, 2),
      fmt(g.deff, 2),
      interval(g),
      g.smallBase ? "low base" : "",
    ]);
  const header = (withClusters: boolean) => ["group", "n", ...(withClusters ? ["clusters"] : []), "n eff", "share", "se", "deff", `${confidence}% CI`, ""];
  // The clusters column goes first when the table would not fit (it stays in --json).
  const fits = (h: string[], r: string[][]) => h.reduce((sum, x, j) => sum + Math.max(x.length, ...r.map((row) => row[j]!.length)), 0) + 2 * (h.length - 1) <= (tableWidth() ?? Infinity) - 1;
  const withClusters = c.cCol >= 0 && fits(header(true), rows(true));
  process.stdout.write(`${table(header(withClusters), rows(withClusters))}\n\n`);
  process.stdout.write(
    `${table(
      ["a", "b", "diff", "se", "p", "p adj", ""],
      out.comparisons.map((x) => [x.a, x.b, fmt(x.diff * 100, 1), fmt(x.se * 100, 2), pValue(x.p), pValue(x.pAdjusted), !x.tested ? "not tested: low base" : x.significant ? "*" : ""]),
    )}\n`,
  );
  const notes = [
    `* significant at ${confidence}% after adjustment`,
    "diff, se and CI in points",
    "deff: design effect (variance / random sampling's)",
    `low base: n eff < ${fmt(minBase, 1)}, not tested`,
    ...(c.cCol >= 0 && !withClusters ? ["clusters per group: --json or --wide"] : []),
  ];
  process.stdout.write(dim(`${pack(notes, "; ", width)}\n`));
}

/** Parts joined with `sep` on as few lines as `width` allows, a part never split. */
function pack(parts: readonly string[], sep: string, width: number): string {
  const lines: string[] = [];
  for (const part of parts) {
    const last = lines.length ? lines[lines.length - 1]! : null;
    if (last !== null && last.length + sep.length + part.length <= width) lines[lines.length - 1] = `${last}${sep}${part}`;
    else lines.push(part);
  }
  return lines.join("\n");
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
    /** Cluster codes by id within each stratum (by stratum code), and each cluster's stratum; empty without --cluster. */
    clusterIds: [] as Map<string, number>[],
    clusterStratum: new Int32Column(),
    clusterOf: new Int32Column(),
    /** Per group (in the order met): answered rows with a non-zero weight. */
    observations: [] as number[],
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
    /** The code of cluster `id` of stratum h (ids are read within their stratum), added when new. */
    clusterCode(h: number, id: string): number {
      s.clusterIds[h] ??= new Map();
      const ids = s.clusterIds[h];
      let c = ids.get(id);
      if (c === undefined) {
        c = s.clusterStratum.length;
        ids.set(id, c);
        s.clusterStratum.push(h);
      }
      return c;
    },
    /** A new respondent; cluster -1 without --cluster. */
    newRespondent(weight: number, stratum: number, cluster: number, line: number): number {
      s.weight.push(weight);
      s.stratum.push(stratum);
      if (cluster >= 0) s.clusterOf.push(cluster);
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
