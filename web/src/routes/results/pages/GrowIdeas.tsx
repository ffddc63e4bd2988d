// grow-ideas/{testOptionId}/{tab?}: one test option in depth: its measures against the benchmark
// ('measures'), what drives it ('drivers').
import { EmptyState, TabLinks } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { useResults } from "../../../features/results/context";
import { ConceptImage } from "../../../features/results/conceptImage";
import { useQualResults } from "../../../features/results/queries";
import { DriverChart, useDrivers } from "./Drivers";
import { MeasuresView, PageTitle } from "./MeasuresView";

export default function GrowIdeas({ testOptionId, tab }: { testOptionId: number; tab?: string }) {
  const { testOptions, clientId, projectId } = useResults();
  const option = testOptions.find((o) => o.id === testOptionId);
  const { data, isLoading } = useQualResults();
  const drivers = useDrivers();
  if (testOptions.length && !option) return <EmptyState title="Test option not found" />;
  const current = tab === "drivers" ? "drivers" : "measures";
  const base = `grow-ideas/${testOptionId}`;
  return (
    <div>
      <PageTitle title={option?.conceptText ?? "Test option"} subtitle={option?.conceptDescription ?? undefined} />
      {option ? (
        <div className="mb-4">
          <ConceptImage testOptionId={option.id} name={option.conceptText} />
        </div>
      ) : null}
      <TabLinks
        label="Test option views"
        active={current}
        tabs={[
          { id: "measures", label: "Measures", href: `~${resultsLink(clientId, projectId, base)}` },
          { id: "drivers", label: "Drivers", href: `~${resultsLink(clientId, projectId, `${base}/drivers`)}` },
        ]}
      />
      {current === "measures" ? (
        <MeasuresView measures={data?.measures} method={data?.method} loading={isLoading} testOptionIds={[testOptionId]} title={`${option?.conceptText ?? "Test option"}: top-2-box`} />
      ) : drivers.data ? (
        <DriverChart results={drivers.data} testOptionId={testOptionId} />
      ) : null}
    </div>
  );
}
