// The results domain's SQL: aggregates over a project's filtered respondents (filters.ts), grouped
// in PostgreSQL so only sums leave the database (counts, Σw, Σw², Σw·[top 2]).
import type { Tx } from "../../db/client.ts";
import { sessionsSql, testOptionSql, type ResolvedFilter } from "./filters.ts";

export interface ProjectHead {
  id: number;
  clientId: number;
  projectTypeId: number;
  frameworkId: number | null;
  statusCode: number;
  productType: string | null;
  categoryId: number | null;
  launchDate: string | null;
  /** The version of the project's results data (migration 0029); "0" before any response. */
  resultsVersion: string;
}

export async function project(tx: Tx, id: number): Promise<ProjectHead | undefined> {
  const [p] = await tx<ProjectHead[]>`
    select id, client_id as "clientId", project_type_id as "projectTypeId", framework_id as "frameworkId", status_code as "statusCode",
           product_type as "productType", category_id as "categoryId", launch_date::text as "launchDate",
           coalesce((select v.version::text from results_versions v where v.project_id = projects.id), '0') as "resultsVersion"
    from projects where id = ${id} and deleted_at is null`;
  return p;
}

export interface CountRow {
  testOptionId: number | null;
  week: string | null;
  count: number;
  weight: number;
}

/**
 * Respondents per test option seen, and per week (NPD: week since launch; else the week's Monday).
 * One left join of the respondents to their test-option rows: a respondent with none gets one row
 * with a null option. (A `not exists` anti-join here was planned as a nested loop re-run per
 * respondent when the filters made the planner expect one respondent: 4-27 s on 200,000 rows.)
 */
export async function countsByOptionAndWeek(tx: Tx, projectId: number, f: ResolvedFilter): Promise<CountRow[]> {
  return tx<CountRow[]>`
    with s as (${sessionsSql(tx, projectId, f)}),
    seen as (
      select distinct s.sid, s.w, coalesce(s.week::text, to_char(date_trunc('week', s.completed_at at time zone 'UTC'), 'YYYY-MM-DD')) as week, r.test_option_id
      from s left join responses r on r.project_id = ${projectId} and r.survey_session_id = s.sid and r.test_option_id is not null
    )
    select test_option_id as "testOptionId", week, count(*)::int as count, sum(w)::float8 as weight
    from seen
    ${f.testOptionIds ? tx`where test_option_id is null or test_option_id = any(${f.testOptionIds}::int[])` : tx``}
    group by 1, 2 order by 1 nulls first, 2`;
}

