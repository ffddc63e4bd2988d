// The verdict-first summary's routes (issue 23): Projects({key})/ActionStandard, read by anyone who
// reads the project and set by those who may change it, and Responses/Scorecard, the concepts
// ranked on it with a go / consider / no-go line each (verdict.ts).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import { parseFilters } from "./filters.ts";
import { AdjustParam, FiltersParam, StatsMethodSchema, adjustOf, intQueryParam } from "./results.routes.ts";
import * as svc from "./verdict.ts";
import { viewScorecard } from "./view.ts";
import { summaryCurrent } from "./report.ts";

const KeyParams = keyParams("Projects");

const ActionStandard = svc.ActionStandardInput.extend({
  projectId: z.number().int(),
  title: z.string().describe("The measure's title"),
  isDefault: z.boolean().describe("Nothing stored: the headline measure (SPEC 9's order) against the benchmark"),
  measures: z.array(z.object({ standardQuestionId: z.number().int(), title: z.string() })).describe("The scaled measures the project asks, in SPEC 9's order: what a standard may name"),
}).openapi("ActionStandard");

const Scorecard = z
  .object({
    projectId: z.number().int(),
    standard: ActionStandard,
    judgedAgainst: z.enum(["benchmark", "others"]).describe("'others' with a single concept is judged against the benchmark"),
    benchmarkTypeId: z.number().int().nullable(),
    confidence: z.union([z.literal(90), z.literal(95), z.literal(99)]),
    method: StatsMethodSchema,
    base: z.number().int().describe("The measure's bases summed over the concepts; 0 when the filters match nobody"),
    rows: z.array(
      z.object({
        testOptionId: z.number().int().nullable(),
        rank: z.number().int().describe("1 + the number of concepts significantly ahead in the view's own tests (paired when the same respondents rated both); concepts no test separates share a rank"),
        top2: z.number(),
        ci: z.tuple([z.number(), z.number()]),
        n: z.number().int(),
        nEff: z.number(),
        smallBase: z.boolean(),
        verdict: z.enum(["go", "consider", "no-go"]).describe("The rule: docs/statistics.md 'The verdict'"),
        firm: z.boolean().describe("false when the verdict rests on no test against a norm: a low base, an indicative norm, or no norm and no other concept"),
        behind: z.array(z.number().int().nullable()).describe("The concepts significantly ahead of this one"),
        reason: z.string().describe("Why, in words: names every concept significantly ahead and a share below the norm's point estimate"),
      }),
    ),
    headline: z.string().describe("The verdict in one sentence, as every output of the view shows it"),
  })
  .openapi("Scorecard");

const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });

