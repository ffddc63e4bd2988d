// SQL of scheduling and waves: the project's schedule settings, its schedules with their charges
// and scheduler state, NPD weeks, and the scheduler's scan. Every statement runs in the caller's
// tenant transaction (row-level security applies; the scheduler runs as the services user).
import type { Tx } from "../../db/client.ts";

/** schedules.launch_state (its check constraint, migration 0017). */
export type LaunchState = "Scheduled" | "ReadyToLaunch" | "Blocked";

export interface SchedProject {
  id: number;
  clientId: number;
  projectName: string;
  projectTypeId: number;
  statusCode: number;
  ownerUserId: number | null;
  launchDate: string | null;
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  scheduleWavesRequired: number | null;
  wavesRequired: boolean;
  schedulePause: boolean;
}

const COLUMNS = (tx: Tx) => tx`
  id, client_id as "clientId", project_name as "projectName", project_type_id as "projectTypeId",
  status_code as "statusCode", owner_user_id as "ownerUserId", launch_date::text as "launchDate",
  schedule_start_date::text as "scheduleStartDate", schedule_frequency_weeks as "scheduleFrequencyWeeks",
  schedule_waves_required as "scheduleWavesRequired", waves_required as "wavesRequired", schedule_pause as "schedulePause"`;

/** The request's own clients only (a shared project is readable, never acted on). */
const OWN = (tx: Tx) => tx`((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))`;

/** The project a write is about, locked (the same lock order as the lifecycle: project, then ledger). */
export async function lockProject(tx: Tx, id: number): Promise<SchedProject | undefined> {
  const [p] = await tx<SchedProject[]>`select ${COLUMNS(tx)} from projects where id = ${id} and deleted_at is null and ${OWN(tx)} for update`;
  return p;
}

/** The project as the request sees it (shares included): SchedulingState reads it. */
export async function readProject(tx: Tx, id: number): Promise<SchedProject | undefined> {
  const [p] = await tx<SchedProject[]>`select ${COLUMNS(tx)} from projects where id = ${id} and deleted_at is null`;
  return p;
}

export interface Settings {
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  scheduleWavesRequired: number | null;
  wavesRequired: boolean;
  schedulePause: boolean;
}

export async function updateSettings(tx: Tx, id: number, s: Settings): Promise<void> {
  await tx`
    update projects set
      schedule_start_date = ${s.scheduleStartDate}::date, schedule_frequency_weeks = ${s.scheduleFrequencyWeeks},
      schedule_waves_required = ${s.scheduleWavesRequired}, waves_required = ${s.wavesRequired},
      schedule_pause = ${s.schedulePause}, updated_at = now()
    where id = ${id}`;
}

export interface StateRow {
  id: number;
  regionId: number;
  regionName: string;
  surveyRunId: number | null;
  scheduleDate: string;
  scheduleTypeId: number;
  isCustomerPanel: boolean;
  sampleSupplierId: number | null;
  waveNumber: number | null;
  sampleSize: number | null;
  launchState: LaunchState;
  startedAt: string | null;
  blockedReason: string | null;
  creditLogId: number | null;
  creditAmount: number | null;
  creditType: number | null;
}

export async function schedules(tx: Tx, projectId: number): Promise<StateRow[]> {
  return tx<StateRow[]>`
    select s.id, s.region_id as "regionId", r.region_name as "regionName", s.survey_run_id as "surveyRunId",
           s.schedule_date::text as "scheduleDate", s.schedule_type_id as "scheduleTypeId", s.is_customer_panel as "isCustomerPanel",
           s.sample_supplier_id as "sampleSupplierId", s.wave_number as "waveNumber", s.sample_size as "sampleSize", s.launch_state as "launchState",
           to_char(s.started_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as "startedAt", s.blocked_reason as "blockedReason",
           s.credit_log_id as "creditLogId", l.credit_amount::float8 as "creditAmount", l.type as "creditType"
    from project_schedules s
    join regions r on r.id = s.region_id
    left join credit_logs l on l.id = s.credit_log_id
    where s.project_id = ${projectId}
    order by s.schedule_date, s.wave_number nulls last, s.region_id, s.id`;
}

/**
 * The unrun, unstarted waves' types: wave 1 is Standard (charged at Submit); a later wave already
 * charged is DelayCharge (10); of the uncharged ones, the next to come due is DelayCharge (charged
 * when it does) and those after it DelayChargeFuture (15).
 */
export async function retypeUnrun(tx: Tx, projectId: number): Promise<void> {
  await tx`
    with nxt as (
      select min(wave_number) as w from project_schedules
      where project_id = ${projectId} and survey_run_id is null and credit_log_id is null and started_at is null),
    want as (
      select s.id, case when s.wave_number = 1 then 1 when s.credit_log_id is not null then 10
                        when s.wave_number = (select w from nxt) then 10 else 15 end as t
      from project_schedules s
      where s.project_id = ${projectId} and s.survey_run_id is null and s.started_at is null)
    update project_schedules s set schedule_type_id = want.t, updated_at = now()
    from want where want.id = s.id and s.schedule_type_id <> want.t`;
}

