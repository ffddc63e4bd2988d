#!/usr/bin/env bun
// `ideally` command-line entry. Commands are `noun verb` plus top-level verbs; this file only wires
// commander and loads a command's module when it runs, so startup stays fast.
// Exit codes: 0 ok, 1 usage (bad options, invalid project file, a CSV analyze cannot use), 2 API
// error, 3 authentication; `projects watch` 4 declined, 5 stalled, 6 timed out; 7 no answer within
// the request timeout (net.ts).
import { Command, Option, type OptionValues } from "commander";
import { CliError, EXIT_USAGE } from "./errors.ts";
import { FILTER_HELP } from "./filter-help.ts";
import { fitHelp, terminalWidth } from "./help-fit.ts";
import { pagingOptions } from "./paging.ts";
import { DEFAULT_TIMEOUT_S, setRequestTimeout } from "./net.ts";

const program = new Command()
  .name("ideally")
  .description("Ideally command-line interface: projects, fielding, results and exports from a terminal or a script")
  .option("--api <url>", "the API's base URL (default: IDEALLY_API_URL, else the signed-in one, else http://localhost:3000)")
  .option("--client <id>", "act for this client id instead of the one chosen with `clients use`")
  .option("--wide", "tables at full width (by default they fit the terminal, cutting long text with …)")
  .option("-V, --version", "the CLI's version and commit and the contract's version, with no network (`ideally version` adds the API's)")
  // Commander's own errors (unknown option, missing required option) as one line like ours.
  .configureOutput({
    outputError: (str, write) => write(`${str.trimEnd().replace(/^error: /, "ideally: ")} (see --help)\n`),
    // Help fits the terminal, also when piped into `head` from one (help-fit.ts).
    writeOut: (str) => process.stdout.write(fitHelp(str, terminalWidth())),
    getOutHelpWidth: () => terminalWidth() ?? 80,
  })
  .addHelpText(
    "after",
    `
Every command takes --json (stable JSON on stdout, nothing else) and --help (with examples).
Exit codes: 0 ok, 1 usage, 2 API error or unreachable, 3 authentication, 7 the API did not answer
within --timeout (projects watch: 4 declined, 5 stalled, 6 timed out).
The session lives in $XDG_CONFIG_HOME/ideally/config.json (else ~/.config/ideally), mode 0600.

Examples:
  $ ideally login --email user@acme.test
  $ ideally projects create --from project.yaml --dry-run
  $ ideally projects watch 42
  $ ideally results 42 --benchmark 1`,
  );

/** Options of the command merged with the global ones (--api, --client). */
// Commander hands options untyped: each command's runner names the options it declared.
const all = <T,>(cmd: Command): T => cmd.optsWithGlobals<T & OptionValues>();
const JSON_HELP = "print JSON for scripts (nothing else on stdout)";
/**
 * A listing's `--json [FIELDS]` (all, or the fields named) and, beside it, `--jq EXPR`: shaped in
 * json-shape.ts before the command runs. `fields` are the keys of the listing's JSON rows.
 */
const listingFields = new Map<Option, string[]>();
function jsonFields(fields: string[]): Option {
  const opt = new Option("--json [fields]", `print JSON (nothing else on stdout); FIELDS (comma-separated, right after --json) picks some of: ${fields.join(", ")}`);
  listingFields.set(opt, fields);
  return opt;
}
const JQ_HELP = "print what this jq expression makes of the JSON, strings raw (a subset of jq: paths, .[], |, select, map, length, keys, ...; docs/cli.md)";
/** A repeatable option collects its values. */
const collect = (value: string, previous: string[]) => [...previous, value];

program
  .command("login")
  .description("sign in with email and password; the session is kept and refreshed automatically")
  .option("--email <email>", "the account (default: IDEALLY_EMAIL, else asked)")
  .option("--password-stdin", "read the password from stdin (default: IDEALLY_PASSWORD, else asked without echo)")
  .option("--sso", "sign in with your organisation's SAML identity provider in the browser")
  .option("--no-browser", "--sso: only print the address to open")
  .option("--timeout <seconds>", "--sso: how long to wait for the browser (default 300); else the request timeout (default 30)")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
With --sso the CLI listens on 127.0.0.1 for the identity provider's answer (the browser is sent
back there) and exchanges it for a session; the address is also printed to open by hand.

Examples:
  $ ideally login --email user@acme.test
  $ printf %s "$PASSWORD" | ideally login --api https://ideally.example.com --email me@example.com --password-stdin
  $ ideally login --sso --email me@example.com
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

program
  .command("version")
  .description("the CLI's version and commit, the API version it was built for, and the API's own")
  .option("--json", JSON_HELP)
  .addOption(new Option("--offline", "only what the CLI knows (what --version prints)").hideHelp())
  .addHelpText("after", "\n`ideally --version` prints the CLI's version, commit and contract with no network.\n\nExamples:\n  $ ideally --version\n  $ ideally version --api https://ideally.example.com --json\nJSON: { cli, commit, contract, api, apiVersion, apiError? } (--version: { cli, commit, contract })")
  .action(async (_o, cmd: Command) => (await import("./commands/session/version.ts")).runVersion(all(cmd)));

