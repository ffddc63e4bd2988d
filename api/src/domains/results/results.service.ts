// Results (SPEC 7 Responses and Projects functions): counts, weights, weighted top-2-box per test
// option and measure with confidence intervals and significance, benchmarks, demographics. Every
// figure comes from sums PostgreSQL computes over the filtered respondents (filters.ts); the
// statistics are the cited ones in analytics/significance.ts (DOMAIN.md):
//   T2B = Σw·[answer <= 2] / Σw;  n_eff = (Σw)² / Σw² (Kish);  CI = T2B ± z·√(T2B(1 − T2B)/n_eff);
//   option vs option and vs the benchmark: two-proportion z-test with the n_eff of each side.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant, readAsCaller } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { SMALL_BASE, twoProportionZTest, type Confidence, type ZTestResult } from "@ideally/analytics/significance";
import {
  ADJUST_NAMES,
  adjustP,
  contrast,
  designEstimates,
  emptySums,
  fixedNorm,
  isSmallBase,
  normDistribution,
  significantAt,
  stratumOf,
  testAgainstNorm,
  THIN_NORM,
  wilsonInterval,
  type Adjust,
  type DesignEstimates,
  type NormDistribution,
} from "@ideally/analytics/design";
import { MARKET_POPULATION } from "@ideally/analytics/populations";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { resolveFilter, type ResolvedFilter, type ResponseFilter } from "./filters.ts";
import * as q from "./results.sql.ts";
import * as col from "./columnar.ts";
import { refreshNormCells, staleNormProjects } from "./norms.ts";
import { jsonText, type JsonText } from "./json-text.ts";

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
  designCells(standardQuestionIds: number[] | null): Promise<q.DesignCell[]>;
  designStrata(): Promise<q.DesignStratum[]>;
  /** Serialized answers remembered for this copy and selection (columnar.ts answerMemo); null on the SQL path. */
  answers: col.AnswerMemo | null;
}

