// Results (SPEC 7 Responses and Projects functions): counts, weights, weighted top-2-box per test
// option and measure with confidence intervals and significance, benchmarks, demographics. Every
// figure comes from sums PostgreSQL computes over the filtered respondents (filters.ts); the
// statistics are the cited ones in api/src/analytics/significance.ts (DOMAIN.md):
//   T2B = Σw·[answer <= 2] / Σw;  n_eff = (Σw)² / Σw² (Kish);  CI = T2B ± z·√(T2B(1 − T2B)/n_eff);
//   option vs option and vs the benchmark: two-proportion z-test with the n_eff of each side.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant, readAsCaller } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { SMALL_BASE, twoProportionZTest, Z_CRITICAL, type Confidence } from "../../analytics/significance.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { resolveFilter, type ResolvedFilter, type ResponseFilter } from "./filters.ts";
import * as q from "./results.sql.ts";
import * as col from "./columnar.ts";
import { refreshStaleNormCells } from "./norms.ts";

/** SPEC 3: standard answer values 1 Top .. 4 Bottom, shown as High, Average, Neutral, Low. */
export const VALUE_LABELS: Record<number, string> = { 1: "High", 2: "Average", 3: "Neutral", 4: "Low" };
/** SPEC 7: the benchmark list ends with a 'None' entry of 50 percent. */
export const NONE_BENCHMARK = { benchmarkTypeId: 0, benchmarkName: "None", top2Percentage: 50 } as const;

async function withProject<T>(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter, fn: (tx: Tx, p: q.ProjectHead, f: ResolvedFilter) => Promise<T>): Promise<T> {
  return enterTenant(db, ctx, async (tx) => {
    // One round trip: the project and the filter's lookups are pipelined on the transaction's
    // connection (a failed statement aborts the transaction, so nothing after it runs).
    const [p, f] = await Promise.allSettled([q.project(tx, projectId), resolveFilter(tx, filters)]);
    if (p.status === "rejected") throw p.reason;
    if (!p.value) throw new ApiError("NotFound", `No project ${projectId}`);
    if (f.status === "rejected") throw f.reason;
    return fn(tx, p.value, f.value);
  });
}

/**
 * The aggregates a request reads: from the project's in-memory columnar copy (columnar.ts) when
 * the cache is on and the filter fits its bit masks, else the SQL over the responses table
 * (results.sql.ts). Both give the same rows in the same order.
 */
export interface Aggregates {
  countsByOptionAndWeek(): Promise<q.CountRow[]>;
  stdQuestionCounts(): Promise<{ testOptionId: number | null; standardQuestionId: number; count: number }[]>;
  weightSums(): Promise<q.WeightRow[]>;
  scaleAnswers(standardQuestionIds: number[] | null): Promise<q.ScaleRow[]>;
  optionAnswers(questionId: number): Promise<{ rows: q.OptionRow[]; bases: { testOptionId: number | null; n: number; sumW: number; sumW2: number }[] }>;
  demographics(): Promise<{ systemQuestionId: number; optionId: number; n: number; sumW: number }[]>;
}

export function sqlAggregates(tx: Tx, projectId: number, f: ResolvedFilter): Aggregates {
  return {
    countsByOptionAndWeek: () => q.countsByOptionAndWeek(tx, projectId, f),
    stdQuestionCounts: () => q.stdQuestionCounts(tx, projectId, f),
    weightSums: () => q.weightSums(tx, projectId, f),
    scaleAnswers: (ids) => q.scaleAnswers(tx, projectId, f, ids),
    optionAnswers: (questionId) => q.optionAnswers(tx, projectId, f, questionId),
    demographics: () => q.demographics(tx, projectId, f),
  };
}

