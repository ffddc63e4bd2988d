// summary: the base, the headline figures per test option and the measures chart.
import { Card, Skeleton } from "../../../components/ui";
import { pct } from "../../../components/charts/Charts";
import { testOptionName, useResults } from "../../../features/results/context";
import { useQualResults, useWeightSum } from "../../../features/results/queries";
import { MeasuresView, PageTitle, sortMeasures } from "./MeasuresView";

export default function Summary() {
  const { testOptions } = useResults();
  const { data, isLoading } = useQualResults();
  const { data: ws } = useWeightSum();
  const first = data ? sortMeasures(data.measures)[0] : undefined;
  const best = first ? [...first.results].sort((a, b) => b.top2 - a.top2)[0] : undefined;
  return (
    <div>
      <PageTitle title="Summary" subtitle="Weighted top-2-box per measure and test option against the benchmark." />
      <div className="mb-5 grid gap-3 sm:grid-cols-3">
        <Card><p className="text-xs text-ink-500">Respondents</p>{ws ? <p className="text-2xl font-semibold" data-testid="summary-respondents">{ws.count.toLocaleString()}</p> : <Skeleton className="h-8" />}</Card>
        <Card><p className="text-xs text-ink-500">Effective sample (Kish)</p>{ws ? <p className="text-2xl font-semibold">{Math.round(ws.nEff).toLocaleString()}</p> : <Skeleton className="h-8" />}</Card>
        <Card>
          <p className="text-xs text-ink-500">Leading on {first?.title ?? "the first measure"}</p>
          {best ? <p className="truncate text-lg font-semibold">{testOptionName(testOptions, best.testOptionId)} · {pct(best.top2)}</p> : <Skeleton className="h-8" />}
        </Card>
      </div>
      <MeasuresView measures={data?.measures} method={data?.method} loading={isLoading} />
    </div>
  );
}
