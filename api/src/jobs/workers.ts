// Job definitions and the workers that run them (fielding, processing, AI, export work).
//
// A job is declared once with defineJob(name, handler, options) and enqueued with enqueueJob()
// inside the transaction of the change that causes it (queue.ts). registerWorkers() creates each
// job's pg-boss queue with its retry policy and runs the handler with
// `{ data, jobId, progress, db, origin, attempt, signal }`, publishing on the job's channel
// (`job-{jobId}`, channel.ts, routed also to the enqueuer's user and client):
//   Progress  { jobId, name, pct, message? }         each progress(pct, message?) call
//   Success   { jobId, name, result }                the handler returned (a small JSON result)
//   Error     { jobId, name, message, attempt, willRetry }   it threw: the message, never a stack
//
// HANDLERS MUST BE IDEMPOTENT. pg-boss delivers at least once: a handler that throws is run again
// after an exponential backoff (retryLimit / retryDelay * 2^n with jitter, capped by
// retryDelayMax), and a job whose process died or was stopped mid-run is run again after it
// expires. So a second run must not repeat an effect the first one already made: key writes by the
// job id or a natural key (`insert ... on conflict do nothing`, upserts, `where status = <expected>`
// state transitions), do external calls once per recorded step, and spend credits in the same
// transaction as the state change that marks the step done.
//
// Handlers run outside any request: `db` is the app's pool, not bound by row-level security. A
// handler that acts for a user enters the tenant itself (withTenant with `origin`), and every
// handler scopes its queries by the ids in its data.
import type { JobWithMetadata, SendOptions, WorkOptions } from "pg-boss";
import type { Db, Tx } from "../db/client.ts";
import type { JobEvent, WithoutChannel } from "@ideally/contracts/events";
import { jobChannel, publish, type ProgressData } from "./channel.ts";
import { enqueue, type JobEnvelope, type JobOrigin, type Queue } from "./queue.ts";

export interface JobContext<T> {
  /** The job's input, as enqueued. */
  data: T;
  jobId: string;
  name: string;
  /** Who enqueued the job. */
  origin: JobOrigin;
  /** 1 on the first run, 2 on the first retry, ... */
  attempt: number;
  /** Publishes Progress (pct 0-100, rounded and clamped); call it at meaningful steps, not per row. */
  progress(pct: number, message?: string): Promise<void>;
  db: Db;
  /** The queue the job came from: a handler may enqueue follow-up work (a next batch, a step). */
  queue: Queue;
  /** Aborted when the job expires or the queue stops without waiting: stop early, it will run again. */
  signal: AbortSignal;
}

export type JobHandler<T, R> = (ctx: JobContext<T>) => Promise<R>;

export interface JobOptions {
  /** Retries after the first run. Default 3. */
  retryLimit?: number;
  /** Seconds before the first retry (whole seconds, pg-boss's unit). Default 5. */
  retryDelay?: number;
  /** Exponential backoff from retryDelay. Default true. */
  retryBackoff?: boolean;
  /** Upper bound of one backoff delay, in seconds. Default 600. */
  retryDelayMax?: number;
  /** A run longer than this is failed (and retried). Default 900 (15 min). */
  expireInSeconds?: number;
  /** Jobs of this kind run at once in one process. Default 1. */
  concurrency?: number;
  /** How often idle workers look for due retries (new jobs wake them at once). Default 2. */
  pollingIntervalSeconds?: number;
  /**
   * A running job's worker refreshes its claim every half of this; a claim older than this (the
   * worker process died) is failed and retried by any process's supervisor. Default 10 (pg-boss's
   * minimum), so a killed worker's job runs again within about 30 s instead of at expiry.
   */
  heartbeatSeconds?: number;
  /**
   * After each job ends, this kind's workers in the process fetch again at once instead of waiting
   * out their poll (pg-boss's NOTIFY wakes them for new jobs only, so a backlog was worked one job
   * per worker per pollingIntervalSeconds). A fetch that finds nothing goes back to polling. Default false.
   */
  drainBacklog?: boolean;
}

