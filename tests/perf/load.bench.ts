// bun run bench:load: the load test. A real server process (bun run api/src/server.ts) on the demo
// data (fielded projects with weighted results; seeded once and cloned per run, load-servers.ts),
// driven by wrk (Debian's, C + LuaJIT, not JavaScript) on loopback with a researcher's mix
// (tests/perf/load.lua), each run bounded to BENCH_SECONDS. Two modes:
//
//   bun run bench:load
//       rising connection counts (BENCH_CONNECTIONS, default 8,32,64), and in the same run wrk
//       against a bare Bun.serve + postgres.js handler (a tenant's project list as JSON, one
//       statement). Checks at the top level (the saturation point) that there were no errors and
//       no lost writes: every chat message answered 201 is in the database.
//   bun run bench:load --against <commit> [--against <commit> ...]
//       this checkout's server beside the server of each commit (a checkout in .tmp/, load-servers.ts),
//       each on its own clone of the same seeded database, at one connection count
//       (BENCH_CONNECTIONS, default 32). The servers take turns in short slices (BENCH_SLICE_SECONDS,
//       default 3; BENCH_PAIRS rounds, default 8): the one measured runs, the others are stopped
//       (SIGSTOP: no CPU, not even their job workers), so a shared host's drift hits both sides of a
//       round alike. The figure is the median of the rounds' ratios this/commit. Errors and lost
//       writes are checked on every side.
//   bun run bench:load --cluster
//       the same mix on one process beside four behind PgBouncer and a streaming replica
//       (load-cluster.bench.ts; also `bun run bench:load-cluster`).
//
// Needs wrk (apt-get install wrk) and DATABASE_URL (or the embedded test server). BENCH_PORT: the
// first of the ports used (the seeding server, then one per side); BENCH_DB_PREFIX: the databases'
// name prefix; BENCH_PROFILE=1: this checkout's server writes a CPU profile into .tmp/prof.
import { API_POOL_SIZE } from "../../api/src/config.ts";
import { randomPort } from "../helpers/port.ts";
import postgres from "postgres";
import { loadavg } from "node:os";
import { liveCall } from "../helpers/live.ts";
import { LEVELS, SECONDS, THREADS, wrk, type Run } from "./load-common.ts";
import { checkout, cpuReading, cpuSpent, ROOT, seededDemo, startServer, stopAll, type ServerHandle } from "./load-servers.ts";
import { median } from "./stats.ts";

if (process.argv.includes("--cluster")) {
  await import("./load-cluster.bench.ts"); // builds its own cluster, prints, and exits with its verdict
  process.exit(0);
}

const against: string[] = [];
process.argv.forEach((a, i) => {
  if (a === "--against") against.push(...(process.argv[i + 1] ?? "").split(",").filter(Boolean));
  else if (a.startsWith("--against=")) against.push(...a.slice(10).split(",").filter(Boolean));
});
const PORT0 = Number(process.env.BENCH_PORT ?? randomPort());
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 3);
const PAIRS = Number(process.env.BENCH_PAIRS ?? 8);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

interface Side {
  label: string;
  sha: string;
  note: string;
  server: ServerHandle;
  url: string;
  db: postgres.Sql;
  env: Record<string, string>;
  thread: number;
  singles: string[];
}

const dbs = await seededDemo(PORT0);
const sides: Side[] = [];
const cleanup = () => stopAll(sides, dbs);

