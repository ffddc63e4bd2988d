// The ledger's rules, inside a caller's transaction: what a run costs, charging and refunding
// scheduled waves, and the overdraft check. The lifecycle actions (Submit, Unsubmit, Decline,
// StopProjectScheduling, ResyncScheduledProject, CloseProjectSurvey, RemoveFromSurveyRun) call
// these in the same transaction as the status change that causes the charge (DESIGN.md: "every
// spend is a log row written in the same transaction as the state change that causes it").
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import { costOfRun, type RunCost } from "./cost.ts";
import * as q from "./credits.sql.ts";

/** Credit log types (SPEC 3). */
export const LOG = {
  HubspotDeal: 1,
  CBSubscription: 2,
  PendingSurveyRun: 30,
  SurveyRun: 40,
  AddRunAdj: 80,
  StdQuestionAdj: 81,
  AddProfilerAdj: 82,
  MakeGoodAdj: 83,
  BoostedSampleAdj: 84,
  MonadicAdj: 85,
  Freebie: 86,
  OtherAdj: 90,
  PendingTransfer: 130,
  Transfer: 140,
} as const;

/** Types staff write by hand (POST /CreditLogs): purchases, freebies and adjustments. */
export const MANUAL_TYPES: readonly number[] = [1, 2, 80, 81, 82, 83, 84, 85, 86, 90];
/** Adjustments that belong to a project (SPEC 3): projectId is required. */
export const PROJECT_ADJUSTMENT_TYPES: readonly number[] = [80, 81, 82, 83, 84, 85, 90];

/** Schedule types (SPEC 3). */
export const SCHEDULE = { Standard: 1, DelayCharge: 10, DelayChargeFuture: 15 } as const;

const money = (x: number) => x.toFixed(2);

/** What the next run of the project costs now (CreditCostNow and Submit's charge are this). */
export async function runCost(tx: Tx, projectId: number): Promise<RunCost> {
  return costOfRun(await q.costInputs(tx, projectId));
}

/**
 * Refuses (409) a change of `delta` (negative: a spend) that would take the balance below
 * -overdraftLimit. The caller holds the client's ledger lock (lockLedger).
 */
export function assertAffordable(l: q.LedgerState, delta: number, what: string): void {
  if (delta >= 0) return;
  const after = l.balance + delta;
  // Ledger amounts have two decimals: compare in hundredths so float sums cannot tip the answer.
  if (Math.round(after * 100) < -Math.round(l.overdraftLimit * 100)) {
    throw new ApiError(
      "Conflict",
      `Not enough credits for ${what}: balance ${money(l.balance)}, cost ${money(-delta)}, overdraft limit ${money(l.overdraftLimit)} ` +
        `(the balance may not go below ${money(-l.overdraftLimit)}; it would be ${money(after)})`,
    );
  }
}

export async function lockLedgerOrThrow(tx: Tx, clientId: number): Promise<q.LedgerState> {
  const l = await q.lockLedger(tx, clientId);
  if (!l) throw new ApiError("NotFound", `Clients(${clientId}) not found`);
  return l;
}

export interface ProjectForSchedule {
  id: number;
  clientId: number;
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  scheduleWavesRequired: number | null;
  wavesRequired: boolean;
}

/** SPEC 4: wave mode is on when a start date and a frequency are both set, or waves are required. */
export function waveMode(p: ProjectForSchedule): boolean {
  return (p.scheduleStartDate !== null && p.scheduleFrequencyWeeks !== null) || p.wavesRequired;
}

/** Weeks between waves when wave mode is on without a frequency. */
export const DEFAULT_FREQUENCY_WEEKS = 4;

function isoDate(d: Date): string {
  return d.toISOString().slice(0, 10);
}

export function todayUtc(): string {
  return isoDate(new Date());
}

function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return isoDate(d);
}

/**
 * The dates of waves `first`..`last` (1-based): wave k is planned at base + (k-1) x frequency weeks,
 * where base is the schedule start date (else the first wave's date, else today); a wave whose
 * planned date has passed goes out as soon as it can, keeping the frequency between the waves.
 */
