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
