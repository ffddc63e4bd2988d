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
import { demographicsResults, NONE_BENCHMARK, questionResults, type QualResults, type QuestionResults } from "./results.service.ts";
import * as q from "./results.sql.ts";
import { themeResults } from "./verbatims.service.ts";
import { simulatedIn } from "./simulated.ts";
import type { ActionStandardState, ScoreRow } from "./verdict.ts";
import { headlineMeasure, resolveView, type ResultsView, type ViewBenchmark, type ViewInput } from "./view.ts";
import type { Confidence } from "@ideally/analytics/significance";
import { adjustmentWords, type Adjust } from "@ideally/analytics/design";

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
  /** Whether the respondents are simulated (the simulated panel's, not people), in words; null when none is. */
  simulated: string | null;
  fieldwork: { from: string | null; to: string | null };
  /** The filters in words, one line each ("none" when empty). */
  filters: string[];
  /** The view's benchmark: its name and each measure's norm as QualResults tested against it (view.ts). */
  benchmark: ViewBenchmark;
  /** The measure a single benchmark figure stands for (the action standard's): footers and the cover name it with its norm. */
  headline: number | null;
  weighting: string;
  /** What the figures are: the all-markets total with its weighting and each market's share, the sample-weighted total, or one market's. */
  total: string;
  significance: string;
  qual: QualResults;
  /** The verdict on the project's action standard (verdict.ts), judged on `qual`'s own tests; null without a scaled measure. */
  verdict: { standard: ActionStandardState; judgedAgainst: "benchmark" | "others"; rows: ScoreRow[]; headline: string } | null;
  questions: QuestionResults[];
  demographics: Awaited<ReturnType<typeof demographicsResults>>;
  /** A demographic answer's label as the report prints it: with its market where the question holds several markets' own answers (two "European"s, two income scales). */
  answerLabel: (q: { options: { systemQuestionOptionId: number; answerLabel: string }[] }, o: { systemQuestionOptionId: number; answerLabel: string }) => string;
  themes: { projectQuestionId: number; question: string; answers: number; themes: ReportTheme[] }[];
  /** The AI summary written for this view whose figures are the view's (viewSummary); null when there is none. */
  summary: { title: string | null; content: string; generatedAt: string | null; scope: string } | null;
  /** Why no AI summary is shown (none written for the view, or it predates the current figures); null when one is. */
  summaryNote: string | null;
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
    // The respondents and the simulated among them: the one count every face reads (simulated.ts).
    const [sample, [fieldwork]] = await Promise.all([
      simulatedIn(tx, projectId, f),
      tx<{ from: string | null; to: string | null }[]>`
        with s as (${sessionsSql(tx, projectId, f)})
        select to_char(min(s.completed_at) at time zone 'UTC', 'YYYY-MM-DD') as from, to_char(max(s.completed_at) at time zone 'UTC', 'YYYY-MM-DD') as to from s`,
    ]);
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
    // The project's own AI summaries (not a segment's or an objective's); the one written for this view is chosen below.
    const summaries = await tx<StoredSummary[]>`
      select s.title, s.content, to_char(s.generated_at at time zone 'UTC', 'YYYY-MM-DD') as "generatedAt", s.filters,
             s.benchmark_type_id as "benchmarkTypeId", s.total, s.references_data as "referencesData"
      from ai_project_summaries s
      where s.project_id = ${projectId} and s.status = 'Ready' and s.content is not null and s.segment_id is null and s.project_objective_id is null
      order by s.generated_at desc nulls last, s.id desc`;
    const regionNames = await tx<{ id: number; name: string }[]>`select id, region_name as name from regions where id = any(${await q.projectRegions(tx, projectId)}::int[])`;
    return { p, options, sample, fieldwork, markets, regionNames, questions, openQuestions, summaries, projectRegions: await q.projectRegions(tx, projectId), filterLines: await describeFilters(tx, filters, options) };
  });
  // The view, resolved once (view.ts): no benchmark chosen is SPEC 7's 'None' entry, every measure
  // read (and tested) against 50 percent. Its figures, benchmark and verdict are what every slide and sheet shows.
  const view = await resolveView(db, ctx, { projectId, filters, benchmarkTypeId: input.benchmarkTypeId ?? NONE_BENCHMARK.benchmarkTypeId, confidence: input.confidence, adjust: input.adjust, total: input.total });
  const qual = view.qual;
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
  const chosen = viewSummary(head.summaries, view, head.projectRegions);
  const t = qual.allMarkets;
  return {
    projectId,
    projectName: head.p.name,
    clientName: head.p.clientName,
    options: head.options,
    markets: head.markets,
    respondents: head.sample.respondents,
    simulated: head.sample.words,
    fieldwork: { from: head.fieldwork?.from ?? null, to: head.fieldwork?.to ?? null },
    filters: head.filterLines,
    benchmark: view.benchmark,
    headline: headlineMeasure(view),
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
    verdict: view.standard && view.verdict ? { standard: view.standard, ...view.verdict } : null,
    questions,
    demographics,
    answerLabel,
    themes,
    summary: chosen.summary
      ? { title: chosen.summary.title, content: chosen.summary.content, generatedAt: chosen.summary.generatedAt, scope: "Written for this view: the same markets, filters, benchmark and total as this report" }
      : null,
    summaryNote: chosen.note,
  };
}

/** A stored AI summary as the report reads it: its scope and the figures it cites (facts.ts Figure, their sources). */
interface StoredSummary {
  title: string | null;
  content: string;
  generatedAt: string | null;
  filters: ResponseFilter | null;
  benchmarkTypeId: number | null;
  total: "sample" | "markets" | null;
  referencesData: { value: number; source: { fn: string; filters?: ResponseFilter; benchmarkTypeId?: number | null; total?: string; standardQuestionId?: number; testOptionId?: number | null; otherTestOptionId?: number | null; field?: string } }[] | null;
}