export function waveDates(p: ProjectForSchedule, first: number, last: number, firstWaveDate: string | null = null, today = todayUtc()): { wave: number; date: string }[] {
  const weeks = p.scheduleFrequencyWeeks ?? DEFAULT_FREQUENCY_WEEKS;
  const base = p.scheduleStartDate ?? firstWaveDate ?? today;
  const out: { wave: number; date: string }[] = [];
  for (let k = first; k <= last; k++) {
    const planned = addDays(base, (k - 1) * 7 * weeks);
    const earliest = addDays(today, (k - first) * 7 * weeks);
    // The later of the two ISO dates (which sort as text).
    out.push({ wave: k, date: [planned, earliest].sort()[1]! });
  }
  return out;
}

/** How many waves a submitted project schedules: the waves required in wave mode, else one. */
export function wavesToSchedule(p: ProjectForSchedule): number {
  return waveMode(p) ? Math.max(1, p.scheduleWavesRequired ?? 1) : 1;
}

export interface Charge {
  total: number;
  creditLogIds: number[];
  scheduleIds: number[];
  balanceAfter: number;
}

/**
 * Submit's charge: schedules every wave of the project (one schedule per region and wave), charges
 * the first wave now as PendingSurveyRun (30) logs, one per region, summing to exactly the run's
 * cost, and leaves later waves as DelayCharge schedules charged when they come due. Takes the
 * client's ledger lock; 409 when the balance would go below -overdraftLimit.
 */
export async function chargeFirstWave(tx: Tx, actorId: number, p: ProjectForSchedule, projectName: string): Promise<Charge> {
  const ledger = await lockLedgerOrThrow(tx, p.clientId);
  const cost = await runCost(tx, p.id);
  if (!cost.regions.length) throw new ApiError("Conflict", `Project ${p.id} has no regions: choose at least one region before submitting`);
  assertAffordable(ledger, -cost.total, `project ${p.id}`);
  const firstWave = (await q.maxWaveNumber(tx, p.id)) + 1;
  const waves = waveDates(p, firstWave, firstWave + wavesToSchedule(p) - 1);
  const creditLogIds: number[] = [];
  const scheduleIds: number[] = [];
  for (const w of waves) {
    for (const r of cost.regions) {
      let creditLogId: number | null = null;
      if (w.wave === firstWave && r.cost > 0) {
        const log = await q.insertLog(tx, {
          clientId: p.clientId,
          type: LOG.PendingSurveyRun,
          creditAmount: -r.cost,
          projectId: p.id,
          description: `${projectName}: wave ${w.wave}, ${r.regionName}, ${r.sampleSize} completes`,
          createdByUserId: actorId,
        });
        creditLogId = log.id;
        creditLogIds.push(log.id);
      }
      scheduleIds.push(
        await q.insertSchedule(tx, {
          clientId: p.clientId,
          projectId: p.id,
          regionId: r.regionId,
          scheduleDate: w.date,
          scheduleTypeId: w.wave === firstWave ? SCHEDULE.Standard : SCHEDULE.DelayCharge,
          isCustomerPanel: r.isCustomerPanel,
          creditLogId,
          waveNumber: w.wave,
          sampleSize: r.sampleSize,
        }),
      );
    }
  }
  return { total: cost.total, creditLogIds, scheduleIds, balanceAfter: ledger.balance - cost.total };
}

export interface Refund {
  total: number;
  creditLogIds: number[];
  cancelledSchedules: number;
}

/**
 * The refunds a cancel writes for the project's unrun schedules: one per pending charge
 * (PendingSurveyRun, 30) still negative, of the same amount with the sign turned (pure).
 */
export function refundsOf(unrun: readonly q.ScheduleRow[]): { creditLogId: number; amount: number }[] {
  return unrun.filter((s) => s.creditLogId !== null && s.creditType === LOG.PendingSurveyRun && (s.creditAmount ?? 0) < 0).map((s) => ({ creditLogId: s.creditLogId!, amount: -s.creditAmount! }));
}

/**
 * Cancels the project's unrun schedules and refunds their pending charges: a positive
 * PendingSurveyRun (30) row per charge, so the ledger keeps both the charge and its refund. A
 * refund raises the balance, so it needs no overdraft check; the ledger lock is still taken so the
 * balance a concurrent Submit reads is current.
 */
