// Scheduling and waves (SPEC 7): Projects UpdateProjectScheduling and SchedulingState,
// ProjectSchedules ToRun, SyncDates and SyncNpdDates. Thin: validate, call the service, answer.
// StopProjectScheduling is the lifecycle's (it cancels and refunds every unrun wave).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { ProjectFields } from "../../entities/projects.ts";
import * as svc from "./scheduling.service.ts";

const KeyParams = z.object({
  key: z
    .string()
    .regex(/^-?\d{1,9}$/, "must be an integer")
    .openapi({ param: { name: "key", in: "path" }, description: "Projects key" }),
});
const keyOf = (c: { req: { valid(t: "param"): { key: string } } }) => {
  const k = Number(c.req.valid("param").key);
  if (!Number.isSafeInteger(k)) throw new ApiError("BadRequest", "The key must be an integer");
  return k;
};

const IsoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "a date, YYYY-MM-DD")
  .refine((d) => !Number.isNaN(Date.parse(`${d}T00:00:00Z`)) && new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), "a real date");

const UpdateScheduling = z
  .strictObject({
    scheduleStartDate: IsoDate.nullable().describe("The first wave's date (wave k at start + (k - 1) x frequency)"),
    scheduleFrequencyWeeks: ProjectFields.scheduleFrequencyWeeks.nullable().describe("Weeks between waves"),
    wavesRequired: z.boolean().describe("Wave mode without dates (SPEC 4): the project runs in waves"),
    scheduleWavesRequired: ProjectFields.scheduleWavesRequired.nullable().optional().describe("How many waves in all; unchanged when left out"),
    schedulePause: z.boolean().optional().describe("Paused: the scheduler starts none of its waves; unchanged when left out"),
  })
  .openapi("UpdateProjectScheduling");

const UpdateResult = z
  .object({
    projectId: z.number().int(),
    statusCode: z.number().int(),
    waveMode: z.boolean().describe("SPEC 4: a start date and a frequency both set, or waves required"),
    regenerated: z.boolean().describe("Whether the unrun waves were rebuilt from the new settings"),
    waves: z.number().int().describe("Waves rebuilt"),
    charged: z.number().describe("Credits charged again for rebuilt waves that were charged"),
    refunded: z.number().describe("Credits refunded for the waves replaced"),
    changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })),
  })
  .openapi("UpdateProjectSchedulingResult");

const ScheduleState = z
  .object({
    id: z.number().int(),
    regionId: z.number().int(),
    waveNumber: z.number().int().nullable(),
    scheduleDate: z.string(),
    scheduleTypeId: z.number().int().describe("1 Standard, 10 DelayCharge, 15 DelayChargeFuture"),
    scheduleType: z.string(),
    isCustomerPanel: z.boolean(),
    sampleSupplierId: z.number().int().nullable().describe("The sample supplier staff chose for the wave (PATCH ProjectSchedules), null for the project's panel"),
    sampleSize: z.number().int().nullable(),
    surveyRunId: z.number().int().nullable(),
    launchState: z.enum(["Scheduled", "ReadyToLaunch", "Blocked", "Run"]).describe("Run once a survey run carries it"),
    startedAt: z.string().nullable().describe("When the scheduler started it"),
    blockedReason: z.string().nullable(),
    chargeStatus: z.enum(["Uncharged", "Pending", "Settled"]).describe("Uncharged (a DelayCharge wave not due yet), Pending (30), Settled (40)"),
    creditLogId: z.number().int().nullable(),
    creditAmount: z.number().nullable().describe("Credits charged, null while uncharged"),
    week: z.number().int().nullable().describe("NPD: weeks since launch"),
    weekBand: z.string().nullable().describe("NPD: 1-8, 9-16, 17-25 or 26+"),
  })
  .openapi("ProjectScheduleState");

const SchedulingState = z
  .object({
    projectId: z.number().int(),
    statusCode: z.number().int(),
    projectTypeId: z.number().int(),
    waveMode: z.boolean(),
    schedulePause: z.boolean(),
    scheduleStartDate: z.string().nullable(),
    scheduleFrequencyWeeks: z.number().int().nullable(),
    scheduleWavesRequired: z.number().int().nullable(),
    wavesRequired: z.boolean(),
    launchDate: z.string().nullable(),
    lastRunCost: z.number().nullable().describe("SPEC 9: minus the sum of the charges of the latest charged schedule date"),
    nextScheduleDate: z.string().nullable(),
    wavesRun: z.number().int(),
    wavesUpcoming: z.number().int(),
    regions: z.array(
      z.object({
        regionId: z.number().int(),
        regionName: z.string(),
        upcoming: z.array(ScheduleState).describe("Not run yet, by date"),
        past: z.array(ScheduleState).describe("Run (a survey run carries them), by date"),
      }),
    ),
  })
  .openapi("SchedulingState");

