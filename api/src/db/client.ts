// The postgres.js connection. Nothing above db/ is imported here.
import postgres from "postgres";

export type Db = postgres.Sql;
export type Tx = postgres.TransactionSql;

export interface DbOptions {
  max?: number;
  /** Called with each statement's text (tests count queries with it). */
  onQuery?: (text: string) => void;
}

export function connect(url: string, opts: DbOptions = {}): Db {
  return postgres(url, {
    max: opts.max ?? 10,
    onnotice: () => {},
    // int8 and numeric come back as strings by default; the schema keeps ids int4 and the
    // engine casts aggregates in SQL, so these parsers only guard the rare raw read.
    types: {
      bigint: postgres.BigInt,
    },
    debug: opts.onQuery ? (_conn, query) => opts.onQuery!(query) : undefined,
    connection: { application_name: "ideally" },
  });
}
