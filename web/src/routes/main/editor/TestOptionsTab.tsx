// Test options (concepts): text, description and an image each (uploaded through Projects
// FileUploadUrl and PUT /api/files/upload), added, edited and deleted (TestOptions POST / PATCH /
// DELETE), with a preview of what a respondent sees.
import { useState, type FormEvent } from "react";
import { api } from "../../../api/client";
import { handleError } from "../../../api/errors";
import { ConfirmDialog } from "../../../components/Dialog";
import { FormModal } from "../../../components/FormModal";
import { Button, Card, EmptyState, Field, Input, Skeletons, Textarea } from "../../../components/ui";
import { ACCEPTED_IMAGES, keyPath, run, uploadProjectFile, useFileUrls, useRefreshProject, useTestOptions, type TestOption } from "../../../features/projects-editor/data";
import type { TabProps } from "./shared";
import { designText, isSplitCell } from "../../../features/design";

function ConceptCard({ option, imageUrl, onEdit, onDelete, editable }: { option: TestOption; imageUrl?: string; onEdit: () => void; onDelete: () => void; editable: boolean }) {
  return (
    <li className="flex flex-col overflow-hidden rounded-xl border border-ink-200 bg-white shadow-sm">
      {imageUrl ? (
        <img src={imageUrl} alt={option.conceptText} className="aspect-[4/3] w-full bg-ink-50 object-contain" />
      ) : (
        <div className="flex aspect-[4/3] items-center justify-center bg-ink-50 text-sm text-ink-600">No image</div>
      )}
      <div className="flex flex-1 flex-col p-4">
        <h3 className="font-semibold text-ink-900">{option.conceptText}</h3>
        {option.conceptDescription ? <p className="mt-1 line-clamp-4 text-sm text-ink-600">{option.conceptDescription}</p> : null}
        {editable ? (
          <div className="mt-auto flex gap-2 pt-4">
            <Button variant="secondary" size="sm" onClick={onEdit} aria-label={`Edit ${option.conceptText}`}>
              Edit
            </Button>
            <Button variant="ghost" size="sm" onClick={onDelete} aria-label={`Delete ${option.conceptText}`}>
              Delete
            </Button>
          </div>
        ) : null}
      </div>
    </li>
  );
}

function ConceptDialog({
  projectId,
  option,
  imageUrl,
  otherNames,
  onClose,
  onSaved,
}: {
  projectId: number;
  option: TestOption | null;
  imageUrl?: string;
  otherNames: string[];
  onClose: () => void;
  onSaved: () => void;
}) {
  const [text, setText] = useState(option?.conceptText ?? "");
  const [touched, setTouched] = useState(false);
  // Respondents and results tell test options apart by name: a repeat is said at the field (a
  // warning, not a refusal: the API allows it, and a re-test of the same concept may want it).
  const duplicate = !!text.trim() && otherNames.some((n) => n.trim().toLowerCase() === text.trim().toLowerCase());
  const [description, setDescription] = useState(option?.conceptDescription ?? "");
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const preview = file ? URL.createObjectURL(file) : imageUrl;

  async function save(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    let ref: Awaited<ReturnType<typeof uploadProjectFile>> | undefined;
    if (file) {
      try {
        ref = await uploadProjectFile(projectId, file);
      } catch (err) {
        handleError(err);
        setBusy(false);
        return;
      }
    }
    const body = { conceptText: text.trim(), conceptDescription: description.trim() || null, ...(ref ? { file: ref } : {}) };
    const r = option
      ? await run(api.PATCH("/api/v1/TestOptions({key})", { params: keyPath(option.id), body }), ["Test option saved"])
      : await run(api.POST("/api/v1/TestOptions", { body: { ...body, projectId } }), ["Test option added"]);
    setBusy(false);
    if (r !== undefined) onSaved();
  }

  return (
    <FormModal
      id="concept-form"
      size="lg"
      title={option ? "Edit test option" : "Add test option"}
      submitLabel={option ? "Save" : "Add test option"}
      busy={busy}
      disabled={!text.trim()}
      onSubmit={save}
      onClose={onClose}
    >
      <div className="grid gap-4 sm:grid-cols-[1fr_12rem]">
        <div className="space-y-4">
          <Field
            id="concept-text"
            label="Concept name"
            error={duplicate ? "Another test option has this name: respondents and the results will not tell them apart." : touched && !text.trim() ? "Enter a name: respondents see it." : undefined}
          >
            <Input
              id="concept-text"
              value={text}
              onChange={(e) => {
                setText(e.target.value);
                setTouched(true);
              }}
              maxLength={500}
              required
              autoFocus
              aria-invalid={duplicate || (touched && !text.trim()) ? true : undefined}
            />
          </Field>
          <Field id="concept-description" label="Description" hint="What respondents read about it.">
            <Textarea id="concept-description" rows={5} value={description} onChange={(e) => setDescription(e.target.value)} />
          </Field>
          <Field id="concept-image" label="Image" hint="PNG, JPEG, WebP or GIF, up to 20 MB.">
            <input
              id="concept-image"
              type="file"
              accept={ACCEPTED_IMAGES.join(",")}
              className="block w-full text-sm text-ink-700 file:mr-3 file:rounded-lg file:border-0 file:bg-ink-100 file:px-3 file:py-2 file:text-sm file:font-medium"
              onChange={(e) => setFile(e.target.files?.[0] ?? null)}
            />
          </Field>
        </div>
        <fieldset aria-label="Preview">
          <p className="mb-1.5 text-sm font-medium text-ink-800">Preview</p>
          <div className="overflow-hidden rounded-xl border border-ink-200">
            {preview ? <img src={preview} alt="" className="aspect-[4/3] w-full bg-ink-50 object-contain" /> : <div className="aspect-[4/3] bg-ink-50" />}
            <div className="p-3">
              <p className="text-sm font-semibold text-ink-900">{text || "Concept name"}</p>
              <p className="mt-1 line-clamp-5 text-xs text-ink-600">{description || "Description"}</p>
            </div>
          </div>
        </fieldset>
      </div>
    </FormModal>
  );
}

