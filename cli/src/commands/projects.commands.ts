// `ideally projects`: create, change, submit and follow projects (moved from main.ts, issue 34).
import type { Command } from "commander";
import { pagingOptions } from "../paging.ts";
import { all, declaresGroup, JQ_HELP, jsonFields, JSON_HELP, YES_HELP } from "./options.ts";

/** The projects command and its subcommands. */
export function registerProjectCommands(program: Command): void {
  const projects = program.command("projects").aliases(["project", "p"]).description("create, change, submit and follow projects");
  if (!declaresGroup(projects)) return;
  registerProjectAuthoring(projects);
  registerProjectFiles(projects);
  registerProjectEditing(projects);
  registerProjectLifecycle(projects);
}

/** projects list, show, validate and create. */
function registerProjectAuthoring(projects: Command): void {
  pagingOptions(projects.command("list").alias("ls").description("the client's projects, newest first, a page at a time"), 50)
    .option("--status <codes>", "only these status codes, e.g. 0 or 800,900")
    .option("--search <text>", "name contains")
    .option("--deleted", "the deleted projects instead (undelete restores them)")
    .addOption(jsonFields(["id", "projectName", "projectType", "statusCode", "createdAt"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText(
      "after",
      "\nMore rows than a page: a hint on stderr (showing 1-50 of 312; ...), stdout keeps only the rows.\n\nExamples:\n  $ ideally projects list --status 800,900\n  $ ideally projects list --search oat --json\n  $ ideally projects list --limit 20 --page 2\n  $ ideally projects list --all --json | jq length\nJSON: [{ id, projectName, projectType, statusCode, createdAt }]",
    )
    .action(async (_o, cmd: Command) => (await import("./projects/list.ts")).runList(all(cmd)));
  projects
    .command("show")
    .description("a project's set-up: regions, test options, custom questions")
    .argument("<id>", "project id")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally projects show 42\nJSON: the project with { regions, testOptions, customQuestions }")
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/show.ts")).runShow(id, all(cmd)));
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
    .action(async (file: string, _o, cmd: Command) => (await import("./projects/create.ts")).runValidate(file, all(cmd)));
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
    .action(async (_o, cmd: Command) => (await import("./projects/create.ts")).runCreate(all(cmd)));
}

/** projects file and apply: a project's set-up as a project file, and a file's markets and targets applied to a draft. */
function registerProjectFiles(projects: Command): void {
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
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/file-out.ts")).runFileOut(id, all(cmd)));
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
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/file-out.ts")).runApply(id, all(cmd)));
}

/** projects update and clone. */
function registerProjectEditing(projects: Command): void {
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
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runUpdate(id, all(cmd)));
  projects
    .command("clone")
    .description("copy a project (settings, regions, test options, questions, add-ons) as a new draft")
    .argument("<id>", "project id")
    .option("--name <name>", "the copy's name (default '{name} (copy)')")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally projects clone 42 --name 'Oat bars NZ'\nJSON: { id, projectName, statusCode, clientId, duplicatedFromProjectId }")
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runClone(id, all(cmd)));
}

/** projects submit, unsubmit, delete, undelete and watch. */
function registerProjectLifecycle(projects: Command): void {
  projects
    .command("submit")
    .description("submit a draft for fielding: shows the cost, asks, then charges it (may wait for an Admin's approval)")
    .argument("<id>", "project id")
    .option("--accept-shortfall", "submit a design the panel cannot fill anyway: each run closes short at its field end and the shortfall is refunded (without it such a design is not submitted)")
    .option("-y, --yes", YES_HELP)
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally projects submit 42\n  $ ideally projects submit 42 --accept-shortfall\n  $ ideally projects submit 42 --yes --json | jq .charged\nJSON: { projectId, projectName, previousStatusCode, statusCode, status, allowedActions, charged?, refunded?, balanceAfter?, shortfall? }",
    )
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runSubmit(id, all(cmd)));
  projects
    .command("unsubmit")
    .description("take a submitted project back to draft (the charge is refunded)")
    .argument("<id>", "project id")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally projects unsubmit 42\nJSON: { projectId, projectName, previousStatusCode, statusCode, status, allowedActions, charged?, refunded?, balanceAfter? }")
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runUnsubmit(id, all(cmd)));
  projects
    .command("delete")
    .alias("rm")
    .description("delete a project after asking (it can be restored with undelete)")
    .argument("<id>", "project id")
    .option("-y, --yes", YES_HELP)
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExamples:\n  $ ideally projects delete 42\n  $ ideally projects delete 42 --yes\nJSON: { id, deleted }")
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runDelete(id, all(cmd)));
  projects
    .command("undelete")
    .description("restore a deleted project")
    .argument("<id>", "project id")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally projects undelete 42\nJSON: the project")
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runUndelete(id, all(cmd)));
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
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/watch.tsx")).runWatch(id, all(cmd)));
}
