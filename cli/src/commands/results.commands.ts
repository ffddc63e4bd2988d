// `ideally results`, `verbatims` and `export` (moved from main.ts, issue 34).
import { type Command, Option } from "commander";
import { FILTER_HELP } from "../filter-help.ts";
import { all, collect, JSON_HELP, paged } from "./options.ts";

/** results and verbatims. */
export function registerResultsCommands(program: Command): void {
  const results = paged(program.command("results"))
    .description("a project's results: top-2-box per test option and measure with benchmark differences, price points, reach")
    .argument("<id>", "project id")
    .addOption(new Option("--filter <key=value>", "a response filter (repeatable; see below)").argParser(collect).default([]))
    .option("--segment <id>", "apply a saved filter set (segment)")
    .option("--benchmark <type>", "benchmark type to compare with (1 all customers, 2 your team, 3 industry, 4-7 NPD weeks, 8 category)", "1")
    .option("--confidence <level>", "90, 95 or 99 (default 95)")
    .option("--total <total>", "sample (default) or markets: the measures and questions as the all-markets total (each market reweighted to its population share)")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      () => `
${FILTER_HELP}

Marks: * the difference from the benchmark is significant (two-proportion z-test, Kish effective
bases); letters name the test options an option is significantly above.

Examples:
  $ ideally results 42
  $ ideally results 42 --filter region=1 --filter panel=Ideally --benchmark 2
  $ ideally results 42 --segment 7 --json | jq '.qual.measures[0]'
  $ ideally results verbatims 42 --question 310 --sentiment Negative
The verdict: the concepts ranked by the paired tests (1 + those significantly ahead), each Go,
Consider or No go on the project's action standard, with why (docs/statistics.md "The verdict").

JSON: { filters, qual: QualResults, verdict: Scorecard | null, priceSensitivity: PriceSensitivityResults | null, marketReach: MarketReachResults | null }`,
    )
    .action(async (id: string, _o, cmd: Command) => (await import("./results/show.ts")).runResults(id, all(cmd)));
  paged(results.command("verbatims"))
    .description("one open question's answers, with sentiment and themes")
    .argument("<id>", "project id")
    .option("--question <id>", "the open question (project question id); without it the open questions are listed (exit 0)")
    .addOption(new Option("--filter <key=value>", "a response filter (repeatable)").argParser(collect).default([]))
    .option("--segment <id>", "apply a saved filter set")
    .option("--search <words>", "answers containing these words")
    .option("--sentiment <s>", "Positive, Neutral, Negative or Mixed")
    .option("--option <id>", "one test option's answers")
    .option("--page <n>", "page, from 1")
    .option("--page-size <n>", "answers per page (default 20, at most 200)")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally results verbatims 42\n  $ ideally results verbatims 42 --question 310 --search price --page-size 50\nJSON: VerbatimPage { page, pageSize, value: [{ responseText, sentiment, themes, ... }] } (no --question: [{ projectQuestionId, questionText }])",
    )
    .action(async (id: string, _o, cmd: Command) => (await import("./results/verbatims.ts")).runVerbatims(id, all(cmd)));
}

/** export. */
export function registerExportCommand(program: Command): void {
  program
    .command("export")
    .description("export a project's results: respondent CSV, Excel workbook or PowerPoint deck (native charts)")
    .argument("<id>", "project id")
    .option("--format <format>", "csv, xlsx or pptx (default: the -o file's extension)")
    .option("-o, --output <file>", "where to save, - for stdout (xlsx and pptx only when piped; default: the server's file name, else project-ID.FORMAT)")
    .option("--force", "overwrite the file if it exists")
    .addOption(new Option("--filter <key=value>", "a response filter (repeatable; see `ideally results --help`)").argParser(collect).default([]))
    .option("--segment <id>", "apply a saved filter set")
    .option("--benchmark <type>", "xlsx and pptx: the benchmark to compare with (default: the results page's, type 1 when available)")
    .option("--all-segments", "xlsx: a summary sheet per saved segment")
    .option("--confidence <level>", "xlsx and pptx: 90, 95 or 99 (default 95)")
    .option("--adjust <method>", "xlsx and pptx: multiple-comparison adjustment, bh (default), bonferroni or none")
    .option("--total <total>", "xlsx and pptx: sample or markets (the all-markets total, markets weighted by population; the default over two markets or more, else sample)")
    .option("--timeout <seconds>", "pptx, or a csv/xlsx the API queued: give up on the job after this long", "600")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      `
A progress bar on stderr (on a terminal) follows the download, and for pptx the export job.
The format is --format or the -o file's extension; if both are given they must agree. An existing
file is kept unless --force; the export is written beside it and renamed into place when complete.
A project that has not fielded (below status 400) has nothing to export (exit 2).
xlsx and pptx are binary: never written into a terminal (-o - on one, or -o /dev/tty) (exit 1);
piped (-o - | ...) they go.
xlsx and pptx are the results page's view unless told otherwise: its benchmark (type 1, all
customers, when the markets have it, else the first available) and, over two markets or more, the
all-markets total; one line on stderr says which defaults were used.

Examples:
  $ ideally export 42 -o oat-bars.xlsx
  $ ideally export 42 --format csv --filter region=1 -o nz.csv --force
  $ ideally export 42 --format csv -o - | head -5
  $ ideally export 42 --format pptx --benchmark 2
  $ ideally export 42 -o all-markets.pptx --filter region=1,2 --total markets --confidence 90 --adjust bonferroni
JSON: { projectId, format, file, bytes }`,
    )
    .action(async (id: string, _o, cmd: Command) => (await import("./export.ts")).runExport(id, all(cmd)));
}
