// Fielding (docs/decisions.md "Fielding"): a project's started waves become survey runs (one per
// project, region and panel) with a snapshot of the questionnaire; a run goes Live, respondents
// answer it (people on the public page, or the simulated Ideally panel's people through the same
// respondent code: respondentBatch), it closes at its quota, and processing turns its completes
// into weighted results.
//
// Every completed respondent is ingested at once (its project survey session, responses and text
// responses, in the transaction that completes it; the simulated panel's at the end of its batch's
// transaction), so results and ResponsesCount grow live; the
// close of a run then rakes its sample to the region's census margins and, when the project's wave
// is done, closes the project's survey (800 or 900, ResultsReady, ProjectReady to its watchers).
// Everything is keyed so a retry repeats nothing: a session is ingested once (processed_at, and
// project_survey_sessions is unique per project and session), a run is processed once.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import type { ProjectUpdatedData } from "@ideally/contracts/events";
import { rake } from "@ideally/analytics/rake";
import { raise } from "../notifications/notifications.service.ts";
import { closeProjectSurvey, recordStatusChange, SERVICES_USER_ID, systemCtx } from "../lifecycle/lifecycle.service.ts";
import * as lifecycleSql from "../lifecycle/lifecycle.sql.ts";
import { startDueSchedules, weekSinceLaunch } from "../scheduling/scheduling.service.ts";
import { buildDefinition } from "./definition.ts";
import { computeDrivers } from "../results/drivers.service.ts";
import { codeThemes } from "../results/themes.service.ts";
import { refreshNormCells } from "../results/norms.ts";
import { answerKey, crossingKeyOf, hash32, intentKey, type SurveyDefinition } from "./engine.ts";
import * as q from "./fielding.sql.ts";
import { screens, type Margins, type PanelPlan } from "./simulate.ts";
import { estimateIn, feasibility } from "../lifecycle/estimate.ts";
import { refundRunShortfall } from "../credits/ledger.ts";
import { recordOutcomes } from "./suppliers.ts";
import { DEFAULT_FIELD_DAYS, fieldPeriodDaysOf } from "./field-period.ts";
import { SURVEY_STATUS } from "./respondent-view.ts";

export { SURVEY_STATUS, type RespondentView } from "./respondent-view.ts";
// The respondents' side (a start, a page, a reload, the simulated panel's batches) is respondents.service.ts's, which calls this
// module (closeRun, ingestRun, projectUpdated) and is not called by it.
/** Raking caps weights to [1/5, 5] relative to mean 1 (DOMAIN.md: e.g. 0.2-5). */
export const WEIGHT_CAP = 5;
/** Margins are met within this, unless the cap binds (then reported). */
export const RAKE_TOLERANCE = 0.001;
/** The demographics the sample is raked on (DESIGN.md): age group, gender, region. */
export const WEIGHTING_QUESTIONS = [51, 45, 42];
/** A Live run with quota open and no complete for this long is stalled (its owner is told once). */
export const STALL_HOURS = 24;

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

/** ProjectUpdated on the project's channel (also respondents.service.ts's). */
export async function projectUpdated(tx: Tx, clientId: number, data: ProjectUpdatedData): Promise<void> {
  await publish(tx, { channel: clientChannel(clientId), event: "ProjectUpdated", data, clientId });
}

export function surveyUrl(publicUrl: string, link: string): string {
  return `${publicUrl.replace(/\/$/, "")}/s/${link}`;
}

// ---- runs ----

export interface CreatedRun {
  surveyRunId: number;
  projectId: number;
  regionId: number;
  isCustomerPanel: boolean;
  targetCompletes: number;
  surveyLink: string;
}

/**
 * CreateDecipherSurveys: the project's started waves (or every project's, for the fielding tick)
 * become survey runs in Draft, each with its questionnaire snapshot. Waves due today are started
 * first (the scheduler's own step, idempotent).
 */