export function sqlAggregates(tx: Tx, projectId: number, f: ResolvedFilter): Aggregates {
  return {
    countsByOptionAndWeek: () => q.countsByOptionAndWeek(tx, projectId, f),
    stdQuestionCounts: () => q.stdQuestionCounts(tx, projectId, f),
    weightSums: () => q.weightSums(tx, projectId, f),
    scaleAnswers: (ids) => q.scaleAnswers(tx, projectId, f, ids),
    optionAnswers: (questionId) => q.optionAnswers(tx, projectId, f, questionId),
    demographics: () => q.demographics(tx, projectId, f),
    designCells: (ids) => q.designCells(tx, projectId, f, ids),
    designStrata: () => q.designStrata(tx, projectId),
    answers: null,
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
    designCells: async (ids) => col.designCellsMemo(cols, sel, ids),
    designStrata: async () => col.designStrata(cols),
    answers: col.answerMemo(cols, sel),
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
  return withAggregates(db, ctx, projectId, filters, nothing, (a, p) => countsOf(a, p));
}

/**
 * The ResponsesCount function's response body, serialized; on the columnar path remembered per
 * project copy and selection (columnar.ts answerMemo: the counts read nothing else). The reads
 * (access, the project's results version, the filter's respondents) are made on every call.
 */
export async function responsesCountBody(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter): Promise<JsonText<ResponsesCount>> {
  return withAggregates(db, ctx, projectId, filters, nothing, async (a, p) => {
    // The memo's "ResponsesCount" entry is this function's own text.
    const hit = a.answers?.get("ResponsesCount") as JsonText<ResponsesCount> | undefined;
    if (hit !== undefined) return hit;
    const body = jsonText(await countsOf(a, p));
    a.answers?.set("ResponsesCount", body);
    return body;
  });
}

export interface ResponsesCount {
  projectId: number;
  value: ResponsesCountRow[];
}

async function countsOf(a: Aggregates, p: q.ProjectHead): Promise<ResponsesCount> {
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
  /** Kish effective base (display; the low-base flag). */
  nEff: number;
  top2: number;
  /** Design-based (Taylor linearised) standard error of top2. */
  se: number;
  /** Wilson interval of top2 at the chosen confidence, with the design's effective n. */
  ci: [number, number];
  smallBase: boolean;
  distribution: { value: number; label: string; count: number; share: number }[];
  vsBenchmark: {
    top2Percentage: number;
    diff: number;
    se: number;
    /** null when not tested: a low base, or no variance to test with (see untestedTest). */
    z: number | null;
    pValue: number | null;
    /** null for an indicative (thin) norm or a test not made: not in the family. */
    pAdjusted: number | null;
    significant: boolean;
    /** The concept's Kish n_eff is below the low base (SMALL_BASE): not tested, never significant. */
    lowBase: boolean;
    /** The norm has fewer than THIN_NORM projects: indicative, never significant. */
    indicative: boolean;
    /** The concept's quintile among the norm's projects (1 bottom .. 5 top). */
    quintile: number | null;
  } | null;
  vsOthers: ({ testOptionId: number | null; paired: boolean } & ViewTest)[];
}

/** How a view's figures were computed (every view reports it). */
export interface StatsMethod {
  variance: "taylor-linearisation";
  strata: "market run";
  interval: "wilson";
  adjust: Adjust;
  adjustName: string;
  /** Tests in the view's family (the adjustment's m). */
  tests: number;
  smallBase: number;
  thinNorm: number;
}

export function statsMethod(adjust: Adjust, tests: number): StatsMethod {
  return { variance: "taylor-linearisation", strata: "market run", interval: "wilson", adjust, adjustName: ADJUST_NAMES[adjust], tests, smallBase: SMALL_BASE, thinNorm: THIN_NORM };
}

export interface MarketCell {
  testOptionId: number | null;
  n: number;
  nEff: number;
  top2: number;
  se: number;
  ci: [number, number];
  smallBase: boolean;
}

/** A market's cell against the same option in another market (independent samples: markets are disjoint strata). */
export interface MarketTest extends ViewTest {
  regionId: number;
}

/**
 * A test as a view shows it (docs/statistics.md "The low base"): a comparison where either side's
 * Kish n_eff is below the low base (SMALL_BASE, 30) is not made, with no z, no p-value and never
 * significant (`lowBase`), as the cross-tab refuses such cells; a comparison with no variance to
 * test (z undefined) has null figures rather than NaN, which JSON and file formats cannot hold.
 */
export interface ViewTest {
  diff: number;
  se: number;
  z: number | null;
  pValue: number | null;
  pAdjusted: number | null;
  significant: boolean;
  /** A side's Kish n_eff is below the low base: not tested. */
  lowBase: boolean;
}

const finite = (x: number): number | null => (Number.isFinite(x) ? x : null);

/** A comparison's figures for a view: untested below the low base, null where undefined. */
export function viewTest(c: { diff: number; se: number; z: number; p: number }, lowBase: boolean): ViewTest {
  return lowBase
    ? { diff: c.diff, se: c.se, z: null, pValue: null, pAdjusted: null, significant: false, lowBase }
    : { diff: c.diff, se: c.se, z: finite(c.z), pValue: finite(c.p), pAdjusted: null, significant: false, lowBase };
}

/** Enters a view's test into its family (not a test below the low base, nor one with no p-value); the adjusted p and significance go to every side given. */
export function enterFamily(family: Family, t: ViewTest, ...sides: ViewTest[]): void {
  if (t.lowBase || t.pValue === null) return;
  family.push({
    p: t.pValue,
    set: (pa, sig) => {
      for (const x of [t, ...sides]) {
        x.pAdjusted = finite(pa);
        x.significant = sig;
      }
    },
  });
}

export interface QualResults {
  projectId: number;
  confidence: Confidence;
  benchmarkTypeId: number | null;
  method: StatsMethod;
  /** What `measures` is: `sample` every respondent at their own weight; `markets` the all-markets total (allMarkets.weighting). */
  total: "sample" | "markets";
  /** The total with every test: sample-weighted, or the all-markets weighting when total = markets. */
  measures: { standardQuestionId: number; title: string; results: Measure[] }[];
  /** Market by market: each measure and option within each market (its runs), against the other markets. */
  markets: { regionId: number; measures: { standardQuestionId: number; results: (MarketCell & { vsMarkets: MarketTest[] })[] }[] }[];
  /** The market-by-market table's own family: every pair of markets on every measure and option. */
  marketsMethod: { adjust: Adjust; adjustName: string; tests: number; comparisons: string };
  /** The "all markets" total: markets weighted by population (or by sample, as chosen or when a population is unknown). */
  allMarkets: {
    weighting: "population" | "sample";
    note: string | null;
    shares: { regionId: number; population: number | null; source: string | null; sampleShare: number; share: number }[];
    measures: { standardQuestionId: number; results: MarketCell[] }[];
  };
}

function marketCells(design: Map<number, { domains: (number | null)[]; est: DesignEstimates }>, confidence: Confidence) {
  return [...design]
    .sort((a, b) => a[0] - b[0])
    .map(([sq, { domains, est }]) => ({
      standardQuestionId: sq,
      results: domains
        .map((o, i): MarketCell => {
          const d = est.domains[i]!;
          const ci = wilsonInterval(d.estimate, d.se, d.n, d.nEff, confidence);
          return { testOptionId: o, n: d.n, nEff: d.nEff, top2: d.estimate, se: d.se, ci: [ci.lo, ci.hi], smallBase: isSmallBase(d.nEff) };
        })
        .sort((a, b) => nullsFirst(a.testOptionId, b.testOptionId)),
    }));
}

/**
 * The market-by-market table and the "all markets" total. A market is the union of its runs
 * (strata), so its figures are the design's restricted to them. Population weighting rescales each
 * market's weights by (population share)/(weighted sample share) among the project's markets,
 * the shares treated as fixed; without a population for every market it falls back to sample
 * weighting and says why.
 */
export function marketTotals(
  cells: q.DesignCell[],
  strata: q.DesignStratum[],
  confidence: Confidence,
  weighting: "population" | "sample",
  adjust: Adjust = "bh",
): Pick<QualResults, "markets" | "allMarkets" | "marketsMethod"> {
  const regions = [...new Set(strata.map((h) => h.regionId))].sort((a, b) => a - b);
  const regionOf = new Map(strata.map((h) => [h.run, h.regionId]));
  // One design over every market, a domain per (option, market): a market's domain lives in its
  // own strata only, so its estimate and SE are those of its runs alone, and two markets'
  // covariance is zero (independent samples).
  const byMarket = designByQuestion(
    cells.map((c) => ({ ...c, wa: regionOf.get(c.run) ?? null, wb: regionOf.get(c.run) ?? null })),
    strata,
    (o, r) => ({ o, r: r ?? null }),
    (k) => `${k.o}|${k.r}`,
  );
  const family: Family = [];
  const pending: { region: number; option: number | null; sq: number; test: MarketTest }[] = [];
  const markets = regions.map((regionId) => ({ regionId, measures: [] as QualResults["markets"][number]["measures"] }));
  for (const [sq, { domains, est }] of [...byMarket].sort((a, b) => a[0] - b[0])) {
    const cellsOf = new Map<number, (MarketCell & { vsMarkets: MarketTest[] })[]>();
    const index = new Map(domains.map((d, i) => [`${d.o}|${d.r}`, i]));
    domains.forEach((dom, i) => {
      const d = est.domains[i]!;
      const ci = wilsonInterval(d.estimate, d.se, d.n, d.nEff, confidence);
      const cell = { testOptionId: dom.o, n: d.n, nEff: d.nEff, top2: d.estimate, se: d.se, ci: [ci.lo, ci.hi] as [number, number], smallBase: isSmallBase(d.nEff), vsMarkets: [] as MarketTest[] };
      (cellsOf.get(dom.r!) ?? cellsOf.set(dom.r!, []).get(dom.r!)!).push(cell);
      for (const other of regions) {
        if (other <= dom.r!) continue;
        const j = index.get(`${dom.o}|${other}`);
        if (j === undefined) continue;
        const c = contrast(est, i, j);
        const low = isSmallBase(d.nEff) || isSmallBase(est.domains[j]!.nEff);
        const ab: MarketTest = { regionId: other, ...viewTest(c, low) };
        const ba: MarketTest = { ...ab, regionId: dom.r!, diff: -c.diff, z: ab.z === null ? null : -ab.z };
        cell.vsMarkets.push(ab);
        // The other side is added when its cell is built (domains may come in any order).
        pending.push({ region: other, option: dom.o, sq, test: ba });
        enterFamily(family, ab, ba);
      }
    });
    for (const m of markets) {
      const rs = (cellsOf.get(m.regionId) ?? []).sort((a, b) => nullsFirst(a.testOptionId, b.testOptionId));
      if (rs.length) m.measures.push({ standardQuestionId: sq, results: rs });
    }
  }
  for (const x of pending) {
    const cell = markets
      .find((m) => m.regionId === x.region)
      ?.measures.find((m) => m.standardQuestionId === x.sq)
      ?.results.find((r) => r.testOptionId === x.option);
    cell?.vsMarkets.push(x.test);
  }
  for (const m of markets) for (const ms of m.measures) for (const r of ms.results) r.vsMarkets.sort((a, b) => a.regionId - b.regionId);
  const tests = adjustFamily(family, adjust, confidence);
  const W = strata.reduce((a, h) => a + h.sumW, 0);
  const sampleShare = new Map(regions.map((r) => [r, W > 0 ? strata.filter((h) => h.regionId === r).reduce((a, h) => a + h.sumW, 0) / W : 0]));
  const missing = regions.filter((r) => !MARKET_POPULATION[r]);
  const { population: usePopulation, share, scale } = marketScale(strata, weighting);
  return {
    markets,
    marketsMethod: { adjust, adjustName: ADJUST_NAMES[adjust], tests, comparisons: "every pair of markets on every measure and test option (independent samples)" },
    allMarkets: {
      weighting: usePopulation ? "population" : "sample",
      note: weighting === "population" && !usePopulation ? `No population figure for region ${missing.join(", ")}: markets weighted by sample` : null,
      shares: regions.map((r) => ({
        regionId: r,
        population: MARKET_POPULATION[r]?.population ?? null,
        source: MARKET_POPULATION[r]?.source ?? null,
        sampleShare: sampleShare.get(r)!,
        share: share.get(r)!,
      })),
      measures: marketCells(
        designByQuestion(cells, strata, (o) => o, String, scale),
        confidence,
      ),
    },
  };
}

/**
 * The all-markets weighting: with population weighting (and a population for every market) each
 * run's weights are scaled by its market's population share over its weighted sample share among
 * the markets present; otherwise 1 (sample weighting).
 */
export function marketScale(strata: readonly q.DesignStratum[], weighting: "population" | "sample"): { population: boolean; share: Map<number, number>; scale: Map<number, number> } {
  const regions = [...new Set(strata.map((h) => h.regionId))].sort((a, b) => a - b);
  const W = strata.reduce((a, h) => a + h.sumW, 0);
  const sampleShare = new Map(regions.map((r) => [r, W > 0 ? strata.filter((h) => h.regionId === r).reduce((a, h) => a + h.sumW, 0) / W : 0]));
  const population = weighting === "population" && regions.length > 0 && regions.every((r) => MARKET_POPULATION[r]);
  const P = regions.reduce((a, r) => a + (MARKET_POPULATION[r]?.population ?? 0), 0);
  const share = new Map(regions.map((r) => [r, population ? MARKET_POPULATION[r]!.population / P : sampleShare.get(r)!]));
  const scale = new Map(strata.map((h) => [h.run, population && sampleShare.get(h.regionId)! > 0 ? share.get(h.regionId)! / sampleShare.get(h.regionId)! : 1]));
  return { population, share, scale };
}

/** A norm cell: the comparable projects' scores of one measure (NormDistribution) and their respondents. */
export type NormCell = NormDistribution & { respondents: number };

const nullsFirst = (a: number | null, b: number | null) => (a === b ? 0 : a === null ? -1 : b === null ? 1 : a - b);

/**
 * The design's sums per standard question (analytics/design.ts): strata = market runs
 * (every complete respondent of the project counts in its run's n_h: filters are domains),
 * domains = the `domainOf(cell side)` keys (test options; waves and options for WaveData).
 */
export function designByQuestion<K>(
  cells: readonly (q.DesignCell & { wa?: number | null; wb?: number | null })[],
  strata: readonly { run: number; n: number }[],
  domainOf: (option: number | null, wave: number | null | undefined) => K,
  keyOf: (k: K) => string,
  /** Per run, a factor on its respondents' weights (a market's population share over its sample share). */
  scale?: Map<number, number>,
): Map<number, { domains: K[]; est: DesignEstimates }> {
  const bySq = new Map<number, (q.DesignCell & { wa?: number | null; wb?: number | null })[]>();
  for (const c of cells) (bySq.get(c.standardQuestionId) ?? bySq.set(c.standardQuestionId, []).get(c.standardQuestionId)!).push(c);
  const out = new Map<number, { domains: K[]; est: DesignEstimates }>();
  for (const [sq, cs] of bySq) {
    const domains: K[] = [];
    const index = new Map<string, number>();
    for (const c of cs) {
      if (c.a !== c.b || c.wa !== c.wb) continue;
      const k = domainOf(c.a, c.wa);
      if (!index.has(keyOf(k))) {
        index.set(keyOf(k), domains.length);
        domains.push(k);
      }
    }
    const s = emptySums(domains.length);
    for (const h of strata) stratumOf(s, String(h.run)).n = h.n;
    const k = domains.length;
    for (const c of cs) {
      const h = stratumOf(s, String(c.run));
      const d = index.get(keyOf(domainOf(c.a, c.wa)))!;
      const e = index.get(keyOf(domainOf(c.b, c.wb)))!;
      const x = d * k + e;
      const f = scale?.get(c.run) ?? 1;
      h.NN[x]! += c.nn;
      h.AA[x]! += c.aa * f * f;
      h.AB[x]! += c.ab * f * f;
      h.BB[x]! += c.bb * f * f;
      if (d === e) {
        h.count[d]! += c.nn;
        h.A[d]! += c.sA * f;
        h.B[d]! += c.sB * f;
      }
    }
    out.set(sq, { domains, est: designEstimates(s) });
  }
  return out;
}

/**
 * Top-2-box per standard measure and test option with design-based SEs, Wilson intervals, paired
 * comparisons between options and the test against the norm; p-values adjusted over the whole
 * view (every option pair of every measure and every benchmark test). Pure.
 */
export function designTopTwoBoxes(
  rows: q.ScaleRow[],
  design: Map<number, { domains: (number | null | undefined)[]; est: DesignEstimates }>,
  confidence: Confidence,
  adjust: Adjust,
  norm: Map<number, NormCell> | null,
  /** The view's family when it spans more than this call (WaveData): tests are added, the caller adjusts. */
  shared?: Family,
): { bySq: Map<number, Measure[]>; tests: number } {
  const out = new Map<number, Measure[]>();
  const family: Family = shared ?? [];
  for (const [sq, { domains, est }] of [...design].sort((a, b) => a[0] - b[0])) {
    const measures: Measure[] = [];
    // undefined: a domain outside this view (another wave's options).
    const order = domains
      .map((o, i) => ({ o, i }))
      .filter((x): x is { o: number | null; i: number } => x.o !== undefined)
      .sort((a, b) => nullsFirst(a.o, b.o));
    for (const { o: testOptionId, i } of order) {
      const d = est.domains[i]!;
      const rs = rows.filter((r) => r.standardQuestionId === sq && r.testOptionId === testOptionId);
      const ci = wilsonInterval(d.estimate, d.se, d.n, d.nEff, confidence);
      const b = norm?.get(sq);
      let vsBenchmark: Measure["vsBenchmark"] = null;
      if (b && b.count > 0) {
        const t = testAgainstNorm(d.estimate, d.se, b);
        const v: NonNullable<Measure["vsBenchmark"]> = { top2Percentage: b.mean * 100, ...viewTest(t, isSmallBase(d.nEff)), indicative: t.thin, quintile: t.quintile };
        vsBenchmark = v;
        // A thin norm is indicative: outside the family, never significant (a low base is not tested at all).
        if (!t.thin) enterFamily(family, v);
      }
      measures.push({
        testOptionId,
        n: d.n,
        weight: d.weight,
        nEff: d.nEff,
        top2: d.estimate,
        se: d.se,
        ci: [ci.lo, ci.hi],
        smallBase: isSmallBase(d.nEff),
        distribution: [1, 2, 3, 4].map((value) => {
          const r = rs.find((x) => x.value === value);
          return { value, label: VALUE_LABELS[value]!, count: r?.n ?? 0, share: d.weight > 0 ? (r?.sumW ?? 0) / d.weight : 0 };
        }),
        vsBenchmark,
        vsOthers: [],
      });
    }
    // Each unordered pair is one test, shown from both sides.
    for (let x = 0; x < order.length; x++) {
      for (let y = x + 1; y < order.length; y++) {
        const c = contrast(est, order[x]!.i, order[y]!.i);
        const low = measures[x]!.smallBase || measures[y]!.smallBase;
        const ab = { testOptionId: order[y]!.o, paired: c.paired, ...viewTest(c, low) };
        const ba = { ...ab, testOptionId: order[x]!.o, diff: -c.diff, z: ab.z === null ? null : -ab.z };
        measures[x]!.vsOthers.push(ab);
        measures[y]!.vsOthers.push(ba);
        enterFamily(family, ab, ba);
      }
    }
    for (const m of measures) m.vsOthers.sort((a, b) => nullsFirst(a.testOptionId, b.testOptionId));
    out.set(sq, measures);
  }
  return { bySq: out, tests: shared ? 0 : adjustFamily(family, adjust, confidence) };
}

/** A view's tests: each p-value and where its adjusted p-value and significance go. */
export type Family = { p: number; set: (pAdj: number, sig: boolean) => void }[];

/** Adjusts a view's family (Benjamini-Hochberg, Bonferroni or none) and marks significance; returns the family's size. */
export function adjustFamily(family: Family, adjust: Adjust, confidence: Confidence): number {
  const adj = adjustP(
    family.map((f) => f.p),
    adjust,
  );
  family.forEach((f, i) => {
    f.set(adj[i]!, significantAt(adj[i]!, confidence));
  });
  return family.filter((f) => Number.isFinite(f.p)).length;
}

const zSe = (t: { diff: number; z: number }) => (t.z !== 0 && Number.isFinite(t.z) ? Math.abs(t.diff / t.z) : 0);

/** A Kish z-test (project groups' pooled figures) as a view's test: not made below the low base. */
function kishTest(t: ZTestResult): ViewTest {
  const v = viewTest({ diff: t.diff, se: zSe(t), z: t.z, p: t.pValue }, t.smallBase);
  return t.smallBase ? v : { ...v, pAdjusted: v.pValue, significant: t.significant };
}

/** Top-2-box from answer-value sums with Kish bases (project groups' pooled figures; pure). */
export function topTwoBoxes(rows: q.ScaleRow[], confidence: Confidence, norm: Map<number, { top2: number; respondents: number }> | null): Map<number, Measure[]> {
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
      const se = nEff > 0 ? Math.sqrt((p * (1 - p)) / nEff) : 0;
      const ci = wilsonInterval(p, se, nEff, nEff, confidence);
      const b = norm?.get(sq);
      const vs = b ? twoProportionZTest({ p, n: nEff }, { p: b.top2, n: b.respondents }, confidence) : null;
      measures.push({
        testOptionId,
        n,
        weight: sumW,
        nEff,
        top2: p,
        se,
        ci: [ci.lo, ci.hi],
        smallBase: isSmallBase(nEff),
        distribution: [1, 2, 3, 4].map((value) => {
          const r = rs.find((x) => x.value === value);
          return { value, label: VALUE_LABELS[value]!, count: r?.n ?? 0, share: sumW > 0 ? (r?.sumW ?? 0) / sumW : 0 };
        }),
        vsBenchmark: b && vs ? { top2Percentage: b.top2 * 100, ...kishTest(vs), indicative: false, quintile: null } : null,
        vsOthers: [],
      });
    }
    for (const m of measures) {
      for (const o of measures) {
        if (o === m) continue;
        const t = twoProportionZTest({ p: m.top2, n: m.nEff }, { p: o.top2, n: o.nEff }, confidence);
        m.vsOthers.push({ testOptionId: o.testOptionId, ...kishTest(t), paired: false });
      }
    }
    out.set(sq, measures);
  }
  return out;
}

