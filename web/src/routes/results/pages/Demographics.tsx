// demographics: who answered, per demographic question, weighted.
import { HBars } from "../../../components/charts/Charts";
import { EmptyState, Skeleton } from "../../../components/ui";
import { useDemographics } from "../../../features/results/queries";
import { PageTitle } from "./MeasuresView";

export default function Demographics() {
  const { data } = useDemographics();
  return (
    <div>
      <PageTitle title="Demographics" subtitle="The weighted make-up of the respondents for these filters." />
      {!data ? (
        <Skeleton className="h-96" />
      ) : !data.questions.length ? (
        <EmptyState title="No respondents for these filters" />
      ) : (
        <div className="grid gap-4 2xl:grid-cols-2">
          {data.questions.map((q, i) => (
            <div key={q.systemQuestionId} className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
              <HBars
                title={q.questionLabel}
                items={q.options.map((o) => ({ label: o.answerLabel, value: o.share }))}
                xLegend="Share of respondents (%)"
                yLegend={q.questionLabel}
                colourIndex={i % 4}
              />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