export async function createSurveys(db: Db, projectId: number | null): Promise<CreatedRun[]> {
  await startDueSchedules(db);
  return system(db, async (tx) => {
    // One at a time (a nudged tick beside the cron's, or CreateDecipherSurveys): two transactions
    // reading the same ready group would each make a run for it, the first left without its
    // schedules. Held to the commit; the second then reads the groups as the first left them.
    await tx`select pg_advisory_xact_lock(hashtext('fielding.createSurveys'))`;
    const out: CreatedRun[] = [];
    for (const g of await q.readyGroups(tx, projectId)) {
      const runId = await q.insertRun(tx, g, hash32(`${g.projectId}:${g.regionId}:${g.scheduleIds.join(",")}`) & 0x7fffffff);
      const def = await buildDefinition(tx, { id: runId, regionId: g.regionId, isCustomerPanel: g.isCustomerPanel, targetCompletes: g.sampleSize }, g.projectId);
      await q.setDefinition(tx, runId, def);
      const run = (await q.run(tx, runId))!;
      out.push({ surveyRunId: runId, projectId: g.projectId, regionId: g.regionId, isCustomerPanel: g.isCustomerPanel, targetCompletes: g.sampleSize, surveyLink: run.surveyLink });
    }
    return out;
  });
}

/** SyncDecipherSurvey / ReuploadTranslations: the snapshot taken again (a Draft or Testing run only). */
export async function resyncDefinition(db: Db, runId: number): Promise<SurveyDefinition> {
  return system(db, async (tx) => {
    const run = await liveRun(tx, runId, true);
    if (run.surveyStatusId !== SURVEY_STATUS.Draft && run.surveyStatusId !== SURVEY_STATUS.Testing && run.surveyStatusId !== SURVEY_STATUS.Live) {
      throw new ApiError("Conflict", `Survey run ${runId} is ${statusName(run.surveyStatusId)}: only a Draft, Testing or Live run can be synced`);
    }
    const def = await buildDefinition(tx, { id: run.id, regionId: run.regionId, isCustomerPanel: run.isCustomerPanel, targetCompletes: run.targetCompletes ?? 200 }, run.definition!.projectId);
    await q.setDefinition(tx, run.id, def);
    return def;
  });
}

export function statusName(id: number): string {
  return Object.entries(SURVEY_STATUS).find(([, v]) => v === id)?.[0] ?? String(id);
}

export async function liveRun(tx: Tx, runId: number, lock = false): Promise<q.RunRow & { definition: SurveyDefinition }> {
  const run = await q.run(tx, runId, lock);
  if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
  if (!run.definition) throw new ApiError("Conflict", `Survey run ${runId} has no survey yet: create it with CreateDecipherSurveys`);
  return run as q.RunRow & { definition: SurveyDefinition };
}

/**
 * LaunchSurvey: the run goes Live; its project moves to Processing results (400). A customer-panel
 * run's link goes to the team (CustomPanelProjectReadyForSurvey); the Ideally panel starts answering.
 */
export async function launchRun(db: Db, runId: number, publicUrl: string): Promise<q.RunRow> {
  return system(db, async (tx) => {
    const run = await liveRun(tx, runId, true);
    if (run.surveyStatusId === SURVEY_STATUS.Live) return run;
    if (run.surveyStatusId !== SURVEY_STATUS.Draft && run.surveyStatusId !== SURVEY_STATUS.Testing) {
      throw new ApiError("Conflict", `Survey run ${runId} is ${statusName(run.surveyStatusId)}: only a Draft or Testing run can be launched`);
    }
    const p = await lifecycleSql.lockProject(tx, run.definition.projectId);
    if (!p) throw new ApiError("NotFound", `No project ${run.definition.projectId}`);
    if (p.statusCode !== 300 && p.statusCode !== 400) {
      throw new ApiError("Conflict", `Project ${p.id} is at status ${p.statusCode}: a run launches for a project Awaiting Survey (300)`);
    }
    await q.setRunStatus(tx, run.id, SURVEY_STATUS.Live, "launched_at");
    await q.setFieldEnd(tx, run.id, p.id, DEFAULT_FIELD_DAYS);
    if (p.statusCode === 300) {
      await recordStatusChange(tx, { projectId: p.id, clientId: p.clientId, from: 300, to: 400, actorId: SERVICES_USER_ID, action: "LaunchSurvey" });
    }
    if (run.isCustomerPanel) {
      const admins = await lifecycleSql.clientAdmins(tx, p.clientId);
      const url = surveyUrl(publicUrl, run.surveyLink);
      for (const userId of new Set([...(p.ownerUserId ? [p.ownerUserId] : []), ...admins])) {
        if (userId === SERVICES_USER_ID) continue;
        await raise(tx, {
          userId,
          clientId: p.clientId,
          type: "CustomPanelProjectReadyForSurvey",
          body: `${p.projectName}: send this link to your customers in ${run.definition.regionName}: ${url}`,
          projectId: p.id,
          url: `/${p.clientId}/project-surveys/${p.id}`,
          data: { surveyRunId: run.id, surveyLink: run.surveyLink, surveyUrl: url, regionId: run.regionId },
        });
      }
    }
    return (await q.run(tx, run.id))!;
  });
}

