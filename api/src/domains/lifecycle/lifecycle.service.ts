// The project lifecycle actions (SPEC 4 and 7): each one locks its project, checks the transition
// table (transitions.ts), and makes the state change, its credit logs, its DataEventsLog rows, its
// notifications and its realtime events in ONE transaction. Events are published inside it
// (pg_notify), so they go out at COMMIT and never for a change that rolled back.
import type { Db, Tx } from "../../db/client.ts";
import type { EffectiveRole } from "../../db/tx.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { JOB_STATEMENT_TIMEOUT_MS } from "../../config.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import type { ProjectUpdatedData } from "@ideally/contracts/events";
import { raise } from "../notifications/notifications.service.ts";
import * as ledger from "../credits/ledger.ts";
import * as q from "./lifecycle.sql.ts";
import { asFieldErrors, preLaunchCheck, readinessProblems, shortfallOf, shortfallTerms, shortfallWords, type ReadinessProblem, type ShortfallStatement } from "./readiness.ts";
import { allowedActions, cellFor, refusalMessage, statusName, type Action, type Cell, type StatusCode } from "./transitions.ts";
import { assertQuotasCanBeMet } from "../fielding/quotas.ts";

/** SPEC 9: the backend services user, the actor of system actions (jobs, the scheduler). */
export const SERVICES_USER_ID = 5380;

/** A request context for system actions (a job closing a survey): the services user, all clients. */
export function systemCtx(): RequestCtx {
  return {
    principal: { userId: SERVICES_USER_ID, isStaff: true, isSuperAdmin: false },
    clientId: null,
    descendants: false,
    sessionId: null,
    // Jobs and system work: a long statement timeout, never an endless one.
    limits: { statementTimeoutMs: JOB_STATEMENT_TIMEOUT_MS },
  };
}

/** Notification types (reference data, SPEC 4). */
/** The user notifications this module raises (SPEC 4). */
type LifecycleNotification = "SurveySubmittedForApproval" | "SurveyApproved" | "SurveyApprovalDeclined";

export interface LifecycleResult {
  projectId: number;
  projectName: string;
  clientId: number;
  previousStatusCode: number;
  statusCode: number;
  status: string;
  /** What the table allows from the new status. */
  allowedActions: Action[];
  /** Credits charged by this action (PendingSurveyRun logs), and refunded. */
  charged?: number;
  refunded?: number;
  creditLogIds?: number[];
  balanceAfter?: number;
  /** Submitted with a shortfall accepted: the markets that will fall short, the field period and the refund rule. */
  shortfall?: ShortfallStatement;
}

interface Step {
  tx: Tx;
  ctx: RequestCtx;
  p: q.ProjectRow;
  role: EffectiveRole;
  cell: Cell;
  action: Action;
}

const actorOf = (ctx: RequestCtx) => ctx.principal.userId;

/**
 * Runs an action on a project: the request's tenant transaction, the project locked (404 when it
 * is not one of the request's own clients' projects, or in the trash), the table's cell for its
 * status (409 naming the status and what it allows), staff-only steps (403 for members).
 */
async function act<T>(db: Db, ctx: RequestCtx, action: Action, projectId: number, fn: (s: Step) => Promise<T>): Promise<T> {
  return enterTenant(db, ctx, async (tx, role) => {
    const p = await q.lockProject(tx, projectId);
    if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const cell = cellFor(action, p.statusCode);
    if (!cell) throw new ApiError("Conflict", refusalMessage(action, p.id, p.statusCode));
    if (cell.staffOnly && !ctx.principal.isStaff) {
      throw new ApiError("Forbidden", `At ${p.statusCode} ${statusName(p.statusCode)} only Ideally staff can ${action} a project`);
    }
    return fn({ tx, ctx, p, role, cell, action });
  });
}

