// The filter sidebar of SPEC 3/4: region, panel type, survey runs, dates, test options, filter
// sets (segments), group segments, question-option filters (include / exclude) and the system
// (demographic) filters; the base from ResponsesCount, debounced 400 ms.
import { useEffect, useMemo, useState, type ReactNode } from "react";
import { api, selected, type Page, type Row, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Button, Select, Skeleton, cx } from "../../components/ui";
import { RESPONSE_COUNT_DEBOUNCE_MS } from "../../lib/constants";
import { useResults } from "../../features/results/context";
import {
  ALL_MARKETS, EMPTY_FILTERS, changeRegion, filterCount, resetFilters, selectDates, selectSurveyRuns, stateFromSegment, toggleQuestionOption, toggleSystemOption,
} from "../../features/results/filters";
import { TEXT_TYPE, isPriceQuestion, questionLabel } from "../../features/results/questions";
import { formatCount } from "../../lib/numbers";

export type SystemOption = Row<"SystemQuestionOption", "id" | "systemQuestionId" | "answerLabel" | "filterSubtext" | "sortOrder", { systemQuestion: Row<"SystemQuestion", "id" | "questionLabel" | "questionCode" | "isAlwaysShown" | "sortOrder"> | null }>;
export type SegmentRow = Row<"Segments", "id" | "name" | "responsesFilters" | "createdByUserId", Pick<Schemas["Segments"], "aiProjectSummaries@odata.count">>;
type ScheduleRun = Row<"ProjectSchedules", "id" | "regionId" | "isCustomerPanel" | "surveyRunId" | "scheduleDate" | "waveNumber">;

/** 'Not sure' is hidden from the options of standard questions (SPEC 5). */
const PANEL_TYPES = ["Customer", "Ideally"] as const;

export const isNotSure = (text: string) => /^\s*not sure\s*$/i.test(text);

export function useSystemOptions(regionId: number) {
  return useApi(["SystemQuestionOption", regionId], () =>
    selected<Page<SystemOption>>(api.GET("/api/v1/SystemQuestionOption", {
      params: {
        query: {
          $filter: `(regionId eq ${regionId} or regionId eq null) and systemQuestion/isFilterable eq true and isVisible eq true`,
          $expand: "systemQuestion($select=id,questionLabel,questionCode,isAlwaysShown,sortOrder)",
          $orderby: "sortOrder",
          $top: 1000,
        },
      },
    })),
  );
}

export function useSegments(projectId: number) {
  return useApi(["Segments", projectId], () =>
    selected<Page<SegmentRow>>(api.GET("/api/v1/Segments", { params: { query: { $filter: `projectId eq ${projectId}`, $orderby: "name", $expand: "aiProjectSummaries/$count" } } })),
  );
}

function Section({ title, children, count, defaultOpen = true }: { title: string; children: ReactNode; count?: number; defaultOpen?: boolean }) {
  return (
    <details open={defaultOpen} className="group border-b border-ink-100 py-2.5">
      <summary className="flex cursor-pointer list-none items-center justify-between text-sm font-medium text-ink-800">
        <span>
          {title}
          {count ? <span className="ml-1.5 rounded-full bg-brand-100 px-1.5 text-xs text-brand-800">{count}</span> : null}
        </span>
        <svg viewBox="0 0 20 20" className="size-4 text-ink-400 transition-transform group-open:rotate-180" fill="currentColor" aria-hidden="true"><path d="M5.2 7.2a1 1 0 0 1 1.4 0L10 10.6l3.4-3.4a1 1 0 1 1 1.4 1.4l-4.1 4.1a1 1 0 0 1-1.4 0L5.2 8.6a1 1 0 0 1 0-1.4Z" /></svg>
      </summary>
      <div className="mt-2 space-y-1.5">{children}</div>
    </details>
  );
}

function Check({ label, checked, onChange, hint }: { label: string; checked: boolean; onChange: () => void; hint?: string | null }) {
  return (
    <label className="flex cursor-pointer items-start gap-2 text-sm text-ink-700">
      <input type="checkbox" className="mt-0.5 size-4 rounded border-ink-300 accent-brand-600" checked={checked} onChange={onChange} />
      <span>
        {label}
        {hint ? <span className="block text-xs text-ink-500">{hint}</span> : null}
      </span>
    </label>
  );
}

