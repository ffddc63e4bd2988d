// The bar under the editor: what the next run costs now against the team's credits (Projects
// CreditCostNow: exactly what Submit charges), Submit with that figure confirmed first, Unsubmit.
// A design the panel cannot fill (ReadinessCheck's non-blocking `feasibility` problems) keeps Submit
// available, but the dialog states the shortfall and submits only once it is accepted explicitly.
import { useEffect, useState } from "react";
import { Link, useLocation } from "wouter";
import { api } from "../../../api/client";
import type { CurrentClient } from "../../../state/client";
import { Modal } from "../../../components/Dialog";
import { Button, Skeleton } from "../../../components/ui";
import { useProjectEvents } from "../../../features/projects";
// Read at render time only, so the import cycle with the page is harmless.
import { EDITOR_TABS } from "./shared";
import { ShortfallNotice } from "./Shortfall";
import { keyPath, run, useCreditCost, useReadiness, useRefreshProject, type EditorProject } from "../../../features/projects-editor/data";

export const credits = (n: number) => `${Math.round(n).toLocaleString("en")} credits`;

export function UnsubmitButton({ project, onDone }: { project: EditorProject; onDone: () => void }) {
  const [busy, setBusy] = useState(false);
  async function unsubmit() {
    setBusy(true);
    const r = await run(api.POST("/api/v1/Projects({key})/Unsubmit", { params: keyPath(project.id), body: {} }), ["Project unsubmitted", "It is a draft again and its pending credits were returned."]);
    setBusy(false);
    if (r !== undefined) onDone();
  }
  return (
    <Button variant="secondary" busy={busy} onClick={() => void unsubmit()}>
      Unsubmit
    </Button>
  );
}