export type ClosedReason = q.ClosedReason;

/** The run closes (at its quota, its field end, or by ForceCloseSurvey): no new respondents; processing may start. */
export async function closeRun(tx: Tx, run: q.RunRow, reason: ClosedReason): Promise<void> {
  if (run.surveyStatusId === SURVEY_STATUS.Closed) return;
  await q.setRunStatus(tx, run.id, SURVEY_STATUS.Closed, "closed_at");
  await tx`update survey_runs set closed_reason = ${reason} where id = ${run.id}`;
  await tx`update survey_sessions set status = 'Removed', end_reason = 'survey closed', updated_at = now() where survey_run_id = ${run.id} and status = 'InProgress'`;
  // The entries' network signals judged nothing after the close: not kept (docs/decisions/0129).
  await tx`update survey_sessions set network_key = null where survey_run_id = ${run.id} and network_key is not null`;
  // Supplier respondents still answering are sent back over quota: recorded now, their callbacks due.
  await recordOutcomes(tx, run.id);
}

export async function forceClose(db: Db, runId: number): Promise<q.RunRow> {
  return system(db, async (tx) => {
    const run = await liveRun(tx, runId, true);
    if (run.surveyStatusId !== SURVEY_STATUS.Live && run.surveyStatusId !== SURVEY_STATUS.Testing) {
      throw new ApiError("Conflict", `Survey run ${runId} is ${statusName(run.surveyStatusId)}: only a Live or Testing run can be closed`);
    }
    await closeRun(tx, run, "staff");
    return (await q.run(tx, run.id))!;
  });
}

/**
 * ExtendFieldPeriod (staff): a Live or Testing run's field end moves to `fieldEndAt` (in the future;
 * earlier or later than before), and a stalled run is watched afresh.
 */
export async function extendFieldPeriod(db: Db, runId: number, fieldEndAt: Date): Promise<q.RunRow> {
  return system(db, async (tx) => {
    const run = await liveRun(tx, runId, true);
    if (run.surveyStatusId !== SURVEY_STATUS.Live && run.surveyStatusId !== SURVEY_STATUS.Testing) {
      throw new ApiError("Conflict", `Survey run ${runId} is ${statusName(run.surveyStatusId)}: only a Live or Testing run's field period can change`);
    }
    if (fieldEndAt.getTime() <= Date.now()) {
      throw new ApiError("ValidationError", "The field end must be in the future", undefined, [{ path: "fieldEndAt", message: "Must be in the future" }]);
    }
    await tx`update survey_runs set field_end_at = ${fieldEndAt.toISOString()}::timestamptz, stalled_at = null, updated_at = now() where id = ${run.id}`;
    await projectUpdated(tx, run.clientId, { projectId: run.definition.projectId, action: "FieldPeriodChanged", surveyRunId: run.id, fieldEndAt: fieldEndAt.toISOString() });
    return (await q.run(tx, run.id))!;
  });
}

async function notifyOwners(tx: Tx, projectId: number, n: { type: "SurveyStalled" | "SurveyClosedShort"; body: string; data: Record<string, unknown> }): Promise<void> {
  const o = await q.projectOwners(tx, projectId);
  for (const userId of o.userIds) {
    if (userId === SERVICES_USER_ID) continue;
    await raise(tx, { userId, clientId: o.clientId, type: n.type, body: `${o.projectName}: ${n.body}`, projectId, url: `/${o.clientId}/project-surveys/${projectId}`, data: n.data });
  }
}

/** Live runs past their field end close with the completes they have (processing follows in the tick). */
export async function closeRunsAtFieldEnd(db: Db): Promise<number[]> {
  const due = await system(db, (tx) => q.runsPastFieldEnd(tx));
  const closed: number[] = [];
  for (const id of due) {
    await system(db, async (tx) => {
      const run = await liveRun(tx, id, true);
      if (run.surveyStatusId !== SURVEY_STATUS.Live || !run.fieldEndAt || new Date(run.fieldEndAt).getTime() > Date.now()) return;
      await closeRun(tx, run, "field end");
      await projectUpdated(tx, run.clientId, { projectId: run.definition.projectId, action: "SurveyClosed", surveyRunId: run.id, regionId: run.regionId, reason: "field end" });
      closed.push(run.id);
    });
  }
  return closed;
}

