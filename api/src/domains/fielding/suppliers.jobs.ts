// The suppliers' server-to-server callbacks (suppliers.ts deliverDueCallbacks): every minute
// (pg-boss cron) and at once when a supplier's respondent ends (the respondent routes nudge it), the
// due callbacks are sent, each outside any transaction, and every attempt is recorded. Retries and
// their backoff are the outcome's own (next_attempt_at), so a callback is retried however the
// process that first tried it ended.
import { defineJob } from "../../jobs/workers.ts";
import type { JobEnvelope, Queue } from "../../jobs/queue.ts";
import { SERVICES_USER_ID } from "../lifecycle/lifecycle.service.ts";
import { deliverDueCallbacks } from "./suppliers.ts";

/** Callbacks claimed per round; rounds go on while a round is full and the job has time. */
const ROUND = 50;
const MAX_ROUNDS = 20;

const envelope: JobEnvelope<Record<string, never>> = { input: {}, origin: { userId: SERVICES_USER_ID, clientId: null } };

export const supplierCallbacksJob = defineJob<Record<string, never>, { attempts: number; delivered: number }>(
  "suppliers.callbacks",
  async ({ db, progress, signal }) => {
    let attempts = 0;
    let delivered = 0;
    for (let round = 0; round < MAX_ROUNDS && !signal.aborted; round++) {
      const r = await deliverDueCallbacks(db, { limit: ROUND });
      attempts += r.length;
      delivered += r.filter((a) => a.delivered).length;
      if (r.length < ROUND) break;
    }
    await progress(100, `${attempts} callback attempts, ${delivered} delivered`);
    return { attempts, delivered };
  },
  { retryLimit: 1, retryDelay: 30, expireInSeconds: 900 },
);

export async function scheduleSupplierCallbacks(queue: Queue): Promise<void> {
  await queue.schedule(supplierCallbacksJob.name, "* * * * *", envelope, { tz: "UTC" });
  await nudgeSupplierCallbacks(queue);
}

/** Nudges within this many seconds of each other make one run of the job. */
const NUDGE_SLOT_SECONDS = 2;

/**
 * Sends the due callbacks soon (after a supplier's respondent ended), outside the request's
 * transaction: one job per slot of NUDGE_SLOT_SECONDS, a nudge whose slot is taken going to the
 * next one (so a callback made while a run is under way is still sent). The slot does it: on
 * pg-boss 12's standard queues a singletonKey alone dedupes nothing (tests/api/job-nudges.test.ts).
 */
export async function nudgeSupplierCallbacks(queue: Queue): Promise<string | null> {
  return queue.send(supplierCallbacksJob.name, envelope, { singletonKey: "suppliers.callbacks.now", singletonSeconds: NUDGE_SLOT_SECONDS, singletonNextSlot: true });
}
