// npd: a launched product's measures against the launch-week benchmark, and how they move by week since launch.
import { useResults } from "../../../features/results/context";
import { useQualResults, useWaveData } from "../../../features/results/queries";
import { Skeleton } from "../../../components/ui";
import { MeasuresView, PageTitle, sortMeasures } from "./MeasuresView";
import { WaveLines } from "./Wave";

export default function Npd() {
  const { npdWeek } = useResults();
  const { data, isLoading } = useQualResults();
  const { data: waves } = useWaveData();
  const first = data ? sortMeasures(data.measures)[0] : undefined;
  return (
    <div>
      <PageTitle title="New product" subtitle={npdWeek !== null ? `Latest week since launch: ${npdWeek}.` : undefined} />
      <MeasuresView measures={data?.measures} method={data?.method} loading={isLoading} title="Measures since launch" />
      <div className="mt-6">{!waves || !first ? <Skeleton className="h-64" /> : <WaveLines data={waves} standardQuestionId={first.standardQuestionId} />}</div>
    </div>
  );
}
