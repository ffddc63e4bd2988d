// `ideally login|logout|whoami|clients` as a subprocess against a real server process: the session
// file (0600, under XDG_CONFIG_HOME), wrong password (exit 3), the automatic refresh of an expired
// or rejected access token, and the session ending.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { dirname } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
let cli: CliHarness;

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url);
  cli = cliHarness(server.base);
}, 120_000);
afterAll(async () => {
  cli?.dispose();
  await server?.stop();
  await tdb?.drop();
}, 30_000);

test("commands that need a session say so with exit 3", async () => {
  const r = await cli.run(["whoami"]);
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toBe("ideally: not signed in; run `ideally login`\n");
  expect(r.stdout).toBe("");
});

test("a wrong password is exit 3 with one line, and nothing is stored", async () => {
  const r = await cli.run(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "wrong-password\n" });
  expect(r.code).toBe(3);
  expect(r.stderr).toBe("ideally: email or password is incorrect\n");
  expect((await cli.run(["whoami"])).code, "still signed out").toBe(3);
});

test("login stores a 0600 session in XDG_CONFIG_HOME; whoami and clients use it", async () => {
  const login = await cli.json<{ email: string; clientId: number; api: string }>(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!\n" });
  expect(login).toEqual({ email: "user@acme.test", userId: 9004, api: server.base, clientId: 1003 } as never);
  expect(statSync(cli.configFile).mode & 0o777, "the session file is private").toBe(0o600);
  expect(statSync(dirname(cli.configFile)).mode & 0o777, "and so is its folder").toBe(0o700);
  const s = cli.config().session as { refreshToken: string; accessToken: string };
  expect(s.refreshToken.length, "the refresh cookie is kept").toBeGreaterThan(20);

  const me = await cli.json<{ email: string; clientId: number; client: { id: number } }>(["whoami"]);
  expect(me.email).toBe("user@acme.test");
  expect(me.client.id, "Users/Me answered for the chosen client").toBe(1003);
  const text = await cli.run(["whoami"]);
  expect(text.stdout).toContain("client   1003 Acme Team A (Team, User)");

  const list = await cli.json<{ id: number; name: string; current: boolean }[]>(["clients", "list"]);
  expect(list.find((c) => c.current)?.id).toBe(1003);
  const bad = await cli.run(["clients", "use", "Globex"]);
  expect(bad.code, "another tenant's client is not offered").toBe(1);
  expect(bad.stderr).toContain("no client 'Globex' among yours");
  expect((await cli.json<{ id: number }>(["clients", "use", "acme team a"])).id).toBe(1003);
});

test("an expired access token is refreshed before the call, a rejected one after a 401", async () => {
  // Its own session: the test passes alone (-t) and after any other.
  await cli.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  const before = cli.config().session as { refreshToken: string; accessToken: string; expiresAt: number };
  cli.writeConfig({ ...cli.config(), session: { ...before, expiresAt: 0 } });
  expect((await cli.json<{ email: string }>(["whoami"])).email).toBe("user@acme.test");
  const after = cli.config().session as { refreshToken: string; accessToken: string; expiresAt: number };
  expect(after.refreshToken, "the rotated refresh cookie was stored").not.toBe(before.refreshToken);
  expect(after.expiresAt).toBeGreaterThan(Date.now() + 10 * 60_000);

  cli.writeConfig({ ...cli.config(), session: { ...after, accessToken: "not.a.token" } });
  expect((await cli.json<{ email: string }>(["whoami"])).email, "401, refresh, retry").toBe("user@acme.test");
  expect((cli.config().session as { accessToken: string }).accessToken).not.toBe("not.a.token");

  // A refresh token used twice ends the session family (reuse detection): exit 3, signed out. The
  // first one of this test: its successor (after's) has been spent too, so no grace applies (a
  // rotated token whose successor is still unused is taken once within 30 s: record 0126). This
  // step used to present after's token, which passed only because the 401 step before it held the
  // CLI for its 30 s request timeout, past that leeway.
  const now = cli.config().session as Record<string, unknown>;
  const stale = { ...now, refreshToken: before.refreshToken, expiresAt: 0 };
  cli.writeConfig({ ...cli.config(), session: stale });
  const r = await cli.run(["whoami"]);
  expect(r.code, r.stderr).toBe(3);
  expect(r.stderr).toBe("ideally: the session has ended; run `ideally login`\n");
  expect(cli.config().session, "the dead session is forgotten").toBeUndefined();
});

test("processes refreshing at once share one refresh instead of spending the token twice", async () => {
  await cli.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  const s = cli.config().session as Record<string, unknown>;
  cli.writeConfig({ ...cli.config(), session: { ...s, expiresAt: 0 } });
  // Reuse detection would end the session if two of these spent the same refresh token.
  const runs = await Promise.all([1, 2, 3, 4].map(() => cli.run(["whoami", "--json"])));
  for (const r of runs) expect(r.code, r.stderr).toBe(0);
  expect((await cli.json<{ email: string }>(["whoami"])).email, "the session is still alive").toBe("user@acme.test");
}, 30_000);

test("logout ends the server session and removes the local one", async () => {
  await cli.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  const s = cli.config().session as { accessToken: string };
  expect(await cli.json(["logout"])).toEqual({ signedOut: true, serverSessionEnded: true });
  const res = await fetch(`${server.base}/api/v1/Users/Me`, { headers: { authorization: `Bearer ${s.accessToken}` } });
  expect(res.status, "the access token died with the session").toBe(401);
  expect((await cli.run(["whoami"])).code).toBe(3);
});
