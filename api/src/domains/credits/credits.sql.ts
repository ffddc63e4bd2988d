// SQL of the credit ledger: the lock that serialises a client's spending, balances, the inputs of
// the cost formula, schedules and their charges, adjustments, transfers and the figures the
// management pages read. Every statement runs in the caller's tenant transaction.
import type { Tx } from "../../db/client.ts";
import type { RegionInput } from "./cost.ts";
import { jsonParam } from "../../db/params.ts";

/** credit_logs as the API shows them (CreditLogs entity fields). */
export interface CreditLogRow {
  id: number;
  clientId: number;
  type: number;
  creditAmount: number;
  projectId: number | null;
  surveyRunId: number | null;
  relatedClientId: number | null;
  transferId: string | null;
  description: string | null;
  hubspotDealId: string | null;
  createdByUserId: number | null;
  createdAt: Date;
  updatedAt: Date | null;
}

const LOG_COLUMNS = (tx: Tx) => tx`
  id, client_id as "clientId", type, credit_amount::float8 as "creditAmount", project_id as "projectId",
  survey_run_id as "surveyRunId", related_client_id as "relatedClientId", transfer_id::text as "transferId",
  description, hubspot_deal_id as "hubspotDealId", created_by_user_id as "createdByUserId",
  created_at as "createdAt", updated_at as "updatedAt"`;

export interface LedgerState {
  clientId: number;
  overdraftLimit: number;
  balance: number;
}

/**
 * Locks the client's ledger for the rest of the transaction (its clients row, FOR UPDATE) and
 * reads its balance. Every write that can lower a balance takes this lock first, so two requests
 * never both see the same balance: no interleaving can overdraw. undefined: the client is not in
 * the request's scope.
 */
export async function lockLedger(tx: Tx, clientId: number): Promise<LedgerState | undefined> {
  const [c] = await tx<{ id: number; overdraftLimit: number }[]>`
    select id, overdraft_limit::float8 as "overdraftLimit" from clients where id = ${clientId} for update`;
  if (!c) return undefined;
  return { clientId: c.id, overdraftLimit: c.overdraftLimit, balance: await balanceOf(tx, clientId) };
}

/** Locks several clients' ledgers in id order (two transfers in opposite directions cannot deadlock). */
export async function lockLedgers(tx: Tx, clientIds: number[]): Promise<Map<number, LedgerState>> {
  const ids = [...new Set(clientIds)].sort((a, b) => a - b);
  const out = new Map<number, LedgerState>();
  for (const id of ids) {
    const s = await lockLedger(tx, id);
    if (s) out.set(id, s);
  }
  return out;
}

export async function balanceOf(tx: Tx, clientId: number): Promise<number> {
  const [r] = await tx<{ balance: number }[]>`
    select coalesce(sum(credit_amount), 0)::float8 as balance from credit_logs where client_id = ${clientId}`;
  return r!.balance;
}

/** The client's balance and overdraft limit without locking (reads). */
export async function ledgerOf(tx: Tx, clientId: number): Promise<LedgerState | undefined> {
  const [c] = await tx<{ id: number; overdraftLimit: number }[]>`
    select id, overdraft_limit::float8 as "overdraftLimit" from clients where id = ${clientId}`;
  if (!c) return undefined;
  return { clientId: c.id, overdraftLimit: c.overdraftLimit, balance: await balanceOf(tx, clientId) };
}

export interface NewLog {
  clientId: number;
  type: number;
  creditAmount: number;
  projectId?: number | null;
  surveyRunId?: number | null;
  relatedClientId?: number | null;
  transferId?: string | null;
  description?: string | null;
  hubspotDealId?: string | null;
  createdByUserId: number;
}

export async function insertLog(tx: Tx, l: NewLog): Promise<CreditLogRow> {
  const [r] = await tx<CreditLogRow[]>`
    insert into credit_logs (client_id, type, credit_amount, project_id, survey_run_id, related_client_id, transfer_id,
                             description, hubspot_deal_id, created_by_user_id)
    values (${l.clientId}, ${l.type}, ${l.creditAmount}, ${l.projectId ?? null}, ${l.surveyRunId ?? null},
            ${l.relatedClientId ?? null}, ${l.transferId ?? null}::uuid, ${l.description ?? null}, ${l.hubspotDealId ?? null},
            ${l.createdByUserId})
    returning ${LOG_COLUMNS(tx)}`;
  return r!;
}

