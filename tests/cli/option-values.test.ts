// Every option value is checked before any request (issue 38): bad values reached the server and
// came back as exit 2 (`--benchmark 99`, `--filter from=2020-13-01`, `--page 0`, `--page-size 500`,
// `update --launch-date 2027-13-01`). Here the API is a TCP listener that counts connections and
// never answers: a usage error (exit 1) with no connection proves the check came first. The bounds
// are the contract's (contracts/openapi.json) and SPEC's: benchmark types 1-8 and 10 (SPEC 5),
// Verbatim's pageSize "at most 200", project and brand names at most 200 characters.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";

let connections = 0;
let listener: Bun.TCPSocketListener<undefined>;
let base = "";
let cli: CliHarness;

beforeAll(() => {
  listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { open: () => void connections++, data: () => {} } });
  base = `http://127.0.0.1:${listener.port}`;
  cli = cliHarness(base);
  mkdirSync(`${cli.home}/ideally`, { recursive: true });
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const jwt = `e30.${Buffer.from(JSON.stringify({ exp, sub: "9004" })).toString("base64url")}.sig`;
  cli.writeConfig({ api: base, session: { api: base, email: "user@acme.test", userId: 9004, accessToken: jwt, expiresAt: exp * 1000, refreshToken: null, clientId: 1003 } });
});
afterAll(() => {
  listener?.stop(true);
  cli?.dispose();
});

const BENCH = "expected a benchmark type: 1 all customers, 2 your team, 3 industry, 4-7 NPD launch weeks, 8 category, 10 parent category, 0 none (a flat 50%)";

const cases: [string[], string][] = [
  [["results", "42", "--benchmark", "99"], `--benchmark: ${BENCH}; got '99'`],
  [["results", "42", "--benchmark", "9"], `--benchmark: ${BENCH}; got '9'`],
  [["results", "42", "--benchmark", "-1"], `--benchmark: ${BENCH}; got '-1'`],
  [["export", "42", "--format", "xlsx", "-o", "-", "--benchmark", "11"], `--benchmark: ${BENCH}; got '11'`],
  [["results", "42", "--filter", "from=2020-13-01"], "--filter from: expected a date YYYY-MM-DD, got '2020-13-01'"],
  [["results", "42", "--filter", "to=2026-02-29"], "--filter to: expected a date YYYY-MM-DD, got '2026-02-29'"],
  [["results", "42", "--filter", "from=2026-04-31"], "--filter from: expected a date YYYY-MM-DD, got '2026-04-31'"],
  [["results", "42", "--filter", "from=2026-03-01", "--filter", "to=2026-02-01"], "--filter: from 2026-03-01 is after to 2026-02-01"],
  [["results", "42", "--segment", "x"], "--segment: expected a segment id, got 'x'"],
  [["export", "42", "--format", "csv", "-o", "-", "--filter", "from=2020-13-01"], "--filter from: expected a date YYYY-MM-DD, got '2020-13-01'"],
  [["results", "verbatims", "42", "--question", "7", "--page", "0"], "--page: expected a whole number from 1 to 999999999, got '0'"],
  [["results", "verbatims", "42", "--question", "7", "--page-size", "500"], "--page-size: expected a whole number from 1 to 200, got '500'"],
  [["results", "verbatims", "42", "--question", "7", "--page-size", "0"], "--page-size: expected a whole number from 1 to 200, got '0'"],
  [["results", "verbatims", "42", "--question", "7", "--sentiment", "Happy"], "--sentiment: expected Positive, Neutral, Negative or Mixed, got 'Happy'"],
  [["results", "verbatims", "42", "--filter", "from=2020-13-01"], "--filter from: expected a date YYYY-MM-DD, got '2020-13-01'"],
  [["results", "verbatims", "42", "--question", "x"], "expected a project question id, got 'x'"],
  [["projects", "update", "42", "--launch-date", "2027-13-01"], "--launch-date: expected a date YYYY-MM-DD, got '2027-13-01'"],
  [["projects", "update", "42", "--launch-date", "2027-02-29"], "--launch-date: expected a date YYYY-MM-DD, got '2027-02-29'"],
  [["projects", "update", "42", "--name", "x".repeat(201)], "--name: at most 200 characters, got 201"],
  [["projects", "update", "42", "--name", ""], "--name: the name cannot be empty"],
  [["projects", "update", "42", "--brand", "b".repeat(201)], "--brand: at most 200 characters, got 201"],
  [["projects", "update", "x", "--name", "N"], "expected a project id, got 'x'"],
  [["projects", "list", "--page", "0"], "--page: expected a whole number from 1 to 1000000, got '0'"],
  [["projects", "list", "--limit", "1001"], "--limit: expected a whole number from 1 to 1000, got '1001'"],
];

test("each bad value is one line and exit 1, and nothing is sent", async () => {
  for (const [args, message] of cases) {
    const r = await cli.run([...args, "--timeout", "2"]);
    expect([r.code, r.stderr, r.stdout], args.join(" ")).toEqual([1, `ideally: ${message}\n`, ""]);
  }
  expect(connections, "no request reached the API").toBe(0);
}, 120_000);

test("the edges are accepted: benchmark 10, 8 and 0 (the 'None' line the results page appends), a leap day, a page size of 200", async () => {
  // Accepted values go on to the API, which never answers here: exit 7 after the timeout, not 1.
  for (const args of [
    ["results", "42", "--benchmark", "10"],
    ["results", "42", "--benchmark", "0"],
    ["results", "42", "--benchmark", "8", "--filter", "from=2028-02-29", "--filter", "to=2028-02-29"],
    ["results", "verbatims", "42", "--question", "7", "--page", "1", "--page-size", "200"],
    ["projects", "update", "42", "--launch-date", "2028-02-29", "--name", "x".repeat(200)],
  ]) {
    const before = connections;
    const r = await cli.run([...args, "--timeout", "0.5"]);
    expect(r.code, `${args.join(" ")}: ${r.stderr}`).toBe(7);
    expect(connections, args.join(" ")).toBeGreaterThan(before);
  }
}, 60_000);
