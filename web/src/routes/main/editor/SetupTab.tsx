// Set-up: the name (a rename is skipped when unchanged: SPEC 5; 'Project Name Updated' toast:
// SPEC 8), category, framework (those that fit the type), branding and the research note.
import { useEffect, useState, type FormEvent } from "react";
import { api, selected, type Page, type Row } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { Button, Card, Field, Input, Select, Textarea } from "../../../components/ui";
import { keyPath, run, useRefreshProject } from "../../../features/projects-editor/data";
import { useFrameworks } from "../CreateProject";
import type { TabProps } from "./shared";

export const RENAMED_TITLE = "Project Name Updated";
export const renamedDetail = (name: string) => `Project name has been updated to '${name}'`;

type Category = Row<"Categories", "id" | "name" | "parentId">;

function useCategories() {
  return useApi(["Categories"], () => selected<Page<Category>>(api.GET("/api/v1/Categories", { params: { query: { $select: "id,name,parentId", $orderby: "sortOrder,name", $top: 500 } } })));
}

/** Rename: PATCH projectName and id (SPEC 7), skipped when the trimmed name is unchanged (SPEC 5). */
export async function renameProject(project: { id: number; projectName: string }, name: string): Promise<boolean> {
  const next = name.trim();
  if (!next || next === project.projectName) return false;
  const r = await run(api.PATCH("/api/v1/Projects({key})", { params: keyPath(project.id), body: { projectName: next, id: project.id } }), [RENAMED_TITLE, renamedDetail(next)]);
  return r !== undefined;
}

export function SetupTab({ project, editable, canWrite }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const { data: frameworks } = useFrameworks();
  const { data: categories } = useCategories();
  const [name, setName] = useState(project.projectName);
  const [form, setForm] = useState({
    categoryId: project.categoryId,
    frameworkId: project.frameworkId,
    isBranded: project.isBranded,
    brandName: project.brandName ?? "",
    researchNote: project.researchNote ?? "",
  });
  const [busy, setBusy] = useState<string | null>(null);
  useEffect(() => setName(project.projectName), [project.projectName]);

  async function saveName(e: FormEvent) {
    e.preventDefault();
    setBusy("name");
    if (await renameProject(project, name)) await refresh();
    setBusy(null);
  }

  async function saveDetails(e: FormEvent) {
    e.preventDefault();
    setBusy("details");
    const body = {
      categoryId: form.categoryId,
      frameworkId: form.frameworkId,
      isBranded: form.isBranded,
      brandName: form.isBranded ? form.brandName.trim() || null : null,
      researchNote: form.researchNote.trim() || null,
    };
    const r = await run(api.PATCH("/api/v1/Projects({key})", { params: keyPath(project.id), body }), ["Set-up saved"]);
    setBusy(null);
    if (r !== undefined) await refresh();
  }

  const fits = (frameworks?.value ?? []).filter((f) => f.projectTypeId === project.projectTypeId && f.id !== 3998);
  const parents = (categories?.value ?? []).filter((c) => c.parentId === null);
  const children = (id: number) => (categories?.value ?? []).filter((c) => c.parentId === id);
  return (
    <div className="grid items-start gap-6 lg:grid-cols-2">
      <Card title="Name">
        <form onSubmit={saveName} className="flex items-end gap-2">
          <div className="flex-1">
            <Field id="project-name" label="Project name" error={canWrite && !name.trim() ? "Enter a name: a project needs one." : undefined}>
              <Input
                id="project-name"
                value={name}
                onChange={(e) => setName(e.target.value)}
                maxLength={200}
                required
                aria-invalid={canWrite && !name.trim() ? true : undefined}
                disabled={!canWrite || (!editable && project.statusCode >= 200)}
              />
            </Field>
          </div>
          {canWrite ? (
            <Button type="submit" variant="secondary" busy={busy === "name"} disabled={!name.trim() || name.trim() === project.projectName}>
              Rename
            </Button>
          ) : null}
        </form>
        <p className="mt-2 text-xs text-ink-500">Only you and your team see the name; respondents never do.</p>
      </Card>
      <Card title="Details">
        <form onSubmit={saveDetails} className="space-y-4">
          <fieldset disabled={!editable} className="space-y-4">
            <Field id="framework" label="Framework" hint="The standard questions every test option is asked.">
              <Select id="framework" value={form.frameworkId ?? ""} onChange={(e) => setForm({ ...form, frameworkId: Number(e.target.value) })}>
                {fits.map((f) => (
                  <option key={f.id} value={f.id}>
                    {f.title}
                  </option>
                ))}
              </Select>
            </Field>
            <Field id="category" label="Category" hint="Benchmarks compare within the category and its parent.">
              <Select id="category" value={form.categoryId ?? ""} onChange={(e) => setForm({ ...form, categoryId: e.target.value ? Number(e.target.value) : null })}>
                <option value="">No category</option>
                {parents.map((p) => (
                  <optgroup key={p.id} label={p.name}>
                    <option value={p.id}>{p.name}</option>
                    {children(p.id).map((c) => (
                      <option key={c.id} value={c.id}>
                        {c.name}
                      </option>
                    ))}
                  </optgroup>
                ))}
              </Select>
            </Field>
            <div className="flex items-center gap-2">
              <input
                id="branded"
                type="checkbox"
                className="size-4 rounded border-ink-300 text-brand-600"
                checked={form.isBranded}
                onChange={(e) => setForm({ ...form, isBranded: e.target.checked })}
              />
              <label htmlFor="branded" className="text-sm text-ink-800">
                Branded: respondents see the brand name
              </label>
            </div>
            {form.isBranded ? (
              <Field id="brand-name" label="Brand name">
                <Input id="brand-name" value={form.brandName} maxLength={200} onChange={(e) => setForm({ ...form, brandName: e.target.value })} />
              </Field>
            ) : null}
            <Field id="research-note" label="Research note" hint="What you want to learn: shared with the team and used for AI summaries.">
              <Textarea id="research-note" rows={4} value={form.researchNote} maxLength={10000} onChange={(e) => setForm({ ...form, researchNote: e.target.value })} />
            </Field>
          </fieldset>
          {editable ? (
            <div className="flex justify-end">
              <Button type="submit" busy={busy === "details"}>
                Save set-up
              </Button>
            </div>
          ) : null}
        </form>
      </Card>
    </div>
  );
}
