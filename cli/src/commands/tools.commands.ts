// `ideally api` (any call with the session) and the shell completion (moved from main.ts, issue 34).
import { type Command, Option } from "commander";
import { all, collect, JQ_HELP } from "./options.ts";

/** api, completion and the hidden __complete. */
export function registerToolCommands(program: Command): void {
  program
    .command("api")
    .description("an authenticated request to any API path, as `gh api` (the session's token and client go with it)")
    .argument("<path>", "/api/v1/... (or another path the API answers) as it is, else a path under /api/v1/, with or without its leading slash (Projects, /Users/Me)")
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
    .action(async (path: string, _o, cmd: Command) => (await import("./api.ts")).runApi(path, all(cmd)));

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
      process.stdout.write((await import("./completion.ts")).completion(program, shell));
    });

  // The completion scripts' feed of ids and markets (hidden; see commands/complete-feed.ts).
  program
    .command("__complete", { hidden: true })
    .argument("<kind>", "projects, clients, markets or commands")
    .option("--describe", "word<TAB>description lines")
    .action(async (kind: string, _o, cmd: Command) => (await import("./complete-feed.ts")).runCompleteFeed(kind, all(cmd)));
}