type QualInput = {
  projectId: number;
  filters: ResponseFilter;
  benchmarkTypeId?: number | null;
  confidence?: Confidence;
  adjust?: Adjust;
  marketWeighting?: "population" | "sample";
  /** `markets`: `measures` (and their tests) are the all-markets total, markets weighted as marketWeighting says. */
  total?: "sample" | "markets";
  standardQuestionIds?: number[] | null;
};

/** QualResults' reads: the caller's (one round trip), then the benchmark's norm (one more, unless this process kept it: benchmarkNorm). */
async function qualReads(db: Db, ctx: RequestCtx, input: QualInput) {
  const sumsOf = async (a: Aggregates) => ({
    rows: await a.scaleAnswers(input.standardQuestionIds ?? null),
    cells: await a.designCells(input.standardQuestionIds ?? null),
    strata: await a.designStrata(),
  });
  const data = await withAggregates(
    db,
    ctx,
    input.projectId,
    input.filters,
    // The project's regions, the benchmark type and the norms' epoch only matter to a benchmark
    // (its norm's regions and weeks, and whether a kept norm is current).
    (tx) =>
      Promise.all([
        q.standardQuestionTitles(tx),
        input.benchmarkTypeId ? q.projectRegions(tx, input.projectId) : [],
        input.benchmarkTypeId ? q.benchmarkType(tx, input.benchmarkTypeId) : undefined,
        input.benchmarkTypeId ? q.normsEpoch(tx) : null,
      ]),
    async (a, p, f, [titles, projectRegions, type, epoch]) => ({
      p,
      a,
      // The SQL path reads its sums in its transaction; the columnar copy's are computed when
      // needed (not at all when the answer is remembered).
      sums: a.answers ? null : await sumsOf(a),
      titles,
      type,
      epoch,
      regions: f.regionIds ?? projectRegions,
    }),
  );
  let normRows: q.NormRow[] | null = null;
  if (input.benchmarkTypeId && input.benchmarkTypeId !== NONE_BENCHMARK.benchmarkTypeId) {
    const t = data.type;
    if (!t) throw new ApiError("BadRequest", `No benchmark type ${input.benchmarkTypeId}`);
    normRows = await benchmarkNorm(db, data.p, data.regions, t, data.epoch);
  }
  return { ...data, normRows, sums: () => data.sums ?? sumsOf(data.a) };
}

