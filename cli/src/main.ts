#!/usr/bin/env bun
// `ideally` command-line entry. Commands are `noun verb` plus top-level verbs; this file only wires
// commander and loads a command's module when it runs, so startup stays fast.
// Exit codes: 0 ok, 1 usage (bad options, invalid project file), 2 API error (or an unreadable
// CSV for analyze), 3 authentication.
import { Command, Option } from "commander";
import { CliError, EXIT_USAGE } from "./errors.ts";

const program = new Command()
  .name("ideally")
  .description("Ideally command-line interface: projects, fielding, results and exports from a terminal or a script")
  .option("--api <url>", "the API's base URL (default: IDEALLY_API_URL, else the signed-in one, else http://localhost:3000)")
  .option("--client <id>", "act for this client id instead of the one chosen with `clients use`")
  // Commander's own errors (unknown option, missing required option) as one line like ours.
  .configureOutput({ outputError: (str, write) => write(`${str.trimEnd().replace(/^error: /, "ideally: ")} (see --help)\n`) })
  .addHelpText(
    "after",
    `
Every command takes --json (stable JSON on stdout, nothing else) and --help (with examples).
Exit codes: 0 ok, 1 usage, 2 API error, 3 authentication.
The session lives in $XDG_CONFIG_HOME/ideally/config.json (else ~/.config/ideally), mode 0600.

Examples:
  $ ideally login --email user@acme.test
  $ ideally projects create --from project.yaml --dry-run
  $ ideally projects watch 42
  $ ideally results 42 --benchmark 1`,
  );

/** Options of the command merged with the global ones (--api, --client). */
// biome-ignore lint: commander hands options untyped
const all = (cmd: Command): any => cmd.optsWithGlobals();
const JSON_HELP = "print JSON for scripts (nothing else on stdout)";

program
  .command("login")
  .description("sign in with email and password; the session is kept and refreshed automatically")
  .option("--email <email>", "the account (default: IDEALLY_EMAIL, else asked)")
  .option("--password-stdin", "read the password from stdin (default: IDEALLY_PASSWORD, else asked without echo)")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
Examples:
  $ ideally login --email user@acme.test
  $ printf %s "$PASSWORD" | ideally login --api https://ideally.example.com --email me@example.com --password-stdin
JSON: { email, userId, api, clientId }`,
  )
  .action(async (_o, cmd: Command) => (await import("./commands/session/login.ts")).runLogin(all(cmd)));

program
  .command("logout")
  .description("end the session on the server and forget it here")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally logout\nJSON: { signedOut, serverSessionEnded }")
  .action(async (_o, cmd: Command) => (await import("./commands/session/logout.ts")).runLogout(all(cmd)));

program
  .command("whoami")
  .description("the signed-in account and the client commands act for")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally whoami --json\nJSON: Users/Me plus { api, clientId }")
  .action(async (_o, cmd: Command) => (await import("./commands/session/whoami.ts")).runWhoami(all(cmd)));

const clients = program.command("clients").description("the clients (teams, orgs, enterprises) you can act for");
clients
  .command("list")
  .description("list them; * marks the current one")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally clients list\nJSON: [{ id, name, tier, parentId, current }]")
  .action(async (_o, cmd: Command) => (await import("./commands/clients/list.ts")).runClientsList(all(cmd)));
clients
  .command("use")
  .description("choose the client later commands act for")
  .argument("<client>", "client id or exact name")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally clients use 3\n  $ ideally clients use 'Acme Team A'\nJSON: { id, name, tier }")
  .action(async (which: string, _o, cmd: Command) => (await import("./commands/clients/use.ts")).runClientsUse(which, all(cmd)));

const analyze = program
  .command("analyze")
  .description("run the analytics on a CSV file (header row; UTF-8, or windows-1252 when not valid UTF-8)")
  .addHelpText(
    "after",
    `
Columns (COL) are header names or 1-based column numbers. Runs locally: no sign-in needed.
Exit codes: 0 ok, 1 bad options, 2 bad input file.`,
  );

const collect = (value: string, previous: string[]) => [...previous, value];

analyze
  .command("psm")
  .description("Van Westendorp price sensitivity meter, with the Newton-Miller-Smith purchase-probability extension")
  .argument("<file>", "CSV file, one respondent per row")
  .requiredOption("--too-cheap <col>", "price felt too cheap to trust the quality")
  .requiredOption("--cheap <col>", "bargain price")
  .requiredOption("--expensive <col>", "getting-expensive price")
  .requiredOption("--too-expensive <col>", "too-expensive price")
  .option("--pi-cheap <col>", "purchase intent at the bargain price (NMS; needs --pi-expensive)")
  .option("--pi-expensive <col>", "purchase intent at the expensive price (NMS; needs --pi-cheap)")
  .option(
    "--pi-scale <labels>",
    "five intent labels with probabilities, most likely first (default 'Very likely=0.7,Likely=0.5,Neither likely nor unlikely=0.3,Unlikely=0.1,Very unlikely=0'); cells may also hold 5..1",
  )
  .option("--weight <col>", "respondent weight column")
  .option("--json", "print the result as JSON")
  .addHelpText(
    "after",
    `
