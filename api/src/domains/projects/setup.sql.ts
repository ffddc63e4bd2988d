// SQL of the price sensitivity (Van Westendorp) and market reach (TURF) set-ups of a project
// (tables of migrations 0003 and 0014). Runs in the caller's tenant transaction.
import type { Tx } from "../../db/client.ts";

export interface TestOptionRow {
  id: number;
  conceptText: string;
}

export async function testOptions(tx: Tx, projectId: number): Promise<TestOptionRow[]> {
  return tx<TestOptionRow[]>`
    select id, concept_text as "conceptText" from test_options
    where project_id = ${projectId} and deleted_at is null order by sort_order, id`;
}

export async function projectCurrencies(tx: Tx, projectId: number): Promise<string[]> {
  const rows = await tx<{ c: string }[]>`
    select distinct r.currency_code as c from projects_regions pr join regions r on r.id = pr.region_id
    where pr.project_id = ${projectId} order by 1`;
  return rows.map((r) => r.c);
}

// ---- price sensitivity ----

export interface PriceRow {
  id: number;
  testOptionId: number | null;
  currencyCode: string;
  minPrice: number | null;
  maxPrice: number | null;
  purchaseIntent: boolean;
  purchaseIntentCalibration: number[];
}

export async function priceRows(tx: Tx, projectId: number): Promise<PriceRow[]> {
  return tx<PriceRow[]>`
    select s.id, s.test_option_id as "testOptionId", s.currency_code as "currencyCode", s.min_price::float8 as "minPrice",
           s.max_price::float8 as "maxPrice", s.purchase_intent as "purchaseIntent",
           s.purchase_intent_calibration::float8[] as "purchaseIntentCalibration"
    from project_price_sensitivities s
    left join test_options t on t.id = s.test_option_id
    where s.project_id = ${projectId}
    order by t.sort_order nulls first, s.test_option_id nulls first, s.id`;
}

export interface PriceWrite {
  testOptionId: number;
  currencyCode: string;
  minPrice: number | null;
  maxPrice: number | null;
  purchaseIntent: boolean;
  purchaseIntentCalibration: number[];
}

export async function replacePriceRows(tx: Tx, clientId: number, projectId: number, rows: PriceWrite[]): Promise<void> {
  await tx`delete from project_price_sensitivities where project_id = ${projectId}`;
  for (const r of rows) {
    await tx`
      insert into project_price_sensitivities (client_id, project_id, test_option_id, currency_code, min_price, max_price,
                                               purchase_intent, purchase_intent_calibration)
      values (${clientId}, ${projectId}, ${r.testOptionId}, ${r.currencyCode}, ${r.minPrice}, ${r.maxPrice},
              ${r.purchaseIntent}, ${r.purchaseIntentCalibration}::numeric[])`;
  }
}

export interface StandardPqRow {
  id: number;
  questionId: number;
  standardQuestionId: number;
  testOptionId: number | null;
}

/** The project's project questions of the given standard questions (any test option). */
export async function standardProjectQuestions(tx: Tx, projectId: number, standardIds: number[]): Promise<StandardPqRow[]> {
  return tx<StandardPqRow[]>`
    select id, question_id as "questionId", standard_question_id as "standardQuestionId", test_option_id as "testOptionId"
    from project_questions
    where project_id = ${projectId} and standard_question_id = any(${standardIds}::int[]) and deleted_at is null
    order by id`;
}

/** Removes project questions for good, and their questions when nothing else asks them. */
export async function dropProjectQuestions(tx: Tx, ids: number[]): Promise<void> {
  if (!ids.length) return;
  const rows = await tx<{ questionId: number }[]>`
    delete from project_questions where id = any(${ids}::int[]) returning question_id as "questionId"`;
  const qids = [...new Set(rows.map((r) => r.questionId))];
  if (qids.length) {
    await tx`
      delete from questions q where q.id = any(${qids}::int[])
        and not exists (select 1 from project_questions pq where pq.question_id = q.id)
        and not exists (select 1 from question_templates t where t.question_id = q.id)`;
  }
}

export async function deletePriceRows(tx: Tx, projectId: number): Promise<number> {
  const rows = await tx`delete from project_price_sensitivities where project_id = ${projectId} returning 1`;
  return rows.length;
}

// ---- market reach ----

export interface ReachRow {
  id: number;
  projectId: number;
  reachDepth: number;
  maxCombinationSize: number;
  questionId: number | null;
  projectQuestionId: number | null;
}

