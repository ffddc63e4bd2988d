// SQL of project authoring: projects, their regions, targets and objectives. Every statement runs
// in the caller's tenant transaction (enterTenant), so row-level security applies; statements that
// write also say "the request's own clients" themselves (`own`), because a project shared with the
// caller is readable through RLS but never theirs to change.
import type { Tx } from "../../db/client.ts";
import { jsonParam } from "../../db/params.ts";

export interface ProjectRow {
  id: number;
  clientId: number;
  statusCode: number;
  projectTypeId: number;
  frameworkId: number | null;
  activeProjectObjectiveId: number | null;
}

const projectColumns = (tx: Tx) => tx`
  p.id, p.client_id as "clientId", p.status_code as "statusCode", p.project_type_id as "projectTypeId",
  p.framework_id as "frameworkId", p.active_project_objective_id as "activeProjectObjectiveId"`;

/**
 * A project of the request's own clients (or any, for staff across clients), not in the trash.
 * `lock` takes the row (FOR NO KEY UPDATE): authoring writes of one project, and a lifecycle action
 * that changes its status, then run one after another, so an edit never slips past a Submit. Child
 * rows' foreign-key checks (KEY SHARE) are not blocked.
 */
export async function ownProject(tx: Tx, id: number, opts: { lock?: boolean } = {}): Promise<ProjectRow | undefined> {
  const [r] = opts.lock
    ? await tx<ProjectRow[]>`
        select ${projectColumns(tx)} from projects p
        where p.id = ${id} and p.deleted_at is null and (app_all_clients() or p.client_id = any(app_client_ids()))
        for no key update`
    : await tx<ProjectRow[]>`
        select ${projectColumns(tx)} from projects p
        where p.id = ${id} and p.deleted_at is null and (app_all_clients() or p.client_id = any(app_client_ids()))`;
  return r;
}

/** A project the request may read (its own, or shared with the caller), not in the trash. */
export async function readableProject(tx: Tx, id: number): Promise<ProjectRow | undefined> {
  const [r] = await tx<ProjectRow[]>`
    select ${projectColumns(tx)} from projects p where p.id = ${id} and p.deleted_at is null`;
  return r;
}

export interface ClientRow {
  id: number;
  tier: string;
  industry: string | null;
  defaultRegionId: number | null;
}

export async function client(tx: Tx, id: number): Promise<ClientRow | undefined> {
  const [r] = await tx<ClientRow[]>`
    select c.id, c.tier, c.industry, t.default_region_id as "defaultRegionId"
    from clients c left join teams t on t.client_id = c.id
    where c.id = ${id}`;
  return r;
}

export async function framework(tx: Tx, id: number): Promise<{ id: number; projectTypeId: number; title: string } | undefined> {
  const [r] = await tx<{ id: number; projectTypeId: number; title: string }[]>`
    select id, project_type_id as "projectTypeId", title from frameworks where id = ${id}`;
  return r;
}

export async function categoryExists(tx: Tx, id: number): Promise<boolean> {
  const [r] = await tx`select 1 from categories where id = ${id}`;
  return !!r;
}

export async function industryExists(tx: Tx, code: string): Promise<boolean> {
  const [r] = await tx`select 1 from industries where code = ${code}`;
  return !!r;
}

export interface RegionRow {
  id: number;
  regionName: string;
  currencyCode: string;
  isUsState: boolean;
}

export async function regions(tx: Tx, ids: number[]): Promise<RegionRow[]> {
  return tx<RegionRow[]>`
    select id, region_name as "regionName", currency_code as "currencyCode", is_us_state as "isUsState"
    from regions where id = any(${ids}::int[])`;
}

/**
 * Is a feature flag on for the client: its ClientFeatures row when it has one, else the global
 * switch; for provider staff the staff switch (EnableIdeally) turns on what those leave off.
 */
export async function flagOn(tx: Tx, ff: string, clientId: number, isStaff: boolean): Promise<boolean> {
  const [r] = await tx<{ on: boolean }[]>`
    select coalesce(cf.is_enabled, f.is_enabled) or (${isStaff} and f.is_enabled_for_staff) as on
    from feature_flags f
    left join client_features cf on cf.feature_flag_id = f.id and cf.client_id = ${clientId}
    where f.ff = ${ff}`;
  return r?.on ?? false;
}

export interface NewProject {
  clientId: number;
  projectName: string;
  projectTypeId: number;
  frameworkId: number;
  categoryId: number | null;
  productType: string | null;
  isBranded: boolean;
  brandName: string | null;
  researchNote: string | null;
  launchDate: string | null;
  splitCellQuota: boolean;
  userId: number;
}

