// Scheduling and waves (SPEC 3, 4, 7; docs/decisions.md "Scheduling and waves"): a project's
// schedule settings and the waves they generate (project_schedules per region and wave,
// project_weeks for NPD projects), the SchedulingState document, the ProjectSchedules functions
// (ToRun, SyncDates, SyncNpdDates), and the scheduler that starts due waves.
//
// Every write runs in the request's tenant transaction (the scheduler's as the services user 5380)
// with its project locked first and the client's ledger second (the lifecycle's lock order): the
// settings, the schedules, their credit logs (through the ledger, credits/ledger.ts), the
// DataEventsLog rows and the events commit or roll back together.
import { raise } from "../notifications/notifications.service.ts";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { clientChannel, publish } from "../../jobs/channel.ts";
import type { ProjectUpdatedData } from "@ideally/contracts/events";
import * as ledger from "../credits/ledger.ts";
import * as creditsSql from "../credits/credits.sql.ts";
import * as lifecycleSql from "../lifecycle/lifecycle.sql.ts";
import { SERVICES_USER_ID, recordStatusChange, systemCtx } from "../lifecycle/lifecycle.service.ts";
import { statusName } from "../lifecycle/transitions.ts";
import * as q from "./scheduling.sql.ts";

/** Project type 4: NPD, dated by weeks since launch. */
export const NPD_PROJECT_TYPE = 4;

/**
 * The scheduling table (docs/project-lifecycle.md "Scheduling"): where each scheduling call is
 * allowed. None of them changes the status; the scheduler's 800 -> 300 is recorded through the
 * lifecycle's recordStatusChange().
 */
export const SCHEDULING_STATUSES = {
  /** 0: settings only (Submit schedules the waves); 50-800: settings and the unrun waves rebuilt. */
  UpdateProjectScheduling: [0, 50, 100, 200, 300, 400, 800],
  /** Statuses with scheduled waves. */
  SyncDates: [50, 100, 200, 300, 400, 800],
  SyncNpdDates: [50, 100, 200, 300, 400, 800],
} as const;
export type SchedulingCall = keyof typeof SCHEDULING_STATUSES;

const SCHEDULE_TYPE_NAMES: Record<number, string> = { 1: "Standard", 10: "DelayCharge", 15: "DelayChargeFuture" };

/** NPD benchmark week bands (SPEC 9): benchmark types 4-7. */
export function weekBand(week: number): { benchmarkTypeId: number; label: string } {
  if (week <= 8) return { benchmarkTypeId: 4, label: "1-8" };
  if (week <= 16) return { benchmarkTypeId: 5, label: "9-16" };
  if (week <= 25) return { benchmarkTypeId: 6, label: "17-25" };
  return { benchmarkTypeId: 7, label: "26+" };
}

/** Weeks since launch, week 1 being the launch week (never below 1). */
export function weekSinceLaunch(launchDate: string, date: string): number {
  const days = Math.round((Date.parse(`${date}T00:00:00Z`) - Date.parse(`${launchDate}T00:00:00Z`)) / 86_400_000);
  return Math.max(1, Math.floor(days / 7) + 1);
}

const forSchedule = (p: q.SchedProject): ledger.ProjectForSchedule => ({
  id: p.id,
  clientId: p.clientId,
  scheduleStartDate: p.scheduleStartDate,
  scheduleFrequencyWeeks: p.scheduleFrequencyWeeks,
  scheduleWavesRequired: p.scheduleWavesRequired,
  wavesRequired: p.wavesRequired,
});

function refuse(call: SchedulingCall, p: q.SchedProject): never {
  const allowed = SCHEDULING_STATUSES[call].map((s) => `${s} ${statusName(s)}`).join(", ");
  throw new ApiError("Conflict", `Cannot ${call} project ${p.id}: it is ${p.statusCode} ${statusName(p.statusCode)}. Allowed at: ${allowed}.`);
}

async function lockForCall(tx: Tx, call: SchedulingCall, projectId: number): Promise<q.SchedProject> {
  const p = await q.lockProject(tx, projectId);
  if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
  if (!(SCHEDULING_STATUSES[call] as readonly number[]).includes(p.statusCode)) refuse(call, p);
  return p;
}