export function TestOptionsTab({ project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const { data, mutate } = useTestOptions(project.id);
  const files = useFileUrls(project.id);
  const [editing, setEditing] = useState<TestOption | "new" | null>(null);
  const [deleting, setDeleting] = useState<TestOption | null>(null);
  const [busy, setBusy] = useState(false);
  const imageOf = (id: number) => files.data?.value.find((f) => f.source === "testOption" && f.testOptionId === id)?.signedUrl;

  async function saved() {
    setEditing(null);
    await Promise.all([mutate(), files.mutate(), refresh()]);
  }
  async function remove() {
    if (!deleting) return;
    setBusy(true);
    const r = await run(api.DELETE("/api/v1/TestOptions({key})", { params: keyPath(deleting.id) }), ["Test option deleted"]);
    setBusy(false);
    setDeleting(null);
    if (r !== undefined) await Promise.all([mutate(), refresh()]);
  }

  return (
    <Card
      title={`Test options${data ? ` (${data.value.length})` : ""}`}
      actions={
        editable ? (
          <Button size="sm" onClick={() => setEditing("new")}>
            Add test option
          </Button>
        ) : null
      }
    >
      {!data ? (
        <div className="grid gap-4 sm:grid-cols-3" role="status" aria-label="Loading test options">
          <Skeletons count={3} className="h-64" />
        </div>
      ) : !data.value.length ? (
        <EmptyState title="No test options yet" action={editable ? <Button onClick={() => setEditing("new")}>Add your first test option</Button> : undefined}>
          Each test option is a concept respondents rate: a name, a description and an image.
        </EmptyState>
      ) : (
        <>
          <p className="mb-4 text-sm text-ink-600">{designText(isSplitCell(project))}</p>
          <ul className="grid gap-4 sm:grid-cols-2 xl:grid-cols-3">
            {data.value.map((o) => (
              <ConceptCard key={o.id} option={o} imageUrl={imageOf(o.id)} editable={editable} onEdit={() => setEditing(o)} onDelete={() => setDeleting(o)} />
            ))}
          </ul>
        </>
      )}
      {editing ? (
        <ConceptDialog
          projectId={project.id}
          option={editing === "new" ? null : editing}
          imageUrl={editing === "new" ? undefined : imageOf(editing.id)}
          otherNames={(data?.value ?? []).filter((o) => editing === "new" || o.id !== editing.id).map((o) => o.conceptText)}
          onClose={() => setEditing(null)}
          onSaved={() => void saved()}
        />
      ) : null}
      <ConfirmDialog
        open={!!deleting}
        title="Delete test option"
        message={`Are you sure you want to delete "${deleting?.conceptText ?? ""}"?`}
        confirmLabel="Delete"
        busy={busy}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(null)}
      />
    </Card>
  );
}