async function projectUpdated(tx: Tx, clientId: number, data: ProjectUpdatedData): Promise<void> {
  await publish(tx, { channel: clientChannel(clientId), event: "ProjectUpdated", data, clientId });
}

/**
 * The status change of an action: the row, its StatusChanged log and ProjectUpdated on the client
 * channel. The target must be one of the cell's (the code keeps to its own table).
 */
async function changeStatus(s: Step, to: StatusCode, stamp?: q.StatusStamp, data: Record<string, unknown> = {}): Promise<void> {
  if (!s.cell.to.includes(to)) throw new Error(`${s.action} from ${s.p.statusCode} to ${to} is not in the transition table`);
  if (to === s.p.statusCode && !stamp) return;
  await q.setStatus(s.tx, s.p.id, to, stamp);
  if (to === s.p.statusCode) return;
  await q.logEvent(s.tx, {
    clientId: s.p.clientId,
    userId: actorOf(s.ctx),
    projectId: s.p.id,
    event: "StatusChanged",
    data: { from: s.p.statusCode, to, action: s.action, ...data },
  });
  await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, statusCode: to, previousStatusCode: s.p.statusCode, action: s.action });
}

function result(s: Step, to: number, extra: Partial<LifecycleResult> = {}): LifecycleResult {
  return {
    projectId: s.p.id,
    projectName: s.p.projectName,
    clientId: s.p.clientId,
    previousStatusCode: s.p.statusCode,
    statusCode: to,
    status: statusName(to),
    allowedActions: allowedActions(to),
    ...extra,
  };
}

async function notify(s: Step, userId: number, event: LifecycleNotification, n: { title: string; body: string; url: string; data?: Record<string, unknown> }): Promise<void> {
  await raise(s.tx, {
    userId,
    clientId: s.p.clientId,
    type: event,
    title: n.title,
    body: n.body,
    projectId: s.p.id,
    url: n.url,
    data: { projectName: s.p.projectName, ...n.data },
  });
}

/** SurveySubmittedForApproval: to the team's Admins (inherited too) and to staff, not the submitter. */
async function notifyApprovers(s: Step): Promise<number[]> {
  const admins = await q.clientAdmins(s.tx, s.p.clientId);
  const staff = await q.staffUsers(s.tx, SERVICES_USER_ID);
  const me = actorOf(s.ctx);
  const recipients = [...new Set([...admins, ...staff])].filter((u) => u !== me);
  for (const u of recipients) {
    await notify(s, u, "SurveySubmittedForApproval", {
      title: "Project submitted for approval",
      body: `${s.p.projectName} was submitted and needs approval.`,
      // SPEC 2: status 50 opens the team's review page; staff approve in the admin area.
      url: admins.includes(u) ? `/${s.p.clientId}/projects/${s.p.id}/review` : "/admin/approvals",
      data: { submittedByUserId: me },
    });
  }
  return recipients;
}

/** SPEC 2's link for a project at a status. */
function projectUrl(clientId: number, projectId: number, status: number): string {
  if (status === 50) return `/${clientId}/projects/${projectId}/review`;
  if (status < 200) return `/${clientId}/projects/${projectId}`;
  if (status < 400) return `/${clientId}/project-surveys/${projectId}`;
  return `/${clientId}/results/${projectId}`;
}

async function notifySubmitter(s: Step, event: "SurveyApproved" | "SurveyApprovalDeclined", to: number, reason?: string): Promise<void> {
  const submitter = await q.lastSubmitter(s.tx, s.p.id);
  if (submitter === null || submitter === actorOf(s.ctx) || submitter === SERVICES_USER_ID) return;
  const approved = event === "SurveyApproved";
  await notify(s, submitter, event, {
    title: approved ? "Project approved" : "Project declined",
    body: approved ? `${s.p.projectName} was approved.` : `${s.p.projectName} was declined: ${reason}`,
    url: projectUrl(s.p.clientId, s.p.id, to),
    data: approved ? { statusCode: to } : { statusCode: to, reason },
  });
}