/** Live runs with quota open and no complete for STALL_HOURS are marked stalled; their owners are told once. */
export async function detectStalls(db: Db, hours = STALL_HOURS): Promise<number[]> {
  return system(db, async (tx) => {
    const ids = await q.runsStalling(tx, hours);
    for (const id of ids) {
      const run = await liveRun(tx, id, true);
      await tx`update survey_runs set stalled_at = now(), updated_at = now() where id = ${id}`;
      const counts = await q.quotaCounts(tx, id);
      const target = run.targetCompletes ?? run.definition.targetCompletes;
      const closes = run.fieldEndAt ? ` It closes at ${new Date(run.fieldEndAt).toISOString()} with the completes it has; the shortfall is refunded.` : "";
      await notifyOwners(tx, run.definition.projectId, {
        type: "SurveyStalled",
        body: `the ${run.definition.regionName} run has had no complete for ${hours} hours (${counts.completes} of ${target}).${closes}`,
        data: { surveyRunId: id, regionId: run.regionId, completes: counts.completes, targetCompletes: target, fieldEndAt: run.fieldEndAt ? new Date(run.fieldEndAt).toISOString() : null },
      });
      await projectUpdated(tx, run.clientId, {
        projectId: run.definition.projectId,
        action: "SurveyStalled",
        surveyRunId: id,
        regionId: run.regionId,
        completes: counts.completes,
        targetCompletes: target,
      });
    }
    return ids;
  });
}

// ---- the simulated Ideally panel ----

export async function margins(tx: Tx, regionId: number): Promise<Margins> {
  const out: Margins = {};
  for (const m of await q.censusMargins(tx, regionId)) {
    out[m.systemQuestionId] ??= {};
    out[m.systemQuestionId]![m.optionId] = m.share;
  }
  return out;
}

/**
 * The simulated panel's plan for a run: the incidence estimate of its market (estimate.ts, the
 * figure the markets tab and Submit show) as the panel first answers the run, kept on the run so
 * the panel draws the same market throughout (a screener's share from past responses would move
 * with the run's own completes).
 */
export async function panelPlan(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }): Promise<PanelPlan> {
  const [kept] = await tx<{ plan: PanelPlan | null }[]>`select panel_plan as plan from survey_runs where id = ${run.id}`;
  if (kept?.plan) return kept.plan;
  const def = run.definition;
  const est = await estimateIn(tx, def.projectId);
  const region = est.regions.find((r) => r.regionId === run.regionId);
  if (!region) throw new ApiError("Conflict", `Survey run ${run.id} fields in ${def.regionName}, which its project ${def.projectId} no longer fields in: the panel has no estimate to draw from`);
  // The panel's reach in the market, and what it can deliver, as the estimate states them for the
  // Ideally panel (a customer panel's run has no reach of its own: the panel's is used).
  const { panelReach, feasibleCompletes } = feasibility(region.sampleSize, region.incidence, false, region.regionId);
  const shares: PanelPlan["shares"] = {};
  for (const t of def.targets) {
    if (!screens(t)) continue;
    const questionId = def.screener.find((x) => x.key === t.key)?.questionId ?? null;
    const factor = region.factors.find((f) =>
      t.key.startsWith("s") ? f.kind === "demographic" && `s${f.systemQuestionId}` === t.key : f.kind === "screener" && questionId !== null && f.questionId === questionId,
    );
    // A group the estimate does not screen on passes everyone, as the estimate assumes.
    shares[t.key] = factor?.share ?? 1;
  }
  // A crossing: the share whose pair of answers is one of its cells (the estimate's crossed factor).
  for (const x of def.crossed ?? []) {
    const ids = x.keys.map((k) => Number(k.slice(1))).sort((a, b) => a - b);
    const factor = region.factors.find((f) => f.kind === "crossed" && f.systemQuestionIds?.[0] === ids[0] && f.systemQuestionIds[1] === ids[1]);
    shares[crossingKeyOf(x)] = factor?.share ?? 1;
  }
  const plan: PanelPlan = {
    reach: panelReach ?? 0,
    incidence: region.incidence,
    feasibleCompletes: feasibleCompletes ?? 0,
    fieldPeriodDays: await fieldPeriodDaysOf(tx, def.projectId),
    shares,
  };
  await tx`update survey_runs set panel_plan = ${tx.json(plan)}, updated_at = now() where id = ${run.id}`;
  return plan;
}

