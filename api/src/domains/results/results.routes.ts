// Results functions (SPEC 7): Projects({key})/ResponsesCount and /Benchmarks, Responses WeightSum,
// QualResults and DemographicsResults, StandardQuestions StandardQuestionDescription. GET functions:
// the response filter object travels as JSON in `filters` (results/filters.ts).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, type RouteContext } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { parseFilters } from "./filters.ts";
import * as svc from "./results.service.ts";

const KeyParams = z.object({
  key: z
    .string()
    .regex(/^-?\d{1,9}$/, "must be an integer")
    .openapi({ param: { name: "key", in: "path" }, description: "Projects key" }),
});
const keyOf = (c: RouteContext) => Number((c.req.valid("param") as { key: string }).key);
const int = (name: string, description: string) =>
  z
    .string()
    .regex(/^\d{1,9}$/, "must be a positive integer")
    .openapi({ param: { name, in: "query" }, description });
const FiltersParam = z
  .string()
  .max(20000)
  .optional()
  .openapi({ param: { name: "filters", in: "query" }, description: "The response filter object (ResponseFilter) as JSON" });

const Dist = z.object({ value: z.number().int(), label: z.string(), count: z.number().int(), share: z.number() });
const Test = z.object({ diff: z.number(), z: z.number(), pValue: z.number(), significant: z.boolean() });
const Measure = z.object({
  testOptionId: z.number().int().nullable(),
  n: z.number().int(),
  weight: z.number(),
  nEff: z.number().describe("Kish effective base"),
  top2: z.number().describe("Weighted top-2-box, 0-1"),
  ci: z.tuple([z.number(), z.number()]).describe("Confidence interval of top2"),
  smallBase: z.boolean().describe("n_eff below 30"),
  distribution: z.array(Dist),
  vsBenchmark: Test.extend({ top2Percentage: z.number() }).nullable(),
  vsOthers: z.array(Test.extend({ testOptionId: z.number().int().nullable() })),
});
const QuestionResults = z
  .object({
    projectId: z.number().int(),
    projectQuestionId: z.number().int(),
    questionText: z.string(),
    questionTitle: z.string().nullable(),
    questionTypeId: z.number().int(),
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
    measures: z.array(z.object({ standardQuestionId: z.number().int(), title: z.string(), results: z.array(Measure) })),
    question: QuestionResults.nullable(),
  })
  .openapi("QualResults");
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
  top2Percentage: z.number(),
  byStandardQuestion: z.record(z.string(), z.object({ top2Percentage: z.number(), projectCount: z.number().int(), respondents: z.number().int() })),
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

const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });
const query = (c: RouteContext) => c.req.valid("query" as never) as Record<string, string | undefined>;

function intList(raw: string | undefined, name: string): number[] | null {
  if (raw === undefined || raw.trim() === "") return null;
  const parts = raw.replace(/^\[|\]$/g, "").split(",").map((s) => s.trim()).filter(Boolean);
  if (!parts.every((x) => /^\d{1,9}$/.test(x))) throw new ApiError("BadRequest", `${name}: a list of ids, as [1,2] or 1,2`);
  return parts.map(Number);
}

export function registerResultsRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;
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
    async (c) => c.json(await svc.responsesCount(db, c.get("ctx"), keyOf(c), parseFilters(query(c).filters)), 200),
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
    async (c) => c.json(await svc.benchmarks(db, c.get("ctx"), keyOf(c), intList(query(c).regionIds, "regionIds")), 200),
  );

  const responses = (name: string, summary: string, description: string, extra: Record<string, z.ZodType>, schema: z.ZodType, run: (c: RouteContext, projectId: number) => Promise<unknown>) =>
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
        request: { query: z.object({ projectId: int("projectId", "The project"), filters: FiltersParam, ...extra }) },
        responses: { ...ok(schema, summary), ...commonErrors, 404: errors[404] },
      },
      async (c) => c.json((await run(c, Number(query(c).projectId))) as never, 200),
    );

  responses("WeightSum", "Respondents and their weights", "Count, Σ weights, Kish effective base and design effect of the filtered respondents, overall and per region.", {}, Weights, (c, id) =>
    svc.weightSum(db, c.get("ctx"), id, parseFilters(query(c).filters)),
  );
  responses(
    "QualResults",
    "Weighted top-2-box per measure and test option",
    "For each standard measure on the 4-point scale and each test option: weighted top-2-box with its confidence interval, the value distribution (High, Average, Neutral, Low), the test against the chosen benchmark and against each other option (two-proportion z-test with Kish effective bases). With projectQuestionId: that question's option shares per test option instead (in `question`).",
    {
      benchmarkTypeId: int("benchmarkTypeId", "Benchmark to test against (Projects Benchmarks)").optional(),
      confidence: z.enum(["90", "95", "99"]).optional().openapi({ param: { name: "confidence", in: "query" }, description: "Confidence level, default 95" }),
      projectQuestionId: int("projectQuestionId", "One question's option results").optional(),
    },
    Qual,
    async (c, id) => {
      const qv = query(c);
      const filters = parseFilters(qv.filters);
      if (qv.projectQuestionId) {
        const question = await svc.questionResults(db, c.get("ctx"), { projectId: id, projectQuestionId: Number(qv.projectQuestionId), filters });
        return { projectId: id, confidence: 95, benchmarkTypeId: null, measures: [], question };
      }
      const r = await svc.qualResults(db, c.get("ctx"), {
        projectId: id,
        filters,
        benchmarkTypeId: qv.benchmarkTypeId ? Number(qv.benchmarkTypeId) : null,
        confidence: qv.confidence ? (Number(qv.confidence) as 90 | 95 | 99) : 95,
      });
      return { ...r, question: null };
    },
  );
  responses("DemographicsResults", "Who answered", "Weighted shares of each demographic (system question) option among the filtered respondents.", {}, Demographics, (c, id) =>
    svc.demographicsResults(db, c.get("ctx"), id, parseFilters(query(c).filters)),
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
    async (c) => c.json(await svc.standardQuestionDescription(db, c.get("ctx"), Number(query(c).frameworkId)), 200),
  );
}
