// The results page's active filter state (SPEC 3) and its rules (SPEC 4), as pure functions so
// the page and the tests share them. The state lives in the URL query string (SPEC 2), so every
// results link carries it.
import type { SearchValue } from "../../lib/search";
import type { Schemas } from "@ideally/contracts";

export type PanelType = "Customer" | "Ideally";

export interface FilterState {
  selectedRegionId: number | null;
  /** system question code -> system question option ids */
  selectedFilterIds: Record<string, number[]>;
  /** project question id -> question option id -> included (true) or excluded (false) */
  selectedQuestionOptionFilterIds: Record<string, Record<string, boolean>>;
  selectedSurveyRunIds: number[];
  selectedDates: { from: string; to: string } | null;
  selectedPanelType: PanelType | null;
  selectedTestOptionIds: number[];
  selectedProjectGroupSegmentIds: number[];
  segmentId: number | null;
}

/** SPEC 3's response filter object, as the results functions take it in `filters` (the contract's ResponseFilter). */
export type ResponseFilter = Schemas["ResponseFilter"];

export const EMPTY_FILTERS: FilterState = {
  selectedRegionId: null,
  selectedFilterIds: {},
  selectedQuestionOptionFilterIds: {},
  selectedSurveyRunIds: [],
  selectedDates: null,
  selectedPanelType: null,
  selectedTestOptionIds: [],
  selectedProjectGroupSegmentIds: [],
  segmentId: null,
};

/** URL keys of the state (short, stable: results links carry them). */
export const FILTER_KEYS = {
  selectedRegionId: "region",
  selectedFilterIds: "filters",
  selectedQuestionOptionFilterIds: "options",
  selectedSurveyRunIds: "runs",
  selectedDates: "dates",
  selectedPanelType: "panel",
  selectedTestOptionIds: "testOptions",
  selectedProjectGroupSegmentIds: "groupSegments",
  segmentId: "segment",
} as const satisfies Record<keyof FilterState, string>;

const ints = (v: unknown): number[] => (Array.isArray(v) ? v.map(Number).filter((n) => Number.isInteger(n)) : []);
const int = (v: unknown): number | null => (v !== undefined && v !== null && v !== "" && Number.isInteger(Number(v)) ? Number(v) : null);

export function filtersFromSearch(q: Record<string, unknown>): FilterState {
  const f = q[FILTER_KEYS.selectedFilterIds];
  const o = q[FILTER_KEYS.selectedQuestionOptionFilterIds];
  const d = q[FILTER_KEYS.selectedDates] as { from?: unknown; to?: unknown } | undefined;
  const p = q[FILTER_KEYS.selectedPanelType];
  const filterIds: Record<string, number[]> = {};
  if (f && typeof f === "object" && !Array.isArray(f)) for (const [k, v] of Object.entries(f)) if (ints(v).length) filterIds[k] = ints(v);
  const optionIds: Record<string, Record<string, boolean>> = {};
  if (o && typeof o === "object" && !Array.isArray(o))
    for (const [qid, m] of Object.entries(o))
      if (m && typeof m === "object") {
        const g: Record<string, boolean> = {};
        for (const [oid, inc] of Object.entries(m as Record<string, unknown>)) if (typeof inc === "boolean") g[oid] = inc;
        if (Object.keys(g).length) optionIds[qid] = g;
      }
  return {
    selectedRegionId: int(q[FILTER_KEYS.selectedRegionId]),
    selectedFilterIds: filterIds,
    selectedQuestionOptionFilterIds: optionIds,
    selectedSurveyRunIds: ints(q[FILTER_KEYS.selectedSurveyRunIds]),
    selectedDates: d && typeof d === "object" && typeof d.from === "string" && typeof d.to === "string" ? { from: d.from, to: d.to } : null,
    selectedPanelType: p === "Customer" || p === "Ideally" ? p : null,
    selectedTestOptionIds: ints(q[FILTER_KEYS.selectedTestOptionIds]),
    selectedProjectGroupSegmentIds: ints(q[FILTER_KEYS.selectedProjectGroupSegmentIds]),
    segmentId: int(q[FILTER_KEYS.segmentId]),
  };
}

