// Probe (not a pass/fail benchmark): the server CPU per request of each of the researcher mix's
// calls alone (load.lua's one-call modes), on the seeded demo database of bench:load, for this
// checkout and optionally other commits in the same run. Each side is a real server process
// (`bun run api/src/server.ts`) on its own clone of the seed; the sides take turns (the others
// stopped with SIGSTOP), PROBE_ROUNDS rounds of one PROBE_SECONDS slice per mode; the CPU is read
// from /proc for the server process and its database's backends before and after each slice.
// Printed per side and mode: the median over rounds of req/s and of CPU per request (Bun,
// PostgreSQL). CPU per request is what a shared host's load disturbs least.
//
//   BENCH_DB_PREFIX=h4 DATABASE_URL=... bun run tests/perf/load-modes.probe.ts [--against <commit>]
//   PROBE_MODES=results,count,list (default results,count), PROBE_ROUNDS=4, PROBE_SECONDS=4,
//   BENCH_CONNECTIONS=8.
import { randomPort } from "../helpers/port.ts";
import postgres from "postgres";
import { loadavg } from "node:os";
import { liveCall } from "../helpers/live.ts";
import { wrk, type Run } from "./load-common.ts";
import { checkout, cpuReading, cpuSpent, ROOT, seededDemo, startServer, stopAll, type ServerHandle } from "./load-servers.ts";
import { median } from "./stats.ts";

const against: string[] = [];
process.argv.forEach((a, i) => {
  if (a === "--against") against.push(process.argv[i + 1] ?? "");
});
const MODES = (process.env.PROBE_MODES ?? "results,count").split(",");
const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 4);
const SECONDS = Number(process.env.PROBE_SECONDS ?? 4);
const CONNS = Number(process.env.BENCH_CONNECTIONS ?? 8);
const PORT0 = Number(process.env.BENCH_PORT ?? randomPort());
const load = () =>
  loadavg()
    .map((x) => x.toFixed(1))
    .join(" ");

interface Side {
  label: string;
  server: ServerHandle;
  db: postgres.Sql;
  env: Record<string, string>;
}

const dbs = await seededDemo(PORT0);
const sides: Side[] = [];

async function prepare(label: string, root: string, port: number): Promise<Side> {
  const url = await dbs.clone(label);
  const prof = process.env.PROBE_PROFILE === "1" && root === ROOT ? ["--cpu-prof-md", `--cpu-prof-dir=${ROOT}/.tmp/prof`] : [];
  const server = await startServer(root, url, port, label, prof);
  const db = postgres(url, { max: 2, onnotice: () => {} });
  const side: Side = { label, server, db, env: {} };
  sides.push(side);
  const login = await liveCall(server.base, null, null, "POST", "/auth/Login/PasswordLogin", { email: "user@acme.test", password: "ideally-demo" });
  if (login.status !== 200) throw new Error(`${label}: sign-in failed: ${JSON.stringify(login.body)}`);
  const [team] = await db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const [project] = await db<{ id: number }[]>`select id from projects where client_id = ${team!.id} and status_code >= 800 and project_type_id = 1 order by id limit 1`;
  side.env = { BENCH_TOKEN: login.body.accessToken as string, BENCH_CLIENT: String(team!.id), BENCH_PROJECT: String(project!.id), BENCH_THREAD: "0" };
  return side;
}

const cpuOf = (s: Side) => cpuReading(s.db, s.server.proc.pid);

type Slice = Run & { bunMs: number; pgMs: number };
const runs = new Map<string, Slice[]>();
try {
  const me = await prepare("this", ROOT, PORT0 + 1);
  me.server.pause();
  for (const [i, c] of against.entries()) {
    const co = checkout(c);
    console.log(`${c} = ${co.sha.slice(0, 12)} (${co.note})`);
    (await prepare(c, co.root, PORT0 + 2 + i)).server.pause();
  }
  const loadBefore = load();
  for (const s of sides) {
    s.server.resume();
    for (const mode of MODES) await wrk(s.server.base, 4, { ...s.env, BENCH_MODE: mode }, 2); // warm-up
    s.server.pause();
  }
  for (let round = 0; round < ROUNDS; round++) {
    for (let k = 0; k < sides.length; k++) {
      const s = sides[(round + k) % sides.length]!;
      s.server.resume();
      for (const mode of MODES) {
        const before = await cpuOf(s);
        const r = await wrk(s.server.base, CONNS, { ...s.env, BENCH_MODE: mode }, SECONDS);
        const key = `${s.label} ${mode}`;
        (runs.get(key) ?? runs.set(key, []).get(key)!).push({ ...r, ...cpuSpent(before, await cpuOf(s)) });
      }
      s.server.pause();
    }
  }
  console.log(`\n${CONNS} connections, ${ROUNDS} rounds of ${SECONDS} s per mode and side; load average ${loadBefore} before, ${load()} after`);
  console.log(`side       mode      req/s   CPU ms/req (Bun + PostgreSQL)   errors   per round`);
  for (const [key, rs] of runs) {
    const [label, mode] = key.split(" ");
    const cpu = rs.map((r) => (r.bunMs + r.pgMs) / r.requests);
    console.log(
      `${label!.padEnd(10)} ${mode!.padEnd(8)} ${median(rs.map((r) => r.rps))
        .toFixed(0)
        .padStart(
          6,
        )}   ${median(cpu).toFixed(3)} (${median(rs.map((r) => r.bunMs / r.requests)).toFixed(3)} + ${median(rs.map((r) => r.pgMs / r.requests)).toFixed(3)})   ${String(rs.reduce((n, r) => n + r.non2xx + r.socketErrors + r.timeouts, 0)).padStart(6)}   ${cpu.map((x) => x.toFixed(2)).join(" ")}`,
    );
  }
} finally {
  await stopAll(sides, dbs);
}
process.exit(0);
