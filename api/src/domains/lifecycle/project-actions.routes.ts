// The project's other bound actions (SPEC 7 Projects), beside the status transitions of
// lifecycle.routes.ts: Move, Duplicate, AdminEdit, UpdateProjectOwner, UpdateGroupTags,
// IncidenceEstimate, GenerateQuestionIr, ResyncScheduledProject, RemoveFromSurveyRun, and the
// FeasibilityEstimate and ReadinessCheck reads (moved from lifecycle.routes.ts, issue 34).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import * as svc from "./lifecycle.service.ts";
import { duplicate } from "./duplicate.service.ts";
import { generateQuestionIr } from "./incidence.service.ts";
import { feasibilityEstimate, incidenceEstimateExplained } from "./feasibility.ts";
import { CrossedQuotaCell } from "../projects/schemas.ts";
import {
  tags,
  ProjectKeyParams,
  projectKeyOf,
  Readiness,
  Move,
  Duplicate,
  DuplicateResult,
  Owner,
  OwnerResult,
  GroupTags,
  GroupTagsResult,
  RemoveFromRun,
  RemoveFromRunResult,
  ResyncResult,
  MoveResult,
  AdminEdit,
  AdminEditResult,
  IncidenceResult,
  QuestionIrResult,
  action,
  actionWithBody,
  projectIdOf,
} from "./lifecycle.schemas.ts";

/** Move, Duplicate, AdminEdit and UpdateProjectOwner. */
export function registerMoveAndEdits(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}

/** UpdateGroupTags, IncidenceEstimate and GenerateQuestionIr. */
export function registerTagsAndIncidence(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}

/** ResyncScheduledProject and RemoveFromSurveyRun. */
export function registerRunRepairs(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}

/** Projects FeasibilityEstimate and ReadinessCheck. */
export function registerProjectChecks(app: App, deps: AppDeps): void {
  const db = deps.db;
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
        "IncidenceEstimate's estimate and explanation for markets, completes, demographic targets and crossed quota cells as ChangeTargets takes them, with nothing created " +
        "(the CLI's `projects create --dry-run` and `projects validate`). Targets are checked as ChangeTargets checks them (400 naming the target); " +
        "crossed cells as ChangeTargets checks their markets and answers (400 at `crossedQuotas.{i}`); " +
        "quotas and crossings no run can fill are not refused here but explained (`explanation.quotasOk` false, the group's or crossing's text naming it). Nothing is written.",
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
                  crossedQuotas: z
                    .array(CrossedQuotaCell)
                    .max(500)
                    .optional()
                    .describe(
                      "Crossed (interlocked) quota cells as ChangeTargets takes them (none when omitted): each crossing is one factor of its market's incidence and each cell's needed and deliverable completes are in `explanation.crossed`, as IncidenceEstimate gives them for a saved project",
                    ),
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
        "Not blocking: `feasibility`, one per market whose completes exceed what the panel can deliver in a field period and one per quota cell (one question's or crossed) that cannot be met (Submit answers 409 unless acceptShortfall), with `shortfall` stating them.",
      request: { params: ProjectKeyParams },
      responses: { 200: { description: "The check", content: { "application/json": { schema: Readiness } } }, ...commonErrors, 404: errors[404] },
    },
    async (c) => c.json(await svc.readinessCheck(db, c.get("ctx"), projectKeyOf(c)), 200),
  );
}
