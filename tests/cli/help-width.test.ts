// Issue 24, done when: "driven in tmux at 80 and 60 columns ... no wrap". Every command's --help,
// walked from `ideally --help`, at a terminal width of 80 and of 60 ($COLUMNS: a spawned CLI has no
// terminal): no line is longer than the width, and every example (`$ ideally ...`, its
// continuations joined) is the same command as at full width, so a wrapped example still runs.
import { expect, test } from "bun:test";
import { cliHarness, helpExamples, helpTree } from "../helpers/cli.ts";
import { fitHelp } from "../../cli/src/help-fit.ts";

// Help needs no server: the address is never called.
const h = cliHarness("http://127.0.0.1:9");

test("every --help fits 80 and 60 columns, its examples unchanged", async () => {
  const tree = await helpTree((args) => h.run(args, { env: { COLUMNS: "" } }));
  expect(tree.length, "the walk found the command tree").toBeGreaterThan(40);
  const paths = [[], ...tree.map((t) => t.path)];
  // Full width: the help the walk read at COLUMNS="" (the top level's is not in the tree).
  const walked = new Map(tree.map((t) => [t.path.join(" "), t.help]));
  const problems: string[] = [];
  for (let i = 0; i < paths.length; i += 8) {
    await Promise.all(
      paths.slice(i, i + 8).map(async (path) => {
        const name = ["ideally", ...path, "--help"].join(" ");
        const full = walked.get(path.join(" ")) ?? (await h.run([...path, "--help"], { env: { COLUMNS: "" } })).stdout;
        for (const width of [80, 60]) {
          const fitted = (await h.run([...path, "--help"], { env: { COLUMNS: String(width) } })).stdout;
          for (const line of fitted.split("\n")) if (line.length > width) problems.push(`${name} at ${width}: ${line.length} columns: ${line}`);
          expect(helpExamples(fitted), `${name} at ${width}: the examples`).toEqual(helpExamples(full));
        }
      }),
    );
  }
  expect(problems).toEqual([]);
}, 300_000);

test("fitHelp: prose refilled, a table row under its text column, an example continued outside quotes", () => {
  const text = [
    "Options:",
    "  --pi-scale <labels>  five intent labels with probabilities, most likely first",
    "",
    "Respondents must answer in order; the others are",
    "counted as invalid, and a price that is not a number is an error.",
    "",
    "Examples:",
    "  $ ideally analyze psm prices.csv --pi-scale 'Sure=0.8,Likely=0.5' --json",
  ].join("\n");
  // Written out by hand at 48 columns.
  expect(fitHelp(text, 48)).toBe(
    [
      "Options:",
      "  --pi-scale <labels>  five intent labels with",
      "                       probabilities, most",
      "                       likely first",
      "",
      "Respondents must answer in order; the others are",
      "counted as invalid, and a price that is not a",
      "number is an error.",
      "",
      "Examples:",
      "  $ ideally analyze psm prices.csv --pi-scale \\",
      "      'Sure=0.8,Likely=0.5' --json",
    ].join("\n"),
  );
  // Lines that fit, and any text without a width, are left alone.
  expect(fitHelp(text, 200)).toBe(text);
  expect(fitHelp(text, undefined)).toBe(text);
});
