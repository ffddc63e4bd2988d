// Probe (not a pass/fail benchmark): Bun's CPU per OData read, layer by layer, in one process and
// without HTTP, on the data and query mix of bench:odata (odata-expand.bench.ts). Each layer
// answers the same requests with the same gzipped bytes; what differs is what runs before the
// statement. Before it is measured, every layer's answer to every path of the mix is checked
// against the bare layer's (non-empty, the same rows): a layer that answers something else
// (e.g. an empty list for want of the client settings) stops the probe. Prints, per layer,
// microseconds of this process's CPU per request (process.cpuUsage, user and system) and of the
// database's backends (/proc) at 8 requests in flight, and the PostgreSQL socket writes per request.
//
//   bun run tests/perf/odata-layers.probe.ts          (DATABASE_URL or the embedded test server)
//   PROBE_N=3000 PROBE_ROUNDS=2 to change the size; PROBE_LAYERS=1,6 for some layers only;
//   PROBE_SLICE=400 PROBE_ROUNDS=40: the chosen layers take turns, 400 requests each, 40 times,
//   and each layer's CPU is summed over its turns (steadier on a host whose speed drifts);
//   PROBE_SHARE=8 for another per-user share in the limits layer (default: the app's).
import net from "node:net";
import postgres from "postgres";
import { loadavg } from "node:os";
import { createTestDb } from "../helpers/db.ts";
import { cpuReading, cpuSpent } from "./load-servers.ts";
import { CLIENT, compiledMix, gzippedJson, mixKey, runMix, sameAnswers, seedMix } from "./odata-mix.ts";
import { connect, reconnectBackoff } from "../../api/src/db/client.ts";
import { stopTestServer } from "../helpers/server.ts";
import { login, realApp } from "../helpers/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { list } from "../../api/src/entities/service.ts";
import { readAsTenant, type TenantRequest } from "../../api/src/db/tx.ts";
import { requestGate } from "../../api/src/app.ts";
import { API_POOL_SIZE, DEFAULT_QUERY_LIMITS } from "../../api/src/config.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";

const USER = 9004;
const N = Number(process.env.PROBE_N ?? 3000);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 2);

// PostgreSQL socket writes (postgres.js writes through node:net).
const writes = { n: 0 };
const socketWrite = net.Socket.prototype.write;
net.Socket.prototype.write = function (this: net.Socket, ...args: Parameters<net.Socket["write"]>) {
  writes.n++;
  return socketWrite.apply(this, args);
} as net.Socket["write"];

const tdb = await createTestDb();
const db = tdb.db;
await seedMix(db);

const appDb = connect(tdb.url, { max: API_POOL_SIZE });
const { app } = await realApp(appDb);
const { token } = await login(app, "user@acme.test");
const [session] = await db<{ id: string }[]>`select id from auth_sessions where user_id = ${USER} order by created_at desc limit 1`;
const ctx: RequestCtx = { principal: { userId: USER, isStaff: false, isSuperAdmin: false }, clientId: CLIENT, descendants: false, sessionId: session!.id };
const statements = compiledMix(ctx);
// The statements read the request's client ids from settings (app_client_ids()): a pool that runs
// them alone needs the settings at connection start-up. The benchmark's bare pool (postgres()
// defaults), and the app's pool options (db/client.ts connect(): types, connect_timeout, backoff,
// onnotice, application_name) with the same start-up settings.
const settings = { "app.client_ids": String(CLIENT), "app.all_clients": "off" };
const bareDb = postgres(tdb.url, { max: API_POOL_SIZE, connection: settings as Record<string, string> });
const appOptsDb = postgres(tdb.url, {
  max: API_POOL_SIZE,
  prepare: true,
  onnotice: () => {},
  backoff: reconnectBackoff,
  connect_timeout: 5,
  types: { bigint: postgres.BigInt },
  connection: { application_name: "ideally", ...settings } as Record<string, string>,
});
const gate = requestGate({ ...DEFAULT_QUERY_LIMITS, userConnections: Number(process.env.PROBE_SHARE ?? DEFAULT_QUERY_LIMITS.userConnections) });

