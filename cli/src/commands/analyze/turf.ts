// `ideally analyze turf`: TURF reach and frequency (api/src/analytics/turf.ts) on a CSV file.
import { binomial, turf } from "../../../../api/src/analytics/turf.ts";
import { inputError, usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, printJson, table } from "../../output.ts";
import { column, columnName, intOption, readTable, shortName, weightColumn, at } from "./input.ts";

export interface TurfCliOptions {
  items: string;
  weight?: string;
  k: string;
  top?: string;
  depth?: string;
  json?: boolean;
}

export interface TurfOutput {
  results: { items: string[]; reach: number; frequency: number }[];
}

export async function runTurf(file: string, o: TurfCliOptions): Promise<TurfOutput> {
  const k = intOption(o.k, "--k");
  const top = o.top != null ? intOption(o.top, "--top") : 10;
  const depth = o.depth != null ? intOption(o.depth, "--depth") : 1;
  const specs = o.items
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "");
  if (specs.length === 0) throw usageError("--items: give at least one column");
  if (k > specs.length) throw usageError(`--k ${k} is larger than the ${specs.length} items given`);
  if (depth > k) throw usageError(`--depth ${depth} is larger than --k ${k}`);
  const t = await readTable(file);
  const cols = specs.map((s) => column(t, s, "--items"));
  const dup = cols.find((c, i) => cols.indexOf(c) !== i);
  if (dup != null) throw usageError(`--items: column ${columnName(t, dup)} is listed twice`);
  const wCol = o.weight != null ? column(t, o.weight, "--weight") : -1;
  const weights = wCol >= 0 ? weightColumn(t, wCol) : undefined;
  // A cell is accepted when it is a non-zero number; blank counts as not accepted.
  const acceptance = t.rows.map((row, i) =>
    cols.map((j) => {
      const s = row[j].trim();
      if (s === "") return 0;
      const x = Number(s);
      if (!Number.isFinite(x)) throw inputError(`${at(t, i)}, ${shortName(columnName(t, j))}: "${shortName(s)}" is not a number (0/1)`);
      return x !== 0 ? 1 : 0;
    }),
  );
  const res = turf({ acceptance, weights }, { k, top, depth });
  const out: TurfOutput = {
    results: res.sets.map((s) => ({ items: s.items.map((j) => columnName(t, cols[j])), reach: s.reach, frequency: s.frequency })),
  };
  if (o.json) printJson(out);
  else {
    const how =
      res.method === "exhaustive"
        ? `exhaustive over ${binomial(cols.length, k)} sets`
        : `greedy (C(${cols.length}, ${k}) is beyond the exhaustive cap)`;
    process.stdout.write(`${bold(`TURF: best sets of ${k} of ${cols.length} items`)} ${dim(`(${how}, depth ${depth})`)}\n`);
    const rows = out.results.map((r, i) => [String(i + 1), pct(r.reach), fmt(r.frequency, 3), r.items.join(", ")]);
    process.stdout.write(`${table(["#", "reach", "frequency", "items"], rows)}\n`);
  }
  return out;
}