export async function refundUnrunWaves(tx: Tx, actorId: number, projectId: number, clientId: number, reason: string): Promise<Refund> {
  await lockLedgerOrThrow(tx, clientId);
  const unrun = await q.schedulesOf(tx, projectId, { unrunOnly: true });
  const creditLogIds: number[] = [];
  let total = 0;
  for (const r of refundsOf(unrun)) {
    const log = await q.insertLog(tx, {
      clientId,
      type: LOG.PendingSurveyRun,
      creditAmount: r.amount,
      projectId,
      description: `Refund of credit log ${r.creditLogId} (${reason})`,
      createdByUserId: actorId,
    });
    creditLogIds.push(log.id);
    total += r.amount;
  }
  await q.deleteSchedules(
    tx,
    unrun.map((s) => s.id),
  );
  return { total, creditLogIds, cancelledSchedules: unrun.length };
}

export interface Resync {
  refunded: number;
  charged: number;
  waves: number;
  balanceAfter: number;
}

export interface ResyncPlan {
  /** The waves rebuilt: those after the last wave that ran, up to the waves the project has in all. */
  waves: { wave: number; date: string }[];
  /** The rebuilt waves charged now: as many as were charged before, earliest first. */
  charge: Set<number>;
  /** What the charged waves cost at today's price. */
  newCharges: number;
  /** What the unrun waves' pending charges (30) came to, as a positive number. */
  oldPending: number;
}

/**
 * ResyncScheduledProject's plan (pure): from the project's schedules (all, and the unrun ones) and
 * today's cost of a run, which waves are rebuilt, which of them are charged and for how much. 409
 * when waves are to be rebuilt and the project has no regions.
 */
export function resyncPlan(p: ProjectForSchedule, unrun: readonly q.ScheduleRow[], all: readonly q.ScheduleRow[], cost: Pick<RunCost, "total" | "regions">, today = todayUtc()): ResyncPlan {
  const runWaves = all.filter((s) => s.surveyRunId !== null).map((s) => s.waveNumber ?? 0);
  const lastRun = runWaves.length ? Math.max(...runWaves) : 0;
  const chargedWaves = new Set(unrun.filter((s) => s.creditLogId !== null && s.creditType === LOG.PendingSurveyRun).map((s) => s.waveNumber ?? 0));
  const oldPending = unrun.reduce((sum, s) => sum + (s.creditType === LOG.PendingSurveyRun ? -(s.creditAmount ?? 0) : 0), 0);
  // The waves the project should have in all: the waves required in wave mode (else as many as it
  // has), one otherwise; those after the last run are rebuilt (none when all have run).
  const existing = all.reduce((m, s) => Math.max(m, s.waveNumber ?? 0), 0);
  const total = waveMode(p) ? (p.scheduleWavesRequired ?? Math.max(existing, 1)) : 1;
  if (!cost.regions.length && total > lastRun) throw new ApiError("Conflict", `Project ${p.id} has no regions to schedule`);
  const firstWaveDate = all.find((s) => s.waveNumber === 1)?.scheduleDate ?? null;
  const waves = waveDates(p, lastRun + 1, total, firstWaveDate, today);
  const charge = new Set(waves.slice(0, chargedWaves.size).map((w) => w.wave));
  return { waves, charge, newCharges: charge.size * cost.total, oldPending };
}

/**
 * ResyncScheduledProject: the unrun waves are rebuilt from the project's current schedule settings
 * and regions. A wave that was charged is refunded and charged again at today's cost (it may cost
 * more or less than before); a wave that was not charged yet stays uncharged (DelayCharge). The
 * whole change is checked against the overdraft limit as one.
 */
