// bun run tests/perf/chat.probe.ts: what one results-chat question costs the server, apart from the
// rest of bench:load's mix (docs/performance.md, "The researcher mix under load"). On a clone of the
// bench:load demo database (load-servers.ts; BENCH_DB_PREFIX names it), in two phases:
//   1. the POST alone: a server with its job workers off (RUN_WORKERS=0) takes load.lua's chat
//      message (BENCH_MODE=chat, the mix's question) for CHAT_PROBE_SECONDS (default 6) at 8
//      connections; CPU per POST of the server process and of its database's backends (/proc);
//   2. the answers alone: that server stops and one with its workers on (concurrency 2, as in the
//      mix) answers the queued questions; after the first 20 (warm-up: JIT, the columnar copy),
//      CPU per answer, again server + backends, and the size of the stored debug transcript.
// CHAT_PROBE_PROFILE=1 (or answer): the answering server writes a CPU profile (markdown) into
// .tmp/prof-chat; CHAT_PROBE_PROFILE=post: the posting server does.
import { randomPort } from "../helpers/port.ts";
import postgres from "postgres";
import { loadavg } from "node:os";
import { liveCall } from "../helpers/live.ts";
import { stopTestServer } from "../helpers/server.ts";
import { wrk } from "./load-common.ts";
import { cpuReading, cpuSpent, ROOT, seededDemo, startServer } from "./load-servers.ts";

const PORT0 = Number(process.env.BENCH_PORT ?? randomPort());
const SECONDS = Number(process.env.CHAT_PROBE_SECONDS ?? 6);
const WARM = 20;

const dbs = await seededDemo(PORT0);
const url = await dbs.clone("chatprobe");
const db = postgres(url, { max: 2, onnotice: () => {} });
const cpuOf = (pid: number) => cpuReading(db, pid);
const counts = async (thread: number) =>
  (
    await db<{ q: number; a: number }[]>`
      select count(*) filter (where role = 'user')::int as q, count(*) filter (where role = 'assistant')::int as a
      from results_ai_messages where results_ai_thread_id = ${thread}`
  )[0]!;

try {
  process.env.RUN_WORKERS = "0";
  const profile = (phase: string) => (process.env.CHAT_PROBE_PROFILE === phase ? ["--cpu-prof-md", `--cpu-prof-dir=${ROOT}/.tmp/prof-chat`] : []);
  const posting = await startServer(ROOT, url, PORT0 + 1, "chatprobe-post", profile("post"));
  delete process.env.RUN_WORKERS;
  const login = await liveCall(posting.base, null, null, "POST", "/auth/Login/PasswordLogin", { email: "user@acme.test", password: "ideally-demo" });
  const token = login.body.accessToken as string;
  const [team] = await db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const [project] = await db<{ id: number }[]>`select id from projects where client_id = ${team!.id} and status_code >= 800 and project_type_id = 1 order by id limit 1`;
  const thread = (await liveCall(posting.base, token, team!.id, "POST", "/api/v1/ResultsAiThreads", { projectId: project!.id, title: "Chat probe" })).body.id as number;
  const env = { BENCH_MODE: "chat", BENCH_TOKEN: token, BENCH_CLIENT: String(team!.id), BENCH_PROJECT: String(project!.id), BENCH_THREAD: String(thread) };
  await wrk(posting.base, 4, env, 2); // warm-up
  const p0 = await cpuOf(posting.proc.pid);
  const run = await wrk(posting.base, 8, env, SECONDS);
  const p1 = await cpuOf(posting.proc.pid);
  const post = cpuSpent(p0, p1);
  await posting.stop();

  const answering = await startServer(ROOT, url, PORT0 + 2, "chatprobe-answer", [...profile("1"), ...profile("answer")]);
  let m = await counts(thread);
  for (let i = 0; i < 600 && m.a < WARM; i++) {
    await Bun.sleep(50);
    m = await counts(thread);
  }
  const a0 = await cpuOf(answering.proc.pid);
  const t0 = performance.now();
  const from = m.a;
  for (let i = 0; i < 6000 && m.a < m.q; i++) {
    await Bun.sleep(50);
    m = await counts(thread);
  }
  const ms = performance.now() - t0;
  const a1 = await cpuOf(answering.proc.pid);
  const ans = cpuSpent(a0, a1);
  const n = m.a - from;
  const [size] = await db<{ debug: number; refs: number; content: string }[]>`
    select avg(length(debug::text))::int as debug, avg(length(references_data::text))::int as refs, max(content) as content
    from results_ai_messages where results_ai_thread_id = ${thread} and role = 'assistant'`;
  await answering.stop();
  console.log(
    `chat probe, load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(" ")}`,
  );
  console.log(
    `POST (workers off, 8 connections, ${SECONDS} s): ${run.requests} requests, ${run.rps.toFixed(0)} req/s, p50 ${run.p50ms.toFixed(1)} ms, errors ${run.non2xx + run.socketErrors + run.timeouts}`,
  );
  console.log(`  CPU per POST: Bun ${(post.bunMs / run.requests).toFixed(2)} ms, PostgreSQL ${(post.pgMs / run.requests).toFixed(2)} ms`);
  console.log(`answers (after ${from} warm-up answers): ${n} in ${(ms / 1000).toFixed(1)} s${m.a < m.q ? ` (${m.q - m.a} left)` : ""}`);
  console.log(`  CPU per answer: Bun ${(ans.bunMs / n).toFixed(2)} ms, PostgreSQL ${(ans.pgMs / n).toFixed(2)} ms; stored debug ${size!.debug} chars, referencesData ${size!.refs} chars`);
  console.log(`  an answer: ${size!.content}`);
  console.log(`CHAT_PROBE ${JSON.stringify({ postBun: post.bunMs / run.requests, postPg: post.pgMs / run.requests, ansBun: ans.bunMs / n, ansPg: ans.pgMs / n, debug: size!.debug })}`);
} finally {
  await db.end({ timeout: 1 });
  await dbs.dropClones();
  await dbs.end();
  await stopTestServer();
}
