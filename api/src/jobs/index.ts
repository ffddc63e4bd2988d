// Every job the API runs, registered by server.ts at start-up. Domains add their defineJob()
// declarations here (fielding, processing, AI, exports) as they arrive.
import type { Db } from "../db/client.ts";
import type { Queue } from "./queue.ts";
import { registerWorkers, type AnyJob, type RegisterOptions } from "./workers.ts";
import { scheduleScheduler, schedulerJob } from "./scheduler.ts";
import { fieldingTickJob, scheduleFieldingTick } from "../domains/fielding/fielding.jobs.ts";
import { commandJob } from "../domains/commands/commands.jobs.ts";
import { powerPointJob } from "../domains/results/powerpoint.ts";
import { dataExportJob } from "../domains/results/exports.jobs.ts";
import { summariesJob } from "../domains/ai/summaries.service.ts";
import { chatJob } from "../domains/ai/chat.service.ts";
import { emailSummariesJob, scheduleEmailSummaries, useMailer } from "../domains/ai/email-summaries.ts";
import { normsRefreshJob, scheduleNormsRefresh } from "../domains/results/norms.jobs.ts";
import { scheduleSupplierCallbacks, supplierCallbacksJob } from "../domains/fielding/suppliers.jobs.ts";
import type { Mailer } from "../email/mailer.ts";

export const jobs: readonly AnyJob[] = [schedulerJob, fieldingTickJob, commandJob, powerPointJob, dataExportJob, summariesJob, chatJob, emailSummariesJob, normsRefreshJob, supplierCallbacksJob];

/**
 * Runs every job's workers in this process and keeps the cluster-wide schedules in place: the API
 * process does it unless RUN_WORKERS=0, and `bun run worker` (worker.ts) always does.
 */
export async function runJobWorkers(queue: Queue, db: Db, publicUrl: string, log: (m: string) => void, mailer: Mailer, opts: Omit<RegisterOptions, "log"> = {}): Promise<void> {
  // The weekly results emails go through the process's mailer (SMTP or the outbox).
  useMailer(mailer);
  await registerWorkers(queue, db, jobs, { log, ...opts });
  // The scheduler: pg-boss enqueues scheduling.start-due every minute (jobs/scheduler.ts).
  await scheduleScheduler(queue);
  // Fielding: launches started waves, lets the simulated panel answer, processes closed runs.
  await scheduleFieldingTick(queue, publicUrl);
  // The weekly results email of each watched project, every Monday 08:00 UTC.
  await scheduleEmailSummaries(queue);
  // The norms' rollup of projects whose results changed outside processing, every minute.
  await scheduleNormsRefresh(queue);
  // Suppliers' server-to-server callbacks, every minute (and nudged when a supplier's respondent ends).
  await scheduleSupplierCallbacks(queue);
}
