// Objectives (save: 'Objective saved' with the summaries-in-preparation text; delete with SPEC 8's
// confirm; the API keeps the default objective, so it has no Delete) and the project's AI summaries,
// as formatted text, refreshed while one is being written.
import { useState } from "react";
import { api, selected, unwrap, type Page, type Row } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { handleError } from "../../../api/errors";
import { ConfirmDialog } from "../../../components/Dialog";
import { toast } from "../../../components/toast";
import { Badge, Button, EmptyState, Field, Skeleton, Textarea } from "../../../components/ui";
import { useResults } from "../../../features/results/context";
import { useCanWrite } from "../../../features/access";
import { codeInWords } from "../../../lib/constants";
import { Markdown } from "../../../features/results/markdown";
import { isWriting, summaryRefs, useAiSummaries } from "../../../features/results/summaries";

export const DEFAULT_OBJECTIVE = "Summarize the overall performance and highlight any significant audience skews in the results.";

type Objective = Row<"ProjectObjectives", "id" | "summary" | "createdAt">;

export default function ObjectivesPanel({ onChanged }: { onChanged: () => void }) {
  // Only what the role can do is offered (a Viewer or a shared reader reads).
  const canWrite = useCanWrite();
  const { projectId } = useResults();
  const objectives = useApi(["ProjectObjectives", projectId], () =>
    selected<Page<Objective>>(api.GET("/api/v1/ProjectObjectives", { params: { query: { $filter: `projectId eq ${projectId}`, $orderby: "createdAt desc", $select: "id,summary,createdAt" } } })),
  );
  // Polled while one is being written: "Being prepared…" turns into the text without a reload.
  const summaries = useAiSummaries(projectId);
  const [text, setText] = useState(DEFAULT_OBJECTIVE);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Objective | null>(null);

  const save = async () => {
    setBusy(true);
    try {
      await unwrap(api.POST("/api/v1/ProjectObjectives", { body: { projectId, summary: text.trim() } }));
      toast.ai("Objective saved", "We're currently analysing your objective and preparing summaries. This will take a few minutes.");
      onChanged();
      await objectives.mutate();
      void summaries.mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };
  const remove = async (o: Objective) => {
    setBusy(true);
    try {
      await unwrap(api.DELETE("/api/v1/ProjectObjectives({key})", { params: { path: { key: String(o.id) } } }));
      onChanged();
      setDeleting(null);
      await objectives.mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <div className="space-y-6 text-sm">
      {canWrite ? (
        <form
          className="space-y-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (text.trim()) void save();
          }}
        >
          <Field id="objective-text" label="Your objective" hint="The AI summaries answer it from the results.">
            <Textarea id="objective-text" rows={4} value={text} maxLength={2000} onChange={(e) => setText(e.target.value)} />
          </Field>
          <Button type="submit" busy={busy} disabled={!text.trim()}>
            Save objective
          </Button>
        </form>
      ) : null}
      <section>
        <h3 className="mb-2 font-semibold text-ink-900">Objectives</h3>
        {!objectives.data ? (
          <Skeleton className="h-16" />
        ) : !objectives.data.value.length ? (
          <p className="text-ink-600">No custom objective yet.</p>
        ) : (
          <ul className="space-y-2">
            {objectives.data.value.map((o) => (
              <li key={o.id} className="flex items-start justify-between gap-2 rounded-lg border border-ink-200 p-3">
                <p className="text-ink-800">{o.summary}</p>
                {o.summary === DEFAULT_OBJECTIVE ? (
                  <span className="text-xs text-ink-500">Default</span>
                ) : !canWrite ? null : (
                  <Button size="sm" variant="ghost" className="text-rose-700" onClick={() => setDeleting(o)} aria-label="Delete objective">
                    Delete
                  </Button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <section>
        <h3 className="mb-2 font-semibold text-ink-900">AI summaries</h3>
        {!summaries.data ? (
          <Skeleton className="h-16" />
        ) : !summaries.data.value.length ? (
          <EmptyState title="No summaries yet">Save an objective to have the results summarised.</EmptyState>
        ) : (
          <ul className="space-y-3">
            {summaries.data.value.map((s) => (
              <li key={s.id} className="rounded-lg border border-ink-200 p-3">
                <div className="mb-1 flex items-center justify-between gap-2">
                  <span className="font-medium text-ink-900">{s.title ?? (s.summaryType ? codeInWords(s.summaryType) : "Summary")}</span>
                  {s.status ? <Badge tone={s.status === "Ready" ? "green" : s.status === "Failed" ? "red" : "blue"}>{s.status}</Badge> : null}
                </div>
                {s.content && !isWriting(s) ? (
                  <Markdown text={s.content} refs={summaryRefs(s)} />
                ) : s.status === "Failed" ? (
                  <p className="text-rose-700">This summary could not be written.</p>
                ) : (
                  <p className="text-ink-500" role="status">
                    Being prepared…
                  </p>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
      <ConfirmDialog
        open={deleting !== null}
        title="Delete objective"
        message="Are you sure you want to delete your custom objective?"
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => deleting && void remove(deleting)}
        onClose={() => setDeleting(null)}
      />
    </div>
  );
}
