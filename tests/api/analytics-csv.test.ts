// The streaming CSV splitter (analytics/csv.ts) that `ideally analyze` reads files with.
// Every expected row and line number below is written out by hand from RFC 4180 and the rules in
// csv.ts's header; each text is also fed in every possible two-piece split and one character at a
// time, so a chunk boundary inside a field, a quoted field, an escaped quote or a CRLF must give
// the same rows as the whole text.
import { describe, expect, test } from "bun:test";
import { CsvSplitter, parseCsv, parseCsvLines, parseCsvObjects, type CsvRow } from "@ideally/analytics/csv";

function feed(chunks: string[]): CsvRow[] {
  const rows: CsvRow[] = [];
  const s = new CsvSplitter((fields, line) => rows.push({ fields, line }));
  for (const c of chunks) s.push(c);
  s.end();
  return rows;
}

/** The text whole, in every split into two pieces, in every split into three, and a character at a time. */
function everyChunking(text: string, expected: CsvRow[]): void {
  expect(parseCsvLines(text), "whole").toEqual(expected);
  expect(feed([...text]), "one character at a time").toEqual(expected);
  for (let i = 0; i <= text.length; i++) {
    expect(feed([text.slice(0, i), text.slice(i)]), `split at ${i}`).toEqual(expected);
    for (let j = i; j <= text.length; j += 3) expect(feed([text.slice(0, i), text.slice(i, j), text.slice(j)]), `split at ${i}, ${j}`).toEqual(expected);
  }
}

describe("CsvSplitter", () => {
  test("a quoted field with a newline, a comma and an escaped quote; the next row's line counts the newline", () => {
    const text = 'id,text,n\n1,"two\nlines, one ""quote""",3\n2,plain,4\n';
    everyChunking(text, [
      { fields: ["id", "text", "n"], line: 1 },
      { fields: ["1", 'two\nlines, one "quote"', "3"], line: 2 },
      { fields: ["2", "plain", "4"], line: 4 },
    ]);
  });

  test("CRLF line ends (also inside a quoted field, kept there), a BOM, no line end after the last row", () => {
    const text = '\ufeffa,b\r\n"x\r\ny",1\r\nz,2';
    everyChunking(text, [
      { fields: ["a", "b"], line: 1 },
      { fields: ["x\r\ny", "1"], line: 2 },
      { fields: ["z", "2"], line: 4 },
    ]);
  });

  test("a lone CR is a line end, in a row and inside quotes; a BOM is only skipped first", () => {
    everyChunking('a\r"b\rc"\rd', [
      { fields: ["a"], line: 1 },
      { fields: ["b\rc"], line: 2 },
      { fields: ["d"], line: 4 },
    ]);
    expect(parseCsv("a,\ufeffb")).toEqual([["a", "\ufeffb"]]);
    // Nor at the start of a later chunk.
    expect(feed(["a,", "\ufeffb"])).toEqual([{ fields: ["a", "\ufeffb"], line: 1 }]);
  });

  test("empty lines (and a line of only an empty quoted field) are not rows, but empty fields are", () => {
    everyChunking('a,b\n\n\r\n""\n,\n"",x\n', [
      { fields: ["a", "b"], line: 1 },
      { fields: ["", ""], line: 5 },
      { fields: ["", "x"], line: 6 },
    ]);
  });

  test("quotes: text after a closing quote joins the field, a quote inside an unquoted field is kept", () => {
    everyChunking('"ab"cd,e"f"g,"",""""\n', [{ fields: ["abcd", 'e"f"g', "", '"'], line: 1 }]);
    // Three quotes: one opens, two are an escaped quote.
    everyChunking('"""x"\n', [{ fields: ['"x'], line: 1 }]);
  });

  test("an unterminated quote runs to the end of the text; a trailing comma is an empty last field", () => {
    everyChunking('a,"b\nc', [{ fields: ["a", "b\nc"], line: 1 }]);
    everyChunking("a,b,\n", [{ fields: ["a", "b", ""], line: 1 }]);
    everyChunking("a,b,", [{ fields: ["a", "b", ""], line: 1 }]);
    // A line end first in the text is an empty first line.
    everyChunking("\na\n", [{ fields: ["a"], line: 2 }]);
    expect(parseCsvLines('"')).toEqual([]);
    expect(parseCsvLines("")).toEqual([]);
  });

  test("rows are handed over as soon as they are whole, before the text ends", () => {
    const rows: string[][] = [];
    const s = new CsvSplitter((f) => rows.push(f));
    s.push("a,b\n1,");
    expect(rows).toEqual([["a", "b"]]);
    s.push('"2\n');
    expect(rows).toEqual([["a", "b"]]);
    s.push('"\n3');
    expect(rows).toEqual([
      ["a", "b"],
      ["1", "2\n"],
    ]);
    s.end();
    expect(rows).toEqual([["a", "b"], ["1", "2\n"], ["3"]]);
  });

  test("parseCsvObjects keys rows by the header, a missing field is blank", () => {
    expect(parseCsvObjects("x,y\n1\n2,3\n")).toEqual({
      header: ["x", "y"],
      rows: [
        { x: "1", y: "" },
        { x: "2", y: "3" },
      ],
    });
    expect(parseCsvObjects("")).toEqual({ header: [], rows: [] });
  });
});
