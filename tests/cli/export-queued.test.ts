// `ideally export` when the API queues the export (issue 38, record 0134): beyond the bound on
// exports in flight, ExportCsv answers 202 with a job; the CLI says so in one line, follows the job
// on its channel and saves the very file a synchronous export gives. The account's one allowed
// export (SYNC_EXPORTS_PER_USER=1) is held in the database by a table lock, so the CLI's export is
// the one beyond the bound; nothing is timed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cliHarness, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";
import { connect } from "../../api/src/db/client.ts";

let tdb: TestDb;
let server: ServerProcess;
let uma: CliHarness;
let token = "";
const dir = mkdtempSync(join(tmpdir(), "ideally-export-queued-"));

beforeAll(async () => {
  tdb = await createTestDb();
  server = await startServerProcess(tdb.url, { SYNC_EXPORTS_PER_USER: "1" });
  uma = cliHarness(server.base);
  await uma.json(["login", "--email", "user@acme.test", "--password-stdin"], { stdin: "Password123!" });
  await uma.json(["clients", "use", "1003"]);
  token = (uma.config().session as { accessToken: string }).accessToken;
}, 120_000);
afterAll(async () => {
  uma?.dispose();
  rmSync(dir, { recursive: true, force: true });
  await server?.stop();
  await tdb?.drop();
}, 30_000);

async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await check()) return true;
    await Bun.sleep(50);
  }
  return check();
}

test("a queued CSV export: one line saying so, then the file the synchronous export gives", async () => {
  const exportCsv = () => fetch(`${server.base}/api/v1/Projects(1001)/ExportCsv`, { headers: { authorization: `Bearer ${token}`, clientId: "1003" } });
  const file = join(dir, "queued.csv");
  const queuedJobs = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from pgboss.job where name = 'exports.data'`)[0]!.n;
  const waitingOnLock = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]!.n;
  const locker = connect(tdb.url, { max: 1 });
  const locked = await locker.reserve();
  let held: Promise<Response>;
  let run: ReturnType<CliHarness["run"]>;
  try {
    await locked`begin`;
    await locked`lock table project_survey_sessions in access exclusive mode`;
    held = exportCsv();
    expect(await until(async () => (await waitingOnLock()) === 1, 20_000), "the account's one export is in flight").toBe(true);
    run = uma.run(["export", "1001", "-o", file]);
    expect(await until(async () => (await queuedJobs()) === 1, 60_000), "the CLI's export was queued").toBe(true);
    await locked`commit`;
  } finally {
    await locked`rollback`.catch(() => {});
    locked.release();
    await locker.end({ timeout: 1 });
  }
  const sync = await (await held).text();
  expect(sync).toStartWith("Respondent,Market,");
  const r = await run;
  expect(r.code, r.stderr).toBe(0);
  expect(r.stderr).toMatch(/^queued: exports already running for this account or client; following job [0-9a-f-]{36}\n$/);
  expect(r.stdout).toBe(`Saved ${file} (${Buffer.byteLength(sync)} bytes)\n`);
  expect(readFileSync(file, "utf8")).toBe(sync);
}, 180_000);
