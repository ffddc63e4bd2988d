// The simulated panel's cost (issue 36: the panel answers through the respondent routes as a
// supplier): RunSimulatedData of 200 completes on a three-concept New Zealand run, and the demo
// world's build (what tests/helpers/demo.ts does for its template), each timed with a digest of who
// answered what (same seed, same people).
//
// Base and branch in one run, alternated: BASE is another checkout of the repository (with its
// node_modules), e.g. `git worktree add --detach ../base main && (cd ../base && bun install)`. Each
// measurement is a fresh process in its checkout, with that checkout's code and test helpers, in
// the order base, branch, branch, base (then again each round), so a load that rises or falls
// during the run weighs on both alike; the ratios branch/base are printed per pair and overall.
//   DATABASE_URL=... BASE=../base ROUNDS=2 bun tests/perf/simulated-panel.bench.ts
// DEMO=0 leaves out the demo world; SIM=0 the 200 completes. Without BASE: this checkout alone.
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { resolve } from "node:path";

const here = resolve(import.meta.dir, "../..");

// ---- one measurement, in the checkout BENCH_ROOT (a process of its own) ----

interface Helpers {
  createTestDb: (opts?: { fixtures?: boolean }) => Promise<{ db: Db; drop: () => Promise<void> }>;
}
type Db = ((strings: TemplateStringsArray, ...values: unknown[]) => Promise<Record<string, unknown>[]>) & Record<string, unknown>;
type Simulate = (db: Db, runId: number, completes: number) => Promise<{ totalCompletes: number; invited: number }>;

