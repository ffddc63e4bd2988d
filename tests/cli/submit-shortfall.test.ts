// `projects submit` of a design the panel cannot fill (issue 36): the CLI prints what each market
// can deliver and submits only with --accept-shortfall; without it nothing is charged (the API's
// 409 guards the --json path too). Against a real server process. The figures are worked by hand
// (docs/decisions.md "Feasibility"): New Zealand's panel reaches 6,000 people in a field period and
// 51% are female (Stats NZ 2023), so floor(6,000 x 0.51) = 3,060 of 3,061 completes can be delivered.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const T = 1003;
let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
const dir = mkdtempSync(join(tmpdir(), "ideally-shortfall-"));
const FILE = join(dir, "short.yaml");

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'CLI top-up')`;
  server = await startServerProcess(tdb.url);
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["clients", "use", String(T)]);
  writeFileSync(FILE, "name: Short\ntype: Idea\nframework: idea-default\nregions: [New Zealand]\nsampleSize: 3061\ntargets:\n  - option: Female\ntestOptions:\n  - text: One\n");
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

const ledgerRows = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from credit_logs where client_id = ${T}`)[0]!.n;

test("without --accept-shortfall: the shortfall is printed, exit 2, nothing charged; the --json path is refused by the API", async () => {
  const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", FILE]);
  const before = await ledgerRows();
  const r = await uma.run(["projects", "submit", String(id), "--yes"], { env: { COLUMNS: "60" } });
  expect(r.code, r.stderr).toBe(2);
  expect(r.stdout).toStartWith("Not feasible as designed:\n");
  expect(r.stdout.replace(/\s+/g, " ")).toContain("so about 3,060 completes can be delivered");
  expect(r.stdout.replace(/\s+/g, " ")).toContain("About 3,060 of 3,061 completes can be delivered in New Zealand. Each run fields for 14 days from its launch");
  for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(60);
  expect(r.stderr).toBe(`ideally: project ${id} was not submitted: the panel cannot deliver the completes ordered (New Zealand 3,060 of 3,061); add --accept-shortfall to submit it anyway\n`);
  const json = await uma.run(["projects", "submit", String(id), "--yes", "--json"]);
  expect(json.code).toBe(2);
  expect(json.stderr).toContain("Not feasible: about 3,060 of 3,061 completes can be delivered in New Zealand");
  expect(await ledgerRows(), "nothing charged").toBe(before);
  const [{ s }] = await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${id}`;
  expect(s).toBe(0);
});

test("with --accept-shortfall: submitted, and the field period and the refund rule are printed", async () => {
  const { id } = await uma.json<{ id: number }>(["projects", "create", "--from", FILE]);
  const r = await uma.run(["projects", "submit", String(id), "--yes", "--accept-shortfall"], { env: { COLUMNS: "80" } });
  expect(r.code, r.stderr).toBe(0);
  const flat = r.stdout.replace(/\s+/g, " ");
  expect(flat).toContain(`Project ${id} 'Short': 0 Draft -> 50 Awaiting Approval; charged`);
  expect(r.stdout).toStartWith("Not feasible as designed:\n");
  expect(flat).toContain("Shortfall accepted: New Zealand 3,060 of 3,061 completes can be delivered; refunded as stated above.");
  expect(r.stdout.replace(/\s+/g, " ")).toContain("then closes with the completes it has; the shortfall is refunded when the run is processed");
  for (const line of r.stdout.split("\n")) expect(line.length, line).toBeLessThanOrEqual(80);
  const json = await uma.json<{ shortfall: { fieldPeriodDays: number } }>([
    "projects",
    "submit",
    String((await uma.json<{ id: number }>(["projects", "create", "--from", FILE])).id),
    "--yes",
    "--json",
    "--accept-shortfall",
  ]);
  expect(json.shortfall.fieldPeriodDays).toBe(14);
});
