// admin/prompts/{promptId?}: the prompts, and one prompt's versions and history
// (GetPromptVersionHistory); new prompt, new version, YML import. admin/edit-prompt/{promptVersionId}:
// edit a version, run it against a project (the facts it used are shown), publish, YML export.
import { useState } from "react";
import { Link, useLocation } from "wouter";
import { api, selected, type Row, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Modal } from "../../components/Dialog";
import { Badge, Button, Card, EmptyState, Field, Input, PageHeader, Select, Textarea, cx } from "../../components/ui";
import { AuditLog, DataTable, LoadingRows, Td, act, fmtDate, keyPath, useSet } from "./shared";
import { keyedBy } from "../../lib/keys";

type Prompt = Row<"Prompts", "id" | "name" | "promptType" | "description" | "publishedVersionId" | "isActive", { "promptVersions@odata.count"?: number }>;
type VersionFields = "id" | "promptId" | "versionNumber" | "systemPrompt" | "template" | "model" | "temperature" | "notes" | "isPublished" | "publishedAt" | "createdAt";
type Version = Row<"PromptVersions", VersionFields, { createdByUser?: Row<"Users", "email"> | null }>;

function usePluginOptions() {
  return useApi(["Prompts/PlaybookPluginOptions"], () => api.GET("/api/v1/Prompts/PlaybookPluginOptions"));
}

export function Prompts({ promptId }: { promptId: number | null }) {
  const { data, isLoading, mutate } = useSet<Prompt>("Prompts", { $expand: "promptVersions/$count", $orderby: "name", $top: 500 });
  const [creating, setCreating] = useState(false);
  const [importing, setImporting] = useState(false);
  const [, navigate] = useLocation();
  return (
    <div>
      <PageHeader
        title="Prompts"
        subtitle="The AI prompts and their versions"
        actions={
          <>
            <Button onClick={() => setCreating(true)}>New prompt</Button>
            <Button variant="secondary" onClick={() => setImporting(true)}>Import YML</Button>
          </>
        }
      />
      <div className="grid gap-6 lg:grid-cols-[16rem_1fr]">
        <nav aria-label="Prompts">
          {isLoading ? <LoadingRows label="Loading prompts" rows={3} /> : !data?.value.length ? (
            <p className="text-sm text-ink-600">No prompts yet.</p>
          ) : (
            <ul className="space-y-1">
              {data.value.map((p) => (
                <li key={p.id}>
                  <Link href={`/prompts/${p.id}`} aria-current={p.id === promptId ? "page" : undefined} className={cx("block rounded-lg px-3 py-2 text-sm", p.id === promptId ? "bg-brand-50 text-brand-800" : "hover:bg-ink-100")}>
                    <span className="block font-medium">{p.name}</span>
                    <span className="text-xs text-ink-500">{p.promptType} · {p["promptVersions@odata.count"] ?? 0} versions</span>
                  </Link>
                </li>
              ))}
            </ul>
          )}
        </nav>
        <div className="min-w-0">
          {promptId && !data ? <LoadingRows label="Loading prompt" rows={3} /> : promptId && !data?.value.some((p) => p.id === promptId) ? (
            <EmptyState title="Prompt not found">It may have been deleted, or the id is wrong.</EmptyState>
          ) : promptId ? <PromptDetail key={promptId} prompt={data?.value.find((p) => p.id === promptId)} promptId={promptId} onChanged={() => void mutate()} /> : (
            <EmptyState title="Choose a prompt">Pick a prompt to see its versions and history, or create one.</EmptyState>
          )}
        </div>
      </div>
      {creating ? <NewPrompt onClose={() => setCreating(false)} onCreated={(id) => { void mutate(); navigate(`/prompts/${id}`); }} /> : null}
      {importing ? <ImportYml onClose={() => setImporting(false)} onImported={(v) => { void mutate(); navigate(`/edit-prompt/${v.id}`); }} /> : null}
    </div>
  );
}

