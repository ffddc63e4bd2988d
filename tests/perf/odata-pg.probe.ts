// Probe (not a pass/fail benchmark): PostgreSQL's CPU per OData read, piece by piece, on the data
// and query mix of bench:odata (odata-expand.bench.ts, odata-mix.ts). Each piece runs N requests
// of the mix one after another on ONE connection and reads that backend's CPU time from
// /proc/<pg_backend_pid()>/schedstat (nanoseconds; /proc/<pid>/stat's 10 ms ticks where schedstat
// is missing) before and after: time the backend spent on a CPU, whatever else the host runs, so
// the figure holds up on a loaded machine far better than a throughput. The server must be on this
// host and its /proc readable (DATABASE_URL on 127.0.0.1 as root, or the embedded test server).
//
//   bun run tests/perf/odata-pg.probe.ts          (DATABASE_URL or the embedded test server)
//   PROBE_N=2000 PROBE_ROUNDS=3 to change the size; PROBE_EXPLAIN=1 also prints
//   EXPLAIN (ANALYZE, BUFFERS) of each statement as the owner and as the app role.
import { readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createTestDb } from "../helpers/db.ts";
import { CLIENT, PATHS, seedMix } from "./odata-mix.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { stopTestServer } from "../helpers/server.ts";
import { login, realApp } from "../helpers/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { scopeFor } from "../../api/src/entities/service.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection } from "../../api/src/odata/compile.ts";
import { readAsTenant, withTenant, type TenantRequest } from "../../api/src/db/tx.ts";
import { APP_ROLE } from "../../api/src/db/roles.ts";
import { DEFAULT_QUERY_LIMITS } from "../../api/src/config.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";

const USER = 9004;
const N = Number(process.env.PROBE_N ?? 2000);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 3);

const tdb = await createTestDb();
const db = tdb.db;
await seedMix(db);
const { app } = await realApp(db);
await login(app, "user@acme.test");
const [session] = await db<{ id: string }[]>`select id from auth_sessions where user_id = ${USER} order by created_at desc limit 1`;
const ctx: RequestCtx = { principal: { userId: USER, isStaff: false, isSuperAdmin: false }, clientId: CLIENT, descendants: false, sessionId: session!.id };
const statements = PATHS.map((path) => {
  const url = new URL("http://x" + path);
  const set = registry.mustGet(url.pathname.split("/").at(-1)!);
  return { path, ...compileCollection(registry, set, parseQuery(Object.fromEntries(url.searchParams), set, registry), { scope: scopeFor(ctx, registry) }).render() };
});
// As the app sends it: the statement timeout of every signed-in request, no gate (one connection).
const tenant: TenantRequest = { userId: USER, clientId: CLIENT, descendants: false, sessionId: session!.id, limits: { statementTimeoutMs: DEFAULT_QUERY_LIMITS.statementTimeoutMs } };

/** Nanoseconds the backend has spent on a CPU. */
function cpuNs(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
  } catch {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10_000_000; // utime + stime, in 10 ms ticks
  }
}

/** A pool of one connection, so every request of a piece lands on the same backend. */
async function oneConnection(): Promise<{ c: Db; pid: number }> {
  const c = connect(tdb.url, { max: 1 });
  const [row] = await c<{ pid: number }[]>`select pg_backend_pid() as pid`;
  return { c, pid: row!.pid };
}
// The request's settings for the whole session (bench:odata's bare pool has them as start-up parameters).
const sessionSettings = `set app.client_ids = '${CLIENT}'; set app.all_clients = 'off'; set app.user_id = '${USER}'`;

// The bare side: the statement alone as the owner.
const owner = await oneConnection();
await owner.c.unsafe(sessionSettings);
// The statement under row-level security without any entry: the app role for the session.
const rls = await oneConnection();
await rls.c.unsafe(`${sessionSettings}; set role ${APP_ROLE}`);
const entry = await oneConnection();
const begin = await oneConnection();
const settings = await oneConnection();
const whole = await oneConnection();

