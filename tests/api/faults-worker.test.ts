// Fault: a worker process killed in the middle of a job. The job (staff's TestNotification) is
// held mid-transaction by a table lock this test takes, the worker is killed with SIGKILL, a second
// worker process starts: the dead worker's heartbeat goes stale, the job is failed and retried, and
// the notification exists exactly once.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { liveCall, liveSignIn, startServerProcess, startWorkerProcess, type ServerProcess, type WorkerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let api: ServerProcess;
const workers: WorkerProcess[] = [];

beforeAll(async () => {
  tdb = await createTestDb();
  api = await startServerProcess(tdb.url, { RUN_WORKERS: "0" });
}, 120_000);
afterAll(async () => {
  await Promise.all([api?.stop(), ...workers.map((w) => w.stop())]);
  await tdb.drop();
}, 60_000);

async function until<T>(what: string, ms: number, probe: () => Promise<T | undefined | null | false>): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(200);
  }
}

test("a worker killed mid-job: the job is retried by another worker and its effect happens once", async () => {
  const first = await startWorkerProcess(tdb.url);
  workers.push(first);
  const sam = await liveSignIn(api.base, "staff@ideally.test");

  // Hold the job inside its transaction: inserts into notifications wait for this lock.
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const holder = tdb.db.begin(async (tx) => {
    await tx`lock table notifications in share mode`;
    await released;
  });
  await Bun.sleep(100);

  const r = await liveCall(api.base, sam, null, "POST", "/api/CommandRunner/TestNotification", { userId: 9005, title: "Survives a crash" });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const jobId = r.body.jobId as string;
  await until("the job to wait on the lock", 20_000, async () => {
    const [w] = await tdb.db`select 1 from pg_stat_activity where datname = ${tdb.name} and wait_event_type = 'Lock' and query ilike '%insert into notifications%'`;
    return !!w;
  });
  const [active] = await tdb.db<{ state: string; retry_count: number }[]>`select state, retry_count from pgboss.job where id = ${jobId}`;
  expect(active, "the job is running on the first worker").toEqual({ state: "active", retry_count: 0 });

  first.proc.kill("SIGKILL");
  await first.proc.exited;
  release();
  await holder;

  const second = await startWorkerProcess(tdb.url);
  workers.push(second);
  const done = await until("the retried job to complete", 60_000, async () => {
    const [j] = await tdb.db<{ state: string; retry_count: number }[]>`select state, retry_count from pgboss.job where id = ${jobId}`;
    return j?.state === "completed" ? j : undefined;
  });
  expect(done.retry_count, "completed on a retry, not by the killed worker").toBeGreaterThanOrEqual(1);
  const rows = await tdb.db`select id from notifications where user_id = 9005 and data->>'jobId' = ${jobId}`;
  expect(rows.length, "the notification was raised exactly once").toBe(1);
  // The killed worker's transaction never committed; the retry completed the command once.
  const audits = await tdb.db<{ event: string }[]>`select event from data_events_log where entity_type = 'Command' and data->>'jobId' = ${jobId} order by id`;
  expect(
    audits.map((a) => a.event),
    "requested once, completed once",
  ).toEqual(["CommandRequested", "CommandCompleted"]);
}, 120_000);