export function SubmitBar({ client, project }: { client: CurrentClient; project: EditorProject }) {
  const [path, navigate] = useLocation();
  const { data: cost, mutate } = useCreditCost(project.id);
  const draft = project.statusCode === 0;
  const readiness = useReadiness(draft ? project.id : null);
  const problems = readiness.data?.problems ?? [];
  const blocking = problems.filter((x) => x.blocking);
  const short = problems.filter((x) => !x.blocking);
  const shortfall = readiness.data?.shortfall ?? null;
  const ready = readiness.data?.ready ?? false;
  const recheck = readiness.mutate;
  useProjectEvents(() => {
    void mutate();
    void recheck();
  }, project.id);
  // Each tab's edits change what is missing: check again when moving between tabs.
  useEffect(() => void recheck(), [path, recheck]);
  const refresh = useRefreshProject(project.id);
  const [confirming, setConfirming] = useState(false);
  const [accepted, setAccepted] = useState(false);
  const [busy, setBusy] = useState(false);
  const openConfirm = () => {
    setAccepted(false);
    setConfirming(true);
  };

  async function submit() {
    setBusy(true);
    const body = shortfall && accepted ? { acceptShortfall: true } : {};
    const r = (await run(api.POST("/api/v1/Projects({key})/Submit", { params: keyPath(project.id), body }))) as { statusCode: number } | undefined;
    setBusy(false);
    setConfirming(false);
    if (!r) return;
    await refresh();
    if (r.statusCode === 50) navigate(`~/${client.id}/projects/${project.id}/review`);
  }

  return (
    <div className="fixed inset-x-0 bottom-0 z-30 border-t border-ink-200 bg-white/95 shadow-[0_-4px_12px_rgba(0,0,0,0.04)] backdrop-blur lg:left-60">
      {draft && blocking.length ? (
        <section aria-labelledby="readiness-title" className="mx-auto max-w-6xl border-b border-amber-200 bg-amber-50 px-4 py-2 sm:px-6">
          <h2 id="readiness-title" className="text-sm font-semibold text-amber-900">
            Before you can submit
          </h2>
          <ul className="mt-1 space-y-0.5 text-sm text-amber-900">
            {blocking.map((x) => (
              <li key={`${x.code}:${x.message}`} className="flex flex-wrap gap-x-2">
                <span>{x.message}</span>
                <Link className="font-medium underline" href={`~/${client.id}/projects/${project.id}${x.tab === "setup" ? "" : `/${x.tab}`}`}>
                  Fix in {EDITOR_TABS.find((t) => t.id === x.tab)?.label}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      {draft && short.length ? (
        <section aria-labelledby="feasibility-title" className="mx-auto max-w-6xl border-b border-amber-200 bg-amber-50 px-4 py-2 sm:px-6">
          <h2 id="feasibility-title" className="text-sm font-semibold text-amber-900">
            Not feasible as designed: you can submit only by accepting the shortfall
          </h2>
          <ul className="mt-1 space-y-0.5 text-sm text-amber-900">
            {short.map((x) => (
              <li key={`${x.code}:${x.message}`} className="flex flex-wrap gap-x-2">
                <span>{x.message}</span>
                <Link className="font-medium underline" href={`~/${client.id}/projects/${project.id}/${x.tab}`}>
                  Fix in {EDITOR_TABS.find((t) => t.id === x.tab)?.label}
                </Link>
              </li>
            ))}
          </ul>
        </section>
      ) : null}
      <div className="mx-auto flex max-w-6xl flex-wrap items-center justify-between gap-3 px-4 py-3 sm:px-6">
        <dl className="flex flex-wrap gap-x-6 gap-y-1 text-sm" aria-label="Cost">
          {cost ? (
            <>
              <div>
                <dt className="text-xs text-ink-500">{draft ? "This run costs" : "Set aside"}</dt>
                <dd className="font-semibold text-ink-900" data-testid="run-cost">
                  {credits(draft ? cost.total : (cost.lastRunCost ?? cost.total))}
                </dd>
              </div>
              <div>
                <dt className="text-xs text-ink-500">Team balance</dt>
                <dd className="text-ink-800">{credits(cost.balance)}</dd>
              </div>
              <div>
                <dt className="text-xs text-ink-500">Available</dt>
                <dd className={cost.affordable ? "text-ink-800" : "font-medium text-rose-700"}>{credits(cost.available)}</dd>
              </div>
            </>
          ) : (
            <Skeleton className="h-9 w-72" />
          )}
        </dl>
        <div className="flex items-center gap-2">
          {cost && draft && !cost.affordable ? <p className="text-sm text-rose-700">Not enough credits for this run.</p> : null}
          {draft ? (
            // Rendered once the cost is known: Submit never offers to spend an unknown amount.
            // and only once the pre-launch check has passed (the API refuses an incomplete test too).
            cost ? (
              <Button onClick={openConfirm} disabled={!cost.affordable || !ready}>
                Submit
              </Button>
            ) : null
          ) : project.statusCode === 50 || project.statusCode === 100 ? (
            <UnsubmitButton project={project} onDone={() => void refresh()} />
          ) : null}
        </div>
      </div>
      {confirming && cost ? (
        <Modal
          open
          onClose={() => setConfirming(false)}
          title="Submit project"
          size="sm"
          footer={
            <>
              <Button variant="secondary" onClick={() => setConfirming(false)}>
                Cancel
              </Button>
              <Button busy={busy} disabled={!!shortfall && !accepted} onClick={() => void submit()}>
                Submit for {credits(cost.total)}
              </Button>
            </>
          }
        >
          <p>
            Submitting sets aside <strong>{credits(cost.total)}</strong> for the first wave in {cost.regions.map((r) => r.regionName).join(", ")}. Your team's balance goes from {credits(cost.balance)}{" "}
            to {credits(cost.balance - cost.total)}.
          </p>
          <p className="mt-2 text-ink-600">If your team needs approval, an Admin reviews it first. You can unsubmit until the review starts; the credits come back.</p>
          {shortfall ? (
            <div className="mt-3">
              <ShortfallNotice shortfall={shortfall} accepted={accepted} onAccept={setAccepted} label="I accept the shortfall: submit this design anyway." />
            </div>
          ) : null}
        </Modal>
      ) : null}
    </div>
  );
}
