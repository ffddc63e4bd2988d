// The norms job: every minute (pg-boss cron) and once at start-up, it rebuilds the norm cells of
// the projects whose results changed outside processing (a reweight, a removed respondent, data
// loaded in bulk), one project a transaction, so that a Benchmarks call does not do it in the
// request (on the 10-million-row bench data, 50 projects' cells took 9 s there).
import { defineJob } from "../../jobs/workers.ts";
import type { JobEnvelope, Queue } from "../../jobs/queue.ts";
import { enterTenant } from "../../access/policy.ts";
import { SERVICES_USER_ID, systemCtx } from "../lifecycle/lifecycle.service.ts";
import { refreshNormCells, staleNormProjects } from "./norms.ts";

export const NORMS_REFRESH_CRON = "* * * * *";

export const normsRefreshJob = defineJob<Record<string, never>, { refreshed: number; stale: number }>(
  "results.norms-refresh",
  async ({ db, progress, signal }) => {
    const stale = await enterTenant(db, systemCtx(), (tx) => staleNormProjects(tx));
    let refreshed = 0;
    for (const id of stale) {
      if (signal.aborted) break; // the next run goes on where this one stopped
      await enterTenant(db, systemCtx(), (tx) => refreshNormCells(tx, id));
      refreshed++;
      if (refreshed % 10 === 0) await progress((100 * refreshed) / stale.length, `${refreshed} of ${stale.length} projects`);
    }
    await progress(100, `rebuilt the norm cells of ${refreshed} of ${stale.length} projects`);
    return { refreshed, stale: stale.length };
  },
  { retryLimit: 1, retryDelay: 30, expireInSeconds: 3600 },
);

export async function scheduleNormsRefresh(queue: Queue): Promise<void> {
  const envelope: JobEnvelope<Record<string, never>> = { input: {}, origin: { userId: SERVICES_USER_ID, clientId: null } };
  await queue.schedule(normsRefreshJob.name, NORMS_REFRESH_CRON, envelope, { tz: "UTC" });
  // And once now: a database loaded while no server ran is rolled up before the first benchmark.
  await queue.send(normsRefreshJob.name, envelope, { singletonKey: "results.norms-refresh.start" });
}
