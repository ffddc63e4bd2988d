// The project lifecycle's bound actions (SPEC 7 Projects): POST /api/v1/Projects({key})/{Action}.
// Thin: validate, call the service, answer. The transition table: transitions.ts and
// docs/project-lifecycle.md.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access, type Access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { ProjectFields } from "../../entities/projects.ts";
import * as svc from "./lifecycle.service.ts";
import { duplicate } from "./duplicate.service.ts";
import { generateQuestionIr } from "./incidence.service.ts";
import { feasibilityEstimate, incidenceEstimateExplained } from "./feasibility.ts";
import { ACTIONS, STATUS_CODES } from "./transitions.ts";

const tags = ["Projects"];

export const ProjectKeyParams = z.object({
  key: z
    .string()
    .regex(/^-?\d{1,9}$/, "must be an integer")
    .openapi({ param: { name: "key", in: "path" }, description: "Projects key" }),
});

export const projectKeyOf = (c: { req: { valid(target: "param"): { key: string } } }) => Number(c.req.valid("param").key);

const StatusCodeSchema = z.union(STATUS_CODES.map((s) => z.literal(s))).describe(
  "A project status code: 0 Draft, 50 Awaiting Approval, 100 Submitted, 200 Reviewing Questions, 300 Awaiting Survey, 400 Processing results, 800 Completed Wave, 900 Complete, 950 Demo",
);

const Shortfall = z
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

const Empty = z.strictObject({}).openapi("EmptyBody");
const SubmitBody = z
  .strictObject({
    acceptShortfall: z
      .boolean()
      .optional()
      .describe("true: submit a design the panel cannot fill anyway (each run closes short at its field end and the shortfall is refunded); without it such a design is refused with 409"),
  })
  .openapi("SubmitProject");

const Readiness = z
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


const Decline = z.strictObject({ reason: z.string().trim().min(1).max(2000).describe("Why: sent to the submitter") }).openapi("DeclineProject");
const Move = z.strictObject({ clientId: z.number().int().positive().describe("The team to move the project to (same enterprise)") }).openapi("MoveProject");
const Duplicate = z
  .strictObject({ projectName: z.string().trim().min(1).max(200).optional().describe("The copy's name; default '{name} (copy)'") })
  .openapi("DuplicateProject");
const DuplicateResult = z
  .object({
    id: z.number().int().describe("The new project"),
    projectName: z.string(),
    statusCode: z.literal(0),
    clientId: z.number().int(),
    duplicatedFromProjectId: z.number().int(),
  })
  .openapi("DuplicateProjectResult");
const Owner = z.strictObject({ userId: z.number().int().positive().describe("An Admin or User of the project's team") }).openapi("UpdateProjectOwner");
const OwnerResult = LifecycleResult.extend({ ownerUserId: z.number().int() }).openapi("UpdateProjectOwnerResult");
const GroupTags = z
  .strictObject({ tagIds: z.array(z.number().int()).max(200).describe("ProjectGroupTags ids naming the tags the project should carry (all of them)") })
  .openapi("UpdateGroupTags");
const GroupTagsResult = z
  .object({
    projectId: z.number().int(),
    tags: z.array(z.object({ id: z.number().int(), projectGroupId: z.number().int(), name: z.string() })),
  })
  .openapi("UpdateGroupTagsResult");
const RemoveFromRun = z.strictObject({ surveyRunId: z.number().int().positive() }).openapi("RemoveFromSurveyRun");
const RemoveFromRunResult = LifecycleResult.extend({
  schedules: z.number().int().describe("Schedules unlinked from the run"),
  weeks: z.number().int().describe("NPD weeks unlinked"),
  sessions: z.number().int().describe("Project sessions (and their answers) removed"),
}).openapi("RemoveFromSurveyRunResult");
const ResyncResult = LifecycleResult.extend({ waves: z.number().int().describe("Unrun waves rebuilt") }).openapi("ResyncScheduledProjectResult");
const MoveResult = LifecycleResult.extend({ fromClientId: z.number().int() }).openapi("MoveProjectResult");

