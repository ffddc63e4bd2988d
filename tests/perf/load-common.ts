// What both load benchmarks share (load.bench.ts, load-cluster.bench.ts): wrk (Debian's, C +
// LuaJIT) on loopback with the researcher's mix of load.lua, bounded to BENCH_SECONDS a run.
import { resolve } from "node:path";

export const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
export const LEVELS = (process.env.BENCH_CONNECTIONS ?? "8,32,64").split(",").map(Number);
export const THREADS = 2;
const LUA = resolve(import.meta.dir, "load.lua");

if (Bun.spawnSync(["which", "wrk"]).exitCode !== 0) {
  console.error("bench:load needs wrk (Debian: apt-get install wrk)");
  process.exit(2);
}

export interface Run {
  requests: number;
  seconds: number;
  rps: number;
  p50ms: number;
  p99ms: number;
  maxms: number;
  non2xx: number;
  socketErrors: number;
  timeouts: number;
  created: number;
  posted: number;
}

export async function wrk(url: string, connections: number, env: Record<string, string>, seconds = SECONDS): Promise<Run> {
  const p = Bun.spawn(["wrk", `-t${THREADS}`, `-c${connections}`, `-d${seconds}s`, "--timeout", "10s", "-s", LUA, url], {
    env: { ...process.env, ...env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const out = await new Response(p.stdout).text();
  await p.exited;
  const line = out.split("\n").find((l) => l.startsWith("BENCH "));
  if (!line) throw new Error(`wrk printed no result: ${out} ${await new Response(p.stderr).text()}`);
  return JSON.parse(line.slice(6)) as Run;
}
