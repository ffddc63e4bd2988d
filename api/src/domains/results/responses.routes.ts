// Responses functions (SPEC 7): WeightSum, QualResults, CrossTab, DemographicsResults,
// PriceSensitivityResults, MarketReachResults, WaveData (moved from results.routes.ts, issue 34).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors, type TypedHandler } from "../../openapi.ts";
import { parseFilters } from "./filters.ts";
import { ADJUST_NAMES } from "@ideally/analytics/design";
import * as svc from "./results.service.ts";
import * as analysis from "./analysis.service.ts";
import * as xtab from "./crosstab.service.ts";
import { FiltersParam, int } from "./params.ts";
import { sendJsonText } from "./json-text.ts";
import { AdjustParam, Qual, CrossTab, Weights, Demographics, Price, Reach, Waves, ok, adjustOf } from "./results.schemas.ts";

const responsesQuery = <E extends z.ZodRawShape>(extra: E) => z.object({ projectId: int("projectId", "The project"), filters: FiltersParam, ...extra });
/** A Responses function: the project and filters (and the extra query parameters) in, schema T out. */
type ResponsesRoute<E extends z.ZodRawShape, T extends z.ZodType> = {
  method: "get";
  path: string;
  request: { query: ReturnType<typeof responsesQuery<E>> };
  responses: ReturnType<typeof ok<T>>;
};

/** The Responses functions' route helper, for an app: `responses(name, ...)` adds `GET /Responses/{name}`. */
const responsesFor =
  (app: App) =>
  <E extends z.ZodRawShape, T extends z.ZodType>(name: string, summary: string, description: string, extra: E, schema: T, run: TypedHandler<ResponsesRoute<E, T>>) =>
    addRoute(
      app,
      {
        access: access.viewer,
        method: "get",
        path: `/api/v1/Responses/${name}`,
        tags: ["Responses"],
        operationId: `Responses_${name}`,
        summary,
        description,
        request: { query: responsesQuery(extra) },
        // 409: the project's set-up lacks what the function reads (a market reach with no items).
        responses: { ...ok(schema, summary), ...commonErrors, 404: errors[404], 409: errorResponse("The project's set-up lacks what this function reads (e.g. a market reach with no items)") },
      },
      (c) => run(c),
    );

/** The Responses functions (SPEC 7), in the order the document lists them. */
export function registerResponsesRoutes(app: App, deps: AppDeps): void {
  registerWeightsAndQual(app, deps);
  registerCrossTabAndDemographics(app, deps);
  registerPriceReachAndWaves(app, deps);
}

