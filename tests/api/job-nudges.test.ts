// The jobs' nudges make one job, however often they are sent at once. Found while the fielding tick
// got its nudge at approval (decision record 0142): on pg-boss 12's standard queues a singletonKey
// alone dedupes nothing, so the supplier callbacks' nudge (sent after every supplier respondent's
// end) and the fielding tick's follow-up ("one follow-up tick queued however many ticks overlap")
// each made a job per send. They are throttled by slot now (singletonSeconds). A real pg-boss queue;
// the jobs are counted in its table.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { ensureQueues } from "../../api/src/jobs/workers.ts";
import { fieldingTickJob, queueRefillTick } from "../../api/src/domains/fielding/fielding.jobs.ts";
import { nudgeSupplierCallbacks, supplierCallbacksJob } from "../../api/src/domains/fielding/suppliers.jobs.ts";

let tdb: TestDb;
let queue: Queue;

beforeAll(async () => {
  tdb = await createTestDb({ fixtures: false });
  queue = await startQueue(tdb.url, () => {});
  await ensureQueues(queue, [fieldingTickJob, supplierCallbacksJob]);
}, 120_000);
afterAll(async () => {
  await queue?.stop({ graceful: false, timeout: 2000 });
  await tdb.drop();
});

const waiting = async (name: string) => (await tdb.db<{ n: number }[]>`select count(*)::int as n from pgboss.job where name = ${name} and state = 'created'`)[0]!.n;

test("ten supplier-callback nudges at once make at most two jobs (this slot's and the next's), not ten", async () => {
  await tdb.db`delete from pgboss.job where name = ${supplierCallbacksJob.name}`;
  const ids = await Promise.all(Array.from({ length: 10 }, () => nudgeSupplierCallbacks(queue)));
  const made = await waiting(supplierCallbacksJob.name);
  expect(made, "jobs waiting").toBeGreaterThanOrEqual(1);
  // A send whose slot is taken goes to the next slot; the slot after that is not reached within one burst.
  expect(made, "jobs waiting").toBeLessThanOrEqual(2);
  expect(ids.filter((id) => id !== null).length, "sends answered with a job's id").toBe(made);
});

test("ten follow-up ticks queued at once make one job (two if the burst straddles a slot's end)", async () => {
  await tdb.db`delete from pgboss.job where name = ${fieldingTickJob.name}`;
  await Promise.all(Array.from({ length: 10 }, () => queueRefillTick(queue, { publicUrl: "http://ideally.test" })));
  const made = await waiting(fieldingTickJob.name);
  expect(made).toBeGreaterThanOrEqual(1);
  expect(made).toBeLessThanOrEqual(2);
});
