// Results functions (SPEC 7): Projects({key})/ResponsesCount and /Benchmarks, Responses WeightSum,
// QualResults and DemographicsResults, StandardQuestions StandardQuestionDescription. GET functions:
// the response filter object travels as JSON in `filters` (results/filters.ts).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors, keyOf, keyParams, type TypedHandler } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { parseFilters } from "./filters.ts";
import { ADJUST_NAMES, type Adjust } from "../../analytics/design.ts";
import * as svc from "./results.service.ts";
import * as analysis from "./analysis.service.ts";
import * as verbatims from "./verbatims.service.ts";
import * as exportsSvc from "./exports.service.ts";
import * as xtab from "./crosstab.service.ts";
import { FiltersParam, int } from "./params.ts";
import { sendJsonText } from "./json-text.ts";

const KeyParams = keyParams("Projects");

const Dist = z.object({ value: z.number().int(), label: z.string(), count: z.number().int(), share: z.number() });
const Test = z.object({
  diff: z.number(),
  se: z.number().describe("Standard error of diff"),
  z: z.number().nullable().describe("null when not tested (lowBase) or when there is no variance to test with"),
  pValue: z.number().nullable().describe("Two-sided, before adjustment; null when not tested (lowBase) or when there is no variance to test with"),
  pAdjusted: z.number().nullable().describe("After the view's multiple-comparison adjustment (method.adjust); null when the test is only indicative or was not made"),
  significant: z.boolean().describe("pAdjusted below 1 - confidence; never when not tested"),
  lowBase: z.boolean().describe("A side's Kish n_eff is below the low base (method.smallBase, 30): no test is made (docs/statistics.md)"),
});
/** One measure's figure for one test option (QualResults; the group pages reuse it). */
export const Measure = z.object({
  testOptionId: z.number().int().nullable(),
  n: z.number().int(),
  weight: z.number(),
  nEff: z.number().describe("Kish effective base"),
  top2: z.number().describe("Weighted top-2-box, 0-1"),
  se: z.number().describe("Design-based (Taylor linearised) standard error of top2: strata = market runs, units = respondents"),
  ci: z.tuple([z.number(), z.number()]).describe("Wilson interval of top2 with the design's effective n"),
  smallBase: z.boolean().describe("Kish n_eff below 30"),
  distribution: z.array(Dist),
  vsBenchmark: Test.extend({
    top2Percentage: z.number().describe("The norm's mean over its projects"),
    indicative: z.boolean().describe("The norm has fewer than method.thinNorm projects: indicative, never significant"),
    quintile: z.number().int().nullable().describe("The option's quintile among the norm's projects, 1 (bottom fifth) to 5 (top fifth)"),
  }).nullable(),
  vsOthers: z.array(Test.extend({ testOptionId: z.number().int().nullable(), paired: z.boolean().describe("Rated by the same respondents: the within-respondent covariance is in se") })),
});
const MarketCell = z.object({
  testOptionId: z.number().int().nullable(),
  n: z.number().int(),
  nEff: z.number(),
  top2: z.number(),
  se: z.number(),
  ci: z.tuple([z.number(), z.number()]),
  smallBase: z.boolean(),
});
const MarketMeasure = z.object({ standardQuestionId: z.number().int(), results: z.array(MarketCell) });
const MarketTest = Test.extend({
  regionId: z.number().int().describe("The other market"),
  diff: z.number().describe("This market's top2 minus the other's"),
  pAdjusted: z.number().nullable().describe("Adjusted within the market table's family (marketsMethod); null when not tested"),
});
const MarketByMarket = z.object({ standardQuestionId: z.number().int(), results: z.array(MarketCell.extend({ vsMarkets: z.array(MarketTest).describe("Against the same option in each other market (independent samples)") })) });
const Method = z
  .object({
    variance: z.literal("taylor-linearisation"),
    strata: z.literal("market run"),
    interval: z.literal("wilson"),
    adjust: z.enum(["bh", "bonferroni", "none"]),
    adjustName: z.string().describe("Benjamini-Hochberg, Bonferroni or none"),
    tests: z.number().int().describe("Tests in the view's family"),
    smallBase: z.number().describe("A Kish n_eff below this is a low base"),
    thinNorm: z.number().int().describe("A norm of fewer projects is indicative"),
  })
  .openapi("StatsMethod");
