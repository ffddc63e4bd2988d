// The CLI's other verbs as a subprocess against a server process: project update, clone, unsubmit,
// decline, delete and undelete; credits (balance, ledger, transfer); the staff's command runner
// with its job followed to the end; completion scripts; --help with examples on every command.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let ada: CliHarness;
let uma: CliHarness;
let sam: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-cmds-"));
const FILE = join(dir, "p.yaml");

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 5000, 'CLI top-up')`;
  server = await startServerProcess(tdb.url);
  [ada, uma, sam] = [cliHarness(server.base), cliHarness(server.base), cliHarness(server.base)];
  writeFileSync(FILE, "name: Verbs\ntype: Message\nframework: message-comprehension\nregions: [1]\ntestOptions:\n  - text: Say it plainly\n");
  await ada.json(["login", "--email", "admin@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await sam.json(["login", "--email", "staff@ideally.test", "--password-stdin"], { stdin: "Password123!" });
}, 120_000);
afterAll(async () => {
  for (const h of [ada, uma, sam]) h?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

test("update (a same-name rename is skipped), clone, unsubmit, decline, delete and undelete", async () => {
  const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", FILE]);
  const same = await uma.run(["projects", "update", String(id), "--name", "Verbs"]);
  expect(same.stdout, "SPEC 5: renaming to the same name is skipped").toBe(`Project ${id}: nothing changed\n`);
  const renamed = await uma.run(["projects", "update", String(id), "--name", "Verbs, plainly"]);
  expect(renamed.stdout, "SPEC 8's toast text").toBe("Project name has been updated to 'Verbs, plainly'\n");
  expect((await uma.run(["projects", "update", String(id)])).code, "nothing to change is a usage error").toBe(1);

  const clone = await uma.run(["projects", "clone", String(id)]);
  expect(clone.stdout).toMatch(/^Project 'Verbs, plainly \(copy\)' has been cloned\. \(id \d+\)\n$/);

  const sub = await uma.json<{ statusCode: number; charged: number }>(["projects", "submit", String(id), "--yes"]);
  expect(sub.statusCode).toBe(50);
  const back = await uma.json<{ statusCode: number; refunded: number }>(["projects", "unsubmit", String(id)]);
  expect(back.statusCode).toBe(0);
  expect(back.refunded, "the charge came back").toBe(sub.charged);

  await uma.json(["projects", "submit", String(id), "--yes"]);
  expect((await uma.run(["admin", "decline", String(id)])).code, "--reason is required").toBe(1);
  const declined = await ada.json<{ statusCode: number }>(["admin", "decline", String(id), "--reason", "Too plain", "--yes"]);
  expect(declined.statusCode).toBe(0);

  expect(await uma.json(["projects", "delete", String(id), "--yes"])).toEqual({ id, deleted: true });
  expect(
    (await uma.json<{ id: number }[]>(["projects", "list"])).some((p) => p.id === id),
    "gone from the list",
  ).toBe(false);
  expect(
    (await uma.json<{ id: number }[]>(["projects", "list", "--deleted"])).some((p) => p.id === id),
    "in the trash",
  ).toBe(true);
  expect((await uma.json<{ id: number }>(["projects", "undelete", String(id)])).id).toBe(id);
  expect((await uma.json<{ id: number }[]>(["projects", "list"])).some((p) => p.id === id)).toBe(true);

  const missing = await uma.run(["projects", "show", "999999"]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toMatch(/^ideally: reading project 999999: .*\(HTTP 404 NotFound\)\n$/);
  expect((await uma.run(["projects", "show", "abc"])).stderr).toBe("ideally: expected a project id, got 'abc'\n");
}, 60_000);

test("credits: the balance is the ledger's sum; a transfer moves it between teams", async () => {
  const bal = await ada.json<{ balance: number }>(["credits"]);
  const ledger = await ada.json<{ creditAmount: number }[]>(["credits", "ledger", "--top", "1000"]);
  expect(bal.balance).toBe(ledger.reduce((a, r) => a + r.creditAmount, 0));
  expect((await uma.run(["credits"])).code, "a User may not read the team's credits").toBe(2);
  const t = await ada.json<{ amount: number; from: { clientId: number; balance: number }; to: { clientId: number } }>([
    "--client",
    "1001",
    "credits",
    "transfer",
    "--from",
    "1003",
    "--to",
    "1004",
    "--amount",
    "40",
    "--note",
    "CLI",
    "--yes",
  ]);
  expect(t.amount).toBe(40);
  expect(t.from.balance).toBe(bal.balance - 40);
  expect((await ada.json<{ balance: number }>(["credits"])).balance).toBe(bal.balance - 40);
  expect((await ada.run(["credits", "transfer", "--from", "1003", "--to", "1004", "--amount", "-5", "--yes"])).code).toBe(1);
});

test("admin commands: listed from the contract, run as a job followed to its result", async () => {
  const list = await sam.json<{ name: string }[]>(["admin", "commands"]);
  expect(list.map((c) => c.name)).toContain("TestNextSchedule");
  const done = await sam.json<{ jobId: string; result: { dueCount: number } }>(["admin", "commands", "TestNextSchedule", "--set", "today=2026-12-01"]);
  expect(done.jobId).toMatch(/^[0-9a-f-]{36}$/);
  expect(typeof done.result.dueCount).toBe("number");
  const bad = await sam.run(["admin", "commands", "TestNextSchedule", "--set", "today=tomorrow"]);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toBe("ideally: TestNextSchedule: today: must match ^\\d{4}-\\d{2}-\\d{2}$\n");
  const denied = await uma.run(["admin", "commands", "TestNextSchedule"]);
  expect(denied.code).toBe(2);
  expect(denied.stderr).toContain("HTTP 403");
}, 60_000);

describe("help and completion", () => {
  const leaves = [
    "login",
    "logout",
    "whoami",
    "version",
    "auth status",
    "auth token",
    "markets",
    "targets",
    "categories",
    "frameworks",
    "industries",
    "clients list",
    "clients use",
    "projects list",
    "projects show",
    "projects validate",
    "projects create",
    "projects update",
    "projects clone",
    "projects submit",
    "projects unsubmit",
    "projects delete",
    "projects undelete",
    "projects watch",
    "results",
    "results verbatims",
    "export",
    "credits balance",
    "credits ledger",
    "credits transfer",
    "admin approve",
    "admin decline",
    "admin runs list",
    "admin runs close",
    "admin runs extend",
    "admin runs callbacks",
    "admin commands",
    "api",
    "completion",
    "analyze psm",
    "analyze turf",
    "analyze rake",
    "analyze compare",
  ];
  test("every command's --help has examples and names --json", async () => {
    for (const c of leaves) {
      const r = await uma.run([...c.split(" "), "--help"]);
      expect(r.code, c).toBe(0);
      expect(r.stdout, `${c} --help has examples`).toMatch(/\nExamples?:\n {2}\$ ideally /);
      // `api` prints the API's JSON always; completion prints a script.
      if (c !== "completion" && c !== "api") expect(r.stdout, `${c} takes --json`).toContain("--json");
    }
  }, 60_000);
  test("bash completion offers the command tree", async () => {
    const script = join(dir, "ideally.bash");
    writeFileSync(script, (await uma.run(["completion", "bash"])).stdout);
    const complete = (...words: string[]) =>
      Bun.spawnSync(["bash", "-c", `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _ideally; echo "\${COMPREPLY[@]}"`])
        .stdout.toString()
        .trim();
    expect(complete("ideally", "pro")).toBe("projects");
    expect(complete("ideally", "projects", "").split(" ")).toEqual(["list", "show", "validate", "create", "file", "apply", "update", "clone", "submit", "unsubmit", "delete", "undelete", "watch"]);
    expect(complete("ideally", "projects", "create", "--d")).toBe("--dry-run");
    expect(complete("ideally", "export", "42", "--f")).toBe("--format --force --filter");
  });
  test("zsh and fish scripts; another shell is a usage error", async () => {
    expect((await uma.run(["completion", "zsh"])).stdout).toStartWith("#compdef ideally\n");
    const fish = (await uma.run(["completion", "fish"])).stdout;
    expect(fish).toContain("complete -c ideally -n '__fish_seen_subcommand_from projects project p' -a watch");
    const bad = await uma.run(["completion", "tcsh"]);
    expect([bad.code, bad.stderr]).toEqual([1, "ideally: completion: expected bash, zsh or fish, got 'tcsh'\n"]);
  });
});