/** An include / exclude option: off -> include -> exclude -> off. */
function TriOption({ label, state, onClick }: { label: string; state: boolean | undefined; onClick: () => void }) {
  const word = state === true ? "included" : state === false ? "excluded" : "not filtered";
  return (
    <button
      type="button"
      onClick={onClick}
      aria-label={`${label}: ${word}`}
      data-state={state === true ? "include" : state === false ? "exclude" : "off"}
      className={cx(
        "flex w-full items-center gap-2 rounded-md px-1.5 py-1 text-left text-sm",
        state === true ? "bg-brand-50 text-brand-800" : state === false ? "bg-rose-50 text-rose-800 line-through" : "text-ink-700 hover:bg-ink-50",
      )}
    >
      <span aria-hidden="true" className={cx("grid size-4 place-items-center rounded border text-[10px] font-bold", state === undefined ? "border-ink-300" : state ? "border-brand-600 bg-brand-600 text-white" : "border-rose-600 bg-rose-600 text-white")}>
        {state === true ? "+" : state === false ? "−" : ""}
      </span>
      {label}
    </button>
  );
}

function useDebounced<T>(value: T, ms: number): T {
  const [v, set] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => set(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return v;
}

function Base() {
  const { projectId, filtersJson, testOptions } = useResults();
  const debounced = useDebounced(filtersJson, RESPONSE_COUNT_DEBOUNCE_MS);
  const { data } = useApi(["ResponsesCount", projectId, debounced], () =>
    api.GET("/api/v1/Projects({key})/ResponsesCount", { params: { path: { key: String(projectId) }, query: { filters: debounced } } }),
    { keepPreviousData: true },
  );
  if (!data) return <Skeleton className="h-12" />;
  const total = data.value.reduce((n, r) => n + r.count, 0);
  return (
    <div className="rounded-lg bg-ink-50 px-3 py-2" data-testid="responses-base">
      <p className="text-xs text-ink-500">Base (respondents × test options)</p>
      <p className="text-lg font-semibold text-ink-900" aria-live="polite">
        <span data-testid="responses-count">{formatCount(total)}</span>
      </p>
      {data.value.length > 1 ? (
        <ul className="mt-1 space-y-0.5 text-xs text-ink-600">
          {data.value.map((r) => (
            <li key={r.testOptionId ?? 0} className="flex justify-between gap-2">
              <span className="truncate">{testOptions.find((o) => o.id === r.testOptionId)?.conceptText ?? "All"}</span>
              <span>{r.count}</span>
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

function toDateInput(iso: string | undefined): string {
  if (!iso) return "";
  const d = new Date(iso);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, "0")}-${String(d.getDate()).padStart(2, "0")}`;
}
const fromDateInput = (s: string) => {
  const [y, m, d] = s.split("-").map(Number);
  return new Date(y!, m! - 1, d!);
};

export function FilterSidebar({ onOpenSegments }: { onOpenSegments: () => void }) {
  const { project, projectId, regionId, regionIds, allMarkets, filters, setFilters, testOptions, questions } = useResults();
  const { data: sysOpts } = useSystemOptions(regionId);
  const { data: segments } = useSegments(projectId);
  const { data: runs } = useApi(["ProjectSchedules/runs", projectId], () =>
    selected<Page<ScheduleRun>>(api.GET("/api/v1/ProjectSchedules", {
      params: { query: { $filter: `projectId eq ${projectId} and surveyRunId ne null`, $select: "id,regionId,isCustomerPanel,surveyRunId,scheduleDate,waveNumber", $orderby: "createdAt" } },
    })),
  );
  const { data: groupSegments } = useApi(
    project.projectGroupVersionId ? ["ProjectGroupSegments", project.projectGroupVersionId] : null,
    () => selected<Page<Row<"ProjectGroupSegments", "id" | "name">>>(api.GET("/api/v1/ProjectGroupSegments", { params: { query: { $filter: `projectGroupVersionId eq ${project.projectGroupVersionId} and isCategorySegment eq true`, $select: "id,name", $orderby: "sortOrder" } } })),
  );
  const [dateDraft, setDateDraft] = useState<{ from: string; to: string }>({ from: toDateInput(filters.selectedDates?.from), to: toDateInput(filters.selectedDates?.to) });
  useEffect(() => setDateDraft({ from: toDateInput(filters.selectedDates?.from), to: toDateInput(filters.selectedDates?.to) }), [filters.selectedDates]);

  const regionRuns = (runs?.value ?? []).filter((r) => allMarkets || r.regionId === regionId);
  // The $filter keeps runs with a survey run; the type cannot know.
  const runIds = [...new Map(regionRuns.flatMap((r) => (r.surveyRunId === null ? [] : [[r.surveyRunId, { ...r, surveyRunId: r.surveyRunId }] as const]))).values()];
  const panels = [...new Set(regionRuns.map((r) => (r.isCustomerPanel ? "Customer" : "Ideally")))];
  const sysGroups = useMemo(() => {
    const m = new Map<string, { label: string; code: string; always: boolean; sort: number; options: SystemOption[] }>();
    for (const o of sysOpts?.value ?? []) {
      const q = o.systemQuestion;
      if (!q) continue; // the $filter goes through systemQuestion: never null here
      const g = m.get(q.questionCode) ?? { label: q.questionLabel, code: q.questionCode, always: q.isAlwaysShown, sort: q.sortOrder ?? 0, options: [] };
      g.options.push(o);
      m.set(q.questionCode, g);
    }
    return [...m.values()].sort((a, b) => a.sort - b.sort);
  }, [sysOpts]);
  const optionQuestions = questions.filter((q) => q.question && q.question.questionTypeId !== TEXT_TYPE && q.question.questionOptions.length > 0 && !isPriceQuestion(q.standardQuestionId));
  const count = filterCount(filters);

  const applySegment = (id: string) => {
    if (!id) return setFilters({ ...EMPTY_FILTERS, selectedRegionId: filters.selectedRegionId });
    const seg = segments?.value.find((s) => s.id === Number(id));
    if (!seg) return;
    const codeOf = new Map((sysOpts?.value ?? []).map((o) => [o.id, o.systemQuestion?.questionCode]));
    const questionOf = new Map(questions.flatMap((q) => (q.question?.questionOptions ?? []).map((o) => [o.id, q.id] as const)));
    setFilters(stateFromSegment(seg.id, seg.responsesFilters ?? {}, (i) => codeOf.get(i), (i) => questionOf.get(i)));
  };

  return (
    <div className="rounded-xl border border-ink-200 bg-white p-4 shadow-sm lg:sticky lg:top-4">
      <div className="mb-3 flex items-center justify-between">
        <h2 className="text-sm font-semibold text-ink-900">
          Filters{count ? <span className="ml-1.5 rounded-full bg-brand-600 px-1.5 text-xs text-white" data-testid="filter-count">{count}</span> : null}
        </h2>
        <Button variant="ghost" size="sm" disabled={!count && !filters.selectedTestOptionIds.length && !filters.segmentId} onClick={() => setFilters(resetFilters(filters))}>
          Clear all
        </Button>
      </div>
      <Base />
      <div className="mt-3 space-y-3">
        {regionIds.length > 1 ? (
          <div>
            <label htmlFor="filter-region" className="mb-1 block text-xs font-medium text-ink-600">Market</label>
            <Select id="filter-region" value={allMarkets ? ALL_MARKETS : regionId} onChange={(e) => setFilters(changeRegion(filters, Number(e.target.value)))}>
              <option value={ALL_MARKETS}>All markets</option>
              {project.projectsRegions.map((r) => (
                <option key={r.regionId} value={r.regionId}>{r.region?.regionName ?? r.regionId}</option>
              ))}
            </Select>
          </div>
        ) : null}
        <div>
          <div className="mb-1 flex items-center justify-between">
            <label htmlFor="filter-segment" className="block text-xs font-medium text-ink-600">Filter set</label>
            <button type="button" className="text-xs font-medium text-brand-700 hover:underline" onClick={onOpenSegments}>Manage</button>
          </div>
          <Select id="filter-segment" value={filters.segmentId ?? ""} onChange={(e) => applySegment(e.target.value)}>
            <option value="">None</option>
            {segments?.value.map((s) => (
              <option key={s.id} value={s.id}>{s.name}</option>
            ))}
          </Select>
        </div>
        {panels.length ? (
          <div>
            <label htmlFor="filter-panel" className="mb-1 block text-xs font-medium text-ink-600">Panel type</label>
            <Select id="filter-panel" value={filters.selectedPanelType ?? ""} onChange={(e) => setFilters({ ...filters, selectedPanelType: PANEL_TYPES.find((p) => p === e.target.value) ?? null })}>
              <option value="">All panels</option>
              {PANEL_TYPES.filter((p) => panels.includes(p)).map((p) => (
                <option key={p} value={p}>{p}</option>
              ))}
            </Select>
          </div>
        ) : null}
      </div>
      <div className="mt-2">
        {testOptions.length > 1 ? (
          <Section title="Test options" count={filters.selectedTestOptionIds.length}>
            {testOptions.map((o) => (
              <Check
                key={o.id}
                label={o.conceptText}
                checked={filters.selectedTestOptionIds.includes(o.id)}
                onChange={() => {
                  const ids = filters.selectedTestOptionIds;
                  setFilters({ ...filters, selectedTestOptionIds: ids.includes(o.id) ? ids.filter((i) => i !== o.id) : [...ids, o.id] });
                }}
              />
            ))}
          </Section>
        ) : null}
        {runIds.length ? (
          <Section title="Survey runs" count={filters.selectedSurveyRunIds.length} defaultOpen={false}>
            {runIds.map((r) => (
              <Check
                key={r.surveyRunId}
                label={`${r.waveNumber ? `Wave ${r.waveNumber}` : `Run ${r.surveyRunId}`}${r.scheduleDate ? ` · ${new Date(r.scheduleDate).toLocaleDateString()}` : ""}`}
                hint={r.isCustomerPanel ? "Customer panel" : "Ideally panel"}
                checked={filters.selectedSurveyRunIds.includes(r.surveyRunId)}
                onChange={() => {
                  const ids = filters.selectedSurveyRunIds;
                  setFilters(selectSurveyRuns(filters, ids.includes(r.surveyRunId) ? ids.filter((i) => i !== r.surveyRunId) : [...ids, r.surveyRunId]));
                }}
              />
            ))}
          </Section>
        ) : null}
        <Section title="Dates" count={filters.selectedDates ? 1 : 0} defaultOpen={false}>
          {/* One above the other: side by side in the 15rem sidebar, a date input cuts off its month. */}
          <div className="grid gap-2">
            <div>
              <label htmlFor="filter-date-from" className="block text-xs text-ink-600">From</label>
              <input id="filter-date-from" type="date" className="w-full rounded-md border border-ink-200 px-1.5 py-1 text-sm" value={dateDraft.from} onChange={(e) => setDateDraft((d) => ({ ...d, from: e.target.value }))} />
            </div>
            <div>
              <label htmlFor="filter-date-to" className="block text-xs text-ink-600">To</label>
              <input id="filter-date-to" type="date" className="w-full rounded-md border border-ink-200 px-1.5 py-1 text-sm" value={dateDraft.to} onChange={(e) => setDateDraft((d) => ({ ...d, to: e.target.value }))} />
            </div>
          </div>
          <div className="flex gap-2">
            <Button size="sm" variant="secondary" disabled={!dateDraft.from || !dateDraft.to} onClick={() => setFilters(selectDates(filters, { from: fromDateInput(dateDraft.from), to: fromDateInput(dateDraft.to) }))}>
              Apply dates
            </Button>
            {filters.selectedDates ? (
              <Button size="sm" variant="ghost" onClick={() => setFilters(selectDates(filters, null))}>Clear</Button>
            ) : null}
          </div>
        </Section>
        {groupSegments?.value.length ? (
          <Section title="Group segments" count={filters.selectedProjectGroupSegmentIds.length} defaultOpen={false}>
            {groupSegments.value.map((g) => (
              <Check
                key={g.id}
                label={g.name}
                checked={filters.selectedProjectGroupSegmentIds.includes(g.id)}
                onChange={() => {
                  const ids = filters.selectedProjectGroupSegmentIds;
                  setFilters({ ...filters, selectedProjectGroupSegmentIds: ids.includes(g.id) ? ids.filter((i) => i !== g.id) : [...ids, g.id] });
                }}
              />
            ))}
          </Section>
        ) : null}
        {!sysOpts ? <Skeleton className="mt-2 h-24" /> : null}
        {sysGroups.map((g) => (
          <Section key={g.code} title={g.label} count={filters.selectedFilterIds[g.code]?.length} defaultOpen={false}>
            {g.options.map((o) => (
              <Check key={o.id} label={o.answerLabel} hint={o.filterSubtext} checked={filters.selectedFilterIds[g.code]?.includes(o.id) ?? false} onChange={() => setFilters(toggleSystemOption(filters, g.code, o.id))} />
            ))}
          </Section>
        ))}
        {optionQuestions.map((q) => (
          <Section key={q.id} title={questionLabel(q)} count={Object.keys(filters.selectedQuestionOptionFilterIds[q.id] ?? {}).length} defaultOpen={false}>
            <p className="text-xs text-ink-500">Click once to include, twice to exclude.</p>
            {q.question!.questionOptions
              .filter((o) => !(q.standardQuestionId && isNotSure(o.optionText)))
              .map((o) => (
                <TriOption key={o.id} label={o.optionText} state={filters.selectedQuestionOptionFilterIds[q.id]?.[o.id]} onClick={() => setFilters(toggleQuestionOption(filters, q.id, o.id))} />
              ))}
          </Section>
        ))}
      </div>
    </div>
  );
}
