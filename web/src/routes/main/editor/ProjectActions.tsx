// The editor's header actions: watch / unwatch, share, clone (SPEC 8's 'Project cloned' toast,
// then the new project).
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { api, selected, type Page, type Row } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import type { CurrentClient } from "../../../app/ClientArea";
import { Modal } from "../../../components/Dialog";
import { Button, Field, Input, Textarea } from "../../../components/ui";
import { toast } from "../../../components/toast";
import { keyPath, run, type EditorProject } from "../../../features/projects-editor/data";
import { useMe } from "../../../state/app";

export const CLONED_TITLE = "Project cloned";
export const clonedDetail = (name: string) => `Project '${name}' has been cloned.`;

function useWatching(projectId: number, userId: number | undefined) {
  const query = { $filter: `projectId eq ${projectId} and userId eq ${userId}`, $select: "id", $top: 1 };
  return useApi(userId ? ["ProjectWatchers", projectId, userId] : null, () =>
    selected<Page<Row<"ProjectWatchers", "id">>>(api.GET("/api/v1/ProjectWatchers", { params: { query } })),
  );
}

export function ProjectActions({ client, project }: { client: CurrentClient; project: EditorProject }) {
  const [, navigate] = useLocation();
  const { data: me } = useMe(client.id);
  const watchers = useWatching(project.id, me?.id);
  const watching = !!watchers.data?.value.length;
  const [busy, setBusy] = useState<string | null>(null);
  const [sharing, setSharing] = useState(false);

  async function toggleWatch() {
    setBusy("watch");
    const path = watching ? "/api/v1/Projects({key})/StopWatching" : "/api/v1/Projects({key})/StartWatching";
    const ok = await run(api.POST(path, { params: keyPath(project.id), body: {} }), watching ? ["Stopped watching", "You will no longer be notified about this project."] : ["Watching", "You will be notified when this project changes status."]);
    setBusy(null);
    if (ok !== undefined) void watchers.mutate();
  }

  async function clone() {
    setBusy("clone");
    const copy = (await run(api.POST("/api/v1/Projects({key})/Duplicate", { params: keyPath(project.id), body: {} }))) as { id: number; projectName: string } | undefined;
    setBusy(null);
    if (!copy) return;
    toast.success(CLONED_TITLE, clonedDetail(copy.projectName));
    navigate(`~/${client.id}/projects/${copy.id}`);
  }

  return (
    <>
      <Button variant="secondary" size="sm" busy={busy === "watch"} aria-pressed={watching} onClick={() => void toggleWatch()} disabled={!me}>
        {watching ? "Unwatch" : "Watch"}
      </Button>
      <Button variant="secondary" size="sm" onClick={() => setSharing(true)}>Share</Button>
      <Button variant="secondary" size="sm" busy={busy === "clone"} onClick={() => void clone()}>Clone</Button>
      {sharing ? <ShareDialog project={project} onClose={() => setSharing(false)} /> : null}
    </>
  );
}

const SHARE_STATUS: Record<string, string> = {
  shared: "shared",
  invited: "invited by email",
  alreadyShared: "already had access",
  member: "already in the team",
  disabled: "not shared (account disabled)",
};

function ShareDialog({ project, onClose }: { project: EditorProject; onClose: () => void }) {
  const [emails, setEmails] = useState("");
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [results, setResults] = useState<{ email: string; status: string }[] | null>(null);
  const list = emails.split(/[\s,;]+/).map((e) => e.trim()).filter(Boolean);

  async function submit(e: FormEvent) {
    e.preventDefault();
    setBusy(true);
    const r = (await run(api.POST("/api/v1/Projects({key})/Share", { params: keyPath(project.id), body: { emails: list, ...(message.trim() ? { message: message.trim() } : {}) } }))) as { results: { email: string; status: string }[] } | undefined;
    setBusy(false);
    if (r) {
      setResults(r.results);
      toast.success("Project shared", `${project.projectName} was shared with ${r.results.filter((x) => x.status === "shared" || x.status === "invited").length} people.`);
    }
  }

  return (
    <Modal
      open
      onClose={onClose}
      title="Share project"
      footer={
        results ? (
          <Button onClick={onClose}>Done</Button>
        ) : (
          <>
            <Button variant="secondary" onClick={onClose}>Cancel</Button>
            <Button type="submit" form="share-project" busy={busy} disabled={!list.length}>Share</Button>
          </>
        )
      }
    >
      {results ? (
        <ul className="space-y-1">
          {results.map((r) => (
            <li key={r.email}><span className="font-medium">{r.email}</span>: {SHARE_STATUS[r.status] ?? r.status}</li>
          ))}
        </ul>
      ) : (
        <form id="share-project" onSubmit={submit} className="space-y-4">
          <Field id="share-emails" label="Emails" hint="Colleagues or people outside the team; separate with commas. Outside emails get a link.">
            <Input id="share-emails" value={emails} onChange={(e) => setEmails(e.target.value)} placeholder="name@company.com" autoFocus />
          </Field>
          <Field id="share-message" label="Message (optional)">
            <Textarea id="share-message" rows={3} value={message} onChange={(e) => setMessage(e.target.value)} maxLength={2000} />
          </Field>
        </form>
      )}
    </Modal>
  );
}