export function registerVerdictRoutes(app: App, deps: AppDeps): void {
  const { db } = deps;
  const readDb = deps.readDb ?? deps.db;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ActionStandard",
      tags: ["Projects"],
      operationId: "Projects_ActionStandard",
      summary: "The project's action standard",
      description: "The measure the concepts must pass and against what (the benchmark on screen, or each other); the default (isDefault) until the team sets one. 404 for a project without a scaled measure.",
      request: { params: KeyParams },
      responses: { ...ok(ActionStandard, "The standard"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.getActionStandard(readDb, c.get("ctx"), keyOf(c)), 200),
  );
  addRoute(
    app,
    {
      access: access.user,
      method: "put",
      path: "/api/v1/Projects/{key}/ActionStandard",
      tags: ["Projects"],
      operationId: "Projects_SetActionStandard",
      summary: "Set the project's action standard",
      description: "Stores the standard the Summary's scorecard judges the concepts by. The measure must be a scaled standard question the project asks (400 otherwise). Admins and Users of the project's client; a Viewer or a reader of a shared project gets 403.",
      request: { params: KeyParams, body: { required: true, content: { "application/json": { schema: svc.ActionStandardInput } } } },
      responses: { ...ok(ActionStandard, "The stored standard"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.setActionStandard(db, c.get("ctx"), keyOf(c), c.req.valid("json")), 200),
  );
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Responses/Scorecard",
      tags: ["Responses"],
      operationId: "Responses_Scorecard",
      summary: "The concepts ranked on the action standard, with a verdict each",
      description:
        "The standard's measure from QualResults under the same filters, benchmark, confidence and adjustment (its tests, adjusted within that view), " +
        "ranked by its tests (1 + the concepts significantly ahead), with go / consider / no-go by the rule of docs/statistics.md 'The verdict': against a norm that can be tested, go when significantly above it, no-go when significantly below or level with it while another concept is significantly ahead; " +
        "against an indicative norm, its point estimate with the paired tests (firm false); against each other, go when significantly ahead of every other concept, no-go when one is significantly ahead; consider otherwise, and always on a low base. headline is the verdict in one sentence.",
      request: {
        query: z.object({
          projectId: intQueryParam("projectId", "The project"),
          filters: FiltersParam,
          benchmarkTypeId: intQueryParam("benchmarkTypeId", "Benchmark to test against (Projects Benchmarks; 0 is 'None', 50%)").optional(),
          confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
          adjust: AdjustParam,
          total: z
            .enum(["sample", "markets"])
            .optional()
            .openapi({ param: { name: "total", in: "query" }, description: "As QualResults: sample (default) or markets (the all-markets total, markets weighted by population)" }),
        }),
      },
      responses: { ...ok(Scorecard, "The scorecard"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const qv = c.req.valid("query");
      return c.json(
        await viewScorecard(readDb, c.get("ctx"), {
          projectId: Number(qv.projectId),
          filters: parseFilters(qv.filters),
          benchmarkTypeId: qv.benchmarkTypeId === undefined ? null : Number(qv.benchmarkTypeId),
          confidence: qv.confidence ? (Number(qv.confidence) as 90 | 95 | 99) : 95,
          adjust: adjustOf(qv.adjust),
          total: qv.total === "markets" ? "markets" : "sample",
        }),
        200,
      );
    },
  );
  registerSummaryCurrent(app, readDb);
}

const SummaryCurrent = z
  .object({
    summaryId: z.number().int(),
    current: z.boolean().describe("Every QualResults figure the summary cites for this view is the view's figure now"),
    note: z.string().nullable().describe("Why it is not current, in words (null when it is)"),
  })
  .openapi("SummaryCurrent");

/** Responses/SummaryCurrent: whether an AI summary still agrees with the view on screen (report.ts). */
function registerSummaryCurrent(app: App, readDb: AppDeps["db"]): void {
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Responses/SummaryCurrent",
      tags: ["Responses"],
      operationId: "Responses_SummaryCurrent",
      summary: "Whether an AI summary still agrees with the view",
      description:
        "An AI summary is written text: after a benchmark's norm moves, a reweight or new respondents, the figures it cites may no longer be the view's. current is true when every QualResults figure it cites for this view (the same filters, benchmark and total) is the view's figure now; the deck and the workbook leave a summary out on the same rule. 404 for a summary of another project.",
      request: {
        query: z.object({
          projectId: intQueryParam("projectId", "The project"),
          summaryId: intQueryParam("summaryId", "The AI summary (AiProjectSummaries)"),
          filters: FiltersParam,
          benchmarkTypeId: intQueryParam("benchmarkTypeId", "The view's benchmark (0 is 'None', 50%)").optional(),
          total: z
            .enum(["sample", "markets"])
            .optional()
            .openapi({ param: { name: "total", in: "query" }, description: "As QualResults: sample (default) or markets" }),
        }),
      },
      responses: { ...ok(SummaryCurrent, "Whether the summary is current"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const qv = c.req.valid("query");
      return c.json(
        await summaryCurrent(readDb, c.get("ctx"), {
          projectId: Number(qv.projectId),
          summaryId: Number(qv.summaryId),
          filters: parseFilters(qv.filters),
          benchmarkTypeId: qv.benchmarkTypeId === undefined ? null : Number(qv.benchmarkTypeId),
          total: qv.total === "markets" ? "markets" : "sample",
        }),
        200,
      );
    },
  );
}
