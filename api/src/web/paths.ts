// Which paths the API answers and which the web app (SPA) serves: the table is the contract's
// (contracts/paths.ts, also read by the CLI's `ideally api`); here its route patterns and the
// request target's parts. Tested in tests/api/web.test.ts.

import { API_PREFIXES, API_EXACT, isApiPath } from "@ideally/contracts/paths";

export { isApiPath };

/** The same table as Bun.serve route patterns (the development server's routes). */
export const API_ROUTE_PATTERNS: readonly string[] = [...API_PREFIXES.map((p) => `${p}*`), ...API_EXACT];

/**
 * A request URL's pathname and search (`?` and the query; empty when there is none or it is
 * empty), as `new URL(url)` gives them. A request's URL is already serialized by the URL parser
 * (normalized, percent-encoded, no fragment), so they are cut out of the text: parsing it again
 * cost more than the checks themselves. A URL with a fragment is parsed.
 */
export function targetOf(url: string): { pathname: string; search: string } {
  const scheme = url.indexOf("://");
  const slash = scheme < 0 ? -1 : url.indexOf("/", scheme + 3);
  const first = slash < 0 ? -1 : url.indexOf("?", scheme + 3);
  if (slash < 0 || (first >= 0 && first < slash) || url.includes("#")) {
    const u = new URL(url);
    return { pathname: u.pathname, search: u.search };
  }
  if (first < 0) return { pathname: url.slice(slash), search: "" };
  return { pathname: url.slice(slash, first), search: first === url.length - 1 ? "" : url.slice(first) };
}
