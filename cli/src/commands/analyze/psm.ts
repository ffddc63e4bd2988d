// `ideally analyze psm`: Van Westendorp price sensitivity meter with the Newton-Miller-Smith
// extension (analytics/psm.ts) on a CSV file.
import { NMS_DEFAULT_CALIBRATION, parseIntentLabel, vanWestendorpColumns, type IntentCalibration } from "@ideally/analytics/psm";
import { inputError, usageError } from "../../errors.ts";
import { bold, fmt, pct, printJson, summary, warn } from "../../output.ts";
import { at, column, columnName, Float64Column, Int8Column, numberCell, scanTable, shortName, weightCell, type TableHead } from "./input.ts";

/** Above this share of invalid respondents the result is warned about (stderr). */
export const INVALID_WARN_SHARE = 0.2;

export interface PsmCliOptions {
  tooCheap: string;
  cheap: string;
  expensive: string;
  tooExpensive: string;
  piCheap?: string;
  piExpensive?: string;
  piScale?: string;
  weight?: string;
  json?: boolean;
}

export interface PsmOutput {
  n: number;
  invalid: number;
  pmc: number | null;
  pme: number | null;
  ipp: number | null;
  opp: number | null;
  trialOptimal?: { price: number; trial: number; revenue: number };
  revenueOptimal?: { price: number; trial: number; revenue: number };
}

const normLabel = (s: string) => s.trim().toLowerCase().replace(/\s+/g, " ");

/**
 * --pi-scale "Label=p,Label=p,...": exactly five labels, most likely first; they become intents
 * 5..1 and their probabilities the NMS calibration. Returns the label reader and calibration.
 */
export function parsePiScale(spec: string): { score: (label: string) => number | null; calibration: IntentCalibration } {
  const entries = spec
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  if (entries.length !== 5) {
    throw usageError(`--pi-scale: expected 5 "label=probability" entries (most likely first), got ${entries.length}`);
  }
  const map = new Map<string, number>();
  const probs: number[] = [];
  entries.forEach((e, i) => {
    const eq = e.lastIndexOf("=");
    const label = eq > 0 ? normLabel(e.slice(0, eq)) : "";
    const p = eq > 0 ? Number(e.slice(eq + 1).trim()) : NaN;
    if (label === "" || e.slice(eq + 1).trim() === "" || !Number.isFinite(p) || p < 0 || p > 1) {
      throw usageError(`--pi-scale: "${e}" is not "label=probability" with a probability in [0, 1]`);
    }
    if (map.has(label)) throw usageError(`--pi-scale: label "${e.slice(0, eq).trim()}" is listed twice`);
    map.set(label, 5 - i);
    probs.push(p);
  });
  const [p1, p2, p3, p4, p5] = probs;
  if (probs.length !== 5 || p1 === undefined || p2 === undefined || p3 === undefined || p4 === undefined || p5 === undefined)
    throw usageError(`--pi-scale: expected 5 "label=probability" entries (most likely first), got ${probs.length}`);
  const calibration: IntentCalibration = [p1, p2, p3, p4, p5];
  return { score: (l) => map.get(normLabel(l)) ?? null, calibration };
}

/** Reads an intent cell: blank = no answer; a known label or a number 1..5; else an input error. */
function intentCell(t: TableHead, fields: readonly string[], line: number, j: number, score: (label: string) => number | null): number {
  const s = fields[j]!.trim();
  if (s === "") return 0;
  const fromLabel = score(s);
  if (fromLabel != null) return fromLabel;
  if (/^[1-5]$/.test(s)) return Number(s);
  throw inputError(`${at(t, line)}, ${shortName(columnName(t, j))}: "${shortName(s)}" is not a purchase-intent label or 1..5`);
}

