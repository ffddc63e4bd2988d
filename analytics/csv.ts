// A small RFC 4180 CSV reader (comma-separated, double-quoted fields with "" as an escaped quote,
// CRLF, LF or CR line ends, optional BOM, last line with or without a line end). Pure: text in,
// rows out; the caller decodes bytes to text. Streaming: CsvSplitter takes the text in chunks of
// any size (a chunk may end inside a field, inside a quoted field, between the "" of an escaped
// quote or between the CR and LF of a line end) and hands each row over as soon as it is whole, so
// a file of millions of rows is read in constant memory (`ideally analyze`, docs/performance.md).
// parseCsvLines and parseCsv are the same reader on a whole text.
//
// The rules: a field that starts with " is quoted until a " not followed by another "; text after
// the closing quote joins the field ("ab"cd is abcd); a " inside an unquoted field is kept as it
// is. An empty line (or a line holding only "") is not a row. A quoted field may span lines; a
// row's line is the line it starts on, counted from 1 (CRLF is one line end, a lone CR is one).

/** A parsed row and the line of the text it starts on (from 1; a quoted field may span lines). */
export interface CsvRow {
  fields: string[];
  line: number;
}

const QUOTE = 34;
const COMMA = 44;
const CR = 13;
const LF = 10;
const BOM = 0xfeff;

/** Splits CSV text given in chunks into rows; calls onRow(fields, line) for each whole row. */
export class CsvSplitter {
  private row: string[] = [];
  /** The current field's text before the current chunk (or before the current segment). */
  private field = "";
  private quoted = false;
  /** A " ended the last chunk inside a quoted field: the next character says whether it was "". */
  private quoteAtEnd = false;
  /** A CR ended the last chunk outside quotes: the row has ended; an LF first in the next is part of it. */
  private crAtEnd = false;
  /** A CR ended the last chunk inside quotes: it is a line end unless the next character is an LF. */
  private quotedCrAtEnd = false;
  private line = 1;
  private start = 1;
  private started = false;

  constructor(private readonly onRow: (fields: string[], line: number) => void) {}

  private endRow(): void {
    const row = this.row;
    row.push(this.field);
    this.field = "";
    this.row = [];
    if (!(row.length === 1 && row[0] === "")) this.onRow(row, this.start);
  }

  /** Feeds the next piece of the text. */
  push(text: string): void {
    const n = text.length;
    if (n === 0) return;
    let i = 0;
    if (!this.started) {
      this.started = true;
      if (text.charCodeAt(0) === BOM) i = 1;
    }
    // What the previous chunk left undecided.
    if (this.crAtEnd) {
      this.crAtEnd = false;
      if (text.charCodeAt(i) === LF) i++;
    } else if (this.quotedCrAtEnd) {
      this.quotedCrAtEnd = false;
      if (text.charCodeAt(i) !== LF) this.line++;
    } else if (this.quoteAtEnd) {
      this.quoteAtEnd = false;
      if (text.charCodeAt(i) === QUOTE) {
        this.field += '"';
        i++;
      } else this.quoted = false;
    }
    // seg: where the current field's text in this chunk begins.
    let seg = i;
    while (i < n) {
      const ch = text.charCodeAt(i);
      if (this.quoted) {
        if (ch === QUOTE) {
          this.field += text.slice(seg, i);
          if (i + 1 === n) {
            this.quoteAtEnd = true;
            return;
          }
          if (text.charCodeAt(i + 1) === QUOTE) {
            this.field += '"';
            i += 2;
          } else {
            this.quoted = false;
            i++;
          }
          seg = i;
          continue;
        }
        if (ch === LF) this.line++;
        else if (ch === CR) {
          if (i + 1 === n) {
            this.field += text.slice(seg, n);
            this.quotedCrAtEnd = true;
            return;
          }
          if (text.charCodeAt(i + 1) !== LF) this.line++;
        }
        i++;
        continue;
      }
      if (ch === QUOTE && seg === i && this.field === "") {
        this.quoted = true;
        seg = ++i;
      } else if (ch === COMMA) {
        this.row.push(this.field + text.slice(seg, i));
        this.field = "";
        seg = ++i;
      } else if (ch === CR || ch === LF) {
        this.field += text.slice(seg, i);
        this.endRow();
        if (ch === CR) {
          if (i + 1 === n) this.crAtEnd = true;
          else if (text.charCodeAt(i + 1) === LF) i++;
        }
        i++;
        this.start = ++this.line;
        seg = i;
      } else i++;
    }
    this.field += text.slice(seg, n);
  }

  /** The text has ended: hands over the last row if it had no line end. */
  end(): void {
    if (this.quotedCrAtEnd) this.line++;
    this.quoteAtEnd = this.crAtEnd = this.quotedCrAtEnd = false;
    if (this.field !== "" || this.row.length > 0) this.endRow();
  }
}

/** Parses CSV text into rows of string fields with their line numbers. Empty lines are dropped. */
export function parseCsvLines(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  const s = new CsvSplitter((fields, line) => rows.push({ fields, line }));
  s.push(text);
  s.end();
  return rows;
}

/** Parses CSV text into rows of string fields. Empty lines are dropped. */
export function parseCsv(text: string): string[][] {
  return parseCsvLines(text).map((r) => r.fields);
}

/** Parses CSV text with a header row into objects keyed by the header names. */
export function parseCsvObjects(text: string): { header: string[]; rows: Record<string, string>[] } {
  const [header = [], ...body] = parseCsv(text);
  const rows = body.map((r) => {
    const o: Record<string, string> = {};
    header.forEach((h, j) => {
      o[h] = r[j] ?? "";
    });
    return o;
  });
  return { header, rows };
}
