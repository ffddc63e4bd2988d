// The benchmark panel: the types with their descriptions and availability (NPD week bands), the
// choice kept in local storage; and the view settings (split by, metric visualisation with
// top-2 combined forcing the top-2 benchmark, confidence).
import { Badge, Select, cx } from "../../../components/ui";
import { BENCHMARK_DESCRIPTIONS, BENCHMARK_LABELS } from "../../../features/results/benchmarks";
import { useResults } from "../../../features/results/context";

export default function BenchmarkPanel() {
  const { benchmarks, benchmarkId, setBenchmarkId, view, setView, confidence, adjust, npdWeek } = useResults();
  return (
    <div className="space-y-6 text-sm">
      <fieldset>
        <legend className="mb-2 font-semibold text-ink-900">Benchmark</legend>
        {npdWeek !== null ? <p className="mb-2 text-xs text-ink-600">Latest launch week of this product: {npdWeek}.</p> : null}
        <div className="space-y-2">
          {(benchmarks ?? []).map((b) => (
            <label
              key={b.benchmarkTypeId}
              className={cx(
                "flex items-start gap-3 rounded-lg border p-3",
                b.isAvailable ? "cursor-pointer border-ink-200 hover:bg-ink-50" : "border-ink-100 bg-ink-50 text-ink-500",
                benchmarkId === b.benchmarkTypeId && "border-brand-500 ring-1 ring-brand-500",
              )}
            >
              <input
                type="radio"
                name="benchmark"
                className="mt-1 accent-brand-600"
                value={b.benchmarkTypeId}
                checked={benchmarkId === b.benchmarkTypeId}
                disabled={!b.isAvailable}
                onChange={() => setBenchmarkId(b.benchmarkTypeId)}
              />
              <span className="min-w-0 flex-1">
                <span className="flex items-center justify-between gap-2">
                  <span className="font-medium text-ink-900">{BENCHMARK_LABELS[b.benchmarkTypeId] ?? b.benchmarkName}</span>
                  {b.isAvailable ? <span className="text-ink-700">{b.top2Percentage.toFixed(0)}%</span> : <Badge>Not available</Badge>}
                </span>
                <span className="block text-xs text-ink-600">{BENCHMARK_DESCRIPTIONS[b.benchmarkTypeId] ?? b.description}</span>
                {b.benchmarkTypeId !== 0 ? (
                  <span className="block text-xs text-ink-500">
                    {b.projectCount} comparable test{b.projectCount === 1 ? "" : "s"}
                  </span>
                ) : null}
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <div className="space-y-3">
        <h3 className="font-semibold text-ink-900">View</h3>
        <div>
          <label htmlFor="view-split" className="mb-1 block text-xs font-medium text-ink-600">
            Split by
          </label>
          <Select id="view-split" value={view.splitBy} onChange={(e) => setView({ splitBy: e.target.value })}>
            <option value="testOption">Test option (bars per measure)</option>
            <option value="measure">Measure (bars per test option)</option>
          </Select>
        </div>
        <div>
          <label htmlFor="view-metric" className="mb-1 block text-xs font-medium text-ink-600">
            Metric visualisation
          </label>
          <Select id="view-metric" value={view.metricVisualization} onChange={(e) => setView({ metric: e.target.value })}>
            <option value="top2combined">Top-2 combined</option>
            <option value="top2split">Top and second top</option>
            <option value="distribution">Full distribution</option>
          </Select>
        </div>
        <div>
          <label htmlFor="view-benchmark-line" className="mb-1 block text-xs font-medium text-ink-600">
            Benchmark line
          </label>
          <Select id="view-benchmark-line" value={view.benchmarkType} disabled={view.metricVisualization === "top2combined"} onChange={(e) => setView({ benchmarkLine: e.target.value })}>
            <option value="top2">Top-2-box benchmark</option>
            <option value="off">Hidden</option>
          </Select>
          {view.metricVisualization === "top2combined" ? <p className="mt-1 text-xs text-ink-500">Top-2 combined always compares with the top-2-box benchmark.</p> : null}
        </div>
        <div>
          <label htmlFor="view-confidence" className="mb-1 block text-xs font-medium text-ink-600">
            Confidence level
          </label>
          <Select id="view-confidence" value={confidence} onChange={(e) => setView({ confidence: e.target.value })}>
            <option value="90">90%</option>
            <option value="95">95%</option>
            <option value="99">99%</option>
          </Select>
        </div>
        <div>
          <label htmlFor="view-adjust" className="mb-1 block text-xs font-medium text-ink-600">
            Multiple comparisons
          </label>
          <Select id="view-adjust" value={adjust} onChange={(e) => setView({ adjust: e.target.value })}>
            <option value="bh">Benjamini-Hochberg</option>
            <option value="bonferroni">Bonferroni</option>
            <option value="none">No adjustment</option>
          </Select>
          <p className="mt-1 text-xs text-ink-500">Applies to every test a view shows.</p>
        </div>
      </div>
    </div>
  );
}