const auth = program.command("auth").description("the session: where it is kept and whether it still works");
auth
  .command("status")
  .description("the API, account, client, token expiry and config path; exit 3 when not signed in, 2 or 7 when the API cannot be asked")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally auth status\n  $ ideally auth status --json | jq .accessTokenExpiresAt\nJSON: { signedIn, token, api, email, userId, clientId, clientName, accessTokenExpiresAt, refreshable, server, error?, configPath }")
  .action(async (_o, cmd: Command) => (await import("./commands/session/status.ts")).runAuthStatus(all(cmd)));
auth
  .command("token")
  .description("print the access token commands send (refreshed first when near expiry), for curl or IDEALLY_TOKEN")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
IDEALLY_TOKEN (for CI) is used instead of the stored login: as it is, never refreshed (an access token
lives 15 minutes); the client is --client, else IDEALLY_CLIENT.

Examples:
  $ ideally auth token
  $ IDEALLY_TOKEN=$(ideally auth token) IDEALLY_CLIENT=3 ideally projects list
  $ curl -H "Authorization: Bearer $(ideally auth token)" https://ideally.example.com/api/v1/Users/Me
JSON: { token, expiresAt, from }`,
  )
  .action(async (_o, cmd: Command) => (await import("./commands/session/status.ts")).runAuthToken(all(cmd)));

// Lookups for writing project files.
pagingOptions(program
  .command("markets"), null)
  .description("the markets (regions) a project can field in, with the codes and currencies project files use")
  .option("--states", "include the US state markets")
  .addOption(jsonFields(["id", "name", "code", "currency", "parentId", "isUsState"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally markets\n  $ ideally markets --states --json | jq '.[] | select(.currency == \"USD\") | .code'\nJSON: [{ id, name, code, currency, parentId, isUsState }]")
  .action(async (_o, cmd: Command) => (await import("./commands/reference/lookups.ts")).runMarkets(all(cmd)));
pagingOptions(program
  .command("targets"), null)
  .description("the target (quota) options by question, for every market or one")
  .option("--market <market>", "one market's options (name, code or id) and those of every market")
  .addOption(jsonFields(["id", "question", "questionCode", "label", "marketId", "market"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nA project file's target `option:` takes the answer, 'Question: answer' or the id.\n\nExamples:\n  $ ideally targets --market NZ\n  $ ideally targets --market Australia --json | jq '.[] | select(.question == \"Region\")'\nJSON: [{ id, question, questionCode, label, marketId, market }]")
  .action(async (_o, cmd: Command) => (await import("./commands/reference/lookups.ts")).runTargets(all(cmd)));
pagingOptions(program
  .command("categories"), null)
  .description("the product categories (two levels), for a project file's `category:`")
  .addOption(jsonFields(["id", "name", "parentId", "industry"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally categories\n  $ ideally categories --json | jq '.[] | select(.parentId == 1)'\nJSON: [{ id, name, parentId, industry }]")
  .action(async (_o, cmd: Command) => (await import("./commands/reference/lookups.ts")).runCategories(all(cmd)));
pagingOptions(program
  .command("frameworks"), null)
  .description("the research frameworks per project type, for a project file's `framework:`")
  .addOption(jsonFields(["id", "name", "title", "projectTypeId", "projectType", "description"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally frameworks\n  $ ideally frameworks --json | jq '.[] | select(.projectType == \"Idea\")'\nJSON: [{ id, name, title, projectTypeId, projectType, description }]")
  .action(async (_o, cmd: Command) => (await import("./commands/reference/lookups.ts")).runFrameworks(all(cmd)));
pagingOptions(program
  .command("industries"), null)
  .description("the industries (SPEC's list), for a project file's `productType:`")
  .addOption(jsonFields(["code", "name"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally industries\n  $ ideally industries --json | jq -r '.[].code'\nJSON: [{ code, name }]")
  .action(async (_o, cmd: Command) => (await import("./commands/reference/lookups.ts")).runIndustries(all(cmd)));

const clients = program.command("clients").description("the clients (teams, orgs, enterprises) you can act for");
pagingOptions(clients
  .command("list")
  .description("list them; * marks the current one"), 50)
  .addOption(jsonFields(["id", "name", "tier", "parentId", "current"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally clients list\nJSON: [{ id, name, tier, parentId, current }]")
  .action(async (_o, cmd: Command) => (await import("./commands/clients/list.ts")).runClientsList(all(cmd)));
clients
  .command("use")
  .description("choose the client later commands act for")
  .argument("<client>", "client id or exact name")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally clients use 3\n  $ ideally clients use 'Acme Team A'\nJSON: { id, name, tier }")
  .action(async (which: string, _o, cmd: Command) => (await import("./commands/clients/use.ts")).runClientsUse(which, all(cmd)));

const projects = program.command("projects").description("create, change, submit and follow projects");
pagingOptions(projects
  .command("list")
  .description("the client's projects, newest first, a page at a time"), 50)
  .option("--status <codes>", "only these status codes, e.g. 0 or 800,900")
  .option("--search <text>", "name contains")
  .option("--deleted", "the deleted projects instead (undelete restores them)")
  .addOption(jsonFields(["id", "projectName", "projectType", "statusCode", "createdAt"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nMore rows than a page: a hint on stderr (showing 1-50 of 312; ...), stdout keeps only the rows.\n\nExamples:\n  $ ideally projects list --status 800,900\n  $ ideally projects list --search oat --json\n  $ ideally projects list --limit 20 --page 2\n  $ ideally projects list --all --json | jq length\nJSON: [{ id, projectName, projectType, statusCode, createdAt }]")
  .action(async (_o, cmd: Command) => (await import("./commands/projects/list.ts")).runList(all(cmd)));
projects
  .command("show")
  .description("a project's set-up: regions, test options, custom questions")
  .argument("<id>", "project id")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally projects show 42\nJSON: the project with { regions, testOptions, customQuestions }")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/show.ts")).runShow(id, all(cmd)));
projects
  .command("validate")
  .description("check a project file as the server would (markets, options, framework, currency, ...), creating nothing")
  .argument("<file>", "the project file (YAML or JSON; format: docs/cli.md), - for stdin")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
Names (markets, target options, category, industry, framework) are resolved against the API's
reference data; a mistake is reported as FILE:LINE:COL: field: what is wrong (exit 1).

Examples:
  $ ideally projects validate oat-bars.yaml
  $ ideally projects validate oat-bars.yaml --json | jq .project
JSON: { file, valid, project: CreateProject, framework, regions, targets, testOptions, questions, uploads }`,
  )
  .action(async (file: string, _o, cmd: Command) => (await import("./commands/projects/create.ts")).runValidate(file, all(cmd)));
