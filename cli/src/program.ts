// The `ideally` program (main.ts hands it every command line but `--version` and the top-level
// `--help`, which it prints from help-table.generated.ts, generated from this program). Commands are `noun verb` plus top-level verbs; this file sets up
// commander, its hooks and the request timeout; each command group is declared by its module in
// commands/*.commands.ts, which loads a command's module only when it runs, so startup stays fast.
// Exit codes: 0 ok, 1 usage (bad options, invalid project file, a CSV analyze cannot use), 2 API
// error, 3 authentication; `projects watch` 4 declined, 5 stalled, 6 timed out; 7 no answer within
// the request timeout (net.ts).
import { Command, Option } from "commander";
import { CliError, EXIT_USAGE } from "./errors.ts";
import { fitHelp, helpTerms, terminalWidth } from "./help-fit.ts";
import { DEFAULT_TIMEOUT_S, setRequestTimeout } from "./net.ts";
import { isPaged, listingFields, shallowGroups } from "./commands/options.ts";
import { registerSessionCommands } from "./commands/session.commands.ts";
import { registerReferenceCommands, registerClientCommands } from "./commands/reference.commands.ts";
import { registerProjectCommands } from "./commands/projects.commands.ts";
import { registerResultsCommands, registerExportCommand } from "./commands/results.commands.ts";
import { registerCreditCommands } from "./commands/credits.commands.ts";
import { registerAdminCommands } from "./commands/admin.commands.ts";
import { registerToolCommands } from "./commands/tools.commands.ts";
import { registerAnalyzeCommands } from "./commands/analyze.commands.ts";

export const program = new Command()
  .name("ideally")
  .description("Ideally command-line interface: projects, fielding, results and exports from a terminal or a script")
  .option("--api <url>", "the API's base URL (default: IDEALLY_API_URL, else the signed-in one, else http://localhost:3000)")
  .option("--client <id>", "act for this client id instead of the one chosen with `clients use`")
  .option("--wide", "tables at full width (by default they fit the terminal, cutting long text with …)")
  .option("--no-pager", "listings and results straight to the terminal (by default through IDEALLY_PAGER, else PAGER, else less)")
  .option("-V, --version", "the CLI's version and commit and the contract's version, with no network (`ideally version` adds the API's)")
  // Commander's own errors (unknown option, missing required option) as one line like ours.
  .configureOutput({
    outputError: (str, write) => write(`${str.trimEnd().replace(/^error: /, "ideally: ")} (see --help)\n`),
    // Help fits the terminal, also when piped into `head` from one (help-fit.ts). console.log and no
    // colour check: process.stdout is built on first use, which costs more than the rest of --help.
    writeOut: (str) => console.log(fitHelp(str, terminalWidth()).replace(/\n$/, "")),
    getOutHelpWidth: () => terminalWidth() ?? 80,
    getOutHasColors: () => false,
  })
  // Every alias beside its command's name (commander shows only the first); inherited by each command.
  .configureHelp(helpTerms)
  .addHelpText(
    "after",
    `
Every command takes --json (stable JSON on stdout, nothing else) and --help (with examples).
Exit codes: 0 ok, 1 usage, 2 API error or unreachable, 3 authentication, 7 the API did not answer
within --timeout (projects watch: 4 declined, 5 stalled, 6 timed out).
The session lives in $XDG_CONFIG_HOME/ideally/config.json (else ~/.config/ideally), mode 0600.
On a terminal, listings and results go through a pager: IDEALLY_PAGER, else PAGER, else less
(LESS=FRX when unset); empty or cat means none, and so does --no-pager.

Examples:
  $ ideally login --email user@acme.test
  $ ideally projects create --from project.yaml --dry-run
  $ ideally projects watch 42
  $ ideally results 42 --benchmark 1`,
  );

// The commands, in the order help lists them (each group in its own module under commands/).
registerSessionCommands(program);
registerReferenceCommands(program);
registerClientCommands(program);
registerProjectCommands(program);
registerResultsCommands(program);
registerExportCommand(program);
registerCreditCommands(program);
registerAdminCommands(program);
registerToolCommands(program);
registerAnalyzeCommands(program);

// The request timeout (net.ts): `--timeout S` on every command that talks to the API and has no
// --timeout of its own (`projects watch`, `export`, `admin commands` and `login --sso` keep theirs for
// their whole wait; their requests take IDEALLY_TIMEOUT). Checked before the command runs.
const requestTimeout = new Set<Option>();
// A group declared by name alone (options.ts declaresGroup) gets none: it does not run.
const withApi = (c: Command): Command[] =>
  ["analyze", "completion", "__complete"].includes(c.name()) || shallowGroups.has(c) ? [] : [...(c.options.length || !c.commands.length ? [c] : []), ...c.commands.flatMap(withApi)];
for (const c of program.commands.flatMap(withApi)) {
  if (c.options.some((x) => x.long === "--timeout")) continue;
  const opt = new Option("--timeout <seconds>", `give up when the API has not answered a request within this long (default ${DEFAULT_TIMEOUT_S}, or IDEALLY_TIMEOUT); exit 7`);
  requestTimeout.add(opt);
  c.addOption(opt);
}
let paging = false;
const endPaging = async () => {
  if (paging) await (await import("./pager.ts")).endPager();
};
program.hook("postAction", endPaging);
program.hook("preAction", async (_program, action) => {
  // A reader that stops early (`ideally projects list | head`) is not an error. Set here, not at
  // start: touching process.stdout builds it, which `--help` does without (issue 38).
  process.stdout.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" ? process.exit(0) : undefined));
  // --json FIELDS and --jq of a listing: checked (exit 1) before any request.
  const json = action.options.find((x) => listingFields.has(x));
  const shaped = action.opts<{ json?: string | boolean; jq?: string }>();
  if (json && (shaped.json !== undefined || shaped.jq !== undefined)) {
    const [{ jsonShape }, { shapeJson }] = await Promise.all([import("./json-shape.ts"), import("./output.ts")]);
    shapeJson(jsonShape(shaped.json, shaped.jq, listingFields.get(json) ?? []));
    if (shaped.jq !== undefined && shaped.json === undefined) action.setOptionValue("json", true);
  }
  // Listings and results through the pager on a terminal (pager.ts), started at their first output.
  if (isPaged(action)) {
    const { pagerCommand, startPager } = await import("./pager.ts");
    const cmd = pagerCommand(process.env, action.optsWithGlobals<{ pager?: boolean }>().pager === false, Boolean(process.stdout.isTTY));
    if (cmd) {
      startPager(cmd);
      paging = true;
    }
  }
  const ours = [action, ...(action.parent ? [action.parent] : [])].some((c) => c.options.some((x) => requestTimeout.has(x)));
  setRequestTimeout(ours ? action.optsWithGlobals<{ timeout?: string }>().timeout : undefined);
});

/** Runs the command line (main.ts; scripts/generate-cli-help.ts imports the program without running it). No top-level await. */
export function runProgram(argv: string[]): void {
  program.parseAsync(argv).catch(async (e: unknown) => {
    // The output so far stays in the pager; the error comes after it, below.
    await endPaging();
    if (e instanceof CliError) {
      process.stderr.write(`ideally: ${e.message}\n`);
      process.exit(e.exitCode);
    }
    process.stderr.write(`ideally: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(EXIT_USAGE);
  });
}
