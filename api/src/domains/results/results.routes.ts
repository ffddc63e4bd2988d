// Results functions (SPEC 7): Projects({key})/ResponsesCount and /Benchmarks, Responses WeightSum,
// QualResults and DemographicsResults, StandardQuestions StandardQuestionDescription. GET functions:
// the response filter object travels as JSON in `filters` (results/filters.ts).
// The Responses, TextResponses and export functions are registered from their own files, in this order.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf } from "../../openapi.ts";
import { parseFilters } from "./filters.ts";
import * as svc from "./results.service.ts";
import { FiltersParam, int } from "./params.ts";
import { sendJsonText } from "./json-text.ts";
import { registerResponsesRoutes } from "./responses.routes.ts";
import { registerTextResponseRoutes } from "./text-responses.routes.ts";
import { registerExportRoutes } from "./exports.routes.ts";
import { KeyParams, Count, Benchmarks, Descriptions, ok, intList } from "./results.schemas.ts";
import { viewSimulated } from "./simulated.ts";

const Simulated = z
  .object({
    projectId: z.number().int(),
    respondents: z.number().int().describe("The respondents the filters keep (valid completes)"),
    simulated: z.number().int().describe("Of them, the simulated panel's"),
    words: z.string().nullable().describe('What every results page, export and AI answer says of them ("All 1,200 respondents are simulated: ..."); null when none is simulated'),
  })
  .openapi("SimulatedRespondents");

export function registerResultsRoutes(app: App, deps: AppDeps): void {
  registerProjectCountRoutes(app, deps);
  registerResponsesRoutes(app, deps);
  registerTextResponseRoutes(app, deps);
  registerExportRoutes(app, deps);
  registerLandingRoutes(app, deps);
}

/** Projects ResponsesCount, Benchmarks and SimulatedRespondents. */
function registerProjectCountRoutes(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ResponsesCount",
      tags: ["Projects"],
      operationId: "Projects_ResponsesCount",
      summary: "Respondents per test option",
      description:
        "The filtered respondents who saw each test option (a project without test options: one row with testOptionId null): count, weight, respondents per standard question, and per week.",
      request: {
        params: KeyParams,
        query: z.object({ filters: FiltersParam, systemQuestionId: int("systemQuestionId", "Accepted for the results page's call; the counts are per test option").optional() }),
      },
      responses: { ...ok(Count, "Counts"), ...commonErrors, 404: errors[404] },
    },
    // Serialized (and remembered per project copy and selection): sent as c.json sends JSON.
    async (c) => sendJsonText(c, await svc.responsesCountBody(db, c.get("ctx"), keyOf(c), parseFilters(c.req.valid("query").filters)), 200),
  );
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/Benchmarks",
      tags: ["Projects"],
      operationId: "Projects_Benchmarks",
      summary: "The benchmarks (norms) a project reads against",
      description:
        "For each benchmark type (1 all customers, 2 this team, 3 this industry, 4-7 NPD launch-week bands, 8 category, 10 parent category): the average top-2-box of comparable completed projects per standard question, the projects it rests on, and whether it is available (SPEC 5's NPD week rule); then 'None' at 50%.",
      request: {
        params: KeyParams,
        query: z.object({
          regionIds: z
            .string()
            .max(2000)
            .optional()
            .openapi({ param: { name: "regionIds", in: "query" }, description: "Regions as [1,2] (default: the project's)" }),
        }),
      },
      responses: { ...ok(Benchmarks, "Benchmarks"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.benchmarks(db, c.get("ctx"), keyOf(c), intList(c.req.valid("query").regionIds, "regionIds")), 200),
  );
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/SimulatedRespondents",
      tags: ["Projects"],
      operationId: "Projects_SimulatedRespondents",
      summary: "How many of the view's respondents are simulated, in words",
      description:
        "For the filtered respondents: how many there are, how many of them the simulated panel's (answers generated, not real people), and the sentence every face of the results says when any is (the results pages, the workbook and the deck, the AI summary and chat answers; issue 36).",
      request: { params: KeyParams, query: z.object({ filters: FiltersParam }) },
      responses: { ...ok(Simulated, "The count and its words"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await viewSimulated(db, c.get("ctx"), keyOf(c), parseFilters(c.req.valid("query").filters)), 200),
  );
}

/** Projects ResultsLanding and StandardQuestions StandardQuestionDescription. */
function registerLandingRoutes(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ResultsLanding",
      tags: ["Projects"],
      operationId: "Projects_ResultsLanding",
      summary: "Where a project's results open",
      description:
        "SPEC 2's rule for the results page's empty path: price-sensitivity or market-reach by framework for Idea and Message projects (else all), npd for NPD, and for Question projects the segment question's page, else the first follow-up's text or qual page; and the view it opens on: every market, the all-markets total when there are several (issue 37).",
      request: { params: KeyParams },
      responses: {
        ...ok(
          z
            .object({
              projectId: z.number().int(),
              tab: z.string(),
              path: z.string().describe("The full path; with several markets it chooses All markets (?region=0)"),
              view: z
                .object({
                  regionIds: z.array(z.number().int()).describe("Every market of the project"),
                  total: z.enum(["sample", "markets"]).describe("markets (the all-markets total) for a project of several markets, else sample"),
                })
                .describe("The view the results open on: the project whole"),
            })
            .openapi("ResultsLanding"),
          "The tab, the full path and the view",
        ),
        ...commonErrors,
        404: errors[404],
      },
    },
    async (c) => c.json(await svc.landing(db, c.get("ctx"), keyOf(c)), 200),
  );

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "get",
      path: "/api/v1/StandardQuestions/StandardQuestionDescription",
      tags: ["StandardQuestions"],
      operationId: "StandardQuestions_StandardQuestionDescription",
      summary: "What a framework's standard measures mean",
      description: "The standard questions a framework asks, in SPEC 9's order, with their descriptions.",
      request: { query: z.object({ frameworkId: int("frameworkId", "The framework") }) },
      responses: { ...ok(Descriptions, "Descriptions"), ...commonErrors },
    },
    async (c) => c.json(await svc.standardQuestionDescription(db, c.get("ctx"), Number(c.req.valid("query").frameworkId)), 200),
  );
}

/** For the results routes of other files (verdict.routes.ts). */
export { Method as StatsMethodSchema, AdjustParam, adjustOf } from "./results.schemas.ts";
export { FiltersParam, int as intQueryParam } from "./params.ts";
