// `ideally credits`: balance, ledger and transfer (moved from main.ts, issue 34).
import type { Command } from "commander";
import { pagingOptions } from "../paging.ts";
import { all, declaresGroup, JQ_HELP, jsonFields, JSON_HELP, YES_HELP } from "./options.ts";

/** credits balance, ledger and transfer. */
export function registerCreditCommands(program: Command): void {
  // The balance is `credits balance`, the default: `credits` itself has no options, so `credits ledger
  // --json FIELDS` reaches the ledger (an option of `credits` would take it first).
  const credits = program
    .command("credits")
    .description("the client's credits: balance (default), ledger, transfer")
    .addHelpText("after", "\nExamples:\n  $ ideally credits\n  $ ideally credits ledger --limit 20\n  $ ideally credits transfer --from 2 --to 3 --amount 500 --note 'Q3 budget'");
  if (!declaresGroup(credits)) return;
  credits
    .command("balance", { isDefault: true })
    .description("the balance, what is available and pending, this month's spend (`ideally credits` alone)")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExamples:\n  $ ideally credits\n  $ ideally credits balance --json\nJSON: ClientSubStats' client figures { balance, available, pendingCharges, spendThisMonth, ... }")
    .action(async (_o, cmd: Command) => (await import("./credits/balance.ts")).runBalance(all(cmd)));
  pagingOptions(credits.command("ledger").description("the credit log, newest first (the balance is its sum)"), 50)
    .option("--project <id>", "only this project's rows")
    .addOption(jsonFields(["id", "type", "creditAmount", "projectId", "description", "transferId", "relatedClientId", "createdAt", "creditLogType"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally credits ledger --project 42\n  $ ideally credits ledger --all --json | jq 'map(.creditAmount) | add'\nJSON: [{ id, type, creditAmount, projectId, description, transferId, relatedClientId, createdAt, creditLogType }]",
    )
    .action(async (_o, cmd: Command) => (await import("./credits/ledger.ts")).runLedger(all(cmd)));
  credits
    .command("transfer")
    .description("move credits between two clients of one enterprise (an Admin above both, or staff)")
    .requiredOption("--from <client>", "client id giving")
    .requiredOption("--to <client>", "client id receiving")
    .requiredOption("--amount <n>", "credits, more than 0")
    .option("--note <text>", "why")
    .option("-y, --yes", YES_HELP)
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nAn Admin transfers within the client acted for: --client names the org or enterprise above both.\n\nExamples:\n  $ ideally --client 1 credits transfer --from 3 --to 4 --amount 250\n  $ ideally --client 1 credits transfer --from 3 --to 4 --amount 250 --yes --json\nJSON: { transferId, amount, from: { clientId, creditLogId, balance }, to: {...} }",
    )
    .action(async (_o, cmd: Command) => (await import("./credits/transfer.ts")).runTransfer(all(cmd)));
}