/** Filters as a set of respondents: every market of the project named is the same as none named. */
function sameRespondents(a: ResponseFilter | null, b: ResponseFilter | null, projectRegions: number[]): boolean {
  const norm = (f: ResponseFilter | null) => {
    const x: Record<string, unknown> = { ...(f ?? {}) };
    const r = f?.regionIds;
    if (r && projectRegions.every((id) => r.includes(id))) delete x.regionIds;
    for (const [k, v] of Object.entries(x)) if (v === undefined || v === null || (Array.isArray(v) && v.length === 0)) delete x[k];
    return JSON.stringify(Object.keys(x).sort().map((k) => [k, Array.isArray(x[k]) ? [...(x[k] as unknown[])].sort() : x[k]]));
  };
  return norm(a) === norm(b);
}

/**
 * The AI summary a report of this view may show: the latest one written for the same respondents,
 * benchmark (null stored: the default, type 1) and total, and only when every QualResults figure it
 * cites for the view is the view's figure now (a norm that moved, a reweight, new respondents make a
 * written summary disagree with the charts beside it: it is left out, and the report says why).
 */
export function viewSummary(rows: StoredSummary[], view: ResultsView, projectRegions: number[]): { summary: StoredSummary | null; note: string | null } {
  const mine = rows.filter((s) => sameRespondents(s.filters, view.filters, projectRegions) && (s.benchmarkTypeId ?? 1) === view.benchmarkTypeId && (s.total ?? "sample") === view.total);
  const latest = mine[0];
  if (!latest) return { summary: null, note: "No AI summary has been written for this view (its markets, filters, benchmark and total): write one on the Summary page." };
  if (summaryOutOfDate(latest, view, projectRegions)) return { summary: null, note: `The AI summary written for this view (${latest.generatedAt ?? "earlier"}) cites figures or states a verdict that have changed since (a benchmark's norm moved, the respondents or their weights changed, or the action standard): regenerate it on the Summary page.` };
  return { summary: latest, note: null };
}

/**
 * A summary cites a QualResults figure of the view that is not the view's figure now (a norm that
 * moved, a reweight, new respondents), or states a verdict that is not the view's now (the action
 * standard changed, or the tests under it did): its "**Verdict**" paragraph (ai/local.ts) carries
 * the view's one-sentence headline, which is compared whole.
 */
export function summaryOutOfDate(latest: Pick<StoredSummary, "referencesData" | "content">, view: ResultsView, projectRegions: number[]): boolean {
  const verdict = /^\*\*Verdict\*\*.*$/m.exec(latest.content ?? "")?.[0];
  if (verdict !== undefined && !(view.verdict && verdict.includes(view.verdict.headline))) return true;
  return (latest.referencesData ?? []).some((f) => {
    const src = f.source;
    if (src.fn !== "QualResults" || src.standardQuestionId === undefined || !sameRespondents(src.filters ?? null, view.filters, projectRegions) || (src.total ?? "sample") !== view.total) return false;
    const r = view.qual.measures.find((m) => m.standardQuestionId === src.standardQuestionId)?.results.find((x) => x.testOptionId === (src.testOptionId ?? null));
    let now: number | undefined;
    if (src.field === "top2") now = r?.top2;
    else if (src.field === "n") now = r?.n;
    else if (src.benchmarkTypeId !== view.benchmarkTypeId) return false;
    else if (src.field === "vsBenchmark.top2Percentage") now = r?.vsBenchmark?.top2Percentage;
    else if (src.field === "vsBenchmark.diff") now = r?.vsBenchmark?.diff;
    else if (src.field === "vsOthers.diff") now = r?.vsOthers.find((o) => o.testOptionId === (src.otherTestOptionId ?? null))?.diff;
    else return false;
    return now === undefined || Math.abs(now - f.value) > 1e-9;
  });
}

/**
 * Responses/SummaryCurrent: whether an AI summary still agrees with the view on screen (every
 * QualResults figure it cites for the view is the view's figure now), so the Summary page can say
 * so beside it as the deck and the workbook do.
 */
export async function summaryCurrent(db: Db, ctx: RequestCtx, input: ViewInput & { summaryId: number }): Promise<{ summaryId: number; current: boolean; note: string | null }> {
  const found = await enterTenant(db, ctx, async (tx) => {
    const [row] = await tx<(Pick<StoredSummary, "referencesData" | "generatedAt" | "content"> & { projectId: number })[]>`
      select s.project_id as "projectId", to_char(s.generated_at at time zone 'UTC', 'YYYY-MM-DD') as "generatedAt", s.references_data as "referencesData", coalesce(s.content, '') as content
      from ai_project_summaries s where s.id = ${input.summaryId}`;
    return row && row.projectId === input.projectId ? { row, regions: await q.projectRegions(tx, input.projectId) } : null;
  });
  if (!found) throw new ApiError("NotFound", `AiProjectSummaries(${input.summaryId}) of project ${input.projectId} not found`);
  const view = await resolveView(db, ctx, input);
  const current = !summaryOutOfDate(found.row, view, found.regions);
  return {
    summaryId: input.summaryId,
    current,
    note: current ? null : `Written ${found.row.generatedAt ?? "earlier"}, this summary cites figures or states a verdict that have changed since (a benchmark's norm moved, the respondents or their weights changed, or the action standard): the page's are today's. Write it again for this view.`,
  };
}
