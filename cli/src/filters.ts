// --filter KEY=VALUE[,VALUE] options as SPEC 3's response filter object (sent as `filters` JSON),
// and --segment ID (a saved filter set's stored filters, merged in: the option wins per key).
import type { Schemas } from "@ideally/contracts";
import { isDate } from "./args.ts";
import { usageError } from "./errors.ts";
import { ok, type Api } from "./session.ts";

export type ResponseFilter = Schemas["ResponseFilter"];

/** The keys a --filter takes, and the filter field each fills. */
export const FILTER_KEYS: Record<string, keyof ResponseFilter> = {
  region: "regionIds",
  option: "testOptionIds",
  run: "surveyIds",
  demographic: "filterIds",
  answer: "questionOptionsIds",
  exclude: "excludeQuestionOptionsIds",
  "group-segment": "projectGroupSegmentIds",
  panel: "panelType",
  from: "dateFrom",
  to: "dateTo",
};

export { FILTER_HELP } from "./filter-help.ts";

export function parseFilters(specs: string[] = []): ResponseFilter {
  const f: Record<string, unknown> = {};
  for (const spec of specs) {
    const m = /^([a-z-]+)=(.*)$/.exec(spec);
    if (!m || !FILTER_KEYS[m[1]]) throw usageError(`--filter '${spec}': expected KEY=VALUE with KEY one of ${Object.keys(FILTER_KEYS).join(", ")}`);
    const [, key, value] = m;
    const field = FILTER_KEYS[key];
    if (key === "panel") {
      if (value !== "Customer" && value !== "Ideally") throw usageError(`--filter panel: expected Customer or Ideally, got '${value}'`);
      f[field] = value;
    } else if (key === "from" || key === "to") {
      if (!isDate(value)) throw usageError(`--filter ${key}: expected a date YYYY-MM-DD, got '${value}'`);
      // SPEC 4: the start of the first day, the end of the last.
      f[field] = key === "from" ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`;
    } else {
      const ids = value.split(",").map((v) => v.trim());
      if (ids.some((v) => !/^\d{1,9}$/.test(v))) throw usageError(`--filter ${key}: expected ids like 1,2, got '${value}'`);
      f[field] = [...((f[field] as number[] | undefined) ?? []), ...ids.map(Number)];
    }
  }
  const [from, to] = [f.dateFrom, f.dateTo];
  if (typeof from === "string" && typeof to === "string" && from > to) throw usageError(`--filter: from ${from.slice(0, 10)} is after to ${to.slice(0, 10)}`);
  return f as ResponseFilter;
}

/** --filter and --segment checked as values (exit 1), before any request. */
export function checkFilters(o: { filter?: string[]; segment?: string }): void {
  parseFilters(o.filter);
  if (o.segment !== undefined && !/^\d{1,9}$/.test(o.segment)) throw usageError(`--segment: expected a segment id, got '${o.segment}'`);
}

/** The filter a command sends: a segment's stored filters, overridden by --filter options. */
export async function filtersFor(api: Api, o: { filter?: string[]; segment?: string }): Promise<ResponseFilter> {
  const own = parseFilters(o.filter);
  if (o.segment === undefined) return own;
  if (!/^\d{1,9}$/.test(o.segment)) throw usageError(`--segment: expected a segment id, got '${o.segment}'`);
  const seg = ok(await api.client.GET("/api/v1/Segments({key})", { params: { path: { key: o.segment } } }), `reading segment ${o.segment}`);
  return { ...((seg?.responsesFilters ?? {}) as ResponseFilter), ...own };
}

export const filterParam = (f: ResponseFilter) => (Object.keys(f).length ? { filters: JSON.stringify(f) } : {});
