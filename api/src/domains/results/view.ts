// A results view, resolved once (issue 37, docs/statistics.md "One view, one number"): the markets or
// the all-markets total, the filters (a segment's included), the benchmark, the confidence and the
// multiple-comparison adjustment are settled here, QualResults is computed once for them, and the
// benchmark's figures and the verdict are read from that computation. The page's verdict
// (Responses/Scorecard), the deck, the workbook and the AI summary all take a ResultsView, so a
// figure shown by two of them is the same number: the benchmark of a measure is its norm's mean as
// QualResults tested against it (never an average over measures, never another region's norm).
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { Confidence } from "@ideally/analytics/significance";
import type { Adjust } from "@ideally/analytics/design";
import type { ResponseFilter } from "./filters.ts";
import { NONE_BENCHMARK, qualResults, type QualResults } from "./results.service.ts";
import { getActionStandard, scorecard, verdictHeadline, type ActionStandardState, type Scorecard, type ScoreRow } from "./verdict.ts";

export interface ViewInput {
  projectId: number;
  filters: ResponseFilter;
  /** null: no benchmark (QualResults without one); 0: SPEC 7's 'None' (50%). */
  benchmarkTypeId: number | null;
  confidence?: Confidence;
  adjust?: Adjust;
  /** `markets`: the all-markets total (markets weighted by population); `sample`: every respondent at their own weight. */
  total?: "sample" | "markets";
}

export interface ViewBenchmark {
  /** The benchmark type (0 'None'), or null without one. */
  id: number | null;
  /** Its name as a reader says it (the type's description: "All customers and historical data"). */
  name: string;
  /** Every measure's norm is indicative (fewer than THIN_NORM projects). */
  indicative: boolean;
  /** Per measure (standard question id): the norm's mean in percent, as QualResults tested against it. */
  byMeasure: Map<number, number>;
}

export interface ResultsView {
  projectId: number;
  filters: ResponseFilter;
  benchmarkTypeId: number | null;
  confidence: Confidence;
  adjust: Adjust;
  total: "sample" | "markets";
  /** The view's figures: every output reads these. */
  qual: QualResults;
  benchmark: ViewBenchmark;
  /** Test option names by id (null: the figures of a test without options). */
  optionName: (id: number | null) => string;
  /** The action standard and the verdict on it, judged on `qual`'s own tests; null without a scaled measure. */
  standard: ActionStandardState | null;
  verdict: { judgedAgainst: "benchmark" | "others"; rows: ScoreRow[]; headline: string } | null;
}

/** A measure's benchmark in words with its figure, for a line that names the benchmark: "Likability 73.1%". */
export function benchmarkFigure(view: Pick<ResultsView, "benchmark" | "qual">, standardQuestionId: number): string {
  const v = view.benchmark.byMeasure.get(standardQuestionId);
  const title = view.qual.measures.find((m) => m.standardQuestionId === standardQuestionId)?.title ?? `measure ${standardQuestionId}`;
  return v === undefined ? `${title}: no norm` : `${title} ${v.toFixed(1)}%`;
}

/** The measure a single benchmark figure stands for: the action standard's, else the first measure. */
export function headlineMeasure(view: Pick<ResultsView, "standard" | "qual">): number | null {
  const sq = view.standard?.standardQuestionId;
  if (sq !== undefined && view.qual.measures.some((m) => m.standardQuestionId === sq)) return sq;
  return view.qual.measures[0]?.standardQuestionId ?? null;
}

/**
 * Resolves a view and computes its figures once: QualResults at the view's settings, each measure's
 * benchmark from its tests, the action standard and the verdict on QualResults' own tests.
 */
export async function resolveView(db: Db, ctx: RequestCtx, input: ViewInput): Promise<ResultsView> {
  const confidence = input.confidence ?? 95;
  const adjust = input.adjust ?? "bh";
  const total = input.total ?? "sample";
  const benchmarkTypeId = input.benchmarkTypeId;
  const head = await enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ id: number }[]>`select id from projects where id = ${input.projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${input.projectId}`);
    const options = await tx<{ id: number; name: string }[]>`select id, concept_text as name from test_options where project_id = ${input.projectId}`;
    const [type] = benchmarkTypeId ? await tx<{ description: string; name: string }[]>`select description, name from benchmark_types where id = ${benchmarkTypeId}` : [];
    return { options, type };
  });
  const qual = await qualResults(db, ctx, { projectId: input.projectId, filters: input.filters, benchmarkTypeId, confidence, adjust, total });
  const byMeasure = new Map<number, number>();
  for (const m of qual.measures) {
    const b = m.results.find((r) => r.vsBenchmark)?.vsBenchmark;
    if (b) byMeasure.set(m.standardQuestionId, b.top2Percentage);
  }
  const tested = qual.measures.flatMap((m) => m.results.map((r) => r.vsBenchmark).filter((b) => b !== null));
  const benchmark: ViewBenchmark = {
    id: benchmarkTypeId,
    name:
      benchmarkTypeId === NONE_BENCHMARK.benchmarkTypeId
        ? NONE_BENCHMARK.benchmarkName
        : benchmarkTypeId === null
          ? "no benchmark"
          : head.type?.description || head.type?.name || `Benchmark ${benchmarkTypeId}`,
    indicative: tested.length > 0 && tested.every((b) => b.indicative),
    byMeasure,
  };
  const names = new Map(head.options.map((o) => [o.id, o.name]));
  const optionName = (id: number | null) => (id === null ? "All respondents" : (names.get(id) ?? `Option ${id}`));
  const standard = await getActionStandard(db, ctx, input.projectId).catch((e) => (e instanceof ApiError && e.code === "NotFound" ? null : Promise.reject(e)));
  const judged = standard ? scorecard(qual.measures.find((m) => m.standardQuestionId === standard.standardQuestionId)?.results ?? [], standard, optionName) : null;
  return {
    projectId: input.projectId,
    filters: input.filters,
    benchmarkTypeId,
    confidence,
    adjust,
    total,
    qual,
    benchmark,
    optionName,
    standard,
    verdict: judged?.rows.length ? { judgedAgainst: judged.against, rows: judged.rows, headline: verdictHeadline(judged.rows, optionName) } : null,
  };
}

/** Responses/Scorecard: the view's verdict (the concepts ranked on the action standard, judged on the view's own tests). */
export async function viewScorecard(db: Db, ctx: RequestCtx, input: ViewInput): Promise<Scorecard> {
  // The view reads the standard once (a project without a scaled measure has none: 404).
  const view = await resolveView(db, ctx, input);
  const standard = view.standard;
  if (!standard) throw new ApiError("NotFound", `Projects(${input.projectId}) asks no scaled standard question: there is nothing to set a standard on`);
  const results = view.qual.measures.find((m) => m.standardQuestionId === standard.standardQuestionId)?.results ?? [];
  // No respondents under the view: no rows, judged against what the rule says for none.
  const verdict = view.verdict ?? { judgedAgainst: scorecard([], standard, view.optionName).against, rows: [], headline: "" };
  return {
    projectId: view.projectId,
    standard,
    judgedAgainst: verdict.judgedAgainst,
    benchmarkTypeId: view.qual.benchmarkTypeId,
    confidence: view.qual.confidence,
    method: view.qual.method,
    base: results.reduce((a, r) => a + r.n, 0),
    rows: verdict.rows,
    headline: verdict.headline,
  };
}