export async function stdQuestionCounts(tx: Tx, projectId: number, f: ResolvedFilter) {
  return tx<{ testOptionId: number | null; standardQuestionId: number; count: number }[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select r.test_option_id as "testOptionId", r.standard_question_id as "standardQuestionId", count(distinct r.survey_session_id)::int as count
    from responses r join s on s.sid = r.survey_session_id
    where r.project_id = ${projectId} and r.standard_question_id is not null ${testOptionSql(tx, f, "r.test_option_id")}
      -- "Not sure" is not an answer: the measure's respondents are its top-2-box base.
      and not exists (select 1 from question_options o where o.id = r.question_option_id and o.project_id = ${projectId} and o.is_not_sure)
    group by 1, 2 order by 1, 2`;
}

export interface WeightRow {
  regionId: number;
  count: number;
  sumW: number;
  sumW2: number;
}

export async function weightSums(tx: Tx, projectId: number, f: ResolvedFilter): Promise<WeightRow[]> {
  return tx<WeightRow[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select region_id as "regionId", count(*)::int as count, sum(w)::float8 as "sumW", sum(w * w)::float8 as "sumW2"
    from s group by 1 order by 1`;
}

export interface ScaleRow {
  standardQuestionId: number;
  testOptionId: number | null;
  value: number;
  n: number;
  sumW: number;
  sumW2: number;
}

/** Weighted answers on the 4-point scale per standard question, test option and answer value. */
export async function scaleAnswers(tx: Tx, projectId: number, f: ResolvedFilter, standardQuestionIds: number[] | null): Promise<ScaleRow[]> {
  return tx<ScaleRow[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select r.standard_question_id as "standardQuestionId", r.test_option_id as "testOptionId", r.standard_answer_value as value,
           count(*)::int as n, sum(s.w)::float8 as "sumW", sum(s.w * s.w)::float8 as "sumW2"
    from responses r join s on s.sid = r.survey_session_id
    where r.project_id = ${projectId} and r.standard_question_id is not null and r.standard_answer_value is not null
      ${standardQuestionIds ? tx`and r.standard_question_id = any(${standardQuestionIds}::int[])` : tx``}
      ${testOptionSql(tx, f, "r.test_option_id")}
    group by 1, 2, 3 order by 1, 2 nulls first, 3`;
}

export interface OptionRow {
  testOptionId: number | null;
  questionOptionId: number;
  n: number;
  sumW: number;
}

/** A question's chosen options per test option, with the base (respondents who answered). */
export async function optionAnswers(tx: Tx, projectId: number, f: ResolvedFilter, questionId: number) {
  const rows = await tx<OptionRow[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select r.test_option_id as "testOptionId", r.question_option_id as "questionOptionId", count(*)::int as n, sum(s.w)::float8 as "sumW"
    from responses r join s on s.sid = r.survey_session_id
    where r.project_id = ${projectId} and r.question_id = ${questionId} and r.question_option_id is not null ${testOptionSql(tx, f, "r.test_option_id")}
    group by 1, 2 order by 1 nulls first, 2`;
  const bases = await tx<{ testOptionId: number | null; n: number; sumW: number; sumW2: number }[]>`
    with s as (${sessionsSql(tx, projectId, f)}),
    a as (select distinct r.survey_session_id as sid, r.test_option_id from responses r join s on s.sid = r.survey_session_id
          where r.project_id = ${projectId} and r.question_id = ${questionId} ${testOptionSql(tx, f, "r.test_option_id")})
    select a.test_option_id as "testOptionId", count(*)::int as n, sum(s.w)::float8 as "sumW", sum(s.w * s.w)::float8 as "sumW2"
    from a join s on s.sid = a.sid group by 1 order by 1 nulls first`;
  return { rows, bases };
}

export async function projectQuestion(tx: Tx, projectId: number, projectQuestionId: number) {
  const [q] = await tx<
    {
      id: number;
      questionId: number;
      standardQuestionId: number | null;
      questionTypeId: number;
      questionText: string;
      questionTitle: string | null;
      options: { id: number; text: string; isNotSure: boolean; standardAnswerValue: number | null }[];
    }[]
  >`
    select pq.id, pq.question_id as "questionId", pq.standard_question_id as "standardQuestionId", q.question_type_id as "questionTypeId",
           q.question_text as "questionText", q.question_title as "questionTitle",
           coalesce((select json_agg(json_build_object('id', o.id, 'text', o.option_text, 'isNotSure', o.is_not_sure, 'standardAnswerValue', o.standard_answer_value) order by o.sort_order, o.id)
                     from question_options o where o.question_id = q.id), '[]') as options
    from project_questions pq join questions q on q.id = pq.question_id
    where pq.project_id = ${projectId} and pq.id = ${projectQuestionId} and pq.deleted_at is null`;
  return q;
}

export async function demographics(tx: Tx, projectId: number, f: ResolvedFilter) {
  return tx<{ systemQuestionId: number; optionId: number; n: number; sumW: number }[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select r.system_question_id as "systemQuestionId", r.system_question_option_id as "optionId", count(*)::int as n, sum(s.w)::float8 as "sumW"
    from responses r join s on s.sid = r.survey_session_id
    where r.project_id = ${projectId} and r.system_question_option_id is not null
    group by 1, 2 order by 1, 2`;
}

export async function systemQuestions(tx: Tx) {
  return tx<{ id: number; label: string; code: string; options: { id: number; label: string }[] }[]>`
    select sq.id, sq.question_label as label, sq.question_code as code,
           coalesce(json_agg(json_build_object('id', o.id, 'label', o.answer_label) order by o.sort_order, o.id) filter (where o.id is not null), '[]') as options
    from system_question sq left join system_question_option o on o.system_question_id = sq.id
    group by sq.id order by sq.sort_order, sq.id`;
}

export async function testOptions(tx: Tx, projectId: number) {
  return tx<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId} and deleted_at is null order by sort_order, id`;
}

export async function standardQuestions(tx: Tx, ids: number[] | null) {
  return tx<{ id: number; title: string; questionText: string; description: string | null; displayOrder: number; isScaled: boolean; isPriceSensitivity: boolean; isAddOn: boolean }[]>`
    select id, title, question_text as "questionText", description, display_order as "displayOrder", is_scaled as "isScaled",
           is_price_sensitivity as "isPriceSensitivity", is_add_on as "isAddOn"
    from standard_questions ${ids ? tx`where id = any(${ids}::int[])` : tx``} order by display_order, id`;
}

/** The measures' titles, in display order (what a results view names its measures by). */
export async function standardQuestionTitles(tx: Tx) {
  return tx<{ id: number; title: string }[]>`select id, title from standard_questions order by display_order, id`;
}

export async function frameworkQuestions(tx: Tx, frameworkId: number) {
  return tx<{ id: number }[]>`select standard_question_id as id from framework_standard_questions where framework_id = ${frameworkId} order by sort_order`;
}

export async function benchmarkTypes(tx: Tx) {
  return tx<{ id: number; name: string; description: string; minWeek: number | null; maxWeek: number | null }[]>`
    select id, name, description, min_week as "minWeek", max_week as "maxWeek" from benchmark_types order by id`;
}

/** One benchmark type's week band (NPD launch weeks), if the type exists. */
export async function benchmarkType(tx: Tx, id: number) {
  const [t] = await tx<{ id: number; minWeek: number | null; maxWeek: number | null }[]>`select id, min_week as "minWeek", max_week as "maxWeek" from benchmark_types where id = ${id}`;
  return t;
}

/** The norms' epoch (migration 0044): moves with every change a norm reads. */
export async function normsEpoch(tx: Tx): Promise<string> {
  const [r] = await tx<{ e: string }[]>`select app_norms_epoch()::text as e`;
  return r!.e;
}

export interface NormRow {
  standardQuestionId: number;
  projectCount: number;
  top2: number;
  respondents: number;
  /** Each comparable project's top-2-box, ascending (for the between-project SD and quintiles; never leaves the API). */
  scores: number[];
}

/**
 * A norm: over comparable completed projects (not this one), each project's weighted top-2-box per
 * standard question, averaged across projects (each past test counts once), with their respondents
 * and the projects' scores (the norm as a distribution). Runs above the tenant (benchmarks read
 * every client's results): the scores stay inside the API, which answers their mean, SD and count.
 */
export async function norms(
  tx: Tx,
  p: { id: number; clientId: number; productType: string | null; categoryId: number | null },
  kind: { type: number; minWeek: number | null; maxWeek: number | null },
  regionIds: number[] | null,
): Promise<NormRow[]> {
  const scope =
    kind.type === 2
      ? tx`and q.client_id = ${p.clientId}`
      : kind.type === 3
        ? p.productType
          ? tx`and q.product_type = ${p.productType}`
          : tx`and false`
        : kind.type === 8
          ? p.categoryId !== null
            ? tx`and q.category_id = ${p.categoryId}`
            : tx`and false`
          : kind.type === 10
            ? p.categoryId !== null
              ? tx`and q.category_id in (select c.id from categories c where c.parent_id = (select parent_id from categories where id = ${p.categoryId}) or c.id = (select parent_id from categories where id = ${p.categoryId}))`
              : tx`and false`
            : kind.minWeek !== null || kind.maxWeek !== null
              ? tx`and q.project_type_id = 4`
              : tx``;
  const weeks = kind.minWeek !== null || kind.maxWeek !== null ? tx`and nc.week between ${kind.minWeek ?? 1} and ${kind.maxWeek ?? 100000}` : tx``;
  // From the norms' rollup (norms.ts, migration 0030): a session is in one region and one week,
  // so its cells' respondents add up to the project's distinct respondents.
  return tx<NormRow[]>`
    with per as (
      select nc.project_id, nc.standard_question_id, sum(nc.sum_w_top2) / nullif(sum(nc.sum_w), 0) as t2b, sum(nc.respondents) as n
      from projects q
      join norm_cells nc on nc.project_id = q.id
      where q.id <> ${p.id} and q.deleted_at is null and q.status_code >= 800 and q.status_code <> 950
        ${regionIds ? tx`and nc.region_id = any(${regionIds}::int[])` : tx``}
        ${scope} ${weeks}
      group by 1, 2
    )
    select standard_question_id as "standardQuestionId", count(*)::int as "projectCount", avg(t2b)::float8 as top2, sum(n)::int as respondents,
           array_agg(t2b::float8 order by t2b) as scores
    from per where t2b is not null group by 1 order by 1`;
}

export async function regionCodes(tx: Tx, ids: number[]) {
  return tx<{ id: number; code: string }[]>`select id, region_code as code from regions where id = any(${ids}::int[]) order by id`;
}

export async function projectRegions(tx: Tx, projectId: number) {
  return (await tx<{ regionId: number }[]>`select region_id as "regionId" from projects_regions where project_id = ${projectId} order by region_id`).map((r) => r.regionId);
}

export async function latestWeek(tx: Tx, projectId: number) {
  const [r] = await tx<{ w: number | null }[]>`select max(week) as w from project_survey_sessions where project_id = ${projectId}`;
  return r?.w ?? null;
}

/**
 * The design-based variance's sums (analytics/design.ts): per market run (stratum),
 * standard question and pair of test options (a, b; a = b the option itself) over the filtered
 * respondents who answered both on the 4-point scale, with y = [answer <= 2]:
 * nn respondents, aa = Σw²·y_a·y_b, ab = Σw²·y_a, bb = Σw², and on the diagonal sA = Σw·y, sB = Σw.
 */
export interface DesignCell {
  run: number;
  standardQuestionId: number;
  a: number | null;
  b: number | null;
  nn: number;
  aa: number;
  ab: number;
  bb: number;
  sA: number;
  sB: number;
}

/**
 * The pairs of one respondent's answers to one standard question, made within the respondent: each
 * respondent's (option, y) as arrays, unnested twice. A self-join of the answers on (respondent,
 * question) did the same, but on a database without statistics (a fresh demo, a test copy before
 * autovacuum's first analyze) the planner estimated one row per side and joined them in a nested
 * loop: about 25 million comparisons for 200 respondents of five options, 4 s on a quiet machine and
 * a statement timeout (503) under load. Unnesting needs no join, so no plan can make it quadratic in
 * the respondents (tests/api/design-cells-plan.test.ts). Reads y (sid, w, run, sq, o, y, and wave with
 * `waves`: analysis.service.ts's waves, whose domain is (wave, option)).
 */
export const pairsPerRespondent = (tx: Tx, opts: { waves?: boolean } = {}) =>
  tx`g as (select y.sid, y.w, y.run, y.sq, ${opts.waves ? tx`array_agg(y.wave) as ws, ` : tx``}array_agg(y.o) as os, array_agg(y.y) as ys from y group by 1, 2, 3, 4)`;

export async function designCells(tx: Tx, projectId: number, f: ResolvedFilter, standardQuestionIds: number[] | null): Promise<DesignCell[]> {
  return tx<DesignCell[]>`
    with s as (${sessionsSql(tx, projectId, f)}),
    y as (
      select r.survey_session_id as sid, s.w, coalesce(s.survey_run_id, 0) as run, r.standard_question_id as sq, r.test_option_id as o, max((r.standard_answer_value <= 2)::int) as y
      from responses r join s on s.sid = r.survey_session_id
      where r.project_id = ${projectId} and r.standard_question_id is not null and r.standard_answer_value is not null
        ${standardQuestionIds ? tx`and r.standard_question_id = any(${standardQuestionIds}::int[])` : tx``}
        ${testOptionSql(tx, f, "r.test_option_id")}
      group by 1, 2, 3, 4, 5
    ),
    ${pairsPerRespondent(tx)}
    select g.run, g.sq as "standardQuestionId", a.o as a, b.o as b, count(*)::int as nn,
           sum(g.w * g.w * a.y * b.y)::float8 as aa, sum(g.w * g.w * a.y)::float8 as ab, sum(g.w * g.w)::float8 as bb,
           sum(g.w * a.y)::float8 as "sA", sum(g.w)::float8 as "sB"
    from g cross join lateral unnest(g.os, g.ys) as a(o, y) cross join lateral unnest(g.os, g.ys) as b(o, y)
    group by 1, 2, 3, 4 order by 1, 2, 3 nulls first, 4 nulls first`;
}

/** The design's primary units per stratum: every complete respondent of the project per market run (unfiltered: domains). */
export interface DesignStratum {
  run: number;
  /** The run's market (its respondents' region). */
  regionId: number;
  n: number;
  /** Σ weights of the run's respondents. */
  sumW: number;
}

export async function designStrata(tx: Tx, projectId: number): Promise<DesignStratum[]> {
  return tx<DesignStratum[]>`
    select coalesce(survey_run_id, 0) as run, min(region_id) as "regionId", count(*)::int as n, sum(weight)::float8 as "sumW" from project_survey_sessions
    where project_id = ${projectId} and status = 'Complete' group by 1 order by 1`;
}
