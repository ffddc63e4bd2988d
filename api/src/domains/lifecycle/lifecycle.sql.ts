// SQL of the project lifecycle: the project row an action locks, status changes and their log,
// notifications, and the rows Move, AdminEdit, UpdateProjectOwner, UpdateGroupTags and
// RemoveFromSurveyRun change. Every statement runs in the caller's tenant transaction.
import type { Tx } from "../../db/client.ts";
import { jsonParam } from "../../db/params.ts";

export interface ProjectRow {
  id: number;
  clientId: number;
  projectName: string;
  projectTypeId: number;
  statusCode: number;
  frameworkId: number | null;
  ownerUserId: number | null;
  createdByUserId: number | null;
  scheduleStartDate: string | null;
  scheduleFrequencyWeeks: number | null;
  scheduleWavesRequired: number | null;
  wavesRequired: boolean;
  incidenceEstimate: number | null;
}

/** The request's own clients only (a project shared with the caller is readable, never acted on). */
const OWN = (tx: Tx) => tx`((select app_all_clients()) or client_id = any((select app_client_ids())::int[]))`;

const PROJECT_COLUMNS = (tx: Tx) => tx`
  id, client_id as "clientId", project_name as "projectName", project_type_id as "projectTypeId",
  status_code as "statusCode", framework_id as "frameworkId", owner_user_id as "ownerUserId",
  created_by_user_id as "createdByUserId", schedule_start_date::text as "scheduleStartDate",
  schedule_frequency_weeks as "scheduleFrequencyWeeks", schedule_waves_required as "scheduleWavesRequired",
  waves_required as "wavesRequired", incidence_estimate::float8 as "incidenceEstimate"`;

/**
 * The project an action is about, locked for the rest of the transaction: concurrent actions on
 * one project run one after the other, each seeing the status the previous one left.
 */
export async function lockProject(tx: Tx, id: number): Promise<ProjectRow | undefined> {
  const [p] = await tx<ProjectRow[]>`
    select ${PROJECT_COLUMNS(tx)} from projects where id = ${id} and deleted_at is null and ${OWN(tx)} for update`;
  return p;
}

/** The project without a lock (reads: costs, estimates, incidence documents). */
export async function readProject(tx: Tx, id: number): Promise<ProjectRow | undefined> {
  const [p] = await tx<ProjectRow[]>`
    select ${PROJECT_COLUMNS(tx)} from projects where id = ${id} and deleted_at is null and ${OWN(tx)}`;
  return p;
}

export type StatusStamp = "submitted" | "approved" | "completed" | "cleared";

export async function setStatus(tx: Tx, id: number, to: number, stamp?: StatusStamp): Promise<void> {
  await tx`
    update projects set
      status_code = ${to},
      submitted_at = case when ${stamp === "submitted"} then now() when ${stamp === "cleared"} then null else submitted_at end,
      approved_at = case when ${stamp === "approved"} then coalesce(approved_at, now()) when ${stamp === "cleared"} then null else approved_at end,
      completed_at = case when ${stamp === "completed"} then now() else completed_at end,
      updated_at = now()
    where id = ${id}`;
}

export async function logEvent(tx: Tx, e: { clientId: number; userId: number; projectId: number; event: string; data: Record<string, unknown> }): Promise<void> {
  await tx`
    insert into data_events_log (client_id, user_id, entity_type, entity_id, event, project_id, data)
    values (${e.clientId}, ${e.userId}, 'Project', ${e.projectId}, ${e.event}, ${e.projectId}, ${jsonParam(tx, e.data)})`;
}

/** Who last submitted the project (its latest SubmittedForSurvey event), if anyone. */
export async function lastSubmitter(tx: Tx, projectId: number): Promise<number | null> {
  const [r] = await tx<{ userId: number | null }[]>`
    select user_id as "userId" from data_events_log
    where entity_type = 'Project' and entity_id = ${projectId} and event = 'SubmittedForSurvey'
    order by created_at desc, id desc limit 1`;
  return r?.userId ?? null;
}

export async function requiresApproval(tx: Tx, clientId: number): Promise<boolean> {
  const [r] = await tx<{ v: boolean }[]>`select app_client_requires_approval(${clientId}) as v`;
  return r?.v ?? false;
}