export function columnarOf(cols: col.ProjectColumns, sel: col.Selection): Aggregates {
  return {
    countsByOptionAndWeek: async () => col.countsByOptionAndWeek(cols, sel),
    stdQuestionCounts: async () => col.stdQuestionCounts(cols, sel),
    weightSums: async () => col.weightSums(cols, sel),
    scaleAnswers: async (ids) => col.scaleAnswers(cols, sel, ids),
    optionAnswers: async (questionId) => col.optionAnswers(cols, sel, questionId),
    demographics: async () => col.demographics(cols, sel),
  };
}

export async function columnarAggregates(tx: Tx, p: q.ProjectHead, f: ResolvedFilter): Promise<Aggregates> {
  const cols = await col.projectColumns(tx, p.id, p.resultsVersion);
  return columnarOf(cols, await col.select(tx, cols, f));
}

/**
 * A results function's reads. With the cache on, one round trip (access/policy.ts readAsCaller):
 * the tenant entry, the project with its results version, the filter's lookups, the segments'
 * members and the caller's `extra` reads, pipelined; then the aggregates from the project's
 * columnar copy, in memory (a stale or missing copy is loaded first, in a tenant transaction of
 * its own). Without the cache, or for a filter beyond the copy's bit masks, the SQL of
 * results.sql.ts in one tenant transaction. `extra` must start its statements at once.
 */
async function withAggregates<T, X>(
  db: Db,
  ctx: RequestCtx,
  projectId: number,
  filters: ResponseFilter,
  extra: (tx: Tx) => Promise<X>,
  fn: (a: Aggregates, p: q.ProjectHead, f: ResolvedFilter, x: X) => Promise<T>,
): Promise<T> {
  if (col.resultsCacheEnabled()) {
    const segmentIds = filters.projectGroupSegmentIds?.length ? [...new Set(filters.projectGroupSegmentIds)] : null;
    const [p, f, x, members] = await readAsCaller(db, ctx, async (tx) => {
      const all = await Promise.allSettled([q.project(tx, projectId), resolveFilter(tx, filters), extra(tx), segmentIds ? col.segmentMembers(tx, segmentIds) : null] as const);
      // The first failure in this order: an unknown project before a bad filter.
      for (const r of all) if (r.status === "rejected") throw r.reason;
      return all.map((r) => (r as PromiseFulfilledResult<unknown>).value) as [q.ProjectHead | undefined, ResolvedFilter, X, Set<number> | null];
    });
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    if (col.fits(f)) {
      const cols =
        col.cachedColumns(p.id, p.resultsVersion) ??
        (await enterTenant(db, ctx, async (tx) => {
          const now = await q.project(tx, projectId);
          if (!now) throw new ApiError("NotFound", `No project ${projectId}`);
          return col.projectColumns(tx, now.id, now.resultsVersion);
        }));
      return fn(columnarOf(cols, col.choose(cols, f, members)), p, f, x);
    }
  }
  return withProject(db, ctx, projectId, filters, async (tx, p, f) => fn(sqlAggregates(tx, p.id, f), p, f, await extra(tx)));
}

const nothing = async () => null;

// ---- counts and weights ----

export interface ResponsesCountRow {
  testOptionId: number | null;
  count: number;
  weight: number;
  /** Respondents who answered each standard question, by its id. */
  stdQuestions: Record<string, number>;
  /** Per week (NPD: week since launch; trackers: the week's Monday): count and weight. */
  byWeek: Record<string, { count: number; weight: number }>;
}

export async function responsesCount(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter): Promise<{ projectId: number; value: ResponsesCountRow[] }> {
  return withAggregates(db, ctx, projectId, filters, nothing, async (a, p) => {
    const rows = await a.countsByOptionAndWeek();
    const std = await a.stdQuestionCounts();
    const out = new Map<number | null, ResponsesCountRow>();
    for (const r of rows) {
      const row = out.get(r.testOptionId) ?? { testOptionId: r.testOptionId, count: 0, weight: 0, stdQuestions: {}, byWeek: {} };
      row.count += r.count;
      row.weight += r.weight;
      row.byWeek[r.week ?? "unknown"] = { count: r.count, weight: r.weight };
      out.set(r.testOptionId, row);
    }
    for (const s of std) {
      const row = out.get(s.testOptionId);
      if (row) row.stdQuestions[s.standardQuestionId] = s.count;
    }
    return { projectId: p.id, value: [...out.values()] };
  });
}

