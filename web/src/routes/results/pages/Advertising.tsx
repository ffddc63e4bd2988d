// advertising: the advertising measures (brand recognition, advertisement outtake, in-store visibility).
import { EmptyState } from "../../../components/ui";
import { useQualResults } from "../../../features/results/queries";
import { AD_MEASURES, hasAdvertisingMeasures } from "../../../features/results/questions";
import { useResults } from "../../../features/results/context";
import { MeasuresView, PageTitle } from "./MeasuresView";

export default function Advertising() {
  const { questions } = useResults();
  const { data, isLoading } = useQualResults();
  const ms = data?.measures.filter((m) => AD_MEASURES.includes(m.standardQuestionId));
  return (
    <div>
      <PageTitle title="Advertising" subtitle="Brand recognition, advertisement outtake and in-store visibility." />
      {ms && !ms.length && !hasAdvertisingMeasures(questions) ? (
        <EmptyState title="No advertising measures">This test did not ask the advertising questions.</EmptyState>
      ) : (
        <MeasuresView measures={ms} method={data?.method} loading={isLoading} title="Advertising measures" />
      )}
    </div>
  );
}
