// templates: the team's saved questions (QuestionTemplates) that its projects reuse; create one from
// a question already asked in one of the team's projects, delete one (it goes to the trash).
import { useEffect, useState, type FormEvent } from "react";
import { api, selected, unwrap, type Page, type Row } from "../../api/client";
import { handleError } from "../../api/errors";
import { useApi } from "../../api/hooks";
import { ConfirmDialog } from "../../components/Dialog";
import { toast } from "../../components/toast";
import { Badge, Button, EmptyState, Field, Input, PageHeader, Skeleton, Skeletons, Table, Textarea } from "../../components/ui";
import { QUESTION_DISPLAY_GROUPS, QUESTION_TYPES } from "../../lib/constants";
import { odataString } from "../../features/projects";
import { fieldErrors, formatDate, personName, type ManageProps } from "./manage";
import { HiddenHead } from "./parts";
import { FormModal } from "../../components/FormModal";

const groupOf = (position: number | null) => QUESTION_DISPLAY_GROUPS.find((g) => position !== null && g.positions.includes(position))?.name;

type Template = Row<
  "QuestionTemplates",
  "id" | "name" | "description" | "questionPositionId" | "createdAt",
  { question: Row<"Questions", "id" | "questionText" | "questionTypeId"> | null; createdByUser: Row<"Users", "email" | "firstName" | "lastName"> | null }
>;
type Asked = Row<
  "ProjectQuestions",
  "id" | "questionId" | "questionPositionId",
  { question: Row<"Questions", "id" | "questionText" | "questionTitle" | "questionTypeId"> | null; project: Row<"Projects", "id" | "projectName"> | null }
>;