export interface WeightSumResult {
  projectId: number;
  count: number;
  weight: number;
  nEff: number;
  deff: number;
  byRegion: { regionId: number; count: number; weight: number; nEff: number; deff: number }[];
}

function kish(count: number, sumW: number, sumW2: number) {
  const nEff = sumW2 > 0 ? (sumW * sumW) / sumW2 : 0;
  return { nEff, deff: nEff > 0 ? count / nEff : 0 };
}

export async function weightSum(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter): Promise<WeightSumResult> {
  return withAggregates(db, ctx, projectId, filters, nothing, async (a, p) => {
    const rows = await a.weightSums();
    const count = rows.reduce((a, r) => a + r.count, 0);
    const sumW = rows.reduce((a, r) => a + r.sumW, 0);
    const sumW2 = rows.reduce((a, r) => a + r.sumW2, 0);
    return {
      projectId: p.id,
      count,
      weight: sumW,
      ...kish(count, sumW, sumW2),
      byRegion: rows.map((r) => ({ regionId: r.regionId, count: r.count, weight: r.sumW, ...kish(r.count, r.sumW, r.sumW2) })),
    };
  });
}

// ---- top-2-box ----

export interface Measure {
  testOptionId: number | null;
  n: number;
  weight: number;
  nEff: number;
  top2: number;
  /** Confidence interval of top2 at the chosen confidence. */
  ci: [number, number];
  smallBase: boolean;
  distribution: { value: number; label: string; count: number; share: number }[];
  vsBenchmark: { top2Percentage: number; diff: number; z: number; pValue: number; significant: boolean } | null;
  vsOthers: { testOptionId: number | null; diff: number; z: number; pValue: number; significant: boolean }[];
}

export interface QualResults {
  projectId: number;
  confidence: Confidence;
  benchmarkTypeId: number | null;
  measures: { standardQuestionId: number; title: string; results: Measure[] }[];
}

/** Top-2-box per standard measure and test option, from answer-value sums (pure; tested by hand). */
export function topTwoBoxes(rows: q.ScaleRow[], confidence: Confidence, norm: Map<number, { top2: number; respondents: number }> | null): Map<number, Measure[]> {
  const z = Z_CRITICAL[confidence];
  const byQ = new Map<number, Map<number | null, q.ScaleRow[]>>();
  for (const r of rows) {
    const m = byQ.get(r.standardQuestionId) ?? byQ.set(r.standardQuestionId, new Map()).get(r.standardQuestionId)!;
    (m.get(r.testOptionId) ?? m.set(r.testOptionId, []).get(r.testOptionId)!).push(r);
  }
  const out = new Map<number, Measure[]>();
  for (const [sq, options] of byQ) {
    const measures: Measure[] = [];
    for (const [testOptionId, rs] of options) {
      const n = rs.reduce((a, r) => a + r.n, 0);
      const sumW = rs.reduce((a, r) => a + r.sumW, 0);
      const sumW2 = rs.reduce((a, r) => a + r.sumW2, 0);
      const top = rs.filter((r) => r.value <= 2).reduce((a, r) => a + r.sumW, 0);
      const p = sumW > 0 ? top / sumW : 0;
      const nEff = sumW2 > 0 ? (sumW * sumW) / sumW2 : 0;
      const half = nEff > 0 ? z * Math.sqrt((p * (1 - p)) / nEff) : 0;
      const b = norm?.get(sq);
      const vs = b ? twoProportionZTest({ p, n: nEff }, { p: b.top2, n: b.respondents }, confidence) : null;
      measures.push({
        testOptionId,
        n,
        weight: sumW,
        nEff,
        top2: p,
        ci: [Math.max(0, p - half), Math.min(1, p + half)],
        smallBase: nEff < SMALL_BASE,
        distribution: [1, 2, 3, 4].map((value) => {
          const r = rs.find((x) => x.value === value);
          return { value, label: VALUE_LABELS[value]!, count: r?.n ?? 0, share: sumW > 0 ? (r?.sumW ?? 0) / sumW : 0 };
        }),
        vsBenchmark: b && vs ? { top2Percentage: b.top2 * 100, diff: vs.diff, z: vs.z, pValue: vs.pValue, significant: vs.significant } : null,
        vsOthers: [],
      });
    }
    for (const m of measures) {
      for (const o of measures) {
        if (o === m) continue;
        const t = twoProportionZTest({ p: m.top2, n: m.nEff }, { p: o.top2, n: o.nEff }, confidence);
        m.vsOthers.push({ testOptionId: o.testOptionId, diff: t.diff, z: t.z, pValue: t.pValue, significant: t.significant });
      }
    }
    out.set(sq, measures);
  }
  return out;
}

