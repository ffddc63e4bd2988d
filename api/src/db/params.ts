// Parameters that reach postgres.js from code that types them loosely (pg-boss's SQL, the OData
// compiler's and the generic services' parameter lists, typed unknown[]): checked once here instead
// of cast, so a value the driver cannot send is a clear error at the call, not a driver surprise.
import type postgres from "postgres";

/** A value postgres.js sends as a parameter: a scalar, a date, bytes, an array of these, or JSON. */
export type SqlParam = postgres.ParameterOrJSON<never>;

function isSqlParam(v: unknown): v is SqlParam {
  if (v === null) return true;
  switch (typeof v) {
    case "string":
    case "boolean":
      return true;
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

/** The values as driver parameters; throws TypeError naming the first that is not one (undefined, a function, a symbol, a bigint). */
export function sqlParams(values: readonly unknown[]): SqlParam[] {
  return values.map((v, i) => {
    if (!isSqlParam(v)) throw new TypeError(`SQL parameter $${i + 1} cannot be sent to the database (${typeof v})`);
    return v;
  });
}
