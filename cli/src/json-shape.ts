// `--json FIELDS` and `--jq EXPR` of the listing commands (docs/cli.md), checked before any request:
// a field the listing does not have, or an expression outside the jq subset (jq.ts), is a usage
// error (exit 1) naming what is available.
import { usageError } from "./errors.ts";
import { jq, JqError, jqLines, parseJq, type Json } from "./jq.ts";
import type { JsonShape } from "./output.ts";

/** `json` is --json's value (true alone, else the fields), `expr` --jq's; `fields` the listing's. */
export function jsonShape(json: string | boolean | undefined, expr: string | undefined, fields: string[]): JsonShape {
  let chosen: string[] | null = null;
  if (typeof json === "string") {
    chosen = json
      .split(",")
      .map((f) => f.trim())
      .filter(Boolean);
    const unknown = chosen.filter((f) => !fields.includes(f));
    if (chosen.length === 0 || unknown.length)
      throw usageError(
        `--json: ${chosen.length === 0 ? "no field named" : `unknown field${unknown.length > 1 ? "s" : ""} ${unknown.map((f) => `'${f}'`).join(", ")}`}; this list has ${fields.join(", ")}`,
      );
  }
  let run: JsonShape["jq"] = null;
  if (expr !== undefined) {
    let program: ReturnType<typeof parseJq>;
    try {
      program = parseJq(expr);
    } catch (e) {
      throw usageError(`--jq: ${e instanceof Error ? e.message : String(e)}`);
    }
    run = (value) => {
      try {
        // The rows are plain JSON (they came from JSON.parse or are built to be printed as JSON).
        return jqLines(jq(program, JSON.parse(JSON.stringify(value)) as Json));
      } catch (e) {
        if (e instanceof JqError) throw usageError(`--jq: ${e.message}`);
        throw e;
      }
    };
  }
  return { fields: chosen, jq: run };
}
