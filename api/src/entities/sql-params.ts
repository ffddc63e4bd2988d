// Statement parameters typed as postgres.js takes them. (Of the database layer in spirit: here
// until db/ holds them, for the entity service and the domains' SQL.)
import type postgres from "postgres";
import type { Db, Tx } from "../db/client.ts";

/** A compiled statement's bind parameters (sqltext.ts renders them as unknown[]: numbers, text, arrays, null). */
export type BindParams = postgres.ParameterOrJSON<never>[];

/**
 * A json/jsonb parameter: the value as JSON.stringify writes it (sql.json). postgres.js types that
 * value as its JSONValue, an index-signature shape that interfaces (Usage, Figure) and the
 * unknown-typed parts of JSON by construction (a tool call's arguments, a question's routing
 * from its validated body, a YAML mapping) cannot show, so no generic states it: this one helper
 * does, in place of a cast at each statement.
 */
export function jsonParam(sql: Db | Tx, value: unknown): postgres.Parameter {
  return sql.json(value as postgres.JSONValue);
}
