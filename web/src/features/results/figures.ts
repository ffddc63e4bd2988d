// Where a figure an AI answer cites comes from, as a results page with the figure's own filters
// (the chat links each [F1] there, so the page opens showing the cited value).
import type { Schemas } from "@ideally/contracts";
import { decodeSearch, encodeSearch, type SearchValue } from "../../lib/search";
import { FILTER_KEYS, filtersToSearch, stateFromSegment, type ResponseFilter } from "./filters";

/** A cited figure (ResultsAiMessages referencesData.figures). */
export type Figure = NonNullable<NonNullable<Schemas["ResultsAiMessages"]["referencesData"]>["figures"]>[number];

export interface FigureTarget {
  /** The results page, under /results/{projectId}/. */
  path: string;
  /** That page's own query parameters (the theme, sentiment or test option it opens on). */
  params: Record<string, SearchValue>;
  /** The response filter the figure was computed under; null: none of its own. */
  filters: ResponseFilter | null;
}

/** The results page a cited figure comes from, and the filter it was computed under. */
export function figureTarget(f: Figure, all: Figure[] = []): FigureTarget {
  const s = f.source;
  switch (s.fn) {
    case "QualResults":
      return { path: s.testOptionId ? `grow-ideas/${s.testOptionId}` : "summary", params: {}, filters: s.filters };
    case "PriceSensitivityResults":
      return { path: "price-sensitivity", params: {}, filters: s.filters };
    case "MarketReachResults":
      return { path: "market-reach", params: {}, filters: s.filters };
    case "QuestionResults":
      return { path: `qual/${s.projectQuestionId}`, params: {}, filters: s.filters };
    case "VerbatimCount":
      return { path: `text/${s.projectQuestionId}/themes`, params: {}, filters: s.filters };
    case "Verbatim":
      return { path: `text/${s.projectQuestionId}`, params: { theme: s.themeId, sentiment: s.sentiment, option: s.testOptionId }, filters: s.filters };
    case "DriverResults":
      return { path: "drivers", params: { driverOption: s.testOptionId }, filters: s.filters };
    case "SimulatedRespondents":
      return { path: "summary", params: {}, filters: s.filters };
    case "Difference": {
      const a = all.find((x) => x.ref === s.a);
      return a && a.source.fn !== "Difference" ? figureTarget(a, all) : { path: "summary", params: {}, filters: null };
    }
  }
}

/** Page parameters a figure link replaces (so the page opens as the figure's, not as the last page left them). */
const PAGE_KEYS = ["theme", "sentiment", "option", "driverOption", "page", "q"];

/**
 * The query string of a figure's link: the current one (benchmark, view settings) with the
 * figure's filter in place of the page's (demographics back under their question code by
 * `codeOfSystemOption`, answer options under their question by `questionOfOption`) and the page's
 * own parameters. A figure without markets keeps the page's market.
 */
export function figureSearch(current: string, t: FigureTarget, codeOfSystemOption: (id: number) => string | undefined, questionOfOption: (id: number) => number | undefined): string {
  const q = decodeSearch(current);
  for (const k of PAGE_KEYS) delete q[k];
  if (t.filters) {
    const region = q[FILTER_KEYS.selectedRegionId];
    const state = filtersToSearch(stateFromSegment(null, t.filters, codeOfSystemOption, questionOfOption));
    Object.assign(q, state);
    if (!t.filters.regionIds?.length) q[FILTER_KEYS.selectedRegionId] = region;
  }
  return encodeSearch({ ...q, ...t.params });
}
