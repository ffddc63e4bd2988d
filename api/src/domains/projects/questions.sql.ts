// SQL of questions, their options and their places in projects (project questions). Runs in the
// caller's tenant transaction; writes name the request's own clients (`own`) themselves.
import type { Tx } from "../../db/client.ts";
import { jsonParam } from "../../db/params.ts";

export interface QuestionRow {
  id: number;
  clientId: number;
  projectId: number | null;
  questionTypeId: number;
  /** The standard question this project question copies, if any. */
  standardQuestionId: number | null;
  projectQuestionIds: number[];
}

/** A question of the request's own clients, not in the trash, with its project questions. */
export async function ownQuestion(tx: Tx, id: number): Promise<QuestionRow | undefined> {
  const [r] = await tx<QuestionRow[]>`
    select q.id, q.client_id as "clientId", q.project_id as "projectId", q.question_type_id as "questionTypeId",
           (select max(pq.standard_question_id) from project_questions pq where pq.question_id = q.id) as "standardQuestionId",
           coalesce((select array_agg(pq.id order by pq.id) from project_questions pq
                     where pq.question_id = q.id and pq.deleted_at is null), '{}') as "projectQuestionIds"
    from questions q
    where q.id = ${id} and q.deleted_at is null and (app_all_clients() or q.client_id = any(app_client_ids()))`;
  return r;
}

export interface NewQuestion {
  clientId: number;
  projectId: number | null;
  questionText: string;
  questionTitle: string | null;
  questionTypeId: number;
  randomizeOptions: boolean;
  minChoices: number | null;
  maxChoices: number | null;
  s3File: unknown;
  marketReachEnabled: boolean;
  userId: number;
}

export async function insertQuestion(tx: Tx, x: NewQuestion): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into questions (client_id, project_id, question_text, question_title, question_type_id, randomize_options,
                           min_choices, max_choices, s3_file, market_reach_enabled, created_by_user_id)
    values (${x.clientId}, ${x.projectId}, ${x.questionText}, ${x.questionTitle}, ${x.questionTypeId}, ${x.randomizeOptions},
            ${x.minChoices}, ${x.maxChoices}, ${x.s3File == null ? null : jsonParam(tx, x.s3File)}, ${x.marketReachEnabled}, ${x.userId})
    returning id`;
  return r!.id;
}

export interface QuestionPatch {
  questionText?: string;
  questionTitle?: string | null;
  questionTypeId?: number;
  randomizeOptions?: boolean;
  minChoices?: number | null;
  maxChoices?: number | null;
  s3File?: unknown;
}

const QUESTION_COLUMNS: Record<keyof QuestionPatch, string> = {
  questionText: "question_text",
  questionTitle: "question_title",
  questionTypeId: "question_type_id",
  randomizeOptions: "randomize_options",
  minChoices: "min_choices",
  maxChoices: "max_choices",
  s3File: "s3_file",
};

export async function updateQuestion(tx: Tx, id: number, patch: QuestionPatch): Promise<void> {
  const row: Record<string, unknown> = {};
  for (const [k, col] of Object.entries(QUESTION_COLUMNS)) {
    const v = patch[k as keyof QuestionPatch];
    if (v === undefined) continue;
    row[col] = k === "s3File" && v !== null ? jsonParam(tx, v) : v;
  }
  if (!Object.keys(row).length) return;
  // sql(row): postgres.js writes `column = $n` for each key (the fixed names above).
  await tx`update questions set ${tx(row)} where id = ${id}`;
}

export interface OptionRow {
  id: number;
  optionText: string;
  sortOrder: number;
  exclusive: boolean;
  isOther: boolean;
  isNotSure: boolean;
  standardAnswerValue: number | null;
}

export async function options(tx: Tx, questionId: number): Promise<OptionRow[]> {
  return tx<OptionRow[]>`
    select id, option_text as "optionText", sort_order as "sortOrder", exclusive, is_other as "isOther",
           is_not_sure as "isNotSure", standard_answer_value as "standardAnswerValue"
    from question_options where question_id = ${questionId} order by sort_order, id`;
}

export interface OptionWrite {
  optionText: string;
  sortOrder: number;
  exclusive: boolean;
  isOther: boolean;
  isNotSure: boolean;
}

export async function insertOption(tx: Tx, clientId: number, projectId: number | null, questionId: number, o: OptionWrite): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into question_options (client_id, project_id, question_id, option_text, sort_order, exclusive, is_other, is_not_sure)
    values (${clientId}, ${projectId}, ${questionId}, ${o.optionText}, ${o.sortOrder}, ${o.exclusive}, ${o.isOther}, ${o.isNotSure})
    returning id`;
  return r!.id;
}

export async function updateOption(tx: Tx, id: number, o: OptionWrite): Promise<void> {
  await tx`
    update question_options set option_text = ${o.optionText}, sort_order = ${o.sortOrder}, exclusive = ${o.exclusive},
                                is_other = ${o.isOther}, is_not_sure = ${o.isNotSure}
    where id = ${id}`;
}