export async function insertProject(tx: Tx, p: NewProject): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, category_id, product_type,
                          is_branded, brand_name, research_note, launch_date, split_cell_quota, owner_user_id, created_by_user_id)
    values (${p.clientId}, ${p.projectName}, ${p.projectTypeId}, 0, ${p.frameworkId}, ${p.categoryId}, ${p.productType},
            ${p.isBranded}, ${p.brandName}, ${p.researchNote}, ${p.launchDate}::date, ${p.splitCellQuota}, ${p.userId}, ${p.userId})
    returning id`;
  return r!.id;
}

export async function projectRegionIds(tx: Tx, projectId: number): Promise<number[]> {
  const rows = await tx<{ regionId: number }[]>`
    select pr.region_id as "regionId" from projects_regions pr
    join regions r on r.id = pr.region_id
    where pr.project_id = ${projectId}
    order by r.sort_order, r.id`;
  return rows.map((r) => r.regionId);
}

export async function addRegions(tx: Tx, clientId: number, projectId: number, regionIds: number[], sampleSize: number | null): Promise<void> {
  if (!regionIds.length) return;
  await tx`
    insert into projects_regions (client_id, project_id, region_id, sample_size)
    select ${clientId}, ${projectId}, r, coalesce(${sampleSize}::int, 200) from unnest(${regionIds}::int[]) as r
    on conflict (project_id, region_id) do nothing`;
}

/** The completes per wave of a project's regions (the largest, if they differ); null without regions. */
export async function projectSampleSize(tx: Tx, projectId: number): Promise<number | null> {
  const [r] = await tx<{ n: number | null }[]>`select max(sample_size)::int as n from projects_regions where project_id = ${projectId}`;
  return r?.n ?? null;
}

/** Every region of the project fields `sampleSize` completes a wave. */
export async function setSampleSize(tx: Tx, projectId: number, sampleSize: number): Promise<void> {
  await tx`update projects_regions set sample_size = ${sampleSize} where project_id = ${projectId}`;
}

/** Removes regions and the targets and crossed quota cells that applied to them. */
export async function removeRegions(tx: Tx, projectId: number, regionIds: number[]): Promise<void> {
  if (!regionIds.length) return;
  await tx`delete from targets where project_id = ${projectId} and region_id = any(${regionIds}::int[])`;
  await tx`delete from crossed_quota_cells where project_id = ${projectId} and region_id = any(${regionIds}::int[])`;
  await tx`delete from projects_regions where project_id = ${projectId} and region_id = any(${regionIds}::int[])`;
}

// ---- standard questions of a framework ----

export interface StandardQuestionRow {
  id: number;
  title: string;
  questionText: string;
  questionTypeId: number;
}

/**
 * A framework's standard questions in SPEC 9's order (display_order: 5, 1, 4, 3, 2, 6, then the
 * rest in the framework's own order), without the add-ons their set-up calls add: the price
 * questions 19-22 (CreatePriceSensitivities, one set per test option) and 25 Market reach
 * (CreateMarketReach).
 */
export async function frameworkQuestions(tx: Tx, frameworkId: number): Promise<StandardQuestionRow[]> {
  return tx<StandardQuestionRow[]>`
    select sq.id, sq.title, sq.question_text as "questionText", sq.question_type_id as "questionTypeId"
    from framework_standard_questions fsq
    join standard_questions sq on sq.id = fsq.standard_question_id
    where fsq.framework_id = ${frameworkId} and not sq.is_price_sensitivity and not sq.is_add_on
    order by sq.display_order, fsq.sort_order, sq.id`;
}

export async function standardQuestions(tx: Tx, ids: number[]): Promise<StandardQuestionRow[]> {
  return tx<StandardQuestionRow[]>`
    select id, title, question_text as "questionText", question_type_id as "questionTypeId"
    from standard_questions where id = any(${ids}::int[]) order by id`;
}

/**
 * Copies a standard question into the project's own questions (with its answer options) and
 * returns the new question's id.
 */
export async function copyStandardQuestion(tx: Tx, clientId: number, projectId: number, sq: StandardQuestionRow, userId: number, opts: { marketReach?: boolean } = {}): Promise<number> {
  const [qr] = await tx<{ id: number }[]>`
    insert into questions (client_id, project_id, question_text, question_title, question_type_id, market_reach_enabled, created_by_user_id)
    values (${clientId}, ${projectId}, ${sq.questionText}, ${sq.title}, ${sq.questionTypeId}, ${opts.marketReach ?? false}, ${userId})
    returning id`;
  await tx`
    insert into question_options (client_id, project_id, question_id, option_text, sort_order, exclusive, is_not_sure, standard_answer_value)
    select ${clientId}, ${projectId}, ${qr!.id}, o.option_text, o.sort_order, o.exclusive, o.is_not_sure, o.standard_answer_value
    from standard_question_options o where o.standard_question_id = ${sq.id}
    order by o.sort_order, o.id`;
  return qr!.id;
}

export interface NewProjectQuestion {
  clientId: number;
  projectId: number;
  questionId: number;
  standardQuestionId: number | null;
  questionPositionId: number;
  sortOrder: number;
  testOptionId: number | null;
  routing: unknown;
}

export async function insertProjectQuestion(tx: Tx, pq: NewProjectQuestion): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into project_questions (client_id, project_id, question_id, standard_question_id, question_position_id, sort_order, test_option_id, routing)
    values (${pq.clientId}, ${pq.projectId}, ${pq.questionId}, ${pq.standardQuestionId}, ${pq.questionPositionId}, ${pq.sortOrder},
            ${pq.testOptionId}, ${pq.routing === null || pq.routing === undefined ? null : jsonParam(tx, pq.routing)})
    returning id`;
  return r!.id;
}

