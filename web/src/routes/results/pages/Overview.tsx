// {tab}: the overview of all results: every measure and links to every question's page.
import { Link } from "wouter";
import { EmptyState } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { useResults } from "../../../features/results/context";
import { useQualResults } from "../../../features/results/queries";
import { questionLabel, questionRoute } from "../../../features/results/questions";
import { QUESTION_DISPLAY_GROUPS } from "../../../lib/constants";
import { MeasuresView, PageTitle } from "./MeasuresView";

export default function Overview({ tab }: { tab: string }) {
  const { questions, project, clientId, projectId } = useResults();
  const { data, isLoading } = useQualResults();
  if (tab !== "all") return <EmptyState title="Page not found">There is no results page called “{tab}”.</EmptyState>;
  const linked = questions.map((q) => ({ q, route: questionRoute(q, project.projectTypeId) })).filter((x) => x.route);
  return (
    <div>
      <PageTitle title="All results" subtitle="Every measure, then every question of the test." />
      <MeasuresView measures={data?.measures} method={data?.method} loading={isLoading} title="All measures" />
      {linked.length ? (
        <section className="mt-6">
          <h3 className="mb-2 text-sm font-semibold text-ink-900">Questions</h3>
          {QUESTION_DISPLAY_GROUPS.map((g) => {
            const items = linked.filter((x) => g.positions.includes(x.q.questionPositionId));
            if (!items.length) return null;
            return (
              <div key={g.name} className="mb-3">
                <h4 className="text-xs font-semibold tracking-wide text-ink-500 uppercase">{g.name}</h4>
                <ul className="mt-1 space-y-1">
                  {items.map(({ q, route }) => (
                    <li key={q.id}>
                      <Link className="text-sm text-brand-700 hover:underline" href={`~${resultsLink(clientId, projectId, route!)}`}>
                        {questionLabel(q)}
                      </Link>
                    </li>
                  ))}
                </ul>
              </div>
            );
          })}
        </section>
      ) : null}
    </div>
  );
}
