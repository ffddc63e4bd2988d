// `ideally admin`: approvals, survey runs and the command runner, for provider staff (moved from
// main.ts, issue 34).
import { type Command, Option } from "commander";
import { pagingOptions } from "../paging.ts";
import { all, collect, declaresGroup, JQ_HELP, jsonFields, JSON_HELP, YES_HELP } from "./options.ts";

/** admin approve, decline, runs (registerRunsCommands), waves and commands. */
export function registerAdminCommands(program: Command): void {
  const admin = program.command("admin").description("provider staff: approvals, survey runs, waves' sample and the command runner");
  if (!declaresGroup(admin)) return;
  admin
    .command("approve")
    .description("approve a project one step (50 -> 100 by a team Admin or staff; 100 -> 200 -> 300 by staff)")
    .argument("<id>", "project id")
    .option("--to <status>", "repeat until the project reaches this status (e.g. 300, ready for fielding)")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExamples:\n  $ ideally admin approve 42\n  $ ideally admin approve 42 --to 300\nJSON: [LifecycleResult, ...] one per step")
    .action(async (id: string, _o, cmd: Command) => (await import("./admin/approve.ts")).runApprove(id, all(cmd)));
  admin
    .command("decline")
    .description("send a submitted project back to draft with a reason (the charge is refunded)")
    .argument("<id>", "project id")
    .requiredOption("--reason <text>", "told to the submitter")
    .option("-y, --yes", YES_HELP)
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin decline 42 --reason 'Concept B names a competitor'\n  $ ideally admin decline 42 --reason 'Concept B names a competitor' --yes --json\nJSON: LifecycleResult",
    )
    .action(async (id: string, _o, cmd: Command) => (await import("./projects/lifecycle.ts")).runDecline(id, all(cmd)));
  registerRunsCommands(admin);
  admin
    .command("waves")
    .description("a project's waves (one per market and date) and where each one's sample comes from; --supplier sets it on the waves without a run (staff)")
    .argument("<project>", "project id")
    .option("--supplier <id|none>", "field the waves without a run by this sample supplier (none: the project's own panel)")
    .option("--region <id>", "only this market's waves (with --supplier)")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin waves 42\n  $ ideally admin waves 42 --supplier 3\n  $ ideally admin waves 42 --supplier none --region 1 --json\nJSON: [ProjectScheduleState { id, regionId, regionName, waveNumber, scheduleDate, isCustomerPanel, sampleSupplierId, surveyRunId, launchState, ... }]",
    )
    .action(async (project: string, _o, cmd: Command) => (await import("./admin/waves.ts")).runWaves(project, all(cmd)));
  pagingOptions(admin.command("commands").description("the command runner: list the commands, or run one as a job with a progress bar"), null)
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
    .action(async (name: string | undefined, _o, cmd: Command) => (await import("./admin/commands.ts")).runCommands(name, all(cmd)));
}

/** admin runs: list, close, extend, callbacks and allocations. */
function registerRunsCommands(admin: Command): void {
  const runs = admin.command("runs").description("survey runs (one fielding in one market): list a project's, close one now, move its field end, its supplier callbacks and allocations (staff)");
  pagingOptions(runs.command("list").alias("ls").description("a project's survey runs, with the ids close and extend take"), null)
    .argument("<project>", "project id")
    .addOption(jsonFields(["id", "regionId", "region", "surveyStatusId", "sampleSource", "targetCompletes", "launchedAt", "closedAt"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin runs list 42\n  $ ideally admin runs list 42 --json | jq '.[] | select(.surveyStatusId == 50) | .id'\nJSON: [{ id, regionId, region: { regionName }, surveyStatusId, sampleSource, targetCompletes, launchedAt, closedAt }]",
    )
    .action(async (project: string, _o, cmd: Command) => (await import("./admin/runs.ts")).runRunsList(project, all(cmd)));
  runs
    .command("close")
    .description("close a Live or Testing run now with the completes it has (processing refunds the shortfall); staff only")
    .argument("<run>", "survey run id (`ideally admin runs list PROJECT`)")
    .option("-y, --yes", "go ahead without asking (needed when stdin is not a terminal)")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin runs close 7\n  $ ideally admin runs close 7 --yes --json | jq .closedAt\nJSON: SurveyRunState { id, surveyStatusId, surveyStatus, fieldingState, fieldEndAt, closedAt, closedReason, ... }",
    )
    .action(async (run: string, _o, cmd: Command) => (await import("./admin/runs.ts")).runRunsClose(run, all(cmd)));
  runs
    .command("extend")
    .description("move a Live or Testing run's field end (later to extend, earlier to shorten); a stalled run is watched afresh; staff only")
    .argument("<run>", "survey run id (`ideally admin runs list PROJECT`)")
    .requiredOption("--until <when>", "the new field end: 2026-12-01 (that day's end, UTC), 2026-12-01T18:00:00Z, or +3d / +12h from now")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin runs extend 7 --until +3d\n  $ ideally admin runs extend 7 --until 2027-01-15T18:00:00+13:00 --json\nJSON: SurveyRunState { id, surveyStatusId, surveyStatus, fieldingState, fieldEndAt, stalledAt, ... }",
    )
    .action(async (run: string, _o, cmd: Command) => (await import("./admin/runs.ts")).runRunsExtend(run, all(cmd)));
  runs
    .command("callbacks")
    .description("a supplier run's server-to-server callbacks with their attempts; --resend sends a failed one again (a fresh series of 8 attempts); staff only")
    .argument("<run>", "survey run id (`ideally admin runs list PROJECT`)")
    .option("--resend <id>", "send this callback again (its id from the list); a delivered one is refused")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin runs callbacks 7\n  $ ideally admin runs callbacks 7 --resend 31\n  $ ideally admin runs callbacks 7 --json | jq '.[] | select(.state == \"failed\") | .id'\nJSON: [SupplierCallback { id, rid, kind, outcome, state, series, attempts: [{ attempt, series, httpStatus, error }] }] or, with --resend, the callback",
    )
    .action(async (run: string, _o, cmd: Command) => (await import("./admin/runs.ts")).runRunsCallbacks(run, all(cmd)));
  runs
    .command("allocations")
    .description("a supplier run's suppliers with their shares, caps and completes; --set replaces them (staff)")
    .argument("<run>", "survey run id (`ideally admin runs list PROJECT`)")
    .addOption(
      new Option("--set <supplier=share>", "a supplier and its percent of the run's completes (repeat; the shares sum to 100; the first is the run's supplier)").argParser(collect).default([]),
    )
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally admin runs allocations 7\n  $ ideally admin runs allocations 7 --set 3=60 --set 4=40\n  $ ideally admin runs allocations 7 --json | jq '.[] | select(.completes >= .cap) | .supplierName'\nJSON: [SampleAllocation { sampleSupplierId, supplierName, share, cap, completes, inProgress }]",
    )
    .action(async (run: string, _o, cmd: Command) => (await import("./admin/runs.ts")).runRunsAllocations(run, all(cmd)));
}