projects
  .command("create")
  .description("create a draft project from a YAML or JSON file (format: docs/cli.md)")
  .requiredOption("--from <file>", "the project file, - for stdin")
  .option("--dry-run", "check the file and price it with CreditCostEstimate; nothing is created")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
The file is checked as \`projects validate\` does before anything is created; a mistake is
reported as FILE:LINE:COL (exit 1). Test option and question images are uploaded.

Examples:
  $ ideally projects create --from oat-bars.yaml --dry-run
  $ ideally projects create --from oat-bars.yaml --json | jq .id
JSON: { id, projectName, statusCode, testOptionIds, questionIds, uploads, cost } (dry run: { dryRun, cost: CreditCostEstimate })`,
  )
  .action(async (_o, cmd: Command) => (await import("./commands/projects/create.ts")).runCreate(all(cmd)));
projects
  .command("file")
  .description("write a project's set-up as a project file: settings, markets, completes, targets with quotas, test options")
  .argument("<id>", "project id")
  .option("-o, --output <file>", "write to FILE (default: stdout)")
  .option("--force", "overwrite FILE")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
Read back by \`projects create --from\` (a new draft) and \`projects apply\` (an existing draft's markets,
completes and targets). Not written: test option images, custom questions, price sensitivity, market
reach, the schedule and screener-question targets (the file's header says so too).

Examples:
  $ ideally projects file 42 > oat-bars.yaml
  $ ideally projects file 42 -o oat-bars.yaml --force
JSON (with -o): { file, projectId, targets, notWritten }`,
  )
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/file-out.ts")).runFileOut(id, all(cmd)));
projects
  .command("apply")
  .description("set a draft's markets, completes and targets (quotas included) from a project file, in one call")
  .argument("<id>", "project id (a Draft)")
  .requiredOption("--from <file>", "the project file, - for stdin")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
The file is checked as \`projects validate\` checks it first (FILE:LINE:COL, exit 1). Its markets become
the project's, its completes (when given) each market's, and its targets the project's whole target
set: a target without \`quota\` has none. All or nothing (ChangeTargets); the rest of the file is not applied.

Examples:
  $ ideally projects file 42 > quotas.yaml && ideally projects apply 43 --from quotas.yaml
  $ ideally projects file 42 | ideally projects apply 43 --from - --json | jq .targets
JSON: { projectId, regionIds, targets: Targets[], feasibility: FeasibilityExplanation }`,
  )
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/file-out.ts")).runApply(id, all(cmd)));
projects
  .command("update")
  .description("change a project's name, note, launch date, brand or category")
  .argument("<id>", "project id")
  .option("--name <name>", "new name")
  .option("--note <text>", "research note ('' clears it)")
  .option("--launch-date <date>", "YYYY-MM-DD ('' clears it)")
  .option("--brand <name>", "branded with this brand ('' makes it unbranded)")
  .option("--category <id>", "category id ('' clears it)")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally projects update 42 --name 'Oat bars, wave 2'\n  $ ideally projects update 42 --brand Acme --launch-date 2027-03-01\nJSON: the project")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runUpdate(id, all(cmd)));
