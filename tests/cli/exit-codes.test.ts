// The CLI's exit codes (docs/cli.md "Exit codes"), one command of each class, each with its one
// line on stderr. No server is needed for these: the API is a closed port (refused), a listener
// that never answers (timeout) or absent (signed out). The codes an answering API gives are tested
// where that API runs: 2 for a refusal in tests/cli/scripting.test.ts ("an API error ..."), 3 for
// an ended session in session.test.ts, 4, 5 and 6 (projects watch) in watch.test.ts.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";

let hung: Bun.TCPSocketListener<undefined>;
let hungBase = "";
let closedBase = "";
let cli: CliHarness;

beforeAll(() => {
  hung = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => {} } });
  hungBase = `http://127.0.0.1:${hung.port}`;
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data: () => {} } });
  closedBase = `http://127.0.0.1:${probe.port}`;
  probe.stop(true);
  cli = cliHarness(closedBase);
  mkdirSync(`${cli.home}/ideally`, { recursive: true });
});
afterAll(() => {
  hung?.stop(true);
  cli?.dispose();
});

function signIn(api: string) {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const jwt = `e30.${Buffer.from(JSON.stringify({ exp, sub: "9004" })).toString("base64url")}.sig`;
  cli.writeConfig({ api, session: { api, email: "user@acme.test", userId: 9004, accessToken: jwt, expiresAt: exp * 1000, refreshToken: null, clientId: 1003 } });
}

test("0: done (a command that needs no API)", async () => {
  const r = await cli.run(["industries", "--json", "code"]);
  expect([r.code, r.stderr]).toEqual([0, ""]);
});

test("1: usage, a bad option value, an unknown option, a missing argument", async () => {
  signIn(closedBase);
  for (const [args, line] of [
    [["projects", "list", "--limit", "0"], "ideally: --limit: expected a whole number from 1 to 1000, got '0'"],
    [["projects", "list", "--nope"], "ideally: unknown option '--nope' (see --help)"],
    [["projects", "show"], "ideally: missing required argument 'id' (see --help)"],
    [["projects", "delete", "42"], "ideally: delete project 42: add --yes to confirm (stdin is not a terminal, so there is no one to ask)"],
  ] as const) {
    const r = await cli.run([...args]);
    expect([r.code, r.stderr], args.join(" ")).toEqual([1, `${line}\n`]);
  }
});

test("2: the API cannot be reached", async () => {
  signIn(closedBase);
  const r = await cli.run(["whoami"]);
  expect([r.code, r.stderr]).toEqual([2, `ideally: cannot reach the API at ${closedBase}: the connection was refused (is the server running, and is the address right?)\n`]);
});

test("3: not signed in", async () => {
  cli.writeConfig({});
  const r = await cli.run(["projects", "list"]);
  expect([r.code, r.stderr]).toEqual([3, "ideally: not signed in; run `ideally login`\n"]);
});

test("7: the API did not answer within the request timeout", async () => {
  signIn(hungBase);
  const r = await cli.run(["whoami", "--timeout", "0.5"], { env: { IDEALLY_API_URL: hungBase } });
  expect([r.code, r.stderr]).toEqual([7, `ideally: the API at ${hungBase} did not answer within 0.5 s (--timeout SECONDS or IDEALLY_TIMEOUT to wait longer)\n`]);
});
