// Benchmark (issue 38): no tenant can slow another. A real server process (`bun run
// api/src/server.ts`, its pool and gate as in production) on the fixtures, with Acme Team A's
// project 1001 grown to 900 sessions and 42,000 responses, so that the issue's flood call
//   GET /api/v1/Projects?$top=9&$expand=projectSurveySessions($top=1000;$expand=responses($top=1000))
// answers about 17 MB of JSON. Acme's admin, user and viewer each run 8 loops of it in parallel
// (fair-share-flood.ts, a process of its own; each loop calls again as soon as it is answered, 200
// or 503 alike) while Globex's admin makes a cheap call one after the other
// (`Projects?$top=1&$select=id`, one started every 20 ms, each after the one before has answered).
// Rounds alternate an idle slice and a flooded slice of the same length, so both see the same drift
// of a shared host; between slices the flood is stopped (its calls in flight aborted) and the
// database left to settle. The server's statement timeout is 30 s here (5 s in production), so that
// the flood's calls are answered in full even on a busy host (at 5 s and a load of 11 the call alone
// was stopped at the timeout): the server then also builds and sends its 17 MB answers, the work on
// the JavaScript thread a per-tenant share of the pool alone did not bound. Prints the cheap call's
// p50/p95/p99 idle and flooded (all rounds pooled), the flooded/idle ratio of each, each round's
// p95 ratio, what the flood got, and how three sign-ins at once right after each flood answered;
// exits non-zero when the pooled p95 ratio is above 3 (the issue's "done when").
//
//   bun run bench:fair                       (DATABASE_URL or the embedded test server)
//   BENCH_ROUNDS=3 BENCH_SLICE_S=15          rounds, seconds per slice (defaults)
//   BENCH_AGAINST=<commit> bun run bench:fair   the server of another commit (a checkout in .tmp/), for a before/after
//   BENCH_FLOOD=exports bun run bench:fair      the issue's other flood instead: Acme's viewer running 20 loops of
//                                               ExportExcel on the grown project (record 0134: 2 answered in the
//                                               request, the rest queued, 10 at most, then 429); each idle slice
//                                               starts once the queued exports are done
import { loadavg } from "node:os";
import { createTestDb } from "../helpers/db.ts";
import { freePort } from "../helpers/port.ts";
import { stopTestServer } from "../helpers/server.ts";
import { ROOT, checkout, startServer } from "./load-servers.ts";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SLICE_MS = Number(process.env.BENCH_SLICE_S ?? 15) * 1000;
/** A cheap call is started every PACE_MS (or as soon as the one before answers, if later). */
const PACE_MS = 20;
const GOAL = 3;
const EXPORTS = process.env.BENCH_FLOOD === "exports";
if (process.env.BENCH_FLOOD !== undefined && !EXPORTS) throw new Error(`BENCH_FLOOD: expected exports or unset, got '${process.env.BENCH_FLOOD}'`);
const COSTLY = EXPORTS ? "/api/v1/Projects(1001)/ExportExcel" : "/api/v1/Projects?$top=9&$expand=projectSurveySessions($top=1000;$expand=responses($top=1000))";
const CHEAP = "/api/v1/Projects?$top=1&$select=id";
const ACME_TEAM = "1003";
const GLOBEX = "2001";

const tdb = await createTestDb();
const db = tdb.db;
// 300 copies of project 1001's 3 sessions, each with 10 copies of its original's responses: ids
// far above the fixtures', triggers and foreign-key checks off (every copied key exists).
await db.begin(async (tx) => {
  await tx`set local session_replication_role = replica`;
  await tx`
    insert into project_survey_sessions (id, client_id, project_id, survey_session_id, survey_run_id, region_id, is_customer_panel, status, weight, week, completed_at, created_at, updated_at)
    select 1000000 + g * 10 + s.id % 10, client_id, project_id, 1000000 + g * 10 + s.id % 10, survey_run_id, region_id, is_customer_panel, status, weight, week,
           completed_at, created_at, updated_at
    from project_survey_sessions s cross join generate_series(1, 300) g where s.project_id = 1001`;
  await tx`
    insert into responses (id, client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, is_customer_panel,
                           project_question_id, question_id, standard_question_id, test_option_id, question_option_id, system_question_id,
                           system_question_option_id, standard_answer_value, numeric_value, created_at)
    select 10000000 + (g * 10 + r.project_survey_session_id % 10) * 1000 + k * 100 + r.id % 100, client_id, project_id, survey_run_id,
           1000000 + g * 10 + r.project_survey_session_id % 10, 1000000 + g * 10 + r.project_survey_session_id % 10, region_id,
           is_customer_panel, project_question_id, question_id, standard_question_id, test_option_id, question_option_id, system_question_id,
           system_question_option_id, standard_answer_value, numeric_value, created_at
    from responses r cross join generate_series(1, 300) g cross join generate_series(1, 10) k where r.project_id = 1001`;
});
await db`analyze`;