/** WeightSum and QualResults. */
function registerWeightsAndQual(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  const responses = responsesFor(app);
  responses("WeightSum", "Respondents and their weights", "Count, Σ weights, Kish effective base and design effect of the filtered respondents, overall and per region.", {}, Weights, async (c) => {
    const qv = c.req.valid("query");
    return c.json(await svc.weightSum(db, c.get("ctx"), Number(qv.projectId), parseFilters(qv.filters)), 200);
  });
  responses(
    "QualResults",
    "Weighted top-2-box per measure and test option",
    "For each standard measure on the 4-point scale and each test option: weighted top-2-box with its design-based standard error (Taylor linearisation, market runs as strata) and Wilson interval, the value distribution (High, Average, Neutral, Low), the test against the chosen benchmark (its projects' mean and between-project variance; a norm of fewer than 5 projects is indicative) and against each other option (paired where the same respondents rated both), p-values adjusted within the view (adjust, Benjamini-Hochberg by default; method says which). See docs/statistics.md. With projectQuestionId: that question's option shares per test option instead (in `question`).",
    {
      benchmarkTypeId: int("benchmarkTypeId", "Benchmark to test against (Projects Benchmarks)").optional(),
      confidence: z
        .enum(["90", "95", "99"])
        .optional()
        .openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
      adjust: AdjustParam,
      marketWeighting: z
        .enum(["population", "sample"])
        .optional()
        .openapi({ param: { name: "marketWeighting", in: "query" }, description: "How allMarkets weights the markets: population (default; sample when a market has no population figure) or sample" }),
      total: z
        .enum(["sample", "markets"])
        .optional()
        .openapi({
          param: { name: "total", in: "query" },
          description:
            "What measures (with every test) is, and with projectQuestionId the question's shares: sample (default; every respondent at their own weight) or markets (the all-markets total, markets weighted as marketWeighting says; a question's total weights by population)",
        }),
      projectQuestionId: int("projectQuestionId", "One question's option results").optional(),
    },
    Qual,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      const filters = parseFilters(qv.filters);
      if (qv.projectQuestionId) {
        const question = await svc.questionResults(db, c.get("ctx"), { projectId: id, projectQuestionId: Number(qv.projectQuestionId), filters, total: qv.total === "markets" ? "markets" : "sample" });
        return c.json(
          {
            projectId: id,
            confidence: 95,
            benchmarkTypeId: null,
            method: svc.statsMethod(adjustOf(qv.adjust), 0),
            measures: [],
            total: question.total,
            markets: [],
            marketsMethod: { adjust: adjustOf(qv.adjust), adjustName: ADJUST_NAMES[adjustOf(qv.adjust)], tests: 0, comparisons: "none (one question's option results)" },
            allMarkets: { weighting: "sample", note: null, shares: [], measures: [] },
            question,
          },
          200,
        );
      }
      // `{ ...qualResults, question: null }`, serialized (and remembered per project copy, selection and options): sent as c.json sends JSON.
      return sendJsonText(
        c,
        await svc.qualResultsBody(db, c.get("ctx"), {
          projectId: id,
          filters,
          benchmarkTypeId: qv.benchmarkTypeId ? Number(qv.benchmarkTypeId) : null,
          confidence: qv.confidence ? (Number(qv.confidence) as 90 | 95 | 99) : 95,
          adjust: adjustOf(qv.adjust),
          marketWeighting: qv.marketWeighting === "sample" ? "sample" : "population",
          total: qv.total === "markets" ? "markets" : "sample",
        }),
        200,
      );
    },
  );
}

/** CrossTab and DemographicsResults. */
function registerCrossTabAndDemographics(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  const responses = responsesFor(app);
  responses(
    "CrossTab",
    "A measure or question by a banner of columns, with column-letter significance",
    `Rows: \`measure:{standardQuestionId}\` (top-2-box per test option) or \`question:{projectQuestionId}\` (each answer's share of those who answered). Banner (comma separated): \`demographic:{systemQuestionId}\`, \`question:{projectQuestionId}\`, \`market\`, \`segment:{segmentId}\` (saved filter sets, one column each); at most ${xtab.MAX_BANNER_VARIABLES} variables and ${xtab.MAX_BANNER_COLUMNS} columns. Each cell: weighted share, base, Kish n_eff, design-based SE (market runs as strata) and Wilson interval; every pair of columns within a banner variable is tested on every row (cells with a low base, n_eff below 30, are not tested), the table's p-values adjusted together (adjust, Benjamini-Hochberg by default), and a cell lists the letters of the columns significantly lower. A Total column comes first. See docs/statistics.md "Cross-tabs".`,
    {
      rows: z
        .string()
        .max(40)
        .openapi({ param: { name: "rows", in: "query" }, description: "measure:{standardQuestionId} or question:{projectQuestionId}" }),
      banner: z
        .string()
        .max(2000)
        .openapi({ param: { name: "banner", in: "query" }, description: "demographic:{id}, question:{id}, market, segment:{id}, comma separated" }),
      confidence: z
        .enum(["90", "95", "99"])
        .optional()
        .openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
      adjust: AdjustParam,
      total: z
        .enum(["sample", "markets"])
        .optional()
        .openapi({
          param: { name: "total", in: "query" },
          description: "As QualResults: sample (default; every respondent at their own weight) or markets (the all-markets total, each market's respondents reweighted to its population share)",
        }),
    },
    CrossTab,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      // The banner is parsed (and its size refused) before the filters or the database.
      const banner = xtab.parseBanner(qv.banner);
      const rows = xtab.parseStub(qv.rows);
      const out = await xtab.crossTabResults(db, c.get("ctx"), {
        projectId: id,
        filters: parseFilters(qv.filters),
        rows,
        banner,
        confidence: qv.confidence ? (Number(qv.confidence) as 90 | 95 | 99) : 95,
        adjust: adjustOf(qv.adjust),
        total: qv.total === "markets" ? "markets" : "sample",
      });
      return c.json(out, 200);
    },
  );
  responses(
    "DemographicsResults",
    "Who answered",
    "Weighted shares of each demographic (system question) option among the filtered respondents (total=markets: the all-markets total, each market reweighted to its population share as QualResults does).",
    {
      total: z
        .enum(["sample", "markets"])
        .optional()
        .openapi({
          param: { name: "total", in: "query" },
          description: "As QualResults: sample (default; every respondent at their own weight) or markets (the all-markets total, each market's respondents reweighted to its population share)",
        }),
    },
    Demographics,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      return c.json(await svc.demographicsResults(db, c.get("ctx"), id, parseFilters(qv.filters), qv.total === "markets" ? "markets" : "sample"), 200);
    },
  );
}

