// The scheduler (docs/decisions.md "Scheduling and waves"): every minute pg-boss's cron
// (`queue.schedule`, set up in server.ts) enqueues one `scheduling.start-due` job, cluster-wide;
// its handler starts the waves that have come due (scheduling.service.ts startDueSchedules):
// charges a DelayCharge wave through the ledger, marks its schedules ReadyToLaunch for fielding,
// and takes a Completed Wave project back to Awaiting Survey. Idempotent: a started schedule is
// stamped under its project's lock in the same transaction as its charge, so a retry, a duplicate
// delivery or two overlapping ticks start nothing twice.
import { SERVICES_USER_ID } from "../domains/lifecycle/lifecycle.service.ts";
import { startDueSchedules, type SchedulerResult } from "../domains/scheduling/scheduling.service.ts";
import { defineJob } from "./workers.ts";
import type { JobEnvelope, Queue } from "./queue.ts";

export interface SchedulerInput {
  /** The day to treat as today (YYYY-MM-DD; tests). Default: today in UTC. */
  today?: string;
}

export const schedulerJob = defineJob<SchedulerInput, SchedulerResult>(
  "scheduling.start-due",
  async ({ db, data }) => startDueSchedules(db, { today: data.today }),
  // A tick that fails is retried once; the next minute's tick covers anything still due.
  { retryLimit: 1, retryDelay: 10, expireInSeconds: 300 },
);

/** Every minute, once for the whole cluster (pg-boss's cron keeps a single schedule per name). */
export const SCHEDULER_CRON = "* * * * *";

export async function scheduleScheduler(queue: Queue): Promise<void> {
  const envelope: JobEnvelope<SchedulerInput> = { input: {}, origin: { userId: SERVICES_USER_ID, clientId: null } };
  await queue.schedule(schedulerJob.name, SCHEDULER_CRON, envelope, { tz: "UTC" });
}