export async function reach(tx: Tx, projectId: number): Promise<ReachRow | undefined> {
  const [r] = await tx<ReachRow[]>`
    select id, project_id as "projectId", reach_depth as "reachDepth", max_combination_size as "maxCombinationSize",
           question_id as "questionId", project_question_id as "projectQuestionId"
    from project_market_reach where project_id = ${projectId}`;
  return r;
}

export interface ReachItemRow {
  id: number;
  testOptionId: number | null;
  questionOptionId: number | null;
  answerOptionId: number | null;
  label: string;
  sortOrder: number;
}

export async function reachItems(tx: Tx, reachId: number): Promise<ReachItemRow[]> {
  return tx<ReachItemRow[]>`
    select i.id, i.test_option_id as "testOptionId", i.question_option_id as "questionOptionId", i.answer_option_id as "answerOptionId",
           coalesce(t.concept_text, o.option_text) as label, i.sort_order as "sortOrder"
    from project_market_reach_options i
    left join test_options t on t.id = i.test_option_id
    left join question_options o on o.id = i.question_option_id
    where i.project_market_reach_id = ${reachId}
    order by i.sort_order, i.id`;
}

export async function insertReach(
  tx: Tx,
  r: { clientId: number; projectId: number; reachDepth: number; maxCombinationSize: number; questionId: number | null; projectQuestionId: number | null },
): Promise<number> {
  const [row] = await tx<{ id: number }[]>`
    insert into project_market_reach (client_id, project_id, reach_depth, max_combination_size, question_id, project_question_id)
    values (${r.clientId}, ${r.projectId}, ${r.reachDepth}, ${r.maxCombinationSize}, ${r.questionId}, ${r.projectQuestionId})
    returning id`;
  return row!.id;
}

export async function insertReachItem(
  tx: Tx,
  clientId: number,
  reachId: number,
  item: { testOptionId: number | null; questionOptionId: number | null; answerOptionId: number | null; sortOrder: number },
): Promise<void> {
  await tx`
    insert into project_market_reach_options (client_id, project_market_reach_id, test_option_id, question_option_id, answer_option_id, sort_order)
    values (${clientId}, ${reachId}, ${item.testOptionId}, ${item.questionOptionId}, ${item.answerOptionId}, ${item.sortOrder})`;
}

export async function deleteReach(tx: Tx, id: number): Promise<void> {
  await tx`delete from project_market_reach where id = ${id}`;
}

export async function setMarketReachEnabled(tx: Tx, questionId: number, on: boolean): Promise<void> {
  await tx`update questions set market_reach_enabled = ${on} where id = ${questionId}`;
}

export async function insertAnswerOption(tx: Tx, clientId: number, projectId: number, questionId: number, text: string, sortOrder: number, exclusive = false): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into question_options (client_id, project_id, question_id, option_text, sort_order, exclusive)
    values (${clientId}, ${projectId}, ${questionId}, ${text}, ${sortOrder}, ${exclusive}) returning id`;
  return r!.id;
}

export interface ChoiceQuestionRow {
  id: number;
  questionTypeId: number;
  optionIds: number[];
  /** Its "none" answers: exclusive options, or options reading none (of these / the above / them). */
  noneOptionIds: number[];
}

/** An option text that means "none of these" (a POSIX regular expression, case-insensitive). */
export const NONE_TEXT = "^[[:space:]]*none([[:space:]]+of[[:space:]]+(these|the[[:space:]]+above|them))?[[:space:]]*[.!]?[[:space:]]*$";

/** A question asked in the project (not deleted), with its option ids. */
export async function projectQuestion(tx: Tx, projectId: number, questionId: number): Promise<ChoiceQuestionRow | undefined> {
  const [r] = await tx<ChoiceQuestionRow[]>`
    select q.id, q.question_type_id as "questionTypeId",
           coalesce((select array_agg(o.id order by o.sort_order, o.id) from question_options o where o.question_id = q.id), '{}') as "optionIds",
           coalesce((select array_agg(o.id order by o.sort_order, o.id) from question_options o where o.question_id = q.id
                       and (o.exclusive or o.option_text ~* ${NONE_TEXT})), '{}') as "noneOptionIds"
    from questions q
    where q.id = ${questionId} and q.project_id = ${projectId} and q.deleted_at is null
      and exists (select 1 from project_questions pq where pq.question_id = q.id and pq.deleted_at is null)`;
  return r;
}
