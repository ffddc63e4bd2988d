// The results functions as swr hooks keyed by the response filter, so a filter change refetches
// every figure on the page and nothing else.
import { api } from "../../api/client";
import { useApi } from "../../api/hooks";
import type { Schemas } from "../../api/client";
import { useResults } from "./context";

import type { paths } from "@ideally/contracts";
import type { Readable } from "@ideally/contracts/odata";

type Q<P extends keyof paths> = paths[P]["get"] extends { responses: { 200: { content: { "application/json": infer R } } } } ? Readable<R> : never;
type QueryOf<P extends keyof paths> = paths[P]["get"] extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

export type QualResults = Q<"/api/v1/Responses/QualResults">;
export type QualMeasure = QualResults["measures"][number];
export type WaveData = Q<"/api/v1/Responses/WaveData">;
export type CrossTab = Q<"/api/v1/Responses/CrossTab">;
export type PriceResults = Q<"/api/v1/Responses/PriceSensitivityResults">;
export type ReachResults = Q<"/api/v1/Responses/MarketReachResults">;
export type Demographics = Q<"/api/v1/Responses/DemographicsResults">;
export type WeightSum = Q<"/api/v1/Responses/WeightSum">;
export type Verbatims = Q<"/api/v1/TextResponses/Verbatim">;
export type ThemeResults = Q<"/api/v1/TextResponses/ThemeResults">;
export type DriverResults = Q<"/api/v1/Responses/DriverResults">;
export type { Schemas };
type VerbatimQuery = QueryOf<"/api/v1/TextResponses/Verbatim">;

const keep = { keepPreviousData: true };

export function useQualResults(projectQuestionId?: number) {
  const { projectId, filtersJson, benchmarkId, confidence, adjust, benchmarks, allMarkets } = useResults();
  const query: QueryOf<"/api/v1/Responses/QualResults"> = { projectId: String(projectId), filters: filtersJson, confidence, adjust };
  // All markets: the measures and their tests are the all-markets total (markets weighted by population).
  if (allMarkets) query.total = "markets";
  if (benchmarkId !== null) query.benchmarkTypeId = String(benchmarkId);
  if (projectQuestionId) query.projectQuestionId = String(projectQuestionId);
  // Wait for the benchmark choice, so the figures are fetched once, with their benchmark.
  return useApi(
    benchmarks ? ["QualResults", projectId, filtersJson, benchmarkId, confidence, adjust, projectQuestionId ?? null, allMarkets] : null,
    () => api.GET("/api/v1/Responses/QualResults", { params: { query } }),
    keep,
  );
}

export function useWeightSum() {
  const { projectId, filtersJson } = useResults();
  return useApi<WeightSum>(["WeightSum", projectId, filtersJson], () => api.GET("/api/v1/Responses/WeightSum", { params: { query: { projectId: String(projectId), filters: filtersJson } } }), keep);
}

export function useWaveData() {
  const { projectId, filtersJson, confidence, adjust } = useResults();
  return useApi(
    ["WaveData", projectId, filtersJson, confidence, adjust],
    () => api.GET("/api/v1/Responses/WaveData", { params: { query: { projectId: String(projectId), filters: filtersJson, confidence, adjust } } }),
    keep,
  );
}

export function useDemographics() {
  const { projectId, filtersJson, allMarkets } = useResults();
  // All markets: the all-markets total (each market reweighted to its population share), as QualResults'.
  const total = allMarkets ? ("markets" as const) : ("sample" as const);
  return useApi<Demographics>(
    ["DemographicsResults", projectId, filtersJson, total],
    () => api.GET("/api/v1/Responses/DemographicsResults", { params: { query: { projectId: String(projectId), filters: filtersJson, total } } }),
    keep,
  );
}

export function usePriceResults() {
  const { projectId, filtersJson } = useResults();
  return useApi<PriceResults>(
    ["PriceSensitivityResults", projectId, filtersJson],
    () => api.GET("/api/v1/Responses/PriceSensitivityResults", { params: { query: { projectId: String(projectId), filters: filtersJson } } }),
    keep,
  );
}

