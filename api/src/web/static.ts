// The built web app (dist/web, made by `bun run build`), served by the Bun adapter: hashed assets
// cached for a year, index.html never cached, and every SPA route answered with index.html. Each
// file is sent as its brotli or gzip copy made at build time when the client accepts one.
import { existsSync } from "node:fs";
import { join, normalize, resolve } from "node:path";
import type { HTMLBundle } from "bun";
import { API_ROUTE_PATTERNS } from "./paths.ts";
import { chooseEncoding, compressible, varyOnEncoding } from "./compress.ts";

/** The compressed copies the build writes beside each file, best first. */
export const PRECOMPRESSED = [
  { encoding: "br", suffix: ".br" },
  { encoding: "gzip", suffix: ".gz" },
] as const;

/** A built file, as its precompressed copy when the client accepts one and it exists. */
async function builtFile(file: string, acceptEncoding: string | null, headers: Record<string, string>): Promise<Response | null> {
  const f = Bun.file(file);
  if (!(await f.exists())) return null;
  const h = new Headers({ ...headers, "content-type": f.type });
  if (compressible(f.type)) {
    varyOnEncoding(h);
    const have = [];
    for (const p of PRECOMPRESSED) if (await Bun.file(file + p.suffix).exists()) have.push(p.encoding);
    const enc = chooseEncoding(acceptEncoding, have);
    const copy = PRECOMPRESSED.find((p) => p.encoding === enc);
    if (copy) {
      h.set("content-encoding", copy.encoding);
      return new Response(Bun.file(file + copy.suffix), { headers: h });
    }
  }
  return new Response(f, { headers: h });
}

export const WEB_DIST = resolve(import.meta.dir, "../../../dist/web");

export function webFiles(dir = WEB_DIST): ((path: string, acceptEncoding?: string | null) => Promise<Response | null>) | undefined {
  const index = join(dir, "index.html");
  if (!existsSync(index)) return undefined;
  return async (path, acceptEncoding = null) => {
    if (path.startsWith("/assets/")) {
      const file = normalize(join(dir, path));
      if (!file.startsWith(join(dir, "assets"))) return null;
      return (await builtFile(file, acceptEncoding, { "cache-control": "public, max-age=31536000, immutable" })) ?? new Response("Not found", { status: 404 });
    }
    // index.html goes out as built: the security middleware reads it to hash its inline blocks for
    // the CSP, and the compression middleware then gzips it with the rest of the app's answers.
    return builtFile(index, null, { "cache-control": "no-cache" });
  };
}

/** Bun.serve routes for development: the HTML bundle for the SPA, the API's patterns to the app. */
export function devRoutes<H>(bundle: HTMLBundle, handler: H): Record<string, HTMLBundle | H> {
  const routes: Record<string, HTMLBundle | H> = { "/*": bundle };
  for (const p of API_ROUTE_PATTERNS) routes[p] = handler;
  return routes;
}