async function measure(root: string, what: string): Promise<{ seconds: number; note: string }> {
  const mod = async (path: string): Promise<Record<string, unknown>> => import(`${root}/${path}`);
  const { createTestDb } = (await mod("tests/helpers/db.ts")) as unknown as Helpers;
  const appHelpers = await mod("tests/helpers/app.ts");
  const publicUrl = appHelpers.TEST_PUBLIC_URL as string;
  if (what === "demo") {
    const seedDemo = (await mod("api/src/db/demo.ts")).seedDemo as (db: Db, hash: unknown, o: { whenEmpty: boolean }) => Promise<boolean>;
    const seedDemoProjects = (await mod("api/src/domains/fielding/demo.ts")).seedDemoProjects as (db: Db, registry: unknown, url: string) => Promise<number[]>;
    const registry = (await mod("api/src/entities/index.ts")).registry;
    const tdb = await createTestDb({ fixtures: false });
    try {
      const t0 = performance.now();
      const cpu0 = process.cpuUsage();
      await seedDemo(tdb.db, (appHelpers.testPasswords as { hash: unknown }).hash, { whenEmpty: true });
      await seedDemoProjects(tdb.db, registry, publicUrl);
      const seconds = (performance.now() - t0) / 1000;
      const cpu = process.cpuUsage(cpu0);
      const [c] = await tdb.db`select count(*)::int as n from survey_sessions where status = 'Complete'`;
      return { seconds, note: `${c!.n} completes, process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s` };
    } finally {
      await tdb.drop();
    }
  }
  const fielding = await mod("api/src/domains/fielding/fielding.service.ts");
  // The branch's panel is simulated-panel.ts; the base's, fielding.service.ts's simulate (the engine walk).
  const panelPath = "api/src/domains/fielding/simulated-panel.ts";
  const simulate = (existsSync(`${root}/${panelPath}`) ? (await mod(panelPath)).simulate : fielding.simulate) as Simulate;
  const call = appHelpers.call as (app: unknown, who: string, tenant: number, method: string, path: string, body: unknown) => Promise<{ body: { id: number } }>;
  const T = 1003;
  const tdb = await createTestDb();
  try {
    const app = (appHelpers.testApp as (db: Db, extra: unknown) => unknown)(tdb.db, { publicUrl });
    await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 1000000, 'Bench top-up')`;
    const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Bench", projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: 200 });
    for (const conceptText of ["Cold brew in a can", "Oat milk latte", "Sparkling yerba mate"]) await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText });
    await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {});
    const [r] = await (fielding.createSurveys as (db: Db, id: number) => Promise<{ surveyRunId: number }[]>)(tdb.db, p.body.id);
    await tdb.db`update survey_runs set simulated_seed = 12345 where id = ${r!.surveyRunId}`;
    await (fielding.launchRun as (db: Db, id: number, url: string) => Promise<unknown>)(tdb.db, r!.surveyRunId, publicUrl);
    const t0 = performance.now();
    const cpu0 = process.cpuUsage();
    const s = await simulate(tdb.db, r!.surveyRunId, 200);
    const seconds = (performance.now() - t0) / 1000;
    const cpu = process.cpuUsage(cpu0);
    const rows = await tdb.db`
      select status, answers, test_option_order as order, quality_flags as flags from survey_sessions where survey_run_id = ${r!.surveyRunId} order by id`;
    const digest = createHash("sha256").update(JSON.stringify(rows)).digest("hex").slice(0, 16);
    return { seconds, note: `${s.totalCompletes} completes of ${s.invited} invited, digest ${digest}, process CPU ${((cpu.user + cpu.system) / 1e6).toFixed(2)} s` };
  } finally {
    await tdb.drop();
  }
}

if (process.env.BENCH_WORKER) {
  const m = await measure(process.env.BENCH_ROOT ?? here, process.env.BENCH_WORKER);
  console.log(JSON.stringify(m));
  process.exit(0);
}

// ---- the driver: fresh processes, base and branch alternated ----

async function run(root: string, what: string): Promise<{ seconds: number; note: string }> {
  const p = Bun.spawn(["bun", `${here}/tests/perf/simulated-panel.bench.ts`], {
    cwd: root,
    env: { ...process.env, BENCH_WORKER: what, BENCH_ROOT: root },
    stdout: "pipe",
    stderr: "inherit",
  });
  const out = await new Response(p.stdout).text();
  if ((await p.exited) !== 0) throw new Error(`${what} in ${root} failed: ${out}`);
  return JSON.parse(out.trim().split("\n").at(-1)!) as { seconds: number; note: string };
}

const base = process.env.BASE ? resolve(process.env.BASE) : null;
const rounds = Number(process.env.ROUNDS ?? 1);
const kinds = [process.env.SIM !== "0" ? "sim" : null, process.env.DEMO !== "0" ? "demo" : null].filter((k): k is string => k !== null);
const label = (k: string) => (k === "sim" ? "simulate 200" : "demo world");
const times: Record<string, { base: number[]; branch: number[] }> = {};
for (let i = 0; i < rounds; i++) {
  for (const k of kinds) {
    times[k] ??= { base: [], branch: [] };
    const t = times[k];
    const order: ("base" | "branch")[] = base ? ["base", "branch", "branch", "base"] : ["branch"];
    for (const side of order) {
      const m = await run(side === "base" ? base! : here, k);
      t[side].push(m.seconds);
      console.log(`${label(k)} ${side.padEnd(6)} ${m.seconds.toFixed(2)} s (${m.note}) load ${(await loadAverage()).toFixed(1)}`);
    }
  }
}
if (base) {
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  for (const k of kinds) {
    const t = times[k]!;
    // Each branch time with the base time next to it (base, branch | branch, base).
    const pairs = t.branch.map((b, j) => (b / t.base[j]!).toFixed(2));
    console.log(
      `${label(k)}: base ${sum(t.base).toFixed(2)} s, branch ${sum(t.branch).toFixed(2)} s over ${t.base.length} each; ratio ${(sum(t.branch) / sum(t.base)).toFixed(2)}x (per adjacent pair: ${pairs.join(", ")})`,
    );
  }
}

async function loadAverage(): Promise<number> {
  return Number((await Bun.file("/proc/loadavg").text()).split(" ")[0]);
}
process.exit(0);
