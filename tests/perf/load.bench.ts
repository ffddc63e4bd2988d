// bun run bench:load: the load test. A real server process (bun run api/src/server.ts) on a fresh
// database with the demo data (fielded projects with weighted results), driven by wrk (Debian's,
// C + LuaJIT, not JavaScript) on loopback with a researcher's mix (tests/perf/load.lua), at rising
// connection counts, each run bounded to BENCH_SECONDS; in the same run, wrk against a bare
// Bun.serve + postgres.js handler (the foundation benchmark's baseline: a tenant's project list
// as JSON, one statement). Prints throughput and p50/p99 per level, and checks at the top level
// (the saturation point) that there were no errors and no lost writes: every chat message
// answered 201 is in the database.
//
//   bun run bench:load        (needs wrk: apt-get install wrk; DATABASE_URL or the embedded test server)
//   bun run bench:load --cluster   the same mix on one process beside four behind PgBouncer and a
//                                  streaming replica, in one run (load-cluster.bench.ts; also
//                                  `bun run bench:load-cluster`)
import postgres from "postgres";
import { createTestDb } from "../helpers/db.ts";
import { stopTestServer } from "../helpers/server.ts";
import { liveCall, startServerProcess } from "../helpers/live.ts";

import { LEVELS, SECONDS, THREADS, wrk, type Run } from "./load-common.ts";

if (process.argv.includes("--cluster")) {
  await import("./load-cluster.bench.ts"); // builds its own cluster, prints, and exits with its verdict
  process.exit(0);
}

