// Issue 24, 12: completion is dynamic. The bash script (sourced in a real bash) offers project ids,
// client ids and market codes asked of a running server through the hidden `ideally __complete`,
// fixed words for option values (--format <TAB> is csv xlsx pptx, not file names), and files where
// a file goes. The expected words come from the database.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CLI_MAIN, cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-completion-"));
let script = "";

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  script = join(dir, "ideally.bash");
  writeFileSync(script, (await uma.run(["completion", "bash"])).stdout);
  writeFileSync(join(dir, "prices.csv"), "a\n1\n");
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

/** What bash offers for the words (the last one being completed), with `ideally` the CLI under test. */
function complete(...words: string[]): string[] {
  const fn = `ideally() { ${JSON.stringify(process.execPath)} run ${JSON.stringify(CLI_MAIN)} "$@"; }`;
  const r = Bun.spawnSync(
    ["bash", "-c", `${fn}; source ${script}; cd ${dir}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _ideally; printf '%s\\n' "\${COMPREPLY[@]}"`],
    {
      env: { ...process.env, XDG_CONFIG_HOME: uma.home, IDEALLY_API_URL: server.base },
    },
  );
  return r.stdout.toString().split("\n").filter(Boolean);
}

test("project ids for a command that takes one, from the session's client", async () => {
  const ids = (await tdb.db<{ id: number }[]>`select id from projects where client_id = 1003 and deleted_at is null order by id desc`).map((r) => String(r.id));
  expect(ids.length).toBeGreaterThan(1);
  expect(complete("ideally", "projects", "show", "")).toEqual(ids);
  expect(complete("ideally", "results", "10")).toEqual(ids.filter((i) => i.startsWith("10")));
  expect(complete("ideally", "results", "v"), "and its subcommand").toEqual(["verbatims"]);
  expect(complete("ideally", "admin", "runs", "list", "")).toEqual(ids);
  // After an alias as after the name (record 0133).
  expect(complete("ideally", "p", "show", "")).toEqual(ids);
  expect(complete("ideally", "project", "rm", "")).toEqual(ids);
  expect(complete("ideally", "admin", "runs", "ls", "")).toEqual(ids);
});

test("option values: fixed words, market codes, client ids", async () => {
  expect(complete("ideally", "export", "1001", "--format", "")).toEqual(["csv", "xlsx", "pptx"]);
  expect(complete("ideally", "export", "1001", "-o", "pri")).toEqual(["prices.csv"]);
  const codes = (await tdb.db<{ code: string }[]>`select region_code as code from regions where not is_us_state and region_code like 'N%' order by sort_order, id`).map((r) => r.code);
  expect(codes).toContain("NZ");
  expect(complete("ideally", "targets", "--market", "N")).toEqual(codes);
  // The clients the account can act for, as the API lists them.
  const token = (uma.config().session as { accessToken: string }).accessToken;
  const listed = (await (await fetch(`${server.base}/api/v1/Clients?$select=id&$orderby=name,id`, { headers: { authorization: `Bearer ${token}` } })).json()) as { value: { id: number }[] };
  expect(listed.value.length).toBeGreaterThan(0);
  expect(complete("ideally", "clients", "use", "")).toEqual(listed.value.map((c) => String(c.id)));
  expect(complete("ideally", "--client", "100").length).toBeGreaterThan(0);
  expect(complete("ideally", "completion", "")).toEqual(["bash", "zsh", "fish"]);
  expect(complete("ideally", "analyze", "psm", "pri")).toEqual(["prices.csv"]);
});

test("the feed is quiet: signed out it offers nothing, exit 0; it is not in --help", async () => {
  const out = cliHarness(server.base);
  try {
    const r = await out.run(["__complete", "projects"]);
    expect([r.code, r.stdout, r.stderr]).toEqual([0, "", ""]);
    expect((await out.run(["--help"])).stdout).not.toContain("__complete");
  } finally {
    out.dispose();
  }
  const described = await uma.run(["__complete", "markets", "--describe"]);
  expect(described.stdout).toContain("NZ\tNew Zealand\n");
  const fish = (await uma.run(["completion", "fish"])).stdout;
  expect(fish).toContain("complete -c ideally -n '__fish_seen_subcommand_from show' -x -a '(ideally __complete projects --describe 2>/dev/null)'");
  expect(fish).toContain("-l format -x -a 'csv xlsx pptx'");
});