const forSchedule = (p: q.ProjectRow): ledger.ProjectForSchedule => ({
  id: p.id,
  clientId: p.clientId,
  scheduleStartDate: p.scheduleStartDate,
  scheduleFrequencyWeeks: p.scheduleFrequencyWeeks,
  scheduleWavesRequired: p.scheduleWavesRequired,
  wavesRequired: p.wavesRequired,
});

/**
 * Submit's charge and its SubmittedForSurvey log (Submit, and SuperApprove from Draft). An
 * incomplete test (readiness.ts) is refused first: nothing is charged for a survey that cannot run.
 * Then a design the panel cannot fill (a market whose deliverable completes fall short of those
 * ordered, or a quota cell's, by IncidenceEstimate's computation) is refused with a 409 stating what
 * each market and cell can deliver, unless the shortfall is accepted; accepted, the shortfall is logged and answered.
 */
async function chargeAndLogSubmission(s: Step, to: number, opts: { acceptShortfall: boolean }): Promise<ledger.Charge & { shortfall: ShortfallStatement | null }> {
  const problems = await readinessProblems(s.tx, s.p);
  if (problems.length) {
    throw new ApiError("ValidationError", `The test is not ready to submit: ${problems.map((x) => x.message).join(" ")}`, undefined, asFieldErrors(problems));
  }
  // A design no run can fill is refused before any charge, naming its group.
  await assertQuotasCanBeMet(s.tx, s.p.id);
  const shortfall = await shortfallOf(s.tx, s.p.id);
  if (shortfall && !opts.acceptShortfall) {
    throw new ApiError(
      "Conflict",
      `Not feasible: ${shortfallWords(shortfall.markets, shortfall.cells)}. Nothing was charged. Lower the completes${shortfall.cells.length ? ", change the quota cells' shares" : ""} or target less narrowly, or submit again with "acceptShortfall": true to buy it as it is. ${shortfallTerms(shortfall.fieldPeriodDays)}`,
      undefined,
      [...shortfall.markets, ...shortfall.cells].map((m) => ({ path: "feasibility", message: m.text })),
    );
  }
  const charge = await ledger.chargeFirstWave(s.tx, actorOf(s.ctx), forSchedule(s.p), s.p.projectName);
  await q.logEvent(s.tx, {
    clientId: s.p.clientId,
    userId: actorOf(s.ctx),
    projectId: s.p.id,
    event: "SubmittedForSurvey",
    data: {
      statusCode: to,
      charged: charge.total,
      creditLogIds: charge.creditLogIds,
      ...(shortfall ? { shortfallAccepted: shortfall.markets.map(({ regionId, sampleSize, feasibleCompletes }) => ({ regionId, sampleSize, feasibleCompletes })) } : {}),
      ...(shortfall?.cells.length ? { shortfallCellsAccepted: shortfall.cells.map(({ regionId, label, needed, deliverable }) => ({ regionId, label, needed, deliverable })) } : {}),
    },
  });
  return { ...charge, shortfall };
}

export interface ProjectInput {
  projectId: number;
}

// ---- the status machine ----

export async function submit(db: Db, ctx: RequestCtx, input: ProjectInput & { acceptShortfall?: boolean }): Promise<LifecycleResult> {
  return act(db, ctx, "Submit", input.projectId, async (s) => {
    const isAdmin = ctx.principal.isStaff || (await q.userRole(s.tx, actorOf(ctx), s.p.clientId)) === 1;
    const needsApproval = (await q.requiresApproval(s.tx, s.p.clientId)) || !isAdmin;
    const to: StatusCode = needsApproval ? 50 : 100;
    const charge = await chargeAndLogSubmission(s, to, { acceptShortfall: input.acceptShortfall === true });
    await changeStatus(s, to, "submitted", { charged: charge.total });
    if (to === 50) await notifyApprovers(s);
    return result(s, to, { charged: charge.total, creditLogIds: charge.creditLogIds, balanceAfter: charge.balanceAfter, ...(charge.shortfall ? { shortfall: charge.shortfall } : {}) });
  });
}

