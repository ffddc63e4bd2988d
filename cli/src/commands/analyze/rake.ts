// `ideally analyze rake`: raking by iterative proportional fitting (api/src/analytics/rake.ts) on
// a CSV file. Respondents with a blank in a variable are left out of that variable's margin;
// weights are reported scaled to mean 1.
import { rake, type RakeValue } from "../../../../api/src/analytics/rake.ts";
import { usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, printJson, summary, table, warn } from "../../output.ts";
import { column, columnName, readTable } from "./input.ts";

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
  weights: number[];
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
  const t = await readTable(file);
  const vars = parsed.map((p) => ({ ...p, j: column(t, p.variable, "--target") }));
  const targets: Record<string, Record<string, number>> = {};
  for (const v of vars) {
    const name = columnName(t, v.j);
    if (name in targets) throw usageError(`--target ${name} is given twice`);
    targets[name] = v.shares;
    const counts = new Map<string, number>();
    for (const row of t.rows) {
      const s = row[v.j].trim();
      if (s !== "") counts.set(s, (counts.get(s) ?? 0) + 1);
    }
    for (const level of counts.keys()) {
      if (!(level in v.shares)) throw usageError(`--target ${name}: level "${level}" is in the data but has no share`);
    }
    for (const [level, share] of Object.entries(v.shares)) {
      if (share > 0 && !counts.has(level)) throw usageError(`--target ${name}: no respondent has level "${level}"`);
    }
  }
  const rows = t.rows.map((row) => {
    const r: Record<string, RakeValue> = {};
    for (const v of vars) r[columnName(t, v.j)] = row[v.j];
    return r;
  });
  const res = rake(rows, { targets, cap });
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
  if (o.json) printJson(out);
  else {
    process.stdout.write(
      `${bold("Raking")} ${dim(`(${t.rows.length} respondents, ${vars.length} variables${cap ? `, cap ${cap}` : ""})`)}\n` +
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
