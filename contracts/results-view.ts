// The results page's defaults for what a view leaves open, shared by the web app and the CLI so the
// page and `ideally export` read the same view unless told otherwise (issue 37): the benchmark
// (type 1, all customers, when available) and, for a view over more than one market, the
// all-markets total (QualResults total=markets).

/** SPEC 4's default benchmark: all customers and historical data. */
export const DEFAULT_BENCHMARK_TYPE = 1;

/** The 'None' benchmark the API appends (SPEC 7: a flat 50%). */
export const NONE_BENCHMARK_TYPE = 0;

/** The benchmark types as the results page names them (0 is the appended 'None'). */
export const BENCHMARK_LABELS: Record<number, string> = {
  1: "All customers",
  2: "Your team",
  3: "Your industry",
  4: "NPD weeks 1–8",
  5: "NPD weeks 9–16",
  6: "NPD weeks 17–25",
  7: "NPD weeks 26+",
  8: "Category",
  10: "Parent category",
  0: "None",
};

/** The chosen id if that benchmark is available here, else the default (type 1), else the first available. */
export function chooseBenchmark(rows: readonly { benchmarkTypeId: number; isAvailable: boolean }[], chosen: number | null): number | null {
  const ok = (id: number | null) => id !== null && rows.some((r) => r.benchmarkTypeId === id && r.isAvailable);
  if (ok(chosen)) return chosen;
  if (ok(DEFAULT_BENCHMARK_TYPE)) return DEFAULT_BENCHMARK_TYPE;
  return rows.find((r) => r.isAvailable)?.benchmarkTypeId ?? null;
}

/** The total a view opens on: the all-markets total over more than one market, else the market's own (sample). */
export function defaultTotal(markets: number): "markets" | "sample" {
  return markets > 1 ? "markets" : "sample";
}