export async function unsubmit(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult> {
  return act(db, ctx, "Unsubmit", input.projectId, async (s) => {
    const refund = await ledger.refundUnrunWaves(s.tx, actorOf(ctx), s.p.id, s.p.clientId, "Unsubmit");
    await changeStatus(s, 0, "cleared", { refunded: refund.total });
    return result(s, 0, { refunded: refund.total, creditLogIds: refund.creditLogIds });
  });
}

export async function approve(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult> {
  return act(db, ctx, "Approve", input.projectId, async (s) => {
    const to = s.cell.to[0]!;
    await changeStatus(s, to, s.p.statusCode === 50 ? "approved" : undefined);
    if (s.p.statusCode === 50) await notifySubmitter(s, "SurveyApproved", to);
    return result(s, to);
  });
}

export async function superApprove(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult> {
  return act(db, ctx, "SuperApprove", input.projectId, async (s) => {
    let charge: Awaited<ReturnType<typeof chargeAndLogSubmission>> | undefined;
    // A super admin's decision: a shortfall is accepted, and stated in the answer.
    if (s.p.statusCode === 0) charge = await chargeAndLogSubmission(s, 300, { acceptShortfall: true });
    await changeStatus(s, 300, "approved", charge ? { charged: charge.total } : {});
    if (s.p.statusCode === 0) await q.setStatus(s.tx, s.p.id, 300, "submitted");
    if (s.p.statusCode === 50) await notifySubmitter(s, "SurveyApproved", 300);
    return result(s, 300, charge ? { charged: charge.total, creditLogIds: charge.creditLogIds, balanceAfter: charge.balanceAfter, ...(charge.shortfall ? { shortfall: charge.shortfall } : {}) } : {});
  });
}

export async function decline(db: Db, ctx: RequestCtx, input: ProjectInput & { reason: string }): Promise<LifecycleResult> {
  return act(db, ctx, "Decline", input.projectId, async (s) => {
    const refund = await ledger.refundUnrunWaves(s.tx, actorOf(ctx), s.p.id, s.p.clientId, "Decline");
    await changeStatus(s, 0, "cleared", { reason: input.reason, refunded: refund.total });
    await notifySubmitter(s, "SurveyApprovalDeclined", 0, input.reason);
    return result(s, 0, { refunded: refund.total, creditLogIds: refund.creditLogIds });
  });
}

/**
 * CloseProjectSurvey (staff, or the processing job as the services user): the wave's answers are
 * in. Its pending charges are settled into spends of their runs; the project shows its results,
 * as a Completed Wave while later waves remain scheduled, else Complete.
 */
export async function closeProjectSurvey(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult> {
  return act(db, ctx, "CloseProjectSurvey", input.projectId, async (s) => {
    const settled = await ledger.settleRunCharges(s.tx, s.p.id);
    const to: StatusCode = (await q.hasUnrunSchedules(s.tx, s.p.id)) ? 800 : 900;
    await changeStatus(s, to, to === 900 ? "completed" : undefined);
    await q.logEvent(s.tx, {
      clientId: s.p.clientId,
      userId: actorOf(ctx),
      projectId: s.p.id,
      event: "ResultsReady",
      data: { statusCode: to, settledCreditLogs: settled },
    });
    if (to === s.p.statusCode) await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, statusCode: to, action: s.action });
    return result(s, to);
  });
}

export async function stopProjectScheduling(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult> {
  return act(db, ctx, "StopProjectScheduling", input.projectId, async (s) => {
    const refund = await ledger.refundUnrunWaves(s.tx, actorOf(ctx), s.p.id, s.p.clientId, "StopProjectScheduling");
    const to = s.cell.to[0]!;
    await changeStatus(s, to, to === 0 ? "cleared" : to === 900 ? "completed" : undefined, { refunded: refund.total });
    if (to === s.p.statusCode) await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, statusCode: to, action: s.action });
    return result(s, to, { refunded: refund.total, creditLogIds: refund.creditLogIds });
  });
}

export async function markAsDemo(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult> {
  return act(db, ctx, "MarkAsDemo", input.projectId, async (s) => {
    await changeStatus(s, 950);
    return result(s, 950);
  });
}

/**
 * Move (staff): the project, with every row that belongs to it, to another team of the same
 * enterprise. A Draft only (a fielded project's runs, sessions and charges belong to its team), and
 * not one with ledger rows (charges stay with the client that paid them).
 */
export async function move(db: Db, ctx: RequestCtx, input: ProjectInput & { clientId: number }): Promise<LifecycleResult & { fromClientId: number }> {
  // Staff work across clients here: both teams must be reachable in one transaction.
  const all: RequestCtx = { ...ctx, clientId: null, descendants: false };
  return act(db, all, "Move", input.projectId, async (s) => {
    const target = await q.clientInfo(s.tx, input.clientId);
    if (!target) throw new ApiError("NotFound", `Clients(${input.clientId}) not found`);
    if (target.tier !== "Team") throw new ApiError("BadRequest", `Client ${target.id} is an ${target.tier}: projects belong to teams`);
    if (target.id === s.p.clientId) throw new ApiError("Conflict", `Project ${s.p.id} is already in client ${target.id}`);
    const [from, to] = [await q.enterpriseOf(s.tx, s.p.clientId), await q.enterpriseOf(s.tx, target.id)];
    if (from === null || from !== to) {
      throw new ApiError("Conflict", `Project ${s.p.id} can move only to another team of its own enterprise; client ${target.id} is not one`);
    }
    if ((await q.ledgerRowCount(s.tx, s.p.id)) > 0) {
      throw new ApiError("Conflict", `Project ${s.p.id} has credit log rows: its charges stay with client ${s.p.clientId}, so it cannot move (Duplicate it in the other team instead)`);
    }
    await q.moveProject(s.tx, s.p.id, s.p.clientId, target.id).catch(dbError(`Moving project ${s.p.id}`));
    const data = { fromClientId: s.p.clientId, toClientId: target.id };
    await q.logEvent(s.tx, { clientId: target.id, userId: actorOf(ctx), projectId: s.p.id, event: "Moved", data });
    await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, action: s.action, ...data });
    await projectUpdated(s.tx, target.id, { projectId: s.p.id, action: s.action, ...data });
    return { ...result(s, s.p.statusCode), clientId: target.id, fromClientId: s.p.clientId };
  });
}

