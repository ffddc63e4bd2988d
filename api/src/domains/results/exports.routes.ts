// Results exports (SPEC 7): Projects({key})/ExportCsv and /ExportExcel (moved from
// results.routes.ts, issue 34).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf } from "../../openapi.ts";
import { parseFilters } from "./filters.ts";
import * as exportsSvc from "./exports.service.ts";
import { FiltersParam, int } from "./params.ts";
import { KeyParams, AdjustParam, adjustOf } from "./results.schemas.ts";

/** Projects ExportCsv and ExportExcel. */
export function registerExportRoutes(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  const file = (type: string, description: string) => ({
    200: {
      description,
      headers: z.object({ "content-disposition": z.string().describe("attachment; filename=...") }),
      content: { [type]: { schema: z.string().openapi({ format: "binary" }) } },
    },
  });
  const attachment = (fileName: string) => `attachment; filename="${fileName}"`;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ExportCsv",
      tags: ["Projects"],
      operationId: "Projects_ExportCsv",
      summary: "The respondents' data as CSV",
      description: "One row per filtered respondent: id, region, survey run, panel, weight, completion time, week, demographics, then every question's answer (per test option for the test loop; a multiple choice lists its options separated by semicolons). RFC 4180; cells that a spreadsheet would run as formulas are prefixed with '.",
      request: { params: KeyParams, query: z.object({ filters: FiltersParam }) },
      responses: { ...file("text/csv", "The CSV file"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const r = await exportsSvc.exportCsv(db, c.get("ctx"), keyOf(c), parseFilters(c.req.valid("query").filters));
      return c.body(r.body, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": attachment(r.fileName) });
    },
  );
  const flag = (name: string, description: string) => z.enum(["true", "false"]).optional().openapi({ param: { name, in: "query" }, description });
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
          confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level of the summary sheets' intervals and tests, default 95" }),
          adjust: AdjustParam,
          total: z
            .enum(["sample", "markets"])
            .optional()
            .openapi({ param: { name: "total", in: "query" }, description: "As QualResults: sample (default) or markets (the all-markets total, markets weighted by population)" }),
        }),
      },
      responses: { ...file("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "The workbook"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const x = c.req.valid("query");
      const r = await exportsSvc.exportExcel(db, c.get("ctx"), {
        projectId: keyOf(c),
        filters: parseFilters(x.filters),
        segmentId: x.segmentId ? Number(x.segmentId) : null,
        includeAllSegments: x.includeAllSegments === "true",
        includeGroupSegments: x.includeGroupSegments === "true",
        benchmarkTypeId: x.benchmarkTypeId ? Number(x.benchmarkTypeId) : null,
        confidence: x.confidence ? (Number(x.confidence) as 90 | 95 | 99) : 95,
        adjust: adjustOf(x.adjust),
        total: x.total === "markets" ? "markets" : "sample",
      });
      return c.body(r.body, 200, { "content-type": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "content-disposition": attachment(r.fileName) });
    },
  );
}
