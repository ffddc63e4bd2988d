// The CLI against an API that is down, hung or far away (issue 38): a request timeout with one
// line and exit 7, network failures in the product's words (exit 2), a bad API address as a usage
// error (exit 1) before anything is sent, and `--version` with no network at all. The servers here
// are raw TCP listeners in this process that count the connections they get: one accepts and never
// answers, one sends the headers and part of a body and then stops, and a closed port refuses.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";

type Listener = { base: string; connections: number; stop(): void };

/** A TCP server that accepts and then does `onData` with each request (nothing: it never answers). */
function listener(onData: (s: { write(d: string): void }) => void = () => {}): Listener {
  const state = { connections: 0 };
  const l = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open() {
        state.connections++;
      },
      data(socket) {
        onData(socket);
      },
    },
  });
  return {
    base: `http://127.0.0.1:${l.port}`,
    get connections() {
      return state.connections;
    },
    stop: () => l.stop(true),
  };
}

let hung: Listener;
let stalls: Listener;
let closedPort: string;
let cli: CliHarness;

/** A stored session for `api` (never checked by a server here). */
function sessionFor(h: CliHarness, api: string) {
  const exp = Math.floor(Date.now() / 1000) + 3600;
  const jwt = `e30.${Buffer.from(JSON.stringify({ exp })).toString("base64url")}.sig`;
  h.writeConfig({ api, session: { api, email: "user@acme.test", userId: 9004, accessToken: jwt, expiresAt: exp * 1000, refreshToken: null, clientId: 1003 } });
}

