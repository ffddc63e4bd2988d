// The lifecycle actions' request and answer schemas and route helpers (moved from lifecycle.routes.ts,
// issue 34): shared by lifecycle.routes.ts and project-actions.routes.ts.
import { z } from "@hono/zod-openapi";
import type { Access } from "../../access/policy.ts";
import { commonErrors, errorResponse, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { ProjectFields } from "../../entities/projects.ts";
import { ACTIONS, STATUS_CODES } from "./transitions.ts";

export const tags = ["Projects"];

export const ProjectKeyParams = z.object({
  key: z
    .string()
    .regex(/^-?\d{1,9}$/, "must be an integer")
    .openapi({ param: { name: "key", in: "path" }, description: "Projects key" }),
});

export const projectKeyOf = (c: { req: { valid(target: "param"): { key: string } } }) => Number(c.req.valid("param").key);

export const StatusCodeSchema = z
  .union(STATUS_CODES.map((s) => z.literal(s)))
  .describe("A project status code: 0 Draft, 50 Awaiting Approval, 100 Submitted, 200 Reviewing Questions, 300 Awaiting Survey, 400 Processing results, 800 Completed Wave, 900 Complete, 950 Demo");

export const Shortfall = z
  .object({
    markets: z.array(
      z.object({
        regionId: z.number().int(),
        regionName: z.string(),
        sampleSize: z.number().int().describe("Completes ordered per wave"),
        feasibleCompletes: z.number().int().describe("Completes the panel can deliver in a field period (IncidenceEstimate's feasibleCompletes)"),
        text: z.string().describe("The market in words, as IncidenceEstimate's explanation says it"),
      }),
    ),
    cells: z
      .array(
        z.object({
          regionId: z.number().int(),
          regionName: z.string(),
          label: z.string().describe("The quota cell: an answer (Male) or a crossed pair (Male × 18-24)"),
          needed: z.number().int().describe("The cell's cap in a run of the market's completes"),
          deliverable: z.number().int().describe("Completes the panel can deliver in the cell in a field period (IncidenceEstimate's explanation)"),
          text: z.string(),
        }),
      )
      .describe("The quota cells, of one question or crossed, that the panel cannot fill"),
    fieldPeriodDays: z.number().int().describe("Days each run fields from its launch before it closes with the completes it has"),
    message: z.string().describe("The shortfall, the field period and the refund rule, in words"),
  })
  .openapi("ShortfallStatement");

export const LifecycleResult = z
  .object({
    projectId: z.number().int(),
    projectName: z.string(),
    clientId: z.number().int().describe("The project's client (team)"),
    previousStatusCode: z.number().int(),
    statusCode: z.number().int(),
    status: z.string().describe("The new status's name"),
    allowedActions: z.array(z.enum(ACTIONS)).describe("The lifecycle actions the transition table allows from the new status"),
    charged: z.number().optional().describe("Credits charged (PendingSurveyRun logs) by this action"),
    refunded: z.number().optional().describe("Credits refunded by this action"),
    creditLogIds: z.array(z.number().int()).optional().describe("The credit logs written"),
    balanceAfter: z.number().optional().describe("The client's balance after the charge"),
    shortfall: Shortfall.optional().describe("Submitted (or super-approved) with markets the panel cannot fill: what they can deliver, the field period and the refund rule"),
  })
  .openapi("LifecycleResult");

export const Empty = z.strictObject({}).openapi("EmptyBody");
export const SubmitBody = z
  .strictObject({
    acceptShortfall: z
      .boolean()
      .optional()
      .describe("true: submit a design the panel cannot fill anyway (each run closes short at its field end and the shortfall is refunded); without it such a design is refused with 409"),
  })
  .openapi("SubmitProject");

export const Readiness = z
  .object({
    projectId: z.number().int(),
    ready: z.boolean().describe("No blocking problem: Submit will not refuse for completeness (a shortfall still needs acceptShortfall)"),
    problems: z.array(
      z.object({
        code: z
          .enum(["testOptions", "questions", "regions", "marketReach.testOptions", "priceSensitivity.currencyCode", "priceSensitivity.testOptions", "quotas", "feasibility"])
          .describe("Also the path of Submit's field error"),
        message: z.string(),
        tab: z.enum(["setup", "markets", "test-options", "questions", "add-ons", "scheduling"]).describe("The editor tab where it is fixed"),
        blocking: z
          .boolean()
          .describe("true: Submit refuses (400) until it is fixed; false (feasibility: a market the panel cannot fill): Submit refuses (409) unless its body has acceptShortfall true"),
      }),
    ),
    shortfall: Shortfall.nullable().describe("The markets that will fall short, the field period and the refund rule; null when every market can be filled"),
  })
  .openapi("ProjectReadiness");

export const Decline = z.strictObject({ reason: z.string().trim().min(1).max(2000).describe("Why: sent to the submitter") }).openapi("DeclineProject");
export const Move = z.strictObject({ clientId: z.number().int().positive().describe("The team to move the project to (same enterprise)") }).openapi("MoveProject");
export const Duplicate = z.strictObject({ projectName: z.string().trim().min(1).max(200).optional().describe("The copy's name; default '{name} (copy)'") }).openapi("DuplicateProject");
export const DuplicateResult = z
  .object({
    id: z.number().int().describe("The new project"),
    projectName: z.string(),
    statusCode: z.literal(0),
    clientId: z.number().int(),
    duplicatedFromProjectId: z.number().int(),
  })
  .openapi("DuplicateProjectResult");
export const Owner = z.strictObject({ userId: z.number().int().positive().describe("An Admin or User of the project's team") }).openapi("UpdateProjectOwner");
export const OwnerResult = LifecycleResult.extend({ ownerUserId: z.number().int() }).openapi("UpdateProjectOwnerResult");
export const GroupTags = z
  .strictObject({ tagIds: z.array(z.number().int()).max(200).describe("ProjectGroupTags ids naming the tags the project should carry (all of them)") })
  .openapi("UpdateGroupTags");
export const GroupTagsResult = z
  .object({
    projectId: z.number().int(),
    tags: z.array(z.object({ id: z.number().int(), projectGroupId: z.number().int(), name: z.string() })),
  })
  .openapi("UpdateGroupTagsResult");
export const RemoveFromRun = z.strictObject({ surveyRunId: z.number().int().positive() }).openapi("RemoveFromSurveyRun");
export const RemoveFromRunResult = LifecycleResult.extend({
  schedules: z.number().int().describe("Schedules unlinked from the run"),
  weeks: z.number().int().describe("NPD weeks unlinked"),
  sessions: z.number().int().describe("Project sessions (and their answers) removed"),
}).openapi("RemoveFromSurveyRunResult");
export const ResyncResult = LifecycleResult.extend({ waves: z.number().int().describe("Unrun waves rebuilt") }).openapi("ResyncScheduledProjectResult");
export const MoveResult = LifecycleResult.extend({ fromClientId: z.number().int() }).openapi("MoveProjectResult");

export const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();
export const AdminEdit = z
  .strictObject({
    statusCode: StatusCodeSchema.optional(),
    projectName: ProjectFields.projectName.optional(),
    frameworkId: nullable(z.number().int()),
    categoryId: nullable(z.number().int()),
    productType: nullable(ProjectFields.productType),
    launchDate: nullable(z.iso.date()),
    scheduleWavesRequired: nullable(ProjectFields.scheduleWavesRequired),
    scheduleFrequencyWeeks: nullable(ProjectFields.scheduleFrequencyWeeks),
    scheduleStartDate: nullable(z.iso.date()),
    wavesRequired: z.boolean().optional(),
    schedulePause: z.boolean().optional(),
    splitCellQuota: z.boolean().optional(),
    isBranded: z.boolean().optional(),
    brandName: nullable(ProjectFields.brandName),
    researchNote: nullable(ProjectFields.researchNote),
    ownerUserId: nullable(z.number().int()),
    incidenceEstimate: nullable(z.number().gt(0).max(1)),
    note: z.string().max(2000).optional().describe("Why: kept in the audit row"),
  })
  .refine((b) => Object.keys(b).some((k) => k !== "note"), { message: "Name at least one field to change" })
  .openapi("AdminEditProject");
export const AdminEditResult = LifecycleResult.extend({
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).describe("Each changed field's old and new value (audited)"),
}).openapi("AdminEditProjectResult");