export function filtersToSearch(s: FilterState): Record<string, SearchValue> {
  const out: Record<string, SearchValue> = {};
  for (const [k, key] of Object.entries(FILTER_KEYS)) out[key] = s[k as keyof FilterState] ?? null;
  return out;
}

/**
 * The market picker's "All markets" (selectedRegionId 0): every market of the project at once, the
 * figures the all-markets total (QualResults total=markets: markets weighted by population, or by
 * sample where a population is unknown; the page says which). Only with more than one market.
 */
export const ALL_MARKETS = 0;

/**
 * Results open where the project is whole (issue 37): with no market chosen (no `region` in the URL),
 * a project of several markets shows All markets, as the AI summary written for it does; a market
 * that is not the project's still falls back to its first market (SPEC 4, effectiveRegionId).
 */
export function isAllMarkets(selected: number | null, projectRegionIds: number[]): boolean {
  return (selected === ALL_MARKETS || selected === null) && projectRegionIds.length > 1;
}

/** SPEC 4: a missing region, or one not among the project's, falls back to the first project region, else 1. */
export function effectiveRegionId(selected: number | null, projectRegionIds: number[]): number {
  if (selected !== null && projectRegionIds.includes(selected)) return selected;
  return projectRegionIds[0] ?? 1;
}

/** SPEC 4: changing region clears question filters, option filters and dates. */
export function changeRegion(s: FilterState, regionId: number): FilterState {
  if (s.selectedRegionId === regionId) return s;
  return { ...s, selectedRegionId: regionId, selectedFilterIds: {}, selectedQuestionOptionFilterIds: {}, selectedDates: null, segmentId: null };
}

/** SPEC 4: selecting survey runs clears dates. */
export function selectSurveyRuns(s: FilterState, ids: number[]): FilterState {
  return { ...s, selectedSurveyRunIds: ids, selectedDates: ids.length ? null : s.selectedDates };
}

/** Dates normalise to the start of the first day and the end of the last (local time). */
export function normaliseDates(from: Date, to: Date): { from: string; to: string } {
  const a = new Date(from.getFullYear(), from.getMonth(), from.getDate(), 0, 0, 0, 0);
  const b = new Date(to.getFullYear(), to.getMonth(), to.getDate(), 23, 59, 59, 999);
  return a <= b ? { from: a.toISOString(), to: b.toISOString() } : normaliseDates(to, from);
}

/** SPEC 4: selecting dates clears survey runs. */
export function selectDates(s: FilterState, dates: { from: Date; to: Date } | null): FilterState {
  if (!dates) return { ...s, selectedDates: null };
  return { ...s, selectedDates: normaliseDates(dates.from, dates.to), selectedSurveyRunIds: [] };
}

/** Cycle an option filter: off -> include -> exclude -> off. */
export function toggleQuestionOption(s: FilterState, questionId: number, optionId: number): FilterState {
  const group: Record<string, boolean> = { ...(s.selectedQuestionOptionFilterIds[questionId] ?? {}) };
  const now = group[optionId];
  if (now === undefined) group[optionId] = true;
  else if (now === true) group[optionId] = false;
  else delete group[optionId];
  const all: Record<string, Record<string, boolean>> = { ...s.selectedQuestionOptionFilterIds, [questionId]: group };
  if (!Object.keys(group).length) delete all[questionId];
  return { ...s, selectedQuestionOptionFilterIds: all };
}

export function toggleSystemOption(s: FilterState, code: string, optionId: number): FilterState {
  const ids = s.selectedFilterIds[code] ?? [];
  const next = ids.includes(optionId) ? ids.filter((i) => i !== optionId) : [...ids, optionId];
  const all = { ...s.selectedFilterIds, [code]: next };
  if (!next.length) delete all[code];
  return { ...s, selectedFilterIds: all };
}

/**
 * SPEC 4: question filter groups with selections + option filter groups + survey runs selected
 * + panel type (1) + date range (1) + group segments selected.
 */
