// The job channel: enqueue in the caller's transaction, workers with progress/success/error
// events over NOTIFY, retries with backoff, idempotent handlers, graceful stop.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { withTenant } from "../../api/src/db/tx.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { defineJob, enqueueJob, registerWorkers } from "../../api/src/jobs/workers.ts";
import {
  EVENTS_CHANNEL,
  MAX_PAYLOAD_BYTES,
  encodeEvent,
  publish,
  publishMany,
  subscribe,
  type ChannelEvent,
  type NotifiedEvent,
  type ErrorData,
  type ProgressData,
  type SuccessData,
} from "../../api/src/jobs/channel.ts";

const FAST = { pollingIntervalSeconds: 0.5, retryDelay: 1, retryBackoff: true } as const;
const ACME_USER = { userId: 9004, clientId: 1003 };

let tdb: TestDb;
let queue: Queue;
let unsubscribe: () => Promise<void>;
const events: NotifiedEvent[] = [];
const queueLog: string[] = [];
const outcomes: string[] = [];

/** Per job id: when each attempt started, and how many times the handler ran. */
const attempts = new Map<string, number[]>();
const note = (jobId: string) => attempts.set(jobId, [...(attempts.get(jobId) ?? []), Date.now()]);

const echo = defineJob<{ n: number }, { doubled: number }>(
  "test.echo",
  async ({ data, jobId, progress }) => {
    note(jobId);
    await progress(50, "half way");
    return { doubled: data.n * 2 };
  },
  FAST,
);

const alwaysFails = defineJob<{ why: string }>(
  "test.always-fails",
  async ({ data, jobId }) => {
    note(jobId);
    throw new Error(data.why);
  },
  { ...FAST, retryLimit: 1 },
);

// Fails after its side effect on the first attempt, as a crash after a write would: the retry
// must not repeat the effect. The write is keyed by the job id, so it is idempotent by design.
const flaky = defineJob<{ amount: number }, { ok: true }>(
  "test.flaky",
  async ({ data, jobId, attempt, db }) => {
    note(jobId);
    await db`insert into test_job_effects (job_id, amount) values (${jobId}, ${data.amount}) on conflict (job_id) do nothing`;
    if (attempt === 1) throw new Error("transient failure");
    return { ok: true };
  },
  { ...FAST, retryLimit: 2 },
);

const progressive = defineJob<Record<string, never>>(
  "test.progress",
  async ({ progress }) => {
    await progress(-5);
    await progress(33.6);
    await progress(250);
    const nanRefused = await progress(Number.NaN).then(
      () => false,
      () => true,
    );
    return { nanRefused };
  },
  FAST,
);

let slowFinished = false;
const slow = defineJob<{ ms: number }>(
  "test.slow",
  async ({ data, jobId, progress }) => {
    note(jobId);
    await progress(0, "started");
    await Bun.sleep(data.ms);
    slowFinished = true;
    return { slept: data.ms };
  },
  FAST,
);

// A backlog of a drainBacklog kind is worked back to back; its poll (4 s) is longer than the test waits.
const drained: number[] = [];
const backlog = defineJob<{ n: number }>(
  "test.backlog",
  async ({ data }) => {
    drained.push(data.n);
    return null;
  },
  { pollingIntervalSeconds: 4, drainBacklog: true },
);

