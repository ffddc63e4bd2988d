// qual/{questionId}: a group question's answer shares in each project (each project asks its own
// copy of the question, matched by its text, as the group functions do).
import { AnswerShares } from "../../components/charts/Charts";
import { EmptyState, Skeleton } from "../../components/ui";
import { api, selected, unwrap, type Page, type Row } from "../../api/client";
import { useApi } from "../../api/hooks";
import { odataString } from "../../features/projects";
import { useGroup } from "../../features/results/group";

export default function GroupQual({ questionId }: { questionId: number }) {
  const { group, questions, filtersJson, projects } = useGroup();
  const gq = questions.find((q) => q.questionId === questionId);
  const text = gq?.question?.questionText;
  const multiple = gq?.question?.questionTypeId === 2;
  const { data } = useApi(text && projects.length ? ["GroupQual", group.id, questionId, filtersJson] : null, async () => {
    const pqs = await unwrap(
      selected<Page<Row<"ProjectQuestions", "id" | "projectId">>>(
        api.GET("/api/v1/ProjectQuestions", {
          params: { query: { $filter: `projectId in (${projects.map((p) => p.id).join(",")}) and question/questionText eq ${odataString(text!)}`, $select: "id,projectId" } },
        }),
      ),
    );
    const out = await Promise.all(
      pqs.value.map(async (pq) => ({
        projectId: pq.projectId,
        r: await unwrap(api.GET("/api/v1/Responses/QualResults", { params: { query: { projectId: String(pq.projectId), projectQuestionId: String(pq.id), filters: filtersJson } } })),
      })),
    );
    return { data: out, response: new Response() };
  });
  if (!gq) return <EmptyState title="Question not in this group" />;
  if (!data) return <Skeleton className="h-72" />;
  const optionTexts = [...new Set(data.flatMap((d) => d.r.question?.options.map((o) => o.text) ?? []))];
  const rows = data
    .filter((d) => d.r.question)
    .map((d) => {
      const q = d.r.question!;
      const n = q.results.reduce((s, r) => s + r.n, 0) || 1;
      const values: Record<string, number> = {};
      for (const o of q.options) values[o.text] = q.results.reduce((s, r) => s + (r.options.find((x) => x.questionOptionId === o.id)?.share ?? 0) * r.n, 0) / n;
      return { group: projects.find((p) => p.id === d.projectId)?.projectName ?? String(d.projectId), values };
    });
  return (
    <div>
      <h2 className="mb-1 text-xl font-semibold text-ink-900">{gq.title || text}</h2>
      {gq.title && gq.title !== text ? <p className="mb-4 text-sm text-ink-600">{text}</p> : <div className="mb-4" />}
      {!rows.length ? (
        <EmptyState title="No project asked this question" />
      ) : (
        <div className="space-y-4 rounded-xl border border-ink-200 bg-white p-4 shadow-sm">
          <AnswerShares rows={rows} answers={optionTexts} by="Project" multiple={multiple} />
        </div>
      )}
    </div>
  );
}
