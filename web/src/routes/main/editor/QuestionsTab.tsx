// Questions: the project's questions grouped by SPEC 3's display groups and ordered by SPEC 9's
// sort key; dragged (or moved with the keyboard) within their position to reorder (ProjectQuestions
// SortOrderChange); custom questions added, edited and deleted with their options; the team's
// question templates to start from, and a custom question saved as a template.
import { useMemo, useState, type DragEvent } from "react";
import { api, selected, type Page, type Row } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { ConfirmDialog } from "../../../components/Dialog";
import { Badge, Button, Card, EmptyState, Skeleton, Skeletons, cx } from "../../../components/ui";
import { keyPath, run, useRefreshProject } from "../../../features/projects-editor/data";
import { applyOrder, groupQuestions, positionGroup, reorder } from "../../../features/projects-editor/questions";
import type { TabProps } from "./shared";
import { QuestionDialog, type QuestionDraft } from "./QuestionDialog";
import { QUESTION_TYPES } from "../../../lib/constants";

export type QuestionOption = Row<"QuestionOptions", "id" | "optionText" | "exclusive" | "isOther" | "isNotSure" | "sortOrder">;
type QuestionRow = Row<"Questions", "id" | "questionText" | "questionTitle" | "questionTypeId", { questionOptions: QuestionOption[] }>;
export type ProjectQuestion = Row<
  "ProjectQuestions",
  "id" | "questionId" | "standardQuestionId" | "questionPositionId" | "sortOrder" | "testOptionId",
  { question: QuestionRow | null; testOption: Row<"TestOptions", "conceptText"> | null }
>;
type Template = Row<"QuestionTemplates", "id" | "name" | "description" | "questionPositionId", { question: QuestionRow | null }>;

const EXPAND = "question($select=id,questionText,questionTitle,questionTypeId;$expand=questionOptions($orderby=sortOrder)),testOption($select=conceptText)";

export function useProjectQuestions(projectId: number) {
  const query = { $filter: `projectId eq ${projectId}`, $expand: EXPAND, $orderby: "questionPositionId,sortOrder", $top: 500 };
  return useApi(["ProjectQuestions", projectId], () => selected<Page<ProjectQuestion>>(api.GET("/api/v1/ProjectQuestions", { params: { query } })));
}

function useTemplates() {
  const query = { $expand: "question($select=id,questionText,questionTitle,questionTypeId;$expand=questionOptions($orderby=sortOrder))", $orderby: "name", $top: 200 };
  return useApi(["QuestionTemplates"], () => selected<Page<Template>>(api.GET("/api/v1/QuestionTemplates", { params: { query } })));
}

const draftOf = (q: ProjectQuestion["question"], positionId: number): QuestionDraft => ({
  questionText: q?.questionText ?? "",
  questionTitle: q?.questionTitle ?? "",
  questionTypeId: q?.questionTypeId ?? 1,
  questionPositionId: positionId,
  options: (q?.questionOptions ?? []).map((o) => ({ id: o.id, optionText: o.optionText, exclusive: o.exclusive })),
});

