// Results exports (SPEC 7): Projects({key})/ExportCsv and /ExportExcel (moved from
// results.routes.ts, issue 34). Within the bound on synchronous exports in flight (export-bound.ts)
// they answer the file, built by the process's export workers off the API's thread when it has
// them (export-workers.ts, record 0137); beyond it they queue it as a job and answer 202 with its
// id, as PowerPointExport does (record 0134), and GET …/ExportCsv/{exportId} downloads it when done.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import type { RequestCtx } from "../../access/principal.ts";
import type { Db } from "../../db/client.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import { DEFAULT_QUERY_LIMITS } from "../../config.ts";
import { tenantKey } from "../../db/gate.ts";
import { ApiError } from "../../errors.ts";
import { parseFilters } from "./filters.ts";
import type * as exportsSvc from "./exports.service.ts";
import { buildDataExport } from "./export-workers.ts";
import { ExportBound, exportTurns } from "./export-bound.ts";
import { CSV_TYPE, downloadDataExport, ExportStarted, queueDataExport, XLSX_TYPE, type DataExportRequest } from "./exports.jobs.ts";
import { FiltersParam, int } from "./params.ts";
import { KeyParams, AdjustParam, adjustOf } from "./results.schemas.ts";

/** What a queued export answers: the job to follow (the shape PowerPointExport answers). */
const Queued = {
  202: {
    description:
      "Queued: the caller (or its client) already has as many exports in flight as it may have at once. Follow the job on the websocket channel job-{jobId}; its Success carries the download path (or download with the job's id once it is done)",
    content: { "application/json": { schema: ExportStarted } },
  },
};

const file = (type: string, description: string) => ({
  200: {
    description,
    headers: z.object({ "content-disposition": z.string().describe("attachment; filename=...") }),
    content: { [type]: { schema: z.string().openapi({ format: "binary" }) } },
  },
});
const attachment = (fileName: string) => `attachment; filename="${fileName}"`;
/** The file within the bound on synchronous exports; beyond it the export queued, and its job's id. */
type Bounded = <T>(ctx: RequestCtx, queued: DataExportRequest, sync: () => Promise<T>) => Promise<{ file: T } | { jobId: string }>;

/** Projects ExportCsv and ExportExcel, and the downloads of the queued ones. */
export function registerExportRoutes(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  const limits = deps.queryLimits ?? DEFAULT_QUERY_LIMITS;
  const bound = new ExportBound({ perUser: limits.syncExportsPerUser, perTenant: limits.syncExportsPerTenant });
  const bounded: Bounded = async (ctx, queued, sync) => {
    const tenant = tenantKey(ctx.clientId, ctx.principal.userId);
    const release = bound.enter({ userId: ctx.principal.userId, tenant });
    if (release) {
      try {
        // In flight from here; built in the tenant's turn (one of its exports at a time per process).
        const turn = await exportTurns.take(tenant, ctx.limits?.signal);
        try {
          return { file: await sync() };
        } finally {
          turn();
        }
      } finally {
        release();
      }
    }
    // Queued on the primary: the job is written there.
    if (!deps.queue) throw new ApiError("ServiceUnavailable", "The job queue is not running");
    return { jobId: await queueDataExport(deps.db, deps.queue, ctx, queued, limits.userWaitMs) };
  };
  registerCsv(app, db, bounded);
  registerExcel(app, db, bounded);
  registerQueuedDownloads(app, deps);
}

/** Projects ExportCsv. */
function registerCsv(app: App, db: Db, bounded: Bounded): void {
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ExportCsv",
      tags: ["Projects"],
      operationId: "Projects_ExportCsv",
      summary: "The respondents' data as CSV",
      description:
        "One row per filtered respondent: id, region, survey run, panel, weight, completion time, week, demographics, then every question's answer (per test option for the test loop; a multiple choice lists its options separated by semicolons). RFC 4180; cells that a spreadsheet would run as formulas are prefixed with '.",
      request: { params: KeyParams, query: z.object({ filters: FiltersParam }) },
      responses: { ...file("text/csv", "The CSV file"), ...Queued, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const csv = { projectId: keyOf(c), filters: parseFilters(c.req.valid("query").filters) };
      const ctx = c.get("ctx");
      const r = await bounded(ctx, { kind: "ProjectCsv", csv }, () => buildDataExport(db, ctx, { kind: "ProjectCsv", csv }));
      if ("jobId" in r) return c.json({ jobId: r.jobId }, 202);
      return c.body(r.file.body, 200, { "content-type": CSV_TYPE, "content-disposition": attachment(r.file.fileName) });
    },
  );
}

