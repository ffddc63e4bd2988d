// projects/{id}/review (status 50, Awaiting Approval): the submitted set-up as the approving Admin
// needs it (cost, design, each concept's text and image, the targets per market, every question's
// wording and answers in the order respondents meet them); the team's
// Admins (and staff) approve it or decline it with a reason; its owner can unsubmit it. A design the
// panel cannot fill (submitted with its shortfall accepted) says so, and an Admin approves it only
// after accepting the shortfall too.
import { useState, type FormEvent } from "react";
import { useLocation } from "wouter";
import { api } from "../../../api/client";
import type { CurrentClient } from "../../../state/client";
import { FormModal } from "../../../components/FormModal";
import { Button, Card, Field, PageHeader, Skeleton, Textarea } from "../../../components/ui";
import { keyPath, run, useCreditCost, useFileUrls, useReadiness, useRefreshProject, useTestOptions, type EditorProject } from "../../../features/projects-editor/data";
import { ShortfallNotice } from "./Shortfall";
import { QUESTION_TYPES } from "../../../lib/constants";
import { useTargetQuestions } from "./MarketsTab";
import { useMe } from "../../../state/app";
import { ProjectTitle } from "./shared";
import { groupQuestions } from "../../../features/projects-editor/questions";
import { useProjectQuestions } from "./QuestionsTab";
import { credits, UnsubmitButton } from "./SubmitBar";
import { designText } from "../../../features/design";