/** QualResults' figures from its reads (pure). */
function qualFigures(input: QualInput, r: Awaited<ReturnType<typeof qualReads>>, sums: { rows: q.ScaleRow[]; cells: q.DesignCell[]; strata: q.DesignStratum[] }): QualResults {
  const confidence = input.confidence ?? 95;
  const adjust = input.adjust ?? "bh";
  let norm: Map<number, NormCell> | null = null;
  if (input.benchmarkTypeId === NONE_BENCHMARK.benchmarkTypeId) {
    // SPEC 7's 'None': a flat 50% line, and each concept tested against it.
    norm = new Map(r.titles.map((t) => [t.id, { ...fixedNorm(NONE_BENCHMARK.top2Percentage / 100), respondents: 0 }]));
  } else if (r.normRows) norm = normCells(r.normRows);
  const weighting = input.marketWeighting ?? "population";
  const total = input.total ?? "sample";
  const design = designByQuestion(sums.cells, sums.strata, (o) => o, String, total === "markets" ? marketScale(sums.strata, weighting).scale : undefined);
  const { bySq: results, tests } = designTopTwoBoxes(sums.rows, design, confidence, adjust, norm);
  return {
    projectId: r.p.id,
    confidence,
    benchmarkTypeId: input.benchmarkTypeId ?? null,
    method: statsMethod(adjust, tests),
    total,
    ...marketTotals(sums.cells, sums.strata, confidence, weighting, adjust),
    measures: r.titles.filter((t) => results.has(t.id)).map((t) => ({ standardQuestionId: t.id, title: t.title, results: results.get(t.id)! })),
  };
}