/** Projects ExportExcel. */
function registerExcel(app: App, db: Db, bounded: Bounded): void {
  const flag = (name: string, description: string) =>
    z
      .enum(["true", "false"])
      .optional()
      .openapi({ param: { name, in: "query" }, description });
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ExportExcel",
      tags: ["Projects"],
      operationId: "Projects_ExportExcel",
      summary: "The results as an Excel workbook",
      description:
        "A Cover (project, markets, respondents, fieldwork dates, filters, benchmark by name and value, the total and its weighting, confidence, multiple-comparison adjustment, significance method, the verdict), a Summary sheet with the weighted top-2-box, base, interval, benchmark value and difference in points (numbers with number formats) and the test's outcome in words for every measure and test option (the figures QualResults answers for the same filters, benchmark, confidence, adjustment and total; none: the 'None' entry, 50%), Markets, Cross-tabs, a sheet per saved segment (includeAllSegments) and per project group segment (includeGroupSegments), a sheet per question, Demographics, Quality and the respondents' Data. segmentId applies a saved segment's filters.",
      request: {
        params: KeyParams,
        query: z.object({
          filters: FiltersParam,
          segmentId: int("segmentId", "A saved segment whose filters apply").optional(),
          includeAllSegments: flag("includeAllSegments", "A summary sheet per saved segment"),
          includeGroupSegments: flag("includeGroupSegments", "A summary sheet per project group segment"),
          benchmarkTypeId: int("benchmarkTypeId", "The benchmark the summary compares with").optional(),
          confidence: z
            .enum(["90", "95", "99"])
            .optional()
            .openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level of the summary sheets' intervals and tests, default 95" }),
          adjust: AdjustParam,
          total: z
            .enum(["sample", "markets"])
            .optional()
            .openapi({ param: { name: "total", in: "query" }, description: "As QualResults: sample (default) or markets (the all-markets total, markets weighted by population)" }),
        }),
      },
      responses: { ...file("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "The workbook"), ...Queued, ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const x = c.req.valid("query");
      const excel: exportsSvc.ExcelInput = {
        projectId: keyOf(c),
        filters: parseFilters(x.filters),
        segmentId: x.segmentId ? Number(x.segmentId) : null,
        includeAllSegments: x.includeAllSegments === "true",
        includeGroupSegments: x.includeGroupSegments === "true",
        benchmarkTypeId: x.benchmarkTypeId ? Number(x.benchmarkTypeId) : null,
        confidence: x.confidence ? (Number(x.confidence) as 90 | 95 | 99) : 95,
        adjust: adjustOf(x.adjust),
        total: x.total === "markets" ? "markets" : "sample",
      };
      const ctx = c.get("ctx");
      const r = await bounded(ctx, { kind: "ProjectExcel", excel }, () => buildDataExport(db, ctx, { kind: "ProjectExcel", excel }));
      if ("jobId" in r) return c.json({ jobId: r.jobId }, 202);
      return c.body(r.file.body, 200, { "content-type": XLSX_TYPE, "content-disposition": attachment(r.file.fileName) });
    },
  );
}

/** GET …/ExportCsv/{exportId} and …/ExportExcel/{exportId}: a queued export's file. */
function registerQueuedDownloads(app: App, deps: AppDeps): void {
  const params = keyParams("Projects").extend({
    exportId: z
      .string()
      .uuid()
      .openapi({ param: { name: "exportId", in: "path" }, description: "The export's id, from the job's result (or the job's id)" }),
  });
  for (const [call, kind, type] of [
    ["ExportCsv", "ProjectCsv", "text/csv"],
    ["ExportExcel", "ProjectExcel", XLSX_TYPE],
  ] as const) {
    addRoute(
      app,
      {
        access: access.viewer,
        method: "get",
        path: `/api/v1/Projects/{key}/${call}/{exportId}`,
        tags: ["Projects"],
        operationId: `Projects_${call}Download`,
        summary: `Download a queued ${call}`,
        description: `The file a queued ${call} made (kept for 7 days): by the export's id from its job's Success, or by the job's id (NotFound until the job has succeeded).`,
        request: { params },
        responses: { 200: { description: "The file", content: { [type]: { schema: z.string().openapi({ format: "binary" }) } } }, ...commonErrors, 404: errors[404] },
      },
      async (c) => {
        const p = c.req.valid("param");
        // The primary: the job wrote the file there, and a replica may not have it yet.
        const f = await downloadDataExport(deps.db, c.get("ctx"), p.exportId, Number(p.key), kind);
        return c.body(f.body, 200, { "content-type": f.contentType, "content-disposition": `attachment; filename="${f.fileName}"` });
      },
    );
  }
}
