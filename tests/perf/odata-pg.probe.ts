// Probe (not a pass/fail benchmark): PostgreSQL's CPU per OData read, piece by piece, on the data
// and query mix of bench:odata (odata-expand.bench.ts, odata-mix.ts). Each piece runs N requests
// of the mix one after another on ONE connection and reads that backend's CPU time from
// /proc/<pg_backend_pid()>/schedstat (nanoseconds; /proc/<pid>/stat's 10 ms ticks where schedstat
// is missing) before and after: time the backend spent on a CPU, whatever else the host runs, so
// the figure holds up on a loaded machine far better than a throughput. The server must be on this
// host and its /proc readable (DATABASE_URL on 127.0.0.1 as root, or the embedded test server).
//
//   bun run tests/perf/odata-pg.probe.ts          (DATABASE_URL or the embedded test server)
//   PROBE_N=2000 PROBE_ROUNDS=3 to change the size; PROBE_PIECES=1,6 for some pieces only; PROBE_EXPLAIN=1 also prints
//   EXPLAIN (ANALYZE, BUFFERS) of each statement as the owner and as the app role.
//   PROBE_CALLGRIND_OUT=/path/cg.%p PROBE_N=100: instructions per request instead, from a server
//   run under callgrind (see below): exact, whatever else the host runs.
import { existsSync, readFileSync } from "node:fs";
import { loadavg } from "node:os";
import { createTestDb } from "../helpers/db.ts";
import { CLIENT, compiledMix, seedMix } from "./odata-mix.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { stopTestServer } from "../helpers/server.ts";
import { login, realApp } from "../helpers/app.ts";
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
const statements = [...compiledMix(ctx)].map(([path, st]) => ({ path, ...st }));
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
async function oneConnection(setup?: string): Promise<{ c: Db; pid: number }> {
  const c = connect(tdb.url, { max: 1 });
  const [row] = await c<{ pid: number }[]>`select pg_backend_pid() as pid`;
  if (setup) await c.unsafe(setup);
  return { c, pid: row!.pid };
}
// The request's settings for the whole session (bench:odata's bare pool has them as start-up parameters).
const sessionSettings = `set app.client_ids = '${CLIENT}'; set app.all_clients = 'off'; set app.user_id = '${USER}'`;
const timeout = DEFAULT_QUERY_LIMITS.statementTimeoutMs;
const statement = (c: Db, i: number) => {
  const st = statements[i % statements.length]!;
  return c.unsafe(st.text, st.params as never[], { prepare: true });
};

interface Piece {
  name: string;
  /** Session settings the piece's connection starts with. */
  setup?: string;
  run(c: Db, i: number): Promise<unknown>;
}
const pieces: Piece[] = [
  // bench:odata's bare side.
  { name: "the statement alone, as the owner (bench:odata's bare side)", setup: sessionSettings, run: statement },
  // Row-level security without any entry: the app role for the whole session.
  { name: "the statement alone, as the app role under row-level security", setup: `${sessionSettings}; set role ${APP_ROLE}`, run: statement },
  { name: "BEGIN + COMMIT (simple queries)", run: (c) => Promise.all([c.unsafe("begin; select 1"), c.unsafe("commit")]) },
  {
    name: "BEGIN, the role and the statement timeout, COMMIT (no resume)",
    run: (c) => Promise.all([c.unsafe(`begin; set local role ${APP_ROLE}; set local statement_timeout = ${timeout}`), c.unsafe("commit")]),
  },
  { name: "the tenant entry alone (withTenant, nothing inside)", run: (c) => withTenant(c, tenant, async () => {}) },
  {
    name: "readAsTenant: BEGIN and the entry, the statement, COMMIT (pipelined)",
    run: (c, i) => {
      const st = statements[i % statements.length]!;
      return readAsTenant(c, tenant, st.text, st.params);
    },
  },
  // The same with a statement that reads nothing: what the settings and the entry cost in it.
  { name: "readAsTenant of `select $1::int`: the settings and the entry", run: (c, i) => readAsTenant(c, tenant, "select $1::int as n", [i]) },
];