projects
  .command("clone")
  .description("copy a project (settings, regions, test options, questions, add-ons) as a new draft")
  .argument("<id>", "project id")
  .option("--name <name>", "the copy's name (default '{name} (copy)')")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally projects clone 42 --name 'Oat bars NZ'\nJSON: { id, projectName, statusCode, clientId, duplicatedFromProjectId }")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runClone(id, all(cmd)));
const YES_HELP = "go ahead without asking (needed when stdin is not a terminal)";
projects
  .command("submit")
  .description("submit a draft for fielding: shows the cost, asks, then charges it (may wait for an Admin's approval)")
  .argument("<id>", "project id")
  .option("--accept-shortfall", "submit a design the panel cannot fill anyway: each run closes short at its field end and the shortfall is refunded (without it such a design is not submitted)")
  .option("-y, --yes", YES_HELP)
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally projects submit 42\n  $ ideally projects submit 42 --accept-shortfall\n  $ ideally projects submit 42 --yes --json | jq .charged\nJSON: { projectId, projectName, previousStatusCode, statusCode, status, allowedActions, charged?, refunded?, balanceAfter?, shortfall? }")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runSubmit(id, all(cmd)));
projects
  .command("unsubmit")
  .description("take a submitted project back to draft (the charge is refunded)")
  .argument("<id>", "project id")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally projects unsubmit 42\nJSON: { projectId, projectName, previousStatusCode, statusCode, status, allowedActions, charged?, refunded?, balanceAfter? }")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runUnsubmit(id, all(cmd)));
projects
  .command("delete")
  .description("delete a project after asking (it can be restored with undelete)")
  .argument("<id>", "project id")
  .option("-y, --yes", YES_HELP)
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally projects delete 42\n  $ ideally projects delete 42 --yes\nJSON: { id, deleted }")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runDelete(id, all(cmd)));
projects
  .command("undelete")
  .description("restore a deleted project")
  .argument("<id>", "project id")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExample:\n  $ ideally projects undelete 42\nJSON: the project")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runUndelete(id, all(cmd)));
projects
  .command("watch")
  .description("follow a project live until its results are ready: status, responses per region and test option, jobs, processing")
  .argument("<id>", "project id")
  .option("--interval <seconds>", "poll this often besides the live events (default 5)")
  .option("--timeout <seconds>", "give up after this long (exit 6)")
  .option("--stall <seconds>", "while fielding, no new completes for this long is a stall (exit 5)")
  .option("--json", "one JSON event per line instead of the view")
  .addHelpText(
    "after",
    `
Exit codes: 0 the results are ready (status 800 or more), 4 the project went back to Draft
(declined or unsubmitted), 5 stalled (a run the fielding engine marked stalled, or --stall),
6 timed out (--timeout); 2 and 3 as elsewhere.
Ctrl-C stops watching, not the project. NO_COLOR turns colours off; the view fits the terminal.

Examples:
  $ ideally projects watch 42
  $ ideally projects watch 42 --timeout 3600 --stall 900 --json | jq -c 'select(.event == "Progress") | .data'
JSON lines: {"event":"State","data":{...}} on each change, the live events as
{"event":"ProjectUpdated"|"Progress"|"ProjectReady"|...,"channel","data"}, then
{"event":"Done","result":"ready"|"declined"|"stalled"|"timeout","data":{...}}`,
  )
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/watch.tsx")).runWatch(id, all(cmd)));

const results = program
  .command("results")
  .description("a project's results: top-2-box per test option and measure with benchmark differences, price points, reach")
  .argument("<id>", "project id")
  .addOption(new Option("--filter <key=value>", "a response filter (repeatable; see below)").argParser(collect).default([]))
  .option("--segment <id>", "apply a saved filter set (segment)")
  .option("--benchmark <type>", "benchmark type to compare with (1 all customers, 2 your team, 3 industry, 4-7 NPD weeks, 8 category)", "1")
  .option("--confidence <level>", "90, 95 or 99 (default 95)")
  .option("--total <total>", "sample (default) or markets: the measures and questions as the all-markets total (each market reweighted to its population share)")
  .option("--json", JSON_HELP)
  .addHelpText("after", () => `
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

JSON: { filters, qual: QualResults, verdict: Scorecard | null, priceSensitivity: PriceSensitivityResults | null, marketReach: MarketReachResults | null }`)
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/results/show.ts")).runResults(id, all(cmd)));
results
  .command("verbatims")
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
  .addHelpText("after", "\nExamples:\n  $ ideally results verbatims 42\n  $ ideally results verbatims 42 --question 310 --search price --page-size 50\nJSON: VerbatimPage { page, pageSize, value: [{ responseText, sentiment, themes, ... }] } (no --question: [{ projectQuestionId, questionText }])")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/results/verbatims.ts")).runVerbatims(id, all(cmd)));