export async function qualResults(
  db: Db,
  ctx: RequestCtx,
  input: { projectId: number; filters: ResponseFilter; benchmarkTypeId?: number | null; confidence?: Confidence; standardQuestionIds?: number[] | null },
): Promise<QualResults> {
  const confidence = input.confidence ?? 95;
  const data = await withAggregates(
    db,
    ctx,
    input.projectId,
    input.filters,
    // The project's regions only matter to a benchmark (its norm's regions).
    (tx) => Promise.all([q.standardQuestions(tx, null), input.benchmarkTypeId ? q.projectRegions(tx, input.projectId) : []]),
    async (a, p, f, [titles, projectRegions]) => ({
      p,
      rows: await a.scaleAnswers(input.standardQuestionIds ?? null),
      titles,
      regions: f.regionIds ?? projectRegions,
    }),
  );
  let norm: Map<number, { top2: number; respondents: number }> | null = null;
  if (input.benchmarkTypeId) {
    const b = (await benchmarkRows(db, data.p, data.regions)).find((x) => x.benchmarkTypeId === input.benchmarkTypeId);
    if (!b) throw new ApiError("BadRequest", `No benchmark type ${input.benchmarkTypeId}`);
    norm = new Map(Object.entries(b.byStandardQuestion).map(([k, v]) => [Number(k), { top2: v.top2Percentage / 100, respondents: v.respondents }]));
  }
  const results = topTwoBoxes(data.rows, confidence, norm);
  return {
    projectId: data.p.id,
    confidence,
    benchmarkTypeId: input.benchmarkTypeId ?? null,
    measures: data.titles
      .filter((t) => results.has(t.id))
      .map((t) => ({ standardQuestionId: t.id, title: t.title, results: results.get(t.id)! })),
  };
}

export interface QuestionResults {
  projectId: number;
  projectQuestionId: number;
  questionText: string;
  questionTitle: string | null;
  questionTypeId: number;
  options: { id: number; text: string }[];
  results: { testOptionId: number | null; n: number; weight: number; nEff: number; options: { questionOptionId: number; count: number; share: number }[] }[];
}

/** One question's answers: each option's weighted share of the respondents who answered it, per test option. */
export async function questionResults(db: Db, ctx: RequestCtx, input: { projectId: number; projectQuestionId: number; filters: ResponseFilter }): Promise<QuestionResults> {
  return withAggregates(db, ctx, input.projectId, input.filters, (tx) => q.projectQuestion(tx, input.projectId, input.projectQuestionId), async (a, p, _f, pq) => {
    if (!pq) throw new ApiError("NotFound", `No question ${input.projectQuestionId} in project ${p.id}`);
    if (pq.questionTypeId === 3) throw new ApiError("BadRequest", "An open question has verbatims, not option results: use TextResponses/Verbatim");
    const { rows, bases } = await a.optionAnswers(pq.questionId);
    // The 'not sure' option is hidden from standard questions' filters (SPEC 5), not from results.
    return {
      projectId: p.id,
      projectQuestionId: pq.id,
      questionText: pq.questionText,
      questionTitle: pq.questionTitle,
      questionTypeId: pq.questionTypeId,
      options: pq.options.map((o) => ({ id: o.id, text: o.text })),
      results: bases.map((b) => ({
        testOptionId: b.testOptionId,
        n: b.n,
        weight: b.sumW,
        nEff: b.sumW2 > 0 ? (b.sumW * b.sumW) / b.sumW2 : 0,
        options: pq.options.map((o) => {
          const r = rows.find((x) => x.testOptionId === b.testOptionId && x.questionOptionId === o.id);
          return { questionOptionId: o.id, count: r?.n ?? 0, share: b.sumW > 0 ? (r?.sumW ?? 0) / b.sumW : 0 };
        }),
      })),
    };
  });
}