function PromptDetail({ promptId, prompt, onChanged }: { promptId: number; prompt?: Prompt; onChanged: () => void }) {
  const [, navigate] = useLocation();
  const { data, isLoading, mutate } = useSet<Version>("PromptVersions", { $filter: `promptId eq ${promptId}`, $orderby: "versionNumber desc", $expand: "createdByUser($select=email)", $top: 200 });
  const { data: history } = useApi(["GetPromptVersionHistory", promptId, data?.value.length], () =>
    api.GET("/api/v1/DataEventsLog/GetPromptVersionHistory", { params: { query: { promptId: String(promptId) } } }),
  );
  async function newVersion() {
    const latest = data?.value[0];
    const v = await act(api.POST("/api/v1/PromptVersions", { body: { promptId, template: latest?.template ?? "Summarise {{projectName}}.", systemPrompt: latest?.systemPrompt ?? null, model: latest?.model ?? null, temperature: latest?.temperature ?? null, notes: null } }), "Version created");
    if (v) {
      void mutate();
      onChanged();
      navigate(`/edit-prompt/${v.id}`);
    }
  }
  return (
    <div className="space-y-6">
      <Card title={prompt ? `${prompt.name} (${prompt.promptType})` : "Prompt"} actions={<Button size="sm" onClick={() => void newVersion()}>New version</Button>}>
        {prompt?.description ? <p className="mb-4 text-sm text-ink-600">{prompt.description}</p> : null}
        <DataTable
          caption="Versions"
          head={["Version", "State", "Model", "Created", ""]}
          rows={data?.value}
          isLoading={isLoading}
          empty="No versions yet"
          render={(v) => (
            <tr key={v.id}>
              <Td className="font-medium text-ink-900">v{v.versionNumber}</Td>
              <Td>{v.isPublished ? <Badge tone="green">Published</Badge> : <Badge>Draft</Badge>}</Td>
              <Td>{v.model ?? "default"}</Td>
              <Td className="whitespace-nowrap">{fmtDate(v.createdAt)}<p className="text-xs text-ink-500">{v.createdByUser?.email}</p></Td>
              <Td className="text-right"><Link href={`/edit-prompt/${v.id}`} className="text-sm font-medium text-brand-700 hover:underline" aria-label={`Edit version ${v.versionNumber}`}>Edit</Link></Td>
            </tr>
          )}
        />
      </Card>
      <Card title="History">
        {!history?.value.length ? <p className="text-sm text-ink-600">No history yet.</p> : (
          <ol className="space-y-2 text-sm" aria-label="Prompt history">
            {keyedBy([...history.value].reverse(), (h) => `${h.at} ${h.event}`).map(([k, h]) => (
              <li key={k} className="flex flex-wrap gap-x-3">
                <time className="text-xs text-ink-500" dateTime={h.at}>{fmtDate(h.at)}</time>
                <span className="font-medium">{h.event}</span>
                {h.versionNumber ? <span>v{h.versionNumber}</span> : null}
                {Object.keys(h.data ?? {}).length ? <code className="text-xs text-ink-600">{JSON.stringify(h.data)}</code> : null}
              </li>
            ))}
          </ol>
        )}
      </Card>
    </div>
  );
}

function NewPrompt({ onClose, onCreated }: { onClose: () => void; onCreated: (id: number) => void }) {
  const { data: options } = usePluginOptions();
  const [name, setName] = useState("");
  const [type, setType] = useState("");
  const [description, setDescription] = useState("");
  const [busy, setBusy] = useState(false);
  async function save() {
    setBusy(true);
    const p = await act(api.POST("/api/v1/Prompts", { body: { name: name.trim(), promptType: type, description: description.trim() || null } }), "Prompt created", name.trim());
    setBusy(false);
    if (p?.id) {
      onCreated(p.id);
      onClose();
    }
  }
  return (
    <Modal open onClose={onClose} title="New prompt" footer={<><Button variant="secondary" onClick={onClose}>Cancel</Button><Button busy={busy} disabled={!name.trim() || !type} onClick={() => void save()}>Create</Button></>}>
      <div className="space-y-4">
        <Field id="np-name" label="Name"><Input id="np-name" value={name} onChange={(e) => setName(e.target.value)} /></Field>
        <Field id="np-type" label="Type">
          <Select id="np-type" value={type} onChange={(e) => setType(e.target.value)}>
            <option value="">—</option>
            {options?.promptTypes.map((t) => <option key={t} value={t}>{t}</option>)}
          </Select>
        </Field>
        <Field id="np-desc" label="Description"><Input id="np-desc" value={description} onChange={(e) => setDescription(e.target.value)} /></Field>
      </div>
    </Modal>
  );
}

