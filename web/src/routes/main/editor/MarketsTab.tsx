// Markets and targets: the project's regions (US states only with CanChooseUsStateMarkets), the
// demographic and screener targets with past respondents per answer (Questions
// TargetQuestionsWithCounts), saved through Projects ChangeTargets / DeleteRegions, and the
// incidence estimate, updated live by IncidenceEstimateUpdated on the client channel; per market and
// target question, the quota cells (QuotaCells; docs/decisions.md "Quotas in the web editor"); per
// market, the crossed quota cells of two demographic questions (CrossedQuotas; record 0128).
import { useEffect, useEffectEvent, useState } from "react";
import { api, unwrap, type Schemas } from "../../../api/client";
import { DEFAULT_ERROR_TITLE, handleError } from "../../../api/errors";
import { toast } from "../../../components/toast";
import { fieldMessages } from "../../../lib/fieldErrors";
import { useApi } from "../../../api/hooks";
import { Badge, Button, Card, EmptyState, Field, Input, Skeleton, Skeletons, cx } from "../../../components/ui";
import { onRealtime, type RealtimeEvent } from "../../../state/realtime";
import { useMe } from "../../../state/app";
import { hasFlag, keyPath, run, useCrossedCells, useRefreshProject, useStoredTargets } from "../../../features/projects-editor/data";
import { crossedBody, crossedWith, crossingsIn, demographics, type CrossedBody } from "../../../features/crossed";
import { CrossedQuotas } from "./CrossedQuotas";
import { modelOf, optionKey, questionKey, quotaMarkets, targetsBody, toggled, withQuotas, type TargetBody, type TargetModel } from "../../../features/quotas";
import { QuotaCells } from "./QuotaCells";
import { useRegions } from "../CreateProject";
import type { TabProps } from "./shared";

type TargetQuestion = Schemas["TargetQuestion"];
type TargetOption = TargetQuestion["options"][number];
type Incidence = Schemas["IncidenceEstimate"];
type Explanation = Schemas["FeasibilityExplanation"];

/** The project's target questions with each answer's market and whether it is chosen. */
export function useTargetQuestions(projectId: number) {
  return useApi(["TargetQuestionsWithCounts", projectId], () =>
    api.GET("/api/v1/Questions/TargetQuestionsWithCounts", { params: { query: { projectId: String(projectId) } } }),
  );
}

const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;

