// The fielding engine's job: its tick runs every minute (pg-boss cron, like the scheduler) and
// again a moment later while the simulated panel still has answers to give, so a launched
// Ideally-panel run fills in batches that arrive live; see fielding.service.ts tick().
import { processConfig } from "../../config.ts";
import { defineJob } from "../../jobs/workers.ts";
import type { JobEnvelope, Queue } from "../../jobs/queue.ts";
import { SERVICES_USER_ID } from "../lifecycle/lifecycle.service.ts";
import type { Db } from "../../db/client.ts";
import { log } from "../../ops/log.ts";
import { tick, type TickResult } from "./simulated-panel.ts";
import { closeLineItemsOfClosedRuns } from "./samplify.service.ts";
import { queueReadySummaries } from "../ai/summaries.service.ts";

export interface FieldingTickInput {
  /** Where respondents reach the product (survey links in notifications). */
  publicUrl?: string;
}

/** Seconds between batches of simulated answers while a run is filling. */
export const REFILL_SECONDS = 2;

/**
 * One tick (fielding.service.ts tick()), then the Samplify line items of runs that closed (at their
 * quota or field end; ForceCloseSurvey closes its own at once) are closed at Samplify too, outside
 * the closing transactions; a failed call is tried again on the next tick.
 */
export async function runFieldingTick(db: Db, publicUrl: string): Promise<TickResult> {
  const r = await tick(db, publicUrl);
  const s = await closeLineItemsOfClosedRuns(db, publicUrl);
  for (const f of s.failed) log("warn", "samplify: closing the line item of a closed run failed; tried again next tick", f);
  return r;
}

export const fieldingTickJob = defineJob<FieldingTickInput, TickResult>(
  "fielding.tick",
  async ({ db, data, queue, progress }) => {
    const r = await runFieldingTick(db, data.publicUrl ?? processConfig().publicUrl);
    // Projects whose results just became ready get their AI summaries (whatever processed them).
    await queueReadySummaries(db, queue);
    await progress(100, `created ${r.created}, launched ${r.launched}, simulated ${r.simulated} completes, processed ${r.processed}`);
    if (r.more) await queueRefillTick(queue, data);
    return r;
  },
  { retryLimit: 2, retryDelay: 5, expireInSeconds: 600 },
);

/** Starts within this many seconds of each other make one tick (pg-boss's throttle: one job per slot). */
const START_SLOT_SECONDS = 2;

export async function scheduleFieldingTick(queue: Queue, publicUrl: string): Promise<void> {
  const envelope: JobEnvelope<FieldingTickInput> = { input: { publicUrl }, origin: { userId: SERVICES_USER_ID, clientId: null } };
  await queue.schedule(fieldingTickJob.name, "* * * * *", envelope, { tz: "UTC" });
  // And once now, so a server that starts with due work does not wait a minute.
  await queue.send(fieldingTickJob.name, envelope, { singletonKey: "fielding.tick.start", singletonSeconds: START_SLOT_SECONDS });
}

/**
 * The follow-up tick while the simulated panel still has answers to give: one per REFILL_SECONDS
 * slot however many ticks overlap. The slot does it: on pg-boss 12's standard queues a singletonKey
 * alone dedupes nothing (two sends made two jobs; tests/api/job-nudges.test.ts), only with
 * singletonSeconds.
 */
export async function queueRefillTick(queue: Queue, input: FieldingTickInput): Promise<string | null> {
  const envelope: JobEnvelope<FieldingTickInput> = { input, origin: { userId: SERVICES_USER_ID, clientId: null } };
  return queue.send(fieldingTickJob.name, envelope, { startAfter: REFILL_SECONDS, singletonKey: "fielding.tick.refill", singletonSeconds: REFILL_SECONDS });
}
