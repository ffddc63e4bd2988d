// advertising: the advertising measures (brand recognition, advertisement outtake, in-store visibility).
import { EmptyState } from "../../../components/ui";
import { useQualResults } from "../../../features/results/queries";
import { MeasuresView, PageTitle } from "./MeasuresView";

const AD_MEASURES = [6, 10, 11];

export default function Advertising() {
  const { data, isLoading } = useQualResults();
  const ms = data?.measures.filter((m) => AD_MEASURES.includes(m.standardQuestionId));
  return (
    <div>
      <PageTitle title="Advertising" subtitle="Brand recognition, advertisement outtake and in-store visibility." />
      {ms && !ms.length ? <EmptyState title="No advertising measures">This test did not ask the advertising questions.</EmptyState> : <MeasuresView measures={ms} method={data?.method} loading={isLoading} title="Advertising measures" />}
    </div>
  );
}
