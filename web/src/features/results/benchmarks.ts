// The benchmark choice (SPEC 3, 4, 5, 9): types with their descriptions, NPD week-band
// availability, and the chosen id kept in local storage ('benchmarkId') and restored if available.
import { STORAGE } from "../../lib/constants";

// The default benchmark, the page's labels and the choice are shared with the CLI (contracts/results-view.ts).
export { BENCHMARK_LABELS, chooseBenchmark, DEFAULT_BENCHMARK_TYPE } from "@ideally/contracts/results-view";

/** SPEC 9's descriptions by benchmark type (0 is the appended 'None'). */
export const BENCHMARK_DESCRIPTIONS: Record<number, string> = {
  1: "All customers and historical data",
  2: "Tests in your team",
  3: "Tests in your industry",
  4: "New product launches in their first 8 weeks",
  5: "New product launches in weeks 9 to 16",
  6: "New product launches in weeks 17 to 25",
  7: "New product launches from week 26 onward",
  8: "Tests within this category",
  10: "Tests within this category's parent category",
  0: "No benchmark: a flat 50% line",
};

/** SPEC 5 / 9: the NPD week band of a launch week (26 is in band 7, DESIGN's decision). */
export function npdBandOfWeek(week: number): 4 | 5 | 6 | 7 {
  if (week <= 8) return 4;
  if (week <= 16) return 5;
  if (week <= 25) return 6;
  return 7;
}

/** SPEC 5: types below 4 always; 4-7 only in the band of the project's launch week. */
export function benchmarkTypeAvailable(typeId: number, npdWeek: number | null): boolean {
  if (typeId < 4 || typeId > 7) return true;
  return npdWeek !== null && npdBandOfWeek(npdWeek) === typeId;
}

export function storedBenchmarkId(): number | null {
  const v = localStorage.getItem(STORAGE.benchmarkId);
  return v !== null && /^\d+$/.test(v) ? Number(v) : null;
}

export function storeBenchmarkId(id: number) {
  localStorage.setItem(STORAGE.benchmarkId, String(id));
}

export type SplitBy = "testOption" | "measure";
export type MetricVisualization = "top2combined" | "top2split" | "distribution";
export type BenchmarkLine = "top2" | "off";

export interface ViewSettings {
  splitBy: SplitBy;
  metricVisualization: MetricVisualization;
  benchmarkType: BenchmarkLine;
}

/** SPEC 4 defaults; top-2 combined forces the top-2 benchmark (SPEC 3). */
export function viewSettings(q: Record<string, unknown>): ViewSettings {
  const splitBy: SplitBy = q.splitBy === "measure" ? "measure" : "testOption";
  const metricVisualization: MetricVisualization = q.metric === "top2split" || q.metric === "distribution" ? q.metric : "top2combined";
  const benchmarkType: BenchmarkLine = metricVisualization === "top2combined" ? "top2" : q.benchmarkLine === "off" ? "off" : "top2";
  return { splitBy, metricVisualization, benchmarkType };
}
