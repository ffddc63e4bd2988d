// Checks of positional arguments, as usage errors (exit 1).
import { usageError } from "./errors.ts";

/** An entity key as the typed client's path parameter wants it (a string of digits). */
export function idArg(v: string, what = "project id"): string {
  if (!/^\d{1,9}$/.test(v)) throw usageError(`expected a ${what}, got '${v}'`);
  return v;
}

/** SPEC 5's benchmark types: 1 all customers, 2 the client's, 3 industry, 4-7 NPD launch-week bands, 8 category, 10 parent category. */
/** SPEC's benchmark types, and 0: the 'None' entry the results page appends (a flat 50%). */
export const BENCHMARK_TYPES = [0, 1, 2, 3, 4, 5, 6, 7, 8, 10];

export function benchmarkArg(v: string): string {
  if (!/^\d{1,2}$/.test(v) || !BENCHMARK_TYPES.includes(Number(v)))
    throw usageError(`--benchmark: expected a benchmark type: 1 all customers, 2 your team, 3 industry, 4-7 NPD launch weeks, 8 category, 10 parent category, 0 none (a flat 50%); got '${v}'`);
  return v;
}

/** A calendar date YYYY-MM-DD that exists (2026-02-29 does not). */
export function isDate(v: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v);
  if (!m) return false;
  const d = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return d.getUTCFullYear() === Number(m[1]) && d.getUTCMonth() === Number(m[2]) - 1 && d.getUTCDate() === Number(m[3]);
}

/** A whole number from 1 to `max`, as a page or page size. */
export function countArg(v: string, name: string, max: number): string {
  if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > max) throw usageError(`${name}: expected a whole number from 1 to ${max}, got '${v}'`);
  return v;
}