export type AdminEditInput = Partial<Record<q.AdminEditField, unknown>> & { note?: string };

/**
 * AdminEdit (staff): every project field, the status included, in one audited change: an AdminEdit
 * row in DataEventsLog with each field's old and new value (and StatusChanged when the status
 * moves). A raw correction: it never touches the ledger or the schedules.
 */
export async function adminEdit(db: Db, ctx: RequestCtx, projectId: number, input: AdminEditInput): Promise<LifecycleResult & { changes: Record<string, { from: unknown; to: unknown }> }> {
  return act(db, ctx, "AdminEdit", projectId, async (s) => {
    const before = await q.adminEditValues(s.tx, s.p.id);
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const set: Partial<Record<q.AdminEditField, unknown>> = {};
    for (const k of Object.keys(q.ADMIN_EDIT_COLUMNS) as q.AdminEditField[]) {
      if (!(k in input) || input[k] === undefined) continue;
      if (JSON.stringify(before[k]) === JSON.stringify(input[k])) continue;
      changes[k] = { from: before[k], to: input[k] };
      set[k] = input[k];
    }
    const to = (set.statusCode as StatusCode | undefined) ?? (s.p.statusCode as StatusCode);
    if (Object.keys(set).length) {
      await q.adminEdit(s.tx, s.p.id, set).catch(dbError(`AdminEdit of project ${s.p.id}`));
      await q.logEvent(s.tx, {
        clientId: s.p.clientId,
        userId: actorOf(ctx),
        projectId: s.p.id,
        event: "AdminEdit",
        data: { changes, ...(input.note ? { note: input.note } : {}) },
      });
      if (to !== s.p.statusCode) {
        await q.logEvent(s.tx, {
          clientId: s.p.clientId,
          userId: actorOf(ctx),
          projectId: s.p.id,
          event: "StatusChanged",
          data: { from: s.p.statusCode, to, action: s.action },
        });
      }
      await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, statusCode: to, previousStatusCode: s.p.statusCode, action: s.action });
    }
    return { ...result(s, to), projectName: (set.projectName as string | undefined) ?? s.p.projectName, changes };
  });
}

