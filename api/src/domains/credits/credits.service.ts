// The credit ledger's calls (SPEC 7): CreditCostNow and ProjectScheduleEstimates (Projects),
// staff adjustments (POST/PATCH/DELETE CreditLogs, audited), MakeCreditTransfer, and the
// management pages' ExportTransactionListCsv and ClientSubStats (Clients). The rules and the
// formula: docs/credits.md.
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { LEDGER_EXPORT_MAX_ROWS } from "../../config.ts";
import { costOfRun, type RunCost } from "./cost.ts";

/** Completes per region when a project is created without a sample size (POST Projects). */
const DEFAULT_SAMPLE_SIZE = 200;
import * as ledger from "./ledger.ts";
import * as q from "./credits.sql.ts";

const notFound = (set: string, id: number) => new ApiError("NotFound", `${set}(${id}) not found`);

/** Staff work across clients in these calls: no client scope (the /admin area's view). */
const allClients = (ctx: RequestCtx): RequestCtx => ({ ...ctx, clientId: null, descendants: false });

// ---- CreditCostNow ----

export interface CostNow extends RunCost {
  projectId: number;
  clientId: number;
  statusCode: number;
  /** SPEC 9: what the latest charged schedule date cost (minus its credit logs' sum); null before any. */
  lastRunCost: number | null;
  balance: number;
  overdraftLimit: number;
  /** What the client can still spend: balance + overdraft limit. */
  available: number;
  /** Whether Submit could charge `total` now. */
  affordable: boolean;
}

export async function creditCostNow(db: Db, ctx: RequestCtx, input: { projectId: number }): Promise<CostNow> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.projectBrief(tx, input.projectId);
    if (!p) throw notFound("Projects", input.projectId);
    const cost = await ledger.runCost(tx, p.id);
    const l = (await q.ledgerOf(tx, p.clientId))!;
    const available = l.balance + l.overdraftLimit;
    return {
      projectId: p.id,
      clientId: p.clientId,
      statusCode: p.statusCode,
      ...cost,
      lastRunCost: await q.lastRunCost(tx, p.id),
      balance: l.balance,
      overdraftLimit: l.overdraftLimit,
      available,
      affordable: Math.round((available - cost.total) * 100) >= 0,
    };
  });
}

// ---- ProjectScheduleEstimates ----

export interface WaveRegionEstimate {
  regionId: number;
  scheduleId: number | null;
  creditLogId: number | null;
  charged: boolean;
  cost: number;
}

export interface WaveEstimate {
  waveNumber: number;
  scheduleDate: string;
  estimatedCompletionDate: string | null;
  /** The wave has schedule rows (the project is submitted); else it is projected from its settings. */
  scheduled: boolean;
  /** All its regions are charged (PendingSurveyRun). */
  charged: boolean;
  scheduleTypeId: number | null;
  cost: number;
  regions: WaveRegionEstimate[];
}

export interface ScheduleEstimates {
  projectId: number;
  statusCode: number;
  waveMode: boolean;
  scheduleStartDate: string | null;
  frequencyWeeks: number | null;
  wavesRequired: number | null;
  /** What one wave costs now (CreditCostNow's total). */
  costPerWave: number;
  lastRunCost: number | null;
  estimatedDays: number | null;
  waves: WaveEstimate[];
  /** The upcoming waves' cost, and the part of it not charged yet. */
  upcomingTotal: number;
  uncharged: number;
}