Respondents must answer too cheap < cheap < expensive < too expensive; the others (and blank
prices) are counted as invalid. A price cell that is not a number is an error (exit 2).

Examples:
  $ ideally analyze psm prices.csv --too-cheap 1 --cheap 2 --expensive 3 --too-expensive 4
  $ ideally analyze psm prices.csv --too-cheap 1 --cheap 2 --expensive 3 --too-expensive 4 \\
      --pi-cheap 5 --pi-expensive 6 --json
  $ ideally analyze psm prices.csv --too-cheap tc --cheap c --expensive e --too-expensive te \\
      --pi-cheap pi_c --pi-expensive pi_e --weight wgt \\
      --pi-scale 'Definitely=0.8,Probably=0.5,Maybe=0.3,Probably not=0.1,Definitely not=0'

JSON: { n, invalid, pmc, pme, ipp, opp, trialOptimal?, revenueOptimal? }`,
  )
  .action(async (file: string, opts) => {
    const { runPsm } = await import("./commands/analyze/psm.ts");
    await runPsm(file, opts);
  });

analyze
  .command("turf")
  .description("TURF: the item sets of size k with the highest reach (then frequency)")
  .argument("<file>", "CSV file, one respondent per row, items as 0/1 columns")
  .requiredOption("--items <cols>", "comma-separated item columns")
  .requiredOption("--k <n>", "set size")
  .option("--weight <col>", "respondent weight column")
  .option("--top <n>", "how many sets to list", "10")
  .option("--depth <n>", "reached = accepts at least this many of the set's items", "1")
  .option("--json", "print the result as JSON")
  .addHelpText(
    "after",
    `
A non-zero number accepts the item, 0 or blank does not; anything else is an error (exit 2).
All C(items, k) sets are searched up to 2,000,000 sets, beyond that a greedy search returns one.

Examples:
  $ ideally analyze turf flavours.csv --items item_1,item_2,item_3,item_4,item_5 --k 3
  $ ideally analyze turf flavours.csv --items 3,4,5,6,7,8 --weight wgt --k 2 --top 5 --json
  $ ideally analyze turf flavours.csv --items a,b,c,d --k 3 --depth 2

JSON: { results: [{ items: [names], reach, frequency }] }, best first`,
  )
  .action(async (file: string, opts) => {
    const { runTurf } = await import("./commands/analyze/turf.ts");
    await runTurf(file, opts);
  });

analyze
  .command("rake")
  .description("rake weights to target margins by iterative proportional fitting")
  .argument("<file>", "CSV file, one respondent per row")
  .addOption(
    new Option("--target <spec>", "'variable=Level:share,Level:share,...' (repeat per variable)").argParser(collect).default([]),
  )
  .option("--cap <n>", "trim weights to [1/n, n] around mean 1 (n > 1)")
  .option("--json", "print the result as JSON")
  .addHelpText(
    "after",
    `
Shares are numbers in [0, 1]; each variable's must sum to 1 within 0.01 (they are then normalised
exactly), otherwise the target is refused (exit 1). Every non-blank level in the data needs a share.
A respondent with a blank in a variable is left out of that variable's margin. Weights are
reported in row order, scaled to mean 1.

Examples:
  $ ideally analyze rake panel.csv --target 'sex=Female:0.51,Male:0.49'
  $ ideally analyze rake panel.csv --target 'sex=Female:0.51,Male:0.49' \\
      --target 'race=White:0.6,Black:0.13,Hispanic:0.19,Asian:0.06,Other:0.02' --cap 5 --json

JSON: { iterations, deff, nEff, min, max, weights: [...] }`,
  )
  .action(async (file: string, opts) => {
    const { runRake } = await import("./commands/analyze/rake.ts");
    await runRake(file, opts);
  });

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CliError) {
    process.stderr.write(`ideally: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  process.stderr.write(`ideally: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(EXIT_USAGE);
}