const AdjustParam = z
  .enum(["bh", "bonferroni", "none"])
  .optional()
  .openapi({ param: { name: "adjust", in: "query" }, description: "Multiple-comparison adjustment within the view: bh (Benjamini-Hochberg, default), bonferroni or none" });
const QuestionResults = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    questionText: z.string(),
    questionTitle: z.string().nullable(),
    questionTypeId: z.number().int(),
    total: z.enum(["sample", "markets"]).describe("Whose weights: sample (every respondent at their own weight) or markets (the all-markets total: each market's respondents reweighted so the markets' shares are their population shares, as QualResults' total=markets)"),
    options: z.array(z.object({ id: z.number().int(), text: z.string() })),
    results: z.array(
      z.object({
        testOptionId: z.number().int().nullable(),
        n: z.number().int(),
        weight: z.number(),
        nEff: z.number(),
        options: z.array(z.object({ questionOptionId: z.number().int(), count: z.number().int(), share: z.number() })),
      }),
    ),
  })
  .openapi("QuestionResults");
const Qual = z
  .object({
    projectId: z.number().int(),
    confidence: z.union([z.literal(90), z.literal(95), z.literal(99)]),
    benchmarkTypeId: z.number().int().nullable(),
    method: Method,
    total: z.enum(["sample", "markets"]).describe("What measures is: sample (every respondent at their own weight) or markets (the all-markets total, weighted as allMarkets.weighting says)"),
    measures: z.array(z.object({ standardQuestionId: z.number().int(), title: z.string(), results: z.array(Measure) })).describe("The total, with every test (see total)"),
    markets: z.array(z.object({ regionId: z.number().int(), measures: z.array(MarketByMarket) })).describe("Market by market (a market is its runs), each cell against the other markets"),
    marketsMethod: z
      .object({ adjust: z.enum(["bh", "bonferroni", "none"]), adjustName: z.string(), tests: z.number().int().describe("Tests in the market table's family"), comparisons: z.string() })
      .describe("The market-by-market table's tests: their own family, adjusted as adjust says"),
    allMarkets: z
      .object({
        weighting: z.enum(["population", "sample"]),
        note: z.string().nullable().describe("Why population weighting was not used, when asked for"),
        shares: z.array(
          z.object({
            regionId: z.number().int(),
            population: z.number().nullable(),
            source: z.string().nullable().describe("Where the population figure comes from (docs/reference-data.md)"),
            sampleShare: z.number().describe("The market's share of the weighted sample"),
            share: z.number().describe("The market's share in this total"),
          }),
        ),
        measures: z.array(MarketMeasure),
      })
      .describe("The all-markets total, markets weighted by population (default) or by sample (marketWeighting)"),
    question: QuestionResults.nullable(),
  })
  .openapi("QualResults");
const CrossTabCell = z.object({
  n: z.number().int().describe("Respondents in the cell's base"),
  nEff: z.number().describe("Kish effective base"),
  value: z.number().nullable().describe("Weighted share, 0-1; null without respondents"),
  se: z.number().nullable().describe("Design-based (Taylor linearised) standard error"),
  ci: z.tuple([z.number(), z.number()]).nullable().describe("Wilson interval with the design's effective n"),
  smallBase: z.boolean().describe("Kish n_eff below 30"),
  higherThan: z.array(z.string()).describe("Letters of the columns of the same banner variable significantly lower than this cell"),
});
const CrossTab = z
  .object({
    projectId: z.number().int(),
    confidence: z.union([z.literal(90), z.literal(95), z.literal(99)]),
    total: z.enum(["sample", "markets"]).describe("Whose weights: sample (every respondent at their own weight) or markets (the all-markets total: each market's respondents reweighted so the markets' shares are their population shares, as QualResults' total=markets)"),
    stub: z.object({ kind: z.enum(["measure", "question"]), id: z.number().int(), title: z.string(), value: z.string().describe("What a cell is") }),
    banner: z.array(z.object({ key: z.string(), label: z.string() })),
    columns: z.array(z.object({ key: z.string(), variable: z.string().nullable(), label: z.string(), letter: z.string().nullable().describe("A, B, ..; null for the Total") })),
    rows: z.array(z.object({ key: z.string(), label: z.string(), cells: z.array(CrossTabCell).describe("One per column, the Total first") })),
    method: z.object({
      variance: z.literal("taylor-linearisation"),
      strata: z.literal("market run"),
      interval: z.literal("wilson"),
      adjust: z.enum(["bh", "bonferroni", "none"]),
      adjustName: z.string(),
      tests: z.number().int().describe("Tests in the table's family"),
      smallBase: z.number(),
      comparisons: z.string().describe("Which columns are compared"),
    }),
  })
  .openapi("CrossTab");