function ImportYml({ onClose, onImported }: { onClose: () => void; onImported: (v: { id: number }) => void }) {
  const [yml, setYml] = useState("");
  const [busy, setBusy] = useState(false);
  async function save() {
    setBusy(true);
    const v = await act(api.POST("/api/v1/PromptVersions/ImportFromYml", { body: { yml } }), "Version imported");
    setBusy(false);
    if (v) {
      onImported(v);
      onClose();
    }
  }
  return (
    <Modal open onClose={onClose} size="lg" title="Import a prompt version (YML)" footer={<><Button variant="secondary" onClick={onClose}>Cancel</Button><Button busy={busy} disabled={!yml.trim()} onClick={() => void save()}>Import</Button></>}>
      <div className="space-y-3">
        <label className="block text-sm font-medium text-ink-800" htmlFor="yml-file">YML file</label>
        <input id="yml-file" type="file" accept=".yml,.yaml,text/yaml" className="text-sm" onChange={async (e) => { const f = e.target.files?.[0]; if (f) setYml(await f.text()); }} />
        <Field id="yml-text" label="Or paste it"><Textarea id="yml-text" rows={10} className="font-mono" value={yml} onChange={(e) => setYml(e.target.value)} /></Field>
      </div>
    </Modal>
  );
}

type RunResult = Schemas["PromptVersionRunResult"];

