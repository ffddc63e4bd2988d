// The OData benchmark's data and query mix, shared by bench:odata (odata-expand.bench.ts) and the
// per-layer probe (odata-layers.probe.ts), so both measure the same requests on the same rows.
import type { Db, SqlParams } from "../../api/src/db/client.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { registry } from "../../api/src/entities/index.ts";
import { scopeFor } from "../../api/src/entities/service.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection } from "../../api/src/odata/compile.ts";

/** The team the mix reads as (Acme Team A in the test fixtures). */
export const CLIENT = 1003;

/** The mix: each request takes the next path, so consecutive requests differ in set and shape. */
export const PATHS = [
  "/api/v1/Projects?$top=50&$expand=projectsRegions($expand=region)",
  "/api/v1/Projects?$top=20&$skip=40&$select=id,projectName,statusCode&$orderby=projectName desc",
  "/api/v1/Projects?$filter=projectTypeId eq 2 and contains(projectName,'1')&$select=id,projectName&$top=30",
  "/api/v1/ProjectsRegions?$top=100&$select=id,projectId,regionId&$expand=region($select=regionName,currencyCode)",
  "/api/v1/Projects?$top=10&$skip=150&$orderby=id&$expand=projectsRegions($select=regionId)",
  "/api/v1/TestOptions?$filter=projectId eq 1001&$select=id,conceptText",
  "/api/v1/Projects?$filter=statusCode eq 0 and projectTypeId in (1,3)&$top=25&$orderby=createdAt desc&$select=id,projectName,createdAt",
  "/api/v1/Regions?$select=id,regionName&$orderby=regionName",
];

/** 200 projects of the team, each in two regions (the team's own region rows replaced). */
export async function seedMix(db: Db) {
  await db`delete from projects_regions where client_id = ${CLIENT}`;
  const projects = await db<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, framework_id, status_code)
    select ${CLIENT}, 'Bench project ' || g, 1 + (g % 4), 1000, 0 from generate_series(1, 200) g
    returning id`;
  await db`
    insert into projects_regions (client_id, project_id, region_id)
    select ${CLIENT}, p.id, r.region_id
    from unnest(${projects.map((p) => p.id)}::int[]) as p(id)
    cross join (values (1), (2)) as r(region_id)`;
}

/** A request's place in the mix: its path and query as a URL gives them. */
export const mixKey = (url: string) => {
  const u = new URL(url);
  return u.pathname + u.search;
};

/** The engine's own statement for each request of the mix as `ctx` (what a bare handler runs), by mixKey. */
export function compiledMix(ctx: RequestCtx): Map<string, { text: string; params: SqlParams }> {
  return new Map(
    PATHS.map((path) => {
      const url = new URL(`http://x${path}`);
      const set = registry.mustGet(url.pathname.split("/").at(-1)!);
      return [url.pathname + url.search, compileCollection(registry, set, parseQuery(Object.fromEntries(url.searchParams), set, registry), { scope: scopeFor(ctx, registry) }).render()];
    }),
  );
}

/** Answers `n` requests of the mix through `fetchFn`, 8 in flight, each taking the next path; any status but 200 stops it. */
export async function runMix(fetchFn: (req: Request) => Promise<Response>, n: number, headers: Record<string, string>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < n) {
        const res = await fetchFn(new Request(`http://127.0.0.1${PATHS[next++ % PATHS.length]}`, { headers }));
        if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
      }
    }),
  );
}

/** An answer's `value` as JSON text (gunzipped if need be), to check that two layers answer alike. */
export async function valueText(res: Response): Promise<string> {
  if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? Bun.gunzipSync(bytes) : bytes);
  return JSON.stringify((JSON.parse(text) as { value: unknown }).value);
}

/** A layer's answer as the app sends it: the JSON gzipped. */
export const gzippedJson = (text: string) =>
  new Response(new Blob([new TextEncoder().encode(text)]).stream().pipeThrough(new CompressionStream("gzip")), {
    headers: { "content-type": "application/json", "content-encoding": "gzip", vary: "Accept-Encoding" },
  });

/**
 * Every layer answers every path of the mix with the first layer's rows (non-empty), or the
 * figures mean nothing: stops otherwise (e.g. a layer answering an empty list for want of the
 * client settings).
 */
export async function sameAnswers(layers: readonly (readonly [string, (req: Request) => Promise<Response>])[], headers: Record<string, string>): Promise<void> {
  for (const path of PATHS) {
    const ask = (fetchFn: (req: Request) => Promise<Response>) => fetchFn(new Request(`http://127.0.0.1${path}`, { headers })).then(valueText);
    const expected = await ask(layers[0]![1]);
    if (!expected.startsWith("[{")) throw new Error(`the first layer answers no rows: ${path}: ${expected.slice(0, 80)}`);
    for (const [name, fetchFn] of layers.slice(1)) {
      const value = await ask(fetchFn);
      if (value !== expected) throw new Error(`layer "${name}" answers differently from the first: ${path}: ${value.slice(0, 120)}`);
    }
  }
}
