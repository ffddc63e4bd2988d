// The lookups for writing project files (markets, targets, categories, frameworks, industries) and
// `ideally clients` (moved from main.ts, issue 34).
import type { Command } from "commander";
import { pagingOptions } from "../paging.ts";
import { all, declaresGroup, JQ_HELP, jsonFields, JSON_HELP } from "./options.ts";

/** markets, targets, categories, frameworks and industries. */
export function registerReferenceCommands(program: Command): void {
  // Lookups for writing project files.
  pagingOptions(program.command("markets"), null)
    .description("the markets (regions) a project can field in, with the codes and currencies project files use")
    .option("--states", "include the US state markets")
    .addOption(jsonFields(["id", "name", "code", "currency", "parentId", "isUsState"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally markets\n  $ ideally markets --states --json | jq '.[] | select(.currency == \"USD\") | .code'\nJSON: [{ id, name, code, currency, parentId, isUsState }]",
    )
    .action(async (_o, cmd: Command) => (await import("./reference/lookups.ts")).runMarkets(all(cmd)));
  pagingOptions(program.command("targets"), null)
    .description("the target (quota) options by question, for every market or one")
    .option("--market <market>", "one market's options (name, code or id) and those of every market")
    .addOption(jsonFields(["id", "question", "questionCode", "label", "marketId", "market"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText(
      "after",
      "\nA project file's target `option:` takes the answer, 'Question: answer' or the id.\n\nExamples:\n  $ ideally targets --market NZ\n  $ ideally targets --market Australia --json | jq '.[] | select(.question == \"Region\")'\nJSON: [{ id, question, questionCode, label, marketId, market }]",
    )
    .action(async (_o, cmd: Command) => (await import("./reference/lookups.ts")).runTargets(all(cmd)));
  pagingOptions(program.command("categories"), null)
    .description("the product categories (two levels), for a project file's `category:`")
    .addOption(jsonFields(["id", "name", "parentId", "industry"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText("after", "\nExamples:\n  $ ideally categories\n  $ ideally categories --json | jq '.[] | select(.parentId == 1)'\nJSON: [{ id, name, parentId, industry }]")
    .action(async (_o, cmd: Command) => (await import("./reference/lookups.ts")).runCategories(all(cmd)));
  pagingOptions(program.command("frameworks"), null)
    .description("the research frameworks per project type, for a project file's `framework:`")
    .addOption(jsonFields(["id", "name", "title", "projectTypeId", "projectType", "description"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally frameworks\n  $ ideally frameworks --json | jq '.[] | select(.projectType == \"Idea\")'\nJSON: [{ id, name, title, projectTypeId, projectType, description }]",
    )
    .action(async (_o, cmd: Command) => (await import("./reference/lookups.ts")).runFrameworks(all(cmd)));
  pagingOptions(program.command("industries"), null)
    .description("the industries (SPEC's list), for a project file's `productType:`")
    .addOption(jsonFields(["code", "name"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText("after", "\nExamples:\n  $ ideally industries\n  $ ideally industries --json | jq -r '.[].code'\nJSON: [{ code, name }]")
    .action(async (_o, cmd: Command) => (await import("./reference/lookups.ts")).runIndustries(all(cmd)));
}

/** clients list and clients use. */
export function registerClientCommands(program: Command): void {
  const clients = program.command("clients").alias("client").description("the clients (teams, orgs, enterprises) you can act for");
  if (!declaresGroup(clients)) return;
  pagingOptions(clients.command("list").alias("ls").description("list them; * marks the current one"), 50)
    .addOption(jsonFields(["id", "name", "tier", "parentId", "current"]))
    .option("--jq <expr>", JQ_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally clients list\nJSON: [{ id, name, tier, parentId, current }]")
    .action(async (_o, cmd: Command) => (await import("./clients/list.ts")).runClientsList(all(cmd)));
  clients
    .command("use")
    .description("choose the client later commands act for")
    .argument("<client>", "client id or exact name")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExamples:\n  $ ideally clients use 3\n  $ ideally clients use 'Acme Team A'\nJSON: { id, name, tier }")
    .action(async (which: string, _o, cmd: Command) => (await import("./clients/use.ts")).runClientsUse(which, all(cmd)));
}