export function filterCount(s: FilterState): number {
  return (
    Object.values(s.selectedFilterIds).filter((v) => v.length > 0).length +
    Object.values(s.selectedQuestionOptionFilterIds).filter((g) => Object.keys(g).length > 0).length +
    s.selectedSurveyRunIds.length +
    (s.selectedPanelType ? 1 : 0) +
    (s.selectedDates ? 1 : 0) +
    s.selectedProjectGroupSegmentIds.length
  );
}

/** The response filter the API takes, for the effective region (or every market's, for All markets). */
export function toResponseFilter(s: FilterState, regionId: number | number[]): ResponseFilter {
  const included: number[] = [];
  const excluded: number[] = [];
  for (const g of Object.values(s.selectedQuestionOptionFilterIds)) for (const [oid, inc] of Object.entries(g)) (inc ? included : excluded).push(Number(oid));
  const f: ResponseFilter = { regionIds: Array.isArray(regionId) ? [...regionId] : [regionId] };
  const filterIds = Object.values(s.selectedFilterIds).flat();
  if (filterIds.length) f.filterIds = filterIds;
  if (included.length) f.questionOptionsIds = included;
  if (excluded.length) f.excludeQuestionOptionsIds = excluded;
  if (s.selectedSurveyRunIds.length) f.surveyIds = s.selectedSurveyRunIds;
  if (s.selectedTestOptionIds.length) f.testOptionIds = s.selectedTestOptionIds;
  if (s.selectedProjectGroupSegmentIds.length) f.projectGroupSegmentIds = s.selectedProjectGroupSegmentIds;
  if (s.selectedPanelType) f.panelType = s.selectedPanelType;
  if (s.selectedDates) {
    f.dateFrom = s.selectedDates.from;
    f.dateTo = s.selectedDates.to;
  }
  return f;
}

/**
 * SPEC 4: applying a segment loads its stored filters into the active state. Demographic ids go
 * back under their question code and option ids under their question, by the lookups given.
 * With segmentId null, any stored filter (a cited figure's) becomes the active state the same way.
 */
export function stateFromSegment(
  segmentId: number | null,
  r: ResponseFilter,
  codeOfSystemOption: (id: number) => string | undefined,
  questionOfOption: (id: number) => number | undefined,
): FilterState {
  const s: FilterState = { ...EMPTY_FILTERS, segmentId };
  s.selectedRegionId = (r.regionIds?.length ?? 0) > 1 ? ALL_MARKETS : (r.regionIds?.[0] ?? null);
  for (const id of r.filterIds ?? []) {
    const code = codeOfSystemOption(id);
    if (code) s.selectedFilterIds = { ...s.selectedFilterIds, [code]: [...(s.selectedFilterIds[code] ?? []), id] };
  }
  const put = (id: number, inc: boolean) => {
    const q = questionOfOption(id);
    if (q === undefined) return;
    s.selectedQuestionOptionFilterIds = { ...s.selectedQuestionOptionFilterIds, [q]: { ...(s.selectedQuestionOptionFilterIds[String(q)] ?? {}), [id]: inc } };
  };
  for (const id of r.questionOptionsIds ?? []) put(id, true);
  for (const id of r.excludeQuestionOptionsIds ?? []) put(id, false);
  s.selectedSurveyRunIds = r.surveyIds ?? [];
  s.selectedTestOptionIds = r.testOptionIds ?? [];
  s.selectedProjectGroupSegmentIds = r.projectGroupSegmentIds ?? [];
  s.selectedPanelType = r.panelType === "Customer" || r.panelType === "Ideally" ? r.panelType : null;
  s.selectedDates = r.dateFrom && r.dateTo ? { from: r.dateFrom, to: r.dateTo } : null;
  return s;
}

/** Filters cleared, the region kept (the reset after deleting a filter set). */
export function resetFilters(s: FilterState): FilterState {
  return { ...EMPTY_FILTERS, selectedRegionId: s.selectedRegionId };
}
