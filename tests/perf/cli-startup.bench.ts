// Benchmark: how fast `ideally --help` starts, as the compiled binary (bun run build:cli) against
// `bun run cli/src/main.ts --help`, in one run: alternating pairs, so the load of a shared host
// hits both sides alike. Reports wall and CPU time (the child's user + system, which the host's
// load barely moves) and checks that the entry chunk holds no Ink or React (they load only in
// `projects watch`). Exits non-zero when the binary's median wall time is 100 ms or more.
//
//   bun run bench:cli
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCli, cliBuildOptions } from "../../scripts/build-cli.ts";
import { median } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "../..");
const GOAL_MS = 100;
const PAIRS = Number(process.env.BENCH_PAIRS ?? 30);
const dir = mkdtempSync(join(tmpdir(), "ideally-bench-"));
const bin = join(dir, "ideally");

try {
  await buildCli(bin);

  // The entry chunk and what it imports statically: no Ink, no React.
  const out = join(dir, "split");
  // The same bundle as JavaScript (bytecode needs --compile), to read what the entry imports.
  const built = await Bun.build({ ...cliBuildOptions(ROOT), bytecode: false, outdir: out });
  if (!built.success) throw new Error(built.logs.join("\n"));
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(join(out, file), "utf8").matchAll(/(?:^|[;}\n])import\s*(?:[\w${},\s*]+from\s*)?"\.\/([^"]+)"/g)) visit(m[1]);
  };
  visit("main.js");
  const eager = [...seen].map((f) => readFileSync(join(out, f), "utf8")).join("\n");
  const inkInEntry = /react-reconciler|ReactCurrentOwner|__CLIENT_INTERNALS|useInput|yoga/i.test(eager);
  const eagerBytes = eager.length;

  const run = (cmd: string[]) => {
    const t0 = performance.now();
    const r = Bun.spawnSync(cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1" } });
    const wall = performance.now() - t0;
    if (r.exitCode !== 0 || !r.stdout.toString().startsWith("Usage: ideally")) throw new Error(`${cmd.join(" ")} failed: ${r.stderr}`);
    const cpu = r.resourceUsage ? Number(r.resourceUsage.cpuTime.total) / 1000 : Number.NaN;
    return { wall, cpu };
  };
  const sides = { binary: [bin, "--help"], source: [process.execPath, "run", "cli/src/main.ts", "--help"] } as const;
  for (let i = 0; i < 3; i++) for (const cmd of Object.values(sides)) run([...cmd]);
  const samples: Record<keyof typeof sides, { wall: number; cpu: number }[]> = { binary: [], source: [] };
  for (let i = 0; i < PAIRS; i++) {
    // Alternate which side goes first, so neither always catches the other's cache warmth.
    const order = (i % 2 ? ["source", "binary"] : ["binary", "source"]) as (keyof typeof sides)[];
    for (const k of order) samples[k].push(run([...sides[k]]));
  }
  const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
  const row = (k: keyof typeof sides) => ({
    wallMedian: +median(samples[k].map((s) => s.wall)).toFixed(1),
    wallP90: +p90(samples[k].map((s) => s.wall)).toFixed(1),
    cpuMedian: +median(samples[k].map((s) => s.cpu)).toFixed(1),
  });
  const result = {
    pairs: PAIRS,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
    binary: row("binary"),
    source: row("source"),
    entryChunkBytes: eagerBytes,
    inkInEntryChunk: inkInEntry,
  };
  console.log(JSON.stringify(result, null, 2));
  const ok = result.binary.wallMedian < GOAL_MS && !inkInEntry;
  console.log(`${ok ? "ok" : "FAIL"}: binary --help median ${result.binary.wallMedian} ms (goal < ${GOAL_MS} ms), source ${result.source.wallMedian} ms; Ink in the entry chunk: ${inkInEntry}`);
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