function plusDays(date: string, days: number | null): string | null {
  if (days === null) return null;
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

/**
 * The upcoming waves: a submitted project's unrun schedules (charged ones at what was charged,
 * the others at today's cost), or, for a Draft, the waves its settings would schedule at Submit.
 */
export async function projectScheduleEstimates(db: Db, ctx: RequestCtx, input: { projectId: number }): Promise<ScheduleEstimates> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.projectBrief(tx, input.projectId);
    if (!p) throw notFound("Projects", input.projectId);
    const cost = await ledger.runCost(tx, p.id);
    const sp: ledger.ProjectForSchedule = { ...p };
    const unrun = await q.schedulesOf(tx, p.id, { unrunOnly: true });
    const waves: WaveEstimate[] = [];
    if (unrun.length) {
      const byWave = new Map<string, q.ScheduleRow[]>();
      for (const s of unrun) {
        const k = `${s.waveNumber ?? 0}|${s.scheduleDate}`;
        byWave.set(k, [...(byWave.get(k) ?? []), s]);
      }
      for (const rows of byWave.values()) {
        const regions = rows.map((s): WaveRegionEstimate => {
          const charged = s.creditLogId !== null && s.creditType === ledger.LOG.PendingSurveyRun;
          const now = cost.regions.find((r) => r.regionId === s.regionId)?.cost ?? 0;
          return { regionId: s.regionId, scheduleId: s.id, creditLogId: s.creditLogId, charged, cost: charged ? -(s.creditAmount ?? 0) : now };
        });
        const first = rows[0]!;
        waves.push({
          waveNumber: first.waveNumber ?? 0,
          scheduleDate: first.scheduleDate,
          estimatedCompletionDate: plusDays(first.scheduleDate, p.estimatedDays),
          scheduled: true,
          charged: regions.every((r) => r.charged),
          scheduleTypeId: first.scheduleTypeId,
          cost: regions.reduce((s, r) => s + r.cost, 0),
          regions,
        });
      }
    } else if (p.statusCode === 0) {
      for (const w of ledger.waveDates(sp, 1, ledger.wavesToSchedule(sp))) {
        waves.push({
          waveNumber: w.wave,
          scheduleDate: w.date,
          estimatedCompletionDate: plusDays(w.date, p.estimatedDays),
          scheduled: false,
          charged: false,
          scheduleTypeId: null,
          cost: cost.total,
          regions: cost.regions.map((r) => ({ regionId: r.regionId, scheduleId: null, creditLogId: null, charged: false, cost: r.cost })),
        });
      }
    }
    const upcomingTotal = waves.reduce((s, w) => s + w.cost, 0);
    const uncharged = waves.reduce((s, w) => s + w.regions.filter((r) => !r.charged).reduce((x, r) => x + r.cost, 0), 0);
    return {
      projectId: p.id,
      statusCode: p.statusCode,
      waveMode: ledger.waveMode(sp),
      scheduleStartDate: p.scheduleStartDate,
      frequencyWeeks: p.scheduleFrequencyWeeks,
      wavesRequired: p.scheduleWavesRequired,
      costPerWave: cost.total,
      lastRunCost: await q.lastRunCost(tx, p.id),
      estimatedDays: p.estimatedDays,
      waves,
      upcomingTotal,
      uncharged,
    };
  });
}

// ---- staff adjustments ----

export interface NewAdjustment {
  type: number;
  creditAmount: number;
  clientId?: number;
  projectId?: number | null;
  description?: string | null;
  hubspotDealId?: string | null;
}

function checkProjectRule(type: number, projectId: number | null | undefined): void {
  const needs = ledger.PROJECT_ADJUSTMENT_TYPES.includes(type);
  if (needs && (projectId === null || projectId === undefined)) {
    throw new ApiError("ValidationError", `Credit log type ${type} is a project adjustment: projectId is required`, undefined, [{ path: "projectId", message: "Required for types 80-85 and 90" }]);
  }
  if (!needs && projectId !== null && projectId !== undefined) {
    throw new ApiError("ValidationError", `Credit log type ${type} is not a project adjustment: it takes no projectId`, undefined, [
      { path: "projectId", message: "Only types 80-85 and 90 belong to a project" },
    ]);
  }
}

/**
 * POST /CreditLogs (staff): a purchase (1 HubspotDeal, 2 CBSubscription), a freebie (86) or an
 * adjustment (80-85 and 90 belong to a project). The client is the project's, else the body's
 * clientId, else the request's. A negative amount takes the ledger lock and the overdraft check
 * like any spend. Audited in DataEventsLog (CreditLog Created).
 */