const Count = z
  .object({
    projectId: z.number().int(),
    value: z.array(
      z.object({
        testOptionId: z.number().int().nullable(),
        count: z.number().int(),
        weight: z.number(),
        stdQuestions: z.record(z.string(), z.number().int()),
        byWeek: z.record(z.string(), z.object({ count: z.number().int(), weight: z.number() })),
      }),
    ),
  })
  .openapi("ResponsesCountResult");
const Weights = z
  .object({
    projectId: z.number().int(),
    count: z.number().int(),
    weight: z.number(),
    nEff: z.number(),
    deff: z.number(),
    byRegion: z.array(z.object({ regionId: z.number().int(), count: z.number().int(), weight: z.number(), nEff: z.number(), deff: z.number() })),
  })
  .openapi("WeightSumResult");
const Demographics = z
  .object({
    projectId: z.number().int(),
    total: z.enum(["sample", "markets"]).describe("Whose weights: sample (every respondent at their own weight) or markets (the all-markets total: each market's respondents reweighted so the markets' shares are their population shares, as QualResults' total=markets)"),
    questions: z.array(
      z.object({
        systemQuestionId: z.number().int(),
        questionLabel: z.string(),
        questionCode: z.string(),
        options: z.array(z.object({ systemQuestionOptionId: z.number().int(), answerLabel: z.string(), count: z.number().int(), weight: z.number(), share: z.number() })),
      }),
    ),
  })
  .openapi("DemographicsResults");
const Benchmark = z.object({
  benchmarkTypeId: z.number().int().describe("1-10; 0 is the appended 'None'"),
  benchmarkName: z.string(),
  description: z.string(),
  regionCode: z.string().nullable(),
  projectCount: z.number().int(),
  isAvailable: z.boolean(),
  indicative: z.boolean().describe("Fewer than 5 comparable projects: shown as indicative, never significant"),
  top2Percentage: z.number(),
  byStandardQuestion: z.record(
    z.string(),
    z.object({
      top2Percentage: z.number().describe("Mean of the comparable projects' top-2-box"),
      sdPercentage: z.number().nullable().describe("Between-project standard deviation (null under 2 projects)"),
      projectCount: z.number().int(),
      respondents: z.number().int(),
      indicative: z.boolean(),
    }),
  ),
});
const Benchmarks = z.object({ projectId: z.number().int(), value: z.array(Benchmark) }).openapi("ProjectBenchmarks");
const Descriptions = z
  .object({
    frameworkId: z.number().int(),
    value: z.array(
      z.object({
        id: z.number().int(),
        title: z.string(),
        questionText: z.string(),
        description: z.string().nullable(),
        displayOrder: z.number().int(),
        isScaled: z.boolean(),
        isPriceSensitivity: z.boolean(),
        isAddOn: z.boolean(),
      }),
    ),
  })
  .openapi("StandardQuestionDescriptions");

const Curves = z.object({
  price: z.array(z.number()),
  tooCheap: z.array(z.number()),
  cheap: z.array(z.number()),
  expensive: z.array(z.number()),
  tooExpensive: z.array(z.number()),
  notCheap: z.array(z.number()),
  notExpensive: z.array(z.number()),
  trial: z.array(z.number()).optional(),
  revenue: z.array(z.number()).optional(),
});
const PricePoint = z.object({ price: z.number(), trial: z.number(), revenue: z.number() });
const Price = z
  .object({
    projectId: z.number().int(),
    currencyCode: z.string().nullable(),
    currencySymbol: z.string().nullable(),
    tooltips: z.object({ optimal: z.string(), indifferent: z.string(), acceptable: z.string() }),
    value: z.array(
      z.object({
        testOptionId: z.number().int().nullable(),
        conceptText: z.string().nullable(),
        n: z.number().int(),
        invalid: z.number().int().describe("Respondents whose prices were not too cheap < bargain < expensive < too expensive"),
        pmc: z.number().nullable().describe("Point of marginal cheapness"),
        pme: z.number().nullable().describe("Point of marginal expensiveness"),
        ipp: z.number().nullable().describe("Indifference price point"),
        opp: z.number().nullable().describe("Optimal price point"),
        acceptableRange: z.tuple([z.number(), z.number()]).nullable(),
        interpolation: z.literal("linear"),
        trialOptimal: PricePoint.nullable(),
        revenueOptimal: PricePoint.nullable(),
        curves: Curves.nullable(),
      }),
    ),
  })
  .openapi("PriceSensitivityResults");
