// The one table of which paths the API answers and which the web app (SPA) serves (DESIGN.md
// "One server, one origin"). The SPA's own /auth/login etc. differ from the API's /auth/Login/*
// by case and by prefix. The server routes by it (api/src/web/paths.ts, app.ts); the CLI's
// `ideally api` reads a path by it (a path the API does not answer is one under /api/v1/).

/** Paths under these prefixes are the API's. */
export const API_PREFIXES = ["/api/", "/auth/Login/", "/auth/Saml/", "/auth/LinkedIn/", "/s/", "/docs/"] as const;

/** These paths, exactly, are the API's. */
export const API_EXACT: ReadonlySet<string> = new Set(["/openapi.json", "/docs", "/Logger", "/healthz", "/readyz", "/metrics", "/ws"]);

/** Does the API answer this path (else the web app does, for GET and HEAD)? */
export function isApiPath(path: string, websocketPath = "/ws"): boolean {
  if (API_EXACT.has(path) || path === websocketPath) return true;
  return API_PREFIXES.some((p) => path.startsWith(p));
}
