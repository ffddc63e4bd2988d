// The admin command runner (SPEC 7 /api/CommandRunner/*): staff start a command, it runs as a
// queued job (`commands.run`) with Progress / Success / Error on its job channel, and leaves an
// audit row (DataEventsLog, entity type Command) with who asked, what and when, and its outcome.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { JobContext } from "../../jobs/workers.ts";
import type { USER_NOTIFICATION_EVENTS } from "../../jobs/channel.ts";
import { raiseOncePerJob } from "../notifications/notifications.service.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { startDueSchedules, toRun } from "../scheduling/scheduling.service.ts";
import { tick } from "../fielding/simulated-panel.ts";
import { checkTextResponses, codeThemes } from "../results/themes.service.ts";
import { HubSpot, hubspotFromEnv } from "../../hubspot/client.ts";
import { currentProvider } from "../ai/summaries.service.ts";
import { codeThemesWithModel } from "../ai/themes.ts";
import { syncClients, syncCustomProps, syncProjects, syncUsers } from "../../hubspot/sync.ts";

export const HUBSPOT_NOT_CONFIGURED = "HubSpot is not configured: set HUBSPOT_TOKEN (a private app access token) to sync";

export type NotificationType = (typeof USER_NOTIFICATION_EVENTS)[number];

export interface CommandInput {
  TestNotification: { userId: number; type?: NotificationType; title?: string; body?: string };
  TestNextSchedule: { today?: string };
  TestCreateNextSchedule: { today?: string };
  SyncDemoData: Record<string, never>;
  ReGenerateThemes: { projectId: number };
  ReGenerateTextResponsesQa: { projectId: number };
  RunHubspotClientSync: Record<string, never>;
  RunHubspotUserSync: Record<string, never>;
  RunHubspotProjectSync: Record<string, never>;
  RunHubspotClientCustomPropsSync: Record<string, never>;
}
export type CommandName = keyof CommandInput;
export const HUBSPOT_COMMANDS = ["RunHubspotClientSync", "RunHubspotUserSync", "RunHubspotProjectSync", "RunHubspotClientCustomPropsSync"] as const;

export const COMMANDS: readonly CommandName[] = [
  "TestNotification",
  "TestNextSchedule",
  "TestCreateNextSchedule",
  "SyncDemoData",
  "ReGenerateThemes",
  "ReGenerateTextResponsesQa",
  ...HUBSPOT_COMMANDS,
];

export interface CommandJob {
  command: CommandName;
  input: Record<string, unknown>;
  requestedBy: number;
}

async function audit(tx: Db | Tx, userId: number, command: string, event: string, data: Record<string, unknown>): Promise<void> {
  await tx`insert into data_events_log (user_id, entity_type, event, data) values (${userId}, 'Command', ${event}, ${tx.json({ command, ...data })})`;
}

/** The request side: the audit row of the ask, in the same transaction as the job (queued by the caller). */
export async function recordRequest(
  db: Db,
  ctx: RequestCtx,
  command: CommandName,
  input: Record<string, unknown>,
  enqueue: (tx: Tx) => Promise<string | null>,
): Promise<{ jobId: string; command: CommandName }> {
  return enterTenant(db, { ...ctx, clientId: null }, async (tx) => {
    if (command === "ReGenerateThemes" || command === "ReGenerateTextResponsesQa") {
      const [p] = await tx`select 1 from projects where id = ${(input as CommandInput["ReGenerateThemes"]).projectId} and deleted_at is null`;
      if (!p) throw new ApiError("NotFound", `No project ${(input as { projectId: number }).projectId}`);
    }
    if (command === "TestNotification") {
      const [u] = await tx`select 1 from users where id = ${(input as CommandInput["TestNotification"]).userId} and disabled_at is null`;
      if (!u) throw new ApiError("NotFound", `No active user ${(input as { userId: number }).userId}`);
    }
    const jobId = await enqueue(tx);
    if (!jobId) throw new ApiError("Conflict", `${command} is already queued`);
    await audit(tx, ctx.principal.userId, command, "CommandRequested", { jobId, input });
    return { jobId, command };
  });
}

export interface RunDeps {
  publicUrl: string;
  /** Seeds the demo data when missing (the server's seeders); absent in production. */
  syncDemo?: (db: Db) => Promise<{ seededLogins: boolean; seededProjects: number }>;
}