export function useReachResults() {
  const { projectId, filtersJson } = useResults();
  return useApi<ReachResults>(
    ["MarketReachResults", projectId, filtersJson],
    () => api.GET("/api/v1/Responses/MarketReachResults", { params: { query: { projectId: String(projectId), filters: filtersJson, top: "10" } } }),
    keep,
  );
}

export function useVerbatims(
  projectQuestionId: number,
  opts: { testOptionId?: number | null; search?: string; themeId?: number | null; sentiment?: VerbatimQuery["sentiment"] | null; page: number; pageSize: number },
) {
  const { projectId, filtersJson } = useResults();
  const query: VerbatimQuery = { projectId: String(projectId), projectQuestionId: String(projectQuestionId), filters: filtersJson, page: String(opts.page), pageSize: String(opts.pageSize) };
  if (opts.testOptionId) query.testOptionId = String(opts.testOptionId);
  if (opts.search) query.search = opts.search;
  if (opts.themeId) query.themeId = String(opts.themeId);
  if (opts.sentiment) query.sentiment = opts.sentiment;
  const list = useApi<Verbatims>(["Verbatim", query], () => api.GET("/api/v1/TextResponses/Verbatim", { params: { query } }), keep);
  const count = useApi<Schemas["VerbatimCount"]>(["VerbatimCount", query], () => api.GET("/api/v1/TextResponses/VerbatimCount", { params: { query } }), keep);
  return { list, count };
}

/** An open question's themes counted over the filtered respondents' answers (ThemeResults). */
export function useThemeResults(projectQuestionId: number) {
  const { projectId, filtersJson } = useResults();
  return useApi<ThemeResults>(
    ["ThemeResults", projectId, projectQuestionId, filtersJson],
    () => api.GET("/api/v1/TextResponses/ThemeResults", { params: { query: { projectId: String(projectId), projectQuestionId: String(projectQuestionId), filters: filtersJson } } }),
    keep,
  );
}

/** Responses/CrossTab for the page's filters: `rows` and `banner` as the API takes them (null: nothing chosen yet). */
export function useCrossTab(rows: string | null, banner: string | null) {
  const { projectId, filtersJson, confidence, adjust, allMarkets } = useResults();
  // All markets: every column (the Total too) is the all-markets total, as QualResults' measures.
  const total = allMarkets ? ("markets" as const) : ("sample" as const);
  return useApi<CrossTab>(
    rows && banner ? ["CrossTab", projectId, filtersJson, rows, banner, confidence, adjust, total] : null,
    () => api.GET("/api/v1/Responses/CrossTab", { params: { query: { projectId: String(projectId), filters: filtersJson, rows: rows!, banner: banner!, confidence, adjust, total } } }),
    keep,
  );
}

export type Scorecard = Q<"/api/v1/Responses/Scorecard">;
export type ActionStandard = Q<"/api/v1/Projects({key})/ActionStandard">;

/** The concepts ranked on the action standard, for the view on screen (filters, benchmark, confidence, adjustment). */
export function useScorecard() {
  const { projectId, filtersJson, benchmarkId, confidence, adjust, benchmarks, allMarkets } = useResults();
  const query: QueryOf<"/api/v1/Responses/Scorecard"> = { projectId: String(projectId), filters: filtersJson, confidence, adjust };
  // All markets: judged on the all-markets total, as the measures on screen are.
  if (allMarkets) query.total = "markets";
  if (benchmarkId !== null) query.benchmarkTypeId = String(benchmarkId);
  return useApi(benchmarks ? ["Scorecard", projectId, filtersJson, benchmarkId, confidence, adjust, allMarkets] : null, () => api.GET("/api/v1/Responses/Scorecard", { params: { query } }), keep);
}

export function useActionStandard() {
  const { projectId } = useResults();
  return useApi(["ActionStandard", projectId], () => api.GET("/api/v1/Projects({key})/ActionStandard", { params: { path: { key: String(projectId) } } }));
}