const against = process.env.BENCH_AGAINST;
const side = against ? checkout(against) : null;
if (side) console.log(`the server of ${side.sha.slice(0, 12)} (${side.note})`);
const commit = side?.sha ?? Bun.spawnSync(["git", "rev-parse", "HEAD"], { cwd: ROOT }).stdout.toString().trim();
process.env.STATEMENT_TIMEOUT_MS = "30000"; // the server's environment (startServer passes it on)
const server = await startServer(side?.root ?? ROOT, tdb.url, freePort(), "fair");
const base = server.base;

async function login(email: string): Promise<string> {
  const res = await fetch(`${base}/auth/Login/PasswordLogin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email, password: "Password123!" }) });
  if (!res.ok) throw new Error(`login ${email}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { accessToken: string }).accessToken;
}
const acme = await Promise.all(["admin@acme.test", "user@acme.test", "viewer@acme.test"].map(login));
const globex = await login("admin@globex.test");

/** One cheap call of Globex's; its time in ms (from the request to the last byte of the answer). */
async function cheap(): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(base + CHEAP, { headers: { authorization: `Bearer ${globex}`, clientId: GLOBEX } });
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`the cheap call answered ${res.status}: ${body.slice(0, 300)}`);
  return ms;
}
/** Cheap calls for `ms`, one every PACE_MS; their times. */
async function slice(ms: number): Promise<number[]> {
  const out: number[] = [];
  const end = performance.now() + ms;
  while (performance.now() < end) {
    const next = performance.now() + PACE_MS;
    out.push(await cheap());
    const rest = next - performance.now();
    if (rest > 0) await Bun.sleep(rest);
  }
  return out;
}

/** Statements running in the test database now, other than this process's. */
async function active(): Promise<number> {
  const [row] = await db<{ n: number }[]>`
    select count(*)::int as n from pg_stat_activity
    where datname = current_database() and pid <> pg_backend_pid() and state = 'active' and backend_type = 'client backend'`;
  return row!.n;
}
/** Export jobs queued and not done (BENCH_FLOOD=exports): the idle slice waits for none. */
async function pendingExports(): Promise<number> {
  const [row] = await db<{ n: number }[]>`select count(*)::int as n from pgboss.job where name = 'exports.data' and state in ('created', 'retry', 'active')`.catch(() => [{ n: 0 }]);
  return row!.n;
}
/** Polls (bounded) until `check` holds; whether it did. */
async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
  const end = performance.now() + ms;
  while (performance.now() < end) {
    if (await check()) return true;
    await Bun.sleep(100);
  }
  return check();
}

/** Nearest-rank percentile. */
function pct(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.max(0, Math.ceil(q * s.length) - 1)]!;
}

// Warm both calls (compiled statements, plans, the server's first answers), and weigh the flood's.
const t0 = performance.now();
const first = await fetch(base + COSTLY, { headers: { authorization: `Bearer ${acme[0]}`, clientId: ACME_TEAM } });
const firstBytes = (await first.arrayBuffer()).byteLength;
console.log(`the flood's call alone: ${first.status}, ${(firstBytes / 1e6).toFixed(1)} MB${EXPORTS ? "" : " of JSON"} in ${(performance.now() - t0).toFixed(0)} ms`);
await slice(1000);

