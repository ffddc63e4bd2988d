// What a client report says (the PowerPoint deck and the Excel workbook share it): the project, its
// markets, the respondents the filters keep (n, fieldwork dates), the filters in words, the
// benchmark by name and value, the weighting and significance method, and the figures of the
// results functions for the same filters and benchmark (QualResults, the questions' answers,
// demographics), with the open answers' themes and quotes for the filtered respondents and the
// latest AI summary. Nothing here computes a statistic of its own.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { resolveFilter, sessionsSql, type ResponseFilter } from "./filters.ts";
import { benchmarks, demographicsResults, NONE_BENCHMARK, qualResults, questionResults, type QualResults, type QuestionResults } from "./results.service.ts";
import * as q from "./results.sql.ts";
import { themeResults } from "./verbatims.service.ts";
import { getActionStandard, scorecard, type ActionStandardState, type ScoreRow } from "./verdict.ts";
import type { Confidence } from "../../analytics/significance.ts";
import { adjustmentWords, type Adjust } from "../../analytics/design.ts";

export interface ReportOption {
  id: number;
  conceptText: string;
  conceptDescription: string | null;
  file: { key: string; fileType: string | null; fileName: string | null } | null;
}

export interface ReportTheme {
  themeId: number;
  name: string;
  sentiment: string | null;
  /** Filtered respondents' answers coded to the theme, and their share of the question's filtered answers. */
  count: number;
  share: number;
  quotes: { text: string; concept: string | null; market: string }[];
}

export interface ReportContext {
  projectId: number;
  projectName: string;
  clientName: string;
  options: ReportOption[];
  /** The markets of the filtered respondents (all the project's when none answered yet), with their respondents. */
  markets: { regionId: number; name: string; n: number }[];
  respondents: number;
  fieldwork: { from: string | null; to: string | null };
  /** The filters in words, one line each ("none" when empty). */
  filters: string[];
  benchmark: { id: number; name: string; top2Percentage: number; indicative: boolean; byMeasure: Map<number, number> };
  weighting: string;
  /** What the figures are: the all-markets total with its weighting and each market's share, the sample-weighted total, or one market's. */
  total: string;
  significance: string;
  qual: QualResults;
  /** The verdict on the project's action standard (verdict.ts), judged on `qual`'s own tests; null without a scaled measure. */
  verdict: { standard: ActionStandardState; judgedAgainst: "benchmark" | "others"; rows: ScoreRow[] } | null;
  questions: QuestionResults[];
  demographics: Awaited<ReturnType<typeof demographicsResults>>;
  /** A demographic answer's label as the report prints it: with its market where the question holds several markets' own answers (two "European"s, two income scales). */
  answerLabel: (q: { options: { systemQuestionOptionId: number; answerLabel: string }[] }, o: { systemQuestionOptionId: number; answerLabel: string }) => string;
  themes: { projectQuestionId: number; question: string; answers: number; themes: ReportTheme[] }[];
  summary: { title: string | null; content: string; generatedAt: string | null; scope: string } | null;
}

/** A concept's name by test option id (null: the one set of figures of a test without options). */
export function optionName(options: { id: number; conceptText: string }[], id: number | null): string {
  return id === null ? "All respondents" : (options.find((o) => o.id === id)?.conceptText ?? `Option ${id}`);
}

const QUOTES_PER_THEME = 3;
const THEMES_PER_QUESTION = 6;

async function describeFilters(tx: Tx, f: ResponseFilter, options: ReportOption[]): Promise<string[]> {
  const lines: string[] = [];
  const list = (xs: string[]) => xs.join(", ");
  if (f.regionIds?.length) {
    const r = await tx<{ name: string }[]>`select region_name as name from regions where id = any(${f.regionIds}::int[]) order by region_name`;
    lines.push(`Markets: ${list(r.map((x) => x.name))}`);
  }
  if (f.filterIds?.length) {
    const r = await tx<{ q: string; a: string }[]>`
      select sq.question_label as q, o.answer_label as a from system_question_option o join system_question sq on sq.id = o.system_question_id
      where o.id = any(${f.filterIds}::int[]) order by sq.sort_order, o.sort_order`;
    const byQ = new Map<string, string[]>();
    for (const x of r) (byQ.get(x.q) ?? byQ.set(x.q, []).get(x.q)!).push(x.a);
    for (const [k, v] of byQ) lines.push(`${k}: ${list(v)}`);
  }
  const answers = async (ids: number[] | undefined, prefix: string) => {
    if (!ids?.length) return;
    const r = await tx<{ q: string; a: string }[]>`
      select coalesce(nullif(qq.question_title, ''), left(qq.question_text, 60)) as q, o.option_text as a
      from question_options o join questions qq on qq.id = o.question_id where o.id = any(${ids}::int[]) order by qq.id, o.sort_order`;
    for (const x of r) lines.push(`${prefix}${x.q}: ${x.a}`);
  };
  await answers(f.questionOptionsIds, "");
  await answers(f.excludeQuestionOptionsIds, "Leaving out ");
  if (f.testOptionIds?.length) lines.push(`Saw: ${list(f.testOptionIds.map((id) => optionName(options, id)))}`);
  if (f.surveyIds?.length) lines.push(`Survey runs: ${list(f.surveyIds.map(String))}`);
  if (f.projectGroupSegmentIds?.length) {
    const r = await tx<{ name: string }[]>`select name from project_group_segments where id = any(${f.projectGroupSegmentIds}::int[]) order by name`;
    lines.push(`Segments: ${list(r.map((x) => x.name))}`);
  }
  if (f.panelType !== undefined && f.panelType !== null) lines.push(`Panel: ${f.panelType === true || f.panelType === "Customer" ? "Customer" : "Ideally"}`);
  if (f.dateFrom || f.dateTo) lines.push(`Completed: ${f.dateFrom?.slice(0, 10) ?? "start"} to ${f.dateTo?.slice(0, 10) ?? "now"}`);
  return lines.length ? lines : ["None: every complete respondent"];
}