/** The job's side: runs the command, reports progress, and audits the outcome. */
export async function runCommand(job: JobContext<CommandJob>, deps: RunDeps): Promise<unknown> {
  const { db, data, progress } = job;
  let result: unknown;
  try {
    switch (data.command) {
      case "TestNotification": {
        const i = data.input as CommandInput["TestNotification"];
        const type = i.type ?? "UserAddedToTeam";
        await progress(10, `notifying user ${i.userId}`);
        // Once per job, however often the job runs (a worker killed after the commit re-runs it).
        const id = await enterTenant(db, systemCtx(), (tx) =>
          raiseOncePerJob(tx, job.jobId, {
            userId: i.userId,
            clientId: null,
            type,
            title: i.title ?? "Test notification",
            body: i.body ?? "A test notification sent by staff from the command runner.",
            data: { test: true },
          }),
        );
        result = { notificationId: id, userId: i.userId, type };
        break;
      }
      case "TestNextSchedule": {
        const i = data.input as CommandInput["TestNextSchedule"];
        await progress(20, "reading the due waves");
        const due = await toRun(db, systemCtx(), i.today);
        const [next] = await enterTenant(
          db,
          systemCtx(),
          (tx) => tx<{ d: string | null }[]>`
          select min(schedule_date)::text as d from project_schedules s join projects p on p.id = s.project_id
          where s.survey_run_id is null and s.started_at is null and p.deleted_at is null and p.status_code in (300, 800)`,
        );
        result = { due, dueCount: due.length, nextScheduleDate: next?.d ?? null };
        break;
      }
      case "TestCreateNextSchedule": {
        const i = data.input as CommandInput["TestCreateNextSchedule"];
        await progress(10, "starting the due waves");
        const scheduler = await startDueSchedules(db, { today: i.today });
        await progress(50, "creating and launching their survey runs");
        const fielding = await tick(db, deps.publicUrl);
        result = { scheduler, fielding };
        break;
      }
      case "ReGenerateThemes": {
        const i = data.input as CommandInput["ReGenerateThemes"];
        await progress(10, `coding project ${i.projectId}'s open answers`);
        // With a model configured its themes; otherwise the local key-phrase coding.
        const provider = await currentProvider();
        result = {
          projectId: i.projectId,
          coder: provider.name,
          ...(provider.name === "local" ? await enterTenant(db, systemCtx(), (tx) => codeThemes(tx, i.projectId)) : await codeThemesWithModel(db, provider, i.projectId)),
        };
        break;
      }
      case "ReGenerateTextResponsesQa": {
        const i = data.input as CommandInput["ReGenerateTextResponsesQa"];
        await progress(10, `checking project ${i.projectId}'s open answers`);
        result = { projectId: i.projectId, ...(await enterTenant(db, systemCtx(), (tx) => checkTextResponses(tx, i.projectId))) };
        break;
      }
      case "RunHubspotClientSync":
      case "RunHubspotUserSync":
      case "RunHubspotProjectSync":
      case "RunHubspotClientCustomPropsSync": {
        const cfg = hubspotFromEnv();
        if (!cfg) throw new ApiError("ServiceUnavailable", HUBSPOT_NOT_CONFIGURED);
        const hs = new HubSpot(cfg);
        const p = (pct: number, m: string) => progress(pct, m);
        result =
          data.command === "RunHubspotClientSync"
            ? await syncClients(db, hs, p)
            : data.command === "RunHubspotUserSync"
              ? await syncUsers(db, hs, p)
              : data.command === "RunHubspotProjectSync"
                ? await syncProjects(db, hs, p)
                : await syncCustomProps(db, hs, p);
        break;
      }
      case "SyncDemoData": {
        if (!deps.syncDemo) throw new ApiError("Forbidden", "Demo data is not seeded in production");
        await progress(10, "seeding the demo data");
        result = await deps.syncDemo(db);
        break;
      }
    }
  } catch (e) {
    await audit(db, data.requestedBy, data.command, "CommandFailed", { jobId: job.jobId, message: (e as Error).message }).catch(() => {});
    throw e;
  }
  await audit(db, data.requestedBy, data.command, "CommandCompleted", { jobId: job.jobId, result });
  await progress(100, "done");
  return result;
}
