// Reads from a streaming replica (DATABASE_REPLICA_URL). The results functions and the exports are
// the read-heavy calls; their routes take a routed Db (routedDb), and the tenant transaction
// helpers of tx.ts run each of their transactions on the replica while it is usable, or on the
// primary. Everything else (the chat, edits, the generic entity sets, whatever a user just wrote
// and reads back) keeps the primary, so a user's own writes are always read back where they were
// made. A transaction that cannot run on the replica (it writes: a norms refresh; the replica has
// not yet replayed the session of a user who just signed in; the replica went away) is run again,
// whole, on the primary: a read transaction has no effect to repeat.
//
// Lag is polled every second: the bytes of WAL the replica has still to replay (the primary's
// pg_current_wal_lsn(), read first, less the replica's pg_last_wal_replay_lsn(), read after) and,
// while that is above zero, the seconds since the replica last replayed a transaction. A replica more than
// maxLagSeconds behind, or that has not answered the poll, is not used until it catches up.
import type { Db } from "./client.ts";

export interface ReplicaLag {
  /** WAL bytes the replica has still to replay; null before the first poll or when it fails. */
  bytes: number | null;
  /** Seconds behind (0 when nothing is left to replay); null as above. */
  seconds: number | null;
  /** When the replica last answered the poll (ms since the epoch), 0 never. */
  polledAt: number;
}

export type ReadOutcome = "replica" | "primary" | "fallback";

export interface ReplicaRouter {
  primary: Db;
  replica: Db;
  lag: ReplicaLag;
  maxLagSeconds: number;
  /** Reads per outcome: on the replica, sent to the primary (replica not usable), retried there. */
  reads: Record<ReadOutcome, number>;
  usable(): boolean;
  pollOnce(): Promise<void>;
  stop(): void;
}

const routers = new WeakMap<object, ReplicaRouter>();

export function startReplicaRouter(primary: Db, replica: Db, opts: { maxLagSeconds?: number; pollMs?: number } = {}): ReplicaRouter {
  const pollMs = opts.pollMs ?? 1000;
  const r: ReplicaRouter = {
    primary,
    replica,
    lag: { bytes: null, seconds: null, polledAt: 0 },
    maxLagSeconds: opts.maxLagSeconds ?? 5,
    reads: { replica: 0, primary: 0, fallback: 0 },
    usable() {
      return r.lag.seconds !== null && r.lag.seconds <= r.maxLagSeconds && Date.now() - r.lag.polledAt < Math.max(3 * pollMs, 3000);
    },
    async pollOnce() {
      try {
        // The primary's position first, then how far the replica has replayed: read in this order,
        // a replica that keeps up is never shown behind by WAL the primary wrote between the reads.
        const [p] = await primary<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
        const [rep] = await replica<{ replay: string | null; bytes: string | null; since: number | null }[]>`
          select pg_last_wal_replay_lsn()::text as replay,
                 pg_wal_lsn_diff(${p!.lsn}::pg_lsn, pg_last_wal_replay_lsn())::text as bytes,
                 extract(epoch from now() - pg_last_xact_replay_timestamp())::float8 as since`;
        if (!rep?.replay) throw new Error("not a replica (no replay position)");
        const bytes = Math.max(0, Number(rep.bytes ?? 0));
        r.lag = { bytes, seconds: bytes === 0 ? 0 : Math.max(0, rep.since ?? 0), polledAt: Date.now() };
      } catch {
        r.lag = { bytes: null, seconds: null, polledAt: r.lag.polledAt };
      }
    },
    stop() {
      clearInterval(timer);
    },
  };
  const timer = setInterval(() => void r.pollOnce(), pollMs);
  timer.unref?.();
  void r.pollOnce();
  return r;
}

/** A Db for read-heavy routes: the primary pool, marked so tx.ts routes its transactions. */
export function routedDb(r: ReplicaRouter): Db {
  const proxy = new Proxy(r.primary, {});
  routers.set(proxy, r);
  return proxy;
}

/** Error codes after which a read transaction is run again on the primary. */
const RETRY_ON_PRIMARY = new Set([
  "25006", // read_only_sql_transaction: the transaction writes (a norms refresh)
  "28000", // invalid_authorization_specification: app_enter did not find a session the replica has not replayed yet
  "42501", // insufficient_privilege: a membership not yet replayed (a real refusal is refused again)
  "40001", // serialization_failure: canceling statement due to conflict with recovery
  "57P01", // admin_shutdown
  "57P03", // cannot_connect_now: the replica is starting
  "53300", // too_many_connections
]);

function retryable(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  if (typeof code !== "string") return false;
  return RETRY_ON_PRIMARY.has(code) || code.startsWith("08") || code === "CONNECTION_CLOSED" || code === "CONNECTION_ENDED" || code === "CONNECT_TIMEOUT" || code === "ECONNREFUSED";
}

/** Runs one transaction on the replica when `db` is routed and the replica usable; else on `db`. */
export async function onReadDb<T>(db: Db, run: (db: Db) => Promise<T>): Promise<T> {
  const r = routers.get(db);
  if (!r) return run(db);
  if (!r.usable()) {
    r.reads.primary++;
    return run(r.primary);
  }
  try {
    const out = await run(r.replica);
    r.reads.replica++;
    return out;
  } catch (e) {
    if (!retryable(e)) throw e;
    r.reads.fallback++;
    return run(r.primary);
  }
}
