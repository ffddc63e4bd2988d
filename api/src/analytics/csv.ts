// A small RFC 4180 CSV reader (comma-separated, double-quoted fields with "" as an escaped quote,
// CRLF or LF line ends, optional BOM, last line with or without a line end). Pure: text in,
// rows out; the caller decodes bytes to text. Used by the analytics tests on reference data.

/** A parsed row and the line of the text it starts on (from 1; a quoted field may span lines). */
export interface CsvRow {
  fields: string[];
  line: number;
}

/** Parses CSV text into rows of string fields with their line numbers. Empty lines are dropped. */
export function parseCsvLines(text: string): CsvRow[] {
  const rows: CsvRow[] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let line = 1;
  let start = 1;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  const endRow = () => {
    row.push(field);
    field = "";
    if (!(row.length === 1 && row[0] === "")) rows.push({ fields: row, line: start });
    row = [];
  };
  while (i < n) {
    const ch = text[i];
    if (quoted) {
      if (ch === '"') {
        if (text[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        quoted = false;
        i++;
        continue;
      }
      if (ch === "\n" || (ch === "\r" && text[i + 1] !== "\n")) line++;
      field += ch;
      i++;
      continue;
    }
    if (ch === '"' && field === "") {
      quoted = true;
      i++;
    } else if (ch === ",") {
      row.push(field);
      field = "";
      i++;
    } else if (ch === "\r" || ch === "\n") {
      endRow();
      i += ch === "\r" && text[i + 1] === "\n" ? 2 : 1;
      start = ++line;
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== "" || row.length > 0) endRow();
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
    header.forEach((h, j) => (o[h] = r[j] ?? ""));
    return o;
  });
  return { header, rows };
}
