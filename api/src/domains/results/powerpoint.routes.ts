// PowerPoint exports (SPEC 7): Projects({key})/PowerPointExport and Clients({key})/RenewalPowerPointExport
// start a job (202 with its id; Progress and Success with the download path on job-{id}); a GET of
// the same call with the export's id downloads the deck.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access, enterTenant } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyParams } from "../../openapi.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { enqueueJob } from "../../jobs/workers.ts";
import { ResponseFilterSchema } from "./filters.ts";
import { download, powerPointJob, type DeckInput } from "./powerpoint.ts";
import { ExportStarted } from "./exports.jobs.ts";

const Key = keyParams;
const KeyAndExport = (set: string) =>
  Key(set).extend({
    exportId: z
      .string()
      .uuid()
      .openapi({ param: { name: "exportId", in: "path" }, description: "The export's id, from the job's result" }),
  });
const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
/** The results views' settings a deck takes (QualResults' confidence, adjust and total), printed on its method slide. */
const DeckView = z.object({
  confidence: z
    .union([z.literal(90), z.literal(95), z.literal(99)])
    .optional()
    .describe("Confidence level of the intervals and tests: 90, 95 (default) or 99"),
  adjust: z.enum(["bh", "bonferroni", "none"]).optional().describe("Multiple-comparison adjustment within the deck's view: bh (Benjamini-Hochberg, default), bonferroni or none"),
  total: z
    .enum(["sample", "markets"])
    .optional()
    .describe("As QualResults: sample (default; every respondent at their own weight) or markets (the all-markets total, markets weighted by population, or by sample where a population is unknown)"),
});
const file = { 200: { description: "The deck", content: { [PPTX]: { schema: z.string().openapi({ format: "binary" }) } } } };

/** Queues the deck's job: its id. */
const start = async (deps: AppDeps, ctx: RequestCtx, input: DeckInput): Promise<string> => {
  const queue = deps.queue;
  if (!queue) throw new ApiError("ServiceUnavailable", "The job queue is not running");
  const jobId = await enterTenant(deps.db, ctx, (tx) => enqueueJob(queue, tx, powerPointJob, input, { userId: ctx.principal.userId, clientId: input.clientId }));
  return jobId!;
};

export function registerPowerPointRoutes(app: App, deps: AppDeps): void {
  registerProjectDeck(app, deps);
  registerRenewalDeck(app, deps);
}

/** Projects PowerPointExport and its download. */
function registerProjectDeck(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "post",
      path: "/api/v1/Projects/{key}/PowerPointExport",
      tags: ["Projects"],
      operationId: "Projects_PowerPointExport",
      summary: "Export the results as a PowerPoint deck",
      description:
        "A queued job builds a deck for these filters and benchmark (none: the 'None' entry, 50%), at the results view's confidence, multiple-comparison adjustment and total (as QualResults takes them; total=markets: the all-markets total, as the web app's All markets shows): title; method and sample (markets, n, fieldwork dates, filters, benchmark by name and value, the total and its weighting, confidence, adjustment, significance method); the concepts with their images; the verdict on the action standard; every measure against the benchmark; a slide per measure (native bar chart with the intervals as error bars and the benchmark line, the tests in a table); a slide per question; demographics; themes with quotes; the AI summary; the Van Westendorp curves and the best market reach sets. Every figure is the results functions'. Download it with GET …/PowerPointExport/{exportId}.",
      request: {
        params: Key("Projects"),
        body: {
          required: false,
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  filters: ResponseFilterSchema.optional(),
                  benchmarkTypeId: z.number().int().nullable().optional(),
                  ...DeckView.shape,
                })
                .openapi("PowerPointExport"),
            },
          },
        },
      },
      responses: { 202: { description: "Queued", content: { "application/json": { schema: ExportStarted } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const projectId = Number(c.req.valid("param").key);
      // The body is optional (and checked by its schema when sent): read as sent, absent as {}.
      const b = ((await c.req.json().catch(() => ({}))) ?? {}) as { filters?: unknown; benchmarkTypeId?: number | null; confidence?: unknown; adjust?: unknown; total?: unknown };
      const filters = ResponseFilterSchema.parse(b.filters ?? {});
      const view = DeckView.parse({ confidence: b.confidence, adjust: b.adjust, total: b.total });
      const ctx = c.get("ctx");
      const [p] = await enterTenant(db, ctx, (tx) => tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${projectId} and deleted_at is null`);
      if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
      const jobId = await start(deps, ctx, {
        kind: "ProjectPowerPoint",
        projectId,
        clientId: p.clientId,
        userId: ctx.principal.userId,
        isStaff: ctx.principal.isStaff,
        filters,
        benchmarkTypeId: b.benchmarkTypeId ?? null,
        ...view,
      });
      return c.json({ jobId }, 202);
    },
  );
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/PowerPointExport/{exportId}",
      tags: ["Projects"],
      operationId: "Projects_PowerPointExportDownload",
      summary: "Download a project's PowerPoint deck",
      description: "The deck a PowerPointExport job made (kept for 7 days).",
      request: { params: KeyAndExport("Projects") },
      responses: { ...file, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const p = c.req.valid("param");
      const f = await download(db, c.get("ctx"), p.exportId, { projectId: Number(p.key) });
      return c.body(f.body, 200, { "content-type": f.contentType, "content-disposition": `attachment; filename="${f.fileName}"` });
    },
  );
}

/** Clients RenewalPowerPointExport and its download. */
function registerRenewalDeck(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/Clients/{key}/RenewalPowerPointExport",
      tags: ["Clients"],
      operationId: "Clients_RenewalPowerPointExport",
      summary: "A client's renewal deck",
      description:
        "A queued job builds a deck for the client's renewal: completed projects and their respondents, credits spent per month (native charts). Download it with GET …/RenewalPowerPointExport/{exportId}.",
      request: { params: Key("Clients") },
      responses: { 202: { description: "Queued", content: { "application/json": { schema: ExportStarted } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const clientId = Number(c.req.valid("param").key);
      const ctx = c.get("ctx");
      const [cl] = await enterTenant(db, { ...ctx, clientId: null }, (tx) => tx`select 1 from clients where id = ${clientId}`);
      if (!cl) throw new ApiError("NotFound", `No client ${clientId}`);
      const jobId = await start(deps, ctx, { kind: "RenewalPowerPoint", clientId, userId: ctx.principal.userId, isStaff: true });
      return c.json({ jobId }, 202);
    },
  );
  addRoute(
    app,
    {
      access: access.staff,
      method: "get",
      path: "/api/v1/Clients/{key}/RenewalPowerPointExport/{exportId}",
      tags: ["Clients"],
      operationId: "Clients_RenewalPowerPointExportDownload",
      summary: "Download a client's renewal deck",
      description: "The deck a RenewalPowerPointExport job made (kept for 7 days).",
      request: { params: KeyAndExport("Clients") },
      responses: { ...file, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const p = c.req.valid("param");
      const f = await download(db, { ...c.get("ctx"), clientId: null }, p.exportId, { clientId: Number(p.key) });
      return c.body(f.body, 200, { "content-type": f.contentType, "content-disposition": `attachment; filename="${f.fileName}"` });
    },
  );
}