async function projectUpdated(tx: Tx, clientId: number, data: ProjectUpdatedData): Promise<void> {
  await publish(tx, { channel: clientChannel(clientId), event: "ProjectUpdated", data, clientId });
}

/** The unrun waves' types, and the NPD weeks, after their schedules changed. */
async function afterSchedulesChanged(tx: Tx, p: q.SchedProject): Promise<number> {
  await q.retypeUnrun(tx, p.id);
  if (p.projectTypeId === NPD_PROJECT_TYPE && p.launchDate) return q.rebuildWeeks(tx, p.id, p.clientId, p.launchDate);
  return 0;
}

// ---- UpdateProjectScheduling ----

export interface SchedulingInput {
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  wavesRequired: boolean;
  scheduleWavesRequired?: number | null;
  schedulePause?: boolean;
}

export interface UpdateResult {
  projectId: number;
  statusCode: number;
  waveMode: boolean;
  regenerated: boolean;
  waves: number;
  charged: number;
  refunded: number;
  changes: Record<string, { from: unknown; to: unknown }>;
}

export async function updateProjectScheduling(db: Db, ctx: RequestCtx, projectId: number, input: SchedulingInput): Promise<UpdateResult> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await lockForCall(tx, "UpdateProjectScheduling", projectId);
    const next: q.Settings = {
      scheduleStartDate: input.scheduleStartDate,
      scheduleFrequencyWeeks: input.scheduleFrequencyWeeks,
      wavesRequired: input.wavesRequired,
      scheduleWavesRequired: input.scheduleWavesRequired === undefined ? p.scheduleWavesRequired : input.scheduleWavesRequired,
      schedulePause: input.schedulePause ?? p.schedulePause,
    };
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const k of Object.keys(next) as (keyof q.Settings)[]) {
      if (p[k] !== next[k]) changes[k] = { from: p[k], to: next[k] };
    }
    const after: q.SchedProject = { ...p, ...next };
    let regenerated = false;
    let r: ledger.Resync = { refunded: 0, charged: 0, waves: 0, balanceAfter: 0 };
    if (Object.keys(changes).length) {
      await q.updateSettings(tx, p.id, next);
      const datesChanged = ["scheduleStartDate", "scheduleFrequencyWeeks", "wavesRequired", "scheduleWavesRequired"].some((k) => k in changes);
      // From 50 on the project has schedules: its unrun waves follow the new settings (charged ones
      // are refunded and charged again at today's cost by the ledger, 409 when that would overdraw).
      if (datesChanged && p.statusCode >= 50) {
        r = await ledger.resyncUnrunWaves(tx, ctx.principal.userId, forSchedule(after), p.projectName);
        await afterSchedulesChanged(tx, after);
        regenerated = true;
      }
      await lifecycleSql.logEvent(tx, {
        clientId: p.clientId,
        userId: ctx.principal.userId,
        projectId: p.id,
        event: "SchedulingUpdated",
        data: { changes, regenerated, charged: r.charged, refunded: r.refunded },
      });
      await projectUpdated(tx, p.clientId, { projectId: p.id, statusCode: p.statusCode, action: "UpdateProjectScheduling" });
    }
    return {
      projectId: p.id,
      statusCode: p.statusCode,
      waveMode: ledger.waveMode(forSchedule(after)),
      regenerated,
      waves: r.waves,
      charged: r.charged,
      refunded: r.refunded,
      changes,
    };
  });
}

// ---- SyncDates, SyncNpdDates ----

export interface SyncResult {
  projectId: number;
  redated: number;
  weeks: number;
}

/**
 * SyncDates: the unrun, unstarted waves are re-dated from the start date and frequency (wave k at
 * start + (k - 1) x frequency, never in the past: ledger.waveDates); charges and types stay.
 */
