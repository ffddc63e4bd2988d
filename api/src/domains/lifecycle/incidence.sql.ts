// SQL of the incidence estimate (IncidenceEstimate) and the screener incidence document
// (GenerateQuestionIr): a project's targets, census margins, and shares from past answers the
// request may see.
import type { Tx } from "../../db/client.ts";

export interface RegionSample {
  regionId: number;
  regionName: string;
  sampleSize: number;
  isCustomerPanel: boolean;
}

export async function regionsOf(tx: Tx, projectId: number): Promise<RegionSample[]> {
  return tx<RegionSample[]>`
    select pr.region_id as "regionId", r.region_name as "regionName", pr.sample_size as "sampleSize", pr.is_customer_panel as "isCustomerPanel"
    from projects_regions pr join regions r on r.id = pr.region_id
    where pr.project_id = ${projectId} order by r.sort_order, pr.region_id`;
}

export interface DemographicTarget {
  /** The region the target applies in (null: every region of the project). */
  regionId: number | null;
  optionId: number;
  systemQuestionId: number;
  /** The option's own region (null: an option of every region). */
  optionRegionId: number | null;
}

export async function demographicTargets(tx: Tx, projectId: number): Promise<DemographicTarget[]> {
  return tx<DemographicTarget[]>`
    select t.region_id as "regionId", o.id as "optionId", o.system_question_id as "systemQuestionId", o.region_id as "optionRegionId"
    from targets t join system_question_option o on o.id = t.system_question_option_id
    where t.project_id = ${projectId}
      -- A group with quotas and not "only these" is open to every answer: it screens nobody out.
      and o.system_question_id not in (
        select o2.system_question_id from targets t2 join system_question_option o2 on o2.id = t2.system_question_option_id
        where t2.project_id = ${projectId}
        group by o2.system_question_id having bool_or(t2.quota_percent is not null) and not bool_or(t2.only_these))
    order by o.system_question_id, o.id`;
}

/** Census shares of options per region (reference data). */
export async function censusShares(tx: Tx, optionIds: number[]): Promise<{ regionId: number; optionId: number; share: number }[]> {
  if (!optionIds.length) return [];
  return tx`
    select region_id as "regionId", system_question_option_id as "optionId", share::float8 as share
    from census_margins where system_question_option_id = any(${optionIds}::int[])`;
}

/**
 * Past answers to system questions in the regions, as far as the request sees them (its own
 * clients' respondents): respondents per (region, question) and per option.
 */
export async function systemAnswerCounts(tx: Tx, questionIds: number[], regionIds: number[]): Promise<{ regionId: number; systemQuestionId: number; optionId: number | null; respondents: number }[]> {
  if (!questionIds.length || !regionIds.length) return [];
  return tx`
    select region_id as "regionId", system_question_id as "systemQuestionId", system_question_option_id as "optionId",
           count(distinct survey_session_id)::int as respondents
    from responses
    where system_question_id = any(${questionIds}::int[]) and region_id = any(${regionIds}::int[])
    group by grouping sets ((region_id, system_question_id, system_question_option_id), (region_id, system_question_id))`;
}

/** How many visible options a system question offers in a region (the uniform prior). */
export async function systemOptionCounts(tx: Tx, questionIds: number[]): Promise<{ systemQuestionId: number; regionId: number | null; options: number }[]> {
  if (!questionIds.length) return [];
  return tx`
    select system_question_id as "systemQuestionId", region_id as "regionId", count(*)::int as options
    from system_question_option where system_question_id = any(${questionIds}::int[]) and is_visible
    group by system_question_id, region_id`;
}

export interface ScreenerQuestion {
  projectQuestionId: number | null;
  questionId: number;
  questionText: string;
  questionTitle: string | null;
  questionPositionId: number | null;
  questionTypeId: number;
  options: number;
  targetedOptionIds: number[];
}

/**
 * The project's screening questions (the Audience positions 1 Screener, 4 Awareness, 7 BeforeLoop)
 * and any other question a target names, with their option counts and targeted options.
 */
export async function screenerQuestions(tx: Tx, projectId: number): Promise<ScreenerQuestion[]> {
  return tx<ScreenerQuestion[]>`
    with targeted as (
      select t.question_id, array_agg(distinct t.question_option_id order by t.question_option_id) as ids
      from targets t where t.project_id = ${projectId} and t.question_option_id is not null and t.question_id is not null
      group by t.question_id
      having not (bool_or(t.quota_percent is not null) and not bool_or(t.only_these))
    ), qs as (
      select pq.id as pq_id, pq.question_id, pq.question_position_id, pq.question_position_id * 1000000 + pq.sort_order as ord
      from project_questions pq
      where pq.project_id = ${projectId} and pq.deleted_at is null and pq.question_position_id in (1, 4, 7)
      union all
      select null, t.question_id, null, 999999999 from targeted t
      where not exists (select 1 from project_questions pq where pq.project_id = ${projectId} and pq.deleted_at is null
                          and pq.question_position_id in (1, 4, 7) and pq.question_id = t.question_id)
    )
    select qs.pq_id as "projectQuestionId", q.id as "questionId", q.question_text as "questionText",
           q.question_title as "questionTitle", qs.question_position_id as "questionPositionId",
           q.question_type_id as "questionTypeId",
           (select count(*) from question_options o where o.question_id = q.id)::int as options,
           coalesce(t.ids, '{}') as "targetedOptionIds"
    from qs join questions q on q.id = qs.question_id
    left join targeted t on t.question_id = q.id
    order by qs.ord, q.id`;
}

/** Respondents who answered a question, and those who gave one of the options, from past answers. */
export async function questionAnswerCounts(tx: Tx, questionId: number, optionIds: number[]): Promise<{ answered: number; qualified: number }> {
  const [r] = await tx<{ answered: number; qualified: number }[]>`
    select count(distinct survey_session_id)::int as answered,
           count(distinct survey_session_id) filter (where question_option_id = any(${optionIds}::int[]))::int as qualified
    from responses where question_id = ${questionId}`;
  return r ?? { answered: 0, qualified: 0 };
}