/** What a survey run was charged: its schedules' charges (pending or settled), as a positive number. */
export async function runCharge(tx: Tx, runId: number): Promise<number> {
  const [r] = await tx<{ c: number }[]>`
    select coalesce(-sum(l.credit_amount), 0)::float8 as c
    from project_schedules s join credit_logs l on l.id = s.credit_log_id
    where s.survey_run_id = ${runId} and l.type in (30, 40) and l.credit_amount < 0`;
  return r?.c ?? 0;
}

/** The run's one shortfall refund (credit_logs_run_shortfall_refund): a second is not written. */
export async function insertShortfallRefund(tx: Tx, l: NewLog): Promise<{ id: number } | undefined> {
  const [r] = await tx<{ id: number }[]>`
    insert into credit_logs (client_id, type, credit_amount, project_id, survey_run_id, description, created_by_user_id)
    values (${l.clientId}, ${l.type}, ${l.creditAmount}, ${l.projectId ?? null}, ${l.surveyRunId ?? null}, ${l.description ?? null}, ${l.createdByUserId})
    on conflict (survey_run_id) where type = 40 and credit_amount > 0 do nothing
    returning id`;
  return r;
}

/** A ledger row of the request's scope, locked for a change. */
export async function logForUpdate(tx: Tx, id: number): Promise<CreditLogRow | undefined> {
  const [r] = await tx<CreditLogRow[]>`
    select ${LOG_COLUMNS(tx)} from credit_logs
    where id = ${id} and ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))
    for update`;
  return r;
}

export async function updateLog(
  tx: Tx,
  id: number,
  set: { type?: number; creditAmount?: number; projectId?: number | null; description?: string | null; hubspotDealId?: string | null },
): Promise<CreditLogRow> {
  const cols: Record<string, unknown> = {};
  if (set.type !== undefined) cols.type = set.type;
  if (set.creditAmount !== undefined) cols.credit_amount = set.creditAmount;
  if (set.projectId !== undefined) cols.project_id = set.projectId;
  if (set.description !== undefined) cols.description = set.description;
  if (set.hubspotDealId !== undefined) cols.hubspot_deal_id = set.hubspotDealId;
  cols.updated_at = new Date();
  const [r] = await tx<CreditLogRow[]>`update credit_logs set ${tx(cols)} where id = ${id} returning ${LOG_COLUMNS(tx)}`;
  return r!;
}

export async function deleteLog(tx: Tx, id: number): Promise<void> {
  await tx`delete from credit_logs where id = ${id}`;
}

/** Whether a project of the request's scope belongs to the client (project adjustments). */
export async function projectClient(tx: Tx, projectId: number): Promise<number | undefined> {
  const [r] = await tx<{ clientId: number }[]>`
    select client_id as "clientId" from projects
    where id = ${projectId} and ((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))`;
  return r?.clientId;
}

// ---- the cost formula's inputs ----

export interface CostRow {
  regions: RegionInput[];
  testOptions: number;
  priceSensitivity: boolean;
  marketReach: boolean;
  customQuestions: number;
}

/**
 * What a run of the project costs depends on (docs/credits.md): its regions and sample sizes, its
 * live test options, the price sensitivity and market reach add-ons (a set-up row, the framework,
 * or their standard questions: 19-22 price sensitivity, 25 market reach), and its team-written
 * questions (project questions without a standard question).
 */
/** Regions by id, in the order costInputs lists a project's. */
export async function regionsForCost(tx: Tx, ids: number[]): Promise<{ regionId: number; regionName: string }[]> {
  return tx<{ regionId: number; regionName: string }[]>`
    select id as "regionId", region_name as "regionName" from regions where id = any(${ids}::int[]) order by sort_order, id`;
}

export async function costInputs(tx: Tx, projectId: number): Promise<CostRow> {
  const regions = await tx<RegionInput[]>`
    select pr.region_id as "regionId", r.region_name as "regionName", pr.sample_size as "sampleSize",
           pr.is_customer_panel as "isCustomerPanel"
    from projects_regions pr join regions r on r.id = pr.region_id
    where pr.project_id = ${projectId}
    order by r.sort_order, pr.region_id`;
  const [f] = await tx<Omit<CostRow, "regions">[]>`
    select
      (select count(*) from test_options t where t.project_id = p.id and t.deleted_at is null)::int as "testOptions",
      (p.framework_id = 1010
        or exists (select 1 from project_price_sensitivities s where s.project_id = p.id)
        or exists (select 1 from project_questions q where q.project_id = p.id and q.deleted_at is null
                     and q.standard_question_id between 19 and 22)) as "priceSensitivity",
      (p.framework_id = 1020
        or exists (select 1 from project_market_reach m where m.project_id = p.id)
        or exists (select 1 from project_questions q where q.project_id = p.id and q.deleted_at is null
                     and q.standard_question_id = 25)) as "marketReach",
      (select count(*) from project_questions q where q.project_id = p.id and q.deleted_at is null
         and q.standard_question_id is null)::int as "customQuestions"
    from projects p where p.id = ${projectId}`;
  return {
    regions,
    testOptions: f?.testOptions ?? 0,
    priceSensitivity: f?.priceSensitivity ?? false,
    marketReach: f?.marketReach ?? false,
    customQuestions: f?.customQuestions ?? 0,
  };
}