export async function qualResults(db: Db, ctx: RequestCtx, input: QualInput): Promise<QualResults> {
  const r = await qualReads(db, ctx, input);
  return qualFigures(input, r, await r.sums());
}

/**
 * The QualResults function's response body (the route's `{ ...qualResults, question: null }`,
 * serialized). On the columnar path it is remembered (columnar.ts answerMemo) per project copy
 * and selection, keyed by the options and by every other input the figures read: the norm's rows
 * (a comparable project's change, a refreshed rollup) and the measures' titles. The reads are made
 * on every call (the caller's access, the project's results version, the filter's respondents,
 * the norm): only the computation and the serialization are skipped.
 */
/** QualResults without a question: the figures and question null. */
export type QualResultsAnswer = QualResults & { question: null };

export async function qualResultsBody(db: Db, ctx: RequestCtx, input: QualInput): Promise<JsonText<QualResultsAnswer>> {
  const r = await qualReads(db, ctx, input);
  const memo = r.a.answers;
  const key = memo
    ? JSON.stringify([
        "QualResults",
        input.benchmarkTypeId ?? null,
        input.confidence ?? 95,
        input.adjust ?? "bh",
        input.marketWeighting ?? "population",
        input.total ?? "sample",
        input.standardQuestionIds ?? null,
        r.titles.map((t) => [t.id, t.title]),
        r.normRows,
      ])
    : "";
  // The memo's entry under this key is this function's own text.
  const hit = memo?.get(key) as JsonText<QualResultsAnswer> | undefined;
  if (hit !== undefined) return hit;
  const body = jsonText<QualResultsAnswer>({ ...qualFigures(input, r, await r.sums()), question: null });
  memo?.set(key, body);
  return body;
}

