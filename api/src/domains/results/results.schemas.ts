// The results routes' schemas and query helpers (moved from results.routes.ts, issue 34): shared by
// results.routes.ts, responses.routes.ts, text-responses.routes.ts and exports.routes.ts.
import { z } from "@hono/zod-openapi";
import { keyParams } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import type { Adjust } from "@ideally/analytics/design";

export const KeyParams = keyParams("Projects");

export const Dist = z.object({ value: z.number().int(), label: z.string(), count: z.number().int(), share: z.number() });
export const Test = z.object({
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
export const MarketCell = z.object({
  testOptionId: z.number().int().nullable(),
  n: z.number().int(),
  nEff: z.number(),
  top2: z.number(),
  se: z.number(),
  ci: z.tuple([z.number(), z.number()]),
  smallBase: z.boolean(),
});
export const MarketMeasure = z.object({ standardQuestionId: z.number().int(), results: z.array(MarketCell) });
export const MarketTest = Test.extend({
  regionId: z.number().int().describe("The other market"),
  diff: z.number().describe("This market's top2 minus the other's"),
  pAdjusted: z.number().nullable().describe("Adjusted within the market table's family (marketsMethod); null when not tested"),
});
export const MarketByMarket = z.object({
  standardQuestionId: z.number().int(),
  results: z.array(MarketCell.extend({ vsMarkets: z.array(MarketTest).describe("Against the same option in each other market (independent samples)") })),
});
export const Method = z
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
export const AdjustParam = z
  .enum(["bh", "bonferroni", "none"])
  .optional()
  .openapi({ param: { name: "adjust", in: "query" }, description: "Multiple-comparison adjustment within the view: bh (Benjamini-Hochberg, default), bonferroni or none" });
export const QuestionResults = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    questionText: z.string(),
    questionTitle: z.string().nullable(),
    questionTypeId: z.number().int(),
    total: z
      .enum(["sample", "markets"])
      .describe(
        "Whose weights: sample (every respondent at their own weight) or markets (the all-markets total: each market's respondents reweighted so the markets' shares are their population shares, as QualResults' total=markets)",
      ),
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
export const Qual = z
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
export const CrossTabCell = z.object({
  n: z.number().int().describe("Respondents in the cell's base"),
  nEff: z.number().describe("Kish effective base"),
  value: z.number().nullable().describe("Weighted share, 0-1; null without respondents"),
  se: z.number().nullable().describe("Design-based (Taylor linearised) standard error"),
  ci: z.tuple([z.number(), z.number()]).nullable().describe("Wilson interval with the design's effective n"),
  smallBase: z.boolean().describe("Kish n_eff below 30"),
  higherThan: z.array(z.string()).describe("Letters of the columns of the same banner variable significantly lower than this cell"),
});
export const CrossTab = z
  .object({
    projectId: z.number().int(),
    confidence: z.union([z.literal(90), z.literal(95), z.literal(99)]),
    total: z
      .enum(["sample", "markets"])
      .describe(
        "Whose weights: sample (every respondent at their own weight) or markets (the all-markets total: each market's respondents reweighted so the markets' shares are their population shares, as QualResults' total=markets)",
      ),
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
export const Count = z
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
export const Weights = z
  .object({
    projectId: z.number().int(),
    count: z.number().int(),
    weight: z.number(),
    nEff: z.number(),
    deff: z.number(),
    byRegion: z.array(z.object({ regionId: z.number().int(), count: z.number().int(), weight: z.number(), nEff: z.number(), deff: z.number() })),
  })
  .openapi("WeightSumResult");
export const Demographics = z
  .object({
    projectId: z.number().int(),
    total: z
      .enum(["sample", "markets"])
      .describe(
        "Whose weights: sample (every respondent at their own weight) or markets (the all-markets total: each market's respondents reweighted so the markets' shares are their population shares, as QualResults' total=markets)",
      ),
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
export const Benchmark = z.object({
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
export const Benchmarks = z.object({ projectId: z.number().int(), value: z.array(Benchmark) }).openapi("ProjectBenchmarks");
export const Descriptions = z
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

export const Curves = z.object({
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
export const PricePoint = z.object({ price: z.number(), trial: z.number(), revenue: z.number() });
export const Price = z
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
export const Reach = z
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
export const Waves = z
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
export const Theme = z.object({ id: z.number().int(), name: z.string(), sentiment: z.string().nullable() });
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
export const VerbatimPage = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    value: z.array(VerbatimRow),
  })
  .openapi("VerbatimPage");
export const VerbatimShortPage = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    page: z.number().int(),
    pageSize: z.number().int(),
    value: z.array(z.object({ id: z.number().int(), text: z.string(), testOptionId: z.number().int().nullable(), sentiment: z.string().nullable() })),
  })
  .openapi("VerbatimShortPage");
export const VerbatimCount = z.object({ projectId: z.number().int(), projectQuestionId: z.number().int(), count: z.number().int() }).openapi("VerbatimCount");

export const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });
/** The validated adjust parameter (the schema allows only these). */
export const adjustOf = (s: string | undefined): Adjust => (s === "bonferroni" || s === "none" ? s : "bh");

export function intList(raw: string | undefined, name: string): number[] | null {
  if (raw === undefined || raw.trim() === "") return null;
  const parts = raw
    .replace(/^\[|\]$/g, "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (!parts.every((x) => /^\d{1,9}$/.test(x))) throw new ApiError("BadRequest", `${name}: a list of ids, as [1,2] or 1,2`);
  return parts.map(Number);
}