// ---- schedules and their charges ----

export interface ScheduleRow {
  id: number;
  regionId: number;
  surveyRunId: number | null;
  scheduleDate: string;
  scheduleTypeId: number;
  isCustomerPanel: boolean;
  creditLogId: number | null;
  waveNumber: number | null;
  sampleSize: number | null;
  /** The wave's sample supplier, chosen by staff before its run exists (null: the project's panel). */
  sampleSupplierId: number | null;
  /** The charge's amount (negative) and type, when the schedule has a credit log. */
  creditAmount: number | null;
  creditType: number | null;
}

export async function schedulesOf(tx: Tx, projectId: number, opts: { unrunOnly?: boolean } = {}): Promise<ScheduleRow[]> {
  return tx<ScheduleRow[]>`
    select s.id, s.region_id as "regionId", s.survey_run_id as "surveyRunId", s.schedule_date::text as "scheduleDate",
           s.schedule_type_id as "scheduleTypeId", s.is_customer_panel as "isCustomerPanel", s.credit_log_id as "creditLogId",
           s.wave_number as "waveNumber", s.sample_size as "sampleSize", s.sample_supplier_id as "sampleSupplierId",
           l.credit_amount::float8 as "creditAmount", l.type as "creditType"
    from project_schedules s
    left join credit_logs l on l.id = s.credit_log_id
    where s.project_id = ${projectId} ${opts.unrunOnly ? tx`and s.survey_run_id is null` : tx``}
    order by s.schedule_date, s.wave_number nulls last, s.region_id, s.id`;
}

export async function maxWaveNumber(tx: Tx, projectId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`
    select coalesce(max(wave_number), 0)::int as n from project_schedules where project_id = ${projectId}`;
  return r!.n;
}

export interface NewSchedule {
  clientId: number;
  projectId: number;
  regionId: number;
  scheduleDate: string;
  scheduleTypeId: number;
  isCustomerPanel: boolean;
  creditLogId: number | null;
  waveNumber: number;
  sampleSize: number;
  /** Staff's choice of sample supplier, kept when unrun waves are rebuilt (migration 0056). */
  sampleSupplierId?: number | null;
}

