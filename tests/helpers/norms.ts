// The norm as results.sql.ts computed it before the norms' rollup (migration 0030): over every
// comparable project's responses. The reference the rollup is tested against (tests/api/norms.test.ts)
// and the naive side of bench:results' benchmark figures.
import type { Tx } from "../../api/src/db/client.ts";
import type * as q from "../../api/src/domains/results/results.sql.ts";

/** The norm as it was computed before the rollup: over every comparable project's responses. */
export async function normFromResponses(tx: Tx, p: q.ProjectHead, kind: { type: number; minWeek: number | null; maxWeek: number | null }, regionIds: number[] | null): Promise<q.NormRow[]> {
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
  const weeks = kind.minWeek !== null || kind.maxWeek !== null ? tx`and pss.week between ${kind.minWeek ?? 1} and ${kind.maxWeek ?? 100000}` : tx``;
  return tx<q.NormRow[]>`
    with per as (
      select r.project_id, r.standard_question_id,
             sum(pss.weight * (r.standard_answer_value <= 2)::int) / nullif(sum(pss.weight), 0) as t2b,
             count(distinct r.survey_session_id) as n
      from projects q
      join responses r on r.project_id = q.id
      join project_survey_sessions pss on pss.id = r.project_survey_session_id
      where q.id <> ${p.id} and q.deleted_at is null and q.status_code >= 800 and q.status_code <> 950
        and r.standard_question_id is not null and r.standard_answer_value is not null
        ${regionIds ? tx`and r.region_id = any(${regionIds}::int[])` : tx``}
        ${scope} ${weeks}
      group by 1, 2
    )
    select standard_question_id as "standardQuestionId", count(*)::int as "projectCount", avg(t2b)::float8 as top2, sum(n)::int as respondents
    from per where t2b is not null group by 1 order by 1`;
}
