// Verbatims (SPEC 7 TextResponses functions): a project's open answers to one question, filtered
// like every result, searchable, by theme and sentiment, newest first, paged. Verbatim gives the
// full rows with their themes; VerbatimShort a compact list (id, text cut to 280 characters) for
// list views; the *Count functions the total for the pager.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { resolveFilter, sessionsSql, type ResolvedFilter, type ResponseFilter } from "./filters.ts";
import * as q from "./results.sql.ts";

/** Default and largest page sizes of the verbatim functions (docs/decisions.md "Verbatims"). */
export const VERBATIM_PAGE_SIZE = 20;
export const VERBATIM_MAX_PAGE_SIZE = 200;
export const SHORT_TEXT = 280;

export interface VerbatimQuery {
  projectId: number;
  projectQuestionId: number;
  filters: ResponseFilter;
  testOptionId?: number | null;
  search?: string | null;
  themeId?: number | null;
  sentiment?: string | null;
  page?: number;
  pageSize?: number;
}

function where(tx: Tx, projectId: number, f: ResolvedFilter, v: VerbatimQuery) {
  const like = v.search ? `%${v.search.replace(/[\\%_]/g, (m) => `\\${m}`)}%` : null;
  return tx`
    from text_responses t join (${sessionsSql(tx, projectId, f)}) s on s.sid = t.survey_session_id
    where t.project_id = ${projectId} and t.project_question_id = ${v.projectQuestionId}
      ${v.testOptionId ? tx`and t.test_option_id = ${v.testOptionId}` : f.testOptionIds ? tx`and t.test_option_id = any(${f.testOptionIds}::int[])` : tx``}
      ${like ? tx`and (t.response_text ilike ${like} or t.translated_text ilike ${like})` : tx``}
      ${v.themeId ? tx`and exists (select 1 from text_responses_themes x where x.text_response_id = t.id and x.theme_id = ${v.themeId})` : tx``}
      ${v.sentiment ? tx`and t.sentiment = ${v.sentiment}` : tx``}`;
}

async function run<T>(db: Db, ctx: RequestCtx, v: VerbatimQuery, fn: (tx: Tx, f: ResolvedFilter) => Promise<T>): Promise<T> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.project(tx, v.projectId);
    if (!p) throw new ApiError("NotFound", `No project ${v.projectId}`);
    const [pq] = await tx`select 1 from project_questions where id = ${v.projectQuestionId} and project_id = ${p.id}`;
    if (!pq) throw new ApiError("NotFound", `No question ${v.projectQuestionId} in project ${p.id}`);
    return fn(tx, await resolveFilter(tx, v.filters));
  });
}

function paging(v: VerbatimQuery) {
  const page = v.page ?? 1;
  const pageSize = v.pageSize ?? VERBATIM_PAGE_SIZE;
  if (!(page >= 1) || !(pageSize >= 1 && pageSize <= VERBATIM_MAX_PAGE_SIZE)) {
    throw new ApiError("BadRequest", `page from 1, pageSize 1-${VERBATIM_MAX_PAGE_SIZE}`);
  }
  return { page, pageSize, offset: (page - 1) * pageSize };
}

export async function verbatim(db: Db, ctx: RequestCtx, v: VerbatimQuery) {
  const { page, pageSize, offset } = paging(v);
  return run(db, ctx, v, async (tx, f) => {
    const value = await tx<{
      id: number;
      responseText: string;
      translatedText: string | null;
      languageCode: string | null;
      sentiment: string | null;
      sentimentScore: number | null;
      testOptionId: number | null;
      regionId: number;
      createdAt: string;
      weight: number;
      themes: { id: number; name: string; sentiment: string | null }[];
    }[]>`
      select t.id::int as id, t.response_text as "responseText", t.translated_text as "translatedText", t.language_code as "languageCode",
             t.sentiment, t.sentiment_score as "sentimentScore", t.test_option_id as "testOptionId", t.region_id as "regionId",
             to_json(t.created_at)#>>'{}' as "createdAt", s.w as weight,
             coalesce((select json_agg(json_build_object('id', th.id, 'name', th.name, 'sentiment', th.sentiment) order by th.sort_order, th.id)
                       from text_responses_themes x join themes th on th.id = x.theme_id where x.text_response_id = t.id), '[]') as themes
      ${where(tx, v.projectId, f, v)}
      order by t.created_at desc, t.id desc limit ${pageSize} offset ${offset}`;
    return { projectId: v.projectId, projectQuestionId: v.projectQuestionId, page, pageSize, value };
  });
}

export async function verbatimShort(db: Db, ctx: RequestCtx, v: VerbatimQuery) {
  const { page, pageSize, offset } = paging(v);
  return run(db, ctx, v, async (tx, f) => {
    const value = await tx<{ id: number; text: string; testOptionId: number | null; sentiment: string | null }[]>`
      select t.id::int as id, left(coalesce(t.translated_text, t.response_text), ${SHORT_TEXT}) as text, t.test_option_id as "testOptionId", t.sentiment
      ${where(tx, v.projectId, f, v)}
      order by t.created_at desc, t.id desc limit ${pageSize} offset ${offset}`;
    return { projectId: v.projectId, projectQuestionId: v.projectQuestionId, page, pageSize, value };
  });
}

export async function verbatimCount(db: Db, ctx: RequestCtx, v: VerbatimQuery) {
  return run(db, ctx, v, async (tx, f) => {
    const [r] = await tx<{ count: number }[]>`select count(*)::int as count ${where(tx, v.projectId, f, v)}`;
    return { projectId: v.projectId, projectQuestionId: v.projectQuestionId, count: r!.count };
  });
}
