// The admin command runner (SPEC 7): POST /api/CommandRunner/{Command}, staff only. Each command is
// queued as a job; the answer is its job id, whose channel (job-{id}) carries Progress, Success and
// Error.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { USER_NOTIFICATION_EVENTS } from "../../jobs/channel.ts";
import { enqueueJob } from "../../jobs/workers.ts";
import { commandJob } from "./commands.jobs.ts";
import { HUBSPOT_COMMANDS, HUBSPOT_NOT_CONFIGURED, recordRequest, type CommandName } from "./commands.service.ts";
import { hubspotFromEnv } from "../../hubspot/client.ts";

const Started = z.object({ jobId: z.string().describe("Follow it on the websocket channel job-{jobId}"), command: z.string() }).openapi("CommandStarted");
const day = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "YYYY-MM-DD")
  .optional();

const BODIES: Record<CommandName, { schema: z.ZodType; summary: string; description: string }> = {
  TestNotification: {
    schema: z
      .strictObject({ userId: z.number().int().positive(), type: z.enum(USER_NOTIFICATION_EVENTS).optional(), title: z.string().max(200).optional(), body: z.string().max(2000).optional() })
      .openapi("TestNotification"),
    summary: "Send a test notification",
    description: "Raises a notification (default type UserAddedToTeam) for a user: its row and its realtime event on user-{id}.",
  },
  TestNextSchedule: {
    schema: z.strictObject({ today: day }).openapi("TestNextSchedule"),
    summary: "What the scheduler would start",
    description: "A dry run of the scheduler: the waves due by today (ToRun) and the next scheduled date. Changes nothing.",
  },
  TestCreateNextSchedule: {
    schema: z.strictObject({ today: day }).openapi("TestCreateNextSchedule"),
    summary: "Start the due waves now",
    description: "Runs the scheduler's step now (charges and starts the waves due by today), then the fielding tick (their survey runs are created and launched; the simulated panel answers).",
  },
  ReGenerateThemes: {
    schema: z.strictObject({ projectId: z.number().int().positive() }).openapi("ReGenerateThemes"),
    summary: "Code a project's open answers again",
    description: "The project's generated themes are replaced by a fresh coding of its open answers (key-phrase clustering), and every answer's sentiment is set again (AFINN-165 lexicon).",
  },
  ReGenerateTextResponsesQa: {
    schema: z.strictObject({ projectId: z.number().int().positive() }).openapi("ReGenerateTextResponsesQa"),
    summary: "Check the quality of a project's open answers",
    description:
      "Every open answer of the project gets a quality status again: Ok, NonAnswer, TooShort, Gibberish (keyboard mashing, runs of one letter, no vowels) or Duplicate (the same text as another answer of the respondent), with the reason (TextResponses qaStatus, qaReason). The result counts each status.",
  },
  RunHubspotClientSync: {
    schema: z.strictObject({}).openapi("RunHubspotClientSync"),
    summary: "Sync clients with their HubSpot companies",
    description: "Every client with an hsCompanyId gets its company's name, industry and domain (LinkedClients, the client's hubspotCompanies). 503 when HubSpot is not configured.",
  },
  RunHubspotUserSync: {
    schema: z.strictObject({}).openapi("RunHubspotUserSync"),
    summary: "Sync members to HubSpot contacts",
    description: "Every active member is found in HubSpot by email, or created as a contact. 503 when HubSpot is not configured.",
  },
  RunHubspotProjectSync: {
    schema: z.strictObject({}).openapi("RunHubspotProjectSync"),
    summary: "Sync projects to HubSpot deals",
    description:
      "Every submitted project of a client with an hsCompanyId is upserted as a deal (by its ideally_project_id property) with its name, status and credits spent. 503 when HubSpot is not configured.",
  },
  RunHubspotClientCustomPropsSync: {
    schema: z.strictObject({}).openapi("RunHubspotClientCustomPropsSync"),
    summary: "Sync the companies' custom properties",
    description: "The custom (not HubSpot-defined) company properties of every linked company are copied into LinkedClients.properties. 503 when HubSpot is not configured.",
  },
  SyncDemoData: {
    schema: z.strictObject({}).openapi("SyncDemoData"),
    summary: "Seed the demo data when missing",
    description: "The demo clients and logins, and the demo projects fielded by the simulated panel, when they are missing (development; refused in production).",
  },
};

export function registerCommandRoutes(app: App, deps: AppDeps): void {
  for (const [command, b] of Object.entries(BODIES) as [CommandName, (typeof BODIES)[CommandName]][]) {
    addRoute(
      app,
      {
        access: access.staff,
        method: "post",
        path: `/api/CommandRunner/${command}`,
        tags: ["CommandRunner"],
        operationId: `CommandRunner_${command}`,
        summary: b.summary,
        description: `${b.description} Runs as a queued job; answers its id.`,
        request: { body: { required: false, content: { "application/json": { schema: b.schema } } } },
        responses: { 202: { description: "Queued", content: { "application/json": { schema: Started } } }, ...commonErrors, 404: errors[404], 409: errors[409] },
      },
      async (c) => {
        const queue = deps.queue;
        if (!queue) throw new ApiError("ServiceUnavailable", "The job queue is not running");
        if ((HUBSPOT_COMMANDS as readonly string[]).includes(command) && !hubspotFromEnv()) throw new ApiError("ServiceUnavailable", HUBSPOT_NOT_CONFIGURED);
        const raw = await c.req.json().catch(() => ({}));
        const parsed = b.schema.safeParse(raw ?? {});
        if (!parsed.success) {
          const errs = parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }));
          throw new ApiError("ValidationError", `Invalid ${command}: ${errs.map((e) => `${e.path} ${e.message}`).join("; ")}`, undefined, errs);
        }
        const ctx = c.get("ctx");
        const input = parsed.data as Record<string, unknown>;
        const r = await recordRequest(deps.db, ctx, command, input, (tx) =>
          enqueueJob(queue, tx, commandJob, { command, input, requestedBy: ctx.principal.userId }, { userId: ctx.principal.userId, clientId: null }),
        );
        return c.json(r, 202);
      },
    );
  }
}