export async function syncDates(db: Db, ctx: RequestCtx, projectId: number): Promise<SyncResult> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await lockForCall(tx, "SyncDates", projectId);
    const all = await q.schedules(tx, p.id);
    const unrun = all.filter((s) => s.surveyRunId === null && s.startedAt === null && s.waveNumber !== null);
    let redated = 0;
    if (unrun.length) {
      const first = Math.min(...unrun.map((s) => s.waveNumber!));
      const last = Math.max(...unrun.map((s) => s.waveNumber!));
      const firstWaveDate = all.find((s) => s.waveNumber === 1)?.scheduleDate ?? null;
      const dates = new Map(ledger.waveDates(forSchedule(p), first, last, firstWaveDate).map((w) => [w.wave, w.date]));
      for (const s of unrun) if (await q.redate(tx, s.id, dates.get(s.waveNumber!)!)) redated++;
    }
    const weeks = await afterSchedulesChanged(tx, p);
    if (redated) {
      await lifecycleSql.logEvent(tx, { clientId: p.clientId, userId: ctx.principal.userId, projectId: p.id, event: "SchedulesSynced", data: { redated } });
      await projectUpdated(tx, p.clientId, { projectId: p.id, statusCode: p.statusCode, action: "SyncDates" });
    }
    return { projectId: p.id, redated, weeks };
  });
}

/** SyncNpdDates: the project's NPD weeks rebuilt from its schedules and its launch date. */
export async function syncNpdDates(db: Db, ctx: RequestCtx, projectId: number): Promise<SyncResult> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await lockForCall(tx, "SyncNpdDates", projectId);
    if (p.projectTypeId !== NPD_PROJECT_TYPE) throw new ApiError("Conflict", `Project ${p.id} is not an NPD project: it has no weeks since launch`);
    if (!p.launchDate) throw new ApiError("Conflict", `Project ${p.id} has no launch date: set launchDate first`);
    const weeks = await q.rebuildWeeks(tx, p.id, p.clientId, p.launchDate);
    await projectUpdated(tx, p.clientId, { projectId: p.id, statusCode: p.statusCode, action: "SyncNpdDates" });
    return { projectId: p.id, redated: 0, weeks };
  });
}

// ---- SchedulingState ----

export type ChargeStatus = "Uncharged" | "Pending" | "Settled";

export interface ScheduleState {
  id: number;
  regionId: number;
  waveNumber: number | null;
  scheduleDate: string;
  scheduleTypeId: number;
  scheduleType: string;
  isCustomerPanel: boolean;
  sampleSupplierId: number | null;
  sampleSize: number | null;
  surveyRunId: number | null;
  launchState: q.LaunchState | "Run";
  startedAt: string | null;
  blockedReason: string | null;
  chargeStatus: ChargeStatus;
  creditLogId: number | null;
  /** What was charged (positive credits), null while uncharged. */
  creditAmount: number | null;
  week: number | null;
  weekBand: string | null;
}

export interface RegionState {
  regionId: number;
  regionName: string;
  upcoming: ScheduleState[];
  past: ScheduleState[];
}

export interface SchedulingState {
  projectId: number;
  statusCode: number;
  projectTypeId: number;
  waveMode: boolean;
  schedulePause: boolean;
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  scheduleWavesRequired: number | null;
  wavesRequired: boolean;
  launchDate: string | null;
  lastRunCost: number | null;
  nextScheduleDate: string | null;
  wavesRun: number;
  wavesUpcoming: number;
  regions: RegionState[];
}

