// Scale-out on one PostgreSQL: two API processes with their job workers off (RUN_WORKERS=0) and one
// `bun run worker` process. A notification raised through process B reaches a websocket on process
// A (NOTIFY fan-out); a job enqueued through A waits while no worker runs and is run by the worker
// process once it starts (so neither API process ran it).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { liveCall, liveSignIn, openSocket, submitNewProject, startServerProcess, startWorkerProcess, type ServerProcess, type WorkerProcess, liveMetrics } from "../helpers/live.ts";

let tdb: TestDb;
let a: ServerProcess;
let b: ServerProcess;
let worker: WorkerProcess | undefined;
const T = 1003;

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Scale-out top-up')`;
  [a, b] = await Promise.all([startServerProcess(tdb.url, { RUN_WORKERS: "0" }), startServerProcess(tdb.url, { RUN_WORKERS: "0" })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop(), worker?.stop()]);
  await tdb.drop();
}, 60_000);

test("a notification raised through process B reaches a websocket connected to process A", async () => {
  const uma = await liveSignIn(b.base, "user@acme.test");
  const ada = await liveSignIn(a.base, "admin@acme.test");
  const sock = await openSocket(a.base, ada);
  const id = await submitNewProject(b.base, uma, T, "Two processes");
  const m = await sock.next((x) => x.event === "SurveySubmittedForApproval" && (x.data as { projectId?: number }).projectId === id);
  expect(m.channel, "the admin's own channel, served by process A").toBe("user-9003");
  // The stored notification is the same one, readable through either process.
  const stored = await liveCall(a.base, ada, null, "GET", "/api/v1/Notifications/All");
  expect(
    stored.body.value.some((n: { id: number }) => n.id === (m.data as { notificationId: number }).notificationId),
    "stored notification listed",
  ).toBe(true);
  sock.ws.close();
}, 60_000);

test("a job enqueued through process A waits for a worker process, which runs it once", async () => {
  const sam = await liveSignIn(a.base, "staff@ideally.test");
  const r = await liveCall(a.base, sam, null, "POST", "/api/CommandRunner/TestNotification", { userId: 9005, title: "Run by the worker" });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const jobId = r.body.jobId as string;
  const state = async () => (await tdb.db<{ state: string }[]>`select state from pgboss.job where id = ${jobId}`)[0]?.state;
  await Bun.sleep(4000); // two API processes' polling intervals: neither may take it
  expect(await state(), "no API process runs jobs with RUN_WORKERS=0").toBe("created");
  // /metrics of either API process shows the waiting job (queue depth is read from pg-boss).
  const until0 = Date.now() + 15_000;
  let metrics = "";
  while (!metrics.includes('ideally_job_queue_jobs{queue="commands.run",state="ready"} 1') && Date.now() < until0) {
    metrics = await liveMetrics(b.base);
    await Bun.sleep(500);
  }
  expect(metrics, "queue depth in /metrics").toContain('ideally_job_queue_jobs{queue="commands.run",state="ready"} 1');
  expect(metrics, "database connections in /metrics").toMatch(/ideally_db_connections\{application="ideally",state="idle"\} \d+/);
  worker = await startWorkerProcess(tdb.url);
  const until = Date.now() + 30_000;
  while ((await state()) !== "completed" && Date.now() < until) await Bun.sleep(200);
  expect(await state(), `worker output: ${worker.output()}`).toBe("completed");
  const rows = await tdb.db`select id from notifications where user_id = 9005 and data->>'jobId' = ${jobId}`;
  expect(rows.length, "one notification for the job").toBe(1);
}, 90_000);
