// A run's field period (docs/decisions.md "Field periods"): it fields from its launch for its
// project's fieldPeriodDays, then closes with the completes it has. Its own module so the lifecycle
// (Submit states the field period of a design it knows will fall short) reads the same default as
// the fielding tick without importing the fielding service.
import type { Tx } from "../../db/client.ts";

/** A run's field period when its project sets none (projects.field_period_days). */
export const DEFAULT_FIELD_DAYS = 14;

/** The field period, in days, of the project's runs. */
export async function fieldPeriodDaysOf(tx: Tx, projectId: number): Promise<number> {
  const [r] = await tx<{ days: number | null }[]>`select field_period_days as days from projects where id = ${projectId}`;
  return r?.days ?? DEFAULT_FIELD_DAYS;
}