export async function schedulingState(db: Db, ctx: RequestCtx, projectId: number): Promise<SchedulingState> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.readProject(tx, projectId);
    if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const rows = await q.schedules(tx, p.id);
    const npd = p.projectTypeId === NPD_PROJECT_TYPE && p.launchDate !== null;
    const regions = new Map<number, RegionState>();
    for (const s of rows) {
      const region = regions.get(s.regionId) ?? { regionId: s.regionId, regionName: s.regionName, upcoming: [], past: [] };
      regions.set(s.regionId, region);
      const week = npd ? weekSinceLaunch(p.launchDate!, s.scheduleDate) : null;
      const state: ScheduleState = {
        id: s.id,
        regionId: s.regionId,
        waveNumber: s.waveNumber,
        scheduleDate: s.scheduleDate,
        scheduleTypeId: s.scheduleTypeId,
        scheduleType: SCHEDULE_TYPE_NAMES[s.scheduleTypeId] ?? String(s.scheduleTypeId),
        isCustomerPanel: s.isCustomerPanel,
        sampleSupplierId: s.sampleSupplierId,
        sampleSize: s.sampleSize,
        surveyRunId: s.surveyRunId,
        launchState: s.surveyRunId !== null ? "Run" : s.launchState,
        startedAt: s.startedAt,
        blockedReason: s.blockedReason,
        chargeStatus: s.creditLogId === null ? "Uncharged" : s.creditType === ledger.LOG.SurveyRun ? "Settled" : "Pending",
        creditLogId: s.creditLogId,
        creditAmount: s.creditAmount === null ? null : -s.creditAmount,
        week,
        weekBand: week === null ? null : weekBand(week).label,
      };
      (s.surveyRunId === null ? region.upcoming : region.past).push(state);
    }
    const upcoming = rows.filter((s) => s.surveyRunId === null);
    const past = rows.filter((s) => s.surveyRunId !== null);
    return {
      projectId: p.id,
      statusCode: p.statusCode,
      projectTypeId: p.projectTypeId,
      waveMode: ledger.waveMode(forSchedule(p)),
      schedulePause: p.schedulePause,
      scheduleStartDate: p.scheduleStartDate,
      scheduleFrequencyWeeks: p.scheduleFrequencyWeeks,
      scheduleWavesRequired: p.scheduleWavesRequired,
      wavesRequired: p.wavesRequired,
      launchDate: p.launchDate,
      lastRunCost: await creditsSql.lastRunCost(tx, p.id),
      nextScheduleDate: upcoming.length ? upcoming.map((s) => s.scheduleDate).sort()[0]! : null,
      wavesRun: new Set(past.map((s) => s.waveNumber)).size,
      wavesUpcoming: new Set(upcoming.map((s) => s.waveNumber)).size,
      regions: [...regions.values()],
    };
  });
}

// ---- ToRun and the scheduler ----

export async function toRun(db: Db, ctx: RequestCtx, today = ledger.todayUtc()): Promise<q.DueRow[]> {
  return enterTenant(db, ctx, (tx) => q.due(tx, today));
}

export interface StartOutcome {
  projectId: number;
  waveNumber: number | null;
  outcome: "started" | "blocked" | "skipped" | "failed";
  scheduleIds: number[];
  charged?: number;
  creditLogIds?: number[];
  reason?: string;
  statusCode?: number;
}

export interface SchedulerResult {
  today: string;
  started: number;
  blocked: number;
  outcomes: StartOutcome[];
}

/**
 * The scheduler's tick: every project with due waves, one transaction each (one project's failure
 * does not hold the others), as the services user. Idempotent: a started schedule has started_at
 * set under the project's lock, so a second tick (or a concurrent one) finds nothing to start.
 */
export async function startDueSchedules(db: Db, opts: { today?: string } = {}): Promise<SchedulerResult> {
  const today = opts.today ?? ledger.todayUtc();
  const ctx = systemCtx();
  const due = await enterTenant(db, ctx, (tx) => q.due(tx, today));
  const projectIds = [...new Set(due.map((d) => d.projectId))];
  const outcomes: StartOutcome[] = [];
  for (const projectId of projectIds) {
    try {
      outcomes.push(await enterTenant(db, ctx, (tx) => startProjectWave(tx, projectId, today)));
    } catch (e) {
      outcomes.push({ projectId, waveNumber: null, outcome: "failed", scheduleIds: [], reason: (e as Error).message });
    }
  }
  return {
    today,
    started: outcomes.filter((o) => o.outcome === "started").length,
    blocked: outcomes.filter((o) => o.outcome === "blocked").length,
    outcomes,
  };
}