export function MarketsTab({ client, project, editable }: TabProps) {
  const refresh = useRefreshProject(project.id);
  const { data: me } = useMe(client.id);
  const { data: regions } = useRegions();
  const targets = useTargetQuestions(project.id);
  const stored = useStoredTargets(project.id);
  const crossed = useCrossedCells(project.id);
  const [incidence, setIncidence] = useState<Incidence | null>(null);
  const [busy, setBusy] = useState(false);
  const regionIds = project.projectsRegions.map((r) => r.regionId);
  const currentSize = project.projectsRegions[0]?.sampleSize ?? 200;
  const [size, setSize] = useState(String(currentSize));
  useEffect(() => setSize(String(currentSize)), [currentSize]);
  // The create call's bounds (1 to 100,000), said at the field.
  const sizeError = !/^\d+$/.test(size) || Number(size) < 1 || Number(size) > 100000 ? "Enter a whole number from 1 to 100,000." : null;
  const states = hasFlag(me, "CanChooseUsStateMarkets");

  async function estimate() {
    const r = await run(api.POST("/api/v1/Projects({key})/IncidenceEstimate", { params: keyPath(project.id), body: {} }));
    if (r) setIncidence(r);
  }
  // The first estimate on opening; later ones follow each change and arrive by event too. An
  // effect event: it reads the latest project and estimate() without running again on each edit
  // (which has its own event).
  const estimateOnOpen = useEffectEvent(() => {
    if (project.statusCode < 400) void estimate();
  });
  useEffect(() => estimateOnOpen(), [project.id]);
  // The handler reads the latest project and targets (an effect event), subscribed once per project.
  const onIncidence = useEffectEvent((ev: RealtimeEvent) => {
    if (ev.event === "IncidenceEstimateUpdated" && ev.data?.projectId === project.id) {
      // Another tab or person changed the targets: follow them (reads only, so tabs do not
      // set each other off estimating).
      const { incidenceEstimate } = ev.data;
      setIncidence((cur) => (cur ? { ...cur, incidenceEstimate } : cur));
      void targets.mutate();
    }
  });
  useEffect(() => onRealtime((ev) => onIncidence(ev)), [project.id]);

  // The stored targets per question and market, with their quotas: every save sends the whole of it
  // (features/quotas.ts), so a tick or a market added keeps each market's quota cells.
  const questions = targets.data?.value ?? [];
  const model: TargetModel | null = targets.data && stored.data ? modelOf(questions, stored.data.value, regionIds) : null;
  const bodyOf = (m: TargetModel) => targetsBody(questions, m, regionIds);

  async function change(body: { targets: TargetBody[]; regionIds?: number[]; sampleSize?: number }) {
    setBusy(true);
    const r = await run(api.POST("/api/v1/Projects({key})/ChangeTargets", { params: keyPath(project.id), body }));
    if (r !== undefined) {
      await Promise.all([refresh(), targets.mutate(), stored.mutate(), crossed.mutate()]);
      await estimate();
    }
    setBusy(false);
  }

  /**
   * One crossing of a market saved: crossedQuotas is the whole list (the other crossings and markets
   * as stored). The API's refusal of the crossing comes back in its words for the grid; anything
   * else goes the usual way (a toast).
   */
  async function saveCrossing(regionId: number, replaced: [number, number] | null, now: [number, number], cells: CrossedBody[]): Promise<string | null> {
    if (!model || !crossed.data) return null;
    setBusy(true);
    try {
      const crossedQuotas = crossedBody(questions, crossed.data.value, regionId, replaced, now, cells);
      await unwrap(api.POST("/api/v1/Projects({key})/ChangeTargets", { params: keyPath(project.id), body: { targets: bodyOf(model), crossedQuotas } }));
      await Promise.all([refresh(), targets.mutate(), stored.mutate(), crossed.mutate()]);
      await estimate();
      return null;
    } catch (e) {
      const said = fieldMessages(e, { crossedQuotas: "grid" });
      if (!said?.byField.grid) {
        handleError(e);
        return null;
      }
      if (said.rest.length) toast.error(DEFAULT_ERROR_TITLE, said.rest.join(" "), true);
      return said.byField.grid;
    } finally {
      setBusy(false);
    }
  }

  async function toggleTarget(q: TargetQuestion, o: TargetOption) {
    if (!model) return;
    const body = { targets: bodyOf(toggled(model, q, o, !o.isTarget, regionIds)) };
    // Optimistic: the box shows the choice while the server stores it.
    void targets.mutate({ value: questions.map((x) => ({ ...x, options: x.options.map((y) => (optionKey(y) === optionKey(o) ? { ...y, isTarget: !y.isTarget } : y)) })) }, false);
    await change(body);
  }

  async function saveQuotas(q: TargetQuestion, regionId: number, shares: Map<string, number>) {
    if (model) await change({ targets: bodyOf(withQuotas(model, q, regionId, shares)) });
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
      if (model) await change({ regionIds: [...regionIds, id], targets: bodyOf(model) });
    }
  }

  /** A market's name (the project's own, else the reference list's). */
  const marketName = (r: number) => project.projectsRegions.find((x) => x.regionId === r)?.region?.regionName ?? regions?.value.find((x) => x.id === r)?.regionName ?? `Region ${r}`;

  /**
   * A question's answers by market: with answers of more than one market (income bands in AUD and
   * NZD, each market's regions), each market's under its name, in the project's market order;
   * answers for every market first, unlabelled. One market: one unlabelled group.
   */
  function byMarket(options: TargetOption[]): { regionId: number | null; label: string | null; options: TargetOption[] }[] {
    const ids = [...new Set(options.map((o) => o.regionId).filter((r): r is number => r !== null))];
    if (ids.length <= 1) return [{ regionId: null, label: null, options }];
    const order = (r: number) => (regionIds.indexOf(r) === -1 ? 999 : regionIds.indexOf(r));
    const all = options.filter((o) => o.regionId === null);
    return [
      ...(all.length ? [{ regionId: null, label: "All markets", options: all }] : []),
      ...ids.sort((a, b) => order(a) - order(b)).map((r) => ({ regionId: r, label: marketName(r), options: options.filter((o) => o.regionId === r) })),
    ];
  }

  const markets = (regions?.value ?? []).filter((r) => !r.isUsState);
  const usStates = (regions?.value ?? []).filter((r) => r.isUsState);
  const chip = (r: { id: number; regionName: string }) => {
    const on = regionIds.includes(r.id);
    return (
      <label key={r.id} className={cx("rounded-full px-3 py-1 text-sm ring-1", editable && "cursor-pointer", on ? "bg-brand-600 text-white ring-brand-600" : "text-ink-700 ring-ink-200 hover:bg-ink-50")}>
        <input type="checkbox" className="sr-only" checked={on} disabled={!editable || busy || !model || (on && regionIds.length === 1)} onChange={() => void toggleRegion(r.id)} />
        {r.regionName}
      </label>
    );
  };

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_18rem]">
      <div className="min-w-0 space-y-6">
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
          {editable ? (
            <form
              className="mt-4 flex flex-wrap items-end gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                if (sizeError === null && Number(size) !== currentSize && model) void change({ targets: bodyOf(model), sampleSize: Number(size) });
              }}
            >
              <Field id="sample-size" label="Completes per market" error={sizeError ?? undefined} hint="Each market is fielded on its own panel with this many completes a wave; change it until you submit.">
                <Input id="sample-size" type="number" inputMode="numeric" min={1} max={100000} className="w-32" value={size} aria-invalid={sizeError ? true : undefined} onChange={(e) => setSize(e.target.value)} />
              </Field>
              <Button type="submit" variant="secondary" busy={busy} disabled={sizeError !== null || Number(size) === currentSize || !model}>Save completes</Button>
            </form>
          ) : (
            <p className="mt-3 text-xs text-ink-500">Each market is fielded on its own panel with {currentSize} completes a wave.</p>
          )}
        </Card>
        <Card title="Targets" actions={busy ? <Badge tone="blue">Saving…</Badge> : null}>
          {!targets.data ? (
            <div className="space-y-2" role="status" aria-label="Loading targets">
              <Skeletons count={4} className="h-10" />
            </div>
          ) : !targets.data.value.length ? (
            <EmptyState title="Nothing to target">Add a screener question on the Questions tab to target by its answers.</EmptyState>
          ) : (
            <div className="space-y-5">
              <p className="text-sm text-ink-600">No answer chosen in a question: everyone qualifies. Counts are past respondents in these markets. Quotas split a market's completes between a question's answers.</p>
              {targets.data.value.map((q) => {
                const inQuota = model ? quotaMarkets(model, q) : [];
                const allQuota = regionIds.every((r) => inQuota.includes(r));
                return (
                <fieldset key={`${q.source}-${q.id}`}>
                  <legend className="mb-2 text-sm font-medium text-ink-900">
                    {q.questionLabel} {q.source === "question" ? <Badge tone="brand">Screener</Badge> : null}
                  </legend>
                  {inQuota.length ? (
                    <p className="mb-2 text-xs text-ink-600">
                      {allQuota ? "The quota cells below decide who qualifies." : `The quota cells decide who qualifies in ${inQuota.map(marketName).join(", ")}; the ticks apply in the other markets.`}
                    </p>
                  ) : null}
                  {byMarket(q.options).map((g) => (
                    <div key={g.regionId ?? 0} className="mb-2">
                      {g.label ? <p className="mb-1 text-xs font-semibold tracking-wide text-ink-600 uppercase">{g.label}</p> : null}
                      <div className="flex flex-wrap gap-2">
                        {g.options.map((o) => (
                          <label key={`${optionKey(o)}-${o.regionId ?? 0}`} className={cx("flex items-center gap-2 rounded-lg px-3 py-1.5 text-sm ring-1", o.isTarget ? "bg-brand-50 text-brand-900 ring-brand-400" : "text-ink-700 ring-ink-200", editable && "cursor-pointer hover:bg-ink-50")}>
                            <input type="checkbox" className="size-4 rounded border-ink-300 text-brand-600" checked={o.isTarget} disabled={!editable || busy || !model || allQuota} onChange={() => void toggleTarget(q, o)} aria-label={g.label ? `${o.answerLabel} (${g.label})` : undefined} />
                            <span>{o.answerLabel}</span>
                            <span className="text-xs text-ink-500">{o.count.toLocaleString("en")}</span>
                          </label>
                        ))}
                      </div>
                    </div>
                  ))}
                  {model
                    ? regionIds.map((r) => {
                        const other = crossedWith(crossingsIn(questions, crossed.data?.value ?? [], r), q);
                        const where = regionIds.length > 1 ? ` in ${marketName(r)}` : "";
                        if (other !== null) {
                          return (
                            <p key={r} className="mt-2 rounded-lg border border-ink-100 px-3 py-2 text-sm text-ink-700" data-testid={`quotas-${questionKey(q)}-${r}`}>
                              {q.questionLabel} is crossed with {questions.find((x) => x.source === "system" && x.id === other)?.questionLabel}{where}: its shares are set in the crossed quotas below.
                            </p>
                          );
                        }
                        return (
                        <QuotaCells
                          key={r}
                          id={`${questionKey(q)}-${r}`}
                          questionLabel={q.questionLabel}
                          marketName={regionIds.length > 1 ? marketName(r) : null}
                          options={q.options.filter((o) => o.regionId === null || o.regionId === r)}
                          group={model.get(questionKey(q))?.get(r)}
                          explanation={incidence?.explanation.groups.find((g) => g.groupKey === questionKey(q) && g.regionId === r)}
                          editable={editable}
                          busy={busy}
                          onSave={(shares) => saveQuotas(q, r, shares)}
                        />
                        );
                      })
                    : null}
                </fieldset>
                );
              })}
              {model && crossed.data && demographics(questions).length >= 2 ? (
                <section aria-labelledby="crossed-heading" className="space-y-2 border-t border-ink-100 pt-4">
                  <h3 id="crossed-heading" className="text-sm font-medium text-ink-900">Crossed quotas</h3>
                  {regionIds.map((r) => (
                    <CrossedQuotas
                      key={r}
                      regionId={r}
                      marketName={regionIds.length > 1 ? marketName(r) : null}
                      questions={questions}
                      model={model}
                      crossings={crossingsIn(questions, crossed.data?.value ?? [], r)}
                      explanation={incidence?.explanation.crossed.filter((x) => x.regionId === r) ?? []}
                      editable={editable}
                      busy={busy}
                      onSave={(replaced, now, cells) => saveCrossing(r, replaced, now, cells)}
                    />
                  ))}
                </section>
              ) : null}
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
            <Feasibility explanation={incidence.explanation} />
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

/**
 * Whether each market can deliver its completes and what each target group's quotas and each
 * crossing's cells mean, in the API's words (IncidenceEstimate's explanation: the CLI's validate and --dry-run print the same).
 */
function Feasibility({ explanation }: { explanation: Explanation }) {
  return (
    <section aria-labelledby="feasibility-heading" className="mt-4 border-t border-ink-100 pt-3" data-testid="feasibility">
      <h3 id="feasibility-heading" className="text-sm font-semibold text-ink-900">Feasibility and quotas</h3>
      <ul className="mt-2 space-y-2 text-sm">
        {explanation.markets.map((m) => (
          <li key={`m${m.regionId}`} className={cx("rounded-lg px-3 py-2", m.feasible === false ? "bg-amber-50 text-amber-900" : "bg-ink-50 text-ink-700")}>{m.text}</li>
        ))}
        {explanation.groups.map((g) => (
          <li key={`g${g.groupKey}-${g.regionId}`} className={cx("rounded-lg px-3 py-2", g.ok ? "bg-ink-50 text-ink-700" : "bg-rose-50 text-rose-900")}>{g.text}</li>
        ))}
        {explanation.crossed.map((x) => (
          <li
            key={`x${x.key}-${x.regionId}`}
            data-testid="crossed-quota"
            className={cx("rounded-lg px-3 py-2", !x.ok ? "bg-rose-50 text-rose-900" : x.cells.some((c) => c.feasible === false) ? "bg-amber-50 text-amber-900" : "bg-ink-50 text-ink-700")}
          >
            {x.text}
          </li>
        ))}
      </ul>
    </section>
  );
}
