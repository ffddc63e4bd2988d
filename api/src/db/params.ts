// Statement parameters typed as postgres.js takes them, for code that holds them loosely: pg-boss's
// SQL (unknown[]), and JSON values whose TypeScript types the driver's JSONValue cannot show.
import type postgres from "postgres";
import type { Db, SqlParams, Tx } from "./client.ts";

function isSqlParam(v: unknown): v is SqlParams[number] {
  if (v === null) return true;
  switch (typeof v) {
    case "string":
    case "boolean":
    case "number":
      return true;
    case "object":
      if (v instanceof Date || v instanceof Uint8Array) return true;
      if (Array.isArray(v)) return v.every(isSqlParam);
      // JSON: a plain object (its values are serialized by JSON.stringify), or one with toJSON.
      return Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null || typeof (v as { toJSON?: unknown }).toJSON === "function";
    default:
      return false;
  }
}

/** The values as driver parameters, checked once instead of cast; throws TypeError naming the first that is not one (undefined, a function, a symbol, a bigint). */
export function sqlParams(values: readonly unknown[]): SqlParams {
  return values.map((v, i) => {
    if (!isSqlParam(v)) throw new TypeError(`SQL parameter $${i + 1} cannot be sent to the database (${typeof v})`);
    return v;
  });
}

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