async function startProjectWave(tx: Tx, projectId: number, today: string): Promise<StartOutcome> {
  const p = await q.lockProject(tx, projectId);
  const skip = (reason: string): StartOutcome => ({ projectId, waveNumber: null, outcome: "skipped", scheduleIds: [], reason });
  if (!p) return skip("not found");
  if (p.schedulePause) return skip("paused");
  if (!q.STARTABLE_STATUSES.includes(p.statusCode)) return skip(`status ${p.statusCode}`);
  if (await q.hasStartedUnrun(tx, p.id)) return skip("a started wave is waiting to launch");
  const rows = await q.lockDue(tx, p.id, today);
  if (!rows.length) return skip("nothing due");
  const wave = rows[0]!.waveNumber;
  const waveRows = rows.filter((r) => r.waveNumber === wave);
  const ids = waveRows.map((r) => r.id);
  const toCharge = waveRows.filter((r) => r.creditLogId === null && r.scheduleTypeId !== 1);

  // A DelayCharge wave is charged now, at today's price, through the ledger (lock, overdraft rule).
  const creditLogIds: number[] = [];
  let charged = 0;
  if (toCharge.length) {
    const state = await ledger.lockLedgerOrThrow(tx, p.clientId);
    const cost = await ledger.runCost(tx, p.id);
    const costs = toCharge.map((r) => ({ row: r, region: cost.regions.find((c) => c.regionId === r.regionId) }));
    const total = costs.reduce((sum, c) => sum + (c.region?.cost ?? 0), 0);
    try {
      ledger.assertAffordable(state, -total, `wave ${wave} of project ${p.id}`);
    } catch (e) {
      if (!(e instanceof ApiError)) throw e;
      return block(tx, p, wave, waveRows, e.message);
    }
    for (const c of costs) {
      if (!c.region || c.region.cost <= 0) continue;
      const log = await creditsSql.insertLog(tx, {
        clientId: p.clientId,
        type: ledger.LOG.PendingSurveyRun,
        creditAmount: -c.region.cost,
        projectId: p.id,
        description: `${p.projectName}: wave ${wave}, ${c.region.regionName}, ${c.region.sampleSize} completes (charged when due)`,
        createdByUserId: SERVICES_USER_ID,
      });
      await q.linkCharge(tx, c.row.id, log.id);
      creditLogIds.push(log.id);
      charged += c.region.cost;
    }
  }
  await q.markStarted(tx, ids);
  await q.retypeUnrun(tx, p.id);
  await lifecycleSql.logEvent(tx, {
    clientId: p.clientId,
    userId: SERVICES_USER_ID,
    projectId: p.id,
    event: "WaveStarted",
    data: { waveNumber: wave, scheduleIds: ids, charged, creditLogIds },
  });
  let statusCode = p.statusCode;
  if (p.statusCode === 800) {
    // The next wave of a Completed Wave project: back to Awaiting Survey, where fielding launches it.
    await recordStatusChange(tx, { projectId: p.id, clientId: p.clientId, from: 800, to: 300, actorId: SERVICES_USER_ID, action: "StartScheduledWave" });
    statusCode = 300;
  } else {
    await projectUpdated(tx, p.clientId, { projectId: p.id, statusCode, action: "StartScheduledWave", waveNumber: wave });
  }
  return { projectId: p.id, waveNumber: wave, outcome: "started", scheduleIds: ids, charged, creditLogIds, statusCode };
}

async function block(tx: Tx, p: q.SchedProject, wave: number | null, rows: q.DueRow[], reason: string): Promise<StartOutcome> {
  const ids = rows.map((r) => r.id);
  const fresh = rows.some((r) => r.launchState !== "Blocked" || r.blockedReason !== reason);
  await q.markBlocked(tx, ids, reason);
  if (fresh) {
    // Told once per reason: the scheduler retries every tick until the balance covers the wave.
    await lifecycleSql.logEvent(tx, { clientId: p.clientId, userId: SERVICES_USER_ID, projectId: p.id, event: "WaveBlocked", data: { waveNumber: wave, scheduleIds: ids, reason } });
    const admins = await lifecycleSql.clientAdmins(tx, p.clientId);
    const recipients = [...new Set([...(p.ownerUserId ? [p.ownerUserId] : []), ...admins])].filter((u) => u !== SERVICES_USER_ID);
    for (const userId of recipients) {
      await raise(tx, {
        userId,
        clientId: p.clientId,
        type: "ScheduleBlocked",
        title: "A scheduled wave is blocked",
        body: `Wave ${wave ?? ""} of ${p.projectName} could not start: ${reason}`,
        projectId: p.id,
        url: `/${p.clientId}/results/${p.id}`,
        data: { projectId: p.id, projectName: p.projectName, clientId: p.clientId, waveNumber: wave, reason },
      });
    }
    await projectUpdated(tx, p.clientId, { projectId: p.id, statusCode: p.statusCode, action: "ScheduleBlocked", waveNumber: wave, reason });
  }
  return { projectId: p.id, waveNumber: wave, outcome: "blocked", scheduleIds: ids, reason, statusCode: p.statusCode };
}
