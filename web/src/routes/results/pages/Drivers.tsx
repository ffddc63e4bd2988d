// drivers: which measures drive the outcome (weighted key-driver regression, Pratt importance),
// from RegressionScores.
import { HBars } from "../../../components/charts/Charts";
import { EmptyState, Select, Skeleton, Table } from "../../../components/ui";
import { api, selected, type Page, type Row } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { useSearchState } from "../../../lib/search";
import { testOptionName, useResults } from "../../../features/results/context";
import { PageTitle } from "./MeasuresView";

type Score = Row<"RegressionScores", "id" | "testOptionId" | "regionId" | "outcomeStandardQuestionId" | "standardQuestionId" | "coefficient" | "importance" | "rSquared" | "sampleSize", { standardQuestion: Row<"StandardQuestions", "title"> | null; outcomeStandardQuestion: Row<"StandardQuestions", "title"> | null }>;

export function useDrivers(projectId: number) {
  return useApi(["RegressionScores", projectId], () =>
    selected<Page<Score>>(api.GET("/api/v1/RegressionScores", { params: { query: { $filter: `projectId eq ${projectId}`, $expand: "standardQuestion($select=title),outcomeStandardQuestion($select=title)", $orderby: "importance desc", $top: 500 } } })),
  );
}

export function DriverChart({ scores, testOptionId }: { scores: Score[]; testOptionId: number | null }) {
  const rows = scores.filter((s) => s.testOptionId === testOptionId);
  if (!rows.length) return <EmptyState title="No driver analysis for this selection" />;
  const outcome = rows[0]!.outcomeStandardQuestion?.title ?? "the outcome";
  return (
    <div className="space-y-4">
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="drivers-chart">
        <HBars title={`What drives ${outcome}`} items={rows.map((r) => ({ label: r.standardQuestion?.title ?? `Measure ${r.standardQuestionId}`, value: Math.max(0, r.importance ?? 0) }))} xLegend="Relative importance (%)" yLegend="Measure" />
        <p className="mt-2 text-xs text-ink-500">Pratt importance from a weighted regression (R² {rows[0]!.rSquared?.toFixed(2) ?? "—"}, n={rows[0]!.sampleSize}); shares of the explained variance.</p>
      </div>
      <Table head={["Measure", "Importance", "Coefficient"]} caption="Driver scores">
        {rows.map((r) => (
          <tr key={r.id}>
            <td className="px-4 py-2 font-medium">{r.standardQuestion?.title ?? r.standardQuestionId}</td>
            <td className="px-4 py-2">{r.importance === null ? "—" : `${(r.importance * 100).toFixed(1)}%`}</td>
            <td className="px-4 py-2 text-ink-600">{r.coefficient.toFixed(3)}</td>
          </tr>
        ))}
      </Table>
    </div>
  );
}

export default function Drivers() {
  const { projectId, testOptions } = useResults();
  const { data } = useDrivers(projectId);
  const [search, setSearch] = useSearchState();
  const option = search.driverOption ? Number(search.driverOption) : null;
  return (
    <div>
      <PageTitle title="Drivers" subtitle="The measures that move the outcome most, computed over all respondents when the results were processed." />
      {testOptions.length > 1 ? (
        <div className="mb-4 max-w-xs">
          <label htmlFor="drivers-option" className="mb-1 block text-xs font-medium text-ink-600">Test option</label>
          <Select id="drivers-option" value={option ?? ""} onChange={(e) => setSearch({ driverOption: e.target.value })}>
            <option value="">All test options</option>
            {testOptions.map((o) => <option key={o.id} value={o.id}>{testOptionName(testOptions, o.id)}</option>)}
          </Select>
        </div>
      ) : null}
      {!data ? <Skeleton className="h-72" /> : <DriverChart scores={data.value} testOptionId={option} />}
    </div>
  );
}