// ---- demographics ----

export async function demographicsResults(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter) {
  return withAggregates(db, ctx, projectId, filters, (tx) => q.systemQuestions(tx), async (a, p, _f, questions) => {
    const rows = await a.demographics();
    return {
      projectId: p.id,
      questions: questions
        .filter((sq) => rows.some((r) => r.systemQuestionId === sq.id))
        .map((sq) => {
          const mine = rows.filter((r) => r.systemQuestionId === sq.id);
          const total = mine.reduce((a, r) => a + r.sumW, 0);
          return {
            systemQuestionId: sq.id,
            questionLabel: sq.label,
            questionCode: sq.code,
            options: sq.options
              .filter((o) => mine.some((r) => r.optionId === o.id))
              .map((o) => {
                const r = mine.find((x) => x.optionId === o.id)!;
                return { systemQuestionOptionId: o.id, answerLabel: o.label, count: r.n, weight: r.sumW, share: total > 0 ? r.sumW / total : 0 };
              }),
          };
        }),
    };
  });
}

// ---- benchmarks ----

export interface BenchmarkRow {
  benchmarkTypeId: number;
  benchmarkName: string;
  description: string;
  regionCode: string | null;
  projectCount: number;
  isAvailable: boolean;
  /** The norm's top-2-box in percent, averaged over the measures it has. */
  top2Percentage: number;
  byStandardQuestion: Record<string, { top2Percentage: number; projectCount: number; respondents: number }>;
}

/**
 * SPEC 5's NPD rule: types below 4 are always offered; 4-7 (launch-week bands) only for an NPD
 * project whose latest week falls in the band (4: week 8 or less, 5: 9-16, 6: 17-25, 7: 26 on).
 */
export function npdBandAvailable(typeId: number, week: number | null, band: { minWeek: number | null; maxWeek: number | null }): boolean {
  if (typeId < 4 || typeId > 7) return true;
  if (week === null) return false;
  return week >= (band.minWeek ?? 1) && week <= (band.maxWeek ?? Number.MAX_SAFE_INTEGER);
}

async function benchmarkRows(db: Db, p: q.ProjectHead, regionIds: number[]): Promise<BenchmarkRow[]> {
  // Norms read every client's completed projects: above the tenant, answering only averages.
  return enterTenant(db, systemCtx(), async (tx) => {
    await refreshStaleNormCells(tx);
    const types = await q.benchmarkTypes(tx);
    const codes = await q.regionCodes(tx, regionIds);
    const week = p.projectTypeId === 4 ? await q.latestWeek(tx, p.id) : null;
    const out: BenchmarkRow[] = [];
    for (const t of types) {
      const rows = await q.norms(tx, p, { type: t.id, minWeek: t.minWeek, maxWeek: t.maxWeek }, regionIds.length ? regionIds : null);
      const projectCount = rows.reduce((a, r) => Math.max(a, r.projectCount), 0);
      const top2 = rows.length ? rows.reduce((a, r) => a + r.top2, 0) / rows.length : 0;
      out.push({
        benchmarkTypeId: t.id,
        benchmarkName: t.name,
        description: t.description,
        regionCode: codes.map((c) => c.code).join(",") || null,
        projectCount,
        isAvailable: projectCount > 0 && (p.projectTypeId !== 4 || npdBandAvailable(t.id, week, t)) && (t.id < 4 || t.id > 7 || p.projectTypeId === 4),
        top2Percentage: top2 * 100,
        byStandardQuestion: Object.fromEntries(rows.map((r) => [String(r.standardQuestionId), { top2Percentage: r.top2 * 100, projectCount: r.projectCount, respondents: r.respondents }])),
      });
    }
    return out;
  });
}