export async function runPsm(file: string, o: PsmCliOptions): Promise<PsmOutput> {
  if ((o.piCheap == null) !== (o.piExpensive == null)) {
    throw usageError("--pi-cheap and --pi-expensive go together: give both or neither");
  }
  if (o.piScale != null && o.piCheap == null) throw usageError("--pi-scale needs --pi-cheap and --pi-expensive");
  const scale = o.piScale != null ? parsePiScale(o.piScale) : null;
  const score = scale ? scale.score : parseIntentLabel;
  // The file is streamed: each respondent becomes four prices, a weight and two intent codes in
  // typed columns (about 42 bytes a respondent).
  const tc = new Float64Column();
  const c = new Float64Column();
  const e = new Float64Column();
  const te = new Float64Column();
  const wt = new Float64Column();
  const ic = new Int8Column();
  const ie = new Int8Column();
  let hasWeight = false;
  let hasIntents = false;
  await scanTable(file, (head) => {
    const cols = [column(head, o.tooCheap, "--too-cheap"), column(head, o.cheap, "--cheap"), column(head, o.expensive, "--expensive"), column(head, o.tooExpensive, "--too-expensive")] as const;
    const piC = o.piCheap != null ? column(head, o.piCheap, "--pi-cheap") : -1;
    const piE = o.piExpensive != null ? column(head, o.piExpensive, "--pi-expensive") : -1;
    const wCol = o.weight != null ? column(head, o.weight, "--weight") : -1;
    hasWeight = wCol >= 0;
    hasIntents = piC >= 0;
    // A second scan (the file was not UTF-8) starts afresh.
    for (const col of [tc, c, e, te, wt, ic, ie]) col.clear();
    // Blank prices count as invalid respondents (non-finite); non-blank non-numbers are errors.
    const price = (fields: string[], line: number, j: number) => {
      const x = numberCell(head, fields, line, j, true);
      if (x < 0) throw inputError(`${at(head, line)}, ${shortName(columnName(head, j))}: negative price ${x}`);
      return x;
    };
    return (fields, line) => {
      if (wCol >= 0) wt.push(weightCell(head, fields, line, wCol));
      tc.push(price(fields, line, cols[0]));
      c.push(price(fields, line, cols[1]));
      e.push(price(fields, line, cols[2]));
      te.push(price(fields, line, cols[3]));
      if (piC >= 0) {
        ic.push(intentCell(head, fields, line, piC, score));
        ie.push(intentCell(head, fields, line, piE, score));
      }
    };
  });
  const res = vanWestendorpColumns(
    {
      tooCheap: tc.view(true),
      cheap: c.view(true),
      expensive: e.view(true),
      tooExpensive: te.view(true),
      weight: hasWeight ? wt.view(true) : undefined,
      intentCheap: hasIntents ? ic.view() : undefined,
      intentExpensive: hasIntents ? ie.view() : undefined,
    },
    { calibration: scale?.calibration ?? NMS_DEFAULT_CALIBRATION },
  );
  if (res.n === 0) throw inputError(`${file}: no respondent has consistent prices (too cheap < cheap < expensive < too expensive); ${res.invalid} invalid`);
  if (res.n === 1) warn("only 1 respondent with consistent prices: the curves are a single step");
  const invalidShare = res.invalid / (res.n + res.invalid);
  if (invalidShare > INVALID_WARN_SHARE) warn(`${(invalidShare * 100).toFixed(1)}% of respondents are invalid (prices out of order or blank)`);
  const out: PsmOutput = { n: res.n, invalid: res.invalid, pmc: res.pmc, pme: res.pme, ipp: res.ipp, opp: res.opp };
  if (res.nms) {
    out.trialOptimal = res.nms.trialOptimal;
    out.revenueOptimal = res.nms.revenueOptimal;
  }
  if (o.json) printJson(out);
  else printPsm(out);
  return out;
}

function printPsm(r: PsmOutput): void {
  const lines: [string, string][] = [
    ["respondents kept", String(r.n)],
    ["invalid (dropped)", String(r.invalid)],
    ["PMC  marginal cheapness", fmt(r.pmc, 2)],
    ["OPP  optimal price", fmt(r.opp, 2)],
    ["IPP  indifference price", fmt(r.ipp, 2)],
    ["PME  marginal expensiveness", fmt(r.pme, 2)],
  ];
  if (r.pmc != null && r.pme != null) lines.push(["acceptable range", `${fmt(r.pmc, 2)} – ${fmt(r.pme, 2)}`]);
  if (r.trialOptimal && r.revenueOptimal) {
    lines.push(
      ["trial-optimal price", `${fmt(r.trialOptimal.price, 2)}  (trial ${pct(r.trialOptimal.trial)})`],
      ["revenue-optimal price", `${fmt(r.revenueOptimal.price, 2)}  (trial ${pct(r.revenueOptimal.trial)}, revenue/respondent ${fmt(r.revenueOptimal.revenue, 2)})`],
    );
  }
  process.stdout.write(`${bold("Van Westendorp price sensitivity")}\n${summary(lines)}\n`);
}
