// Checks of positional arguments, as usage errors (exit 1).
import { usageError } from "./errors.ts";

/** An entity key as the typed client's path parameter wants it (a string of digits). */
export function idArg(v: string, what = "project id"): string {
  if (!/^\d{1,9}$/.test(v)) throw usageError(`expected a ${what}, got '${v}'`);
  return v;
}
