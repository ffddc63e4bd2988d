// `ideally analyze rake`: raking by iterative proportional fitting (analytics/rake.ts) on
// a CSV file. Respondents with a blank in a variable are left out of that variable's margin;
// weights are reported scaled to mean 1.
import { rakeLevels } from "@ideally/analytics/rake";
import { usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, summary, table, warn } from "../../output.ts";
import { column, columnName, Int32Column, scanTable } from "./input.ts";

export interface RakeCliOptions {
  target: string[];
  cap?: string;
  json?: boolean;
}

export interface RakeOutput {
  /** Whether every margin met its target within the tolerance. */
  converged: boolean;
  /** The largest remaining margin error. */
  maxError: number;
  iterations: number;
  deff: number;
  nEff: number;
  min: number;
  max: number;
  weights: Float64Array;
}

/** How far the listed shares of one variable may sum from 1 before the target is refused. */
export const SHARE_SUM_TOLERANCE = 0.01;

export interface ParsedTarget {
  variable: string;
  shares: Record<string, number>;
}

/** Parses "var=Level:share,Level:share". Shares must be numbers in [0, 1] summing to 1 ± 0.01. */
export function parseTarget(spec: string): ParsedTarget {
  const eq = spec.indexOf("=");
  const variable = eq > 0 ? spec.slice(0, eq).trim() : "";
  if (variable === "") throw usageError(`--target "${spec}": expected "variable=Level:share,Level:share,..."`);
  const shares: Record<string, number> = {};
  const parts = spec
    .slice(eq + 1)
    .split(",")
    .map((p) => p.trim())
    .filter((p) => p !== "");
  if (parts.length === 0) throw usageError(`--target ${variable}: no "Level:share" pairs given`);
  for (const part of parts) {
    const colon = part.lastIndexOf(":");
    const level = colon > 0 ? part.slice(0, colon).trim() : "";
    const raw = colon > 0 ? part.slice(colon + 1).trim() : "";
    if (level === "") throw usageError(`--target ${variable}: "${part}" is not "Level:share"`);
    const x = raw === "" ? NaN : Number(raw);
    if (!Number.isFinite(x)) throw usageError(`--target ${variable}: share "${raw}" for ${level} is not a number`);
    if (x < 0 || x > 1) throw usageError(`--target ${variable}: share ${raw} for ${level} is not in [0, 1]`);
    if (level in shares) throw usageError(`--target ${variable}: level ${level} is listed twice`);
    shares[level] = x;
  }
  const sum = Object.values(shares).reduce((a, b) => a + b, 0);
  if (Math.abs(sum - 1) > SHARE_SUM_TOLERANCE) {
    throw usageError(`--target ${variable}: shares sum to ${fmt(sum, 6)}, not 1 (±${SHARE_SUM_TOLERANCE})`);
  }
  return { variable, shares };
}

