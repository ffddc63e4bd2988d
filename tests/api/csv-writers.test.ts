// The four CSV writers (the respondent export, the credit ledger, a supplier's reconciliation and a
// chat answer's figures) quote a field the way RFC 4180 section 2 says: "Fields containing line
// breaks (CRLF), double quotes, and commas should be enclosed in double-quotes" (2.6), and a double
// quote inside is doubled (2.7). A lone LF or CR is a line break to every spreadsheet and to our own
// reader (analytics/csv.ts), so it is quoted too. The expected cells are written by hand
// from those two rules and the formula guard of docs/security.md (' before = + - @, tab or CR).
import { describe, expect, test } from "bun:test";
import { csvCell as exportCell } from "../../api/src/domains/results/exports.service.ts";
import { csvField as ledgerField } from "../../api/src/domains/credits/credits.service.ts";
import { csvCell as reconciliationCell } from "../../api/src/domains/fielding/suppliers.ts";
import { csvCell as figureCell } from "../../api/src/domains/ai/conversations.service.ts";
import { parseCsv } from "@ideally/analytics/csv";

const WRITERS: [string, (v: string) => string][] = [
  ["ExportCsv (exports.service.ts csvCell)", exportCell],
  ["ExportTransactionListCsv (credits.service.ts csvField)", ledgerField],
  ["ReconciliationCsv (suppliers.ts csvCell)", reconciliationCell],
  ["DownloadFile (conversations.service.ts csvCell)", figureCell],
];

// [the text, the field written by hand]
const CASES: [string, string][] = [
  ["plain text", "plain text"],
  ["two\nlines", '"two\nlines"'],
  ["two\r\nlines", '"two\r\nlines"'],
  ["old mac\rline", '"old mac\rline"'],
  ["ends with a line break\n", '"ends with a line break\n"'],
  ["\nstarts with one", '"\nstarts with one"'],
  // CR first is also the formula guard's: ' goes first, then the field is quoted.
  ["\rCR first", '"\'\rCR first"'],
  ['a "quote"\nand a line', '"a ""quote""\nand a line"'],
  ["a, comma", '"a, comma"'],
];

describe("CSV fields with line breaks are quoted (RFC 4180 2.6)", () => {
  for (const [name, write] of WRITERS) {
    test(name, () => {
      for (const [text, field] of CASES) expect(write(text), JSON.stringify(text)).toBe(field);
    });
  }

  test("a row of such fields reads back as one row with the same cells", () => {
    // Read with the RFC 4180 reader of `ideally analyze` (tested on its own in analytics-csv.test.ts).
    const cells = ["two\nlines", "old mac\rline", "x\r\ny", "plain"];
    for (const [name, write] of WRITERS) {
      const text = `${["a", "b", "c", "d"].join(",")}\r\n${cells.map(write).join(",")}\r\n`;
      expect(parseCsv(text), name).toEqual([["a", "b", "c", "d"], cells]);
    }
  });
});