export async function insertSchedule(tx: Tx, s: NewSchedule): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into project_schedules (client_id, project_id, region_id, schedule_date, schedule_type_id, is_customer_panel,
                                   credit_log_id, wave_number, sample_size, sample_supplier_id)
    values (${s.clientId}, ${s.projectId}, ${s.regionId}, ${s.scheduleDate}::date, ${s.scheduleTypeId}, ${s.isCustomerPanel},
            ${s.creditLogId}, ${s.waveNumber}, ${s.sampleSize}, ${s.sampleSupplierId ?? null})
    returning id`;
  return r!.id;
}

export async function deleteSchedules(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length) await tx`delete from project_schedules where id = any(${ids}::int[])`;
}

/** Pending charges (30) of schedules that have run become spends (40) of their run. */
export async function settleRunCharges(tx: Tx, projectId: number): Promise<number> {
  const rows = await tx`
    update credit_logs l set type = 40, survey_run_id = s.survey_run_id, updated_at = now()
    from project_schedules s
    where s.project_id = ${projectId} and s.credit_log_id = l.id and s.survey_run_id is not null and l.type = 30
    returning l.id`;
  return rows.length;
}

/** SPEC 9: minus the sum of the charges of the latest schedule date among schedules with a charge. */
export async function lastRunCost(tx: Tx, projectId: number): Promise<number | null> {
  const [r] = await tx<{ cost: number | null }[]>`
    with charged as (
      select s.schedule_date, l.credit_amount
      from project_schedules s join credit_logs l on l.id = s.credit_log_id
      where s.project_id = ${projectId}
    )
    select (-sum(credit_amount))::float8 as cost from charged where schedule_date = (select max(schedule_date) from charged)`;
  return r?.cost ?? null;
}

// ---- the management pages ----

export interface ClientFigures {
  clientId: number;
  name: string;
  tier: string;
  parentId: number | null;
  overdraftLimit: number;
  isTrial: boolean;
  trialEndsAt: Date | null;
  balance: number;
  pendingCharges: number;
  spendThisMonth: number;
  spendThisQuarter: number;
  spendThisYear: number;
  creditsAddedThisYear: number;
  transfersInThisYear: number;
  transfersOutThisYear: number;
  runsThisMonth: number;
  runsThisQuarter: number;
  runsThisYear: number;
  runsTotal: number;
  lastPurchaseAt: Date | null;
  lastPurchaseAmount: number | null;
  lastPurchaseType: number | null;
}

/**
 * Ledger and usage figures per client. Spend is net: minus the sum of the charge types (30 pending
 * runs, 40 runs, 80-85 and 90 adjustments), so a refund or a make-good lowers it. Periods are
 * calendar month, quarter and year in UTC. Runs are the client's survey runs by schedule date.
 */
export async function clientFigures(tx: Tx, clientIds: number[]): Promise<ClientFigures[]> {
  return tx<ClientFigures[]>`
    with periods as (
      select date_trunc('month', now(), 'UTC') as m, date_trunc('quarter', now(), 'UTC') as q, date_trunc('year', now(), 'UTC') as y
    ), spendy(t) as (values (30), (40), (80), (81), (82), (83), (84), (85), (90))
    select c.id as "clientId", c.name, c.tier, c.parent_id as "parentId", c.overdraft_limit::float8 as "overdraftLimit",
           c.is_trial as "isTrial", c.trial_ends_at as "trialEndsAt",
           coalesce(l.balance, 0)::float8 as balance,
           coalesce(l.pending, 0)::float8 as "pendingCharges",
           coalesce(l.spend_m, 0)::float8 as "spendThisMonth",
           coalesce(l.spend_q, 0)::float8 as "spendThisQuarter",
           coalesce(l.spend_y, 0)::float8 as "spendThisYear",
           coalesce(l.added_y, 0)::float8 as "creditsAddedThisYear",
           coalesce(l.tin_y, 0)::float8 as "transfersInThisYear",
           coalesce(l.tout_y, 0)::float8 as "transfersOutThisYear",
           coalesce(r.m, 0)::int as "runsThisMonth", coalesce(r.q, 0)::int as "runsThisQuarter",
           coalesce(r.y, 0)::int as "runsThisYear", coalesce(r.total, 0)::int as "runsTotal",
           lp.created_at as "lastPurchaseAt", lp.credit_amount::float8 as "lastPurchaseAmount", lp.type as "lastPurchaseType"
    from clients c
    cross join periods p
    left join lateral (
      select sum(x.credit_amount) as balance,
             -sum(x.credit_amount) filter (where x.type = 30) as pending,
             -sum(x.credit_amount) filter (where x.type in (select t from spendy) and x.created_at >= p.m) as spend_m,
             -sum(x.credit_amount) filter (where x.type in (select t from spendy) and x.created_at >= p.q) as spend_q,
             -sum(x.credit_amount) filter (where x.type in (select t from spendy) and x.created_at >= p.y) as spend_y,
             sum(x.credit_amount) filter (where x.type in (1, 2, 86) and x.created_at >= p.y) as added_y,
             sum(x.credit_amount) filter (where x.type in (130, 140) and x.credit_amount > 0 and x.created_at >= p.y) as tin_y,
             -sum(x.credit_amount) filter (where x.type in (130, 140) and x.credit_amount < 0 and x.created_at >= p.y) as tout_y
      from credit_logs x where x.client_id = c.id
    ) l on true
    left join lateral (
      select count(*) filter (where sr.schedule_date >= p.m::date) as m,
             count(*) filter (where sr.schedule_date >= p.q::date) as q,
             count(*) filter (where sr.schedule_date >= p.y::date) as y,
             count(*) as total
      from survey_runs sr where sr.client_id = c.id and sr.schedule_date <= current_date
    ) r on true
    left join lateral (
      select x.created_at, x.credit_amount, x.type from credit_logs x
      where x.client_id = c.id and x.type in (1, 2) order by x.created_at desc, x.id desc limit 1
    ) lp on true
    where c.id = any(${clientIds}::int[])
    order by c.id = ${clientIds[0] ?? 0} desc, c.tier, c.name, c.id`;
}

export async function projectsByStatus(tx: Tx, clientIds: number[]): Promise<{ clientId: number; statusCode: number; count: number }[]> {
  return tx`
    select client_id as "clientId", status_code as "statusCode", count(*)::int as count
    from projects where client_id = any(${clientIds}::int[]) and deleted_at is null
    group by client_id, status_code order by client_id, status_code`;
}

/** The client and, with requestscope descendants, every client beneath it that the request sees. */
export async function clientSubtree(tx: Tx, clientId: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select c.id from clients c
    where c.id = ${clientId} or c.parent_id = ${clientId}
       or c.parent_id in (select m.id from clients m where m.parent_id = ${clientId})
    order by c.id = ${clientId} desc, c.id`;
  return rows.map((r) => r.id);
}

