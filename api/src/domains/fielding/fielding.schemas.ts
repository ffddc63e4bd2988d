// The fielding routes' schemas and the SurveyRuns action route helpers (moved from
// fielding.routes.ts, issue 34).
import { z } from "@hono/zod-openapi";
import { access } from "../../access/policy.ts";
import { commonErrors, errors, keyParams } from "../../openapi.ts";

export const KeyParams = keyParams;

export const FieldPeriod = {
  fieldEndAt: z.string().nullable().describe("When the run closes with the completes it has (set at launch: the project's fieldPeriodDays, default 14)"),
  stalledAt: z.string().nullable().describe("Set when the run had no complete for 24 hours with its quota open (cleared by the next complete or ExtendFieldPeriod)"),
  closedReason: z.enum(["quota", "field end", "staff"]).nullable(),
  fieldingState: z.enum(["notOpen", "filling", "stalled", "closed"]).describe('What status views say: "stalled", or "closes at {fieldEndAt}" while filling'),
};
export const SampleSource = z
  .enum(["simulated", "customer", "supplier"])
  .describe(
    "Where the run's respondents come from: simulated (the simulated Ideally panel), customer (the team's own list at the run's link), supplier (an outside sample supplier's signed respondents)",
  );
export const Run = z
  .object({
    id: z.number().int(),
    clientId: z.number().int(),
    regionId: z.number().int(),
    surveyStatusId: z.number().int().describe("0 Draft, 10 Testing, 50 Live, 90 Closed, 130 Dev, 1000 ErrorXml, 1010 ErrorProcessing"),
    surveyStatus: z.string(),
    isCustomerPanel: z.boolean(),
    sampleSource: SampleSource,
    targetCompletes: z.number().int().nullable(),
    surveyLink: z.string().uuid(),
    surveyUrl: z.string().describe("The public respondent page"),
    isSimulated: z.boolean(),
    launchedAt: z.string().nullable(),
    closedAt: z.string().nullable(),
    processedAt: z.string().nullable(),
    ...FieldPeriod,
    lastCompleteAt: z.string().nullable(),
    sampleSupplierId: z.number().int().nullable().describe("The outside sample supplier respondents come from (SampleSuppliers), if any"),
    samplify: z
      .object({
        extProjectId: z.string(),
        extLineItemId: z.string(),
        state: z.string().nullable(),
        securityLevel: z.string().nullable().describe("The security level of Dynata's end links the run's respondents go back to (NONE, BASIC, MEDIUM, HIGH); null while Samplify gave none"),
        warnings: z.array(z.string()).describe("The targets and quotas not sent to Samplify, each named with why (no Dynata attribute or option)"),
      })
      .nullable()
      .describe("The run's line item at Dynata Samplify, when it has one"),
  })
  .openapi("SurveyRunState");
export const Counts = z
  .object({
    surveyRunId: z.number().int(),
    started: z.number().int(),
    inProgress: z.number().int(),
    complete: z.number().int(),
    screenedOut: z.number().int(),
    overQuota: z.number().int(),
    removed: z.number().int(),
  })
  .openapi("SurveyRunCounts");
export const Created = z
  .object({
    runs: z.array(
      z.object({
        surveyRunId: z.number().int(),
        projectId: z.number().int(),
        regionId: z.number().int(),
        isCustomerPanel: z.boolean(),
        targetCompletes: z.number().int(),
        surveyLink: z.string(),
      }),
    ),
  })
  .openapi("CreateDecipherSurveysResult");
export const Weighting = z
  .object({
    n: z.number().int(),
    iterations: z.number().int(),
    converged: z.boolean(),
    maxError: z.number(),
    capBinds: z.boolean(),
    cap: z.number(),
    deff: z.number().describe("Kish design effect n·Σw²/(Σw)²"),
    nEff: z.number().describe("Kish effective sample size (Σw)²/Σw²"),
    minWeight: z.number(),
    maxWeight: z.number(),
    variables: z.array(z.string()),
    emptyLevels: z.array(z.string()),
    margins: z.record(z.string(), z.record(z.string(), z.number())),
    targets: z.record(z.string(), z.record(z.string(), z.number())).describe("The targets the margins were matched to: census shares without the empty levels, rescaled to sum 1"),
    census: z.record(z.string(), z.record(z.string(), z.number())).describe("The census shares as given"),
    missing: z.record(z.string(), z.number()),
  })
  .openapi("WeightingReport");
export const Processed = z
  .object({
    surveyRunId: z.number().int(),
    projectId: z.number().int(),
    ingested: z.number().int(),
    weighting: Weighting.nullable(),
    projectStatusCode: z.number().int().nullable(),
    alreadyProcessed: z.boolean(),
  })
  .openapi("ProcessSurveyRunResult");
export const Simulated = z
  .object({
    surveyRunId: z.number().int(),
    invited: z.number().int(),
    completes: z.number().int(),
    screenedOut: z.number().int(),
    overQuota: z.number().int(),
    excluded: z.number().int().describe("Completes excluded by the quality checks (speeders, straight-liners, duplicates, gibberish): replaced while the quota is open"),
    totalCompletes: z.number().int(),
    targetCompletes: z.number().int(),
    closed: z.boolean(),
    reachLeft: z.number().int().describe("People the panel can still invite to the run in its field period: its reach in the market (the incidence estimate's) less those invited so far"),
  })
  .openapi("RunSimulatedDataResult");
