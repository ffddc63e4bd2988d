// A small RFC 4180 CSV reader (comma-separated, double-quoted fields with "" as an escaped quote,
// CRLF or LF line ends, optional BOM, last line with or without a line end). Pure: text in,
// rows out; the caller decodes bytes to text. Used by the analytics tests on reference data.

/** Parses CSV text into rows of string fields. Empty trailing lines are dropped. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0;
  const n = text.length;
  const endRow = () => {
    row.push(field);
    field = "";
    if (!(row.length === 1 && row[0] === "")) rows.push(row);
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
    } else {
      field += ch;
      i++;
    }
  }
  if (field !== "" || row.length > 0) endRow();
  return rows;
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
