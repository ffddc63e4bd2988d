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

/** Default and largest page sizes of the verbatim functions (docs/decisions.md "Price sensitivity, market reach, waves, verbatims"). */
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
    const value = await tx<
      {
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
      }[]
    >`
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

export interface ThemeResultsQuery {
  projectId: number;
  projectQuestionId: number;
  filters: ResponseFilter;
  testOptionId?: number | null;
}

const SENTIMENT_LABELS = ["Positive", "Neutral", "Mixed", "Negative"] as const;
type Tally = Record<(typeof SENTIMENT_LABELS)[number] | "None", number>;
const tally = (): Tally => ({ Positive: 0, Neutral: 0, Mixed: 0, Negative: 0, None: 0 });
const bucket = (s: string | null): keyof Tally => ((SENTIMENT_LABELS as readonly string[]).includes(s ?? "") ? (s as keyof Tally) : "None");

/**
 * ThemeResults: the themes of one open question counted over the filtered respondents' answers
 * (the same answers Verbatim lists): per theme its answers, their share of the answers, the
 * answers by sentiment and per test option (count and share of that option's answers). Shares are
 * of answers, unweighted, like the verbatim counts they sit beside (docs/decisions.md "Themes and
 * drivers under the filters").
 */
export async function themeResults(db: Db, ctx: RequestCtx, v: ThemeResultsQuery) {
  return run(db, ctx, { ...v, page: 1, pageSize: 1 }, async (tx, f) => {
    const answers = tx`select t.id, t.test_option_id, t.sentiment ${where(tx, v.projectId, f, { ...v, search: null, themeId: null, sentiment: null })}`;
    const [totals, cells, themes] = await Promise.all([
      tx<{ testOptionId: number | null; sentiment: string | null; n: number }[]>`
        select a.test_option_id as "testOptionId", a.sentiment, count(*)::int as n from (${answers}) a group by 1, 2`,
      tx<{ themeId: number; testOptionId: number | null; sentiment: string | null; n: number }[]>`
        select x.theme_id::int as "themeId", a.test_option_id as "testOptionId", a.sentiment, count(distinct a.id)::int as n
        from (${answers}) a join text_responses_themes x on x.text_response_id = a.id group by 1, 2, 3`,
      tx<{ id: number; name: string; sentiment: string | null }[]>`
        select id::int, name, sentiment from themes where project_id = ${v.projectId} and project_question_id = ${v.projectQuestionId} order by sort_order, id`,
    ]);
    const options = [...new Set(totals.map((t) => t.testOptionId))].sort((a, b) => (a ?? 0) - (b ?? 0));
    const optionAnswers = (o: number | null) => totals.filter((t) => t.testOptionId === o).reduce((s, t) => s + t.n, 0);
    const n = totals.reduce((s, t) => s + t.n, 0);
    const bySentiment = tally();
    for (const t of totals) bySentiment[bucket(t.sentiment)] += t.n;
    const share = (a: number, b: number) => (b > 0 ? a / b : 0);
    return {
      projectId: v.projectId,
      projectQuestionId: v.projectQuestionId,
      answers: n,
      bySentiment,
      testOptions: options.map((o) => ({ testOptionId: o, answers: optionAnswers(o) })),
      themes: themes
        .map((th) => {
          const mine = cells.filter((c) => c.themeId === th.id);
          const count = mine.reduce((s, c) => s + c.n, 0);
          const sentiments = tally();
          for (const c of mine) sentiments[bucket(c.sentiment)] += c.n;
          return {
            id: th.id,
            name: th.name,
            sentiment: th.sentiment,
            count,
            share: share(count, n),
            bySentiment: sentiments,
            byTestOption: options.map((o) => {
              const k = mine.filter((c) => c.testOptionId === o).reduce((s, c) => s + c.n, 0);
              return { testOptionId: o, count: k, share: share(k, optionAnswers(o)) };
            }),
          };
        })
        .sort((a, b) => b.count - a.count || a.id - b.id),
    };
  });
}