/** People the panel invites to a run in one tick: a day of its reach over the field period. */
export function entrantsPerTick(plan: PanelPlan): number {
  return Math.ceil(plan.reach / Math.max(1, plan.fieldPeriodDays));
}

// ---- processing ----

/** Turns the run's unprocessed completes into project survey sessions, responses and text responses. */
export async function ingestRun(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }): Promise<number> {
  const def = run.definition;
  const sessions = await q.unprocessedCompletes(tx, run.id);
  if (!sessions.length) return 0;
  const p = await q.projectForDef(tx, def.projectId);
  const inserted = await q.insertProjectSessions(
    tx,
    sessions.map((s) => ({
      clientId: run.clientId,
      projectId: def.projectId,
      surveySessionId: s.id,
      surveyRunId: run.id,
      regionId: run.regionId,
      isCustomerPanel: run.isCustomerPanel,
      // NPD: the week since launch when the respondent answered.
      week: p?.launchDate ? weekSinceLaunch(p.launchDate, (s.completedAt ? new Date(s.completedAt) : new Date()).toISOString().slice(0, 10)) : null,
      completedAt: s.completedAt,
    })),
  );
  const pssOf = new Map(inserted.map((r) => [r.surveySessionId, r.id]));
  const responses: q.ResponseRow[] = [];
  const texts: q.TextResponseRow[] = [];
  for (const s of sessions) {
    const pss = pssOf.get(s.id);
    if (pss === undefined) continue; // ingested before (a retry): never twice
    const created = s.completedAt ? new Date(s.completedAt).toISOString() : new Date().toISOString();
    const base = {
      client_id: run.clientId,
      project_id: def.projectId,
      survey_run_id: run.id,
      survey_session_id: s.id,
      project_survey_session_id: pss,
      region_id: run.regionId,
      is_customer_panel: run.isCustomerPanel,
      created_at: created,
    };
    for (const dq of def.demographics) {
      const v = s.answers[dq.key];
      if (typeof v !== "number") continue;
      responses.push({
        ...base,
        project_question_id: null,
        question_id: null,
        standard_question_id: null,
        test_option_id: null,
        question_option_id: null,
        system_question_id: dq.systemQuestionId,
        system_question_option_id: v,
        standard_answer_value: null,
        numeric_value: null,
      });
    }
    const asked: [(typeof def.loop)[number], number | null][] = [
      ...def.screener.map((x) => [x, null] as [typeof x, null]),
      ...s.testOptionOrder.flatMap((t) => def.loop.filter((x) => x.testOptionId === null || x.testOptionId === t).map((x) => [x, t] as [typeof x, number])),
      ...def.followUps.map((x) => [x, null] as [typeof x, null]),
    ];
    for (const [dq, t] of asked) {
      const v = s.answers[answerKey(dq, t)];
      if (v === undefined) continue;
      const row = {
        ...base,
        project_question_id: dq.projectQuestionId,
        question_id: dq.questionId,
        standard_question_id: dq.standardQuestionId,
        test_option_id: t,
        system_question_id: null,
        system_question_option_id: null,
      };
      if (dq.type === "text") {
        texts.push({ ...base, project_question_id: dq.projectQuestionId!, question_id: dq.questionId!, standard_question_id: dq.standardQuestionId, test_option_id: t, response_text: String(v) });
      } else if (dq.type === "price") {
        // The NMS follow-up at this price (bargain 20, getting expensive 21), when it was asked.
        const intent = t !== null && dq.standardQuestionId !== null ? s.answers[intentKey(dq.standardQuestionId, t)] : undefined;
        responses.push({ ...row, question_option_id: null, standard_answer_value: null, numeric_value: Number(v), purchase_intent: typeof intent === "number" ? intent : null });
      } else {
        for (const id of Array.isArray(v) ? v : [v as number]) {
          const o = dq.options.find((x) => x.id === id);
          responses.push({ ...row, question_option_id: id, standard_answer_value: o?.standardAnswerValue ?? null, numeric_value: null });
        }
      }
    }
  }
  await q.insertResponses(tx, responses);
  await q.insertTextResponses(tx, texts);
  await q.markProcessed(
    tx,
    sessions.map((s) => s.id),
  );
  return inserted.length;
}

