// The postgres.js connection. Nothing above db/ is imported here.
import postgres from "postgres";

export type Db = postgres.Sql;
/**
 * What a request's statements run on: a transaction of postgres.js (`db.begin`) or a reserved
 * connection holding one (db/tx.ts). Both are postgres.js's ISql: statements only, no pool.
 */
export type Tx = postgres.ISql;
/** Bind parameters as postgres.js's unsafe() takes them (this Db declares no custom types). */
export type SqlParams = postgres.ParameterOrJSON<never>[];

export interface DbOptions {
  max?: number;
  /** The connections' application_name, as pg_stat_activity shows them (default "ideally"). */
  applicationName?: string;
  /** Called with each statement's text and parameters (tests count and read queries with it). */
  onQuery?: (text: string, params: readonly unknown[]) => void;
  /**
   * The URL is a pooler in transaction mode (PgBouncer 1.18: a server connection belongs to a
   * client for one transaction only), so no named prepared statement may be relied on across
   * transactions: statements go unnamed (postgres.js `prepare: false`, which overrides a query's
   * own `{ prepare: true }`: connection.js takes `options.prepare && q.options.prepare`).
   */
  pooled?: boolean;
}

/**
 * Seconds before a connection is tried again after its server went away: doubling from 50 ms, at
 * most one second, with jitter. postgres.js's default grows as 3^n / 100 up to 20 s over a shared
 * failure count, so a database back after a few seconds' outage stayed unused for up to 20 s.
 */
export const reconnectBackoff = (retries: number): number => (0.5 + Math.random() / 2) * Math.min(0.05 * 2 ** retries, 1);

export function connect(url: string, opts: DbOptions = {}): Db {
  return postgres(url, {
    max: opts.max ?? 10,
    prepare: !opts.pooled,
    onnotice: () => {},
    backoff: reconnectBackoff,
    // A connection attempt that gets no answer (a server starting up or half gone) fails after
    // 5 s, answered 503, instead of holding the request for postgres.js's default 30 s.
    connect_timeout: 5,
    // int8 and numeric come back as strings by default; the schema keeps ids int4 and the
    // engine casts aggregates in SQL, so these parsers only guard the rare raw read.
    types: {
      bigint: postgres.BigInt,
    },
    debug: opts.onQuery ? (_conn, query, params) => opts.onQuery!(query, params) : undefined,
    connection: { application_name: opts.applicationName ?? "ideally" },
  });
}
