// The built web app (dist/web, made by `bun run build`), served by the Bun adapter: hashed assets
// cached for a year, index.html never cached, and every SPA route answered with index.html.
import { existsSync } from "node:fs";
import { join, normalize, resolve } from "node:path";
import type { HTMLBundle } from "bun";
import { API_ROUTE_PATTERNS } from "./paths.ts";

export const WEB_DIST = resolve(import.meta.dir, "../../../dist/web");

export function webFiles(dir = WEB_DIST): ((path: string) => Promise<Response | null>) | undefined {
  const index = join(dir, "index.html");
  if (!existsSync(index)) return undefined;
  return async (path) => {
    if (path.startsWith("/assets/")) {
      const file = normalize(join(dir, path));
      if (!file.startsWith(join(dir, "assets"))) return null;
      const f = Bun.file(file);
      if (!(await f.exists())) return new Response("Not found", { status: 404 });
      return new Response(f, { headers: { "cache-control": "public, max-age=31536000, immutable", "content-type": f.type } });
    }
    return new Response(Bun.file(index), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
  };
}

/** Bun.serve routes for development: the HTML bundle for the SPA, the API's patterns to the app. */
export function devRoutes<H>(bundle: HTMLBundle, handler: H): Record<string, HTMLBundle | H> {
  const routes: Record<string, HTMLBundle | H> = { "/*": bundle };
  for (const p of API_ROUTE_PATTERNS) routes[p] = handler;
  return routes;
}
