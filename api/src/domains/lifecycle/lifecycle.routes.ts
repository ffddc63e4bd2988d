// The project lifecycle's bound actions (SPEC 7 Projects): POST /api/v1/Projects({key})/{Action}.
// Thin: validate, call the service, answer. The transition table: transitions.ts and
// docs/project-lifecycle.md. The status transitions are here; the project's other actions and
// checks are in project-actions.routes.ts, their schemas in lifecycle.schemas.ts.
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute } from "../../openapi.ts";
import * as svc from "./lifecycle.service.ts";
import { registerMoveAndEdits, registerTagsAndIncidence, registerRunRepairs, registerProjectChecks } from "./project-actions.routes.ts";
import { LifecycleResult, SubmitBody, Decline, action, actionWithBody, projectIdOf } from "./lifecycle.schemas.ts";

export function registerLifecycleRoutes(app: App, deps: AppDeps): void {
  registerSubmitAndApproval(app, deps);
  registerDeclineAndStops(app, deps);
  registerMoveAndEdits(app, deps);
  registerTagsAndIncidence(app, deps);
  registerRunRepairs(app, deps);
  registerProjectChecks(app, deps);
}

/** Submit, Unsubmit, Approve and SuperApprove. */
function registerSubmitAndApproval(app: App, deps: AppDeps): void {
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
        "409 (nothing charged) when a market's completes exceed what the panel can deliver in a field period (IncidenceEstimate's feasibleCompletes), " +
        "or a quota cell's (one question's or crossed) need exceeds its deliverable completes (the explanation's cells): " +
        "the message states each market's and cell's deliverable completes, one `feasibility` field error each; with `acceptShortfall: true` it is submitted " +
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
}

/** Decline, CloseProjectSchedule, StopProjectScheduling and MarkAsDemo. */
function registerDeclineAndStops(app: App, deps: AppDeps): void {
  const db = deps.db;
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
}