const Reach = z
  .object({
    projectId: z.number().int(),
    respondents: z.number().int(),
    reachDepth: z.number().int(),
    items: z.array(z.object({ optionId: z.number().int(), name: z.string(), reach: z.number() })),
    byK: z.array(
      z.object({
        k: z.number().int(),
        method: z.enum(["exhaustive", "greedy"]),
        evaluated: z.number(),
        sets: z.array(z.object({ items: z.array(z.string()), optionIds: z.array(z.number().int()), reach: z.number(), frequency: z.number() })),
      }),
    ),
  })
  .openapi("MarketReachResults");
const Waves = z
  .object({
    projectId: z.number().int(),
    waveKind: z.enum(["wave", "weekSinceLaunch"]),
    confidence: z.number().int(),
    method: Method,
    waves: z.array(
      z.object({
        wave: z.number().int(),
        from: z.string().nullable(),
        to: z.string().nullable(),
        respondents: z.number().int(),
        measures: z.array(
          z.object({
            standardQuestionId: z.number().int(),
            title: z.string(),
            results: z.array(
              Measure.extend({
                vsPreviousWave: Test.extend({ wave: z.number().int().describe("The previous wave") })
                  .nullable()
                  .describe("Against the same option in the previous wave (independent samples), in the view's family"),
              }),
            ),
          }),
        ),
      }),
    ),
  })
  .openapi("WaveData");
const Theme = z.object({ id: z.number().int(), name: z.string(), sentiment: z.string().nullable() });
/** An open answer as Verbatim lists it (VerbatimGroup adds its projectId). */
export const VerbatimRow = z.object({
        id: z.number().int(),
        responseText: z.string(),
        translatedText: z.string().nullable(),
        languageCode: z.string().nullable(),
        sentiment: z.string().nullable(),
        sentimentScore: z.number().nullable(),
        testOptionId: z.number().int().nullable(),
        regionId: z.number().int(),
        createdAt: z.string(),
        weight: z.number(),
        themes: z.array(Theme),
      });
const VerbatimPage = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    value: z.array(VerbatimRow),
  })
  .openapi("VerbatimPage");
const VerbatimShortPage = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    value: z.array(z.object({ id: z.number().int(), text: z.string(), testOptionId: z.number().int().nullable(), sentiment: z.string().nullable() })),
  })
  .openapi("VerbatimShortPage");
const VerbatimCount = z.object({ projectId: z.number().int(), projectQuestionId: z.number().int(), count: z.number().int() }).openapi("VerbatimCount");

const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });
/** The validated adjust parameter (the schema allows only these). */
const adjustOf = (s: string | undefined): Adjust => (s === "bonferroni" || s === "none" ? s : "bh");