export interface WeightingReport {
  n: number;
  iterations: number;
  converged: boolean;
  maxError: number;
  capBinds: boolean;
  cap: number;
  deff: number;
  nEff: number;
  minWeight: number;
  maxWeight: number;
  variables: string[];
  /** Census levels no respondent had: left out of their margin. */
  emptyLevels: string[];
  margins: Record<string, Record<string, number>>;
  /** The targets the margins were matched to: the census shares without the empty levels, rescaled to sum 1. */
  targets: Record<string, Record<string, number>>;
  /** The census shares as given. */
  census: Record<string, Record<string, number>>;
  missing: Record<string, number>;
}

/** Rim weighting (analytics/rake.ts) of the run's sample to the region's census margins. */
export async function weightRun(tx: Tx, run: q.RunRow & { definition: SurveyDefinition }): Promise<WeightingReport | null> {
  const sample = await q.weightingSample(tx, run.definition.projectId, run.id);
  if (!sample.length) return null;
  const m = await margins(tx, run.regionId);
  const targets: Record<string, Record<string, number>> = {};
  for (const sq of WEIGHTING_QUESTIONS) if (m[sq] && Object.keys(m[sq]!).length > 1) targets[`s${sq}`] = m[sq]!;
  const vars = Object.keys(targets);
  if (!vars.length) {
    // A market without census margins (Other markets): unweighted, and said so.
    await q.setWeights(
      tx,
      sample.map((s) => s.id),
      sample.map(() => 1),
    );
    return {
      n: sample.length,
      iterations: 0,
      converged: true,
      maxError: 0,
      capBinds: false,
      cap: WEIGHT_CAP,
      deff: 1,
      nEff: sample.length,
      minWeight: 1,
      maxWeight: 1,
      variables: [],
      emptyLevels: [],
      margins: {},
      targets: {},
      census: {},
      missing: {},
    };
  }
  // Respondents whose answer has no census margin ("Another gender") are left out of that margin.
  const rows = sample.map((s) =>
    Object.fromEntries(
      vars.map((v) => {
        const a = s.answers[v];
        return [v, typeof a === "number" && targets[v]![a] !== undefined ? String(a) : null];
      }),
    ),
  );
  const { targets: used, emptyLevels, census } = weightingTargets(targets, rows);
  const r = rake(rows, { targets: used, tolerance: RAKE_TOLERANCE, cap: WEIGHT_CAP, maxIterations: 200 });
  await q.setWeights(
    tx,
    sample.map((s) => s.id),
    r.weights,
  );
  return {
    n: sample.length,
    iterations: r.iterations,
    converged: r.converged,
    maxError: r.maxError,
    capBinds: r.capBinds,
    cap: WEIGHT_CAP,
    deff: r.deff,
    nEff: r.nEff,
    minWeight: r.minWeight,
    maxWeight: r.maxWeight,
    variables: Object.keys(used),
    emptyLevels,
    margins: r.margins,
    targets: used,
    census,
    missing: r.missing,
  };
}

/**
 * The targets a run is raked to. A level nobody in the sample has cannot be weighted up from
 * nothing: it is left out of the margin, the other levels' shares rescaled to sum 1 (what rake()
 * matches the margins to, so the report shows these beside the margins), and reported; a variable
 * left with one level is not weighted on. `census` keeps the census shares as given. Pure.
 */
export function weightingTargets(
  census: Record<string, Record<string, number>>,
  rows: readonly Record<string, string | null>[],
): { targets: Record<string, Record<string, number>>; emptyLevels: string[]; census: Record<string, Record<string, number>> } {
  const targets: Record<string, Record<string, number>> = {};
  const emptyLevels: string[] = [];
  for (const [v, shares] of Object.entries(census)) {
    const seen = new Set(rows.map((r) => r[v]).filter((x) => x !== null && x !== undefined));
    const kept = Object.entries(shares).filter(([level]) => {
      if (seen.has(level)) return true;
      emptyLevels.push(`${v}=${level}`);
      return false;
    });
    const sum = kept.reduce((a, [, x]) => a + x, 0);
    if (kept.length >= 2 && sum > 0) targets[v] = Object.fromEntries(kept.map(([level, x]) => [level, x / sum]));
  }
  return { targets, emptyLevels, census: Object.fromEntries(Object.entries(census).map(([v, s]) => [v, { ...s }])) };
}

