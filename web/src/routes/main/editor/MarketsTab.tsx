// Markets and targets: the project's regions (US states only with CanChooseUsStateMarkets), the
// demographic and screener targets with past respondents per answer (Questions
// TargetQuestionsWithCounts), saved through Projects ChangeTargets / DeleteRegions, and the
// incidence estimate, updated live by IncidenceEstimateUpdated on the client channel.
import { useEffect, useState } from "react";
import { api, type Schemas } from "../../../api/client";
import { useApi } from "../../../api/hooks";
import { Badge, Button, Card, EmptyState, Skeleton, cx } from "../../../components/ui";
import { onRealtime } from "../../../state/realtime";
import { useMe } from "../../../state/app";
import { hasFlag, keyPath, run, useRefreshProject } from "../../../features/projects-editor/data";
import { useRegions } from "../CreateProject";
import type { TabProps } from "../ProjectPage";

type TargetQuestion = Schemas["TargetQuestion"];
type TargetOption = TargetQuestion["options"][number];
type Incidence = Schemas["IncidenceEstimate"];

const optKey = (o: TargetOption) => (o.systemQuestionOptionId ? `s${o.systemQuestionOptionId}` : `q${o.questionOptionId}`);
const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

export function MarketsTab({ client, project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const { data: me } = useMe(client.id);
  const { data: regions } = useRegions();
  const targets = useApi(["TargetQuestionsWithCounts", project.id], () =>
    api.GET("/api/v1/Questions/TargetQuestionsWithCounts", { params: { query: { projectId: String(project.id) } } }),
  );
  const [incidence, setIncidence] = useState<Incidence | null>(null);
  const [busy, setBusy] = useState(false);
  const regionIds = project.projectsRegions.map((r) => r.regionId);
  const states = hasFlag(me, "CanChooseUsStateMarkets");

  async function estimate() {
    const r = await run(api.POST("/api/v1/Projects({key})/IncidenceEstimate", { params: keyPath(project.id), body: {} }));
    if (r) setIncidence(r);
  }
  // The first estimate on opening; later ones follow each change and arrive by event too.
  useEffect(() => {
    if (project.statusCode < 400) void estimate();
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [project.id]);
  useEffect(
    () =>
      onRealtime((ev) => {
        const d = ev.data as { projectId?: number; incidenceEstimate?: number } | null;
        if (ev.event === "IncidenceEstimateUpdated" && d?.projectId === project.id && typeof d.incidenceEstimate === "number") {
          // Another tab or person changed the targets: follow them (reads only, so tabs do not
          // set each other off estimating).
          setIncidence((cur) => (cur ? { ...cur, incidenceEstimate: d.incidenceEstimate! } : cur));
          void targets.mutate();
        }
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [project.id],
  );

  function currentTargets(q: TargetQuestion[], toggled?: TargetOption) {
    const out: { systemQuestionOptionId?: number; questionOptionId?: number }[] = [];
    for (const question of q)
      for (const o of question.options) {
        const on = toggled && optKey(toggled) === optKey(o) ? !o.isTarget : o.isTarget;
        if (on) out.push(o.systemQuestionOptionId ? { systemQuestionOptionId: o.systemQuestionOptionId } : { questionOptionId: o.questionOptionId! });
      }
    // One demographic option can be listed once per region: send it once.
    return [...new Map(out.map((t) => [JSON.stringify(t), t])).values()];
  }

  async function change(body: { targets: ReturnType<typeof currentTargets>; regionIds?: number[] }) {
    setBusy(true);
    const r = await run(api.POST("/api/v1/Projects({key})/ChangeTargets", { params: keyPath(project.id), body }));
    if (r !== undefined) {
      await Promise.all([refresh(), targets.mutate()]);
      await estimate();
    }
    setBusy(false);
  }

  async function toggleTarget(o: TargetOption) {
    const list = targets.data?.value ?? [];
    const body = { targets: currentTargets(list, o) };
    // Optimistic: the box shows the choice while the server stores it.
    void targets.mutate({ value: list.map((q) => ({ ...q, options: q.options.map((x) => (optKey(x) === optKey(o) ? { ...x, isTarget: !x.isTarget } : x)) })) }, false);
    await change(body);
  }

  async function toggleRegion(id: number) {
    if (regionIds.includes(id)) {
      if (regionIds.length === 1) return;
      setBusy(true);
      const r = await run(api.POST("/api/v1/Projects({key})/DeleteRegions", { params: keyPath(project.id), body: { regionIds: [id] } }));
      if (r !== undefined) {
        await Promise.all([refresh(), targets.mutate()]);
        await estimate();
      }
      setBusy(false);
    } else {
      await change({ regionIds: [...regionIds, id], targets: currentTargets(targets.data?.value ?? []) });
    }
  }

  const markets = (regions?.value ?? []).filter((r) => !r.isUsState);
  const usStates = (regions?.value ?? []).filter((r) => r.isUsState);
  const chip = (r: { id: number; regionName: string }) => {
    const on = regionIds.includes(r.id);
    return (
      <label key={r.id} className={cx("rounded-full px-3 py-1 text-sm ring-1", editable && "cursor-pointer", on ? "bg-brand-600 text-white ring-brand-600" : "text-ink-700 ring-ink-200 hover:bg-ink-50")}>
        <input type="checkbox" className="sr-only" checked={on} disabled={!editable || busy || (on && regionIds.length === 1)} onChange={() => void toggleRegion(r.id)} />
        {r.regionName}
      </label>
    );
  };

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_18rem]">
      <div className="space-y-6">
        <Card title="Markets">
          <fieldset>
            <legend className="sr-only">Markets</legend>
            <div className="flex flex-wrap gap-2">{regions ? markets.map(chip) : <Skeleton className="h-8 w-full" />}</div>
          </fieldset>
          {states ? (
            <fieldset className="mt-4">
              <legend className="mb-2 text-sm font-medium text-ink-800">US states</legend>
              <div className="flex max-h-48 flex-wrap gap-2 overflow-y-auto">{usStates.map(chip)}</div>
            </fieldset>
          ) : null}
          <p className="mt-3 text-xs text-ink-500">Each market is fielded on its own panel with {project.projectsRegions[0]?.sampleSize ?? 200} completes a wave.</p>
        </Card>
        <Card title="Targets" actions={busy ? <Badge tone="blue">Saving…</Badge> : null}>
          {!targets.data ? (
            <div className="space-y-2" role="status" aria-label="Loading targets">
              {Array.from({ length: 4 }, (_, i) => <Skeleton key={i} className="h-10" />)}
            </div>
          ) : !targets.data.value.length ? (
            <EmptyState title="Nothing to target">Add a screener question on the Questions tab to target by its answers.</EmptyState>
          ) : (
            <div className="space-y-5">
              <p className="text-sm text-ink-600">No answer chosen in a question: everyone qualifies. Counts are past respondents in these markets.</p>
              {targets.data.value.map((q) => (
                <fieldset key={`${q.source}-${q.id}`}>
                  <legend className="mb-2 text-sm font-medium text-ink-900">
                    {q.questionLabel} {q.source === "question" ? <Badge tone="brand">Screener</Badge> : null}
                  </legend>
                  <div className="flex flex-wrap gap-2">
                    {q.options.map((o) => (
                      <label key={`${optKey(o)}-${o.regionId ?? 0}`} className={cx("flex items-center gap-2 rounded-lg px-3 py-1.5 text-sm ring-1", o.isTarget ? "bg-brand-50 text-brand-900 ring-brand-400" : "text-ink-700 ring-ink-200", editable && "cursor-pointer hover:bg-ink-50")}>
                        <input type="checkbox" className="size-4 rounded border-ink-300 text-brand-600" checked={o.isTarget} disabled={!editable || busy} onChange={() => void toggleTarget(o)} />
                        <span>{o.answerLabel}</span>
                        <span className="text-xs text-ink-500">{o.count.toLocaleString("en")}</span>
                      </label>
                    ))}
                  </div>
                </fieldset>
              ))}
            </div>
          )}
        </Card>
      </div>
      <Card title="Incidence estimate" className="h-fit">
        {incidence ? (
          <div>
            <p className="text-3xl font-semibold text-ink-900" data-testid="incidence">{pct(incidence.incidenceEstimate)}</p>
            <p className="mt-1 text-sm text-ink-600">of panellists are expected to qualify.</p>
            <ul className="mt-4 space-y-2 text-sm">
              {incidence.regions.map((r) => (
                <li key={r.regionId} className="flex justify-between gap-2">
                  <span>{r.regionName}</span>
                  <span className="font-medium">{pct(r.incidence)}</span>
                </li>
              ))}
            </ul>
            {incidence.incidenceEstimate < 0.05 ? <p className="mt-3 rounded-lg bg-amber-50 px-3 py-2 text-sm text-amber-900">Under 5%: fielding may be slow. Consider fewer targets.</p> : null}
          </div>
        ) : project.statusCode >= 400 ? (
          <p className="text-sm text-ink-600">{project.incidenceEstimate !== null ? pct(project.incidenceEstimate) : "—"}</p>
        ) : (
          <Skeleton className="h-16" />
        )}
        {editable ? <Button variant="ghost" size="sm" className="mt-3" onClick={() => void estimate()}>Re-estimate</Button> : null}
      </Card>
    </div>
  );
}