async function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, ms = 8000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}; events: ${JSON.stringify(events)}; log: ${queueLog.join(" | ")}`);
    await Bun.sleep(20);
  }
}

const eventsOf = (jobId: string) => events.filter((e) => e.channel === `job-${jobId}`);
const eventOf = <D>(jobId: string, name: string, pred: (d: D) => boolean = () => true) =>
  eventsOf(jobId).find((e) => e.event === name && pred(e.data as D)) as (NotifiedEvent & { data: D }) | undefined;

async function send<T extends object>(job: Parameters<typeof enqueueJob<T>>[2], input: T, origin = ACME_USER): Promise<string> {
  const id = await tdb.db.begin((tx) => enqueueJob(queue, tx, job, input, origin));
  expect(id, "a job id").toMatch(/^[0-9a-f-]{36}$/);
  return id!;
}

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`create table test_job_effects (job_id uuid primary key, amount int not null)`;
  unsubscribe = await subscribe(tdb.url, (e) => events.push(e));
  queue = await startQueue(tdb.url, { log: (m) => queueLog.push(m) });
  await registerWorkers(queue, tdb.db, [echo, alwaysFails, flaky, progressive, slow, backlog], { log: (m) => queueLog.push(m), onOutcome: (q, o) => outcomes.push(`${q} ${o}`) });
});

afterAll(async () => {
  await queue?.stop({ graceful: false, timeout: 1000 }).catch(() => {});
  await unsubscribe?.();
  await tdb?.drop();
});

describe("the channel", () => {
  // Declared events (contracts/events.ts): ProjectUpdated goes on a client channel with a projectId.
  const updated = (clientId: number, projectId: number) => ({ channel: `client-${clientId}` as const, event: "ProjectUpdated" as const, data: { projectId } });

  test("an event published in a transaction arrives at commit, never after a rollback", async () => {
    await tdb.db
      .begin(async (tx) => {
        await publish(tx, updated(1, 1));
        throw new Error("roll back");
      })
      .catch(() => {});
    await tdb.db.begin((tx) => publish(tx, updated(2, 2)));
    const got = await waitFor("the committed event", () => events.find((e) => e.channel === "client-2"));
    expect(got, "the committed event arrives whole").toEqual({ channel: "client-2", event: "ProjectUpdated", data: { projectId: 2 } });
    expect(
      events.some((e) => e.channel === "client-1"),
      "the rolled-back event is never sent",
    ).toBe(false);
  });

  test("publishMany: several events in one statement arrive in the order given, each whole", async () => {
    const evs = [3, 1, 2].map((projectId) => updated(7, projectId));
    await publishMany(tdb.db, evs);
    await waitFor("the three events", () => events.filter((e) => e.channel === "client-7").length === 3);
    expect(events.filter((e) => e.channel === "client-7")).toEqual(evs);
    await publishMany(tdb.db, []);
  });

  test("an event over NOTIFY's payload limit goes out without its data, marked truncated", async () => {
    const big = { projectId: 1, action: "é".repeat(MAX_PAYLOAD_BYTES) };
    const payload = encodeEvent({ channel: "client-1003", event: "ProjectUpdated", data: big, clientId: 1003 });
    expect(new TextEncoder().encode(payload).length).toBeLessThan(8000);
    expect(JSON.parse(payload)).toEqual({ channel: "client-1003", event: "ProjectUpdated", data: null, clientId: 1003, truncated: true });
    await publish(tdb.db, { channel: "client-1003", event: "ProjectUpdated", data: big });
    const got = await waitFor("the truncated event", () => events.find((e) => e.channel === "client-1003"));
    expect("truncated" in got && got.truncated, "the receiver learns the data was dropped").toBe(true);
  });

  test("an event its declaration refuses is not published: unknown name, wrong channel, wrong data, malformed channel", () => {
    // Built as plain values, as a caller that got round the types would send them.
    const refused = (ev: unknown) => () => encodeEvent(ev as ChannelEvent);
    expect(refused({ channel: "user-1", event: "Nope", data: null })).toThrow("undeclared event: Nope on user-1: event: Invalid discriminator value. Expected 'SurveySubmittedForApproval'");
    expect(refused({ channel: "user-1", event: "ProjectUpdated", data: { projectId: 1 } })).toThrow("undeclared event: ProjectUpdated on user-1: event: ");
    expect(refused({ channel: "client-1", event: "ProjectUpdated", data: { projectId: "1" } })).toThrow(
      "undeclared event: ProjectUpdated on client-1: data.projectId: Invalid input: expected number, received string",
    );
    expect(refused({ channel: "client-1", event: "IncidenceEstimateUpdated", data: { projectId: 1, incidenceEstimate: 1.5, previous: null } })).toThrow("data.incidenceEstimate: Too big");
    const ready = { notificationId: 1, title: "Ready", body: null, url: null };
    expect(refused({ channel: "user-1; drop", event: "ProjectReady", data: ready })).toThrow("undeclared event: ProjectReady on user-1; drop: channel: ");
    expect(refused({ channel: "job-1", event: "Success", data: { jobId: "1", name: "x", result: null } })).toThrow("undeclared event: Success on job-1: channel: ");
  });

  test("a foreign or undeclared payload on the channel is ignored", async () => {
    const before = events.length;
    await tdb.db`select pg_notify(${EVENTS_CHANNEL}, 'not json')`;
    // An undeclared pairing (ProjectUpdated goes to a client channel) and a declared one with data of the wrong type.
    await tdb.db`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ channel: "user-3", event: "ProjectUpdated", data: { projectId: 3 } })})`;
    await tdb.db`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ channel: "client-3", event: "ProjectUpdated", data: 3 })})`;
    await tdb.db`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ ...updated(3, 3), userId: "nine" })})`;
    await tdb.db`select pg_notify(${EVENTS_CHANNEL}, ${JSON.stringify({ ...updated(3, 4), undeclared: 1, data: { projectId: 4, undeclared: 2 } })})`;
    await waitFor("the valid event after the foreign ones", () => events.find((e) => e.channel === "client-3"));
    expect(events.slice(before), "only the valid event is delivered, with its declared fields only").toEqual([{ channel: "client-3", event: "ProjectUpdated", data: { projectId: 4 } }]);
  });
});

describe("jobs", () => {
  test("a job enqueued in a transaction that rolls back never exists; committed, it runs", async () => {
    let rolledBack: string | null = null;
    await tdb.db
      .begin(async (tx) => {
        rolledBack = await enqueueJob(queue, tx, echo, { n: 1 }, ACME_USER);
        throw new Error("roll back");
      })
      .catch(() => {});
    expect(rolledBack, "send() returned an id inside the transaction").toMatch(/^[0-9a-f-]{36}$/);
    const committed = await send(echo, { n: 21 });
    await waitFor("the committed job's Success", () => eventOf(committed, "Success"));
    expect(await queue.findJobs(echo.name, { id: rolledBack! }), "the rolled-back job does not exist").toEqual([]);
    expect(attempts.has(rolledBack!), "the rolled-back job never ran").toBe(false);
    expect(eventsOf(rolledBack!), "nor published anything").toEqual([]);
  });

  test("inside a tenant transaction (app role) the job is enqueued and the caller's role is kept", async () => {
    const { id, role } = await withTenant(tdb.db, { ...ACME_USER, descendants: false }, async (tx) => {
      const id = await enqueueJob(queue, tx, echo, { n: 2 }, ACME_USER);
      const [{ role }] = await tx<{ role: string }[]>`select current_user as role`;
      return { id, role };
    });
    expect(role, "the request still runs as the app role after enqueueing").toBe("ideally_app");
    const ok = await waitFor("Success", () => eventOf<SuccessData>(id!, "Success"));
    expect(ok.data.result).toEqual({ doubled: 4 });
  });

  test("a failed enqueue that the caller catches leaves it running as the app role", async () => {
    const role = await withTenant(tdb.db, { ...ACME_USER, descendants: false }, async (tx) => {
      const unknown = defineJob("test.never-registered", async () => null);
      await expect(enqueueJob(queue, tx, unknown, {}, ACME_USER)).rejects.toThrow("does not exist");
      const [{ role }] = await tx<{ role: string }[]>`select current_user as role`;
      return role;
    });
    expect(role, "row-level security still binds after the caught error").toBe("ideally_app");
  });

  test("Progress then Success arrive through subscribe(), routed to the enqueuer", async () => {
    const id = await send(echo, { n: 21 });
    await waitFor("Success", () => eventOf(id, "Success"));
    expect(eventsOf(id), "Progress, then Success with the handler's result").toEqual([
      { channel: `job-${id}`, event: "Progress", data: { jobId: id, name: "test.echo", pct: 50, message: "half way" }, userId: 9004, clientId: 1003 },
      { channel: `job-${id}`, event: "Success", data: { jobId: id, name: "test.echo", result: { doubled: 42 } }, userId: 9004, clientId: 1003 },
    ]);
    // Success is published as the handler returns; pg-boss records the completion just after.
    const job = await waitFor("completed", async () => {
      const [j] = await queue.findJobs(echo.name, { id });
      return j?.state === "completed" ? j : undefined;
    });
    expect(job.state, "the job is completed").toBe("completed");
  });

  // The two retry cases wait out a backoff each: they run side by side.
  let flakyRun: Promise<string> | undefined;
  const startFlaky = () => (flakyRun ??= send(flaky, { amount: 7 }));

  test("a handler that always throws publishes Error per attempt, is retried after a backoff, then fails", async () => {
    void startFlaky();
    const id = await send(alwaysFails, { why: "the panel provider said no" });
    const last = await waitFor("the final Error", () => eventOf<ErrorData>(id, "Error", (d) => !d.willRetry));
    const errors = eventsOf(id).filter((e) => e.event === "Error");
    expect(
      errors.map((e) => e.data),
      "one Error per attempt: the message only, never a stack",
    ).toEqual([
      { jobId: id, name: "test.always-fails", message: "the panel provider said no", attempt: 1, willRetry: true },
      { jobId: id, name: "test.always-fails", message: "the panel provider said no", attempt: 2, willRetry: false },
    ]);
    expect(last.userId).toBe(9004);
    expect(eventOf(id, "Success"), "no Success").toBeUndefined();
    // The outcome is counted as the worker's call returns, the event reaches the test through
    // NOTIFY on another connection: either may come first (a clean run under load, 2026-12-07,
    // read the outcomes a moment before the last was counted).
    const counted = await waitFor("both outcomes counted", () => {
      const mine = outcomes.filter((o) => o.startsWith("test.always-fails"));
      return mine.length >= 2 && mine;
    });
    expect(counted, "outcomes counted for /metrics").toEqual(["test.always-fails retried", "test.always-fails failed"]);
    const [t1, t2] = attempts.get(id)!;
    expect(t2 - t1, "the retry waited at least retryDelay (1 s)").toBeGreaterThanOrEqual(950);
    const q = await queue.getQueue(alwaysFails.name);
    expect({ retryLimit: q?.retryLimit, retryDelay: q?.retryDelay, retryBackoff: q?.retryBackoff }, "the queue carries the job's retry policy").toEqual({
      retryLimit: 1,
      retryDelay: 1,
      retryBackoff: true,
    });
    // Error is published as the handler throws; pg-boss records the failure just after.
    const state = await waitFor("the failed state", async () => {
      const [job] = await queue.findJobs(alwaysFails.name, { id });
      return job?.state === "failed" && job.state;
    });
    expect(state, "after its retries the job is failed").toBe("failed");
  });

  test("a handler that succeeds on its second attempt makes its side effect exactly once", async () => {
    const id = await startFlaky();
    await waitFor("Success", () => eventOf(id, "Success"));
    expect(attempts.get(id)?.length, "the handler ran twice").toBe(2);
    expect(eventsOf(id).map((e) => `${e.event}:${(e.data as ErrorData).attempt ?? ""}`)).toEqual(["Error:1", "Success:"]);
    const rows = await tdb.db`select amount from test_job_effects where job_id = ${id}`;
    expect(rows.length, "the effect was written once").toBe(1);
    expect(rows[0].amount).toBe(7);
  });

  test("progress() rounds and clamps to 0-100 and refuses a non-number", async () => {
    const id = await send(progressive, {});
    const ok = await waitFor("Success", () => eventOf<SuccessData>(id, "Success"));
    expect(
      eventsOf(id)
        .filter((e) => e.event === "Progress")
        .map((e) => (e.data as ProgressData).pct),
    ).toEqual([0, 34, 100]);
    expect(ok.data.result, "progress(NaN) threw").toEqual({ nanRefused: true });
  });

  test("defineJob applies defaults and refuses a bad name", () => {
    const job = defineJob("test.defaults", async () => null);
    expect(job.options).toEqual({
      retryLimit: 3,
      retryDelay: 5,
      retryBackoff: true,
      retryDelayMax: 600,
      expireInSeconds: 900,
      concurrency: 1,
      pollingIntervalSeconds: 2,
      heartbeatSeconds: 10,
      drainBacklog: false,
    });
    expect(() => defineJob("Bad Name", async () => null)).toThrow("job name");
  });

  test("drainBacklog: a backlog is worked back to back, not one job per poll", async () => {
    // Five jobs at once: NOTIFY wakes the worker for the first; without drainBacklog each next one
    // waits out the 4 s poll (16 s for five), with it the worker fetches again as each job ends.
    const t0 = Date.now();
    await tdb.db.begin(async (tx) => {
      for (let n = 1; n <= 5; n++) await enqueueJob(queue, tx, backlog, { n }, ACME_USER);
    });
    await waitFor("the backlog's five jobs", () => drained.length === 5, 3500);
    expect(drained.sort()).toEqual([1, 2, 3, 4, 5]);
    expect(Date.now() - t0, "well within one poll interval").toBeLessThan(3500);
  });

  test("stopping the queue waits for a running job", async () => {
    const id = await send(slow, { ms: 700 });
    await waitFor("the slow job to start", () => eventOf(id, "Progress"));
    expect(slowFinished).toBe(false);
    const t0 = Date.now();
    await queue.stop({ graceful: true, timeout: 10_000 });
    expect(slowFinished, "stop() returned only after the handler finished").toBe(true);
    expect(Date.now() - t0, "and did not wait for its whole timeout").toBeLessThan(5000);
    const [row] = await tdb.db`select state from pgboss.job where id = ${id}`;
    expect(row?.state, "the running job completed rather than being cut off").toBe("completed");
    expect(eventOf(id, "Success"), "its Success was published").toBeDefined();
  });
});