export async function redate(tx: Tx, scheduleId: number, date: string): Promise<boolean> {
  const rows = await tx`update project_schedules set schedule_date = ${date}::date, updated_at = now() where id = ${scheduleId} and schedule_date <> ${date}::date returning id`;
  return rows.length > 0;
}

// ---- NPD weeks ----

/** The project's weeks rebuilt from its schedules: one per region and week since launch. */
export async function rebuildWeeks(tx: Tx, projectId: number, clientId: number, launchDate: string): Promise<number> {
  await tx`delete from project_weeks where project_id = ${projectId}`;
  const rows = await tx`
    insert into project_weeks (client_id, project_id, region_id, survey_run_id, week, schedule_date)
    select distinct on (s.region_id, w.week) ${clientId}::int, s.project_id, s.region_id, s.survey_run_id, w.week, s.schedule_date
    from project_schedules s
    cross join lateral (select greatest(1, ((s.schedule_date - ${launchDate}::date) / 7) + 1)::int as week) w
    where s.project_id = ${projectId}
    order by s.region_id, w.week, s.survey_run_id nulls last, s.schedule_date
    returning id`;
  return rows.length;
}

export async function weeks(tx: Tx, projectId: number): Promise<{ id: number; regionId: number; surveyRunId: number | null; week: number; scheduleDate: string }[]> {
  return tx`
    select id, region_id as "regionId", survey_run_id as "surveyRunId", week, schedule_date::text as "scheduleDate"
    from project_weeks where project_id = ${projectId} order by region_id, week`;
}

// ---- the scheduler ----

/** Statuses whose due waves the scheduler starts: 300 (the first or a re-queued wave) and 800 (the next wave). */
export const STARTABLE_STATUSES = [300, 800];

export interface DueRow {
  id: number;
  projectId: number;
  clientId: number;
  projectStatusCode: number;
  regionId: number;
  waveNumber: number | null;
  scheduleDate: string;
  scheduleTypeId: number;
  launchState: string;
  blockedReason: string | null;
  creditLogId: number | null;
}

/** ToRun: schedules due by `today`, not run, not started, of projects neither paused nor stopped. */
export async function due(tx: Tx, today: string): Promise<DueRow[]> {
  return tx<DueRow[]>`
    select s.id, s.project_id as "projectId", s.client_id as "clientId", p.status_code as "projectStatusCode", s.region_id as "regionId",
           s.wave_number as "waveNumber", s.schedule_date::text as "scheduleDate", s.schedule_type_id as "scheduleTypeId",
           s.launch_state as "launchState", s.blocked_reason as "blockedReason", s.credit_log_id as "creditLogId"
    from project_schedules s
    join projects p on p.id = s.project_id
    where s.survey_run_id is null and s.started_at is null and s.schedule_date <= ${today}::date
      and p.deleted_at is null and not p.schedule_pause and p.status_code = any(${STARTABLE_STATUSES}::int[])
    order by s.schedule_date, s.project_id, s.wave_number nulls last, s.region_id, s.id`;
}

/** The project's due, unstarted schedules, locked (a second scheduler run waits, then sees them started). */
export async function lockDue(tx: Tx, projectId: number, today: string): Promise<DueRow[]> {
  return tx<DueRow[]>`
    select s.id, s.project_id as "projectId", s.client_id as "clientId", 0 as "projectStatusCode", s.region_id as "regionId",
           s.wave_number as "waveNumber", s.schedule_date::text as "scheduleDate", s.schedule_type_id as "scheduleTypeId",
           s.launch_state as "launchState", s.blocked_reason as "blockedReason", s.credit_log_id as "creditLogId"
    from project_schedules s
    where s.project_id = ${projectId} and s.survey_run_id is null and s.started_at is null and s.schedule_date <= ${today}::date
    order by s.wave_number nulls last, s.region_id, s.id
    for update`;
}

export async function linkCharge(tx: Tx, scheduleId: number, creditLogId: number): Promise<void> {
  await tx`update project_schedules set credit_log_id = ${creditLogId}, updated_at = now() where id = ${scheduleId}`;
}

export async function markStarted(tx: Tx, ids: number[]): Promise<void> {
  await tx`
    update project_schedules set started_at = now(), launch_state = 'ReadyToLaunch', blocked_reason = null, blocked_at = null, updated_at = now()
    where id = any(${ids}::int[]) and started_at is null`;
}

export async function markBlocked(tx: Tx, ids: number[], reason: string): Promise<void> {
  await tx`
    update project_schedules set launch_state = 'Blocked', blocked_reason = ${reason}, blocked_at = coalesce(blocked_at, now()), updated_at = now()
    where id = any(${ids}::int[])`;
}

/** A wave started and waiting for fielding to launch it: the scheduler starts one wave at a time. */
export async function hasStartedUnrun(tx: Tx, projectId: number): Promise<boolean> {
  const [r] = await tx<{ x: boolean }[]>`
    select exists (select 1 from project_schedules where project_id = ${projectId} and survey_run_id is null and started_at is not null) as x`;
  return r!.x;
}