export async function createAdjustment(db: Db, ctx: RequestCtx, input: NewAdjustment): Promise<q.CreditLogRow> {
  checkProjectRule(input.type, input.projectId);
  return enterTenant(db, allClients(ctx), async (tx) => {
    let clientId = input.clientId ?? ctx.clientId ?? null;
    if (input.projectId !== null && input.projectId !== undefined) {
      const pc = await q.projectClient(tx, input.projectId);
      if (pc === undefined) throw notFound("Projects", input.projectId);
      if (clientId !== null && input.clientId !== undefined && clientId !== pc) {
        throw new ApiError("BadRequest", `Project ${input.projectId} belongs to client ${pc}, not ${clientId}`);
      }
      clientId = pc;
    }
    if (clientId === null) throw new ApiError("BadRequest", "Name the client: clientId in the body or the clientId header");
    const l = await ledger.lockLedgerOrThrow(tx, clientId);
    ledger.assertAffordable(l, input.creditAmount, `a ${input.creditAmount} adjustment of client ${clientId}`);
    const row = await q.insertLog(tx, {
      clientId,
      type: input.type,
      creditAmount: input.creditAmount,
      projectId: input.projectId ?? null,
      description: input.description ?? null,
      hubspotDealId: input.hubspotDealId ?? null,
      createdByUserId: ctx.principal.userId,
    });
    await q.auditLog(tx, { clientId, userId: ctx.principal.userId, creditLogId: row.id, event: "Created", projectId: row.projectId, data: { after: row } });
    return row;
  });
}

export type AdjustmentPatch = Partial<Omit<NewAdjustment, "clientId">>;

/**
 * PATCH /CreditLogs({key}) (staff): corrects a row. Rows the system writes (30 and 40 runs, 130 and
 * 140 transfers) keep their type, amount and project (they pair with schedules and with each
 * other); only their description and deal id change. A change that lowers the balance is checked
 * against the overdraft limit. Audited with the row before and after.
 */
export async function updateAdjustment(db: Db, ctx: RequestCtx, id: number, input: AdjustmentPatch): Promise<q.CreditLogRow> {
  return enterTenant(db, allClients(ctx), async (tx) => {
    const before = await q.logForUpdate(tx, id);
    if (!before) throw notFound("CreditLogs", id);
    const money = input.type !== undefined || input.creditAmount !== undefined || input.projectId !== undefined;
    if (money && !ledger.MANUAL_TYPES.includes(before.type)) {
      throw new ApiError("Conflict", `Credit log ${id} is of type ${before.type}, written by the system: only its description and hubspotDealId can change`);
    }
    const type = input.type ?? before.type;
    const projectId = input.projectId !== undefined ? input.projectId : before.projectId;
    if (money) checkProjectRule(type, projectId);
    if (projectId !== null && projectId !== before.projectId) {
      const pc = await q.projectClient(tx, projectId);
      if (pc !== before.clientId) throw new ApiError("BadRequest", `Project ${projectId} is not a project of client ${before.clientId}`);
    }
    const delta = (input.creditAmount ?? before.creditAmount) - before.creditAmount;
    if (delta < 0) ledger.assertAffordable(await ledger.lockLedgerOrThrow(tx, before.clientId), delta, `changing credit log ${id}`);
    const after = await q.updateLog(tx, id, input);
    await q.auditLog(tx, { clientId: before.clientId, userId: ctx.principal.userId, creditLogId: id, event: "Updated", projectId: after.projectId, data: { before, after } });
    return after;
  });
}

/**
 * DELETE /CreditLogs({key}) (staff): removes a row staff wrote (purchases, freebies,
 * adjustments); the system's rows stay (correct them with an adjustment). Deleting a credit lowers
 * the balance: checked against the overdraft limit. The row is kept in the audit log.
 */
