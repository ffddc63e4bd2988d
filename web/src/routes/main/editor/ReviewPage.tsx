// projects/{id}/review (status 50, Awaiting Approval): the submitted set-up at a glance; the team's
// Admins (and staff) approve it or decline it with a reason; its owner can unsubmit it.
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { api } from "../../../api/client";
import type { CurrentClient } from "../../../app/ClientArea";
import { FormModal } from "../../../components/FormModal";
import { Button, Card, Field, PageHeader, Skeleton, Textarea } from "../../../components/ui";
import { keyPath, run, useCreditCost, useRefreshProject, useTestOptions, type EditorProject } from "../../../features/projects-editor/data";
import { useMe } from "../../../state/app";
import { ProjectTitle } from "../ProjectPage";
import { groupQuestions } from "../../../features/projects-editor/questions";
import { useProjectQuestions } from "./QuestionsTab";
import { credits, UnsubmitButton } from "./SubmitBar";

export function ReviewPage({ client, project }: { client: CurrentClient; project: EditorProject }) {
  const [, navigate] = useLocation();
  const refresh = useRefreshProject(project.id);
  const { data: me } = useMe(client.id);
  const { data: cost } = useCreditCost(project.id);
  const { data: options } = useTestOptions(project.id);
  const { data: questions } = useProjectQuestions(project.id);
  const [declining, setDeclining] = useState(false);
  const [reason, setReason] = useState("");
  const [busy, setBusy] = useState<string | null>(null);
  const isAdmin = !!me && (me.isStaff || me.client?.role?.id === 1);
  const isOwner = !!me && project.ownerUserId === me.id;

  async function approve() {
    setBusy("approve");
    const r = await run(api.POST("/api/v1/Projects({key})/Approve", { params: keyPath(project.id), body: {} }), ["Project approved", `${project.projectName} goes to the Ideally team for review.`]);
    setBusy(null);
    if (r !== undefined) await refresh();
  }
  async function decline(e: FormEvent) {
    e.preventDefault();
    setBusy("decline");
    const r = await run(api.POST("/api/v1/Projects({key})/Decline", { params: keyPath(project.id), body: { reason: reason.trim() } }), ["Project declined", "It is a draft again; the submitter was told why."]);
    setBusy(null);
    if (r !== undefined) {
      setDeclining(false);
      await refresh();
    }
  }

  return (
    <div>
      <PageHeader title={project.projectName} subtitle={<ProjectTitle project={project} />} />
      <div className="mb-6 rounded-xl border border-amber-200 bg-amber-50 px-5 py-4">
        <h2 className="font-semibold text-amber-950">Awaiting approval</h2>
        <p className="mt-1 text-sm text-amber-900">
          {isAdmin ? "Review the set-up below, then approve it to send it for fielding or decline it with a reason." : "An Admin of your team reviews this project before it is fielded. You will be notified of their decision."}
        </p>
        <div className="mt-4 flex flex-wrap gap-2">
          {isAdmin ? (
            <>
              <Button busy={busy === "approve"} onClick={() => void approve()}>Approve</Button>
              <Button variant="secondary" onClick={() => setDeclining(true)}>Decline</Button>
            </>
          ) : null}
          {isOwner || isAdmin ? <UnsubmitButton project={project} onDone={() => void refresh().then(() => navigate(`~/${client.id}/projects/${project.id}`))} /> : null}
        </div>
      </div>
      <div className="grid gap-6 lg:grid-cols-3">
        <Card title="Cost">
          {cost ? (
            <dl className="space-y-2 text-sm">
              <div className="flex justify-between"><dt>Credits set aside</dt><dd className="font-semibold">{credits(cost.lastRunCost ?? cost.total)}</dd></div>
              <div className="flex justify-between"><dt>Team balance</dt><dd>{credits(cost.balance)}</dd></div>
              {cost.regions.map((r) => (
                <div key={r.regionId} className="flex justify-between text-ink-600"><dt>{r.regionName} · {r.sampleSize} completes</dt><dd>{r.cost.toLocaleString("en")}</dd></div>
              ))}
            </dl>
          ) : <Skeleton className="h-20" />}
        </Card>
        <Card title={`Test options${options ? ` (${options.value.length})` : ""}`}>
          {options ? (
            <ul className="list-disc space-y-1 pl-5 text-sm">
              {options.value.map((o) => <li key={o.id}>{o.conceptText}</li>)}
            </ul>
          ) : <Skeleton className="h-20" />}
        </Card>
        <Card title="Questions">
          {questions ? (
            <ul className="space-y-1 text-sm">
              {groupQuestions(questions.value).map((g) => (
                <li key={g.name} className="flex justify-between"><span>{g.name}</span><span className="text-ink-600">{g.items.length}</span></li>
              ))}
            </ul>
          ) : <Skeleton className="h-20" />}
          <p className="mt-3 text-sm text-ink-600">Markets: {project.projectsRegions.map((r) => r.region?.regionName).join(", ")}</p>
        </Card>
      </div>
      {declining ? (
        <FormModal id="decline-form" title="Decline project" submitLabel="Decline" danger busy={busy === "decline"} disabled={!reason.trim()} onSubmit={decline} onClose={() => setDeclining(false)}>
          <Field id="decline-reason" label="Reason" hint="Sent to the person who submitted it.">
            <Textarea id="decline-reason" rows={4} value={reason} maxLength={2000} required autoFocus onChange={(e) => setReason(e.target.value)} />
          </Field>
        </FormModal>
      ) : null}
    </div>
  );
}