function intList(raw: string | undefined, name: string): number[] | null {
  if (raw === undefined || raw.trim() === "") return null;
  const parts = raw.replace(/^\[|\]$/g, "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!parts.every((x) => /^\d{1,9}$/.test(x))) throw new ApiError("BadRequest", `${name}: a list of ids, as [1,2] or 1,2`);
  return parts.map(Number);
}

export function registerResultsRoutes(app: App, deps: AppDeps): void {
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
      description: "The filtered respondents who saw each test option (a project without test options: one row with testOptionId null): count, weight, respondents per standard question, and per week.",
      request: { params: KeyParams, query: z.object({ filters: FiltersParam, systemQuestionId: int("systemQuestionId", "Accepted for the results page's call; the counts are per test option").optional() }) },
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
      request: { params: KeyParams, query: z.object({ regionIds: z.string().max(2000).optional().openapi({ param: { name: "regionIds", in: "query" }, description: "Regions as [1,2] (default: the project's)" }) }) },
      responses: { ...ok(Benchmarks, "Benchmarks"), ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.benchmarks(db, c.get("ctx"), keyOf(c), intList(c.req.valid("query").regionIds, "regionIds")), 200),
  );

  const responsesQuery = <E extends z.ZodRawShape>(extra: E) => z.object({ projectId: int("projectId", "The project"), filters: FiltersParam, ...extra });
  /** A Responses function: the project and filters (and the extra query parameters) in, schema T out. */
  type ResponsesRoute<E extends z.ZodRawShape, T extends z.ZodType> = {
    method: "get";
    path: string;
    request: { query: ReturnType<typeof responsesQuery<E>> };
    responses: ReturnType<typeof ok<T>>;
  };
  const responses = <E extends z.ZodRawShape, T extends z.ZodType>(
    name: string,
    summary: string,
    description: string,
    extra: E,
    schema: T,
    run: TypedHandler<ResponsesRoute<E, T>>,
  ) =>
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
      confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
      adjust: AdjustParam,
      marketWeighting: z
        .enum(["population", "sample"])
        .optional()
        .openapi({ param: { name: "marketWeighting", in: "query" }, description: "How allMarkets weights the markets: population (default; sample when a market has no population figure) or sample" }),
      total: z
        .enum(["sample", "markets"])
        .optional()
        .openapi({ param: { name: "total", in: "query" }, description: "What measures (with every test) is, and with projectQuestionId the question's shares: sample (default; every respondent at their own weight) or markets (the all-markets total, markets weighted as marketWeighting says; a question's total weights by population)" }),
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
  responses(
    "CrossTab",
    "A measure or question by a banner of columns, with column-letter significance",
    `Rows: \`measure:{standardQuestionId}\` (top-2-box per test option) or \`question:{projectQuestionId}\` (each answer's share of those who answered). Banner (comma separated): \`demographic:{systemQuestionId}\`, \`question:{projectQuestionId}\`, \`market\`, \`segment:{segmentId}\` (saved filter sets, one column each); at most ${xtab.MAX_BANNER_VARIABLES} variables and ${xtab.MAX_BANNER_COLUMNS} columns. Each cell: weighted share, base, Kish n_eff, design-based SE (market runs as strata) and Wilson interval; every pair of columns within a banner variable is tested on every row (cells with a low base, n_eff below 30, are not tested), the table's p-values adjusted together (adjust, Benjamini-Hochberg by default), and a cell lists the letters of the columns significantly lower. A Total column comes first. See docs/statistics.md "Cross-tabs".`,
    {
      rows: z.string().max(40).openapi({ param: { name: "rows", in: "query" }, description: "measure:{standardQuestionId} or question:{projectQuestionId}" }),
      banner: z.string().max(2000).openapi({ param: { name: "banner", in: "query" }, description: "demographic:{id}, question:{id}, market, segment:{id}, comma separated" }),
      confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
      adjust: AdjustParam,
      total: z
        .enum(["sample", "markets"])
        .optional()
        .openapi({ param: { name: "total", in: "query" }, description: "As QualResults: sample (default; every respondent at their own weight) or markets (the all-markets total, each market's respondents reweighted to its population share)" }),
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
        .openapi({ param: { name: "total", in: "query" }, description: "As QualResults: sample (default; every respondent at their own weight) or markets (the all-markets total, each market's respondents reweighted to its population share)" }),
    },
    Demographics,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      return c.json(await svc.demographicsResults(db, c.get("ctx"), id, parseFilters(qv.filters), qv.total === "markets" ? "markets" : "sample"), 200);
    },
  );

  responses("PriceSensitivityResults", "Van Westendorp price sensitivity per test option", "The four weighted curves (too cheap, cheap, expensive, too expensive) and their crossings by linear interpolation between observed prices: optimal (OPP), indifference (IPP), and the acceptable range from the point of marginal cheapness (PMC) to that of marginal expensiveness (PME); respondents whose prices are out of order are left out and counted; the Newton-Miller-Smith trial and revenue optima where purchase intent was asked; SPEC 9's tooltips.", {}, Price, async (c) => {
    const qv = c.req.valid("query");
    return c.json(await analysis.priceSensitivityResults(db, c.get("ctx"), Number(qv.projectId), parseFilters(qv.filters)), 200);
  });
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
    { confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }), adjust: AdjustParam },
    Waves,
    async (c) => {
      const qv = c.req.valid("query");
      const id = Number(qv.projectId);
      return c.json(await analysis.waveData(db, c.get("ctx"), id, parseFilters(qv.filters), qv.confidence ? (Number(qv.confidence) as 90 | 95 | 99) : 95, adjustOf(qv.adjust)), 200);
    },
  );

  const verbatimQuery = z.object({
    projectId: int("projectId", "The project"),
    projectQuestionId: int("projectQuestionId", "The open question"),
    filters: FiltersParam,
    testOptionId: int("testOptionId", "One test option's answers").optional(),
    search: z.string().max(200).optional().openapi({ param: { name: "search", in: "query" }, description: "Words the answer contains (case-insensitive)" }),
    themeId: int("themeId", "Answers coded with this theme").optional(),
    sentiment: z.enum(["Positive", "Neutral", "Negative", "Mixed"]).optional().openapi({ param: { name: "sentiment", in: "query" }, description: "Answers with this sentiment" }),
    page: int("page", "From 1, default 1").optional(),
    pageSize: int("pageSize", `Default ${verbatims.VERBATIM_PAGE_SIZE}, at most ${verbatims.VERBATIM_MAX_PAGE_SIZE}`).optional(),
  });
  const vq = (c: { req: { valid(t: "query"): z.output<typeof verbatimQuery> } }): verbatims.VerbatimQuery => {
    const x = c.req.valid("query");
    return {
      projectId: Number(x.projectId),
      projectQuestionId: Number(x.projectQuestionId),
      filters: parseFilters(x.filters),
      testOptionId: x.testOptionId ? Number(x.testOptionId) : null,
      search: x.search ?? null,
      themeId: x.themeId ? Number(x.themeId) : null,
      sentiment: x.sentiment ?? null,
      page: x.page ? Number(x.page) : undefined,
      pageSize: x.pageSize ? Number(x.pageSize) : undefined,
    };
  };
  /** A TextResponses function: the verbatim query in, schema T out. */
  const text = <T extends z.ZodType>(
    name: string,
    summary: string,
    schema: T,
    run: TypedHandler<{ method: "get"; path: string; request: { query: typeof verbatimQuery }; responses: ReturnType<typeof ok<T>> }>,
  ) =>
    addRoute(
      app,
      {
        access: access.viewer,
        method: "get",
        path: `/api/v1/TextResponses/${name}`,
        tags: ["TextResponses"],
        operationId: `TextResponses_${name}`,
        summary,
        description: `${summary}: the filtered respondents' answers to one open question, newest first.`,
        request: { query: verbatimQuery },
        responses: { ...ok(schema, summary), ...commonErrors, 404: errors[404] },
      },
      (c) => run(c),
    );
  text("Verbatim", "Open answers with their themes and sentiment", VerbatimPage, async (c) => c.json(await verbatims.verbatim(db, c.get("ctx"), vq(c)), 200));
  text("VerbatimCount", "How many open answers", VerbatimCount, async (c) => c.json(await verbatims.verbatimCount(db, c.get("ctx"), vq(c)), 200));
  text("VerbatimShort", "Open answers, short form", VerbatimShortPage, async (c) => c.json(await verbatims.verbatimShort(db, c.get("ctx"), vq(c)), 200));
  text("VerbatimShortCount", "How many open answers (short list)", VerbatimCount, async (c) => c.json(await verbatims.verbatimCount(db, c.get("ctx"), vq(c)), 200));

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

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ResultsLanding",
      tags: ["Projects"],
      operationId: "Projects_ResultsLanding",
      summary: "Where a project's results open",
      description: "SPEC 2's rule for the results page's empty path: price-sensitivity or market-reach by framework for Idea and Message projects (else all), npd for NPD, and for Question projects the segment question's page, else the first follow-up's text or qual page; and the view it opens on: every market, the all-markets total when there are several (issue 37).",
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
export { Method as StatsMethodSchema, FiltersParam, AdjustParam, int as intQueryParam, adjustOf };