export interface ProcessResult {
  surveyRunId: number;
  projectId: number;
  ingested: number;
  weighting: WeightingReport | null;
  projectStatusCode: number | null;
  alreadyProcessed: boolean;
}

/**
 * StartSurveyProcessing / ProcessProjectData: a Closed run's leftovers are ingested, its sample is
 * raked, and when no other run of the project's wave is open the project's survey closes (800 or
 * 900, ResultsReady). One transaction for the run's data: a crash loses nothing and repeats
 * nothing. `failAfterIngest` is the fault tests' crash point.
 */
export async function processRun(db: Db, runId: number, opts: { reprocess?: boolean; failAfterIngest?: boolean } = {}): Promise<ProcessResult> {
  const r = await system(db, async (tx) => {
    const run = await liveRun(tx, runId, true);
    if (run.surveyStatusId !== SURVEY_STATUS.Closed && run.surveyStatusId !== SURVEY_STATUS.ErrorProcessing) {
      throw new ApiError("Conflict", `Survey run ${runId} is ${statusName(run.surveyStatusId)}: close it first (it closes at its quota, or ForceCloseSurvey)`);
    }
    if (run.processedAt && !opts.reprocess) {
      return { surveyRunId: run.id, projectId: run.definition.projectId, ingested: 0, weighting: null, projectStatusCode: null, alreadyProcessed: true };
    }
    const ingested = await ingestRun(tx, run);
    if (opts.failAfterIngest) throw new Error("processing interrupted (fault injection)");
    const weighting = await weightRun(tx, run);
    if (weighting) await q.setWeighting(tx, run.id, weighting);
    // The drivers of purchase intent, on every processed respondent of the project so far.
    await computeDrivers(tx, run.definition.projectId);
    // Themes and sentiment of the open answers (local coding; the AI issue adds a model provider).
    await codeThemes(tx, run.definition.projectId);
    // The project's cells of the norms' rollup (benchmarks of other projects read them).
    await refreshNormCells(tx, run.definition.projectId);
    // Closed short (field end, or staff): the shortfall is refunded, one ledger row, and the owners told.
    const delivered = await q.deliveredCompletes(tx, run.id);
    const ordered = run.targetCompletes ?? run.definition.targetCompletes;
    const refund = await refundRunShortfall(tx, SERVICES_USER_ID, {
      id: run.id,
      clientId: run.clientId,
      projectId: run.definition.projectId,
      regionId: run.regionId,
      isCustomerPanel: run.isCustomerPanel,
      ordered,
      delivered,
    });
    if (delivered < ordered) {
      await notifyOwners(tx, run.definition.projectId, {
        type: "SurveyClosedShort",
        body: `the ${run.definition.regionName} run closed with ${delivered} of ${ordered} completes${run.closedReason === "field end" ? " at its field end" : ""}${refund ? `; ${refund.refund} credits were refunded` : ""}.`,
        data: { surveyRunId: run.id, regionId: run.regionId, delivered, ordered, refunded: refund?.refund ?? 0, creditLogId: refund?.creditLogId ?? null },
      });
    }
    if (run.surveyStatusId === SURVEY_STATUS.ErrorProcessing) await q.setRunStatus(tx, run.id, SURVEY_STATUS.Closed, null);
    await q.setRunStatus(tx, run.id, SURVEY_STATUS.Closed, "processed_at");
    const pending = await q.otherRunsPending(tx, run.definition.projectId, run.id);
    const p = await q.projectForDef(tx, run.definition.projectId);
    return {
      surveyRunId: run.id,
      projectId: run.definition.projectId,
      ingested,
      weighting,
      projectStatusCode: p?.statusCode ?? null,
      alreadyProcessed: false,
      close: !pending && p?.statusCode === 400,
    };
  });
  if ("close" in r && r.close) {
    const closed = await closeProjectSurvey(db, systemCtx(), { projectId: r.projectId });
    r.projectStatusCode = closed.statusCode;
  }
  const { close: _, ...out } = r as ProcessResult & { close?: boolean };
  return out;
}

// ---- reads for staff ----

export async function counts(db: Db, ctx: RequestCtx, runIds: number[]): Promise<q.RunCounts[]> {
  return enterTenant(db, ctx, (tx) => q.runCounts(tx, runIds));
}
