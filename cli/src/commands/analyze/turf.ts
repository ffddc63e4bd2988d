// `ideally analyze turf`: TURF reach and frequency (analytics/turf.ts) on a CSV file.
import { binomial, turf } from "@ideally/analytics/turf";
import { inputError, usageError } from "../../errors.ts";
import { bold, dim, fmt, pct, printJson, table } from "../../output.ts";
import { at, column, columnName, DECIMAL, Float64Column, intOption, scanTable, shortName, weightCell, type TableHead } from "./input.ts";

export interface TurfCliOptions {
  items: string;
  weight?: string;
  k: string;
  top?: string;
  depth?: string;
  /** A column marking the respondents who chose "none of these" (non-zero): never an item. */
  none?: string;
  json?: boolean;
}

export interface TurfOutput {
  results: { items: string[]; reach: number; frequency: number }[];
  /** With --none: the weighted share who chose none (in the base, reached by no set). */
  none?: number;
}

/**
 * An item (or --none) cell: 1 (marked), 0 or blank (not), as a decimal number (1.0 and +0 are read);
 * anything else (-1, 0.5, 2, yes) is an input error naming the line, never a silent "accepts".
 */
function mark(head: TableHead, fields: readonly string[], line: number, j: number): boolean {
  const s = fields[j]!.trim();
  if (s === "") return false;
  const x = DECIMAL.test(s) ? Number(s) : NaN;
  if (x === 1) return true;
  if (x === 0) return false;
  const where = `${at(head, line)}, ${shortName(columnName(head, j))}`;
  if (Number.isNaN(x)) throw inputError(`${where}: "${shortName(s)}" is not a number (0/1)`);
  throw inputError(`${where}: "${shortName(s)}" is not 0 or 1 (blank is 0)`);
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
  // The file is streamed into one bitset per item (a bit a respondent) and the weights.
  let cols: number[] = [];
  let bits: Uint32Array[] = [];
  const weights = new Float64Column();
  let weighted = false;
  let n = 0;
  let noneW = 0;
  let totalW = 0;
  const t = await scanTable(
    file,
    (head) => {
      cols = specs.map((s) => column(head, s, "--items"));
      const dup = cols.find((c, i) => cols.indexOf(c) !== i);
      if (dup != null) throw usageError(`--items: column ${columnName(head, dup)} is listed twice`);
      const wCol = o.weight != null ? column(head, o.weight, "--weight") : -1;
      const noneCol = o.none != null ? column(head, o.none, "--none") : -1;
      if (noneCol >= 0 && cols.includes(noneCol)) {
        throw usageError(`--none ${columnName(head, noneCol)} is also in --items: a "none of these" answer is never an item`);
      }
      weighted = wCol >= 0;
      noneW = 0;
      totalW = 0;
      weights.clear();
      n = 0;
      bits = cols.map(() => new Uint32Array(1024));
      return (fields, line) => {
        const w = wCol >= 0 ? weightCell(head, fields, line, wCol) : 1;
        if (wCol >= 0) weights.push(w);
        let accepted = false;
        const word = n >>> 5;
        if (word === bits[0]!.length) {
          bits = bits.map((b) => {
            const g = new Uint32Array(b.length * 2);
            g.set(b);
            return g;
          });
        }
        // 1 accepts the item, 0 or blank does not.
        for (let q = 0; q < cols.length; q++) {
          if (mark(head, fields, line, cols[q]!)) {
            bits[q]![word]! |= 1 << (n & 31);
            accepted = true;
          }
        }
        if (noneCol >= 0 && mark(head, fields, line, noneCol)) {
          if (accepted) throw inputError(`${at(head, line)}: "none of these" (${shortName(columnName(head, noneCol))}) together with an item; none excludes the items`);
          noneW += w;
        }
        totalW += w;
        n++;
      };
    },
    { keepBlankRows: true },
  );
  const res = turf({ bits, respondents: n, weights: weighted ? weights.view() : undefined }, { k, top, depth });
  const out: TurfOutput = {
    results: res.sets.map((s) => ({ items: s.items.map((j) => columnName(t, cols[j]!)), reach: s.reach, frequency: s.frequency })),
  };
  if (o.none != null) out.none = totalW > 0 ? noneW / totalW : 0;
  if (o.json) printJson(out);
  else {
    const how = res.method === "exhaustive" ? `exhaustive over ${binomial(cols.length, k)} sets` : `greedy (C(${cols.length}, ${k}) is beyond the exhaustive cap)`;
    process.stdout.write(`${bold(`TURF: best sets of ${k} of ${cols.length} items`)} ${dim(`(${how}, depth ${depth})`)}\n`);
    const rows = out.results.map((r, i) => [String(i + 1), pct(r.reach), fmt(r.frequency, 3), r.items.join(", ")]);
    process.stdout.write(`${table(["#", "reach", "frequency", "items"], rows)}\n`);
    if (out.none != null) process.stdout.write(dim(`none of these: ${pct(out.none)} (in the base, reached by no set)\n`));
  }
  return out;
}