const owner = await oneConnection(sessionSettings);
const rls = await oneConnection(`${sessionSettings}; set role ${APP_ROLE}`);
// Both sides must answer the same rows, or the comparison means nothing.
for (const st of statements) {
  const [a] = (await owner.c.unsafe(st.text, st.params as never[], { prepare: true })) as unknown as { value: string }[];
  const [b] = await readAsTenant<{ value: string }>(db, tenant, st.text, st.params);
  if (a!.value !== b!.value || a!.value === "[]") throw new Error(`owner and tenant answers differ or are empty: ${st.path}`);
}

if (process.env.PROBE_EXPLAIN) {
  for (const [who, p] of [
    ["owner", owner],
    ["app role", rls],
  ] as const) {
    for (const st of statements) {
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
await owner.c.end();
await rls.c.end();

// PROBE_PIECES=1,6,7: only those pieces (1-based, in the order printed).
const picked = pieces.filter(
  (_, i) =>
    !process.env.PROBE_PIECES ||
    process.env.PROBE_PIECES.split(",")
      .map(Number)
      .includes(i + 1),
);
const results = new Map<string, number[]>();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const callgrindOut = process.env.PROBE_CALLGRIND_OUT;
if (callgrindOut) {
  // Instructions instead of time, exact whatever the load: the server runs under
  //   valgrind --tool=callgrind --callgrind-out-file=<PROBE_CALLGRIND_OUT, with %p> postgres ...
  // and every backend writes its total when its connection ends. A piece runs W + N requests on
  // one new connection, then W + 2N on another: the difference over N is the requests' own cost,
  // without the connection's start and end.
  const W = 20;
  const total = async (piece: Piece, n: number) => {
    const { c, pid } = await oneConnection(piece.setup);
    for (let i = 0; i < W + n; i++) await piece.run(c, i);
    await c.end();
    const file = callgrindOut.replace("%p", String(pid));
    for (let k = 0; k < 300 && !existsSync(file); k++) await Bun.sleep(100);
    await Bun.sleep(300); // written whole
    return Number(/^totals: (\d+)/m.exec(readFileSync(file, "utf8"))![1]);
  };
  console.log(`callgrind: instructions per request (${N} requests per piece, one connection each)`);
  for (const piece of picked) {
    const ir = ((await total(piece, 2 * N)) - (await total(piece, N))) / N;
    console.log(`  ${piece.name.padEnd(66)} ${(ir / 1000).toFixed(0).padStart(6)}k`);
  }
} else {
  const conns = await Promise.all(picked.map((p) => oneConnection(p.setup)));
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}; ${N} sequential requests per piece and round, one connection each`,
  );
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [k, piece] of picked.entries()) {
      const { c, pid } = conns[k]!;
      for (let i = 0; i < 200; i++) await piece.run(c, i); // warm-up: prepared statements, plan caches
      const c0 = cpuNs(pid);
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await piece.run(c, i);
      const us = (cpuNs(pid) - c0) / 1000 / N;
      const wall = ((performance.now() - t0) * 1000) / N;
      (results.get(piece.name) ?? results.set(piece.name, []).get(piece.name)!).push(us);
      console.log(`round ${round}  ${piece.name.padEnd(66)} ${us.toFixed(1).padStart(6)} us PostgreSQL CPU/request  ${wall.toFixed(0).padStart(5)} us wall`);
    }
  }
  console.log(
    `\nmedians over ${ROUNDS} rounds (load average now ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")})`,
  );
  for (const [name, xs] of results) console.log(`  ${name.padEnd(66)} ${median(xs).toFixed(1).padStart(6)} us`);
  for (const { c } of conns) await c.end();
}

await tdb.drop();
await stopTestServer();
