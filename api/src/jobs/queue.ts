// The job queue: pg-boss on its own small pool (it sends BEGIN/COMMIT as text, which postgres.js
// refuses through unsafe(); see DESIGN.md). Jobs are enqueued inside the caller's postgres.js
// transaction through a per-call adapter, so a job exists exactly when the change that caused it
// commits.
import { PgBoss, type SendOptions } from "pg-boss";
import type { Tx } from "../db/client.ts";
import { sqlParams } from "../db/params.ts";

export type Queue = PgBoss;

export interface QueueOptions {
  /** Connections in pg-boss's pool (its LISTEN connection comes on top). */
  max?: number;
  log?: (m: string) => void;
}

export async function startQueue(url: string, logOrOpts: ((m: string) => void) | QueueOptions = {}): Promise<Queue> {
  const opts: QueueOptions = typeof logOrOpts === "function" ? { log: logOrOpts } : logOrOpts;
  const log = opts.log ?? console.log;
  const boss = new PgBoss({
    connectionString: url,
    max: opts.max ?? 3,
    application_name: "ideally-jobs",
    // Workers of queues created with `notify: true` (all of ours, see workers.ts) wake on pg-boss's
    // own NOTIFY when a job commits, instead of waiting for their next poll.
    useListenNotify: true,
    // The supervisor fails jobs whose worker stopped heartbeating (a killed process): checking
    // every 10 s rather than pg-boss's 60 retries them sooner (jobs/workers.ts heartbeatSeconds).
    superviseIntervalSeconds: 10,
    monitorIntervalSeconds: 10,
  });
  boss.on("error", (e: unknown) => log(`[jobs] ${(e as Error).message ?? String(e)}`));
  await boss.start();
  return boss;
}

/** pg-boss's database interface over a postgres.js transaction. */
export function txAdapter(tx: Tx) {
  return {
    // pg-boss's own SQL with its own $n parameters: no request input reaches the text.
    executeSql: async (text: string, values: unknown[] = []) => ({ rows: await tx.unsafe(text, sqlParams(values)) }),
  };
}

/** Who a job runs for: its events go to `user-{userId}` and the client channel too. */
export interface JobOrigin {
  userId: number | null;
  clientId: number | null;
}

/** What pg-boss stores as a job's data: the handler's input and who enqueued it. */
export interface JobEnvelope<T> {
  input: T;
  origin: JobOrigin;
}

/** Runs `fn` as the session user (pg-boss's tables are not the app role's), back in the caller's role after. */
async function asSessionUser<T>(tx: Tx, fn: () => Promise<T>): Promise<T> {
  const [{ role }] = await tx<{ role: string }[]>`with r as materialized (select current_setting('role') as role) select role, set_config('role', 'none', true) from r`;
  try {
    return await fn();
  } finally {
    if (role !== "none") await tx`select set_config('role', ${role}, true)`;
  }
}

/**
 * Jobs of queue `name` that `userId` enqueued and that are not done (waiting, waiting to retry or
 * running), read in the caller's transaction. The count is taken under a transaction-level lock
 * per queue and user, held until the caller commits, so two requests of one user that count and
 * then enqueue do so one after the other.
 */
export async function pendingJobsOf(tx: Tx, name: string, userId: number): Promise<number> {
  await tx`select pg_advisory_xact_lock(hashtext(${`jobs ${name}`}), ${userId})`;
  return asSessionUser(tx, async () => {
    const [r] = await tx<{ n: number }[]>`
      select count(*)::int as n from pgboss.job
      where name = ${name} and state in ('created', 'retry', 'active') and data->'origin'->>'userId' = ${String(userId)}`;
    return r!.n;
  });
}

/**
 * Enqueues a job in the caller's transaction: the job exists if and only if the transaction
 * commits. Inside a tenant transaction (db/tx.ts) the statement runs as the app role, which has no
 * rights on pg-boss's schema; pg-boss's own fixed SQL therefore runs as the session user, and the
 * caller's role is restored right after (both transaction-local, so nothing leaks past COMMIT).
 */
export async function enqueue<T extends object>(
  queue: Queue,
  tx: Tx,
  name: string,
  input: T,
  origin: JobOrigin = { userId: null, clientId: null },
  options: Omit<SendOptions, "db"> = {},
): Promise<string | null> {
  // The caller's role read and the switch to the session user in one statement (the CTE is read
  // before the switch); back to the caller's role after the send.
  const [{ role }] = await tx<{ role: string }[]>`with r as materialized (select current_setting('role') as role) select role, set_config('role', 'none', true) from r`;
  const switched = role !== "none";
  const envelope: JobEnvelope<T> = { input, origin };
  const restore = () => tx`select set_config('role', ${role}, true)`;
  let id: string | null;
  try {
    id = await queue.send(name, envelope, { ...options, db: txAdapter(tx) });
  } catch (e) {
    // A caller that catches this must not go on as the session user (an unknown queue fails
    // before any SQL, leaving the transaction usable). If the restore fails too, the transaction
    // is aborted and runs nothing more.
    if (switched) await restore().catch(() => {});
    throw e;
  }
  if (switched) await restore();
  return id; // null only when singleton options dropped it as a duplicate
}