export async function benchmarks(db: Db, ctx: RequestCtx, projectId: number, regionIds: number[] | null) {
  const { p, regions } = await enterTenant(db, ctx, async (tx) => {
    const p = await q.project(tx, projectId);
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    return { p, regions: regionIds ?? (await q.projectRegions(tx, p.id)) };
  });
  const rows = await benchmarkRows(db, p, regions);
  return {
    projectId: p.id,
    value: [
      ...rows,
      { ...NONE_BENCHMARK, description: "No benchmark: results read against 50 percent.", regionCode: null, projectCount: 0, isAvailable: true, byStandardQuestion: {} },
    ],
  };
}

// ---- standard question descriptions ----

export async function standardQuestionDescription(db: Db, ctx: RequestCtx, frameworkId: number) {
  return enterTenant(db, ctx, async (tx) => {
    const ids = (await q.frameworkQuestions(tx, frameworkId)).map((r) => r.id);
    const rows = await q.standardQuestions(tx, ids.length ? ids : [-1]);
    return { frameworkId, value: rows };
  });
}

// ---- the results page's empty path (SPEC 2) ----

/**
 * Where `{clientId}/results/{projectId}` with no tab goes (SPEC 2): Idea or Message projects to
 * price-sensitivity when the framework is price sensitivity (1010), market-reach when it is market
 * reach (1020), else the overview of all results; Npd to npd; Question projects to the segment
 * question's page when one exists, else the first follow-up question's text page (an open
 * question) or qual page. Pure: the web app and the API share it through ResultsLanding.
 */
export function resultsLanding(p: {
  projectTypeId: number;
  frameworkId: number | null;
  segmentQuestionId: number | null;
  firstFollowUp: { projectQuestionId: number; questionTypeId: number } | null;
}): string {
  if (p.projectTypeId === 4) return "npd";
  if (p.projectTypeId === 3) {
    if (p.segmentQuestionId !== null) return `segment-question/${p.segmentQuestionId}`;
    if (p.firstFollowUp) return `${p.firstFollowUp.questionTypeId === 3 ? "text" : "qual"}/${p.firstFollowUp.projectQuestionId}`;
    return "all";
  }
  if (p.frameworkId === 1010) return "price-sensitivity";
  if (p.frameworkId === 1020) return "market-reach";
  return "all";
}

export async function landing(db: Db, ctx: RequestCtx, projectId: number): Promise<{ projectId: number; tab: string; path: string }> {
  return enterTenant(db, ctx, async (tx) => {
    const p = await q.project(tx, projectId);
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    const [seg] = await tx<{ id: number }[]>`
      select pq.id from project_questions pq where pq.project_id = ${p.id} and pq.deleted_at is null and pq.question_position_id = 9 order by pq.sort_order, pq.id limit 1`;
    const [follow] = await tx<{ id: number; typeId: number }[]>`
      select pq.id, qq.question_type_id as "typeId" from project_questions pq join questions qq on qq.id = pq.question_id
      where pq.project_id = ${p.id} and pq.deleted_at is null and pq.question_position_id = 3 order by pq.sort_order, pq.id limit 1`;
    const tab = resultsLanding({
      projectTypeId: p.projectTypeId,
      frameworkId: p.frameworkId,
      segmentQuestionId: seg?.id ?? null,
      firstFollowUp: follow ? { projectQuestionId: follow.id, questionTypeId: follow.typeId } : null,
    });
    return { projectId: p.id, tab, path: `/${p.clientId}/results/${p.id}/${tab}` };
  });
}