const nullable = <T extends z.ZodType>(s: T) => s.nullable().optional();
const AdminEdit = z
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
const AdminEditResult = LifecycleResult.extend({
  changes: z.record(z.string(), z.object({ from: z.unknown(), to: z.unknown() })).describe("Each changed field's old and new value (audited)"),
}).openapi("AdminEditProjectResult");

const Factor = z.object({
  kind: z.enum(["demographic", "screener"]),
  systemQuestionId: z.number().int().optional(),
  questionId: z.number().int().optional(),
  optionIds: z.array(z.number().int()),
  share: z.number(),
  basis: z.enum(["census", "responses", "prior", "mixed", "noTargets"]),
});
const Explanation = z
  .object({
    feasible: z.boolean().describe("Every quota group can be met and no market is known to fall short"),
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
        answers: z.array(z.object({ optionId: z.number().int(), label: z.string(), quotaPercent: z.number().nullable() })),
        totalPercent: z.number().nullable().describe("The quotas' sum (null: no quotas, the targets only say who qualifies)"),
        onlyThese: z.boolean(),
        ok: z.boolean(),
        text: z.string().describe("What the group's quotas mean in this market, or why no run can fill it"),
      }),
    ),
    lines: z.array(z.string()).describe("The markets' then the groups' texts: what the editor and the CLI show"),
  })
  .openapi("FeasibilityExplanation");
const IncidenceResult = z
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
const QuestionIrResult = z
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

const conflict = "The action is not allowed from the project's status (the message names it and the actions it allows), or the ledger refuses";

