// Benchmark: how fast the compiled `ideally` starts, against a compiled hello-world Bun binary built
// in the same run (issue 38: `--help` and `--version` within 2x of it). Three commands in rounds,
// the order rotating each round so that the load of a shared host hits each alike: the hello-world,
// `ideally --help` and `ideally --version` (no network: the API address is one nothing listens
// on). Reports each one's median wall time (what a person waits) and CPU time (the child's user +
// system, which the host's load barely moves) and the ratios of the medians to the hello-world's;
// exits non-zero when a wall ratio is over 2. Also checks that what `--help` loads holds no
// commander (main.ts prints it from the generated table) and that what any command loads before it
// runs holds no Ink or React (they load only in `projects watch`).
//
//   bun run bench:cli               (BENCH_ROUNDS=N, default 40)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildCli, cliBuildOptions } from "../../scripts/build-cli.ts";
import { median } from "./stats.ts";

const ROOT = resolve(import.meta.dir, "../..");
const GOAL_RATIO = 2;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 40);
const dir = mkdtempSync(join(tmpdir(), "ideally-bench-"));
const bin = join(dir, "ideally");
const hello = join(dir, "hello");

/**
 * What `--help` loads (the entry chunk and its static imports: main.ts answers it from the generated
 * table) and what the other commands load before they run (that and the program chunk with its
 * static imports), as JavaScript: their sizes, whether commander is in the first and whether Ink or
 * React is in either.
 */
async function entryChunk(): Promise<{ bytes: number; programBytes: number; commander: boolean; ink: boolean }> {
  const out = join(dir, "split");
  // The same bundle as JavaScript (bytecode needs --compile), to read what the entry imports.
  const built = await Bun.build({ ...cliBuildOptions(ROOT), bytecode: false, outdir: out });
  if (!built.success) throw new Error(built.logs.join("\n"));
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const m of readFileSync(join(out, file), "utf8").matchAll(/(?:^|[;}\n])import\s*(?:[\w${},\s*]+from\s*)?"\.\/([^"]+)"/g)) visit(m[1]!);
  };
  const text = () => [...seen].map((f) => readFileSync(join(out, f), "utf8")).join("\n");
  visit("main.js");
  const help = text();
  // Everything else: main.js imports the program (program.ts) and what it imports statically.
  for (const m of readFileSync(join(out, "main.js"), "utf8").matchAll(/import\("\.\/([^"]+)"\)/g)) visit(m[1]!);
  const eager = text();
  // commander's help code, as it reads minified (its string and method names stay).
  const commander = /\bcommander\.help\b|outputHelp/;
  if (!commander.test(eager)) throw new Error("the commander check does not find commander in the program chunk: fix its pattern");
  return { bytes: help.length, programBytes: eager.length, commander: commander.test(help), ink: /react-reconciler|ReactCurrentOwner|__CLIENT_INTERNALS|useInput|yoga/i.test(eager) };
}

try {
  await buildCli(bin);
  // The floor: `bun build --compile` of a one-line program.
  writeFileSync(join(dir, "hello.ts"), 'console.log("hello");\n');
  const helloBuilt = await Bun.build({ entrypoints: [join(dir, "hello.ts")], target: "bun", compile: { outfile: hello } });
  if (!helloBuilt.success) throw new Error(helloBuilt.logs.join("\n"));
  const entry = await entryChunk();

  const sides = {
    hello: { cmd: [hello], expect: "hello" },
    help: { cmd: [bin, "--help"], expect: "Usage: ideally" },
    version: { cmd: [bin, "--version"], expect: "ideally " },
  } as const;
  type Side = keyof typeof sides;
  const names = Object.keys(sides) as Side[];
  const run = (k: Side) => {
    const { cmd, expect } = sides[k];
    const t0 = performance.now();
    // A closed port: --version must not need the API (it is not asked; were it, this would show).
    const r = Bun.spawnSync([...cmd], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, NO_COLOR: "1", IDEALLY_API_URL: "http://127.0.0.1:9", XDG_CONFIG_HOME: dir } });
    const wall = performance.now() - t0;
    if (r.exitCode !== 0 || !r.stdout.toString().startsWith(expect)) throw new Error(`${cmd.join(" ")} failed (${r.exitCode}): ${r.stdout}${r.stderr}`);
    const cpu = r.resourceUsage ? Number(r.resourceUsage.cpuTime.total) / 1000 : Number.NaN;
    return { wall, cpu };
  };
  for (let i = 0; i < 3; i++) for (const k of names) run(k);
  const samples: Record<Side, { wall: number; cpu: number }[]> = { hello: [], help: [], version: [] };
  for (let i = 0; i < ROUNDS; i++) {
    // Rotate who goes first, so none always follows the same one.
    const order = names.map((_, j) => names[(i + j) % names.length]!);
    for (const k of order) samples[k].push(run(k));
  }
  const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
  const row = (k: Side) => ({
    wallMedian: +median(samples[k].map((s) => s.wall)).toFixed(2),
    wallP90: +p90(samples[k].map((s) => s.wall)).toFixed(2),
    cpuMedian: +median(samples[k].map((s) => s.cpu)).toFixed(2),
  });
  const rows = { hello: row("hello"), help: row("help"), version: row("version") };
  const ratio = (k: Side, m: "wallMedian" | "cpuMedian") => +(rows[k][m] / rows.hello[m]).toFixed(2);
  const result = {
    rounds: ROUNDS,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
    ...rows,
    ratios: { help: { wall: ratio("help", "wallMedian"), cpu: ratio("help", "cpuMedian") }, version: { wall: ratio("version", "wallMedian"), cpu: ratio("version", "cpuMedian") } },
    entryChunkBytes: entry.bytes,
    programChunkBytes: entry.programBytes,
    commanderInEntryChunk: entry.commander,
    inkInEntryChunk: entry.ink,
  };
  console.log(JSON.stringify(result, null, 2));
  const ok = result.ratios.help.wall <= GOAL_RATIO && result.ratios.version.wall <= GOAL_RATIO && !entry.ink && !entry.commander;
  console.log(
    `${ok ? "ok" : "FAIL"}: median wall --help ${rows.help.wallMedian} ms (${result.ratios.help.wall}x), --version ${rows.version.wallMedian} ms (${result.ratios.version.wall}x) against hello-world ${rows.hello.wallMedian} ms (goal <= ${GOAL_RATIO}x); commander in what --help loads: ${entry.commander}; Ink before a command runs: ${entry.ink}`,
  );
  process.exitCode = ok ? 0 : 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