export interface QuestionResults {
  projectId: number;
  projectQuestionId: number;
  questionText: string;
  questionTitle: string | null;
  questionTypeId: number;
  /** What the shares are: `sample` every respondent at their own weight; `markets` the all-markets total (as QualResults' total). */
  total: "sample" | "markets";
  options: { id: number; text: string }[];
  results: { testOptionId: number | null; n: number; weight: number; nEff: number; options: { questionOptionId: number; count: number; share: number }[] }[];
}

/** Each market's factor on its respondents' weights in the all-markets total: marketScale's (one per run), by market. */
export function regionScale(strata: readonly q.DesignStratum[], weighting: "population" | "sample" = "population"): Map<number, number> {
  const { scale } = marketScale(strata, weighting);
  return new Map(strata.map((h) => [h.regionId, scale.get(h.run)!]));
}

/**
 * The all-markets total of a read that has no runs in its rows (a question's, the demographics'):
 * the same read over each market of the filter on its own, with the market's factor from
 * marketScale (QualResults' weighting), for the caller to sum.
 */
async function perMarket<R>(
  db: Db,
  ctx: RequestCtx,
  projectId: number,
  filters: ResponseFilter,
  strata: readonly q.DesignStratum[],
  read: (a: Aggregates) => Promise<R>,
): Promise<{ f: number; value: R }[]> {
  const scale = regionScale(strata);
  const out: { f: number; value: R }[] = [];
  for (const [regionId, f] of [...scale].sort((a, b) => a[0] - b[0])) {
    if (filters.regionIds && !filters.regionIds.includes(regionId)) continue;
    out.push({ f, value: await withAggregates(db, ctx, projectId, { ...filters, regionIds: [regionId] }, nothing, (a) => read(a)) });
  }
  return out;
}