// A database with the demo data: the server seeds it at its first start (logins, and projects of
// every type fielded by the simulated panel).
const tdb = await createTestDb({ fixtures: false });
console.log("starting the server and seeding the demo data (fielding takes a few seconds)...");
const server = await startServerProcess(tdb.url, { LOG_REQUESTS: "0" });
const cleanup = async () => {
  await server.stop();
  await tdb.drop();
  await stopTestServer();
};
try {
  const login = await liveCall(server.base, null, null, "POST", "/auth/Login/PasswordLogin", { email: "user@acme.test", password: "ideally-demo" });
  if (login.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(login.body)}`);
  const token = login.body.accessToken as string;
  const [team] = await tdb.db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const [project] = await tdb.db<{ id: number }[]>`select id from projects where client_id = ${team!.id} and status_code >= 800 and project_type_id = 1 order by id limit 1`;
  const thread = await liveCall(server.base, token, team!.id, "POST", "/api/v1/ResultsAiThreads", { projectId: project!.id, title: "Load test" });
  if (thread.status !== 201) throw new Error(`thread: ${JSON.stringify(thread.body)}`);
  const env = { BENCH_MODE: "mix", BENCH_TOKEN: token, BENCH_CLIENT: String(team!.id), BENCH_PROJECT: String(project!.id), BENCH_THREAD: String(thread.body.id) };
  for (const path of [
    `/api/v1/Responses/QualResults?projectId=${project!.id}&benchmarkTypeId=1&filters=${encodeURIComponent('{"regionIds":[1]}')}`,
    `/api/v1/Projects(${project!.id})/ResponsesCount?filters=${encodeURIComponent("{}")}`,
  ]) {
    const r = await liveCall(server.base, token, team!.id, "GET", path);
    if (r.status !== 200) throw new Error(`${path}: ${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
  }
  // Each call of the mix alone (median of 10 sequential calls), to see where the mix's time goes.
  const single: [string, string, string, unknown?][] = [
    ["project list", "GET", "/api/v1/Projects?$top=20&$orderby=id%20desc&$select=id,projectName,statusCode&$expand=projectsRegions"],
    ["QualResults, filtered", "GET", `/api/v1/Responses/QualResults?projectId=${project!.id}&benchmarkTypeId=1&filters=${encodeURIComponent('{"regionIds":[1]}')}`],
    ["ResponsesCount", "GET", `/api/v1/Projects(${project!.id})/ResponsesCount?filters=${encodeURIComponent('{"regionIds":[1]}')}`],
    ["chat message POST", "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: thread.body.id, content: "Which concept wins?" }],
  ];
  const medians: string[] = [];
  for (const [name, method, path, body] of single) {
    const ms: number[] = [];
    for (let i = 0; i < 10; i++) {
      const t0 = performance.now();
      const r = await liveCall(server.base, token, team!.id, method, path, body);
      ms.push(performance.now() - t0);
      if (r.status >= 300) throw new Error(`${name}: ${r.status}`);
    }
    ms.sort((a, b) => a - b);
    medians.push(`${name} ${ms[5]!.toFixed(1)} ms`);
  }
  const [{ n: respondents }] = await tdb.db<{ n: number }[]>`select count(distinct survey_session_id)::int as n from responses where project_id = ${project!.id}`;

  // The baseline: a bare Bun.serve + postgres.js handler, the team's project list as JSON.
  const bareDb = postgres(tdb.url, { max: 10 });
  const bare = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch() {
      const [row] = await bareDb`
        select coalesce(json_agg(t), '[]') as value from (
          select id, project_name as "projectName", status_code as "statusCode" from projects
          where client_id = ${team!.id} and deleted_at is null order by id desc limit 20) t`;
      return new Response(JSON.stringify({ value: row!.value }), { headers: { "content-type": "application/json" } });
    },
  });

  const userMessages = async () =>
    (await tdb.db<{ n: number }[]>`select count(*)::int as n from results_ai_messages where results_ai_thread_id = ${thread.body.id} and role = 'user'`)[0]!.n;
  const rows: { level: number; mix: Run; base: Run; lost: number; inFlight: number }[] = [];
  await wrk(server.base, 4, { ...env, BENCH_MODE: "mix" }); // warm-up (statement caches, JIT)
  for (const level of LEVELS) {
    const before = await userMessages();
    const mix = await wrk(server.base, level, env);
    await Bun.sleep(500); // let in-flight writes finish
    const stored = (await userMessages()) - before;
    const base = await wrk(`http://127.0.0.1:${bare.port}`, level, { BENCH_MODE: "baseline" });
    rows.push({ level, mix, base, lost: Math.max(0, mix.created - stored), inFlight: stored - mix.created });
  }
  bare.stop(true);
  await bareDb.end();

  const f = (n: number, d = 0) => n.toFixed(d).padStart(8);
  console.log(`\nresearcher mix (40% project list, 25% QualResults with filters, 25% ResponsesCount, 10% chat message POST)`);
  console.log(`project ${project!.id}: ${respondents} respondents; ${THREADS} wrk threads, ${SECONDS} s per run, loopback, ${navigator.hardwareConcurrency} cores shared`);
  console.log(`one call alone (median of 10): ${medians.join(", ")}`);
  console.log(`  conns |  mix req/s  p50 ms  p99 ms | bare req/s  p50 ms  p99 ms | mix/bare | errors | 201s stored/lost`);
  for (const r of rows) {
    const errors = r.mix.non2xx + r.mix.socketErrors + r.mix.timeouts;
    console.log(
      `  ${String(r.level).padStart(5)} | ${f(r.mix.rps)}${f(r.mix.p50ms, 1)}${f(r.mix.p99ms, 1)} | ${f(r.base.rps)}${f(r.base.p50ms, 1)}${f(r.base.p99ms, 1)} | ${f(r.mix.rps / r.base.rps, 2)} | ${f(errors)} | ${r.mix.created}/${r.lost}`,
    );
  }
  const top = rows[rows.length - 1]!;
  const bad = top.mix.non2xx + top.mix.socketErrors + top.mix.timeouts;
  console.log(`\nat the saturation point (${top.level} connections): ${bad} errors, ${top.lost} lost writes (${top.mix.created} chat messages acknowledged)`);
  await cleanup();
  process.exit(bad || rows.some((r) => r.lost) ? 1 : 0);
} catch (e) {
  console.error(e);
  await cleanup();
  process.exit(1);
}
