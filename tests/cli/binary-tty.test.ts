// Issue 38: `export -o - --format xlsx` wrote the workbook's bytes into the terminal. A binary format
// (xlsx, pptx) to stdout, or to a file that is the terminal, is refused when that is a terminal, as
// gh refuses binary data there: a usage error (exit 1) in one line, before any request (the API
// here is never reached: without the check the command would end with "not signed in", exit 3).
// CSV is text and still goes to the terminal; piped, a workbook still goes to stdout
// (tests/cli/export.test.ts "a workbook piped").
import { afterAll, expect, test } from "bun:test";
import { cliHarness } from "../helpers/cli.ts";

const h = cliHarness("http://127.0.0.1:9");
afterAll(() => h.dispose());

const REFUSED = (format: string, where: string) => `ideally: refusing to write binary ${format} to the terminal${where === "stdout" ? ": use -o FILE or a pipe" : ` (-o ${where}): use -o FILE`}\n`;

test("xlsx and pptx to stdout on a terminal: one line, exit 1, nothing written", async () => {
  for (const format of ["xlsx", "pptx"]) {
    const r = await h.tty(["export", "42", "--format", format, "-o", "-"]);
    expect([r.code, r.stderr, r.screen], format).toEqual([1, REFUSED(format, "stdout"), ""]);
  }
  // The format read from nowhere but --format; -o - with an extension-less name is the same.
  const deck = await h.tty(["export", "42", "-o", "-", "--format", "PPTX"]);
  expect([deck.code, deck.stderr]).toEqual([1, REFUSED("pptx", "stdout")]);
});

test("a file that is the terminal (/dev/stdout, /dev/tty) is refused too", async () => {
  for (const device of ["/dev/stdout", "/dev/tty"]) {
    const r = await h.tty(["export", "42", "--format", "xlsx", "-o", device]);
    expect([r.code, r.stderr, r.screen], device).toEqual([1, REFUSED("xlsx", device), ""]);
  }
});

test("not refused: csv to the terminal, a binary format to a file, or piped", async () => {
  // Each goes on to the session check and stops there (not signed in, exit 3): past the refusal.
  const csv = await h.tty(["export", "42", "--format", "csv", "-o", "-"]);
  expect([csv.code, csv.stderr]).toEqual([3, "ideally: not signed in; run `ideally login`\n"]);
  const file = await h.tty(["export", "42", "--format", "xlsx", "-o", `${h.home}/book.xlsx`]);
  expect(file.code, file.stderr).toBe(3);
  const piped = await h.run(["export", "42", "--format", "xlsx", "-o", "-"]);
  expect(piped.code, piped.stderr).toBe(3);
});
