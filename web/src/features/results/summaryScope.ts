// Which AI summary the results pages show for the view on screen (its market and filters, and its
// benchmark), in pure functions the tests read; the list itself is summaries.ts.
import type { Row } from "@ideally/contracts/odata";
import type { ResponseFilter } from "./filters";

export type AiSummary = Row<
  "AiProjectSummaries",
  "id" | "summaryType" | "title" | "content" | "status" | "generatedAt" | "projectObjectiveId" | "segmentId" | "filters" | "benchmarkTypeId" | "total" | "referencesData" | "createdAt"
>;

export const isWriting = (s: Pick<AiSummary, "status">) => s.status === "Pending" || s.status === "Running";

/** A response filter in one spelling: keys sorted, lists sorted, empty and null entries dropped. */
export function canonicalFilter(f: unknown): string {
  if (!f || typeof f !== "object" || Array.isArray(f)) return "{}";
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(f).sort()) {
    const v = (f as Record<string, unknown>)[k];
    if (v === null || v === undefined || v === "" || (Array.isArray(v) && !v.length)) continue;
    out[k] = Array.isArray(v) ? [...v].sort((a, b) => (typeof a === "number" && typeof b === "number" ? a - b : String(a).localeCompare(String(b)))) : v;
  }
  return JSON.stringify(out);
}

/** The benchmark a summary was written against: its own, or the default (all customers, 1). */
export const summaryBenchmark = (s: Pick<AiSummary, "benchmarkTypeId">) => s.benchmarkTypeId ?? 1;

/**
 * The summary to show for the view on screen: the newest one written for exactly its filters and
 * benchmark (under All markets, of the all-markets total) ('view'); else the newest project summary (no segment, no filters: all markets and
 * respondents), labelled with its own scope ('project').
 */
export function summaryForView(rows: AiSummary[], filter: ResponseFilter, benchmarkId: number | null, projectRegionIds: number[] = []): { summary: AiSummary; scope: "view" | "project" } | null {
  // Every market of the project is no market filter (the project summary's own scope).
  const everyMarket = projectRegionIds.length > 0 && canonicalFilter({ regionIds: filter.regionIds }) === canonicalFilter({ regionIds: projectRegionIds });
  const want = canonicalFilter(everyMarket ? { ...filter, regionIds: [] } : filter);
  const newest = (xs: AiSummary[]) => [...xs].sort((a, b) => b.createdAt.localeCompare(a.createdAt) || b.id - a.id)[0];
  // All markets of a project with several: the page shows the all-markets total, so only a summary of that total is the view's.
  const allMarkets = everyMarket && projectRegionIds.length > 1;
  const own = newest(rows.filter((s) => canonicalFilter(s.filters) === want && summaryBenchmark(s) === (benchmarkId ?? 1) && (!allMarkets || s.total === "markets")));
  if (own) return { summary: own, scope: "view" };
  const project = newest(rows.filter((s) => s.segmentId === null && canonicalFilter(s.filters) === "{}"));
  return project ? { summary: project, scope: "project" } : null;
}

/** The figures a summary cites, ref -> text, for its reference marks. */
export function summaryRefs(s: Pick<AiSummary, "referencesData">): Map<string, string> {
  const m = new Map<string, string>();
  if (Array.isArray(s.referencesData))
    for (const f of s.referencesData)
      if (f && typeof f === "object" && typeof (f as { ref?: unknown }).ref === "string" && typeof (f as { text?: unknown }).text === "string")
        m.set((f as { ref: string }).ref, (f as { text: string }).text);
  return m;
}