/** The user's role on the client (inherited; null: not a member). */
export async function userRole(tx: Tx, userId: number, clientId: number): Promise<number | null> {
  const [r] = await tx<{ v: number | null }[]>`select app_user_client_role(${userId}, ${clientId}) as v`;
  return r?.v ?? null;
}

export async function clientAdmins(tx: Tx, clientId: number): Promise<number[]> {
  const [r] = await tx<{ v: number[] }[]>`select app_client_admin_ids(${clientId}) as v`;
  return r?.v ?? [];
}

/** Provider staff who receive approval requests: active staff accounts, not the services user. */
export async function staffUsers(tx: Tx, servicesUserId: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select id from users where is_staff and disabled_at is null and id <> ${servicesUserId} order by id`;
  return rows.map((r) => r.id);
}

// ---- Move ----

export async function clientInfo(tx: Tx, id: number): Promise<{ id: number; tier: string; name: string } | undefined> {
  const [r] = await tx<{ id: number; tier: string; name: string }[]>`select id, tier, name from clients where id = ${id}`;
  return r;
}

export async function enterpriseOf(tx: Tx, clientId: number): Promise<number | null> {
  const [r] = await tx<{ v: number | null }[]>`select app_client_enterprise(${clientId}) as v`;
  return r?.v ?? null;
}

export async function ledgerRowCount(tx: Tx, projectId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`select count(*)::int as n from credit_logs where project_id = ${projectId}`;
  return r!.n;
}

export async function moveProject(tx: Tx, projectId: number, from: number, to: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`select app_move_project(${projectId}, ${from}, ${to}) as n`;
  return r!.n;
}

// ---- AdminEdit ----

/** Project columns AdminEdit may set, by API name. */
export const ADMIN_EDIT_COLUMNS = {
  statusCode: "status_code",
  projectName: "project_name",
  frameworkId: "framework_id",
  categoryId: "category_id",
  productType: "product_type",
  launchDate: "launch_date",
  scheduleWavesRequired: "schedule_waves_required",
  scheduleFrequencyWeeks: "schedule_frequency_weeks",
  scheduleStartDate: "schedule_start_date",
  wavesRequired: "waves_required",
  schedulePause: "schedule_pause",
  splitCellQuota: "split_cell_quota",
  isBranded: "is_branded",
  brandName: "brand_name",
  researchNote: "research_note",
  ownerUserId: "owner_user_id",
  incidenceEstimate: "incidence_estimate",
} as const;

export type AdminEditField = keyof typeof ADMIN_EDIT_COLUMNS;

/** The current values of the AdminEdit fields, as the API names and shows them. */
export async function adminEditValues(tx: Tx, id: number): Promise<Record<AdminEditField, unknown>> {
  const [r] = await tx<Record<AdminEditField, unknown>[]>`
    select status_code as "statusCode", project_name as "projectName", framework_id as "frameworkId",
           category_id as "categoryId", product_type as "productType", launch_date::text as "launchDate",
           schedule_waves_required as "scheduleWavesRequired", schedule_frequency_weeks as "scheduleFrequencyWeeks",
           schedule_start_date::text as "scheduleStartDate", waves_required as "wavesRequired",
           schedule_pause as "schedulePause", split_cell_quota as "splitCellQuota", is_branded as "isBranded",
           brand_name as "brandName", research_note as "researchNote", owner_user_id as "ownerUserId",
           incidence_estimate::float8 as "incidenceEstimate"
    from projects where id = ${id}`;
  return r!;
}

export async function adminEdit(tx: Tx, id: number, changes: Partial<Record<AdminEditField, unknown>>): Promise<void> {
  const cols: Record<string, unknown> = { updated_at: new Date() };
  for (const [k, v] of Object.entries(changes)) cols[ADMIN_EDIT_COLUMNS[k as AdminEditField]] = v;
  // Column names come from ADMIN_EDIT_COLUMNS only; postgres.js quotes them and binds the values.
  await tx`update projects set ${tx(cols)} where id = ${id}`;
}

export async function setOwner(tx: Tx, id: number, userId: number): Promise<void> {
  await tx`update projects set owner_user_id = ${userId}, updated_at = now() where id = ${id}`;
}

export async function setIncidence(tx: Tx, id: number, incidence: number): Promise<void> {
  await tx`update projects set incidence_estimate = ${incidence}, updated_at = now() where id = ${id}`;
}

// ---- UpdateGroupTags ----

export interface TagRow {
  id: number;
  clientId: number;
  projectGroupId: number;
  projectId: number | null;
  name: string;
}

const TAG_COLUMNS = (tx: Tx) => tx`id, client_id as "clientId", project_group_id as "projectGroupId", project_id as "projectId", name`;

export async function tagsByIds(tx: Tx, ids: number[]): Promise<TagRow[]> {
  return tx<TagRow[]>`select ${TAG_COLUMNS(tx)} from project_group_tags where id = any(${ids}::int[]) and ${OWN(tx)}`;
}

export async function tagsOfProject(tx: Tx, projectId: number): Promise<TagRow[]> {
  return tx<TagRow[]>`select ${TAG_COLUMNS(tx)} from project_group_tags where project_id = ${projectId} order by project_group_id, name, id`;
}

/**
 * Takes a tag off the project: the row goes, unless it is the last row of its (group, name), in
 * which case it stays as the group's tag without a project.
 */
export async function untag(tx: Tx, tag: TagRow): Promise<void> {
  const [r] = await tx<{ n: number }[]>`
    select count(*)::int as n from project_group_tags
    where project_group_id = ${tag.projectGroupId} and name = ${tag.name} and id <> ${tag.id}`;
  if (r!.n > 0) await tx`delete from project_group_tags where id = ${tag.id}`;
  else await tx`update project_group_tags set project_id = null, updated_at = now() where id = ${tag.id}`;
}

export async function tag(tx: Tx, clientId: number, projectGroupId: number, projectId: number, name: string): Promise<void> {
  await tx`
    insert into project_group_tags (client_id, project_group_id, project_id, name)
    values (${clientId}, ${projectGroupId}, ${projectId}, ${name})`;
}

// ---- RemoveFromSurveyRun ----

export interface RunRemoval {
  schedules: number;
  weeks: number;
  sessions: number;
}

/**
 * Takes the project off one survey run: its schedules on the run are unrun again (a settled charge
 * returns to pending, to be settled when the schedule runs), its NPD weeks lose the run, and its
 * sessions from the run go (their answers with them, by cascade).
 */
export async function removeFromRun(tx: Tx, projectId: number, surveyRunId: number): Promise<RunRemoval> {
  await tx`
    update credit_logs l set type = 30, survey_run_id = null, updated_at = now()
    from project_schedules s
    where s.project_id = ${projectId} and s.survey_run_id = ${surveyRunId} and s.credit_log_id = l.id and l.type = 40`;
  const schedules = await tx`
    update project_schedules set survey_run_id = null, updated_at = now()
    where project_id = ${projectId} and survey_run_id = ${surveyRunId} returning id`;
  const weeks = await tx`
    update project_weeks set survey_run_id = null, updated_at = now()
    where project_id = ${projectId} and survey_run_id = ${surveyRunId} returning id`;
  const sessions = await tx`
    delete from project_survey_sessions where project_id = ${projectId} and survey_run_id = ${surveyRunId} returning id`;
  return { schedules: schedules.length, weeks: weeks.length, sessions: sessions.length };
}

/** Whether any schedule or NPD week of the project is still on a survey run. */
export async function onAnyRun(tx: Tx, projectId: number): Promise<boolean> {
  const [r] = await tx<{ v: boolean }[]>`
    select exists (select 1 from project_schedules where project_id = ${projectId} and survey_run_id is not null)
        or exists (select 1 from project_weeks where project_id = ${projectId} and survey_run_id is not null) as v`;
  return r!.v;
}

export async function hasUnrunSchedules(tx: Tx, projectId: number): Promise<boolean> {
  const [r] = await tx<{ v: boolean }[]>`
    select exists (select 1 from project_schedules where project_id = ${projectId} and survey_run_id is null) as v`;
  return r!.v;
}
