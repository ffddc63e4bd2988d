// qual/{projectQuestionId}/{tab?}, npd-qual, segment-question and profile-question: one question's
// option shares per test option (QualResults with projectQuestionId), as a chart or a table.
import { AnswerShares, pct } from "../../../components/charts/Charts";
import { EmptyState, Skeleton, Table, TabLinks } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { testOptionName, useResults } from "../../../features/results/context";
import { useQualResults } from "../../../features/results/queries";
import { PageTitle } from "./MeasuresView";
import { isNotSure } from "../FilterSidebar";
import { formatCount } from "../../../lib/numbers";

const KIND_TITLE = { qual: "Question", "npd-qual": "NPD question", "segment-question": "Segment question", "profile-question": "Profile question" } as const;

export default function QuestionPage({ projectQuestionId, kind, tab }: { projectQuestionId: number; kind: keyof typeof KIND_TITLE; tab?: string }) {
  const { testOptions, questions, clientId, projectId } = useResults();
  const { data, isLoading, error } = useQualResults(projectQuestionId);
  const pq = questions.find((q) => q.id === projectQuestionId);
  if (error) return <EmptyState title="This question has no results">It may be an open question or not part of this project.</EmptyState>;
  if (isLoading || !data) return <Skeleton className="h-80" />;
  const q = data.question;
  if (!q) return <EmptyState title="No results for this question" />;
  const options = q.options.filter((o) => !(pq?.standardQuestionId && isNotSure(o.text)));
  const rows = q.results.map((r) => ({
    group: testOptionName(testOptions, r.testOptionId),
    values: Object.fromEntries(options.map((o) => [o.text, r.options.find((x) => x.questionOptionId === o.id)?.share ?? 0])),
    n: r.n,
  }));
  const current = tab === "table" ? "table" : "chart";
  const base = kind === "qual" ? `qual/${projectQuestionId}` : null;
  const multiple = q.questionTypeId === 2;
  return (
    <div>
      <PageTitle title={q.questionTitle || KIND_TITLE[kind]} subtitle={q.questionText} />
      {base ? (
        <TabLinks
          label="Question views"
          active={current}
          tabs={[
            { id: "chart", label: "Chart", href: `~${resultsLink(clientId, projectId, base)}` },
            { id: "table", label: "Table", href: `~${resultsLink(clientId, projectId, `${base}/table`)}` },
          ]}
        />
      ) : null}
      {!rows.length || rows.every((r) => r.n === 0) ? (
        <EmptyState title="No answers for these filters" />
      ) : current === "chart" ? (
        <div className="space-y-4 rounded-xl border border-ink-200 bg-white p-4 shadow-sm" data-testid="question-chart">
          <AnswerShares rows={rows} answers={options.map((o) => o.text)} by="Test option" multiple={multiple} />
        </div>
      ) : null}
      {current === "table" || !base ? (
        <div className="mt-5">
          <Table head={["Answer", ...rows.map((r) => `${r.group} (n=${formatCount(r.n)})`)]} caption={`${q.questionTitle ?? q.questionText}: shares`}>
            {options.map((o) => (
              <tr key={o.id}>
                <td className="px-4 py-2 font-medium text-ink-900">{o.text}</td>
                {rows.map((r) => (
                  <td key={r.group} className="px-4 py-2 text-ink-700">
                    {pct(r.values[o.text], 1)}
                  </td>
                ))}
              </tr>
            ))}
          </Table>
        </div>
      ) : null}
    </div>
  );
}
