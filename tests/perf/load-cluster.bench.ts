// bun run bench:load-cluster: the researcher mix (load.lua) against the production shape, beside
// the single process, in the same run and on the same database cluster (tests/helpers/cluster.ts:
// a primary, a pg_basebackup streaming replica, PgBouncer 1.18 in transaction mode):
//   1. one API process on the primary directly (today's deployment),
//   2. four API processes sharing one port (REUSE_PORT=1: the kernel spreads connections), with
//      DATABASE_URL at PgBouncer, DATABASE_DIRECT_URL at the primary and DATABASE_REPLICA_URL at
//      the replica (the results functions read there).
// Prints req/s and p50/p99 per connection level for both, their ratio, errors, and lost writes
// (every chat message answered 201 is in the database), and exits 1 on an error or a lost write.
//
//   bun run bench:load-cluster   (needs wrk, pgbouncer and PostgreSQL's server programs from Debian)
import { startCluster } from "../helpers/cluster.ts";
import { liveCall, liveMetrics, startServerProcess, type ServerProcess } from "../helpers/live.ts";
import { LEVELS, SECONDS, THREADS, wrk, type Run } from "./load-common.ts";

const PROCESSES = Number(process.env.BENCH_PROCESSES ?? 4);
const cluster = await startCluster({ fixtures: false });
const procs: ServerProcess[] = [];
const stopAll = async () => {
  await Promise.all(procs.splice(0).map((p) => p.stop()));
};

/** Waits until a process prints that it listens (several share a port: /openapi.json may be another's). */
async function listening(p: ServerProcess): Promise<void> {
  const reader = (p.proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let out = "";
  const until = Date.now() + 120_000;
  while (!out.includes("Ideally API on")) {
    const { done, value } = await reader.read();
    if (done || Date.now() > until) throw new Error(`a server process did not start: ${out}`);
    out += decoder.decode(value);
  }
  reader.releaseLock();
  // Keep draining its output so a full pipe never blocks it.
  void (p.proc.stdout as ReadableStream<Uint8Array>).pipeTo(new WritableStream());
}

try {
  console.log(`cluster up (primary, replica, PgBouncer); seeding the demo data through one process...`);
  const single = await startServerProcess(cluster.primaryUrl, { LOG_REQUESTS: "0" });
  procs.push(single);
  const login = await liveCall(single.base, null, null, "POST", "/auth/Login/PasswordLogin", { email: "user@acme.test", password: "ideally-demo" });
  if (login.status !== 200) throw new Error(`sign-in failed: ${JSON.stringify(login.body)}`);
  const token = login.body.accessToken as string;
  const [team] = await cluster.primary<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const [project] = await cluster.primary<{ id: number }[]>`select id from projects where client_id = ${team!.id} and status_code >= 800 and project_type_id = 1 order by id limit 1`;
  const thread = await liveCall(single.base, token, team!.id, "POST", "/api/v1/ResultsAiThreads", { projectId: project!.id, title: "Load test" });
  if (thread.status !== 201) throw new Error(`thread: ${JSON.stringify(thread.body)}`);
  const env = { BENCH_MODE: "mix", BENCH_TOKEN: token, BENCH_CLIENT: String(team!.id), BENCH_PROJECT: String(project!.id), BENCH_THREAD: String(thread.body.id) };
  const userMessages = async () => (await cluster.primary<{ n: number }[]>`select count(*)::int as n from results_ai_messages where results_ai_thread_id = ${thread.body.id} and role = 'user'`)[0]!.n;

  const measure = async (base: string) => {
    const rows: { level: number; run: Run; lost: number }[] = [];
    await wrk(base, 4, env); // warm-up
    for (const level of LEVELS) {
      const before = await userMessages();
      const run = await wrk(base, level, env);
      await Bun.sleep(500);
      const stored = (await userMessages()) - before;
      rows.push({ level, run, lost: Math.max(0, run.created - stored) });
    }
    return rows;
  };

  const one = await measure(single.base);
  await stopAll();

  // The same port for every process: the kernel balances new connections among them.
  const port = String(30000 + Math.floor(Math.random() * 5000));
  const env4 = { LOG_REQUESTS: "0", PORT: port, REUSE_PORT: "1", DATABASE_DIRECT_URL: cluster.primaryUrl, DATABASE_REPLICA_URL: cluster.replicaUrl };
  for (let i = 0; i < PROCESSES; i++) {
    const p = await startServerProcess(cluster.bouncerUrl, env4);
    procs.push(p);
    await listening(p);
  }
  await cluster.caughtUp();
  await Bun.sleep(1500); // each process polls the replica's lag once a second before using it
  const four = await measure(`http://127.0.0.1:${port}`);
  const metrics = await liveMetrics(`http://127.0.0.1:${port}`);
  const replicaReads = [...metrics.matchAll(/^ideally_replica_reads_total\{outcome="(\w+)"\} (\d+)/gm)].map((m) => `${m[1]} ${m[2]}`).join(", ");
  await stopAll();

  const f = (n: number, d = 0) => n.toFixed(d).padStart(8);
  const errs = (r: Run) => r.non2xx + r.socketErrors + r.timeouts;
  console.log(`\nresearcher mix (load.lua), project ${project!.id}; ${THREADS} wrk threads, ${SECONDS} s per run, loopback, ${navigator.hardwareConcurrency} cores shared`);
  console.log(`  conns | 1 process, direct      | ${PROCESSES} processes, PgBouncer + replica | ratio | errors 1/${PROCESSES} | lost 1/${PROCESSES}`);
  console.log(`        |  req/s  p50 ms  p99 ms |  req/s  p50 ms  p99 ms                |       |`);
  for (let i = 0; i < LEVELS.length; i++) {
    const a = one[i]!;
    const b = four[i]!;
    console.log(
      `  ${String(a.level).padStart(5)} |${f(a.run.rps)}${f(a.run.p50ms, 1)}${f(a.run.p99ms, 1)} |${f(b.run.rps)}${f(b.run.p50ms, 1)}${f(b.run.p99ms, 1)}                | ${f(b.run.rps / a.run.rps, 2)} | ${errs(a.run)}/${errs(b.run)} | ${a.lost}/${b.lost}`,
    );
  }
  console.log(`replica reads of one of the ${PROCESSES} processes: ${replicaReads || "none"}`);
  const bad = [...one, ...four].some((r) => errs(r.run) > 0 || r.lost > 0);
  await cluster.stop();
  process.exit(bad ? 1 : 0);
} catch (e) {
  console.error(e);
  await stopAll();
  await cluster.stop();
  process.exit(1);
}
