// Reading the CSV file an `analyze` command works on, and resolving column options. The file is
// streamed: read in chunks, split into rows as they arrive (analytics/csv.ts) and handed
// to the command one row at a time, so a command keeps only what its method needs (sums, compact
// typed arrays) and a file of millions of rows stays within a bounded memory (docs/performance.md
// "ideally analyze on large files").
import { createWriteStream, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CsvSplitter } from "@ideally/analytics/csv";
import { inputError, usageError } from "../../errors.ts";
import { warn } from "../../output.ts";

/** The file and its header, which is all a command needs to resolve its columns. */
export interface TableHead {
  file: string;
  header: string[];
}

/** Takes one data row (the header's number of fields) and the line it starts on (from 1). */
export type RowFn = (fields: string[], line: number) => void;

/** What a scan saw: the data rows handed over (ragged rows and empty lines are not; rows of blanks unless kept). */
export interface Scanned extends TableHead {
  rows: number;
}

/** Where a data row is, for messages: "FILE: line N". */
export const at = (t: TableHead, line: number) => `${t.file}: line ${line}`;

class NotUtf8 extends Error {}

/**
 * Streams the file through the splitter: the header goes to `begin`, which resolves the command's
 * columns and returns the function that takes each data row. A row with more or fewer fields than
 * the header (a stray comma, a cut line) cannot be read column by column: it is left out and named
 * on stderr with its line (the first five, then a count), a file of only such rows is refused.
 * Files are UTF-8, or windows-1252 when they are not valid UTF-8: a scan that meets a byte
 * sequence UTF-8 cannot have starts again from the top in windows-1252 (`begin` is called again,
 * so a command's sums start afresh). The first error (a bad option in `begin`, a bad cell in a
 * row) ends the command's work but not the reading: the rest of the file is still split, so the
 * ragged rows after it are reported and its encoding known, exactly as if it had been read whole.
 * An empty line is no row. A row of the header's fields that are all blank (`,,`) is left out too,
 * unless the command keeps them (`keepBlankRows`: turf, where such a row is a respondent who
 * accepts nothing and stays in the base).
 */
export async function scanTable(file: string, begin: (t: TableHead) => RowFn, opts: { keepBlankRows?: boolean } = {}): Promise<Scanned> {
  if (file === "-") return fromStdin((path) => scanFile(path, STDIN_NAME, begin, opts.keepBlankRows === true));
  return scanFile(file, file, begin, opts.keepBlankRows === true);
}

/** How messages name the CSV read from stdin (`-`), as the project file's. */
const STDIN_NAME = "<stdin>";

/**
 * `-`: stdin copied to a temporary file first (mode 0600, removed after), since a file that is not
 * UTF-8 is read a second time as windows-1252; the copy streams, so a large stdin costs disk, not memory.
 */