/** One question's answers: each option's weighted share of the respondents who answered it, per test option (total=markets: the all-markets total). */
export async function questionResults(
  db: Db,
  ctx: RequestCtx,
  input: { projectId: number; projectQuestionId: number; filters: ResponseFilter; total?: "sample" | "markets" },
): Promise<QuestionResults> {
  const total = input.total ?? "sample";
  const head = await withAggregates(
    db,
    ctx,
    input.projectId,
    input.filters,
    (tx) => q.projectQuestion(tx, input.projectId, input.projectQuestionId),
    async (a, p, _f, pq) => {
      if (!pq) throw new ApiError("NotFound", `No question ${input.projectQuestionId} in project ${p.id}`);
      if (pq.questionTypeId === 3) throw new ApiError("BadRequest", "An open question has verbatims, not option results: use TextResponses/Verbatim");
      return { p, pq, ...(await a.optionAnswers(pq.questionId)), strata: total === "markets" ? await a.designStrata() : [] };
    },
  );
  const { p, pq } = head;
  let { rows, bases } = head;
  if (total === "markets") {
    // Each market's weights times its factor: the same rows and bases, summed over the markets.
    const parts = await perMarket(db, ctx, input.projectId, input.filters, head.strata, (a) => a.optionAnswers(pq.questionId));
    const sum = (w: (v: (typeof parts)[number]["value"]) => number, power = 1) => parts.reduce((a, x) => a + x.f ** power * w(x.value), 0);
    bases = bases.map((b) => ({
      ...b,
      sumW: sum((v) => v.bases.find((x) => x.testOptionId === b.testOptionId)?.sumW ?? 0),
      sumW2: sum((v) => v.bases.find((x) => x.testOptionId === b.testOptionId)?.sumW2 ?? 0, 2),
    }));
    rows = rows.map((r) => ({ ...r, sumW: sum((v) => v.rows.find((x) => x.testOptionId === r.testOptionId && x.questionOptionId === r.questionOptionId)?.sumW ?? 0) }));
  }
  // The 'not sure' option is hidden from standard questions' filters (SPEC 5), not from results.
  return {
    projectId: p.id,
    projectQuestionId: pq.id,
    questionText: pq.questionText,
    questionTitle: pq.questionTitle,
    questionTypeId: pq.questionTypeId,
    total,
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
}

// ---- demographics ----

/** Each demographic's answers as weighted shares of the filtered respondents (total=markets: the all-markets total, as QualResults weights it). */
export async function demographicsResults(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter, total: "sample" | "markets" = "sample") {
  const head = await withAggregates(
    db,
    ctx,
    projectId,
    filters,
    (tx) => q.systemQuestions(tx),
    async (a, p, _f, questions) => ({
      p,
      questions,
      rows: await a.demographics(),
      strata: total === "markets" ? await a.designStrata() : [],
    }),
  );
  const { p, questions } = head;
  let rows = head.rows;
  if (total === "markets") {
    const parts = await perMarket(db, ctx, projectId, filters, head.strata, (a) => a.demographics());
    rows = rows.map((r) => ({ ...r, sumW: parts.reduce((s, x) => s + x.f * (x.value.find((y) => y.systemQuestionId === r.systemQuestionId && y.optionId === r.optionId)?.sumW ?? 0), 0) }));
  }
  return {
    projectId: p.id,
    total,
    questions: questions
      .filter((sq) => rows.some((r) => r.systemQuestionId === sq.id))
      .map((sq) => {
        const mine = rows.filter((r) => r.systemQuestionId === sq.id);
        const sumW = mine.reduce((a, r) => a + r.sumW, 0);
        return {
          systemQuestionId: sq.id,
          questionLabel: sq.label,
          questionCode: sq.code,
          options: sq.options
            .filter((o) => mine.some((r) => r.optionId === o.id))
            .map((o) => {
              const r = mine.find((x) => x.optionId === o.id)!;
              return { systemQuestionOptionId: o.id, answerLabel: o.label, count: r.n, weight: r.sumW, share: sumW > 0 ? r.sumW / sumW : 0 };
            }),
        };
      }),
  };
}

// ---- benchmarks ----

export interface BenchmarkRow {
  benchmarkTypeId: number;
  benchmarkName: string;
  description: string;
  regionCode: string | null;
  projectCount: number;
  isAvailable: boolean;
  /** Fewer than THIN_NORM comparable projects on every measure: shown as indicative, never significant. */
  indicative: boolean;
  /** The norm's top-2-box in percent, averaged over the measures it has. */
  top2Percentage: number;
  /** Per measure: the projects' mean, between-project SD (null under 2 projects) and count. */
  byStandardQuestion: Record<string, { top2Percentage: number; sdPercentage: number | null; projectCount: number; respondents: number; indicative: boolean }>;
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

const normCells = (rows: q.NormRow[]): Map<number, NormCell> => new Map(rows.map((r) => [r.standardQuestionId, { ...normDistribution(r.scores), respondents: r.respondents }]));

/** How many norms a process keeps per database (the most recently used). */
export const NORMS_KEPT = 256;
let normsSeen = new WeakMap<Db, Map<string, q.NormRow[]>>();

/** Forgets the norms this process keeps (tests). */
export function clearNormsMemo(): void {
  normsSeen = new WeakMap();
}

/**
 * One benchmark type's norm for the project (a results call names one benchmark). Kept per
 * database under the norms' epoch (migration 0044) it was read with: `epoch` is the counter as the
 * request's own transaction read it; the same value means nothing a norm reads has changed since
 * the kept norm was computed, and it is reused without a statement. Otherwise one round trip: the
 * counter, the stale check and the norm pipelined in one transaction above the tenant (readAsCaller
 * on the system context), and the norm is kept under the counter read in that transaction, first
 * (a change committed after that read can only make the kept norm newer than its epoch says, never
 * older, whichever server each read reached). Only when a comparable project's cells are stale
 * (its results changed since they were built, and the norms job has not reached it yet) the cells
 * are rebuilt first and the norm read again, as Benchmarks does: a norm always equals the
 * computation over the responses.
 */
async function benchmarkNorm(db: Db, p: q.ProjectHead, regionIds: number[], t: { id: number; minWeek: number | null; maxWeek: number | null }, epoch: string | null): Promise<q.NormRow[]> {
  const kind = { type: t.id, minWeek: t.minWeek, maxWeek: t.maxWeek };
  const regions = regionIds.length ? regionIds : null;
  const facets = JSON.stringify([p.id, p.clientId, p.productType, p.categoryId, kind, regions]);
  let seen = normsSeen.get(db);
  if (!seen) {
    seen = new Map();
    normsSeen.set(db, seen);
  }
  if (epoch !== null) {
    const hit = seen.get(`${epoch}|${facets}`);
    if (hit) {
      seen.delete(`${epoch}|${facets}`);
      seen.set(`${epoch}|${facets}`, hit);
      return hit;
    }
  }
  const [read, stale, rows] = await readAsCaller(db, systemCtx(), (tx) => Promise.all([q.normsEpoch(tx), staleNormProjects(tx), q.norms(tx, p, kind, regions)]));
  const norm = stale.length
    ? await enterTenant(db, systemCtx(), async (tx) => {
        for (const id of await staleNormProjects(tx)) await refreshNormCells(tx, id);
        return q.norms(tx, p, kind, regions);
      })
    : rows;
  if (seen.size >= NORMS_KEPT) seen.delete(seen.keys().next().value!);
  seen.set(`${read}|${facets}`, norm);
  return norm;
}

/** The benchmarks' norms for the project, of every benchmark type (the Benchmarks function). */
async function benchmarkNorms(db: Db, p: q.ProjectHead, regionIds: number[]): Promise<{ row: BenchmarkRow; cells: Map<number, NormCell> }[]> {
  // Norms read every client's completed projects: above the tenant, answering only their distribution's summaries.
  return enterTenant(db, systemCtx(), async (tx) => {
    // Round trips: the stale check with the benchmark types, the region codes and the latest week
    // (pipelined); a refresh only when something is stale; then every norm (pipelined).
    const [stale, types, codes, week] = await Promise.all([staleNormProjects(tx), q.benchmarkTypes(tx), q.regionCodes(tx, regionIds), p.projectTypeId === 4 ? q.latestWeek(tx, p.id) : null]);
    for (const id of stale) await refreshNormCells(tx, id);
    const norms = await Promise.all(types.map((t) => q.norms(tx, p, { type: t.id, minWeek: t.minWeek, maxWeek: t.maxWeek }, regionIds.length ? regionIds : null)));
    const out: { row: BenchmarkRow; cells: Map<number, NormCell> }[] = [];
    for (const [i, t] of types.entries()) {
      const rows = norms[i]!;
      const projectCount = rows.reduce((a, r) => Math.max(a, r.projectCount), 0);
      const top2 = rows.length ? rows.reduce((a, r) => a + r.top2, 0) / rows.length : 0;
      const cells = normCells(rows);
      out.push({
        cells,
        row: {
          benchmarkTypeId: t.id,
          benchmarkName: t.name,
          description: t.description,
          regionCode: codes.map((c) => c.code).join(",") || null,
          projectCount,
          isAvailable: projectCount > 0 && (p.projectTypeId !== 4 || npdBandAvailable(t.id, week, t)) && (t.id < 4 || t.id > 7 || p.projectTypeId === 4),
          indicative: projectCount < THIN_NORM,
          top2Percentage: top2 * 100,
          byStandardQuestion: Object.fromEntries(
            rows.map((r) => {
              const d = cells.get(r.standardQuestionId)!;
              return [
                String(r.standardQuestionId),
                {
                  top2Percentage: r.top2 * 100,
                  sdPercentage: Number.isFinite(d.sd) ? d.sd * 100 : null,
                  projectCount: r.projectCount,
                  respondents: r.respondents,
                  indicative: r.projectCount < THIN_NORM,
                },
              ];
            }),
          ),
        },
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
  const rows = (await benchmarkNorms(db, p, regions)).map((b) => b.row);
  return {
    projectId: p.id,
    value: [
      ...rows,
      { ...NONE_BENCHMARK, description: "No benchmark: results read against 50 percent.", regionCode: null, projectCount: 0, isAvailable: true, indicative: false, byStandardQuestion: {} },
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

/** Where the results open: the tab (SPEC 2) and the view, the all-markets total for a project of several markets (issue 37). */
export interface ResultsLanding {
  projectId: number;
  tab: string;
  path: string;
  view: { regionIds: number[]; total: "sample" | "markets" };
}

export async function landing(db: Db, ctx: RequestCtx, projectId: number): Promise<ResultsLanding> {
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
    // Results open where the project is whole: every market, and with several the all-markets total (the web app's region 0).
    const regionIds = await q.projectRegions(tx, p.id);
    const several = regionIds.length > 1;
    return { projectId: p.id, tab, path: `/${p.clientId}/results/${p.id}/${tab}${several ? "?region=0" : ""}`, view: { regionIds, total: several ? "markets" : "sample" } };
  });
}