const timeout = DEFAULT_QUERY_LIMITS.statementTimeoutMs;
const pieces: [string, { c: Db; pid: number }, (i: number) => Promise<unknown>][] = [
  ["the statement alone, as the owner (bench:odata's bare side)", owner, (i) => {
    const st = statements[i % statements.length]!;
    return owner.c.unsafe(st.text, st.params as never[], { prepare: true });
  }],
  ["the statement alone, as the app role under row-level security", rls, (i) => {
    const st = statements[i % statements.length]!;
    return rls.c.unsafe(st.text, st.params as never[], { prepare: true });
  }],
  ["BEGIN + COMMIT (simple queries)", begin, async () => {
    await begin.c.unsafe("begin; select 1");
    await begin.c.unsafe("commit");
  }],
  ["BEGIN, the role and the statement timeout, COMMIT (no resume)", settings, async () => {
    await settings.c.unsafe(`begin; set local role ${APP_ROLE}; set local statement_timeout = ${timeout}`);
    await settings.c.unsafe("commit");
  }],
  ["the tenant entry alone (withTenant, nothing inside)", entry, () => withTenant(entry.c, tenant, async () => {})],
  ["readAsTenant: the entry, the statement, COMMIT", whole, (i) => {
    const st = statements[i % statements.length]!;
    return readAsTenant(whole.c, tenant, st.text, st.params);
  }],
];

// Both sides must answer the same rows, or the comparison means nothing.
for (const st of statements) {
  const [a] = (await owner.c.unsafe(st.text, st.params as never[], { prepare: true })) as unknown as { value: string }[];
  const [b] = await readAsTenant<{ value: string }>(whole.c, tenant, st.text, st.params);
  if (a!.value !== b!.value || a!.value === "[]") throw new Error(`owner and tenant answers differ or are empty: ${st.path}`);
}

if (process.env.PROBE_EXPLAIN) {
  for (const [who, p] of [["owner", owner], ["app role", rls]] as const) {
    for (const st of statements) {
      // Six runs first, so the plan is the one a pooled connection keeps (generic after five).
      for (let k = 0; k < 6; k++) await p.c.unsafe(st.text, st.params as never[], { prepare: true });
      // postgres.js names its prepared statements itself: EXPLAIN the text with its parameters inlined instead.
      const inline = st.text.replace(/\$(\d+)/g, (_, n) => {
        const v = st.params[Number(n) - 1];
        return Array.isArray(v) ? `'{${v.join(",")}}'` : `'${String(v).replace(/'/g, "''")}'`;
      });
      const rows = await p.c.unsafe(`explain (analyze, buffers, costs off) ${inline}`);
      console.log(`---- ${who}: ${st.path}\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    }
  }
}

const results = new Map<string, number[]>();
console.log(`load average ${loadavg().map((x) => x.toFixed(1)).join(" ")}; ${N} sequential requests per piece and round, one connection each`);
for (let round = 1; round <= ROUNDS; round++) {
  for (const [name, p, run] of pieces) {
    for (let i = 0; i < 200; i++) await run(i); // warm-up: prepared statements, plan caches
    const c0 = cpuNs(p.pid);
    const t0 = performance.now();
    for (let i = 0; i < N; i++) await run(i);
    const us = (cpuNs(p.pid) - c0) / 1000 / N;
    const wall = ((performance.now() - t0) * 1000) / N;
    (results.get(name) ?? results.set(name, []).get(name)!).push(us);
    console.log(`round ${round}  ${name.padEnd(66)} ${us.toFixed(1).padStart(6)} us PostgreSQL CPU/request  ${wall.toFixed(0).padStart(5)} us wall`);
  }
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
console.log(`\nmedians over ${ROUNDS} rounds (load average now ${loadavg().map((x) => x.toFixed(1)).join(" ")})`);
for (const [name, xs] of results) console.log(`  ${name.padEnd(66)} ${median(xs).toFixed(1).padStart(6)} us`);

for (const p of [owner, rls, entry, begin, settings, whole]) await p.c.end();
await tdb.drop();
await stopTestServer();
