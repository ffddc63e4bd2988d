// The one table of which paths the API answers and which the web app (SPA) serves (DESIGN.md
// "One server, one origin"). The SPA's own /auth/login etc. differ from the API's /auth/Login/*
// by case and by prefix. Tested in tests/api/web-paths.test.ts.

const API_PREFIXES = [
  "/api/",
  "/auth/Login/",
  "/auth/Saml/",
  "/auth/LinkedIn/",
  "/s/",
  "/docs/",
] as const;

const API_EXACT = new Set(["/openapi.json", "/docs", "/Logger", "/healthz", "/readyz", "/metrics", "/ws"]);

/** Does the API answer this path (else the web app does, for GET and HEAD)? */
export function isApiPath(path: string, websocketPath = "/ws"): boolean {
  if (API_EXACT.has(path) || path === websocketPath) return true;
  return API_PREFIXES.some((p) => path.startsWith(p));
}

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
