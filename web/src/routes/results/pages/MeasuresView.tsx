// The standard measures of a project as a researcher reads them: top-2-box bars per test option and
// measure with the benchmark line, intervals and significance marks, in the split and metric the
// view settings choose, and the same figures as a table.
import { Top2Bars, StackedBars, pct, type Top2Cell } from "../../../components/charts/Charts";
import { Badge, EmptyState, Skeleton, Table } from "../../../components/ui";
import { testOptionName, useResults } from "../../../features/results/context";
import type { QualMeasure, QualResults } from "../../../features/results/queries";
import { isScaledMeasure } from "../../../features/results/questions";
import { formatCount, formatFixed } from "../../../lib/numbers";

/** SPEC 9: question order by standard question: 5, 1, 4, 3, 2, 6, then the rest. */
const ORDER: Record<number, number> = { 5: 1, 1: 2, 4: 3, 3: 4, 2: 5, 6: 6 };
export const measureOrder = (sq: number) => ORDER[sq] ?? 6;

export function sortMeasures(ms: QualMeasure[]): QualMeasure[] {
  return [...ms].sort((a, b) => measureOrder(a.standardQuestionId) - measureOrder(b.standardQuestionId) || a.standardQuestionId - b.standardQuestionId);
}

/** The line under a view's figures: how its tests were adjusted and what its intervals are. */
export function methodNote(method: QualResults["method"] | undefined, confidence: string): string {
  if (!method) return `Whiskers are the ${confidence}% interval.`;
  // As the API's exports word it (analytics/design.ts adjustmentWords): never "over the view's 0 tests".
  const adj =
    method.tests === 0
      ? "no test: nothing in this view could be tested (indicative norms, low bases)"
      : method.adjust === "none"
        ? "no multiple-comparison adjustment"
        : `${method.adjustName} adjustment over the view's ${method.tests} test${method.tests === 1 ? "" : "s"}`;
  return `Significance at ${confidence}% after ${adj}; whiskers are the ${confidence}% Wilson interval (design-based). Low base: n eff below ${method.smallBase}; a norm of fewer than ${method.thinNorm} projects is indicative.`;
}