program
  .command("export")
  .description("export a project's results: respondent CSV, Excel workbook or PowerPoint deck (native charts)")
  .argument("<id>", "project id")
  .option("--format <format>", "csv, xlsx or pptx (default: the -o file's extension)")
  .option("-o, --output <file>", "where to save, - for stdout (default: the server's file name, else project-ID.FORMAT)")
  .option("--force", "overwrite the file if it exists")
  .addOption(new Option("--filter <key=value>", "a response filter (repeatable; see `ideally results --help`)").argParser(collect).default([]))
  .option("--segment <id>", "apply a saved filter set")
  .option("--benchmark <type>", "xlsx and pptx: the benchmark to compare with (default: the results page's, type 1 when available)")
  .option("--all-segments", "xlsx: a summary sheet per saved segment")
  .option("--confidence <level>", "xlsx and pptx: 90, 95 or 99 (default 95)")
  .option("--adjust <method>", "xlsx and pptx: multiple-comparison adjustment, bh (default), bonferroni or none")
  .option("--total <total>", "xlsx and pptx: sample or markets (the all-markets total, markets weighted by population; the default over two markets or more, else sample)")
  .option("--timeout <seconds>", "pptx: give up on the job after this long", "600")
  .option("--json", JSON_HELP)
  .addHelpText(
    "after",
    `
A progress bar on stderr (on a terminal) follows the download, and for pptx the export job.
The format is --format or the -o file's extension; if both are given they must agree. An existing
file is kept unless --force; the export is written beside it and renamed into place when complete.
A project that has not fielded (below status 400) has nothing to export (exit 2).
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
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/export.ts")).runExport(id, all(cmd)));

// The balance is `credits balance`, the default: `credits` itself has no options, so `credits ledger
// --json FIELDS` reaches the ledger (an option of `credits` would take it first).
const credits = program
  .command("credits")
  .description("the client's credits: balance (default), ledger, transfer")
  .addHelpText("after", "\nExamples:\n  $ ideally credits\n  $ ideally credits ledger --limit 20\n  $ ideally credits transfer --from 2 --to 3 --amount 500 --note 'Q3 budget'");
credits
  .command("balance", { isDefault: true })
  .description("the balance, what is available and pending, this month's spend (`ideally credits` alone)")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally credits\n  $ ideally credits balance --json\nJSON: ClientSubStats' client figures { balance, available, pendingCharges, spendThisMonth, ... }")
  .action(async (_o, cmd: Command) => (await import("./commands/credits/balance.ts")).runBalance(all(cmd)));
pagingOptions(credits
  .command("ledger")
  .description("the credit log, newest first (the balance is its sum)"), 50)
  .option("--project <id>", "only this project's rows")
  .addOption(jsonFields(["id", "type", "creditAmount", "projectId", "description", "transferId", "relatedClientId", "createdAt", "creditLogType"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally credits ledger --project 42\n  $ ideally credits ledger --all --json | jq 'map(.creditAmount) | add'\nJSON: [{ id, type, creditAmount, projectId, description, transferId, relatedClientId, createdAt, creditLogType }]")
  .action(async (_o, cmd: Command) => (await import("./commands/credits/ledger.ts")).runLedger(all(cmd)));
credits
  .command("transfer")
  .description("move credits between two clients of one enterprise (an Admin above both, or staff)")
  .requiredOption("--from <client>", "client id giving")
  .requiredOption("--to <client>", "client id receiving")
  .requiredOption("--amount <n>", "credits, more than 0")
  .option("--note <text>", "why")
  .option("-y, --yes", YES_HELP)
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nAn Admin transfers within the client acted for: --client names the org or enterprise above both.\n\nExamples:\n  $ ideally --client 1 credits transfer --from 3 --to 4 --amount 250\n  $ ideally --client 1 credits transfer --from 3 --to 4 --amount 250 --yes --json\nJSON: { transferId, amount, from: { clientId, creditLogId, balance }, to: {...} }")
  .action(async (_o, cmd: Command) => (await import("./commands/credits/transfer.ts")).runTransfer(all(cmd)));

const admin = program.command("admin").description("provider staff: approvals, survey runs and the command runner");
admin
  .command("approve")
  .description("approve a project one step (50 -> 100 by a team Admin or staff; 100 -> 200 -> 300 by staff)")
  .argument("<id>", "project id")
  .option("--to <status>", "repeat until the project reaches this status (e.g. 300, ready for fielding)")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally admin approve 42\n  $ ideally admin approve 42 --to 300\nJSON: [LifecycleResult, ...] one per step")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/admin/approve.ts")).runApprove(id, all(cmd)));
admin
  .command("decline")
  .description("send a submitted project back to draft with a reason (the charge is refunded)")
  .argument("<id>", "project id")
  .requiredOption("--reason <text>", "told to the submitter")
  .option("-y, --yes", YES_HELP)
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally admin decline 42 --reason 'Concept B names a competitor'\n  $ ideally admin decline 42 --reason 'Concept B names a competitor' --yes --json\nJSON: LifecycleResult")
  .action(async (id: string, _o, cmd: Command) => (await import("./commands/projects/lifecycle.ts")).runDecline(id, all(cmd)));
const runs = admin.command("runs").description("survey runs (one fielding in one market): list a project's, close one now, move its field end (staff)");
pagingOptions(runs
  .command("list")
  .description("a project's survey runs, with the ids close and extend take"), null)
  .argument("<project>", "project id")
  .addOption(jsonFields(["id", "regionId", "region", "surveyStatusId", "isCustomerPanel", "targetCompletes", "launchedAt", "closedAt"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally admin runs list 42\n  $ ideally admin runs list 42 --json | jq '.[] | select(.surveyStatusId == 50) | .id'\nJSON: [{ id, regionId, region: { regionName }, surveyStatusId, isCustomerPanel, targetCompletes, launchedAt, closedAt }]")
  .action(async (project: string, _o, cmd: Command) => (await import("./commands/admin/runs.ts")).runRunsList(project, all(cmd)));
runs
  .command("close")
  .description("close a Live or Testing run now with the completes it has (processing refunds the shortfall); staff only")
  .argument("<run>", "survey run id (`ideally admin runs list PROJECT`)")
  .option("-y, --yes", "go ahead without asking (needed when stdin is not a terminal)")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally admin runs close 7\n  $ ideally admin runs close 7 --yes --json | jq .closedAt\nJSON: SurveyRunState { id, surveyStatusId, surveyStatus, fieldingState, fieldEndAt, closedAt, closedReason, ... }")
  .action(async (run: string, _o, cmd: Command) => (await import("./commands/admin/runs.ts")).runRunsClose(run, all(cmd)));
runs
  .command("extend")
  .description("move a Live or Testing run's field end (later to extend, earlier to shorten); a stalled run is watched afresh; staff only")
  .argument("<run>", "survey run id (`ideally admin runs list PROJECT`)")
  .requiredOption("--until <when>", "the new field end: 2026-12-01 (that day's end, UTC), 2026-12-01T18:00:00Z, or +3d / +12h from now")
  .option("--json", JSON_HELP)
  .addHelpText("after", "\nExamples:\n  $ ideally admin runs extend 7 --until +3d\n  $ ideally admin runs extend 7 --until 2027-01-15T18:00:00+13:00 --json\nJSON: SurveyRunState { id, surveyStatusId, surveyStatus, fieldingState, fieldEndAt, stalledAt, ... }")
  .action(async (run: string, _o, cmd: Command) => (await import("./commands/admin/runs.ts")).runRunsExtend(run, all(cmd)));
pagingOptions(admin
  .command("commands")
  .description("the command runner: list the commands, or run one as a job with a progress bar"), null)
  .argument("[name]", "the command to run (e.g. TestNextSchedule); none lists them")
  .addOption(new Option("--set <field=value>", "a field of the command's body (repeatable)").argParser(collect).default([]))
  .option("--timeout <seconds>", "give up waiting after this long", "600")
  .addOption(jsonFields(["name", "description"]))
  .option("--jq <expr>", JQ_HELP)
  .addHelpText(
    "after",
    `
Examples:
  $ ideally admin commands
  $ ideally admin commands TestNextSchedule --set today=2026-12-01
  $ ideally admin commands ReGenerateThemes --set projectId=42 --json
JSON: [{ name, description }] or the job's { jobId, name, result }`,
  )
  .action(async (name: string | undefined, _o, cmd: Command) => (await import("./commands/admin/commands.ts")).runCommands(name, all(cmd)));

program
  .command("api")
  .description("an authenticated request to any API path, as `gh api` (the session's token and client go with it)")
  .argument("<path>", "/api/v1/... as it is, or a path under /api/v1/ (Projects, Users/Me)")
  .option("-X, --method <method>", "GET (default; POST with fields or --input), POST, PUT, PATCH, DELETE or HEAD")
  .addOption(new Option("-f, --raw-field <key=value>", "a string field of the JSON body (the query of a GET); repeatable").argParser(collect).default([]))
  .addOption(new Option("-F, --field <key=value>", "a typed field: true, false, null and numbers as JSON, @FILE the file's text (@- stdin); repeatable").argParser(collect).default([]))
  .addOption(new Option("-H, --header <header>", "an extra header 'Name: value'; repeatable").argParser(collect).default([]))
  .option("--input <file>", "the request body from a file (- for stdin), sent as JSON")
  .option("--paginate", "GET every page: follow @odata.nextLink and join the pages' value")
  .option("--no-tenant", "send no clientId header (calls that are not a client's)")
  .option("--jq <expr>", JQ_HELP)
  .addHelpText(
    "after",
    `
The answer is printed as JSON (other types as they come). An answer of 400 or more is printed too,
with one line on stderr (exit 2; 401 exit 3). The path stays on the API's own address.

Examples:
  $ ideally api Users/Me
  $ ideally api 'Projects?$select=id,projectName&$top=100' --paginate --jq '.value[] | .id'
  $ ideally api -X PATCH 'Projects(42)' -f researchNote='Wave 2' -F splitCellQuota=true
  $ ideally api -X GET /api/v1/Responses/QualResults -f projectId=42 -f confidence=90 --jq '.measures[0]'
JSON: the API's answer (with --paginate the first page's object with every page's value)`,
  )
  .action(async (path: string, _o, cmd: Command) => (await import("./commands/api.ts")).runApi(path, all(cmd)));

program
  .command("completion")
  .description("print a shell completion script")
  .argument("<shell>", "bash, zsh or fish")
  .addHelpText(
    "after",
    `
Examples:
  $ ideally completion bash > ~/.local/share/bash-completion/completions/ideally
  $ ideally completion zsh > "\${fpath[1]}/_ideally"
  $ ideally completion fish > ~/.config/fish/completions/ideally.fish`,
  )
  .action(async (shell: string) => {
    process.stdout.write((await import("./commands/completion.ts")).completion(program, shell));
  });

// The completion scripts' feed of ids and markets (hidden; see commands/complete-feed.ts).
program
  .command("__complete", { hidden: true })
  .argument("<kind>", "projects, clients, markets or commands")
  .option("--describe", "word<TAB>description lines")
  .action(async (kind: string, _o, cmd: Command) => (await import("./commands/complete-feed.ts")).runCompleteFeed(kind, all(cmd)));

const analyze = program
  .command("analyze")
  .description("run the analytics on a CSV file (header row; UTF-8, or windows-1252 when not valid UTF-8)")
  .addHelpText(
    "after",
    `
Columns (COL) are header names or 1-based column numbers. Runs locally: no sign-in needed.
A row with more or fewer fields than the header is left out with a warning naming its line.
Exit codes: 0 ok, 1 bad options or a bad input file (one line naming the file and line).`,
  );

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
prices) are counted as invalid. A price cell that is not a number is an error (exit 1).

Examples:
  $ ideally analyze psm prices.csv --too-cheap 1 --cheap 2 --expensive 3 --too-expensive 4
  $ ideally analyze psm prices.csv --too-cheap 1 --cheap 2 --expensive 3 --too-expensive 4 \\
      --pi-cheap 5 --pi-expensive 6 --json
  $ ideally analyze psm prices.csv --too-cheap tc --cheap c --expensive e --too-expensive te \\
      --pi-cheap pi_c --pi-expensive pi_e --weight wgt \\
      --pi-scale 'Sure=0.8,Likely=0.5,Maybe=0.3,Unlikely=0.1,Never=0'

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
  .option("--none <col>", "column marking \"none of these\" (1; 0 or blank: not): kept in the base, reached by nothing")
  .option("--json", "print the result as JSON")
  .addHelpText(
    "after",
    `
An item cell is 1 (accepts the item), 0 or blank (does not); anything else (-1, 0.5, 2, yes) is an
error (exit 1). Every respondent is in the base, also one who accepts nothing, and a row whose cells
are all blank is such a respondent (an empty line is no row). --none names the column of a
"none of these" answer: it is never an item (listing it in --items is refused), a respondent who
marks it and an item is an error, and the JSON adds its weighted share as "none".
All C(items, k) sets are searched up to 2,000,000 sets, beyond that a greedy search returns one.

Examples:
  $ ideally analyze turf flavours.csv --items item_1,item_2,item_3,item_4,item_5 --k 3
  $ ideally analyze turf flavours.csv --items 3,4,5,6,7,8 --weight wgt --k 2 --top 5 --json
  $ ideally analyze turf flavours.csv --items a,b,c,d --k 3 --depth 2

JSON: { results: [{ items: [names], reach, frequency }], none? }, best first`,
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
      --target 'race=White:0.6,Black:0.13,Hispanic:0.19,Other:0.08' --cap 5 --json

JSON: { converged, maxError, iterations, deff, nEff, min, max, weights: [...] }`,
  )
  .action(async (file: string, opts) => {
    const { runRake } = await import("./commands/analyze/rake.ts");
    await runRake(file, opts);
  });

analyze
  .command("compare")
  .description("compare groups' weighted top-box shares with design-based variance and adjusted p-values")
  .argument("<file>", "CSV file, long format: one row per respondent and rated option")
  .requiredOption("--value <col>", "the answer column: whole numbers on the scale (blank: not answered)")
  .requiredOption("--top <values>", "comma-separated values that count as top box, e.g. 1,2")
  .requiredOption("--group <col>", "the column naming the option (or cell, wave, market) rated")
  .option("--weight <col>", "respondent weight column")
  .option("--strata <col>", "stratum column (e.g. the market): stratified variance")
  .option("--cluster <col>", "cluster column (household, site, panel wave): the sampled units above the respondent, read within their stratum")
  .option("--respondent <col>", "respondent id column: a respondent's rows are paired")
  .option("--scale <lo-hi>", "the scale's points, e.g. 1-5: a value outside is refused; a --top point nobody chose is allowed")
  .option("--min-base <n>", "effective base (Kish n_eff) under which a group is flagged and not tested", "30")
  .option("--confidence <pct>", "90, 95 or 99", "95")
  .option("--adjust <method>", "multiple-comparison adjustment: bh, none or bonferroni", "bh")
  .option("--json", "print the result as JSON")
  .addHelpText(
    "after",
    `
A blank value is not an answer (the row stays in the design, outside its group). A value that is
not a whole number (five, 2.5), or is outside --scale, is an error (exit 1); 2.0 is read as 2. So
is a --top value no row has (without --scale), and a group whose weights are all 0. Without
--respondent every row is its own respondent (independent groups); without --cluster each
respondent is its own cluster. Clusters are read within their stratum (cluster 1 of two strata is
two clusters). A stratum of one cluster adds no variance and is warned about (R's survey refuses
it by default). A group under --min-base is flagged "low base" and none of its comparisons is
tested. deff is each group's design effect. docs/statistics.md has the methods.

Examples:
  $ ideally analyze compare ratings.csv --value answer --top 1,2 --group option
  $ ideally analyze compare ratings.csv --value answer --top 1,2 --group option \\
      --weight w --strata market --respondent respondent --adjust bonferroni --json
  $ ideally analyze compare homes.csv --value answer --top 1,2 --group option \\
      --weight w --strata site --cluster household --respondent respondent --scale 1-5

JSON: { groups: [{ group, n, clusters, nEff, share, se, deff, ci: [lo, hi], smallBase }],
        comparisons: [{ a, b, diff, se, tested, z, p, pAdjusted, significant, paired }],
        method: { ..., clusters, minBase, tests, lonelyPsu } }; z, p, pAdjusted null when not tested`,
  )
  .action(async (file: string, opts) => {
    const { runCompare } = await import("./commands/analyze/compare.ts");
    await runCompare(file, opts);
  });

// The request timeout (net.ts): `--timeout S` on every command that talks to the API and has no
// --timeout of its own (`projects watch`, `export`, `admin commands` and `login --sso` keep theirs for
// their whole wait; their requests take IDEALLY_TIMEOUT). Checked before the command runs.
const requestTimeout = new Set<Option>();
const withApi = (c: Command): Command[] => (["analyze", "completion", "__complete"].includes(c.name()) ? [] : [...(c.options.length || !c.commands.length ? [c] : []), ...c.commands.flatMap(withApi)]);
for (const c of program.commands.flatMap(withApi)) {
  if (c.options.some((x) => x.long === "--timeout")) continue;
  const opt = new Option("--timeout <seconds>", `give up when the API has not answered a request within this long (default ${DEFAULT_TIMEOUT_S}, or IDEALLY_TIMEOUT); exit 7`);
  requestTimeout.add(opt);
  c.addOption(opt);
}
program.hook("preAction", async (_program, action) => {
  // --json FIELDS and --jq of a listing: checked (exit 1) before any request.
  const json = action.options.find((x) => listingFields.has(x));
  const shaped = action.opts<{ json?: string | boolean; jq?: string }>();
  if (json && (shaped.json !== undefined || shaped.jq !== undefined)) {
    const [{ jsonShape }, { shapeJson }] = await Promise.all([import("./json-shape.ts"), import("./output.ts")]);
    shapeJson(jsonShape(shaped.json, shaped.jq, listingFields.get(json) ?? []));
    if (shaped.jq !== undefined && shaped.json === undefined) action.setOptionValue("json", true);
  }
  const ours = [action, ...(action.parent ? [action.parent] : [])].some((c) => c.options.some((x) => requestTimeout.has(x)));
  setRequestTimeout(ours ? action.optsWithGlobals<{ timeout?: string }>().timeout : undefined);
});

// A reader that stops early (`ideally projects list | head`) is not an error.
process.stdout.on("error", (e: NodeJS.ErrnoException) => (e.code === "EPIPE" ? process.exit(0) : undefined));

// `ideally --version` (also with --json or --api) is the version command.
const argv = [...process.argv];
const v = argv.findIndex((a, i) => i >= 2 && (a === "--version" || a === "-V"));
if (v >= 0 && argv.slice(2).every((a, i) => a === "--version" || a === "-V" || a === "--json" || a.startsWith("--api") || argv[i + 1] === "--api")) {
  argv.splice(v, 1);
  argv.splice(2, 0, "version", "--offline");
}

// No top-level await: the compiled binary is CommonJS bytecode (scripts/build-cli.ts).
program.parseAsync(argv).catch((e: unknown) => {
  if (e instanceof CliError) {
    process.stderr.write(`ideally: ${e.message}\n`);
    process.exit(e.exitCode);
  }
  process.stderr.write(`ideally: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exit(EXIT_USAGE);
});
