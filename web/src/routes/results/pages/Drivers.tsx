// drivers: which measures drive the outcome (weighted key-driver regression, Pratt importance),
// recomputed for the filtered respondents where the base allows (Responses/DriverResults); a
// selection under the minimum base shows all respondents' drivers, labelled as such.
import { HBars } from "../../../components/charts/Charts";
import { EmptyState, Select, Skeleton, Table } from "../../../components/ui";
import { api } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { useSearchState } from "../../../lib/search";
import { testOptionName, useResults } from "../../../features/results/context";
import type { DriverResults } from "../../../features/results/queries";
import { PageTitle } from "./MeasuresView";
import { formatCount } from "../../../lib/numbers";

export function useDrivers() {
  const { projectId, filtersJson } = useResults();
  return useApi<DriverResults>(
    ["DriverResults", projectId, filtersJson],
    () => api.GET("/api/v1/Responses/DriverResults", { params: { query: { projectId: String(projectId), filters: filtersJson } } }),
    { keepPreviousData: true },
  );
}

export function DriverChart({ results, testOptionId }: { results: DriverResults; testOptionId: number | null }) {
  const group = results.groups.find((g) => g.testOptionId === testOptionId) ?? results.groups.find((g) => g.testOptionId === null);
  if (!group?.drivers.length) return <EmptyState title="No driver analysis for this selection" />;
  const outcome = results.outcome.title;
  return (
    <div className="space-y-4">
      {group.note ? (
        <p className="rounded-lg border border-amber-300 bg-amber-50 px-3 py-2 text-sm text-amber-900" role="note" data-testid="drivers-note">
          {group.note}
        </p>
      ) : null}
      <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="drivers-chart">
        {/* A model that does not fit ranks nothing: no chart of zeros, the note says why. */}
        {group.fits ? (
          <HBars title={`What drives ${outcome}`} items={group.drivers.map((r) => ({ label: r.title, value: Math.max(0, r.importance ?? 0) }))} xLegend="Relative importance (%)" yLegend="Measure" />
        ) : null}
        <p className="mt-2 text-xs text-ink-600">
          Pratt importance from a weighted regression (R² {group.rSquared?.toFixed(2) ?? "—"}, F-test p{" "}
          {group.modelPValue === null ? "—" : group.modelPValue < 0.001 ? "< 0.001" : group.modelPValue.toFixed(3)}, n={formatCount(group.n)},{" "}
          {group.filtered ? "the filtered respondents" : "all respondents"}); shares of the explained variance, given only when R² is at least 1% and the F-test significant at 5%. Recomputed under a
          filter from a base of {results.minimumBase}.
        </p>
      </div>
      <Table head={["Measure", "Importance", "Coefficient"]} caption="Driver scores">
        {group.drivers.map((r) => (
          <tr key={r.standardQuestionId}>
            <td className="px-4 py-2 font-medium">{r.title}</td>
            <td className="px-4 py-2">{r.importance === null ? "—" : `${(r.importance * 100).toFixed(1)}%`}</td>
            <td className="px-4 py-2 text-ink-600">{r.coefficient.toFixed(3)}</td>
          </tr>
        ))}
      </Table>
    </div>
  );
}

export default function Drivers() {
  const { testOptions } = useResults();
  const { data } = useDrivers();
  const [search, setSearch] = useSearchState();
  const option = search.driverOption ? Number(search.driverOption) : null;
  return (
    <div>
      <PageTitle title="Drivers" subtitle="The measures that move the outcome most, for the filtered respondents where the base allows." />
      {testOptions.length > 1 ? (
        <div className="mb-4 max-w-xs">
          <label htmlFor="drivers-option" className="mb-1 block text-xs font-medium text-ink-600">
            Test option
          </label>
          <Select id="drivers-option" value={option ?? ""} onChange={(e) => setSearch({ driverOption: e.target.value })}>
            <option value="">All test options</option>
            {testOptions.map((o) => (
              <option key={o.id} value={o.id}>
                {testOptionName(testOptions, o.id)}
              </option>
            ))}
          </Select>
        </div>
      ) : null}
      {!data ? <Skeleton className="h-72" /> : <DriverChart results={data} testOptionId={option} />}
    </div>
  );
}