export async function runRake(file: string, o: RakeCliOptions): Promise<RakeOutput> {
  if (o.target.length === 0) throw usageError("give at least one --target");
  const parsed = o.target.map(parseTarget);
  let cap: number | undefined;
  if (o.cap != null) {
    cap = Number(o.cap);
    if (!Number.isFinite(cap) || !(cap > 1)) throw usageError(`--cap ${o.cap}: expected a number > 1`);
  }
  // The file is streamed into one level code per row and variable (an index into the target's
  // levels, -1 blank); a level the target does not list gets a code past them, to be reported.
  let vars: (ParsedTarget & { j: number; name: string; index: Map<string, number>; extra: string[]; codes: Int32Column })[] = [];
  const targets: Record<string, Record<string, number>> = {};
  const t = await scanTable(file, (head) => {
    vars = parsed.map((p) => {
      const j = column(head, p.variable, "--target");
      return { ...p, j, name: columnName(head, j), index: new Map(Object.keys(p.shares).map((l, i) => [l, i])), extra: [], codes: new Int32Column() };
    });
    for (const k of Object.keys(targets)) delete targets[k];
    for (const v of vars) {
      if (v.name in targets) throw usageError(`--target ${v.name} is given twice`);
      targets[v.name] = v.shares;
    }
    return (fields) => {
      for (const v of vars) {
        const s = fields[v.j]!.trim();
        if (s === "") {
          v.codes.push(-1);
          continue;
        }
        let code = v.index.get(s);
        if (code === undefined) {
          code = v.index.size;
          v.index.set(s, code);
          v.extra.push(s);
        }
        v.codes.push(code);
      }
    };
  });
  const level: Record<string, Int32Array> = {};
  for (const v of vars) {
    if (v.extra.length > 0) throw usageError(`--target ${v.name}: level "${v.extra[0]}" is in the data but has no share`);
    const codes = v.codes.view();
    const seen = new Uint8Array(v.index.size);
    for (let i = 0; i < codes.length; i++) if (codes[i]! >= 0) seen[codes[i]!] = 1;
    Object.keys(v.shares).forEach((l, i) => {
      if (v.shares[l]! > 0 && !seen[i]) throw usageError(`--target ${v.name}: no respondent has level "${l}"`);
    });
    level[v.name] = codes;
  }
  const res = rakeLevels({ rows: t.rows, level }, { targets, cap });
  if (!res.converged) warn(`raking did not converge after ${res.iterations} passes (largest margin error ${fmt(res.maxError, 6)})`);
  const out: RakeOutput = {
    converged: res.converged,
    maxError: res.maxError,
    iterations: res.iterations,
    deff: res.deff,
    nEff: res.nEff,
    min: res.minWeight,
    max: res.maxWeight,
    weights: res.weights,
  };
  if (o.json) await printRakeJson(out);
  else {
    process.stdout.write(
      `${bold("Raking")} ${dim(`(${t.rows} respondents, ${vars.length} variables${cap ? `, cap ${cap}` : ""})`)}\n` +
        `${summary([
          ["iterations", `${res.iterations}${res.converged ? "" : " (not converged)"}`],
          ["design effect", fmt(res.deff, 4)],
          ["effective n", fmt(res.nEff, 1)],
          ["weight range", `${fmt(res.minWeight, 4)} – ${fmt(res.maxWeight, 4)}  (mean 1)`],
        ])}\n\n`,
    );
    const rowsOut: string[][] = [];
    for (const [name, shares] of Object.entries(targets)) {
      for (const [level, share] of Object.entries(shares)) {
        rowsOut.push([name, level, pct(share), pct(res.margins[name][level])]);
      }
    }
    process.stdout.write(`${table(["variable", "level", "target", "achieved"], rowsOut)}\n`);
    const blanks = Object.entries(res.missing).filter(([, m]) => m > 0);
    if (blanks.length > 0) {
      process.stdout.write(`blank, left out of the margin: ${blanks.map(([v, m]) => `${v} ${m}`).join(", ")}\n`);
    }
    process.stdout.write(dim("Use --json for the weights, in row order.\n"));
  }
  return out;
}

/**
 * The JSON printJson would write (two-space indent), with the weights written a block at a time:
 * a file of millions of rows has millions of weights, and one string of them all would not fit
 * in the memory the rest of the command needs.
 */
async function printRakeJson(out: RakeOutput): Promise<void> {
  const { weights, ...rest } = out;
  const sink = Bun.stdout.writer();
  const head = JSON.stringify(rest, null, 2);
  if (weights.length === 0) {
    sink.write(`${head.slice(0, -2)},\n  "weights": []\n}\n`);
  } else {
    sink.write(`${head.slice(0, -2)},\n  "weights": [\n`);
    const BLOCK = 65536;
    for (let i = 0; i < weights.length; i += BLOCK) {
      const part: string[] = [];
      for (let k = i; k < Math.min(weights.length, i + BLOCK); k++) part.push(`    ${JSON.stringify(weights[k])}`);
      sink.write(part.join(",\n") + (i + BLOCK < weights.length ? ",\n" : "\n"));
      await sink.flush();
    }
    sink.write("  ]\n}\n");
  }
  await sink.flush();
}