export async function deleteOptions(tx: Tx, ids: number[]): Promise<void> {
  if (ids.length) await tx`delete from question_options where id = any(${ids}::int[])`;
}

export async function testOptionOf(tx: Tx, projectId: number, testOptionId: number): Promise<boolean> {
  const [r] = await tx`select 1 from test_options where id = ${testOptionId} and project_id = ${projectId} and deleted_at is null`;
  return !!r;
}

export interface RoutingTargetRow {
  id: number;
  optionIds: number[];
}

/** Project questions of the project (not deleted) with their questions' option ids. */
export async function routingTargets(tx: Tx, projectId: number, ids: number[]): Promise<RoutingTargetRow[]> {
  return tx<RoutingTargetRow[]>`
    select pq.id, coalesce((select array_agg(o.id) from question_options o where o.question_id = pq.question_id), '{}') as "optionIds"
    from project_questions pq
    where pq.id = any(${ids}::int[]) and pq.project_id = ${projectId} and pq.deleted_at is null`;
}

export async function updateProjectQuestions(tx: Tx, ids: number[], patch: { questionPositionId?: number; sortOrder?: number; testOptionId?: number | null; routing?: unknown }): Promise<void> {
  const row: Record<string, unknown> = {};
  if (patch.questionPositionId !== undefined) row.question_position_id = patch.questionPositionId;
  if (patch.sortOrder !== undefined) row.sort_order = patch.sortOrder;
  if (patch.testOptionId !== undefined) row.test_option_id = patch.testOptionId;
  if (patch.routing !== undefined) row.routing = patch.routing === null ? null : jsonParam(tx, patch.routing);
  if (!Object.keys(row).length || !ids.length) return;
  await tx`update project_questions set ${tx(row)} where id = any(${ids}::int[])`;
}

export interface GroupRow {
  id: number;
  questionPositionId: number;
  sortPosition: number;
  sortOrder: number;
}

/** The project's (not deleted) project questions with their position's sort position. */
export async function projectQuestionGroup(tx: Tx, projectId: number): Promise<GroupRow[]> {
  return tx<GroupRow[]>`
    select pq.id, pq.question_position_id as "questionPositionId", qp.sort_position as "sortPosition", pq.sort_order as "sortOrder"
    from project_questions pq join question_positions qp on qp.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null
    order by qp.sort_position, pq.sort_order, pq.id`;
}

export async function setSortOrders(tx: Tx, ids: number[]): Promise<void> {
  await tx`
    update project_questions pq set sort_order = x.n
    from unnest(${ids}::int[]) with ordinality as x(id, n)
    where pq.id = x.id and pq.sort_order is distinct from x.n::int`;
}

export interface SortedRow {
  id: number;
  questionId: number;
  questionPositionId: number;
  sortOrder: number;
  sortKey: number;
}

/** SPEC 9's question list: sort key = sort position (7 counts as 1) x 1,000,000 + sortOrder. */
export async function questionList(tx: Tx, projectId: number, sortPosition?: number): Promise<SortedRow[]> {
  return tx<SortedRow[]>`
    select pq.id, pq.question_id as "questionId", pq.question_position_id as "questionPositionId", pq.sort_order as "sortOrder",
           (qp.sort_position::bigint * 1000000 + pq.sort_order)::float8 as "sortKey"
    from project_questions pq join question_positions qp on qp.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null
      and (${sortPosition ?? null}::int is null or qp.sort_position = ${sortPosition ?? null}::int)
    order by 5, pq.id`;
}

export async function positionExists(tx: Tx, id: number): Promise<boolean> {
  const [r] = await tx`select 1 from question_positions where id = ${id}`;
  return !!r;
}

// ---- templates ----

export async function trashTemplateQuestion(tx: Tx, questionId: number): Promise<void> {
  await tx`update question_templates set deleted_at = now() where question_id = ${questionId} and deleted_at is null`;
  await tx`update questions set deleted_at = now() where id = ${questionId}`;
}

/** The org's (and enterprise's) template questions above the client, as JSON (migration 0014). */
/** A template question above a client, as app_org_template_questions builds it (schemas.ts OrgTemplate). */
export interface OrgTemplateRow {
  id: number;
  clientId: number;
  clientName: string;
  clientTier: string;
  name: string;
  description: string | null;
  questionPositionId: number | null;
  questionId: number;
  question: {
    id: number;
    questionText: string;
    questionTitle: string | null;
    questionTypeId: number;
    randomizeOptions: boolean;
    minChoices: number | null;
    maxChoices: number | null;
    s3File: unknown;
    questionOptions: { id: number; optionText: string; sortOrder: number; exclusive: boolean; isOther: boolean; isNotSure: boolean }[];
  };
}

export async function orgTemplates(tx: Tx, clientId: number, questionId: number | null): Promise<OrgTemplateRow[]> {
  const [r] = await tx<{ v: OrgTemplateRow[] }[]>`select app_org_template_questions(${clientId}, ${questionId}::int) as v`;
  return r!.v;
}