export async function updateProjectOwner(db: Db, ctx: RequestCtx, input: ProjectInput & { userId: number }): Promise<LifecycleResult & { ownerUserId: number }> {
  return act(db, ctx, "UpdateProjectOwner", input.projectId, async (s) => {
    const role = await q.userRole(s.tx, input.userId, s.p.clientId);
    if (role !== 1 && role !== 2) {
      throw new ApiError("BadRequest", `User ${input.userId} is not an Admin or User of client ${s.p.clientId}: only they can own its projects`);
    }
    if (s.p.ownerUserId !== input.userId) {
      await q.setOwner(s.tx, s.p.id, input.userId);
      await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, ownerUserId: input.userId, action: s.action });
    }
    return { ...result(s, s.p.statusCode), ownerUserId: input.userId };
  });
}

export interface ProjectTag {
  id: number;
  projectGroupId: number;
  name: string;
}

/**
 * UpdateGroupTags: the project's group tags become exactly the tags named (by the id of any row of
 * the tag: a tag is a name within a project group). Tags taken off go; the last row of a tag stays
 * as the group's tag without a project.
 */
export async function updateGroupTags(db: Db, ctx: RequestCtx, input: ProjectInput & { tagIds: number[] }): Promise<{ projectId: number; tags: ProjectTag[] }> {
  return act(db, ctx, "UpdateGroupTags", input.projectId, async (s) => {
    const ids = [...new Set(input.tagIds)];
    const named = await q.tagsByIds(s.tx, ids);
    const missing = ids.filter((id) => !named.some((t) => t.id === id && t.clientId === s.p.clientId));
    if (missing.length) throw new ApiError("BadRequest", `No group tag ${missing.join(", ")} in the project's client`);
    const key = (t: { projectGroupId: number; name: string }) => `${t.projectGroupId}\u0000${t.name}`;
    const wanted = new Map(named.map((t) => [key(t), t]));
    const current = await q.tagsOfProject(s.tx, s.p.id);
    for (const t of current) if (!wanted.has(key(t))) await q.untag(s.tx, t);
    const have = new Set(current.map(key));
    for (const [k, t] of wanted) if (!have.has(k)) await q.tag(s.tx, s.p.clientId, t.projectGroupId, s.p.id, t.name);
    await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, action: s.action });
    const tags = (await q.tagsOfProject(s.tx, s.p.id)).map((t) => ({ id: t.id, projectGroupId: t.projectGroupId, name: t.name }));
    return { projectId: s.p.id, tags };
  });
}

export async function resyncScheduledProject(db: Db, ctx: RequestCtx, input: ProjectInput): Promise<LifecycleResult & { waves: number }> {
  return act(db, ctx, "ResyncScheduledProject", input.projectId, async (s) => {
    const r = await ledger.resyncUnrunWaves(s.tx, actorOf(ctx), forSchedule(s.p), s.p.projectName);
    await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, action: s.action });
    return { ...result(s, s.p.statusCode, { charged: r.charged, refunded: r.refunded, balanceAfter: r.balanceAfter }), waves: r.waves };
  });
}