export interface JobDef<T extends object, R = unknown> {
  readonly name: string;
  /** A method, not a function property: its parameter is then compared both ways, so every job fits AnyJob (the queue hands a handler the input its job was enqueued with: enqueue() checks it against T). */
  handler(ctx: JobContext<T>): Promise<R>;
  readonly options: Required<JobOptions>;
}

/** A job of any input type, for lists of jobs: each keeps its own type where it is declared. */
export type AnyJob = JobDef<object, unknown>;

const DEFAULTS: Required<JobOptions> = {
  retryLimit: 3,
  retryDelay: 5,
  retryBackoff: true,
  retryDelayMax: 600,
  expireInSeconds: 900,
  concurrency: 1,
  pollingIntervalSeconds: 2,
  heartbeatSeconds: 10,
  drainBacklog: false,
};

/** Results larger than this are left out of Success (the job's output in pg-boss keeps them). */
const MAX_RESULT_BYTES = 4000;
const MAX_MESSAGE_CHARS = 500;

export function defineJob<T extends object, R = unknown>(name: string, handler: JobHandler<T, R>, options: JobOptions = {}): JobDef<T, R> {
  if (!/^[a-z][a-z0-9-]*(\.[a-z0-9-]+)*$/.test(name)) throw new Error(`job name ${JSON.stringify(name)}: use lower-case words, dashes and dots`);
  return { name, handler, options: { ...DEFAULTS, ...options } };
}

/** Enqueues `job` in the caller's transaction (see queue.ts); the input is type-checked against the job. */
export function enqueueJob<T extends object>(queue: Queue, tx: Tx, job: JobDef<T, unknown>, input: T, origin: JobOrigin, options: Omit<SendOptions, "db"> = {}): Promise<string | null> {
  return enqueue(queue, tx, job.name, input, origin, options);
}

export interface RegisterOptions {
  log?: (m: string) => void;
  /** Told each run's outcome (metrics). */
  onOutcome?: (queue: string, outcome: "completed" | "retried" | "failed") => void;
}

/**
 * Creates (or updates) each job's queue with its retry policy. Every process that enqueues needs
 * the queues to exist, also an API process whose workers are off (RUN_WORKERS=0).
 */
export async function ensureQueues(queue: Queue, jobs: readonly AnyJob[]): Promise<void> {
  const names = new Set<string>();
  for (const job of jobs) {
    if (names.has(job.name)) throw new Error(`job ${job.name} is defined twice`);
    names.add(job.name);
  }
  for (const job of jobs) {
    const o = job.options;
    const policy = {
      retryLimit: o.retryLimit,
      retryDelay: o.retryDelay,
      retryBackoff: o.retryBackoff,
      expireInSeconds: o.expireInSeconds,
      heartbeatSeconds: o.heartbeatSeconds,
      notify: true,
    };
    const retryDelayMax = o.retryBackoff ? o.retryDelayMax : undefined;
    // createQueue keeps an existing queue as it is; updateQueue brings its policy in line with the code.
    await queue.createQueue(job.name, { ...policy, retryDelayMax });
    await queue.updateQueue(job.name, { ...policy, retryDelayMax: retryDelayMax ?? null });
  }
}

/**
 * Creates each job's queue (ensureQueues) and starts its workers. Stop them with
 * `queue.stop({ graceful: true })`, which waits for running handlers.
 */
