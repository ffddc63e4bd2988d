// AiProjectSummaries POST and Regenerate, Segments GenerateSummaries (SPEC 7): each queues the
// `ai.summaries` job and answers at once; the summary rows go Pending -> Running -> Ready | Failed
// and the job reports Progress / Success / Error on the websocket channel job-{jobId}.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { schemasFor } from "../../entities/schemas.ts";
import { rawJson } from "../projects/common.ts";
import { ResponseFilterSchema } from "../results/filters.ts";
import * as svc from "./summaries.service.ts";

export const SummariesQueued = z
  .object({
    jobId: z.string().describe("Follow it on the websocket channel job-{jobId}: Progress, then Success or Error"),
    summaryIds: z.array(z.number().int()).describe("The AiProjectSummaries rows being written (status Pending)"),
  })
  .openapi("SummariesQueued");

/** The job queue, or a 503 when it is not running. */
const queueOf = (deps: AppDeps) => {
  if (!deps.queue) throw new ApiError("ServiceUnavailable", "The job queue is not running");
  return deps.queue;
};

export function registerSummaryRoutes(app: App, deps: AppDeps): void {
  registerSummaryCreate(app, deps);
  registerSummaryRegeneration(app, deps);
}

/** AiProjectSummaries POST (a summary written by the AI). */
function registerSummaryCreate(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const entity = schemasFor(reg, reg.mustGet("AiProjectSummaries")).entity;
  const one = (description: string) => ({ description, content: { "application/json": { schema: entity } } });
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/AiProjectSummaries",
      tags: ["AiProjectSummaries"],
      operationId: "AiProjectSummaries_create",
      summary: "Ask for a project summary",
      description:
        "Queues the summary of a project's results (optionally a segment's, under its saved filters; an objective's; or under given filters). " +
        "Answers the Pending row with its jobId; it becomes Ready (content citing its figures, referencesData) or Failed.",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  projectId: z.number().int().positive(),
                  segmentId: z.number().int().positive().nullable().optional().describe("A saved segment: its filters apply"),
                  projectObjectiveId: z.number().int().positive().nullable().optional().describe("Write to this objective instead of the active one"),
                  // A union rather than .nullable(): the generated type is then ResponseFilter | null, which typed clients can send.
                  filters: z.union([ResponseFilterSchema, z.null()]).optional(),
                  benchmarkTypeId: z.number().int().min(0).nullable().optional().describe("The benchmark to write against (Projects Benchmarks; 0 'None', 50%); default all customers (1)"),
                  total: z
                    .enum(["sample", "markets"])
                    .nullable()
                    .optional()
                    .describe("As QualResults: sample (default; every respondent at their own weight) or markets (the all-markets total, markets weighted by population: the web app's All markets)"),
                })
                .openapi("AiProjectSummaryRequest"),
            },
          },
        },
      },
      responses: { 201: one("The queued summary"), ...commonErrors, 404: errors[404] },
    },
    async (c) => rawJson(await svc.requestSummary(db, reg, queueOf(deps), c.get("ctx"), c.req.valid("json")), 201),
  );
}

/** AiProjectSummaries Regenerate and Segments GenerateSummaries. */
function registerSummaryRegeneration(app: App, deps: AppDeps): void {
  const { db } = deps;
  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/AiProjectSummaries/{key}/Regenerate",
      tags: ["AiProjectSummaries"],
      operationId: "AiProjectSummaries_Regenerate",
      summary: "Write a summary again",
      description: "The summary goes back to Pending with a new job (the current results, the published prompt). 409 while it is being written.",
      request: { params: keyParams("AiProjectSummaries") },
      responses: { 202: { description: "Queued", content: { "application/json": { schema: SummariesQueued } } }, ...commonErrors, 404: errors[404], 409: errors[409] },
    },
    async (c) => {
      const r = await svc.regenerate(db, queueOf(deps), c.get("ctx"), keyOf(c));
      return c.json({ jobId: r.jobId, summaryIds: [r.id] }, 202);
    },
  );

  addRoute(
    app,
    {
      access: access.user,
      method: "post",
      path: "/api/v1/Segments/{key}/GenerateSummaries",
      tags: ["Segments"],
      operationId: "Segments_GenerateSummaries",
      summary: "Summarise a segment",
      description: "Queues the summary of the segment's project under the segment's saved filters, written to the project's active objective.",
      request: { params: keyParams("Segments") },
      responses: { 202: { description: "Queued", content: { "application/json": { schema: SummariesQueued } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.generateSegmentSummaries(db, queueOf(deps), c.get("ctx"), keyOf(c)), 202),
  );
}
