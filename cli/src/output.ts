// Output helpers: JSON or a readable table on stdout, warnings on stderr. Colours only when the
// stream is a TTY and NO_COLOR is not set (https://no-color.org), or FORCE_COLOR is set.

function colourOn(stream: NodeJS.WriteStream): boolean {
  if (process.env.NO_COLOR != null && process.env.NO_COLOR !== "") return false;
  if (process.env.FORCE_COLOR != null && process.env.FORCE_COLOR !== "" && process.env.FORCE_COLOR !== "0") return true;
  return Boolean(stream.isTTY);
}

const wrap =
  (code: number, reset: number) =>
  (s: string, stream: NodeJS.WriteStream = process.stdout) =>
    colourOn(stream) ? `\x1b[${code}m${s}\x1b[${reset}m` : s;
export const bold = wrap(1, 22);
export const dim = wrap(2, 22);
export const yellow = wrap(33, 39);
export const red = wrap(31, 39);

/**
 * What `--json FIELDS` and `--jq EXPR` make of the JSON a command prints (set before a listing
 * command runs, json-shape.ts): the rows' chosen fields, then the jq expression's outputs.
 */
export interface JsonShape {
  fields: string[] | null;
  jq: ((value: unknown) => string) | null;
}
let shape: JsonShape = { fields: null, jq: null };
export function shapeJson(s: JsonShape): void {
  shape = s;
}

const pick = (v: unknown, fields: string[]): unknown =>
  Array.isArray(v) ? v.map((x) => pick(x, fields)) : v !== null && typeof v === "object" ? Object.fromEntries(fields.map((f) => [f, (v as Record<string, unknown>)[f] ?? null])) : v;

export function printJson(value: unknown): void {
  const v = shape.fields ? pick(value, shape.fields) : value;
  process.stdout.write(shape.jq ? shape.jq(v) : `${JSON.stringify(v, null, 2)}\n`);
}

export function warn(message: string): void {
  process.stderr.write(`${yellow("warning:", process.stderr)} ${message}\n`);
}

/** Formats a number for humans: up to `digits` decimals, trailing zeros dropped; null as "–". */
export function fmt(x: number | null | undefined, digits = 4): string {
  if (x == null || !Number.isFinite(x)) return "–";
  return String(Number(x.toFixed(digits)));
}

/** "1 test option", "2 test options": a count and its noun (a regular plural). */
export const plural = (n: number, noun: string, many = `${noun}s`) => `${n} ${n === 1 ? noun : many}`;

export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * The width tables fit: the terminal's (stdout's, else stderr's when piped from a terminal into
 * `head`, else $COLUMNS); null (no limit) with the global --wide or with no terminal at all.
 */
export function tableWidth(): number | null {
  if (process.argv.includes("--wide")) return null;
  const cols = process.stdout.columns || process.stderr.columns || Number(process.env.COLUMNS) || 0;
  return cols > 0 ? cols : null;
}

/** Cuts a cell to `w` characters, an ellipsis marking the cut. */
const cut = (s: string, w: number) => (s.length <= w ? s : `${s.slice(0, Math.max(0, w - 1))}…`);

/**
 * A plain text table; numeric-looking columns are right-aligned. Wider than the terminal, the
 * widest text columns shrink (never below 8 characters) with an ellipsis; --wide shows all.
 */
export function table(header: string[], rows: string[][], maxWidth: number | null = tableWidth()): string {
  const widths = header.map((h, j) => Math.max(h.length, ...rows.map((r) => (r[j] ?? "").length)));
  const numericCol = (j: number) => rows.some((r) => (r[j] ?? "") !== "") && rows.every((r) => (r[j] ?? "") === "" || /^[-+]?[\d.,%–]+$/.test(r[j]));
  if (maxWidth !== null) {
    const total = () => widths.reduce((a, w) => a + w, 0) + 2 * (widths.length - 1);
    // Numbers are never cut; the widest text column gives a character at a time, down to 8; on a
    // very narrow terminal text columns go on down to 3, and what still does not fit is cut at the
    // edge (below), so no line ever wraps.
    for (const floor of [8, 3]) {
      for (;;) {
        if (total() <= maxWidth - 1) break;
        let j = -1;
        widths.forEach((w, k) => {
          if (!numericCol(k) && w > floor && (j < 0 || w > widths[j])) j = k;
        });
        if (j < 0) break;
        widths[j]--;
      }
    }
    header = header.map((h, j) => cut(h, widths[j]));
    rows = rows.map((r) => r.map((c, j) => cut(c ?? "", widths[j])));
  }
  const numeric = header.map((_, j) => rows.some((r) => (r[j] ?? "") !== "") && rows.every((r) => (r[j] ?? "") === "" || /^[-+]?[\d.,%–]+$/.test(r[j])));
  const line = (cells: string[]) =>
    cells
      .map((c, j) => (numeric[j] ? c.padStart(widths[j]) : c.padEnd(widths[j])))
      .join("  ")
      .trimEnd();
  const edge = (l: string) => (maxWidth !== null ? cut(l, maxWidth - 1) : l);
  return [
    bold(edge(line(header))),
    dim(
      edge(
        widths
          .map((w) => "-".repeat(w))
          .join("  ")
          .trimEnd(),
      ),
    ),
    ...rows.map((r) => edge(line(r))),
  ].join("\n");
}

/** A line of text (a title, a note) cut to the terminal's width with …, whole with --wide or no terminal. */
export function fit(text: string, maxWidth: number | null = tableWidth()): string {
  return maxWidth === null ? text : cut(text, maxWidth - 1);
}

/**
 * A note of prose (a footer, a hint) wrapped at spaces to the terminal's width, each line after the
 * first indented two spaces; whole with --wide or no terminal. Unlike fit(), no word is cut.
 */
export function note(text: string, maxWidth: number | null = tableWidth()): string {
  if (maxWidth === null || text.length < maxWidth) return text;
  const lines: string[] = [];
  let line = "";
  for (const word of text.split(" ")) {
    const room = maxWidth - 1 - (lines.length ? 2 : 0);
    if (line && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines.map((l, i) => (i ? `  ${l}` : l)).join("\n");
}

/** "label  value" lines, labels padded. */
export function summary(pairs: [string, string][]): string {
  const w = Math.max(...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${dim(k.padEnd(w))}  ${v}`).join("\n");
}

/** A one-line progress bar on stderr, redrawn in place; only on a terminal (scripts get none). */
export function progressBar(label: string): { update(pct: number, note?: string): void; done(note?: string): void } {
  const tty = Boolean(process.stderr.isTTY);
  let last = "";
  const draw = (pct: number, note = "") => {
    const width = 30;
    const n = Math.round((Math.max(0, Math.min(100, pct)) / 100) * width);
    const text = `${label} ${"█".repeat(n)}${"░".repeat(width - n)} ${String(Math.round(pct)).padStart(3)}% ${note}`.slice(0, (process.stderr.columns || 100) - 1);
    if (text !== last) process.stderr.write(`\r\x1b[2K${text}`);
    last = text;
  };
  return {
    update: (pct, note) => tty && draw(pct, note),
    done: (note) => {
      if (!tty) return;
      draw(100, note);
      process.stderr.write("\n");
    },
  };
}