export const Factor = z.object({
  kind: z.enum(["demographic", "screener", "crossed"]).describe("crossed: two demographic questions crossed in quota cells, one factor"),
  systemQuestionId: z.number().int().optional(),
  questionId: z.number().int().optional(),
  optionIds: z.array(z.number().int()),
  share: z.number(),
  optionShares: z
    .array(z.object({ optionId: z.number().int(), share: z.number() }))
    .optional()
    .describe("A demographic factor's share per targeted answer"),
  systemQuestionIds: z.array(z.number().int()).optional().describe("A crossed factor's two questions, the lower id first"),
  cellShares: z
    .array(z.object({ optionIds: z.array(z.number().int()), share: z.number() }))
    .optional()
    .describe("A crossed factor's share per cell: the product of its two answers' shares (they add up to share)"),
  basis: z.enum(["census", "responses", "prior", "mixed", "noTargets"]),
});
export const Explanation = z
  .object({
    feasible: z
      .boolean()
      .describe(
        "Every quota group can be met, each of its cells (of one question or crossed) within what its market can deliver, and no market is known to fall short: Submit takes the design without acceptShortfall",
      ),
    quotasOk: z.boolean().describe("false: a group no run can fill (ChangeTargets and Submit refuse it, naming the group)"),
    markets: z.array(
      z.object({
        regionId: z.number().int(),
        regionName: z.string(),
        sampleSize: z.number().int(),
        feasible: z.boolean().nullable(),
        text: z.string().describe("The panel's reach x the incidence against the completes, in words"),
      }),
    ),
    groups: z.array(
      z.object({
        groupKey: z.string().describe("s{systemQuestionId} or q{questionId}"),
        groupName: z.string(),
        regionId: z.number().int(),
        regionName: z.string(),
        answers: z.array(
          z.object({
            optionId: z.number().int(),
            label: z.string(),
            quotaPercent: z.number().nullable(),
            needed: z.number().int().nullable().describe("A quota cell's cap in a run of the market's completes: ceil(completes × share), at least 1 (null: no quota)"),
            deliverable: z
              .number()
              .int()
              .nullable()
              .describe(
                "The completes the panel can deliver in the cell in a field period: floor(the market's feasibleCompletes × the answer's share ÷ the group's share), from the incidence estimate's factor; null where it has none (a customer panel, a screener, a group open to its other answers)",
              ),
            feasible: z.boolean().nullable().describe("needed <= deliverable (null: unknown)"),
          }),
        ),
        totalPercent: z.number().nullable().describe("The quotas' sum (null: no quotas, the targets only say who qualifies)"),
        onlyThese: z.boolean(),
        ok: z.boolean(),
        text: z.string().describe("What the group's quotas mean in this market, or why no run can fill it"),
      }),
    ),
    crossed: z.array(
      z.object({
        key: z.string().describe("s{first systemQuestionId}&s{second}: the crossing's two questions, the lower id first"),
        name: z.string().describe("The questions crossed, e.g. Gender × Age group"),
        regionId: z.number().int(),
        regionName: z.string(),
        cells: z.array(
          z.object({
            optionIds: z.array(z.number().int()).describe("The cell's pair of answers, in the crossing's question order"),
            label: z.string(),
            quotaPercent: z.number(),
            needed: z.number().int().describe("The cell's cap in a run of the market's completes: ceil(completes × share), at least 1"),
            deliverable: z
              .number()
              .int()
              .nullable()
              .describe("floor(the market's feasibleCompletes × the cell's share ÷ the crossing's share), from the estimate's crossed factor (null: a customer panel)"),
            feasible: z.boolean().nullable().describe("needed <= deliverable (null: unknown)"),
          }),
        ),
        totalPercent: z.number(),
        ok: z.boolean(),
        text: z.string().describe("What the crossing's cells mean in this market, or why no run can fill it"),
      }),
    ),
    lines: z.array(z.string()).describe("The markets', the groups' then the crossings' texts: what the editor and the CLI show"),
  })
  .openapi("FeasibilityExplanation");