export default function Templates({ client }: ManageProps) {
  const [creating, setCreating] = useState(false);
  const [deleting, setDeleting] = useState<Template | null>(null);
  const [busy, setBusy] = useState(false);
  const query = {
    $select: "id,name,description,questionPositionId,createdAt",
    $expand: "question($select=id,questionText,questionTypeId),createdByUser($select=email,firstName,lastName)",
    $orderby: "name",
  };
  const { data, isLoading, mutate } = useApi(["QuestionTemplates", client.id], () => selected<Page<Template>>(api.GET("/api/v1/QuestionTemplates", { params: { query } })));

  async function remove() {
    if (!deleting) return;
    setBusy(true);
    try {
      await unwrap(api.DELETE("/api/v1/QuestionTemplates({key})", { params: { path: { key: String(deleting.id) } } }));
      toast.success("Template deleted", `'${deleting.name}' is no longer offered in new projects.`);
      setDeleting(null);
      void mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  }

  return (
    <div>
      <PageHeader title="Question templates" subtitle={`${client.name} · saved questions your team reuses in new projects`} actions={<Button onClick={() => setCreating(true)}>New template</Button>} />
      {isLoading ? (
        <div className="space-y-2" role="status" aria-label="Loading templates">
          <Skeletons count={4} className="h-14" />
        </div>
      ) : !data?.value.length ? (
        <EmptyState title="No templates yet" action={<Button onClick={() => setCreating(true)}>Create a template</Button>}>
          Save a question you have asked in a project as a template, so the next project can reuse it word for word.
        </EmptyState>
      ) : (
        <Table head={["Template", "Question", "Section", "Created", <HiddenHead key="actions">Actions</HiddenHead>]} caption="Question templates">
          {data.value.map((t) => (
            <tr key={t.id} className="hover:bg-ink-50">
              <td className="px-4 py-3">
                <div className="font-medium text-ink-900">{t.name}</div>
                {t.description ? <div className="text-xs text-ink-600">{t.description}</div> : null}
              </td>
              <td className="px-4 py-3">
                <div className="max-w-md text-ink-800">{t.question?.questionText ?? "—"}</div>
                {t.question ? <div className="text-xs text-ink-500">{QUESTION_TYPES[t.question.questionTypeId]}</div> : null}
              </td>
              <td className="px-4 py-3">{groupOf(t.questionPositionId) ? <Badge tone="brand">{groupOf(t.questionPositionId)}</Badge> : <span className="text-ink-400">—</span>}</td>
              <td className="px-4 py-3 whitespace-nowrap text-ink-600">
                {formatDate(t.createdAt)}
                {t.createdByUser ? <div className="text-xs text-ink-500">by {personName(t.createdByUser)}</div> : null}
              </td>
              <td className="px-4 py-3 text-right">
                <Button variant="ghost" size="sm" aria-label={`Delete template ${t.name}`} onClick={() => setDeleting(t)}>
                  Delete
                </Button>
              </td>
            </tr>
          ))}
        </Table>
      )}
      {creating ? <CreateTemplateDialog onClose={() => setCreating(false)} onCreated={() => void mutate()} /> : null}
      <ConfirmDialog
        open={!!deleting}
        title="Delete template"
        message={`Are you sure you want to delete the template "${deleting?.name ?? ""}"? Projects that already use the question keep it.`}
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </div>
  );
}

function CreateTemplateDialog({ onClose, onCreated }: { onClose: () => void; onCreated: () => void }) {
  const [term, setTerm] = useState("");
  const [debounced, setDebounced] = useState("");
  const [picked, setPicked] = useState<Asked | null>(null);
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  useEffect(() => {
    const t = setTimeout(() => setDebounced(term.trim().toLowerCase()), 300);
    return () => clearTimeout(t);
  }, [term]);
  const query = {
    $select: "id,questionId,questionPositionId",
    $filter: ["questionId ne null", "standardQuestionId eq null", debounced ? `contains(tolower(question/questionText),${odataString(debounced)})` : ""].filter(Boolean).join(" and "),
    $expand: "question($select=id,questionText,questionTitle,questionTypeId),project($select=id,projectName)",
    $orderby: "id desc",
    $top: 20,
  };
  const asked = useApi(["ProjectQuestions/templates", debounced], () => selected<Page<Asked>>(api.GET("/api/v1/ProjectQuestions", { params: { query } })));

  function pick(a: Asked) {
    setPicked(a);
    if (!name) setName((a.question?.questionTitle || a.question?.questionText || "").slice(0, 200));
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!picked) return setErrors({ questionId: "Choose a question." });
    setBusy(true);
    setErrors({});
    try {
      const body = { questionId: picked.questionId, name: name.trim(), description: description.trim() || null, questionPositionId: picked.questionPositionId };
      await unwrap(api.POST("/api/v1/QuestionTemplates", { body }));
      toast.success("Template saved", `'${body.name}' can now be added to new projects.`);
      onCreated();
      onClose();
    } catch (err) {
      handleError(err, { status: { 400: (x) => setErrors(fieldErrors(x, "name")) } });
    } finally {
      setBusy(false);
    }
  }

  return (
    <FormModal id="template-form" size="lg" title="New template" submitLabel="Save template" busy={busy} disabled={!picked || !name.trim()} onSubmit={(e) => void submit(e)} onClose={onClose}>
      <div className="space-y-4">
        <Field id="template-search" label="Question" hint="Search the custom questions your team's projects have asked." error={errors.questionId}>
          <Input id="template-search" type="search" placeholder="Search questions" value={term} onChange={(e) => setTerm(e.target.value)} />
        </Field>
        <div className="max-h-56 overflow-auto rounded-lg ring-1 ring-ink-200" role="radiogroup" aria-label="Questions">
          {asked.isLoading ? (
            <div className="space-y-2 p-3" role="status" aria-label="Loading questions">
              <Skeleton className="h-8" />
              <Skeleton className="h-8" />
            </div>
          ) : !asked.data?.value.length ? (
            <p className="p-4 text-ink-600">{debounced ? "No question matches." : "Your team's projects have no custom questions yet."}</p>
          ) : (
            asked.data.value.map((a) => (
              <label key={a.id} className="flex cursor-pointer items-start gap-3 border-b border-ink-100 px-3 py-2.5 last:border-0 hover:bg-ink-50">
                <input type="radio" name="template-question" className="mt-1 accent-brand-600" checked={picked?.id === a.id} onChange={() => pick(a)} />
                <span>
                  <span className="block text-ink-900">{a.question?.questionText}</span>
                  <span className="block text-xs text-ink-500">
                    {a.project?.projectName} · {groupOf(a.questionPositionId) ?? "Question"} · {QUESTION_TYPES[a.question?.questionTypeId ?? 0] ?? ""}
                  </span>
                </span>
              </label>
            ))
          )}
        </div>
        <Field id="template-name" label="Template name" error={errors.name}>
          <Input id="template-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="template-description" label="Description (optional)" error={errors.description}>
          <Textarea id="template-description" rows={2} value={description} onChange={(e) => setDescription(e.target.value)} />
        </Field>
      </div>
    </FormModal>
  );
}
