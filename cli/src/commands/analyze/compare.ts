// `ideally analyze compare`: the results' statistics engine (api/src/analytics/design.ts) on your
// own long-format data, one row per respondent and rated option: each group's weighted top-box
// share with its design-based (Taylor linearised) SE and Wilson interval, and every pair of groups
// compared, paired when --respondent links a respondent's rows, stratified with --strata, p-values
// adjusted within the family of pairs (Benjamini-Hochberg by default). docs/statistics.md.
import { ADJUST_NAMES, compareLong, type Adjust, type CompareResult, type LongInput } from "../../../../api/src/analytics/design.ts";
import type { Confidence } from "../../../../api/src/analytics/significance.ts";
import { inputError, usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, printJson, table, warn } from "../../output.ts";
import { column, columnName, readTable, shortName, weightColumn, at } from "./input.ts";

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
  const t = await readTable(file);
  const vCol = column(t, o.value, "--value");
  const gCol = column(t, o.group, "--group");
  const wCol = o.weight != null ? column(t, o.weight, "--weight") : -1;
  const sCol = o.strata != null ? column(t, o.strata, "--strata") : -1;
  const rCol = o.respondent != null ? column(t, o.respondent, "--respondent") : -1;
  const weights = wCol >= 0 ? weightColumn(t, wCol) : null;
  // A respondent's rows must agree on their weight and stratum (both belong to the respondent).
  const seen = new Map<string, { w: number; s: string; row: number }>();
  const rows: LongInput[] = t.rows.map((row, i) => {
    const group = row[gCol]!.trim();
    if (group === "") throw inputError(`${at(t, i)}, ${shortName(columnName(t, gCol))}: blank group`);
    const stratum = sCol >= 0 ? row[sCol]!.trim() : null;
    if (stratum === "") throw inputError(`${at(t, i)}, ${shortName(columnName(t, sCol))}: blank stratum`);
    const respondent = rCol >= 0 ? row[rCol]!.trim() : null;
    if (respondent === "") throw inputError(`${at(t, i)}, ${shortName(columnName(t, rCol))}: blank respondent`);
    const weight = weights ? weights[i]! : 1;
    if (respondent !== null) {
      const prev = seen.get(respondent);
      if (!prev) seen.set(respondent, { w: weight, s: stratum ?? "", row: t.lines[i]! });
      else if (prev.w !== weight || prev.s !== (stratum ?? ""))
        throw inputError(`${at(t, i)}: respondent ${shortName(respondent)} has another weight or stratum than on line ${prev.row}`);
    }
    const v = row[vCol]!.trim();
    // A blank value is not an answer ("not sure"): the row stays in the design, outside the domain.
    return { respondent, stratum, weight, group, y: v === "" ? null : top.has(v) ? 1 : 0 };
  });
  if (!rows.some((r) => r.y !== null)) throw inputError(`${t.file}: no row has a value in ${shortName(columnName(t, vCol))}`);
  const res = compareLong(rows, { confidence, adjust });
  const out: CompareOutput = res;
  for (const g of out.groups) if (g.n < 2) warn(`group ${g.group} has ${g.n} respondent: no variance`);
  if (o.json) printJson(out);
  else {
    const how = [
      "Taylor-linearised variance",
      out.method.strata ? `strata ${columnName(t, sCol)}` : "no strata",
      out.method.paired ? `paired by ${columnName(t, rCol)}` : "rows independent",
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
    process.stdout.write(`${bold(`Top box (${[...top].join(", ")}) of ${columnName(t, vCol)} by ${columnName(t, gCol)}`)}\n${dim(lines.join("\n"))}\n`);
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