export const Respondents = z
  .object({
    surveyRunId: z.number().int(),
    total: z.number().int(),
    value: z.array(
      z.object({
        surveySessionId: z.number().int(),
        respondentId: z.string(),
        panelRespondentId: z.string().nullable(),
        status: z.string(),
        endReason: z.string().nullable(),
        isSimulated: z.boolean(),
        startedAt: z.string(),
        completedAt: z.string().nullable(),
      }),
    ),
  })
  .openapi("DecipherRespondentsResult");
export const Removed = z.object({ surveyRunId: z.number().int(), removed: z.number().int(), notFound: z.array(z.string()), weighting: Weighting.nullable() }).openapi("RemoveRespondentsResult");
export const TranslationCounts = z
  .object({ surveyRunId: z.number().int(), regionId: z.number().int(), texts: z.number().int(), translated: z.number().int(), missing: z.array(z.string()) })
  .openapi("DecipherTranslationCountsResult");
const QuotaGroup = z
  .object({
    key: z.string().describe("The group: s{systemQuestionId} (a demographic), q{projectQuestionId} (a screener), or two crossed demographics s{id}&s{id}"),
    question: z.string(),
    cells: z.array(
      z.object({
        optionId: z.number().int().nullable().describe("The answer with the quota; null: the group's other answers, sharing what its quotas leave, or a crossed cell"),
        optionIds: z.array(z.number().int()).optional().describe("A crossed cell's pair of answers, in the order of the group's key (s45&s51)"),
        label: z.string(),
        completes: z.number().int().describe("Completes in the cell (the count the engine closes the cell with)"),
        target: z.number().int().describe("The cell's cap: ceil(the run's completes x the answer's quota share), at least 1; for other answers, what the quotas leave"),
      }),
    ),
  })
  .openapi("SurveyRunQuotaProgress");
export const CompletesCounts = z
  .object({
    projectId: z.number().int(),
    value: z.array(
      Counts.extend({
        regionId: z.number().int(),
        isCustomerPanel: z.boolean(),
        sampleSource: SampleSource,
        surveyStatusId: z.number().int(),
        targetCompletes: z.number().int().nullable(),
        waveNumber: z.number().int().nullable(),
        respondentLink: z
          .string()
          .nullable()
          .describe("A customer-panel run's respondent page ({PUBLIC_URL}/s/{surveyLink}), for the team to send to its own list; null for the Ideally panel's and suppliers' runs"),
        ...FieldPeriod,
        quotas: z.array(QuotaGroup).describe("Each quota cell's completes against its cap, per target group with quotas in the run's survey (empty: no quotas, or no survey yet)"),
      }),
    ),
  })
  .openapi("DecipherCompletesCountsResult");

export const QualityRun = z.object({
  surveyRunId: z.number().int(),
  regionId: z.number().int(),
  completes: z.number().int().describe("Valid completes (after exclusions)"),
  excluded: z.number().int().describe("Respondents excluded for quality (failed attention checks included)"),
  byReason: z
    .object({ speeder: z.number().int(), straightliner: z.number().int(), attention: z.number().int(), duplicate: z.number().int(), gibberish: z.number().int(), pasted: z.number().int() })
    .describe(
      "Respondents per reason (one may have several): speeder (under a third of the run's median length), straightliner (one answer down every scale grid), attention (failed the instructed item), duplicate (a device already in the run), gibberish and pasted (open answers, the text check)",
    ),
});
export const QualityReport = QualityRun.openapi("SurveyRunQualityReport");
export const ProjectQualityReport = z.object({ projectId: z.number().int(), value: z.array(QualityRun) }).openapi("ProjectQualityReport");

export const json = <T extends z.ZodType>(schema: T) => ({ body: { required: true, content: { "application/json": { schema } } } });
export const ok = <T extends z.ZodType>(schema: T, description: string) => ({ 200: { description, content: { "application/json": { schema } } } });

// A run's action (POST /SurveyRuns/{key}/{action}): its route, answered by the handler given
// beside it, so that addRoute types the handler by the concrete schemas (inside a factory generic
// over the schemas, the route's answer type stays unresolved).
export const action = <T extends z.ZodType>(name: string, summary: string, description: string, result: T) => ({
  access: access.staff,
  method: "post" as const,
  path: `/api/v1/SurveyRuns/{key}/${name}`,
  tags: ["SurveyRuns"],
  operationId: `SurveyRuns_${name}`,
  summary,
  description,
  request: { params: KeyParams("SurveyRuns") },
  responses: { ...ok(result, summary), ...commonErrors, 404: errors[404], 409: errors[409] },
});
/** A run's action with a JSON body. */
export const actionWithBody = <B extends z.ZodType, T extends z.ZodType>(name: string, summary: string, description: string, body: B, result: T) => {
  const route = action(name, summary, description, result);
  return { ...route, request: { ...route.request, ...json(body) } };
};
