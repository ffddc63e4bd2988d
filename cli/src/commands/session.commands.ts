// `ideally login`, `logout`, `whoami`, `version` and `auth`: the session (moved from main.ts, issue 34).
import { type Command, Option } from "commander";
import { all, declaresGroup, JSON_HELP } from "./options.ts";

/** login, logout, whoami, version, auth status and auth token. */
export function registerSessionCommands(program: Command): void {
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
    .action(async (_o, cmd: Command) => (await import("./session/login.ts")).runLogin(all(cmd)));

  program
    .command("logout")
    .description("end the session on the server and forget it here")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally logout\nJSON: { signedOut, serverSessionEnded }")
    .action(async (_o, cmd: Command) => (await import("./session/logout.ts")).runLogout(all(cmd)));

  program
    .command("whoami")
    .description("the signed-in account and the client commands act for")
    .option("--json", JSON_HELP)
    .addHelpText("after", "\nExample:\n  $ ideally whoami --json\nJSON: Users/Me plus { api, clientId }")
    .action(async (_o, cmd: Command) => (await import("./session/whoami.ts")).runWhoami(all(cmd)));

  program
    .command("version")
    .description("the CLI's version and commit, the API version it was built for, and the API's own")
    .option("--json", JSON_HELP)
    .addOption(new Option("--offline", "only what the CLI knows (what --version prints)").hideHelp())
    .addHelpText(
      "after",
      "\n`ideally --version` prints the CLI's version, commit and contract with no network.\n\nExamples:\n  $ ideally --version\n  $ ideally version --api https://ideally.example.com --json\nJSON: { cli, commit, contract, api, apiVersion, apiError? } (--version: { cli, commit, contract })",
    )
    .action(async (_o, cmd: Command) => (await import("./session/version.ts")).runVersion(all(cmd)));

  const auth = program.command("auth").description("the session: where it is kept and whether it still works");
  if (!declaresGroup(auth)) return;
  auth
    .command("status")
    .description("the API, account, client, token expiry and config path; exit 3 when not signed in, 2 or 7 when the API cannot be asked")
    .option("--json", JSON_HELP)
    .addHelpText(
      "after",
      "\nExamples:\n  $ ideally auth status\n  $ ideally auth status --json | jq .accessTokenExpiresAt\nJSON: { signedIn, token, api, email, userId, clientId, clientName, accessTokenExpiresAt, refreshable, server, error?, configPath }",
    )
    .action(async (_o, cmd: Command) => (await import("./session/status.ts")).runAuthStatus(all(cmd)));
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
    .action(async (_o, cmd: Command) => (await import("./session/status.ts")).runAuthToken(all(cmd)));
}