// ---- targeting ----

export interface SystemQuestionRow {
  id: number;
  questionLabel: string;
  questionCode: string;
  questionText: string;
  options: { id: number; answerLabel: string; filterSubtext: string | null; regionId: number | null }[];
}

/** System questions with their visible options for the regions (or every region). */
export async function systemQuestionsFor(tx: Tx, regionIds: number[]): Promise<SystemQuestionRow[]> {
  return tx<SystemQuestionRow[]>`
    select sq.id, sq.question_label as "questionLabel", sq.question_code as "questionCode", sq.question_text as "questionText",
           json_agg(json_build_object('id', o.id, 'answerLabel', o.answer_label, 'filterSubtext', o.filter_subtext, 'regionId', o.region_id)
                    order by o.region_id nulls first, o.sort_order, o.id) as options
    from system_question sq
    join system_question_option o on o.system_question_id = sq.id and o.is_visible
    where o.region_id is null or o.region_id = any(${regionIds}::int[])
    group by sq.id
    order by sq.sort_order, sq.id`;
}

export async function panelCounts(
  tx: Tx,
  clientId: number,
  regionIds: number[],
  filterIds: number[],
  from: string | null,
  to: string | null,
  customerPanel: boolean | null,
): Promise<Map<number, number>> {
  const rows = await tx<{ id: number; n: number }[]>`
    select system_question_option_id as id, respondents as n
    from app_panel_option_counts(${clientId}, ${regionIds}::int[], ${filterIds}::int[], ${from}::timestamptz, ${to}::timestamptz, ${customerPanel}::boolean)`;
  return new Map(rows.map((r) => [r.id, r.n]));
}

export interface ScreenerRow {
  projectQuestionId: number;
  questionPositionId: number;
  sortOrder: number;
  questionId: number;
  questionText: string;
  questionTitle: string | null;
  questionTypeId: number;
  options: { id: number; optionText: string; exclusive: boolean; count: number }[];
}

/**
 * The project's choice questions at the positions, with each option's respondents: past sessions
 * of the client's own responses in the regions that chose it (row-level security keeps it to the
 * request's clients).
 */
export async function screenerQuestions(tx: Tx, projectId: number, positions: number[], regionIds: number[], from: string | null, to: string | null): Promise<ScreenerRow[]> {
  return tx<ScreenerRow[]>`
    select pq.id as "projectQuestionId", pq.question_position_id as "questionPositionId", pq.sort_order as "sortOrder",
           q.id as "questionId", q.question_text as "questionText", q.question_title as "questionTitle", q.question_type_id as "questionTypeId",
           coalesce((
             select json_agg(json_build_object('id', o.id, 'optionText', o.option_text, 'exclusive', o.exclusive,
                    'count', (select count(distinct r.survey_session_id)::int from responses r
                              where r.question_option_id = o.id and r.region_id = any(${regionIds}::int[])
                                and (${from}::timestamptz is null or r.created_at >= ${from}::timestamptz)
                                and (${to}::timestamptz is null or r.created_at <= ${to}::timestamptz)))
                    order by o.sort_order, o.id)
             from question_options o where o.question_id = q.id), '[]') as options
    from project_questions pq
    join questions q on q.id = pq.question_id and q.deleted_at is null
    join question_positions qp on qp.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null and pq.question_position_id = any(${positions}::int[])
      and q.question_type_id <> 3
    order by qp.sort_position, pq.sort_order, pq.id`;
}

export interface CurrentTarget {
  systemQuestionOptionId: number | null;
  questionOptionId: number | null;
}

export async function currentTargets(tx: Tx, projectId: number): Promise<CurrentTarget[]> {
  return tx<CurrentTarget[]>`
    select system_question_option_id as "systemQuestionOptionId", question_option_id as "questionOptionId"
    from targets where project_id = ${projectId}`;
}

// ---- test options (SuperAdminUpdate; the generic routes write the rest) ----

export async function ownTestOption(tx: Tx, id: number): Promise<{ id: number; clientId: number; projectId: number } | undefined> {
  const [r] = await tx<{ id: number; clientId: number; projectId: number }[]>`
    select id, client_id as "clientId", project_id as "projectId" from test_options
    where id = ${id} and deleted_at is null and (app_all_clients() or client_id = any(app_client_ids()))`;
  return r;
}

export async function updateTestOption(tx: Tx, id: number, patch: { conceptText?: string; conceptDescription?: string | null; file?: unknown; sortOrder?: number }): Promise<void> {
  const row: Record<string, unknown> = {};
  if (patch.conceptText !== undefined) row.concept_text = patch.conceptText;
  if (patch.conceptDescription !== undefined) row.concept_description = patch.conceptDescription;
  if (patch.file !== undefined) row.file = patch.file === null ? null : jsonParam(tx, patch.file);
  if (patch.sortOrder !== undefined) row.sort_order = patch.sortOrder;
  if (!Object.keys(row).length) return;
  await tx`update test_options set ${tx(row)} where id = ${id}`;
}
