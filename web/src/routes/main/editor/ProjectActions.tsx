// The editor's header actions: watch / unwatch, share, clone (SPEC 8's 'Project cloned' toast,
// then the new project).
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { api, selected, unwrap, type Page, type Row } from "../../../api/client";
import { DEFAULT_ERROR_TITLE, handleError } from "../../../api/errors";
import { fieldMessages } from "../../../lib/fieldErrors";
import { useApi } from "../../../api/hooks";
import type { CurrentClient } from "../../../state/client";
import { ConfirmDialog, Modal } from "../../../components/Dialog";
import { Button, Field, Input, Textarea } from "../../../components/ui";
import { toast } from "../../../components/toast";
import { keyPath, run, type EditorProject } from "../../../features/projects-editor/data";
import { useMe } from "../../../state/app";

export const CLONED_TITLE = "Project cloned";
export const clonedDetail = (name: string) => `Project '${name}' has been cloned.`;

function useWatching(projectId: number, userId: number | undefined) {
  const query = { $filter: `projectId eq ${projectId} and userId eq ${userId}`, $select: "id", $top: 1 };
  return useApi(userId ? ["ProjectWatchers", projectId, userId] : null, () => selected<Page<Row<"ProjectWatchers", "id">>>(api.GET("/api/v1/ProjectWatchers", { params: { query } })));
}

export function ProjectActions({ client, project }: { client: CurrentClient; project: EditorProject }) {
  const [, navigate] = useLocation();
  const { data: me } = useMe(client.id);
  const watchers = useWatching(project.id, me?.id);
  const watching = !!watchers.data?.value.length;
  const [busy, setBusy] = useState<string | null>(null);
  const [sharing, setSharing] = useState(false);
  const [deleting, setDeleting] = useState(false);

  async function toggleWatch() {
    setBusy("watch");
    const path = watching ? "/api/v1/Projects({key})/StopWatching" : "/api/v1/Projects({key})/StartWatching";
    const ok = await run(
      api.POST(path, { params: keyPath(project.id), body: {} }),
      watching ? ["Stopped watching", "You will no longer be notified about this project."] : ["Watching", "You will be notified when this project changes status."],
    );
    setBusy(null);
    if (ok !== undefined) void watchers.mutate();
  }

  /** A draft goes to the trash (soft delete); the toast offers to bring it back (Undelete). */
  async function remove() {
    setBusy("delete");
    const r = await run(api.DELETE("/api/v1/Projects({key})", { params: keyPath(project.id) }));
    setBusy(null);
    setDeleting(false);
    if (r === undefined) return;
    navigate(`~/${client.id}/home`);
    const id = toast.show({
      summary: "Draft deleted",
      sticky: true,
      content: (
        <p className="mt-0.5 text-sm text-ink-600">
          {project.projectName} is in the trash.{" "}
          <button
            type="button"
            className="font-medium text-brand-700 underline"
            onClick={() => {
              toast.remove(id);
              void run(api.POST("/api/v1/Projects({key})/Undelete", { params: keyPath(project.id) }), ["Draft restored", project.projectName]).then((x) => {
                if (x !== undefined) navigate(`~/${client.id}/projects/${project.id}`);
              });
            }}
          >
            Restore it
          </button>
        </p>
      ),
    });
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
      <Button variant="secondary" size="sm" onClick={() => setSharing(true)}>
        Share
      </Button>
      <Button variant="secondary" size="sm" busy={busy === "clone"} onClick={() => void clone()}>
        Clone
      </Button>
      {project.statusCode === 0 ? (
        <Button variant="ghost" size="sm" className="text-rose-700" onClick={() => setDeleting(true)}>
          Delete draft
        </Button>
      ) : null}
      {sharing ? <ShareDialog project={project} onClose={() => setSharing(false)} /> : null}
      <ConfirmDialog
        open={deleting}
        title="Delete draft"
        message={`Move "${project.projectName}" to the trash? Nothing was charged for it; you can restore it from the message that follows.`}
        confirmLabel="Delete draft"
        busy={busy === "delete"}
        onConfirm={() => void remove()}
        onClose={() => setDeleting(false)}
      />
    </>
  );
}