export async function resyncUnrunWaves(tx: Tx, actorId: number, p: ProjectForSchedule, projectName: string): Promise<Resync> {
  const ledger = await lockLedgerOrThrow(tx, p.clientId);
  const unrun = await q.schedulesOf(tx, p.id, { unrunOnly: true });
  const all = await q.schedulesOf(tx, p.id);
  const cost = await runCost(tx, p.id);
  const { waves, charge, newCharges, oldPending } = resyncPlan(p, unrun, all, cost);
  assertAffordable(ledger, oldPending - newCharges, `rescheduling project ${p.id}`);
  const refund = await refundUnrunWaves(tx, actorId, p.id, p.clientId, "ResyncScheduledProject");
  // A market's sample supplier, chosen by staff on its unrun waves, stays with the rebuilt ones.
  const supplierOf = new Map(unrun.filter((s) => s.sampleSupplierId !== null).map((s) => [s.regionId, s.sampleSupplierId]));
  for (const w of waves) {
    for (const r of cost.regions) {
      let creditLogId: number | null = null;
      if (charge.has(w.wave) && r.cost > 0) {
        creditLogId = (
          await q.insertLog(tx, {
            clientId: p.clientId,
            type: LOG.PendingSurveyRun,
            creditAmount: -r.cost,
            projectId: p.id,
            description: `${projectName}: wave ${w.wave}, ${r.regionName}, ${r.sampleSize} completes (rescheduled)`,
            createdByUserId: actorId,
          })
        ).id;
      }
      await q.insertSchedule(tx, {
        clientId: p.clientId,
        projectId: p.id,
        regionId: r.regionId,
        scheduleDate: w.date,
        scheduleTypeId: charge.has(w.wave) ? SCHEDULE.Standard : SCHEDULE.DelayCharge,
        isCustomerPanel: r.isCustomerPanel,
        creditLogId,
        waveNumber: w.wave,
        sampleSize: r.sampleSize,
        sampleSupplierId: r.isCustomerPanel ? null : (supplierOf.get(r.regionId) ?? null),
      });
    }
  }
  return { refunded: refund.total, charged: newCharges, waves: waves.length, balanceAfter: ledger.balance + refund.total - newCharges };
}

/**
 * The run's charges become spends: the pending (30) logs of the project's schedules that have a
 * survey run turn into SurveyRun (40) logs of that run. The amount does not change, so neither
 * does the balance.
 */
export async function settleRunCharges(tx: Tx, projectId: number): Promise<number> {
  return q.settleRunCharges(tx, projectId);
}

export interface ShortfallRefund {
  creditLogId: number;
  charged: number;
  deliveredCost: number;
  refund: number;
}

/**
 * refundRunShortfall's rule in words, for those who buy a run that will fall short (Submit with
 * acceptShortfall): the same rule docs/credits.md "Shortfall refunds" states.
 */
export const SHORTFALL_REFUND_RULE =
  "the shortfall is refunded when the run is processed, as one credit log of the run: its charge minus the price of the completes delivered at the same rates (respondents excluded for quality or removed are not delivered)";

/** A shortfall's refund: the charge minus what the delivered sample costs, in hundredths, never below 0. */
export function shortfallRefund(charged: number, deliveredCost: number): number {
  return Math.max(0, Math.round((charged - deliveredCost) * 100) / 100);
}

/**
 * A run closed short of its quota (at its field end, or closed by staff): the shortfall is
 * refunded as one positive SurveyRun (40) row of the run. The refund is the run's charge minus
 * what the delivered completes cost by the same formula (cost.ts), so the team pays exactly the
 * price of the sample it got: whole credits, no float (docs/credits.md "Shortfall refunds"). At
 * most one per run (a unique index); a run not charged refunds nothing.
 */
export async function refundRunShortfall(
  tx: Tx,
  actorId: number,
  run: { id: number; clientId: number; projectId: number; regionId: number; isCustomerPanel: boolean; ordered: number; delivered: number },
): Promise<ShortfallRefund | null> {
  if (run.delivered >= run.ordered) return null;
  await lockLedgerOrThrow(tx, run.clientId);
  const charged = await q.runCharge(tx, run.id);
  if (charged <= 0) return null;
  const inputs = await q.costInputs(tx, run.projectId);
  const region = inputs.regions.find((r) => r.regionId === run.regionId);
  const regionName = region?.regionName ?? `region ${run.regionId}`;
  const deliveredCost = costOfRun({ ...inputs, regions: [{ regionId: run.regionId, regionName, sampleSize: run.delivered, isCustomerPanel: run.isCustomerPanel }] }).total;
  const refund = shortfallRefund(charged, deliveredCost);
  if (refund <= 0) return null;
  const log = await q.insertShortfallRefund(tx, {
    clientId: run.clientId,
    type: LOG.SurveyRun,
    creditAmount: refund,
    projectId: run.projectId,
    surveyRunId: run.id,
    description: `Shortfall refund: ${regionName}, ${run.delivered} of ${run.ordered} completes delivered (charged ${money(charged)}, the delivered sample costs ${money(deliveredCost)})`,
    createdByUserId: actorId,
  });
  return log ? { creditLogId: log.id, charged, deliveredCost, refund } : null;
}