export async function removeFromSurveyRun(db: Db, ctx: RequestCtx, input: ProjectInput & { surveyRunId: number }): Promise<LifecycleResult & q.RunRemoval> {
  return act(db, ctx, "RemoveFromSurveyRun", input.projectId, async (s) => {
    const removed = await q.removeFromRun(s.tx, s.p.id, input.surveyRunId);
    if (!removed.schedules && !removed.weeks && !removed.sessions) {
      throw new ApiError("NotFound", `Project ${s.p.id} is not on survey run ${input.surveyRunId}`);
    }
    const to: StatusCode = s.p.statusCode === 400 && !(await q.onAnyRun(s.tx, s.p.id)) ? 300 : (s.p.statusCode as StatusCode);
    await changeStatus(s, to, undefined, { surveyRunId: input.surveyRunId });
    if (to === s.p.statusCode) await projectUpdated(s.tx, s.p.clientId, { projectId: s.p.id, action: s.action, surveyRunId: input.surveyRunId });
    return { ...result(s, to), ...removed };
  });
}

/**
 * A status change made by another domain inside its own transaction (the fielding domain's 300 ->
 * 400 when a run launches): the same row update, StatusChanged log and ProjectUpdated event as the
 * lifecycle actions. The caller holds the project's lock and has checked its own precondition.
 */
export async function recordStatusChange(tx: Tx, e: { projectId: number; clientId: number; from: number; to: number; actorId: number; action: string }): Promise<void> {
  await q.setStatus(tx, e.projectId, e.to);
  await q.logEvent(tx, { clientId: e.clientId, userId: e.actorId, projectId: e.projectId, event: "StatusChanged", data: { from: e.from, to: e.to, action: e.action } });
  await projectUpdated(tx, e.clientId, { projectId: e.projectId, statusCode: e.to, previousStatusCode: e.from, action: e.action });
}

/** Runs an action's body for other services (the incidence estimate, duplication) with the same checks. */
export function withProjectAction<T>(db: Db, ctx: RequestCtx, action: Action, projectId: number, fn: (tx: Tx, p: q.ProjectRow) => Promise<T>): Promise<T> {
  return act(db, ctx, action, projectId, (s) => fn(s.tx, s.p));
}

/** A PostgreSQL error as the API's error (references, checks, the submitted-project lock). */
export function dbError(what: string) {
  return (e: unknown): never => {
    const code = (e as { code?: string }).code;
    const detail = (e as { detail?: string }).detail;
    if (code === "23503") throw new ApiError("Conflict", `${what}: a referenced row does not exist, or rows tied to the old client still refer to it`, detail);
    if (code === "23505") throw new ApiError("Conflict", `${what}: a row with the same unique values exists`, detail ?? (e as { constraint_name?: string }).constraint_name);
    if (code === "55000") throw new ApiError("Conflict", (e as Error).message);
    if (code === "23514" || code === "23502" || code === "22P02" || code === "22003" || code === "22007" || code === "22008") {
      throw new ApiError("ValidationError", `${what}: a value breaks a constraint`, detail);
    }
    throw e;
  };
}

/**
 * The pre-launch check of a project the caller can read (the editor's list; Submit applies it):
 * ready when no problem blocks; a shortfall is listed (not blocking) with its statement.
 */
export async function readinessCheck(db: Db, ctx: RequestCtx, projectId: number): Promise<{ projectId: number; ready: boolean; problems: ReadinessProblem[]; shortfall: ShortfallStatement | null }> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.readProject(tx, projectId);
    if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const { problems, shortfall } = await preLaunchCheck(tx, p);
    return { projectId, ready: problems.every((x) => !x.blocking), problems, shortfall };
  });
}