export async function registerWorkers(queue: Queue, db: Db, jobs: readonly AnyJob[], opts: RegisterOptions = {}): Promise<void> {
  const log = opts.log ?? console.log;
  await ensureQueues(queue, jobs);
  for (const job of jobs) {
    const o = job.options;
    // drainBacklog: wake this kind's workers (one work() call, one workId) when a job ends.
    let workId: string | null = null;
    const wake = o.drainBacklog
      ? () => {
          for (const w of queue.getWipData()) if (w.workId === workId) queue.notifyWorker(w.id);
        }
      : null;
    workId = await queue.work<JobEnvelope<object>, unknown, WorkOptions & { includeMetadata: true }>(
      job.name,
      {
        includeMetadata: true,
        batchSize: 1,
        localConcurrency: o.concurrency,
        pollingIntervalSeconds: o.pollingIntervalSeconds,
        // pg-boss's NOTIFY wakes workers for new jobs only; retries come due by time, so the
        // backstop poll must stay as frequent as the plain one.
        notifyPollingIntervalSeconds: o.pollingIntervalSeconds,
      },
      async (batch: JobWithMetadata<JobEnvelope<object>>[]) => {
        let out: unknown = null;
        for (const j of batch) {
          try {
            out = await runOne(job, j, db, queue, log);
            opts.onOutcome?.(job.name, "completed");
          } catch (e) {
            opts.onOutcome?.(job.name, j.retryCount < j.retryLimit ? "retried" : "failed");
            throw e;
          } finally {
            wake?.();
          }
        }
        return out;
      },
    );
  }
}

async function runOne(job: AnyJob, j: JobWithMetadata<JobEnvelope<object>>, db: Db, queue: Queue, log: (m: string) => void): Promise<unknown> {
  const origin: JobOrigin = j.data?.origin ?? { userId: null, clientId: null };
  const emit = async (ev: WithoutChannel<JobEvent>) => {
    // Events are notifications, not the record (the job's state in pg-boss is): a failed
    // publish is logged and must not fail, or re-run, the job.
    await publish(db, { ...ev, channel: jobChannel(j.id), userId: origin.userId, clientId: origin.clientId }).catch((e) =>
      log(`[jobs] ${job.name} ${j.id}: could not publish ${ev.event}: ${(e as Error).message}`),
    );
  };
  const attempt = j.retryCount + 1;
  const willRetry = j.retryCount < j.retryLimit;
  const ctx: JobContext<object> = {
    data: j.data?.input ?? {},
    jobId: j.id,
    name: job.name,
    origin,
    attempt,
    db,
    queue,
    signal: j.signal,
    async progress(pct: number, message?: string) {
      if (!Number.isFinite(pct)) throw new TypeError(`progress: pct must be a number, got ${pct}`);
      const data: ProgressData = { jobId: j.id, name: job.name, pct: Math.max(0, Math.min(100, Math.round(pct))) };
      if (message !== undefined) data.message = String(message).slice(0, MAX_MESSAGE_CHARS);
      await emit({ event: "Progress", data });
    },
  };
  let result: unknown;
  try {
    result = await job.handler(ctx);
  } catch (e) {
    const message = (e instanceof Error ? e.message : String(e)).slice(0, MAX_MESSAGE_CHARS) || "Job failed";
    log(`[jobs] ${job.name} ${j.id} attempt ${attempt} failed${willRetry ? " (will retry)" : ""}: ${message}`);
    await emit({ event: "Error", data: { jobId: j.id, name: job.name, message, attempt, willRetry } });
    throw e;
  }
  if (j.signal.aborted) {
    // pg-boss already failed the job (expired, or the queue stopped without waiting): it runs again.
    await emit({ event: "Error", data: { jobId: j.id, name: job.name, message: "Job interrupted", attempt, willRetry } });
    return null;
  }
  let json: string | undefined;
  try {
    json = result === undefined ? "null" : JSON.stringify(result);
  } catch {
    json = undefined; // not JSON (a BigInt, a cycle): the event goes without it
  }
  const small = json !== undefined && new TextEncoder().encode(json).length <= MAX_RESULT_BYTES;
  await emit({ event: "Success", data: { jobId: j.id, name: job.name, result: small ? JSON.parse(json!) : null, ...(small ? {} : { resultOmitted: true as const }) } });
  return result ?? null;
}