/** The client's ledger in date order with its running balance: the CSV export's rows, by cursor. */
/** Entries in the client's ledger (what ledgerRows would give). */
export async function ledgerSize(tx: Tx, clientId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`select count(*)::int as n from credit_logs where client_id = ${clientId}`;
  return r!.n;
}

export function ledgerRows(tx: Tx, clientId: number) {
  return tx<LedgerCsvRow[]>`
    select l.id, l.created_at as "createdAt", l.type, t.name as "typeName", l.credit_amount::float8 as "creditAmount",
           (sum(l.credit_amount) over (order by l.created_at, l.id))::float8 as balance,
           l.project_id as "projectId", p.project_name as "projectName", l.survey_run_id as "surveyRunId",
           l.related_client_id as "relatedClientId", l.transfer_id::text as "transferId", l.description,
           l.hubspot_deal_id as "hubspotDealId", l.created_by_user_id as "createdByUserId", u.email as "createdByEmail"
    from credit_logs l
    join credit_log_types t on t.id = l.type
    left join projects p on p.id = l.project_id
    left join users u on u.id = l.created_by_user_id
    where l.client_id = ${clientId}
    order by l.created_at, l.id`;
}

export interface LedgerCsvRow {
  id: number;
  createdAt: Date;
  type: number;
  typeName: string;
  creditAmount: number;
  balance: number;
  projectId: number | null;
  projectName: string | null;
  surveyRunId: number | null;
  relatedClientId: number | null;
  transferId: string | null;
  description: string | null;
  hubspotDealId: string | null;
  createdByUserId: number | null;
  createdByEmail: string | null;
}

export async function visibleClient(tx: Tx, clientId: number): Promise<{ id: number; name: string; tier: string } | undefined> {
  const [r] = await tx<{ id: number; name: string; tier: string }[]>`select id, name, tier from clients where id = ${clientId}`;
  return r;
}

export async function clientEnterprise(tx: Tx, clientId: number): Promise<number | null> {
  const [r] = await tx<{ id: number | null }[]>`select app_client_enterprise(${clientId}) as id`;
  return r?.id ?? null;
}

/** An audit row in DataEventsLog for a ledger change (entity CreditLog). */
export async function auditLog(tx: Tx, e: { clientId: number; userId: number; creditLogId: number; event: string; projectId: number | null; data: Record<string, unknown> }): Promise<void> {
  await tx`
    insert into data_events_log (client_id, user_id, entity_type, entity_id, event, project_id, data)
    values (${e.clientId}, ${e.userId}, 'CreditLog', ${e.creditLogId}, ${e.event}, ${e.projectId}, ${jsonParam(tx, e.data)})`;
}

// ---- projects as the ledger reads them ----

export interface ProjectBrief {
  id: number;
  clientId: number;
  projectName: string;
  statusCode: number;
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  scheduleWavesRequired: number | null;
  wavesRequired: boolean;
  /** EstimatedProjectDuration's days for one wave (null without regions). */
  estimatedDays: number | null;
}

/** A project of the request's own clients (not one only shared with the caller), not in the trash. */
export async function projectBrief(tx: Tx, id: number): Promise<ProjectBrief | undefined> {
  const [p] = await tx<ProjectBrief[]>`
    select p.id, p.client_id as "clientId", p.project_name as "projectName", p.status_code as "statusCode",
           p.schedule_start_date::text as "scheduleStartDate", p.schedule_frequency_weeks as "scheduleFrequencyWeeks",
           p.schedule_waves_required as "scheduleWavesRequired", p.waves_required as "wavesRequired",
           d.estimated_days as "estimatedDays"
    from projects p left join estimated_project_duration d on d.project_id = p.id
    where p.id = ${id} and p.deleted_at is null
      and ((select app_all_clients()) or p.client_id = any((select app_client_ids())::int[]))`;
  return p;
}