export function QuestionsTab({ project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const { data, mutate } = useProjectQuestions(project.id);
  const templates = useTemplates();
  const [editing, setEditing] = useState<{ pq: ProjectQuestion | null; draft: QuestionDraft } | null>(null);
  const [deleting, setDeleting] = useState<ProjectQuestion | null>(null);
  const [dragging, setDragging] = useState<ProjectQuestion | null>(null);
  const [busy, setBusy] = useState(false);
  const groups = useMemo(() => groupQuestions(data?.value ?? []), [data]);

  async function move(pq: ProjectQuestion, toIndex: number) {
    const list = data?.value ?? [];
    const ids = positionGroup(list, pq.questionPositionId).map((q) => q.id);
    const next = reorder(ids, pq.id, toIndex);
    if (next.join() === ids.join()) return;
    // Optimistic: the new order shows while the server stores it; then the stored one (or the old
    // one, after a refusal) comes back.
    void mutate({ value: applyOrder(list, next) }, false);
    await run(api.POST("/api/v1/ProjectQuestions/SortOrderChange", { body: { projectId: project.id, projectQuestionIds: next } }));
    void mutate();
  }

  function onDrop(e: DragEvent, target: ProjectQuestion) {
    e.preventDefault();
    if (!dragging || dragging.questionPositionId !== target.questionPositionId) return;
    void move(
      dragging,
      positionGroup(data?.value ?? [], target.questionPositionId).findIndex((q) => q.id === target.id),
    );
    setDragging(null);
  }

  async function remove() {
    if (!deleting) return;
    setBusy(true);
    const r = await run(api.DELETE("/api/v1/ProjectQuestions({key})", { params: keyPath(deleting.id) }), ["Question deleted"]);
    setBusy(false);
    setDeleting(null);
    if (r !== undefined) await Promise.all([mutate(), refresh()]);
  }

  async function saveAsTemplate(pq: ProjectQuestion) {
    if (!pq.question) return;
    const name = pq.question.questionTitle || pq.question.questionText.slice(0, 200);
    const r = await run(api.POST("/api/v1/QuestionTemplates", { body: { questionId: pq.questionId, name, questionPositionId: pq.questionPositionId } }), [
      "Template saved",
      `'${name}' is now one of your team's question templates.`,
    ]);
    if (r !== undefined) void templates.mutate();
  }

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_18rem]">
      <Card
        title="Questionnaire"
        actions={
          editable ? (
            <Button size="sm" onClick={() => setEditing({ pq: null, draft: draftOf(null, 6) })}>
              Add question
            </Button>
          ) : null
        }
      >
        {!data ? (
          <div className="space-y-2" role="status" aria-label="Loading questions">
            <Skeletons count={6} className="h-12" />
          </div>
        ) : !groups.length ? (
          <EmptyState title="No questions yet">The framework's questions appear here once a framework is chosen.</EmptyState>
        ) : (
          <div className="space-y-6">
            {groups.map((g) => (
              <section key={g.name} aria-labelledby={`group-${g.name}`}>
                <h3 id={`group-${g.name}`} className="mb-2 text-xs font-semibold tracking-wide text-ink-500 uppercase">
                  {g.name}
                </h3>
                <ol className="space-y-2">
                  {g.items.map((pq) => {
                    const samePos = g.items.filter((q) => q.questionPositionId === pq.questionPositionId);
                    const idx = samePos.indexOf(pq);
                    const custom = pq.standardQuestionId === null;
                    const label = pq.question?.questionTitle || pq.question?.questionText || `Question ${pq.id}`;
                    return (
                      <li
                        key={pq.id}
                        draggable={editable}
                        onDragStart={() => setDragging(pq)}
                        onDragEnd={() => setDragging(null)}
                        onDragOver={(e) => dragging && dragging.questionPositionId === pq.questionPositionId && e.preventDefault()}
                        onDrop={(e) => onDrop(e, pq)}
                        data-testid="project-question"
                        className={cx("flex items-start gap-3 rounded-lg border border-ink-200 bg-white px-3 py-2.5", editable && "cursor-grab", dragging?.id === pq.id && "opacity-50")}
                      >
                        {editable ? (
                          <svg viewBox="0 0 24 24" className="mt-0.5 size-5 shrink-0 text-ink-400" aria-hidden="true" fill="currentColor">
                            <circle cx="9" cy="6" r="1.5" />
                            <circle cx="15" cy="6" r="1.5" />
                            <circle cx="9" cy="12" r="1.5" />
                            <circle cx="15" cy="12" r="1.5" />
                            <circle cx="9" cy="18" r="1.5" />
                            <circle cx="15" cy="18" r="1.5" />
                          </svg>
                        ) : null}
                        <div className="min-w-0 flex-1">
                          <p className="text-sm font-medium text-ink-900">{label}</p>
                          {pq.question?.questionTitle ? <p className="text-sm text-ink-600">{pq.question.questionText}</p> : null}
                          <div className="mt-1 flex flex-wrap gap-1.5">
                            <Badge>{QUESTION_TYPES[pq.question?.questionTypeId ?? 1]}</Badge>
                            {custom ? <Badge tone="brand">Custom</Badge> : <Badge tone="neutral">Standard</Badge>}
                            {pq.testOption ? <Badge tone="blue">{pq.testOption.conceptText}</Badge> : null}
                            {pq.question?.questionOptions.length ? <span className="text-xs text-ink-500">{pq.question.questionOptions.length} options</span> : null}
                          </div>
                        </div>
                        {editable ? (
                          <div className="flex shrink-0 flex-wrap items-center justify-end gap-1">
                            <Button variant="ghost" size="sm" aria-label={`Move ${label} up`} disabled={idx <= 0} onClick={() => void move(pq, idx - 1)}>
                              ↑
                            </Button>
                            <Button variant="ghost" size="sm" aria-label={`Move ${label} down`} disabled={idx >= samePos.length - 1} onClick={() => void move(pq, idx + 1)}>
                              ↓
                            </Button>
                            {custom ? (
                              <>
                                <Button variant="ghost" size="sm" aria-label={`Edit ${label}`} onClick={() => setEditing({ pq, draft: draftOf(pq.question, pq.questionPositionId) })}>
                                  Edit
                                </Button>
                                <Button variant="ghost" size="sm" aria-label={`Save as template: ${label}`} onClick={() => void saveAsTemplate(pq)}>
                                  Save as template
                                </Button>
                                <Button variant="ghost" size="sm" aria-label={`Delete ${label}`} onClick={() => setDeleting(pq)}>
                                  Delete
                                </Button>
                              </>
                            ) : null}
                          </div>
                        ) : null}
                      </li>
                    );
                  })}
                </ol>
              </section>
            ))}
          </div>
        )}
      </Card>
      <Card title="Templates" className="h-fit">
        {!templates.data ? (
          <Skeleton className="h-20" />
        ) : !templates.data.value.length ? (
          <p className="text-sm text-ink-600">Your team has no question templates yet. Save a custom question as a template to reuse it.</p>
        ) : (
          <ul className="space-y-2">
            {templates.data.value.map((t) => (
              <li key={t.id} className="flex items-center justify-between gap-2 text-sm">
                <span className="min-w-0 truncate" title={t.description ?? undefined}>
                  {t.name}
                </span>
                {editable && t.question ? (
                  <Button
                    variant="secondary"
                    size="sm"
                    aria-label={`Use ${t.name}`}
                    onClick={() =>
                      setEditing({
                        pq: null,
                        draft: { ...draftOf(t.question, t.questionPositionId ?? 6), options: (t.question?.questionOptions ?? []).map((o) => ({ optionText: o.optionText, exclusive: o.exclusive })) },
                      })
                    }
                  >
                    Use
                  </Button>
                ) : null}
              </li>
            ))}
          </ul>
        )}
      </Card>
      {editing ? (
        <QuestionDialog
          projectId={project.id}
          frameworkId={project.frameworkId ?? null}
          questionId={editing.pq?.questionId ?? null}
          initial={editing.draft}
          onClose={() => setEditing(null)}
          onSaved={() => {
            setEditing(null);
            void Promise.all([mutate(), refresh()]);
          }}
        />
      ) : null}
      <ConfirmDialog
        open={!!deleting}
        title="Delete question"
        message={`Are you sure you want to delete "${deleting?.question?.questionTitle || deleting?.question?.questionText || ""}"?`}
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </div>
  );
}
