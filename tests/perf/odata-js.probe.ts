// Probe (not a pass/fail benchmark): the JavaScript alone of an OData read, layer by layer, with
// PostgreSQL taken out. The app, its middleware, the service and readAsTenant run as in
// odata-layers.probe.ts, but on a stand-in connection pool that answers every statement from
// memory with the rows PostgreSQL gave for it once (the tenant entry answers "remembered"), so
// what is measured is this process's own work per request, without socket reads, wake-ups or the
// per-user share's effect on how many statements are in flight. Every layer's answer to every path
// of the mix is checked against the first layer's before measuring. Prints microseconds of CPU per
// request (process.cpuUsage) at 8 requests in flight.
//
//   bun run tests/perf/odata-js.probe.ts      (DATABASE_URL or the embedded test server)
//   PROBE_N=10000 PROBE_ROUNDS=3 PROBE_LAYERS=1,5 to change the size or pick layers.
import postgres from "postgres";
import { loadavg } from "node:os";
import { createTestDb } from "../helpers/db.ts";
import { CLIENT, compiledMix, gzippedJson, mixKey, runMix, sameAnswers, seedMix } from "./odata-mix.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { stopTestServer } from "../helpers/server.ts";
import { login, realApp } from "../helpers/app.ts";
import { newApp, requestGate } from "../../api/src/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { list } from "../../api/src/entities/service.ts";
import { readAsTenant, type TenantRequest } from "../../api/src/db/tx.ts";
import { DEFAULT_QUERY_LIMITS } from "../../api/src/config.ts";
import { bearerAuthenticate } from "../../api/src/auth/authenticate.ts";
import { outboxMailer } from "../../api/src/email/mailer.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";

const USER = 9004;
const N = Number(process.env.PROBE_N ?? 10000);
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 3);

const tdb = await createTestDb();
await seedMix(tdb.db);
const realDb = connect(tdb.url, { max: 4 });
const { app: real, key } = await realApp(realDb);
const { token } = await login(real, "user@acme.test");
const [session] = await tdb.db<{ id: string }[]>`select id from auth_sessions where user_id = ${USER} order by created_at desc limit 1`;
const ctx: RequestCtx = { principal: { userId: USER, isStaff: false, isSuperAdmin: false }, clientId: CLIENT, descendants: false, sessionId: session!.id };

// The rows PostgreSQL answers for each statement of the mix, read once with the client settings.
const ownerDb = postgres(tdb.url, { max: 1, connection: { "app.client_ids": String(CLIENT), "app.all_clients": "off" } as Record<string, string> });
const answers = new Map<string, unknown[]>();
const statements = compiledMix(ctx);
for (const st of statements.values()) {
  answers.set(st.text + JSON.stringify(st.params), [...(await ownerDb.unsafe(st.text, st.params as never[]))]);
}
await ownerDb.end();

// The stand-in pool: reserve() hands out a connection that answers from memory. The first entry
// is decided (a User of the client, epoch 1); later ones carry the remembered settings and are
// answered "unchanged" (null), as app_tenant_resume does while nothing changed.
const conn = {
  unsafe(text: string, params?: unknown[]): Promise<unknown> {
    if (text.startsWith("begin;")) return Promise.resolve([[], [], [{ outcome: !text.includes("null, null) as outcome") ? null : `2|1|${CLIENT}|off|` }]]);
    if (text === "commit" || text === "rollback") return Promise.resolve([]);
    const a = answers.get(text + JSON.stringify(params));
    return a ? Promise.resolve(a) : Promise.reject(new Error(`no answer for ${text.slice(0, 80)}`));
  },
  release() {},
};
const memDb = { reserve: async () => conn, unsafe: conn.unsafe, options: { prepare: true } } as unknown as Db;
const app = newApp({ db: memDb, registry, mailer: outboxMailer(memDb, { publicUrl: "http://ideally.test" }), authenticate: bearerAuthenticate(key) });
const gate = requestGate(DEFAULT_QUERY_LIMITS);

const gzipped = gzippedJson;
const tenant: TenantRequest = { userId: USER, clientId: CLIENT, descendants: false, sessionId: session!.id };
const setOf = (u: URL) => registry.mustGet(u.pathname.split("/").at(-1)!);
type Row = { value: string };
const layers: [string, (req: Request) => Promise<Response>][] = [
  [
    "the answer alone (gzipped)",
    async (req) => {
      const st = statements.get(mixKey(req.url))!;
      const [row] = (await conn.unsafe(st.text, st.params)) as Row[];
      return gzipped(`{"value":${row!.value}}`);
    },
  ],
  [
    "readAsTenant",
    async (req) => {
      const st = statements.get(mixKey(req.url))!;
      const [row] = await readAsTenant<Row>(memDb, tenant, st.text, st.params);
      return gzipped(`{"value":${row!.value}}`);
    },
  ],
  [
    "service list()",
    async (req) => {
      const u = new URL(req.url);
      return gzipped((await list(memDb, registry, setOf(u), ctx, Object.fromEntries(u.searchParams), req.url)).join(""));
    },
  ],
  [
    "list() with the request's limits",
    async (req) => {
      const u = new URL(req.url);
      const limited: RequestCtx = { ...ctx, limits: { statementTimeoutMs: DEFAULT_QUERY_LIMITS.statementTimeoutMs, signal: req.signal, gate } };
      return gzipped((await list(memDb, registry, setOf(u), limited, Object.fromEntries(u.searchParams), req.url)).join(""));
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
    .join(" ")}; ${N} requests per layer and round, 8 in flight, no PostgreSQL`,
);
const chosen = process.env.PROBE_LAYERS?.split(",").map(Number);
for (let round = 1; round <= ROUNDS; round++) {
  for (const [i, [name, fetchFn]] of layers.entries()) {
    if (chosen && !chosen.includes(i + 1)) continue;
    await run(fetchFn, 1000); // warm-up
    Bun.gc(true);
    const c0 = process.cpuUsage();
    await run(fetchFn, N);
    const c = process.cpuUsage(c0);
    console.log(`round ${round}  ${name.padEnd(40)} ${((c.user + c.system) / N).toFixed(1).padStart(6)} us CPU/request`);
  }
}

await realDb.end();
await tdb.drop();
await stopTestServer();