/**
 * The next sortOrder in a position group: positions sharing a sort position (SPEC 9: 7 counts as
 * 1) are one list, so a question added to either goes after both.
 */
export async function nextSortOrder(tx: Tx, projectId: number, positionId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`
    select coalesce(max(pq.sort_order), 0)::int + 1 as n
    from project_questions pq
    join question_positions qp on qp.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null
      and qp.sort_position = (select sort_position from question_positions where id = ${positionId})`;
  return r!.n;
}

// ---- objectives ----

export async function insertObjective(tx: Tx, clientId: number, projectId: number, summary: string, userId: number): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into project_objectives (client_id, project_id, summary, created_by_user_id)
    values (${clientId}, ${projectId}, ${summary}, ${userId}) returning id`;
  return r!.id;
}

export async function setActiveObjective(tx: Tx, projectId: number, objectiveId: number | null): Promise<void> {
  await tx`update projects set active_project_objective_id = ${objectiveId} where id = ${projectId}`;
}

export interface ObjectiveRow {
  id: number;
  projectId: number;
  summary: string;
}

/** An objective of the request's own clients (writes never reach a shared project's). */
export async function ownObjective(tx: Tx, id: number): Promise<ObjectiveRow | undefined> {
  const [r] = await tx<ObjectiveRow[]>`
    select o.id, o.project_id as "projectId", o.summary from project_objectives o
    where o.id = ${id} and (app_all_clients() or o.client_id = any(app_client_ids()))`;
  return r;
}

export async function findObjective(tx: Tx, projectId: number, summary: string): Promise<number | undefined> {
  const [r] = await tx<{ id: number }[]>`
    select id from project_objectives where project_id = ${projectId} and summary = ${summary} order by id limit 1`;
  return r?.id;
}

export async function deleteObjective(tx: Tx, id: number): Promise<void> {
  await tx`delete from project_objectives where id = ${id}`;
}

// ---- targets ----

export interface SystemOptionRow {
  id: number;
  systemQuestionId: number;
  regionId: number | null;
}

export async function systemOptions(tx: Tx, ids: number[]): Promise<SystemOptionRow[]> {
  return tx<SystemOptionRow[]>`
    select id, system_question_id as "systemQuestionId", region_id as "regionId"
    from system_question_option where id = any(${ids}::int[])`;
}

export interface ProjectOptionRow {
  id: number;
  questionId: number;
  questionTypeId: number;
  /** Positions the question is asked at in the project. */
  positions: number[];
}

/** Options of questions asked in the project (not deleted), with where they are asked. */
export async function projectQuestionOptions(tx: Tx, projectId: number, ids: number[]): Promise<ProjectOptionRow[]> {
  return tx<ProjectOptionRow[]>`
    select o.id, o.question_id as "questionId", q.question_type_id as "questionTypeId",
           coalesce(array_agg(distinct pq.question_position_id) filter (where pq.id is not null), '{}') as positions
    from question_options o
    join questions q on q.id = o.question_id and q.deleted_at is null
    left join project_questions pq on pq.question_id = q.id and pq.project_id = ${projectId} and pq.deleted_at is null
    where o.id = any(${ids}::int[]) and q.project_id = ${projectId}
    group by o.id, o.question_id, q.question_type_id`;
}

export interface NewTarget {
  regionId: number | null;
  questionId: number | null;
  systemQuestionOptionId: number | null;
  questionOptionId: number | null;
  quotaPercent: number | null;
  onlyThese: boolean;
}

/** The stored quota and "only these" of each target of a project, by the key changeTargets uses. */
export async function storedQuotas(tx: Tx, projectId: number): Promise<Map<string, { quotaPercent: number | null; onlyThese: boolean }>> {
  const rows = await tx<{ s: number | null; o: number | null; regionId: number | null; quotaPercent: string | null; onlyThese: boolean }[]>`
    select system_question_option_id as s, question_option_id as o, region_id as "regionId", quota_percent as "quotaPercent", only_these as "onlyThese"
    from targets where project_id = ${projectId}`;
  return new Map(
    rows.map((r) => [r.s !== null ? `s:${r.s}:${r.regionId}` : `q:${r.o}:${r.regionId ?? ""}`, { quotaPercent: r.quotaPercent === null ? null : Number(r.quotaPercent), onlyThese: r.onlyThese }]),
  );
}

export async function replaceTargets(tx: Tx, clientId: number, projectId: number, targets: NewTarget[]): Promise<void> {
  await tx`delete from targets where project_id = ${projectId}`;
  for (const t of targets) {
    await tx`
      insert into targets (client_id, project_id, region_id, question_id, system_question_option_id, question_option_id, quota_percent, only_these)
      values (${clientId}, ${projectId}, ${t.regionId}, ${t.questionId}, ${t.systemQuestionOptionId}, ${t.questionOptionId}, ${t.quotaPercent}, ${t.onlyThese})`;
  }
}