/** PriceSensitivityResults, MarketReachResults and WaveData. */
function registerPriceReachAndWaves(app: App, deps: AppDeps): void {
  // Every route here only reads: from the replica when one is configured and keeping up.
  const db = deps.readDb ?? deps.db;
  const responses = responsesFor(app);
  responses(
    "PriceSensitivityResults",
    "Van Westendorp price sensitivity per test option",
    "The four weighted curves (too cheap, cheap, expensive, too expensive) and their crossings by linear interpolation between observed prices: optimal (OPP), indifference (IPP), and the acceptable range from the point of marginal cheapness (PMC) to that of marginal expensiveness (PME); respondents whose prices are out of order are left out and counted; the Newton-Miller-Smith trial and revenue optima where purchase intent was asked; SPEC 9's tooltips.",
    {},
    Price,
    async (c) => {
      const qv = c.req.valid("query");
      return c.json(await analysis.priceSensitivityResults(db, c.get("ctx"), Number(qv.projectId), parseFilters(qv.filters)), 200);
    },
  );
  responses(
    "MarketReachResults",
    "TURF market reach",
    "Weighted reach (share accepting at least the set-up's depth of a set's items) and frequency (mean number accepted) of the best item sets of each size up to the set-up's largest, exhaustive where C(n, k) allows and greedy beyond; ties broken by frequency; each item's own reach.",
    { top: int("top", "Sets per size, default 10").optional() },
    Reach,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      return c.json(await analysis.marketReachResults(db, c.get("ctx"), id, parseFilters(qv.filters), { top: qv.top ? Number(qv.top) : undefined }), 200);
    },
  );
  responses(
    "WaveData",
    "Top-2-box per wave",
    "The weighted top-2-box per measure and test option in each wave (trackers) or week since launch (NPD), with the wave's dates and respondents, design-based standard errors and Wilson intervals, and each option against the previous wave (independent samples); p-values adjusted within the view (adjust).",
    {
      confidence: z
        .enum(["90", "95", "99"])
        .optional()
        .openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
      adjust: AdjustParam,
    },
    Waves,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      return c.json(await analysis.waveData(db, c.get("ctx"), id, parseFilters(qv.filters), qv.confidence ? (Number(qv.confidence) as 90 | 95 | 99) : 95, adjustOf(qv.adjust)), 200);
    },
  );
}