export function MeasuresView({
  measures,
  method,
  loading,
  title = "Top-2-box by measure",
  testOptionIds,
}: {
  measures: QualMeasure[] | undefined;
  method?: QualResults["method"];
  loading?: boolean;
  title?: string;
  testOptionIds?: number[];
}) {
  const { testOptions, view, confidence, questions } = useResults();
  if (!measures) return loading ? <Skeleton className="h-80" /> : null;
  const ms = sortMeasures(measures);
  // No figures: either the test asks no scaled measure, or it does and nobody under the filters answered one.
  if (!ms.length && questions.some(isScaledMeasure))
    return <EmptyState title="No respondents match these filters">Nobody answered these measures under the market and filters on screen: widen or clear the filters.</EmptyState>;
  if (!ms.length) return <EmptyState title="No framework measures">This test asks no scaled standard questions; its questions have pages of their own.</EmptyState>;
  if (ms.every((m) => !m.results.length)) return <EmptyState title="No results for these filters">Try fewer filters: no respondent matches them.</EmptyState>;
  const pick = (r: { testOptionId: number | null }) => !testOptionIds || (r.testOptionId !== null && testOptionIds.includes(r.testOptionId));
  const optionName = (id: number | null) => testOptionName(testOptions, id);
  const byOption = view.splitBy === "testOption";
  const showBench = view.benchmarkType === "top2";
  const cells: Top2Cell[] = ms.flatMap((m) =>
    m.results.filter(pick).map((r) => ({
      group: byOption ? m.title : optionName(r.testOptionId),
      series: byOption ? optionName(r.testOptionId) : m.title,
      top2: r.top2,
      ci: r.ci as [number, number],
      n: r.n,
      smallBase: r.smallBase,
      sig: (r.vsBenchmark?.significant ? (r.vsBenchmark.diff > 0 ? 1 : -1) : 0) as -1 | 0 | 1,
      benchmark: showBench && r.vsBenchmark ? r.vsBenchmark.top2Percentage / 100 : null,
    })),
  );
  const series = [...new Set(cells.map((c) => c.series))];
  // One test option shown (a single-concept test, or filtered to one): the table names it once, in
  // its caption, instead of in a column of repeats.
  const shownOptions = [...new Set(ms.flatMap((m) => m.results.filter(pick).map((r) => r.testOptionId)))];
  const oneOption = shownOptions.length <= 1;
  const stacked = view.metricVisualization !== "top2combined";
  const keys = view.metricVisualization === "top2split" ? ["High", "Average"] : ["High", "Average", "Neutral", "Low"];
  const stackedRows = ms.flatMap((m) =>
    m.results.filter(pick).map((r) => ({
      group: `${m.title} · ${optionName(r.testOptionId)}`,
      values: Object.fromEntries(r.distribution.map((d) => [d.label, d.share])),
    })),
  );
  return (
    <div className="space-y-5">
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="measures-chart">
        {stacked ? (
          <StackedBars
            title={view.metricVisualization === "top2split" ? `${title}: top and second top` : `${title}: answer distribution`}
            rows={stackedRows}
            keys={keys}
            xLegend="Measure and test option"
            layout="horizontal"
            height={Math.max(220, 40 + stackedRows.length * 26)}
          />
        ) : (
          <Top2Bars title={title} cells={cells} series={series} xLegend={byOption ? "Measure" : "Test option"} />
        )}
        <p className="mt-2 text-xs text-ink-500" data-testid="method-note">
          ▲ / ▼ significantly above / below the benchmark. {methodNote(method, confidence)}
        </p>
      </div>
      <Table
        head={oneOption ? ["Measure", "Top-2-box", "vs benchmark", "Base"] : ["Measure", "Test option", "Top-2-box", "vs benchmark", "Base"]}
        caption={`${title}: figures${oneOption && shownOptions[0] !== undefined ? `, ${optionName(shownOptions[0])}` : ""}`}
      >
        {ms.flatMap((m) =>
          m.results.filter(pick).map((r) => (
            <tr key={`${m.standardQuestionId}-${r.testOptionId}`}>
              <td className="px-3 py-2 font-medium text-ink-900">{m.title}</td>
              {oneOption ? null : <td className="px-3 py-2 text-ink-700">{optionName(r.testOptionId)}</td>}
              <td className="px-3 py-2 whitespace-nowrap">
                <span className="text-ink-900" data-testid="top2-cell">
                  {pct(r.top2, 1)}
                </span>
                <span className="block text-xs text-ink-500">
                  {pct(r.ci[0])}–{pct(r.ci[1])}
                </span>
              </td>
              <td className="px-3 py-2 whitespace-nowrap">
                {r.vsBenchmark ? (
                  <>
                    <span className={r.vsBenchmark.significant ? (r.vsBenchmark.diff > 0 ? "font-semibold text-sky-800" : "font-semibold text-orange-800") : "text-ink-700"}>
                      {r.vsBenchmark.diff > 0 ? "+" : ""}
                      {(r.vsBenchmark.diff * 100).toFixed(1)} pts{r.vsBenchmark.significant ? (r.vsBenchmark.diff > 0 ? " ▲" : " ▼") : ""}
                    </span>
                    <span className="block text-xs text-ink-500">of {r.vsBenchmark.top2Percentage.toFixed(1)}%</span>
                    {r.vsBenchmark.quintile ? <span className="block text-xs text-ink-500">quintile {r.vsBenchmark.quintile} of 5</span> : null}
                    {r.vsBenchmark.indicative ? <Badge tone="amber">indicative</Badge> : null}
                  </>
                ) : (
                  "—"
                )}
              </td>
              {/* Not nowrap: "n eff 1684.8" of a 1,700 base made the table 5 px wider than its box
                  at 1280 px (a clean run's crawl, 2026-12-07); it breaks after "n eff" instead. */}
              <td className="px-3 py-2 text-ink-600">
                {formatCount(r.n)}
                <span className="block text-xs text-ink-500">n eff {formatFixed(r.nEff, 1)}</span>
                {r.smallBase ? <Badge tone="amber">low base</Badge> : null}
              </td>
            </tr>
          )),
        )}
      </Table>
    </div>
  );
}

export function PageTitle({ title, subtitle }: { title: string; subtitle?: string }) {
  return (
    <div className="mb-4">
      <h2 className="text-xl font-semibold text-ink-900">{title}</h2>
      {subtitle ? <p className="text-sm text-ink-600">{subtitle}</p> : null}
    </div>
  );
}