export const IncidenceResult = z
  .object({
    projectId: z.number().int(),
    incidenceEstimate: z.number().describe("Share of panellists who qualify (0-1), stored on the project"),
    explanation: Explanation,
    regions: z.array(
      z.object({
        regionId: z.number().int(),
        regionName: z.string(),
        sampleSize: z.number().int(),
        incidence: z.number(),
        factors: z.array(Factor),
        panelReach: z.number().int().nullable().describe("Panellists the Ideally panel reaches in the market in one field period (null: a customer panel)"),
        feasibleCompletes: z.number().int().nullable().describe("floor(panelReach × incidence): the completes the market can deliver"),
        feasible: z.boolean().nullable().describe("Whether sampleSize fits feasibleCompletes (null: unknown, a customer panel)"),
      }),
    ),
  })
  .openapi("IncidenceEstimate");
export const QuestionIrResult = z
  .object({
    projectId: z.number().int(),
    generatedAt: z.string(),
    combinedIncidence: z.number(),
    questions: z.array(
      z.object({
        projectQuestionId: z.number().int().nullable(),
        questionId: z.number().int(),
        questionText: z.string(),
        questionTitle: z.string().nullable(),
        questionPositionId: z.number().int().nullable(),
        options: z.number().int(),
        targetedOptionIds: z.array(z.number().int()),
        respondents: z.number().int(),
        qualified: z.number().int(),
        incidence: z.number(),
        basis: z.enum(["census", "responses", "prior", "mixed", "noTargets"]),
      }),
    ),
  })
  .openapi("QuestionIrDocument");

