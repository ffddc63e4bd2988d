// Benchmark: GET /api/v1/Projects?$top=50&$expand=projectsRegions($expand=region) through the
// full stack (Hono app, auth hook, OData parse + compile, tenant transaction with RLS) against a
// bare Bun.serve + postgres.js handler running the very SQL the engine generates, on 200 projects
// with their regions, in one run. Prints the throughput ratio; exits non-zero below the goal.
//
//   bun run bench:odata            (DATABASE_URL or the embedded test server)
import postgres from "postgres";
import { createTestDb } from "../helpers/db.ts";
import { stopTestServer } from "../helpers/server.ts";
import { newApp } from "../../api/src/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { scopeFor } from "../../api/src/entities/service.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection } from "../../api/src/odata/compile.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";

const GOAL = 0.8;
const CLIENT = 1003;
const PATH = "/api/v1/Projects?$top=50&$expand=projectsRegions($expand=region)";
/** Short alternating slices, compared pair by pair: the machine's drift (other tenants of a shared
 * host) hits both sides of a pair alike, where long separate runs would each catch a different load. */
const SLICE_MS = Number(process.env.BENCH_SLICE_MS ?? 600);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 15);
const CONCURRENCY = 8;

const tdb = await createTestDb();
const db = tdb.db;

// 200 projects of one team, each in two regions.
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

const ctx: RequestCtx = {
  principal: { userId: 9004, isStaff: false, isSuperAdmin: false },
  clientId: CLIENT,
  descendants: false,
};
const app = newApp({ db, registry, authenticate: async () => ctx });

// The bare handler: the engine's own statement, run directly.
const set = registry.mustGet("Projects");
const url = new URL("http://x" + PATH);
const query = Object.fromEntries(url.searchParams);
const { text, params } = compileCollection(registry, set, parseQuery(query, set, registry), { scope: scopeFor(ctx, registry) }).render();

// The statement reads the request's client ids from settings (app_client_ids()); the bare pool
// has them fixed at connection start-up, so it runs the statement alone, nothing more.
const bareDb = postgres(tdb.url, { max: 10, connection: { "app.client_ids": String(CLIENT), "app.all_clients": "off" } as never });

const full = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: app.fetch });
const bare = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch() {
    const [row] = (await bareDb.unsafe(text, params as never[], { prepare: true })) as unknown as { value: string }[];
    return new Response(`{"value":${row!.value}}`, { headers: { "content-type": "application/json" } });
  },
});

async function load(port: number, DURATION_MS = SLICE_MS): Promise<number> {
  const target = `http://127.0.0.1:${port}${PATH}`;
  const headers = { authorization: "Bearer bench", clientId: String(CLIENT) };
  let done = 0;
  const end = performance.now() + DURATION_MS;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < end) {
        const res = await fetch(target, { headers });
        if (res.status !== 200) throw new Error(`status ${res.status}: ${await res.text()}`);
        await res.arrayBuffer();
        done++;
      }
    }),
  );
  return done / (DURATION_MS / 1000);
}

// Same answer from both, or the comparison means nothing.
const a = (await (await fetch(`http://127.0.0.1:${full.port!}${PATH}`)).json()) as { value: unknown[] };
const b = (await (await fetch(`http://127.0.0.1:${bare.port!}${PATH}`)).json()) as { value: unknown[] };
if (JSON.stringify(a.value) !== JSON.stringify(b.value) || a.value.length !== 50) throw new Error("full and bare answers differ");

await load(full.port!, 2000); // warm-up: JIT, prepared statements, caches
await load(bare.port!, 2000);
const ratios: number[] = [];
const fulls: number[] = [];
const bares: number[] = [];
for (let i = 0; i < PAIRS; i++) {
  // Alternate which side goes first, so neither always follows the other's cool-down.
  const [b, f] = i % 2 ? [await load(bare.port!), await load(full.port!)] : (([x, y]) => [y, x])([await load(full.port!), await load(bare.port!)]);
  bares.push(b!);
  fulls.push(f!);
  ratios.push(f! / b!);
}
const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!;
const ratio = median(ratios);
console.log(`bare: ${median(bares).toFixed(0)} req/s   full stack: ${median(fulls).toFixed(0)} req/s   (${PAIRS} pairs of ${SLICE_MS} ms)`);
console.log(`ratio full/bare (median of pairs): ${ratio.toFixed(3)} (goal >= ${GOAL})`);

full.stop(true);
bare.stop(true);
await bareDb.end();
await tdb.drop();
await stopTestServer();
process.exit(ratio >= GOAL ? 0 : 1);