/** Markdown as plain paragraphs: headings, emphasis, list marks and citation tags taken out. */
export function plainText(markdown: string): string[] {
  return markdown
    .split(/\n{2,}|\n(?=#|\s*[-*] )/)
    .map((p) =>
      p
        .replace(/^#+\s*/gm, "")
        .replace(/^\s*[-*]\s+/gm, "• ")
        .replace(/\*\*(.+?)\*\*/g, "$1")
        .replace(/__(.+?)__/g, "$1")
        .replace(/(^|[^\w*])[*_](\S(?:.*?\S)?)[*_](?![\w*])/g, "$1$2")
        .replace(/\s*\[F\d+\]/g, "")
        .replace(/`/g, "")
        .trim(),
    )
    .filter((p) => p.length > 0);
}

/** The figures' scope and settings: the results view's (QualResults' benchmark, confidence, adjustment and total). */
export interface ReportInput {
  projectId: number;
  filters: ResponseFilter;
  benchmarkTypeId: number | null;
  confidence?: Confidence;
  adjust?: Adjust;
  total?: "sample" | "markets";
}

/** The total in words: the all-markets total with its weighting and shares, the sample-weighted total of several markets, or one market's respondents. */
export function totalLine(qual: Pick<QualResults, "total" | "allMarkets">, markets: { regionId: number; name: string }[]): string {
  const name = (id: number) => markets.find((m) => m.regionId === id)?.name ?? `region ${id}`;
  if (markets.length === 1) return `${markets[0]!.name} only: its respondents at their own weights`;
  if (qual.total === "markets") {
    const t = qual.allMarkets;
    return `All markets, weighted by ${t.weighting}${t.note ? ` (${t.note})` : ""}: ${t.shares.map((x) => `${name(x.regionId)} ${(x.share * 100).toFixed(1)}%`).join(", ")}`;
  }
  return "Every respondent at their own weight (the sample-weighted total: each market in proportion to its sample)";
}

export async function reportContext(db: Db, ctx: RequestCtx, input: ReportInput): Promise<ReportContext> {
  const { projectId, filters } = input;
  const head = await enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ name: string; clientName: string }[]>`
      select p.project_name as name, c.name as "clientName" from projects p join clients c on c.id = p.client_id where p.id = ${projectId} and p.deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    const options = await tx<ReportOption[]>`
      select id, concept_text as "conceptText", concept_description as "conceptDescription",
             case when file ? 'key' then jsonb_build_object('key', file->>'key', 'fileType', file->>'fileType', 'fileName', file->>'fileName') end as file
      from test_options where project_id = ${projectId} and deleted_at is null order by sort_order, id`;
    const f = await resolveFilter(tx, filters);
    const [sample] = await tx<{ n: number; from: string | null; to: string | null }[]>`
      with s as (${sessionsSql(tx, projectId, f)})
      select count(*)::int as n, to_char(min(completed_at) at time zone 'UTC', 'YYYY-MM-DD') as from, to_char(max(completed_at) at time zone 'UTC', 'YYYY-MM-DD') as to
      from s`;
    const byMarket = await tx<{ regionId: number; n: number }[]>`
      with s as (${sessionsSql(tx, projectId, f)}) select region_id as "regionId", count(*)::int as n from s group by 1 order by 1`;
    const regionIds = byMarket.length ? byMarket.map((x) => x.regionId) : await q.projectRegions(tx, projectId);
    const markets = (await tx<{ regionId: number; name: string }[]>`select id as "regionId", region_name as name from regions where id = any(${regionIds}::int[]) order by id`).map((m) => ({
      ...m,
      n: byMarket.find((x) => x.regionId === m.regionId)?.n ?? 0,
    }));
    const questions = await tx<{ id: number }[]>`
      select pq.id from project_questions pq join questions qq on qq.id = pq.question_id join question_positions pos on pos.id = pq.question_position_id
      where pq.project_id = ${projectId} and pq.deleted_at is null and pq.standard_question_id is null and qq.question_type_id <> 3
      order by pos.sort_position, pq.sort_order, pq.id`;
    const openQuestions = await tx<{ id: number; question: string }[]>`
      select pq.id, coalesce(nullif(qq.question_title, ''), qq.question_text) as question
      from project_questions pq join questions qq on qq.id = pq.question_id join question_positions pos on pos.id = pq.question_position_id
      where pq.project_id = ${projectId} and pq.deleted_at is null and qq.question_type_id = 3
      order by pos.sort_position, pq.sort_order, pq.id`;
    const [summary] = await tx<{ title: string | null; content: string; generatedAt: string | null; filters: unknown; segment: string | null }[]>`
      select s.title, s.content, to_char(s.generated_at at time zone 'UTC', 'YYYY-MM-DD') as "generatedAt", s.filters, g.name as segment
      from ai_project_summaries s left join segments g on g.id = s.segment_id
      where s.project_id = ${projectId} and s.status = 'Ready' and s.content is not null
      order by (s.segment_id is null and s.project_objective_id is null) desc,
               (coalesce(s.filters, '{}'::jsonb) = ${tx.json(filters)}::jsonb) desc, s.generated_at desc nulls last, s.id desc
      limit 1`;
    const regionNames = await tx<{ id: number; name: string }[]>`select id, region_name as name from regions where id = any(${await q.projectRegions(tx, projectId)}::int[])`;
    return { p, options, sample, markets, regionNames, questions, openQuestions, summary, filterLines: await describeFilters(tx, filters, options) };
  });
  // No benchmark chosen is SPEC 7's 'None' entry: every measure read (and tested) against 50 percent.
  const benchmarkTypeId = input.benchmarkTypeId ?? NONE_BENCHMARK.benchmarkTypeId;
  const qual = await qualResults(db, ctx, { projectId, filters, benchmarkTypeId, confidence: input.confidence, adjust: input.adjust, total: input.total });
  const marketIds = head.markets.map((m) => m.regionId);
  let benchmark: ReportContext["benchmark"];
  if (benchmarkTypeId !== NONE_BENCHMARK.benchmarkTypeId) {
    const b = (await benchmarks(db, ctx, projectId, filters.regionIds?.length ? filters.regionIds : marketIds)).value.find((x) => x.benchmarkTypeId === benchmarkTypeId);
    if (!b) throw new ApiError("BadRequest", `No benchmark type ${benchmarkTypeId}`);
    benchmark = {
      id: b.benchmarkTypeId,
      // The type's description reads as a name ("All customers and historical data"); its code ("AllCustomers") does not.
      name: b.description || b.benchmarkName,
      top2Percentage: b.top2Percentage,
      indicative: b.indicative,
      byMeasure: new Map(Object.entries(b.byStandardQuestion).map(([k, v]) => [Number(k), v.top2Percentage])),
    };
  } else {
    // SPEC 7: no benchmark reads the results against the 'None' entry of 50 percent.
    benchmark = { id: NONE_BENCHMARK.benchmarkTypeId, name: NONE_BENCHMARK.benchmarkName, top2Percentage: NONE_BENCHMARK.top2Percentage, indicative: false, byMeasure: new Map() };
  }
  const standard = await getActionStandard(db, ctx, projectId).catch((e) => (e instanceof ApiError && e.code === "NotFound" ? null : Promise.reject(e)));
  const judged = standard ? scorecard(qual.measures.find((m) => m.standardQuestionId === standard.standardQuestionId)?.results ?? [], standard, (id) => optionName(head.options, id)) : null;
  const questions: QuestionResults[] = [];
  for (const x of head.questions) questions.push(await questionResults(db, ctx, { projectId, projectQuestionId: x.id, filters, total: input.total }));
  const demographics = await demographicsResults(db, ctx, projectId, filters, input.total ?? "sample");
  const optionIds = demographics.questions.flatMap((d) => d.options.map((o) => o.systemQuestionOptionId));
  const optionMarket = new Map(
    (await enterTenant(db, ctx, (tx) => tx<{ id: number; market: string }[]>`
      select o.id, r.region_name as market from system_question_option o join regions r on r.id = o.region_id where o.id = any(${optionIds}::int[])`)).map((x) => [x.id, x.market]),
  );
  const answerLabel: ReportContext["answerLabel"] = (d, o) => {
    const market = optionMarket.get(o.systemQuestionOptionId);
    // A question whose answers are several markets' own (ethnicity, income bands, regions): each says its market.
    const markets = new Set(d.options.map((x) => optionMarket.get(x.systemQuestionOptionId)).filter(Boolean));
    return market && markets.size > 1 ? `${o.answerLabel} (${market})` : o.answerLabel;
  };
  // The open answers' themes as the themes tab shows them for these filters (ThemeResults: counted
  // over the filtered respondents' answers, most used first), each with a few quotes.
  const themes: ReportContext["themes"] = [];
  for (const oq of head.openQuestions) {
    const tr = await themeResults(db, ctx, { projectId, projectQuestionId: oq.id, filters });
    const used = tr.themes.filter((t) => t.count > 0).slice(0, THEMES_PER_QUESTION);
    if (used.length) themes.push({ projectQuestionId: oq.id, question: oq.question, answers: tr.answers, themes: used.map((t) => ({ themeId: t.id, name: t.name, sentiment: t.sentiment, count: t.count, share: t.share, quotes: [] })) });
  }
  const themeIds = themes.flatMap((q) => q.themes.map((t) => t.themeId));
  // Per theme, a few of its longest answers among the filtered respondents (long answers say the most), one per
  // concept before a second of any, with who said them; answers the quality check flags are left out.
  const quotes = themeIds.length
    ? await enterTenant(db, ctx, async (tx) => {
        const f = await resolveFilter(tx, filters);
        return tx<{ themeId: number; text: string; optionId: number | null; market: string }[]>`
          with s as (${sessionsSql(tx, projectId, f)}),
          c as (select x.theme_id, t.id, coalesce(t.translated_text, t.response_text) as text, t.test_option_id, r.region_name,
                       row_number() over (partition by x.theme_id, t.test_option_id order by char_length(coalesce(t.translated_text, t.response_text)) desc, t.id) as j
                from text_responses_themes x join text_responses t on t.id = x.text_response_id join s on s.sid = t.survey_session_id
                join regions r on r.id = t.region_id
                where x.theme_id = any(${themeIds}::int[]) and coalesce(t.qa_status, 'Ok') = 'Ok'
                  ${f.testOptionIds ? tx`and t.test_option_id = any(${f.testOptionIds}::int[])` : tx``})
          select "themeId", text, "optionId", market from (
            select theme_id as "themeId", text, test_option_id as "optionId", region_name as market,
                   row_number() over (partition by theme_id order by j, char_length(text) desc, id) as k
            from c where j <= ${QUOTES_PER_THEME}) z
          where k <= ${QUOTES_PER_THEME} order by "themeId", k`;
      })
    : [];
  for (const q of themes) for (const t of q.themes) t.quotes = quotes.filter((x) => x.themeId === t.themeId).map((x) => ({ text: x.text, concept: x.optionId === null ? null : optionName(head.options, x.optionId), market: x.market }));
  const s = head.summary;
  const t = qual.allMarkets;
  return {
    projectId,
    projectName: head.p.name,
    clientName: head.p.clientName,
    options: head.options,
    markets: head.markets,
    respondents: head.sample?.n ?? 0,
    fieldwork: { from: head.sample?.from ?? null, to: head.sample?.to ?? null },
    filters: head.filterLines,
    benchmark,
    // The all-markets weighting only matters to a report of more than one market (the total's own line names it when it is the figures').
    weighting:
      "Respondents weighted to their market's demographic targets (raked weights)." +
      (head.markets.length > 1 && qual.total !== "markets"
        ? ` The all-markets total weights markets by ${t.weighting}${t.note ? ` (${t.note})` : ""}: ${t.shares.map((x) => `${head.regionNames.find((m) => m.id === x.regionId)?.name ?? `region ${x.regionId}`} ${(x.share * 100).toFixed(1)}%`).join(", ")}.`
        : ""),
    total: totalLine(qual, head.markets),
    significance:
      `Weighted top-2-box with design-based standard errors (Taylor linearisation, market runs as strata) and ${qual.confidence}% Wilson intervals. ` +
      `Significant: p below ${((100 - qual.confidence) / 100).toFixed(2)} after ${adjustmentWords(qual.method)}. ` +
      `Indicative: a norm of fewer than ${qual.method.thinNorm} projects (never significant). Low base: effective base below ${qual.method.smallBase}.`,
    qual,
    verdict: standard && judged?.rows.length ? { standard, judgedAgainst: judged.against, rows: judged.rows } : null,
    questions,
    demographics,
    answerLabel,
    themes,
    summary: s
      ? {
          title: s.title,
          content: s.content,
          generatedAt: s.generatedAt,
          scope: s.segment ? `Segment ${s.segment}` : JSON.stringify(s.filters ?? {}) === JSON.stringify(filters) || (!s.filters && Object.keys(filters).length === 0) ? "The same respondents as this report" : "All respondents (written for the whole test, not these filters)",
        }
      : null,
  };
}