async function fromStdin<T>(scan: (path: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), "ideally-stdin-"));
  const path = join(dir, "stdin.csv");
  try {
    const out = createWriteStream(path, { mode: 0o600 });
    const failed = new Promise<never>((_, reject) => out.once("error", reject));
    for await (const chunk of Bun.stdin.stream()) if (!out.write(chunk)) await Promise.race([new Promise<void>((r) => out.once("drain", () => r())), failed]);
    await Promise.race([new Promise<void>((r) => out.end(() => r())), failed]);
    return await scan(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function scanFile(path: string, file: string, begin: (t: TableHead) => RowFn, keepBlankRows: boolean): Promise<Scanned> {
  try {
    return await scanOnce(path, file, begin, true, keepBlankRows);
  } catch (e) {
    if (e instanceof NotUtf8) return scanOnce(path, file, begin, false, keepBlankRows);
    throw e;
  }
}

/** One pass over the CSV at `path`, named `file` in messages. */
async function scanOnce(path: string, file: string, begin: (t: TableHead) => RowFn, utf8: boolean, keepBlankRows: boolean): Promise<Scanned> {
  const decoder = utf8 ? new TextDecoder("utf-8", { fatal: true }) : new TextDecoder("windows-1252");
  let head: TableHead | null = null;
  let take: RowFn | null = null;
  let failure: { error: unknown } | null = null;
  let kept = 0;
  let ragged = 0;
  const named: string[] = [];
  const splitter = new CsvSplitter((fields, line) => {
    if (head === null) {
      head = { file, header: fields.map((h) => h.trim()) };
      try {
        take = begin(head);
      } catch (error) {
        failure = { error };
      }
      return;
    }
    // An empty line (one blank field) is no row; a row of blank fields is one only when kept.
    if (fields.every((c) => c.trim() === "") && (fields.length === 1 || !keepBlankRows || fields.length !== head.header.length)) return;
    if (fields.length !== head.header.length) {
      if (++ragged <= 5) named.push(`line ${line} has ${fields.length}`);
      return;
    }
    kept++;
    if (failure !== null || take === null) return;
    try {
      take(fields, line);
    } catch (error) {
      failure = { error };
    }
  });
  const decode = (bytes: Uint8Array | undefined, stream: boolean) => {
    try {
      return decoder.decode(bytes, { stream });
    } catch {
      throw new NotUtf8();
    }
  };
  try {
    for await (const chunk of Bun.file(path).stream()) splitter.push(decode(chunk, true));
  } catch (e) {
    if (e instanceof NotUtf8) throw e;
    const code = (e as { code?: string }).code;
    const why = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "is a directory" : code === "EACCES" ? "permission denied" : (e as Error).message;
    throw inputError(`cannot read ${file}: ${why}`);
  }
  splitter.push(decode(undefined, false));
  splitter.end();
  if (head === null) throw inputError(`${file}: the file is empty`);
  const t: TableHead = head;
  if (ragged) {
    const more = ragged > 5 ? ` and ${ragged - 5} more` : "";
    const message = `${file}: ${ragged} row${ragged === 1 ? "" : "s"} without the header's ${t.header.length} fields left out (${named.join(", ")}${more})`;
    if (kept === 0) throw inputError(message);
    warn(message);
  }
  if (kept === 0) throw inputError(`${file}: no data rows after the header`);
  if (failure !== null) throw (failure as { error: unknown }).error;
  return { ...t, rows: kept };
}

/** A column given as a header name (exact, then case-insensitive) or a 1-based number. */
export function column(t: TableHead, spec: string, option: string): number {
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
export const columnName = (t: TableHead, j: number) => t.header[j] || `column ${j + 1}`;

/** A decimal number as people write one in a CSV (no hex, binary, octal or "Infinity", which Number() reads). */
export const DECIMAL = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;

/** Parses a number cell; blank gives NaN when allowBlank, anything else not decimal is an input error. */
export function numberCell(t: TableHead, fields: readonly string[], line: number, j: number, allowBlank: boolean): number {
  const s = fields[j]!.trim();
  if (s === "" && allowBlank) return NaN;
  const x = DECIMAL.test(s) ? Number(s) : NaN;
  if (!Number.isFinite(x)) {
    throw inputError(`${at(t, line)}, ${shortName(columnName(t, j))}: "${s}" is not a number`);
  }
  return x;
}

/** A weight cell: finite and >= 0, else an input error. */
export function weightCell(t: TableHead, fields: readonly string[], line: number, j: number): number {
  const w = numberCell(t, fields, line, j, false);
  if (w < 0) throw inputError(`${at(t, line)}, ${shortName(columnName(t, j))}: weight ${w} is negative`);
  return w;
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

type Typed = Float64Array | Int32Array | Int8Array;

/**
 * A typed array that grows as values are added, in blocks of 65,536 (no doubling: a column of
 * millions holds at most one block more than it needs), read back whole with `view()`.
 */
class BlockColumn<T extends Typed> {
  private blocks: T[] = [];
  private last: T;
  length = 0;
  constructor(private readonly make: (n: number) => T) {
    this.last = make(BLOCK);
    this.blocks.push(this.last);
  }
  push(x: number): void {
    const o = this.length & (BLOCK - 1);
    if (o === 0 && this.length > 0) {
      this.last = this.make(BLOCK);
      this.blocks.push(this.last);
    }
    this.last[o] = x;
    this.length++;
  }
  get(i: number): number {
    return this.block(i)[i & (BLOCK - 1)]!;
  }
  set(i: number, x: number): void {
    this.block(i)[i & (BLOCK - 1)] = x;
  }
  private block(i: number): T {
    return this.blocks[i >>> 16]!;
  }
  /** Empties the column. */
  clear(): void {
    this.last = this.make(BLOCK);
    this.blocks = [this.last];
    this.length = 0;
  }
  /**
   * The values added, in one array of their length (the blocks are joined once). With `collect`
   * the blocks are collected at once, so a few columns of millions joined in turn reuse the same
   * memory instead of each adding its size to the process.
   */
  view(collect = false): T {
    if (this.blocks.length === 1) return this.blocks[0]!.subarray(0, this.length) as T;
    const whole = this.make(this.blocks.length * BLOCK);
    this.blocks.forEach((b, k) => {
      whole.set(b, k * BLOCK);
    });
    // The blocks become views of the joined array, so the column can go on.
    this.blocks = this.blocks.map((_, k) => whole.subarray(k * BLOCK, (k + 1) * BLOCK) as T);
    this.last = this.blocks[this.blocks.length - 1]!;
    if (collect) Bun.gc(true);
    return whole.subarray(0, this.length) as T;
  }
}
const BLOCK = 65536;

export class Float64Column extends BlockColumn<Float64Array> {
  constructor() {
    super((n) => new Float64Array(n));
  }
}
export class Int32Column extends BlockColumn<Int32Array> {
  constructor() {
    super((n) => new Int32Array(n));
  }
}
export class Int8Column extends BlockColumn<Int8Array> {
  constructor() {
    super((n) => new Int8Array(n));
  }
}