export const conflict = "The action is not allowed from the project's status (the message names it and the actions it allows), or the ledger refuses";

/** A lifecycle action of the Projects set, as the transition table names it. */
export interface ActionSpec<T extends z.ZodType> {
  action: (typeof ACTIONS)[number];
  access: Access;
  summary: string;
  description: string;
  response: T;
}

/**
 * A lifecycle action's route (POST /Projects/{key}/{Action}); without a body of its own it takes
 * an optional empty one. The handler goes beside it in addRoute, which types it by these schemas.
 */
export const action = <T extends z.ZodType>(s: ActionSpec<T>) => actionWithBody({ ...s, body: Empty });

/** A lifecycle action with a JSON body (required unless bodyRequired is false or absent). */
export function actionWithBody<T extends z.ZodType, B extends z.ZodType>(s: ActionSpec<T> & { body: B; bodyRequired?: boolean }) {
  return {
    access: s.access,
    method: "post" as const,
    path: `/api/v1/Projects/{key}/${s.action}`,
    tags,
    operationId: `Projects_${s.action}`,
    summary: s.summary,
    description: s.description,
    request: { params: ProjectKeyParams, body: { required: s.bodyRequired ?? false, content: { "application/json": { schema: s.body } } } },
    responses: {
      200: { description: "Done", content: { "application/json": { schema: s.response } } },
      ...commonErrors,
      404: errors[404],
      409: errorResponse(conflict),
    },
  };
}

/** The route's project key (ProjectKeyParams checked its form). */
export function projectIdOf(c: { req: { valid(target: "param"): { key: string } } }): number {
  const projectId = projectKeyOf(c);
  if (!Number.isSafeInteger(projectId)) throw new ApiError("BadRequest", "The key must be an integer");
  return projectId;
}