const DueSchedule = z
  .object({
    id: z.number().int(),
    projectId: z.number().int(),
    clientId: z.number().int(),
    projectStatusCode: z.number().int(),
    regionId: z.number().int(),
    waveNumber: z.number().int().nullable(),
    scheduleDate: z.string(),
    scheduleTypeId: z.number().int(),
    launchState: z.string(),
    blockedReason: z.string().nullable(),
    creditLogId: z.number().int().nullable(),
  })
  .openapi("DueProjectSchedule");

const ProjectRef = z.strictObject({ projectId: z.number().int().positive() }).openapi("ProjectSchedulesSync");
const SyncResult = z
  .object({ projectId: z.number().int(), redated: z.number().int().describe("Schedules re-dated"), weeks: z.number().int().describe("NPD weeks written") })
  .openapi("ProjectSchedulesSyncResult");

const conflict = "Not allowed at the project's status (docs/project-lifecycle.md, Scheduling), or the ledger refuses the re-charge";

export function registerSchedulingRoutes(app: App, { db }: AppDeps): void {
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Projects/{key}/UpdateProjectScheduling",
      tags: ["Projects"],
      operationId: "Projects_UpdateProjectScheduling",
      summary: "Set a project's schedule (start date, frequency, waves, pause) and rebuild its unrun waves",
      description:
        "0 to 800. At 0 the settings only (Submit schedules the waves); from 50 the unrun waves are rebuilt per region and wave " +
        "(wave 1 Standard, the next uncharged wave DelayCharge, later ones DelayChargeFuture) and NPD weeks follow; charged waves are refunded and charged again at today's cost.",
      request: { params: KeyParams, body: { required: true, content: { "application/json": { schema: UpdateScheduling } } } },
      responses: {
        200: { description: "Done", content: { "application/json": { schema: UpdateResult } } },
        ...commonErrors,
        404: errors[404],
        409: errorResponse(conflict),
      },
    },
    async (c) => c.json(await svc.updateProjectScheduling(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/SchedulingState",
      tags: ["Projects"],
      operationId: "Projects_SchedulingState",
      summary: "A project's upcoming and past waves per region, their charges, the last-run cost, wave mode and pause",
      request: { params: KeyParams },
      responses: { 200: { description: "The scheduling state", content: { "application/json": { schema: SchedulingState } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.schedulingState(db, c.get("ctx"), keyOf(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/ProjectSchedules/ToRun",
      tags: ["ProjectSchedules"],
      operationId: "ProjectSchedules_ToRun",
      summary: "Schedules due now: dated today or earlier, not run, not started, of projects at 300 or 800 that are not paused",
      responses: { 200: { description: "The due schedules", content: { "application/json": { schema: z.object({ value: z.array(DueSchedule) }) } } }, ...commonErrors },
    },
    async (c) => c.json({ value: await svc.toRun(db, c.get("ctx")) }, 200),
  );

  const sync = (name: "SyncDates" | "SyncNpdDates", summary: string, run: typeof svc.syncDates) =>
    addRoute(
      app,
      {
        access: access.user,
        method: "post",
        path: `/api/v1/ProjectSchedules/${name}`,
        tags: ["ProjectSchedules"],
        operationId: `ProjectSchedules_${name}`,
        summary,
        description: "50 to 800 (a project with scheduled waves).",
        request: { body: { required: true, content: { "application/json": { schema: ProjectRef } } } },
        responses: {
          200: { description: "Done", content: { "application/json": { schema: SyncResult } } },
          ...commonErrors,
          404: errors[404],
          409: errorResponse(conflict),
        },
      },
      async (c) => c.json(await run(db, c.get("ctx"), c.req.valid("json").projectId), 200),
    );
  sync("SyncDates", "Re-date a project's unrun waves from its start date and frequency", svc.syncDates);
  sync("SyncNpdDates", "Rebuild an NPD project's weeks since launch from its launch date", svc.syncNpdDates);
}