/** Signs in on a side's server, opens a chat thread, checks the mix's calls and times each alone. */
async function prepare(label: string, root: string, sha: string, note: string, port: number): Promise<Side> {
  const url = await dbs.clone(label);
  // BENCH_PROFILE=1: this checkout's server writes a CPU profile (markdown) into .tmp/ when it stops.
  const prof = process.env.BENCH_PROFILE === "1" && root === ROOT ? ["--cpu-prof-md", `--cpu-prof-dir=${ROOT}/.tmp/prof`] : [];
  const server = await startServer(root, url, port, label, prof);
  const db = postgres(url, { max: 2, onnotice: () => {} });
  const side: Side = { label, sha, note, server, url, db, env: {}, thread: 0, singles: [] };
  sides.push(side);
  const login = await liveCall(server.base, null, null, "POST", "/auth/Login/PasswordLogin", { email: "user@acme.test", password: "ideally-demo" });
  if (login.status !== 200) throw new Error(`${label}: sign-in failed: ${JSON.stringify(login.body)}`);
  const token = login.body.accessToken as string;
  const [team] = await db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const [project] = await db<{ id: number }[]>`select id from projects where client_id = ${team!.id} and status_code >= 800 and project_type_id = 1 order by id limit 1`;
  const thread = await liveCall(server.base, token, team!.id, "POST", "/api/v1/ResultsAiThreads", { projectId: project!.id, title: "Load test" });
  if (thread.status !== 201) throw new Error(`${label}: thread: ${JSON.stringify(thread.body)}`);
  side.thread = thread.body.id as number;
  side.env = { BENCH_MODE: "mix", BENCH_TOKEN: token, BENCH_CLIENT: String(team!.id), BENCH_PROJECT: String(project!.id), BENCH_THREAD: String(side.thread) };
  // Each call of the mix alone (median of 10 sequential calls), to see where the mix's time goes.
  const single: [string, string, string, unknown?][] = [
    ["project list", "GET", "/api/v1/Projects?$top=20&$orderby=id%20desc&$select=id,projectName,statusCode&$expand=projectsRegions"],
    ["QualResults, filtered", "GET", `/api/v1/Responses/QualResults?projectId=${project!.id}&benchmarkTypeId=1&filters=${encodeURIComponent('{"regionIds":[1]}')}`],
    ["ResponsesCount", "GET", `/api/v1/Projects(${project!.id})/ResponsesCount?filters=${encodeURIComponent('{"regionIds":[1]}')}`],
    ["chat message POST", "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: side.thread, content: "Which concept wins?" }],
  ];
  side.singles = [];
  for (const [name, method, path, body] of single) {
    const ms: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const r = await liveCall(server.base, token, team!.id, method, path, body);
      ms.push(performance.now() - t0);
      if (r.status >= 300) throw new Error(`${label}: ${name}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
    }
    ms.sort((a, b) => a - b);
    side.singles.push(`${name} ${ms[5]!.toFixed(1)} ms`);
  }
  return side;
}

const messages = async (s: Side) =>
  (
    await s.db<{ q: number; a: number }[]>`
      select count(*) filter (where role = 'user')::int as q, count(*) filter (where role = 'assistant')::int as a
      from results_ai_messages where results_ai_thread_id = ${s.thread}`
  )[0]!;
const errorsOf = (r: Run) => r.non2xx + r.socketErrors + r.timeouts;
const f = (n: number, d = 0) => n.toFixed(d).padStart(8);

try {
  if (against.length === 0) await levels();
  else await versus();
} catch (e) {
  console.error(e);
  await cleanup();
  process.exit(1);
}

async function levels() {
  const side = await prepare("this", ROOT, "", "", PORT0 + 1);
  const [{ n: respondents }] = await side.db<{ n: number }[]>`select count(distinct survey_session_id)::int as n from responses where project_id = ${Number(side.env.BENCH_PROJECT)}`;
  // The baseline: a bare Bun.serve + postgres.js handler, the team's project list as JSON.
  const team = Number(side.env.BENCH_CLIENT);
  const bareDb = postgres(side.url, { max: API_POOL_SIZE });
  const bare = Bun.serve({
    port: PORT0 + 9,
    hostname: "127.0.0.1",
    async fetch() {
      const [row] = await bareDb`
        select coalesce(json_agg(t), '[]') as value from (
          select id, project_name as "projectName", status_code as "statusCode" from projects
          where client_id = ${team} and deleted_at is null order by id desc limit 20) t`;
      return new Response(JSON.stringify({ value: row!.value }), { headers: { "content-type": "application/json" } });
    },
  });
  const rows: { level: number; mix: Run; base: Run; lost: number }[] = [];
  await wrk(side.server.base, 4, side.env); // warm-up (statement caches, JIT)
  for (const level of LEVELS) {
    const before = (await messages(side)).q;
    const mix = await wrk(side.server.base, level, side.env);
    await Bun.sleep(500); // let in-flight writes finish
    const stored = (await messages(side)).q - before;
    const base = await wrk(`http://127.0.0.1:${bare.port}`, level, { BENCH_MODE: "baseline" });
    rows.push({ level, mix, base, lost: Math.max(0, mix.created - stored) });
  }
  bare.stop(true);
  await bareDb.end();

  console.log(`\nresearcher mix (40% project list, 25% QualResults with filters, 25% ResponsesCount, 10% chat message POST)`);
  console.log(
    `project ${side.env.BENCH_PROJECT}: ${respondents} respondents; ${THREADS} wrk threads, ${SECONDS} s per run, loopback, ${navigator.hardwareConcurrency} cores shared; load average ${load()}`,
  );
  console.log(`one call alone (median of 10): ${side.singles.join(", ")}`);
  console.log(`  conns |  mix req/s  p50 ms  p99 ms | bare req/s  p50 ms  p99 ms | mix/bare | errors | 201s stored/lost`);
  for (const r of rows) {
    console.log(
      `  ${String(r.level).padStart(5)} | ${f(r.mix.rps)}${f(r.mix.p50ms, 1)}${f(r.mix.p99ms, 1)} | ${f(r.base.rps)}${f(r.base.p50ms, 1)}${f(r.base.p99ms, 1)} | ${f(r.mix.rps / r.base.rps, 2)} | ${f(errorsOf(r.mix))} | ${r.mix.created}/${r.lost}`,
    );
  }
  const top = rows[rows.length - 1]!;
  const bad = errorsOf(top.mix);
  console.log(`\nat the saturation point (${top.level} connections): ${bad} errors, ${top.lost} lost writes (${top.mix.created} chat messages acknowledged)`);
  console.log(
    `BENCH_RESULT ${JSON.stringify({ bench: "load", figure: `${top.mix.rps.toFixed(0)} req/s at ${top.level} connections (bare ${top.base.rps.toFixed(0)})`, ok: !bad && !rows.some((r) => r.lost) })}`,
  );
  await cleanup();
  process.exit(bad || rows.some((r) => r.lost) ? 1 : 0);
}

async function versus() {
  const level = Number((process.env.BENCH_CONNECTIONS ?? "32").split(",").at(-1));
  const loadBefore = load();
  const base = await prepare("this", ROOT, "", "", PORT0 + 1);
  base.server.pause();
  for (const [i, c] of against.entries()) {
    const co = checkout(c);
    console.log(`${c} = ${co.sha.slice(0, 12)} in ${co.root} (${co.note})`);
    const s = await prepare(`c${i + 1}`, co.root, co.sha, co.note, PORT0 + 2 + i);
    s.server.pause();
  }
  const counts = new Map<Side, { q: number; a: number }>();
  for (const s of sides) {
    s.server.resume();
    await wrk(s.server.base, 4, s.env); // warm-up (statement caches, JIT, the columnar copy)
    await Bun.sleep(300);
    counts.set(s, await messages(s));
    s.server.pause();
  }
  const runs = new Map<Side, (Run & { bunMs: number; pgMs: number })[]>(sides.map((s) => [s, []]));
  const slice = { ...process.env } as Record<string, string>;
  for (let round = 0; round < PAIRS; round++) {
    // Each round starts with the next side: neither always measures right after the other.
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(round + k) % sides.length]!;
      s.server.resume();
      runs.get(s)!.push(await wrkFor(s, level, slice));
      s.server.pause();
    }
  }
  // The answers still queued when the slices end: each server alone answers its backlog (the
  // others stopped), and the CPU and time that takes are counted with its slices, so a side that
  // answered its questions during the slices is not compared with one that left them queued.
  const drains = new Map<Side, { ms: number; cpuMs: number; left: number }>();
  for (const s of sides) {
    s.server.resume();
    const before = await cpuOf(s);
    const t0 = performance.now();
    let m = await messages(s);
    for (let i = 0; i < 600 && m.a < m.q; i++) {
      await Bun.sleep(200);
      m = await messages(s);
    }
    const spent = cpuSpent(before, await cpuOf(s));
    drains.set(s, { ms: performance.now() - t0, cpuMs: spent.bunMs + spent.pgMs, left: m.q - m.a });
    s.server.pause();
  }
  for (const s of sides) s.server.resume();
  await Bun.sleep(2000); // in-flight writes finish
  const mine = runs.get(base)!;
  console.log(`\nresearcher mix (40% project list, 25% QualResults with filters, 25% ResponsesCount, 10% chat message POST)`);
  console.log(
    `${level} connections, ${THREADS} wrk threads, ${PAIRS} rounds of ${SLICE_SECONDS} s slices per server (the others stopped), loopback, ${navigator.hardwareConcurrency} cores shared; load average ${loadBefore} before, ${load()} after`,
  );
  let bad = 0;
  const verdicts: string[] = [];
  const whole = new Map<Side, { cpu: number; rate: number }>();
  for (const s of sides) {
    const rs = runs.get(s)!;
    const after = await messages(s);
    const before = counts.get(s)!;
    const acknowledged = rs.reduce((n, r) => n + r.created, 0);
    const stored = after.q - before.q;
    const lost = Math.max(0, acknowledged - stored);
    const errors = rs.reduce((n, r) => n + errorsOf(r), 0);
    bad += errors + lost;
    console.log(`\n${s.label === "this" ? "this checkout" : `${s.sha.slice(0, 12)} (${against[sides.indexOf(s) - 1]})`}`);
    console.log(`  one call alone (median of 10): ${s.singles.join(", ")}`);
    console.log(
      `  req/s per slice: ${rs.map((r) => r.rps.toFixed(0)).join(" ")}; median ${median(rs.map((r) => r.rps)).toFixed(0)}; p50 ${median(rs.map((r) => r.p50ms)).toFixed(1)} ms, p99 ${median(rs.map((r) => r.p99ms)).toFixed(1)} ms`,
    );
    const cpu = (r: Run & { bunMs: number; pgMs: number }) => (r.bunMs + r.pgMs) / r.requests;
    console.log(
      `  CPU per request (the server process + its database backends): median ${median(rs.map(cpu)).toFixed(2)} ms (Bun ${median(rs.map((r) => r.bunMs / r.requests)).toFixed(2)}, PostgreSQL ${median(rs.map((r) => r.pgMs / r.requests)).toFixed(2)})`,
    );
    const d = drains.get(s)!;
    const requests = rs.reduce((n, r) => n + r.requests, 0);
    const withAnswers = (rs.reduce((n, r) => n + r.bunMs + r.pgMs, 0) + d.cpuMs) / requests;
    const drainedRate = requests / (rs.length * SLICE_SECONDS + d.ms / 1000);
    whole.set(s, { cpu: withAnswers, rate: drainedRate });
    console.log(
      `  with its queued answers: ${(d.ms / 1000).toFixed(1)} s and ${(d.cpuMs / 1000).toFixed(1)} s of CPU after the slices${d.left ? ` (${d.left} still unanswered)` : ""}; ` +
        `CPU per request ${withAnswers.toFixed(2)} ms; ${drainedRate.toFixed(0)} req/s over slices + answering`,
    );
    console.log(`  errors ${errors}; chat messages acknowledged ${acknowledged}, stored ${stored}, lost ${lost}; answers stored by the end ${after.a - before.a} (of ${after.q - before.q} questions)`);
    if (s !== base) {
      // A slice in which a server answered nothing (stalled: seen once, 4 slices of 82586fa's in a
      // row at load average 20) says nothing about the other side: its round is left out, and shown.
      const valid = rs.map((r, i) => [mine[i]!, r] as const).filter(([a, b]) => a.requests > 0 && b.requests > 0);
      const ratios = valid.map(([a, b]) => a.rps / b.rps);
      const m = median(ratios);
      if (valid.length < rs.length) console.log(`  ${rs.length - valid.length} rounds left out: a server answered nothing in its slice`);
      const cpuRatio = whole.get(s)!.cpu / whole.get(base)!.cpu;
      const rateRatio = whole.get(base)!.rate / whole.get(s)!.rate;
      console.log(
        `  this/${s.sha.slice(0, 12)} per round: ${ratios.map((r) => r.toFixed(2)).join(" ")}; median ${m.toFixed(2)}; ` +
          `with the queued answers: CPU per request ${s.sha.slice(0, 7)}/this ${cpuRatio.toFixed(2)}, req/s this/${s.sha.slice(0, 7)} ${rateRatio.toFixed(2)}`,
      );
      verdicts.push(`${m.toFixed(2)}x ${s.sha.slice(0, 7)} (with the queued answers: ${rateRatio.toFixed(2)}x the req/s, ${cpuRatio.toFixed(2)}x less CPU per request)`);
    }
  }
  console.log(`\nthis checkout against ${verdicts.join(", ")} (median of the rounds' ratios); ${bad ? `${bad} errors or lost writes` : "no errors, no lost writes"}`);
  console.log(`BENCH_RESULT ${JSON.stringify({ bench: "load", figure: `${median(mine.map((r) => r.rps)).toFixed(0)} req/s at ${level} connections; ${verdicts.join(", ")}`, ok: !bad })}`);
  await cleanup();
  process.exit(bad ? 1 : 0);
}

/** The CPU so far of a side's server process and of its database's backends (PostgreSQL on this host). */
function cpuOf(s: Side) {
  return cpuReading(s.db, s.server.proc.pid);
}

/** One slice, with the CPU the server and its backends spent on it. */
async function wrkFor(s: Side, level: number, env: Record<string, string>): Promise<Run & { bunMs: number; pgMs: number }> {
  const before = await cpuOf(s);
  const r = await wrk(s.server.base, level, { ...env, ...s.env }, SLICE_SECONDS);
  return { ...r, ...cpuSpent(before, await cpuOf(s)) };
}