export async function deleteAdjustment(db: Db, ctx: RequestCtx, id: number): Promise<void> {
  await enterTenant(db, allClients(ctx), async (tx) => {
    const row = await q.logForUpdate(tx, id);
    if (!row) throw notFound("CreditLogs", id);
    if (!ledger.MANUAL_TYPES.includes(row.type)) {
      throw new ApiError("Conflict", `Credit log ${id} is of type ${row.type}, written by the system: it cannot be deleted (add an adjustment instead)`);
    }
    if (row.creditAmount > 0) ledger.assertAffordable(await ledger.lockLedgerOrThrow(tx, row.clientId), -row.creditAmount, `deleting credit log ${id}`);
    await q.deleteLog(tx, id);
    await q.auditLog(tx, { clientId: row.clientId, userId: ctx.principal.userId, creditLogId: id, event: "Deleted", projectId: row.projectId, data: { before: row } });
  });
}

// ---- MakeCreditTransfer ----

export interface TransferInput {
  fromClientId: number;
  toClientId: number;
  amount: number;
  note?: string | null;
}

export interface TransferSide {
  clientId: number;
  creditLogId: number;
  balance: number;
}

export interface TransferResult {
  transferId: string;
  amount: number;
  from: TransferSide;
  to: TransferSide;
}

/**
 * MakeCreditTransfer: credits move between two clients of one enterprise as two Transfer (140)
 * rows sharing a transferId, written together under both clients' ledger locks (taken in id
 * order), never taking the sender below its overdraft limit. Staff may move credits between any
 * two clients of one enterprise; an Admin between clients of the subtree of the request's client
 * (name the enterprise, or the org, in the clientId header).
 */
export async function makeCreditTransfer(db: Db, ctx: RequestCtx, input: TransferInput): Promise<TransferResult> {
  if (input.fromClientId === input.toClientId) throw new ApiError("BadRequest", "A transfer needs two different clients");
  const scope: RequestCtx = ctx.principal.isStaff ? allClients(ctx) : { ...ctx, descendants: true };
  return enterTenant(db, scope, async (tx) => {
    const from = await q.visibleClient(tx, input.fromClientId);
    if (!from) throw notFound("Clients", input.fromClientId);
    const to = await q.visibleClient(tx, input.toClientId);
    if (!to) throw notFound("Clients", input.toClientId);
    const [ef, et] = [await q.clientEnterprise(tx, from.id), await q.clientEnterprise(tx, to.id)];
    if (ef === null || ef !== et) {
      throw new ApiError("Conflict", `Credits move only between clients of one enterprise: ${from.name} (${from.id}) and ${to.name} (${to.id}) are not`);
    }
    const locks = await q.lockLedgers(tx, [from.id, to.id]);
    const fromLedger = locks.get(from.id)!;
    ledger.assertAffordable(fromLedger, -input.amount, `a transfer from client ${from.id}`);
    const transferId = crypto.randomUUID();
    const note = input.note?.trim() || null;
    const out = await q.insertLog(tx, {
      clientId: from.id,
      type: ledger.LOG.Transfer,
      creditAmount: -input.amount,
      relatedClientId: to.id,
      transferId,
      description: note ?? `Transfer to ${to.name}`,
      createdByUserId: ctx.principal.userId,
    });
    const inn = await q.insertLog(tx, {
      clientId: to.id,
      type: ledger.LOG.Transfer,
      creditAmount: input.amount,
      relatedClientId: from.id,
      transferId,
      description: note ?? `Transfer from ${from.name}`,
      createdByUserId: ctx.principal.userId,
    });
    const data = { transferId, amount: input.amount, fromClientId: from.id, toClientId: to.id };
    await q.auditLog(tx, { clientId: from.id, userId: ctx.principal.userId, creditLogId: out.id, event: "Transfer", projectId: null, data });
    await q.auditLog(tx, { clientId: to.id, userId: ctx.principal.userId, creditLogId: inn.id, event: "Transfer", projectId: null, data });
    return {
      transferId,
      amount: input.amount,
      from: { clientId: from.id, creditLogId: out.id, balance: fromLedger.balance - input.amount },
      to: { clientId: to.id, creditLogId: inn.id, balance: locks.get(to.id)!.balance + input.amount },
    };
  });
}

