// Reading the CSV file an `analyze` command works on, and resolving column options.
import { parseCsvLines } from "../../../../api/src/analytics/csv.ts";
import { inputError, usageError } from "../../errors.ts";
import { warn } from "../../output.ts";

export interface Table {
  file: string;
  header: string[];
  /** Data rows, each with the header's number of fields (ragged rows are left out). */
  rows: string[][];
  /** Each row's line in the file (from 1, the header's line being the first). */
  lines: number[];
}

/** Where a data row is, for messages: "FILE: line N". */
export const at = (t: Table, row: number) => `${t.file}: line ${t.lines[row]}`;

/** Decodes bytes as UTF-8, falling back to windows-1252 when they are not valid UTF-8. */
export function decode(bytes: Uint8Array): string {
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder("windows-1252").decode(bytes);
  }
}

export async function readTable(file: string): Promise<Table> {
  let bytes: Uint8Array;
  try {
    bytes = await Bun.file(file).bytes();
  } catch (e) {
    const code = (e as { code?: string }).code;
    const why =
      code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : code === "EACCES" ? "permission denied" : (e as Error).message;
    throw inputError(`cannot read ${file}: ${why}`);
  }
  const [head, ...body] = parseCsvLines(decode(bytes));
  if (!head) throw inputError(`${file}: the file is empty`);
  const header = head.fields;
  // A row with more or fewer fields than the header (a stray comma, a cut line) cannot be read
  // column by column: it is left out, and each one is named on stderr with its line.
  const data = body.filter((r) => !r.fields.every((c) => c.trim() === ""));
  const ragged = data.filter((r) => r.fields.length !== header.length);
  const kept = data.filter((r) => r.fields.length === header.length);
  if (ragged.length) {
    const named = ragged.slice(0, 5).map((r) => `line ${r.line} has ${r.fields.length}`).join(", ");
    const more = ragged.length > 5 ? ` and ${ragged.length - 5} more` : "";
    const message = `${file}: ${ragged.length} row${ragged.length === 1 ? "" : "s"} without the header's ${header.length} fields left out (${named}${more})`;
    if (kept.length === 0) throw inputError(message);
    warn(message);
  }
  if (kept.length === 0) throw inputError(`${file}: no data rows after the header`);
  return { file, header: header.map((h) => h.trim()), rows: kept.map((r) => r.fields), lines: kept.map((r) => r.line) };
}

/** A column given as a header name (exact, then case-insensitive) or a 1-based number. */
export function column(t: Table, spec: string, option: string): number {
  const s = spec.trim();
  const exact = t.header.indexOf(s);
  if (exact >= 0) return exact;
  const lower = t.header.findIndex((h) => h.toLowerCase() === s.toLowerCase());
  if (lower >= 0) return lower;
  if (/^\d+$/.test(s)) {
    const n = Number(s);
    if (n >= 1 && n <= t.header.length) return n - 1;
    throw usageError(`${option} ${s}: column number out of range 1..${t.header.length}`);
  }
  throw usageError(`${option} ${s}: no such column in ${t.file}`);
}

/** Display name of a column (its header, or "column N" when the header is blank). */
export const columnName = (t: Table, j: number) => t.header[j] || `column ${j + 1}`;

/** A decimal number as people write one in a CSV (no hex, binary, octal or "Infinity", which Number() reads). */
const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Parses a number cell; blank gives NaN when allowBlank, anything else not decimal is an input error. */
export function numberCell(t: Table, row: number, j: number, allowBlank: boolean): number {
  const s = t.rows[row][j].trim();
  if (s === "" && allowBlank) return NaN;
  const x = DECIMAL.test(s) ? Number(s) : NaN;
  if (!Number.isFinite(x)) {
    throw inputError(`${at(t, row)}, ${shortName(columnName(t, j))}: "${s}" is not a number`);
  }
  return x;
}

/** Weights from a column: finite and >= 0, else an input error. */
export function weightColumn(t: Table, j: number): number[] {
  return t.rows.map((_, i) => {
    const w = numberCell(t, i, j, false);
    if (w < 0) throw inputError(`${at(t, i)}, ${shortName(columnName(t, j))}: weight ${w} is negative`);
    return w;
  });
}

/** Long survey-question headers shortened for messages. */
export function shortName(name: string, max = 40): string {
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/** Parses a positive integer option, or a usage error. */
export function intOption(value: string, option: string, min = 1): number {
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || n < min) throw usageError(`${option} ${value}: expected an integer >= ${min}`);
  return n;
}