export function EditPrompt({ versionId }: { versionId: number }) {
  const { data: v, isLoading, error, mutate } = useApi(["PromptVersions", versionId], () =>
    selected<Row<"PromptVersions", VersionFields, { prompt: Prompt | null }>>(api.GET("/api/v1/PromptVersions({key})", { params: { ...keyPath(versionId), query: { $expand: "prompt" } } })),
  );
  const { data: options } = usePluginOptions();
  const { data: projects } = useSet<Row<"Projects", "id" | "projectName", { client: Row<"Clients", "name"> | null }>>("Projects", { $select: "id,projectName", $expand: "client($select=name)", $filter: "statusCode ge 800", $orderby: "id", $top: 200 });
  const [draft, setDraft] = useState<{ systemPrompt: string; template: string; model: string; temperature: string; notes: string } | null>(null);
  const [projectId, setProjectId] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const [run, setRun] = useState<RunResult>();
  const [audit, setAudit] = useState(0);
  if (error) return <EmptyState title="Prompt version not found">It may have been deleted, or the id is wrong.</EmptyState>;
  if (isLoading || !v) return <LoadingRows label="Loading prompt version" />;
  const d = draft ?? { systemPrompt: v.systemPrompt ?? "", template: v.template, model: v.model ?? "", temperature: v.temperature === null ? "" : String(v.temperature), notes: v.notes ?? "" };
  const set = (k: keyof typeof d) => (e: { target: { value: string } }) => setDraft({ ...d, [k]: e.target.value });
  const after = () => {
    void mutate();
    setAudit((n) => n + 1);
  };
  async function save() {
    setBusy("save");
    const r = await act(api.PATCH("/api/v1/PromptVersions({key})", { params: keyPath(v!.id), body: { systemPrompt: d.systemPrompt || null, template: d.template, model: d.model || null, temperature: d.temperature === "" ? null : Number(d.temperature), notes: d.notes || null } }), "Version saved");
    setBusy(null);
    if (r) {
      setDraft(null);
      after();
    }
  }
  async function publish() {
    setBusy("publish");
    const r = await act(api.POST("/api/v1/PromptVersions({key})/Publish", { params: keyPath(v!.id) }), "Version published", `${v!.prompt?.name ?? "Prompt"} v${v!.versionNumber}`);
    setBusy(null);
    if (r) after();
  }
  async function runIt() {
    setBusy("run");
    const r = await act(api.POST("/api/v1/PromptVersions({key})/Run", { params: keyPath(v!.id), body: { projectId: Number(projectId) } }));
    setBusy(null);
    if (r) {
      setRun(r);
      setAudit((n) => n + 1);
    }
  }
  async function download() {
    const yml = await act(api.POST("/api/v1/PromptVersions({key})/DownloadToYml", { params: keyPath(v!.id), parseAs: "text" }));
    if (typeof yml !== "string") return;
    const url = URL.createObjectURL(new Blob([yml], { type: "application/yaml" }));
    const a = Object.assign(document.createElement("a"), { href: url, download: `${v!.prompt?.name ?? "prompt"}-v${v!.versionNumber}.yml` });
    a.click();
    URL.revokeObjectURL(url);
  }
  return (
    <div>
      <p className="mb-2 text-sm"><Link href={`/prompts/${v.promptId}`} className="text-brand-700 hover:underline">← {v.prompt?.name ?? "Prompt"}</Link></p>
      <PageHeader
        title={`${v.prompt?.name ?? "Prompt"} v${v.versionNumber}`}
        subtitle={v.isPublished ? `Published ${fmtDate(v.publishedAt)}` : "Draft version"}
        actions={
          <>
            <Button busy={busy === "publish"} disabled={v.isPublished} onClick={() => void publish()}>{v.isPublished ? "Published" : "Publish"}</Button>
            <Button variant="secondary" onClick={() => void download()}>Download YML</Button>
          </>
        }
      />
      <div className="grid gap-6 xl:grid-cols-[1fr_20rem]">
        <Card title="Version">
          <div className="space-y-4">
            <Field id="pv-system" label="System prompt"><Textarea id="pv-system" rows={3} value={d.systemPrompt} onChange={set("systemPrompt")} /></Field>
            <Field id="pv-template" label="Template" hint="{{placeholders}} are filled from the project's results"><Textarea id="pv-template" rows={8} className="font-mono" value={d.template} onChange={set("template")} /></Field>
            <div className="grid gap-4 sm:grid-cols-2">
              <Field id="pv-model" label="Model"><Input id="pv-model" value={d.model} onChange={set("model")} placeholder="default" /></Field>
              <Field id="pv-temp" label="Temperature"><Input id="pv-temp" inputMode="decimal" value={d.temperature} onChange={set("temperature")} /></Field>
            </div>
            <Field id="pv-notes" label="Notes"><Input id="pv-notes" value={d.notes} onChange={set("notes")} /></Field>
            <Button busy={busy === "save"} disabled={!draft || !d.template.trim()} onClick={() => void save()}>Save</Button>
          </div>
        </Card>
        <Card title="Placeholders">
          <ul className="space-y-2 text-sm">
            {options?.variables.map((x) => <li key={x.name}><code className="text-brand-800">{x.placeholder}</code><p className="text-xs text-ink-600">{x.description}</p></li>)}
          </ul>
        </Card>
      </div>
      <Card title="Run against a project" className="mt-6">
        <div className="flex flex-col gap-2 sm:flex-row">
          <label htmlFor="pv-project" className="sr-only">Project</label>
          <Select id="pv-project" value={projectId} onChange={(e) => setProjectId(e.target.value)}>
            <option value="">Choose a project with results</option>
            {projects?.value.map((p) => <option key={p.id} value={p.id}>{p.projectName} ({p.client?.name})</option>)}
          </Select>
          <Button className="shrink-0" busy={busy === "run"} disabled={!projectId} onClick={() => void runIt()}>Run</Button>
        </div>
        {run ? (
          <section className="mt-4 space-y-3" aria-label="Run output">
            <p className="text-xs text-ink-500">Provider: {run.provider}{run.unknownPlaceholders.length ? ` · unknown placeholders: ${run.unknownPlaceholders.join(", ")}` : ""}</p>
            <pre className="rounded-lg bg-ink-50 p-3 text-sm whitespace-pre-wrap text-ink-800">{run.output}</pre>
            <details className="text-sm"><summary className="cursor-pointer text-ink-700">Facts used</summary>
              <dl className="mt-2 grid gap-1 sm:grid-cols-[12rem_1fr]">
                {Object.entries(run.facts).map(([k, val]) => <div key={k} className="contents"><dt className="font-mono text-xs text-ink-500">{k}</dt><dd className="text-xs">{val}</dd></div>)}
              </dl>
            </details>
          </section>
        ) : null}
      </Card>
      <AuditLog filter={`promptId eq ${v.promptId}`} title="Prompt events" refreshKey={audit} />
    </div>
  );
}