const gzipped = gzippedJson;
const statementOf = (req: Request) => statements.get(mixKey(req.url))!;
const tenant = (req: Request, limited: boolean): TenantRequest => ({
  userId: USER,
  clientId: CLIENT,
  descendants: false,
  sessionId: session!.id,
  limits: limited ? { statementTimeoutMs: DEFAULT_QUERY_LIMITS.statementTimeoutMs, signal: req.signal, gate } : undefined,
});
type Row = { value: string };
const layers: [string, (req: Request) => Promise<Response>][] = [
  [
    "the statement alone, bench:odata's bare pool",
    async (req) => {
      const st = statementOf(req);
      const [row] = (await bareDb.unsafe(st.text, st.params as never[], { prepare: true })) as unknown as Row[];
      return gzipped(`{"value":${row!.value}}`);
    },
  ],
  [
    "the statement alone, the app's pool options (connect())",
    async (req) => {
      const st = statementOf(req);
      const [row] = (await appOptsDb.unsafe(st.text, st.params as never[], { prepare: true })) as unknown as Row[];
      return gzipped(`{"value":${row!.value}}`);
    },
  ],
  [
    "reserve + the statement alone + release (app pool)",
    async (req) => {
      const st = statementOf(req);
      const c = await appOptsDb.reserve();
      try {
        const [row] = (await c.unsafe(st.text, st.params as never[], { prepare: true })) as unknown as Row[];
        return gzipped(`{"value":${row!.value}}`);
      } finally {
        c.release();
      }
    },
  ],
  [
    "readAsTenant (BEGIN and the entry, the statement, COMMIT: pipelined on a reserved connection)",
    async (req) => {
      const st = statementOf(req);
      const [row] = await readAsTenant<Row>(appDb, tenant(req, false), st.text, st.params);
      return gzipped(`{"value":${row!.value}}`);
    },
  ],
  [
    "service list() (compiled-statement cache, nextLink)",
    async (req) => {
      const u = new URL(req.url);
      return gzipped((await list(appDb, registry, registry.mustGet(u.pathname.split("/").at(-1)!), ctx, Object.fromEntries(u.searchParams), req.url)).join(""));
    },
  ],
  [
    "list() with the request's limits (gate, abort signal, timeout)",
    async (req) => {
      const u = new URL(req.url);
      const limited: RequestCtx = { ...ctx, limits: tenant(req, true).limits };
      return gzipped((await list(appDb, registry, registry.mustGet(u.pathname.split("/").at(-1)!), limited, Object.fromEntries(u.searchParams), req.url)).join(""));
    },
  ],
  ["the whole app (app.fetch, signed in)", async (req) => app.fetch(req)],
];
const headers = { authorization: `Bearer ${token}`, clientId: String(CLIENT), "accept-encoding": "gzip" };

const run = (fetchFn: (req: Request) => Promise<Response>, n: number) => runMix(fetchFn, n, headers);

await sameAnswers(layers, headers);

console.log(
  `load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}; ${N} requests per layer and round, 8 in flight`,
);
// PROBE_LAYERS=1,6 measures only those layers (1-based, in the order printed).
const chosen = process.env.PROBE_LAYERS?.split(",").map(Number);
const SLICE = Number(process.env.PROBE_SLICE ?? 0);
if (SLICE > 0) {
  // Interleaved: the chosen layers take turns, SLICE requests each, for ROUNDS turns; each layer's
  // CPU is summed over its slices, so a drift of the host's speed falls on every layer alike.
  const picked = layers.filter((_, i) => !chosen || chosen.includes(i + 1));
  for (const [, fetchFn] of picked) await run(fetchFn, 2000); // warm-up: JIT, prepared statements, caches
  const sums = picked.map(() => ({ us: 0, pgUs: 0, n: 0 }));
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [k, [, fetchFn]] of picked.entries()) {
      const pg0 = await cpuReading(db, process.pid);
      const c0 = process.cpuUsage();
      await run(fetchFn, SLICE);
      const c = process.cpuUsage(c0);
      sums[k]!.us += c.user + c.system;
      sums[k]!.pgUs += cpuSpent(pg0, await cpuReading(db, process.pid)).pgMs * 1000;
      sums[k]!.n += SLICE;
    }
  }
  for (const [k, [name]] of picked.entries()) {
    const s = sums[k]!;
    console.log(`${name.padEnd(64)} ${(s.us / s.n).toFixed(1).padStart(6)} us CPU/request; PostgreSQL ${(s.pgUs / s.n).toFixed(0).padStart(4)} us (${ROUNDS} turns of ${SLICE})`);
  }
} else {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [i, [name, fetchFn]] of layers.entries()) {
      if (chosen && !chosen.includes(i + 1)) continue;
      await run(fetchFn, 500); // warm-up: JIT, prepared statements, caches
      writes.n = 0;
      const pg0 = await cpuReading(db, process.pid);
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await run(fetchFn, N);
      const c = process.cpuUsage(c0);
      const ms = performance.now() - t0;
      const pgUs = (cpuSpent(pg0, await cpuReading(db, process.pid)).pgMs * 1000) / N;
      const us = (x: number) => (x / N).toFixed(0).padStart(4);
      console.log(
        `round ${round}  ${name.padEnd(64)} ${us(c.user + c.system)} us CPU/request (user ${us(c.user)}, system ${us(c.system)}; PostgreSQL ${pgUs.toFixed(0).padStart(4)})  ${((N / ms) * 1000).toFixed(0).padStart(5)} req/s  ${(writes.n / N).toFixed(2)} writes/request`,
      );
    }
  }
}

await bareDb.end();
await appOptsDb.end();
await appDb.end();
await tdb.drop();
await stopTestServer();