// ---- ExportTransactionListCsv ----

export const CSV_COLUMNS = [
  "id",
  "createdAt",
  "type",
  "typeName",
  "creditAmount",
  "balance",
  "projectId",
  "projectName",
  "surveyRunId",
  "relatedClientId",
  "transferId",
  "description",
  "hubspotDealId",
  "createdByUserId",
  "createdByEmail",
] as const;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, quote or line break. Text a spreadsheet
 * would run as a formula (starting = + - @, tab or CR) is prefixed with ' (OWASP CSV injection);
 * numbers are written as numbers.
 */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return "";
  if (typeof v === "number") return String(v);
  let s = v instanceof Date ? v.toISOString() : String(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const csvLine = (row: Record<(typeof CSV_COLUMNS)[number], unknown>) => `${CSV_COLUMNS.map((c) => csvField(row[c])).join(",")}\r\n`;

/**
 * The client's ledger as CSV, oldest first, with a running balance: streamed from a cursor inside
 * the request's transaction, which stays open until the last row is sent (or the reader goes
 * away). Refusals (403, 404, and 400 for a ledger of more than `maxRows` entries,
 * LEDGER_EXPORT_MAX_ROWS) come before the first byte.
 */
export async function exportTransactionListCsv(db: Db, ctx: RequestCtx, input: { clientId: number }, maxRows = LEDGER_EXPORT_MAX_ROWS): Promise<ReadableStream<Uint8Array>> {
  const enc = new TextEncoder();
  const { readable, writable } = new TransformStream<Uint8Array, Uint8Array>();
  const writer = writable.getWriter();
  let started!: () => void;
  let failed!: (e: unknown) => void;
  const ready = new Promise<void>((res, rej) => {
    started = res;
    failed = rej;
  });
  void enterTenant(db, ctx, async (tx) => {
    const c = await q.visibleClient(tx, input.clientId);
    if (!c) throw notFound("Clients", input.clientId);
    const n = await q.ledgerSize(tx, c.id);
    if (n > maxRows) throw new ApiError("BadRequest", `This client's ledger has ${n} entries, more than the ${maxRows} one export answers; nothing was exported`);
    started();
    await writer.write(enc.encode(`${CSV_COLUMNS.join(",")}\r\n`));
    for await (const rows of q.ledgerRows(tx, c.id).cursor(500)) {
      await writer.write(enc.encode(rows.map((r) => csvLine(r)).join("")));
    }
  }).then(
    () => writer.close(),
    (e: unknown) => {
      failed(e);
      return writer.abort(e).catch(() => {});
    },
  );
  await ready;
  return readable;
}

// ---- ClientSubStats ----

export interface StatusCount {
  statusCode: number;
  count: number;
}

export type ClientStats = q.ClientFigures & {
  /** balance + overdraftLimit: what the client can still spend. */
  available: number;
  projectsByStatus: StatusCount[];
  projectsTotal: number;
};

export interface SubStats {
  client: ClientStats;
  /** With requestscope descendants: every client beneath, each with its own figures. */
  children: ClientStats[];
  /** The client and its children together (the client alone without descendants). */
  totals: {
    balance: number;
    pendingCharges: number;
    spendThisMonth: number;
    spendThisQuarter: number;
    spendThisYear: number;
    creditsAddedThisYear: number;
    runsThisMonth: number;
    runsThisQuarter: number;
    runsThisYear: number;
    runsTotal: number;
    projectsByStatus: StatusCount[];
    projectsTotal: number;
  };
}

export async function clientSubStats(db: Db, ctx: RequestCtx, input: { clientId: number }): Promise<SubStats> {
  return enterTenant(db, ctx, async (tx) => {
    const c = await q.visibleClient(tx, input.clientId);
    if (!c) throw notFound("Clients", input.clientId);
    const ids = ctx.descendants ? await q.clientSubtree(tx, c.id) : [c.id];
    const figures = await q.clientFigures(tx, ids);
    const statuses = await q.projectsByStatus(tx, ids);
    const stats = figures.map((f): ClientStats => {
      const byStatus = statuses.filter((s) => s.clientId === f.clientId).map((s) => ({ statusCode: s.statusCode, count: s.count }));
      return { ...f, available: f.balance + f.overdraftLimit, projectsByStatus: byStatus, projectsTotal: byStatus.reduce((s, x) => s + x.count, 0) };
    });
    const client = stats.find((s) => s.clientId === c.id)!;
    const sum = (k: keyof q.ClientFigures) => stats.reduce((s, x) => s + (x[k] as number), 0);
    const byStatus = new Map<number, number>();
    for (const s of statuses) byStatus.set(s.statusCode, (byStatus.get(s.statusCode) ?? 0) + s.count);
    return {
      client,
      children: stats.filter((s) => s.clientId !== c.id),
      totals: {
        balance: sum("balance"),
        pendingCharges: sum("pendingCharges"),
        spendThisMonth: sum("spendThisMonth"),
        spendThisQuarter: sum("spendThisQuarter"),
        spendThisYear: sum("spendThisYear"),
        creditsAddedThisYear: sum("creditsAddedThisYear"),
        runsThisMonth: sum("runsThisMonth"),
        runsThisQuarter: sum("runsThisQuarter"),
        runsThisYear: sum("runsThisYear"),
        runsTotal: sum("runsTotal"),
        projectsByStatus: [...byStatus].sort((a, b) => a[0] - b[0]).map(([statusCode, count]) => ({ statusCode, count })),
        projectsTotal: statuses.reduce((s, x) => s + x.count, 0),
      },
    };
  });
}

// ---- CreditCostEstimate ----

export interface EstimateInput {
  regionIds: number[];
  sampleSize?: number | null;
  frameworkId?: number;
  testOptions: number;
  priceSensitivity?: boolean;
  marketReach?: boolean;
  customQuestions?: number;
}

export interface CostEstimate extends RunCost {
  clientId: number;
  balance: number;
  overdraftLimit: number;
  available: number;
  affordable: boolean;
}

/**
 * What a draft with these settings would cost now, with nothing created: the inputs CreditCostNow
 * reads from a project's rows (its regions on the Ideally panel, at the sample size or 200 as POST
 * Projects stores them; frameworks 1010 and 1020 carry their add-on), through the same costOfRun.
 */
export async function creditCostEstimate(db: Db, ctx: RequestCtx, input: EstimateInput): Promise<CostEstimate> {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required: the cost is read against a team's credits");
  const clientId = ctx.clientId;
  return enterTenant(db, ctx, async (tx) => {
    const ids = [...new Set(input.regionIds)];
    const rows = await q.regionsForCost(tx, ids);
    const missing = ids.filter((id) => !rows.some((r) => r.regionId === id));
    if (missing.length) {
      throw new ApiError(
        "ValidationError",
        `No region ${missing.join(", ")}`,
        undefined,
        missing.map((id) => ({ path: `regionIds.${input.regionIds.indexOf(id)}`, message: `No region ${id}` })),
      );
    }
    const cost = costOfRun({
      regions: rows.map((r) => ({ ...r, sampleSize: input.sampleSize ?? DEFAULT_SAMPLE_SIZE, isCustomerPanel: false })),
      testOptions: input.testOptions,
      priceSensitivity: input.frameworkId === 1010 || input.priceSensitivity === true,
      marketReach: input.frameworkId === 1020 || input.marketReach === true,
      customQuestions: input.customQuestions ?? 0,
    });
    const l = await q.ledgerOf(tx, clientId);
    if (!l) throw notFound("Clients", clientId);
    const available = l.balance + l.overdraftLimit;
    return { clientId, ...cost, balance: l.balance, overdraftLimit: l.overdraftLimit, available, affordable: Math.round((available - cost.total) * 100) >= 0 };
  });
}