/** A lifecycle action of the Projects set, as the transition table names it. */
interface ActionSpec<T extends z.ZodType> {
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
const action = <T extends z.ZodType>(s: ActionSpec<T>) => actionWithBody({ ...s, body: Empty });

/** A lifecycle action with a JSON body (required unless bodyRequired is false or absent). */
function actionWithBody<T extends z.ZodType, B extends z.ZodType>(s: ActionSpec<T> & { body: B; bodyRequired?: boolean }) {
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
function projectIdOf(c: { req: { valid(target: "param"): { key: string } } }): number {
  const projectId = projectKeyOf(c);
  if (!Number.isSafeInteger(projectId)) throw new ApiError("BadRequest", "The key must be an integer");
  return projectId;
}

export function registerLifecycleRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;
  addRoute(
    app,
    actionWithBody({
      action: "Submit",
      access: access.user,
      summary: "Submit a Draft for survey, charging its first wave",
      description:
        "0 -> 50 Awaiting Approval when the client requires approval or the submitter is not an Admin of the team (the team's Admins and staff are notified), " +
        "else 0 -> 100 Submitted. Charges exactly CreditCostNow as PendingSurveyRun (30) logs, one per region, under the client's ledger lock; " +
        "409 when the balance would go below minus the overdraft limit. " +
        "400 (nothing charged) when the test is incomplete: one field error per blocking ReadinessCheck problem. " +
        "409 (nothing charged) when a market's completes exceed what the panel can deliver in a field period (IncidenceEstimate's feasibleCompletes): " +
        "the message states each market's deliverable completes, one `feasibility` field error per market; with `acceptShortfall: true` it is submitted " +
        "and the answer's `shortfall` states the field period and the refund rule.",
      body: SubmitBody,
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.submit(db, c.get("ctx"), { projectId, acceptShortfall: b?.acceptShortfall === true }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "Unsubmit",
      access: access.user,
      summary: "Take a submitted project back to Draft, refunding its pending charge",
      description: "50 or 100 -> 0. The unrun waves are cancelled and their PendingSurveyRun charges refunded (a positive 30 row each).",
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.unsubmit(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "Approve",
      access: access.admin,
      summary: "Approve a project's next step",
      description: "50 -> 100 (an Admin of the team or staff; the submitter is notified), 100 -> 200 and 200 -> 300 (staff).",
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.approve(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "SuperApprove",
      access: access.superAdmin,
      summary: "Send a project straight to Awaiting Survey (super admin)",
      description: "0, 50, 100 or 200 -> 300. From Draft it charges the first wave as Submit does.",
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.superApprove(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "Decline",
      access: access.admin,
      summary: "Decline a submitted project, with a reason",
      description: "50 -> 0 (an Admin of the team or staff); 100 or 200 -> 0 (staff). Refunds the pending charge; the submitter is notified with the reason.",
      body: Decline,
      bodyRequired: true,
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.decline(db, c.get("ctx"), { projectId, reason: b.reason }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "CloseProjectSurvey",
      access: access.staff,
      summary: "Close a project's survey: its results are ready",
      description: "400 or 800 -> 800 while later waves remain scheduled, else 900. Settles the run's pending charges (30 -> 40) and logs ResultsReady.",
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.closeProjectSurvey(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "StopProjectScheduling",
      access: access.user,
      summary: "Stop a project's scheduled waves, refunding their charges",
      description: "300 -> 0 (nothing ran), 400 stays (the running wave finishes), 800 -> 900. Every unrun wave is cancelled and its pending charge refunded.",
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.stopProjectScheduling(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "MarkAsDemo",
      access: access.staff,
      summary: "Mark a project with results as a demo project",
      description: "800 or 900 -> 950.",
      response: LifecycleResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.markAsDemo(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "Move",
      access: access.staff,
      summary: "Move a Draft to another team of the same enterprise",
      description: "Draft only, and not a project with credit log rows. Every row of the project moves with it in one statement.",
      body: Move,
      bodyRequired: true,
      response: MoveResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.move(db, c.get("ctx"), { projectId, clientId: b.clientId }), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "Duplicate",
      access: access.user,
      summary: "Copy a project as a new Draft",
      description:
        "From any status. The copy has the project's settings, regions, test options, questions and options, project questions, objectives, targets " +
        "and add-on set-ups; it is named '{name} (copy)' unless a name is given.",
      body: Duplicate,
      response: DuplicateResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await duplicate(db, c.get("ctx"), { projectId, projectName: b.projectName }), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "AdminEdit",
      access: access.staff,
      summary: "Edit any field of a project, its status included (staff, audited)",
      description: "Writes an AdminEdit row to DataEventsLog with each field's old and new value (and StatusChanged). Never touches the ledger or the schedules.",
      body: AdminEdit,
      bodyRequired: true,
      response: AdminEditResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.adminEdit(db, c.get("ctx"), projectId, b), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "UpdateProjectOwner",
      access: access.admin,
      summary: "Give a project to another Admin or User of its team",
      description: "Any status.",
      body: Owner,
      bodyRequired: true,
      response: OwnerResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.updateProjectOwner(db, c.get("ctx"), { projectId, userId: b.userId }), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "UpdateGroupTags",
      access: access.user,
      summary: "Set a project's project-group tags",
      description: "Any status. The project carries exactly the tags named afterwards.",
      body: GroupTags,
      bodyRequired: true,
      response: GroupTagsResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.updateGroupTags(db, c.get("ctx"), { projectId, tagIds: b.tagIds }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "IncidenceEstimate",
      access: access.user,
      summary: "Estimate the share of the panel that qualifies, from the targets",
      description:
        "Before fielding (0-300). From census margins, else past answers, else a uniform prior; stored on the project (EstimatedProjectDuration reads it) " +
        "and published as IncidenceEstimateUpdated on the client channel. `explanation` says per market whether the panel can deliver the completes " +
        "and per target group what its quotas mean (the same words as Projects/FeasibilityEstimate).",
      response: IncidenceResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await incidenceEstimateExplained(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "GenerateQuestionIr",
      access: access.user,
      summary: "The incidence rate of each screening question (a document)",
      description: "Any status. From the project's answers once it has them, else the targeted answers over all answers.",
      response: QuestionIrResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await generateQuestionIr(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    action({
      action: "ResyncScheduledProject",
      access: access.user,
      summary: "Rebuild a project's unrun waves from its schedule settings, re-priced",
      description: "100 to 800 (not 0, 50, 900, 950). Charged waves are refunded and charged again at today's cost; 409 when that would overdraw.",
      response: ResyncResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      return c.json(await svc.resyncScheduledProject(db, c.get("ctx"), { projectId }), 200);
    },
  );
  addRoute(
    app,
    actionWithBody({
      action: "RemoveFromSurveyRun",
      access: access.staff,
      summary: "Take a project off a survey run that carries it",
      description: "300, 400 or 800. Its schedules on the run become unrun (a settled charge returns to pending), its sessions from the run go; 400 -> 300 when no run carries it any more.",
      body: RemoveFromRun,
      bodyRequired: true,
      response: RemoveFromRunResult,
    }),
    async (c) => {
      const projectId = projectIdOf(c);
      const b = c.req.valid("json");
      return c.json(await svc.removeFromSurveyRun(db, c.get("ctx"), { projectId, surveyRunId: b.surveyRunId }), 200);
    },
  );


  // Literal path before /Projects/{key} (as CreditCostEstimate): settings, not a project.
  addRoute(
    app,
    {
      access: access.viewer,
      method: "post",
      path: "/api/v1/Projects/FeasibilityEstimate",
      tags,
      operationId: "Projects_FeasibilityEstimate",
      summary: "Whether settings not yet saved can be fielded: the incidence, each market's feasibility and what the quotas mean",
      description:
        "IncidenceEstimate's estimate and explanation for markets, completes and demographic targets as ChangeTargets takes them, with nothing created " +
        "(the CLI's `projects create --dry-run` and `projects validate`). Targets are checked as ChangeTargets checks them (400 naming the target); " +
        "quotas no run can fill are not refused here but explained (`explanation.quotasOk` false, the group's text naming it). Nothing is written.",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  regionIds: z.array(z.number().int()).min(1).max(60).describe("The regions, as POST Projects takes them"),
                  sampleSize: z.number().int().min(1).max(100000).nullable().optional().describe("Completes per region (200 when omitted, as POST Projects)"),
                  targets: z
                    .array(
                      z.strictObject({
                        systemQuestionOptionId: z.number().int().describe("A demographic option (SystemQuestionOption)"),
                        regionId: z.number().int().nullable().optional(),
                        quotaPercent: z.number().gt(0).max(100).nullable().optional(),
                        onlyThese: z.boolean().optional(),
                      }),
                    )
                    .max(500),
                })
                .openapi("FeasibilityEstimateBody"),
            },
          },
        },
      },
      responses: {
        200: { description: "The estimate and its explanation", content: { "application/json": { schema: IncidenceResult.omit({ projectId: true }).openapi("FeasibilityEstimate") } } },
        ...commonErrors,
      },
    },
    async (c) => c.json(await feasibilityEstimate(db, c.get("ctx"), c.req.valid("json")), 200),
  );

  // Literal path under /Projects/{key}: a GET, so it does not clash with the actions above.
  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Projects/{key}/ReadinessCheck",
      tags,
      operationId: "Projects_ReadinessCheck",
      summary: "The pre-launch check: what the test still lacks before it can be submitted",
      description:
        "Each problem names the editor tab that fixes it. Submit refuses (400, nothing charged) while a blocking one remains. " +
        "Checks: markets chosen; test options for Idea, Message and Npd; a question for Question projects; at least two items for market reach; " +
        "price questions in the one currency of the markets; quotas that a run can fill (Submit refuses those with each quota group's field error). " +
        "Not blocking: `feasibility`, one per market whose completes exceed what the panel can deliver in a field period (Submit answers 409 unless acceptShortfall), with `shortfall` stating it.",
      request: { params: ProjectKeyParams },
      responses: { 200: { description: "The check", content: { "application/json": { schema: Readiness } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.readinessCheck(db, c.get("ctx"), projectKeyOf(c)), 200),
  );
}