export function ReviewPage({ client, project }: { client: CurrentClient; project: EditorProject }) {
  const [, navigate] = useLocation();
  const refresh = useRefreshProject(project.id);
  const { data: me } = useMe(client.id);
  const { data: cost } = useCreditCost(project.id);
  // The same check as the editor's: here for its shortfall (what each market can deliver).
  const shortfall = useReadiness(project.id).data?.shortfall ?? null;
  const [accepted, setAccepted] = useState(false);
  const { data: options } = useTestOptions(project.id);
  const { data: questions } = useProjectQuestions(project.id);
  // The editor's project type names each region's completes and panel.
  const markets: EditorProject["projectsRegions"][number][] = project.projectsRegions;
  const files = useFileUrls(project.id);
  const imageOf = (id: number) => files.data?.value.find((f) => f.source === "testOption" && f.testOptionId === id)?.signedUrl;
  const { data: targets } = useTargetQuestions(project.id);
  // The chosen answers per question and market (a demographic answer belongs to one market or all).
  const chosenTargets = (targets?.value ?? []).flatMap((q) => {
    const on = q.options.filter((o) => o.isTarget);
    const markets = [...new Set(on.map((o) => o.regionId))];
    return markets.map((m) => ({
      key: `${q.source}-${q.id}-${m ?? 0}`,
      question: q.questionLabel,
      market: m === null ? null : (project.projectsRegions.find((r) => r.regionId === m)?.region?.regionName ?? `Region ${m}`),
      answers: on.filter((o) => o.regionId === m).map((o) => o.answerLabel),
    }));
  });
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
    const r = await run(api.POST("/api/v1/Projects({key})/Decline", { params: keyPath(project.id), body: { reason: reason.trim() } }), [
      "Project declined",
      "It is a draft again; the submitter was told why.",
    ]);
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
          {isAdmin
            ? "Review the set-up below, then approve it to send it for fielding or decline it with a reason."
            : "An Admin of your team reviews this project before it is fielded. You will be notified of their decision."}
        </p>
        {shortfall ? (
          <div className="mt-3">
            {isAdmin ? (
              <ShortfallNotice shortfall={shortfall} accepted={accepted} onAccept={setAccepted} label="I accept the shortfall: approve this design anyway." />
            ) : (
              <ShortfallNotice shortfall={shortfall} />
            )}
          </div>
        ) : null}
        <div className="mt-4 flex flex-wrap gap-2">
          {isAdmin ? (
            <>
              <Button busy={busy === "approve"} disabled={!!shortfall && !accepted} onClick={() => void approve()}>
                Approve
              </Button>
              <Button variant="secondary" onClick={() => setDeclining(true)}>
                Decline
              </Button>
            </>
          ) : null}
          {isOwner || isAdmin ? <UnsubmitButton project={project} onDone={() => void refresh().then(() => navigate(`~/${client.id}/projects/${project.id}`))} /> : null}
        </div>
      </div>
      <div className="grid gap-6 lg:grid-cols-3">
        <Card title="Cost">
          {cost ? (
            <dl className="space-y-2 text-sm">
              <div className="flex justify-between">
                <dt>Credits set aside</dt>
                <dd className="font-semibold">{credits(cost.lastRunCost ?? cost.total)}</dd>
              </div>
              <div className="flex justify-between">
                <dt>Team balance</dt>
                <dd>{credits(cost.balance)}</dd>
              </div>
              {cost.regions.map((r) => (
                <div key={r.regionId} className="flex justify-between text-ink-600">
                  <dt>
                    {r.regionName} · {r.sampleSize} completes
                  </dt>
                  <dd>{r.cost.toLocaleString("en")}</dd>
                </div>
              ))}
            </dl>
          ) : (
            <Skeleton className="h-20" />
          )}
        </Card>
        <Card title="Design" className="lg:col-span-2">
          <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-2">
            <div>
              <dt className="text-xs text-ink-500">Markets</dt>
              <dd>{markets.map((r) => `${r.region?.regionName ?? r.regionId} (${r.sampleSize} completes${r.isCustomerPanel ? ", customer panel" : ""})`).join(", ")}</dd>
            </div>
            <div>
              <dt className="text-xs text-ink-500">Framework</dt>
              <dd>{project.framework?.title ?? "None"}</dd>
            </div>
            <div>
              <dt className="text-xs text-ink-500">Design</dt>
              <dd data-testid="design">{designText(project.splitCellQuota === true)}</dd>
            </div>
            <div>
              <dt className="text-xs text-ink-500">Waves</dt>
              <dd>
                {project.scheduleStartDate && project.scheduleFrequencyWeeks
                  ? `${project.scheduleWavesRequired ?? "Ongoing"} waves every ${project.scheduleFrequencyWeeks} weeks from ${project.scheduleStartDate}`
                  : "One wave"}
              </dd>
            </div>
            {project.researchNote ? (
              <div className="sm:col-span-2">
                <dt className="text-xs text-ink-500">Research note</dt>
                <dd className="whitespace-pre-line">{project.researchNote}</dd>
              </div>
            ) : null}
          </dl>
        </Card>
      </div>
      <Card title={`Test options${options ? ` (${options.value.length})` : ""}`} className="mt-6">
        {!options ? (
          <Skeleton className="h-20" />
        ) : !options.value.length ? (
          <p className="text-sm text-rose-700">No test options: respondents have nothing to rate.</p>
        ) : (
          <ul className="grid gap-4 sm:grid-cols-2 lg:grid-cols-3">
            {options.value.map((o) => {
              const img = imageOf(o.id);
              return (
                <li key={o.id} className="overflow-hidden rounded-xl border border-ink-200">
                  {img ? <img src={img} alt={o.conceptText} className="aspect-[4/3] w-full bg-ink-50 object-contain" /> : null}
                  <div className="p-3">
                    <h3 className="text-sm font-semibold text-ink-900">{o.conceptText}</h3>
                    {o.conceptDescription ? <p className="mt-1 text-sm whitespace-pre-line text-ink-700">{o.conceptDescription}</p> : <p className="mt-1 text-sm text-ink-500">No description.</p>}
                  </div>
                </li>
              );
            })}
          </ul>
        )}
      </Card>
      <Card title="Targets" className="mt-6">
        {!targets ? (
          <Skeleton className="h-16" />
        ) : !chosenTargets.length ? (
          <p className="text-sm text-ink-600">No targets: everyone in the markets qualifies.</p>
        ) : (
          <ul className="space-y-1 text-sm">
            {chosenTargets.map((t) => (
              <li key={t.key}>
                <span className="font-medium">{t.question}</span>
                {t.market ? <span className="text-ink-500"> · {t.market}</span> : null}: {t.answers.join(", ")}
              </li>
            ))}
          </ul>
        )}
      </Card>
      <Card title="Questions, in the order respondents answer them" className="mt-6">
        {!questions ? (
          <Skeleton className="h-20" />
        ) : (
          <div className="space-y-5">
            {groupQuestions(questions.value).map((g) => (
              <section key={g.name} aria-label={g.name}>
                <h3 className="mb-2 text-xs font-semibold tracking-wide text-ink-500 uppercase">{g.name}</h3>
                <ol className="space-y-3">
                  {g.items.map((pq) => (
                    <li key={pq.id} className="text-sm">
                      <p className="font-medium text-ink-900">
                        {pq.question?.questionText ?? "—"}
                        {pq.testOption ? <span className="font-normal text-ink-500"> · about {pq.testOption.conceptText}</span> : null}
                      </p>
                      {pq.question?.questionOptions.length ? (
                        <p className="mt-0.5 text-ink-600">
                          {QUESTION_TYPES[pq.question.questionTypeId] ?? ""}: {pq.question.questionOptions.map((o) => o.optionText).join(" · ")}
                        </p>
                      ) : pq.question ? (
                        <p className="mt-0.5 text-ink-600">{QUESTION_TYPES[pq.question.questionTypeId] ?? ""}</p>
                      ) : null}
                    </li>
                  ))}
                </ol>
              </section>
            ))}
          </div>
        )}
      </Card>
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