beforeAll(() => {
  hung = listener();
  // Headers and the start of a JSON body, then nothing.
  stalls = listener((s) => s.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 1000\r\n\r\n{"value": ['));
  const probe = listener();
  closedPort = probe.base;
  probe.stop();
  cli = cliHarness(hung.base);
  // The harness keeps XDG_CONFIG_HOME; the config folder must exist before writeConfig.
  require("node:fs").mkdirSync(`${cli.home}/ideally`, { recursive: true });
});
afterAll(() => {
  hung?.stop();
  stalls?.stop();
  cli?.dispose();
});

test("a request the API never answers ends after --timeout with one line and exit 7", async () => {
  sessionFor(cli, hung.base);
  const r = await cli.run(["projects", "list", "--timeout", "1"]);
  expect(r.stderr).toBe(`ideally: the API at ${hung.base} did not answer within 1 s (--timeout SECONDS or IDEALLY_TIMEOUT to wait longer)\n`);
  expect([r.code, r.stdout]).toEqual([7, ""]);
  expect(hung.connections, "the request was sent").toBeGreaterThan(0);
});

test("login against a hung API ends too (--timeout, or IDEALLY_TIMEOUT)", async () => {
  for (const [args, env, s] of [
    [["--timeout", "0.5"], {}, "0.5"],
    [[], { IDEALLY_TIMEOUT: "0.5" }, "0.5"],
    [["--timeout", "1"], { IDEALLY_TIMEOUT: "0.5" }, "1"],
  ] as const) {
    const r = await cli.run(["login", "--email", "user@acme.test", "--password-stdin", ...args], { stdin: "Password123!", env });
    expect(r.stderr).toBe(`ideally: the API at ${hung.base} did not answer within ${s} s (--timeout SECONDS or IDEALLY_TIMEOUT to wait longer)\n`);
    expect(r.code).toBe(7);
  }
});

test("an answer that stops half-way is a timeout too, not a hang", async () => {
  sessionFor(cli, stalls.base);
  const r = await cli.run(["projects", "list", "--timeout", "1"], { env: { IDEALLY_API_URL: stalls.base } });
  expect(r.stderr).toBe(`ideally: the API at ${stalls.base} did not answer within 1 s (--timeout SECONDS or IDEALLY_TIMEOUT to wait longer)\n`);
  expect(r.code).toBe(7);
});

// A 401 the CLI answers with a refresh is never read: its body must not keep the request timeout
// armed, which held every such command for the whole timeout (30 s by default) after its work was
// done. A child process with an hour's timeout gets an answer, leaves its body unread and must end on
// its own; the guard (a minute) only stops a process that hangs.
test("an answer whose body is never read holds the process for no timeout", async () => {
  const script = `
    import { netFetch, setRequestTimeout } from ${JSON.stringify(require("node:path").resolve(import.meta.dir, "../../cli/src/net.ts"))};
    setRequestTimeout("3600");
    const srv = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("x".repeat(100), { status: 401 }) });
    const res = await netFetch(\`http://127.0.0.1:\${srv.port}\`)(\`http://127.0.0.1:\${srv.port}/\`);
    srv.stop(true);
    console.log(res.status);
  `;
  const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" });
  const guard = setTimeout(() => proc.kill(), 60_000);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(guard);
  expect([out, err, code, proc.signalCode]).toEqual(["401\n", "", 0, null]);
}, 90_000);

test("a bad --timeout or IDEALLY_TIMEOUT is a usage error before any request", async () => {
  sessionFor(cli, hung.base);
  const before = hung.connections;
  for (const [args, env, message] of [
    [["projects", "list", "--timeout", "0"], {}, "--timeout: expected seconds above 0 and at most 86400, got '0'"],
    [["projects", "list", "--timeout", "soon"], {}, "--timeout: expected seconds above 0 and at most 86400, got 'soon'"],
    [["projects", "list", "--timeout", "86401"], {}, "--timeout: expected seconds above 0 and at most 86400, got '86401'"],
    [["whoami"], { IDEALLY_TIMEOUT: "-1" }, "IDEALLY_TIMEOUT: expected seconds above 0 and at most 86400, got '-1'"],
  ] as const) {
    const r = await cli.run([...args], { env });
    expect([r.code, r.stderr], args.join(" ")).toEqual([1, `ideally: ${message}\n`]);
  }
  expect(hung.connections, "nothing was sent").toBe(before);
});

test("a refused connection is one line in the product's words (exit 2)", async () => {
  sessionFor(cli, closedPort);
  for (const args of [
    ["projects", "list"],
    ["login", "--email", "user@acme.test", "--password-stdin"],
  ]) {
    const r = await cli.run(args, { env: { IDEALLY_API_URL: closedPort }, stdin: "pw" });
    expect(r.stderr, args[0]).toBe(`ideally: cannot reach the API at ${closedPort}: the connection was refused (is the server running, and is the address right?)\n`);
    expect(r.code).toBe(2);
  }
});

test("an API address that is not a URL is a usage error naming where it came from", async () => {
  for (const [args, env, from, given] of [
    [["login", "--email", "a@b.c", "--password-stdin", "--api", "localhost:3000"], {}, "--api", "localhost:3000"],
    [["login", "--email", "a@b.c", "--password-stdin"], { IDEALLY_API_URL: "not a url" }, "IDEALLY_API_URL", "not a url"],
    [["whoami", "--api", "ftp://example.com"], {}, "--api", "ftp://example.com"],
  ] as const) {
    const r = await cli.run([...args], { env, stdin: "pw" });
    expect(r.stderr).toBe(`ideally: ${from}: expected the API's address like https://ideally.example.com, got '${given}'\n`);
    expect(r.stderr).not.toContain("Failed to construct");
    expect(r.code).toBe(1);
  }
});

test("--version needs no network: with the API hung it prints the CLI's version at once", async () => {
  sessionFor(cli, hung.base);
  const before = hung.connections;
  for (const args of [["--version"], ["-V"], ["--version", "--json"]]) {
    const r = await cli.run(args);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe("");
    if (args.includes("--json")) expect(JSON.parse(r.stdout)).toEqual({ cli: expect.stringMatching(/^\d+\.\d+\.\d+$/), commit: expect.anything(), contract: expect.stringMatching(/^v\d+$/) });
    else expect(r.stdout).toMatch(/^ideally \d+\.\d+\.\d+/);
  }
  expect(hung.connections, "no connection was made").toBe(before);
});

test("auth status is not a success when the API cannot be asked: 2 refused, 7 no answer", async () => {
  sessionFor(cli, closedPort);
  const down = await cli.run(["auth", "status"], { env: { IDEALLY_API_URL: closedPort } });
  expect(down.code).toBe(2);
  expect(down.stdout).toContain("session       not checked");
  expect(down.stderr).toBe(`ideally: cannot reach the API at ${closedPort}: the connection was refused (is the server running, and is the address right?)\n`);
  sessionFor(cli, hung.base);
  const hanging = await cli.run(["auth", "status", "--timeout", "1", "--json"]);
  expect(hanging.code).toBe(7);
  expect(JSON.parse(hanging.stdout)).toMatchObject({ server: "unreachable", api: hung.base });
});

test("a damaged config file keeps the API address it remembered, and says so", async () => {
  const { readFileSync, writeFileSync, existsSync } = require("node:fs") as typeof import("node:fs");
  const damaged = `{"api": "${closedPort}", "session": {"api": "${closedPort}", "accessTok`;
  writeFileSync(cli.configFile, damaged);
  const r = await cli.run(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "pw", env: { IDEALLY_API_URL: "" } });
  const lines = r.stderr.trimEnd().split("\n");
  expect(lines[0]).toStartWith(`ideally: warning: ignoring the damaged config file ${cli.configFile} (`);
  expect(lines[0]).toEndWith(`); kept its API address ${closedPort}; \`ideally login\` writes a new one`);
  expect(lines[1], "the remembered API, not localhost:3000").toBe(`ideally: cannot reach the API at ${closedPort}: the connection was refused (is the server running, and is the address right?)`);
  expect(r.code).toBe(2);
  expect(readFileSync(cli.configFile, "utf8"), "nothing was written").toBe(damaged);
  expect(existsSync(`${cli.configFile}.damaged`)).toBe(false);
});