const idle: number[] = [];
const flooded: number[] = [];
const roundRatios: number[] = [];
const floodTotals: Record<string, number> = {};
const signIns: Record<string, number> = {};
let floodBytes = 0;
const load0 = loadavg()[0]!;
for (let round = 1; round <= ROUNDS; round++) {
  if (EXPORTS && !(await until(async () => (await pendingExports()) === 0, 300_000))) console.log("  (the queued exports were not done within 300 s)");
  if (!(await until(async () => (await active()) === 0, 30_000))) console.log("  (the database did not settle within 30 s)");
  const calm = await slice(SLICE_MS);
  const flood = Bun.spawn(["bun", "run", "tests/perf/fair-share-flood.ts"], {
    cwd: ROOT,
    env: { ...process.env, FLOOD_BASE: base, FLOOD_PATH: COSTLY, FLOOD_CLIENT: ACME_TEAM, FLOOD_TOKENS: EXPORTS ? acme[2]! : acme.join(","), FLOOD_LOOPS: EXPORTS ? "20" : "8" },
    stdin: "pipe",
    stdout: "pipe",
  });
  const reader = flood.stdout.getReader();
  let out = "";
  while (!out.includes("FLOOD_STARTED")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the flood did not start: ${out}`);
    out += new TextDecoder().decode(value);
  }
  // The flood is on once its costly statements run.
  if (!(await until(async () => (await active()) >= 1, 10_000))) console.log("  (no costly statement seen running within 10 s)");
  const busy = await slice(SLICE_MS);
  flood.stdin.end();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out += new TextDecoder().decode(value);
  }
  await flood.exited;
  // The issue saw the first sign-ins right after such a flood answer 500: three at once, now.
  for (const res of await Promise.all(
    [1, 2, 3].map(() =>
      fetch(`${base}/auth/Login/PasswordLogin`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ email: "admin@globex.test", password: "Password123!" }) }),
    ),
  )) {
    signIns[res.status] = (signIns[res.status] ?? 0) + 1;
    await res.arrayBuffer();
  }
  const line = out.split("\n").find((l) => l.startsWith("FLOOD "));
  const got = line ? (JSON.parse(line.slice(6)) as { statuses: Record<string, number>; bytes: number }) : { statuses: {}, bytes: 0 };
  for (const [k, v] of Object.entries(got.statuses)) floodTotals[k] = (floodTotals[k] ?? 0) + v;
  floodBytes += got.bytes;
  idle.push(...calm);
  flooded.push(...busy);
  roundRatios.push(pct(busy, 0.95) / pct(calm, 0.95));
  console.log(
    `round ${round}: idle p50 ${pct(calm, 0.5).toFixed(1)} p95 ${pct(calm, 0.95).toFixed(1)} ms; flooded p50 ${pct(busy, 0.5).toFixed(1)} p95 ${pct(busy, 0.95).toFixed(1)} ms; p95 ratio ${roundRatios.at(-1)!.toFixed(2)}; flood answers ${JSON.stringify(got.statuses)}`,
  );
}
const load1 = loadavg()[0]!;

const row = (name: string, xs: number[]) => `${name}: p50 ${pct(xs, 0.5).toFixed(1)} ms, p95 ${pct(xs, 0.95).toFixed(1)} ms, p99 ${pct(xs, 0.99).toFixed(1)} ms (${xs.length} calls)`;
const ratio = (q: number) => pct(flooded, q) / pct(idle, q);
console.log(`\ncommit ${commit.slice(0, 12)}, ${ROUNDS} rounds of ${SLICE_MS / 1000} s slices, load average ${load0.toFixed(1)} -> ${load1.toFixed(1)}`);
console.log(row("Globex's cheap call, idle   ", idle));
console.log(row("Globex's cheap call, flooded", flooded));
console.log(`flooded/idle: p50 ${ratio(0.5).toFixed(2)}x, p95 ${ratio(0.95).toFixed(2)}x, p99 ${ratio(0.99).toFixed(2)}x; p95 ratio by round ${roundRatios.map((r) => r.toFixed(2)).join(", ")}`);
console.log(`the flood (${EXPORTS ? "the viewer x 20 loops of ExportExcel" : "3 users x 8 loops"}) got ${JSON.stringify(floodTotals)}, ${(floodBytes / 1e6).toFixed(0)} MB`);
console.log(`sign-ins right after each flood (3 at once): ${JSON.stringify(signIns)}`);
const ok = ratio(0.95) <= GOAL;
console.log(`goal: flooded p95 within ${GOAL}x the idle p95: ${ok ? "ok" : "NOT MET"}`);
console.log(
  `BENCH_RESULT ${JSON.stringify({ figure: `cheap call p95 idle ${pct(idle, 0.95).toFixed(1)} ms, flooded ${pct(flooded, 0.95).toFixed(1)} ms: ${ratio(0.95).toFixed(2)}x (p99 ${ratio(0.99).toFixed(2)}x)` })}`,
);

await server.stop();
await tdb.drop();
await stopTestServer();
process.exit(ok ? 0 : 1);