const SHARE_STATUS: Record<string, string> = {
  shared: "shared: they can read it now",
  invited: "invited by email: they can read it once they register",
  alreadyShared: "already had access",
  member: "already in the team: nothing to share",
  disabled: "not shared: the account is disabled",
};

type ShareOutcome = { email: string; status: string };

/** What a Share did, in words: how many got access, and why the others did not. */
export function shareSummary(projectName: string, results: ShareOutcome[]): { title: string; detail: string } {
  const n = (st: string) => results.filter((r) => r.status === st).length;
  const people = (k: number) => `${k} ${k === 1 ? "person" : "people"}`;
  const gained = n("shared") + n("invited");
  const parts: string[] = [];
  if (n("shared")) parts.push(`${people(n("shared"))} can read it now`);
  if (n("invited")) parts.push(`${people(n("invited"))} invited by email`);
  if (n("alreadyShared")) parts.push(`${people(n("alreadyShared"))} already had access`);
  if (n("member")) parts.push(`${people(n("member"))} already in the team`);
  if (n("disabled")) parts.push(`${people(n("disabled"))} not shared (account disabled)`);
  return { title: gained ? "Project shared" : "Nobody new to share with", detail: `${projectName}: ${parts.join("; ")}.` };
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

function ShareDialog({ project, onClose }: { project: EditorProject; onClose: () => void }) {
  const [emails, setEmails] = useState("");
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [results, setResults] = useState<ShareOutcome[] | null>(null);
  const list = emails
    .split(/[\s,;]+/)
    .map((e) => e.trim())
    .filter(Boolean);

  async function submit(e: FormEvent) {
    e.preventDefault();
    const bad = list.filter((x) => !EMAIL.test(x));
    if (bad.length) {
      setErrors({ "share-emails": `${bad.length === 1 ? "This is not an email address" : "These are not email addresses"}: ${bad.join(", ")}` });
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const r = await unwrap(api.POST("/api/v1/Projects({key})/Share", { params: keyPath(project.id), body: { emails: list, ...(message.trim() ? { message: message.trim() } : {}) } }));
      setResults(r.results);
      const sum = shareSummary(project.projectName, r.results);
      toast.success(sum.title, sum.detail);
    } catch (err) {
      // Field errors at their field, in words; only what belongs to no field goes to a toast.
      const f = fieldMessages(err, { emails: "share-emails", message: "share-message" });
      if (f) {
        setErrors(f.byField);
        if (f.rest.length) toast.error(DEFAULT_ERROR_TITLE, f.rest.join(" "), true);
      } else handleError(err);
    } finally {
      setBusy(false);
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
            <Button variant="secondary" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" form="share-project" busy={busy} disabled={!list.length}>
              Share
            </Button>
          </>
        )
      }
    >
      {results ? (
        <ul className="space-y-1">
          {results.map((r) => (
            <li key={r.email}>
              <span className="font-medium">{r.email}</span>: {SHARE_STATUS[r.status] ?? r.status}
            </li>
          ))}
        </ul>
      ) : (
        <form id="share-project" onSubmit={submit} className="space-y-4" noValidate>
          <Field
            id="share-emails"
            label="Emails"
            error={errors["share-emails"]}
            hint="Separate with commas. People outside your team can read the project (never change it); outside emails get a link."
          >
            <Input id="share-emails" value={emails} aria-invalid={errors["share-emails"] ? true : undefined} onChange={(e) => setEmails(e.target.value)} placeholder="name@company.com" autoFocus />
          </Field>
          <Field id="share-message" label="Message (optional)" error={errors["share-message"]}>
            <Textarea id="share-message" rows={3} value={message} onChange={(e) => setMessage(e.target.value)} maxLength={2000} />
          </Field>
          <p className="text-xs text-ink-600">Nothing is shared with people already in your team: they see the project already.</p>
        </form>
      )}
    </Modal>
  );
}
