// What bench:load needs beside wrk (load-common.ts): the demo database seeded once and reused, a
// checkout of another commit to measure against, and API server processes of either checkout.
//
// The seeded database: the server's first start seeds the demo data (logins, and projects of every
// type fielded by the simulated panel), which took over 6 minutes on a busy host. It is done once
// into `<prefix>_seed_<hash>` (the hash of the migrations, the reference data and the seeding code)
// and kept; every run clones it (CREATE DATABASE ... TEMPLATE), so each server gets the same data
// and its own database (its own job queue: one server never runs the other's jobs).
// BENCH_LOAD_RESEED=1 seeds again. BENCH_DB_PREFIX names the databases (default ideally_bench_load).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, copyFileSync, openSync } from "node:fs";
import { join, resolve } from "node:path";
import postgres from "postgres";
import { stopTestServer, testServerAdminUrl } from "../helpers/server.ts";

export const ROOT = resolve(import.meta.dir, "../..");
const PREFIX = process.env.BENCH_DB_PREFIX ?? "ideally_bench_load";
if (!/^[a-z_][a-z0-9_]*$/.test(PREFIX)) throw new Error("BENCH_DB_PREFIX: lower-case letters, digits and _ only");
const log = (m: string) => console.log(m);

function withDb(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Every file under `dir` (sorted), for the seed's hash. */
function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const p = join(dir, e.name);
    if (e.isDirectory()) out.push(...filesUnder(p));
    else out.push(p);
  }
  return out;
}

/** What the seeded data depends on: the schema, the reference data and the code that seeds and fields. */
function seedHash(): string {
  const h = createHash("sha256");
  for (const f of [...filesUnder(join(ROOT, "migrations")), join(ROOT, "api/src/db/reference-data.sql"), join(ROOT, "api/src/db/demo.ts"), ...filesUnder(join(ROOT, "api/src/domains/fielding"))])
    h.update(f.slice(ROOT.length)).update(readFileSync(f));
  return h.digest("hex").slice(0, 12);
}

export interface ServerHandle {
  root: string;
  base: string;
  proc: ReturnType<typeof Bun.spawn>;
  stop(): Promise<void>;
  pause(): void;
  resume(): void;
}

/** `bun run api/src/server.ts` of the checkout at `root`, on `databaseUrl`; resolves once it answers. */
export async function startServer(root: string, databaseUrl: string, port: number, name: string, bunArgs: string[] = []): Promise<ServerHandle> {
  mkdirSync(join(ROOT, ".tmp"), { recursive: true });
  const logFile = join(ROOT, ".tmp", `bench-load-${name}.log`);
  const fd = openSync(logFile, "w");
  const proc = Bun.spawn(["bun", "--max-http-header-size=262144", ...bunArgs, "run", "api/src/server.ts"], {
    cwd: root,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      PORT: String(port),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_REQUESTS: "0",
      DATA_DIR: join(root, ".data", `bench-${port}`),
    },
    stdout: fd,
    stderr: fd,
  });
  const base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 15 * 60_000; // a first start seeds the demo data
  for (;;) {
    try {
      if ((await fetch(`${base}/openapi.json`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (Date.now() > until || proc.exitCode !== null) throw new Error(`server ${name} did not start (see ${logFile}): ${readFileSync(logFile, "utf8").slice(-2000)}`);
    await Bun.sleep(300);
  }
  return {
    root,
    base,
    proc,
    pause: () => proc.kill("SIGSTOP"),
    resume: () => proc.kill("SIGCONT"),
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      proc.kill("SIGCONT");
      proc.kill("SIGTERM");
      const t = setTimeout(() => proc.kill("SIGKILL"), 15_000);
      await proc.exited;
      clearTimeout(t);
    },
  };
}

export interface Databases {
  /** A new database with the seeded demo data (a clone of the seed). */
  clone(label: string): Promise<string>;
  /** Drops the clones made by this run (the seed is kept). */
  dropClones(): Promise<void>;
  end(): Promise<void>;
}

/** The seeded demo database (seeding it first when missing), and clones of it for the servers. */
export async function seededDemo(port: number): Promise<Databases> {
  const adminUrl = await testServerAdminUrl();
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  const seed = `${PREFIX}_seed_${seedHash()}`; // checked names and a hex digest: safe in statement text
  const [exists] = await admin`select 1 from pg_database where datname = ${seed}`;
  let stamped = false;
  if (exists && process.env.BENCH_LOAD_RESEED !== "1") {
    const db = postgres(withDb(adminUrl, seed), { max: 1, onnotice: () => {} });
    stamped = (await db`select 1 from pg_tables where tablename = 'bench_load_seeded'`).length > 0;
    await db.end();
  }
  if (stamped) log(`reusing the seeded demo database ${seed}`);
  else {
    for (const old of await admin<{ datname: string }[]>`select datname from pg_database where datname like ${`${PREFIX}\\_seed\\_%`}`) {
      await admin.unsafe(`drop database if exists "${old.datname}" with (force)`);
    }
    const building = `${PREFIX}_seeding`;
    await admin.unsafe(`drop database if exists "${building}" with (force)`);
    await admin.unsafe(`create database "${building}"`);
    const t0 = performance.now();
    log("seeding the demo data once (the server's first start: migrations, logins, fielded projects)...");
    const server = await startServer(ROOT, withDb(adminUrl, building), port, "seed");
    await server.stop();
    const db = postgres(withDb(adminUrl, building), { max: 1, onnotice: () => {} });
    await db`create table bench_load_seeded (seeded_at timestamptz not null default now())`;
    await db`insert into bench_load_seeded default values`;
    await db`vacuum analyze`;
    await db.end();
    await admin.unsafe(`alter database "${building}" rename to "${seed}"`);
    log(`seeded ${seed} in ${((performance.now() - t0) / 1000).toFixed(0)} s (kept for the next runs)`);
  }
  const clones: string[] = [];
  return {
    async clone(label) {
      const name = `${PREFIX}_run_${label}_${process.pid}`;
      await admin.unsafe(`drop database if exists "${name}" with (force)`);
      await admin.unsafe(`create database "${name}" template "${seed}"`);
      clones.push(name);
      return withDb(adminUrl, name);
    },
    async dropClones() {
      for (const name of clones.splice(0)) await admin.unsafe(`drop database if exists "${name}" with (force)`);
    },
    end: () => admin.end(),
  };
}

function sh(cmd: string[], cwd = ROOT): string {
  const r = Bun.spawnSync(cmd, { cwd, stdout: "pipe", stderr: "pipe" });
  if (r.exitCode !== 0) throw new Error(`${cmd.join(" ")}: ${r.stderr.toString()}`);
  return r.stdout.toString().trim();
}

/**
 * A checkout of `commit` in .tmp/bench-<sha>/ (git archive of the commit, kept and reused), with
 * its dependencies: this checkout's node_modules linked when the lockfiles are the same, else
 * `bun install --frozen-lockfile` (from Bun's cache). The current migration files are copied in
 * when the commit's are a prefix of them, so both servers run on the same (cloned) schema; the
 * run prints which were added.
 */
export function checkout(commit: string): { root: string; sha: string; note: string } {
  const sha = sh(["git", "rev-parse", "--verify", `${commit}^{commit}`]);
  const root = join(ROOT, ".tmp", `bench-${sha.slice(0, 12)}`);
  const stamp = join(root, ".bench-checkout");
  if (!existsSync(stamp)) {
    rmSync(root, { recursive: true, force: true });
    mkdirSync(root, { recursive: true });
    const archive = Bun.spawnSync(["git", "archive", "--format=tar", sha], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    if (archive.exitCode !== 0) throw new Error(`git archive ${sha}: ${archive.stderr.toString()}`);
    const untar = Bun.spawnSync(["tar", "-x", "-C", root], { stdin: archive.stdout, stderr: "pipe" });
    if (untar.exitCode !== 0) throw new Error(`tar: ${untar.stderr.toString()}`);
    if (readFileSync(join(root, "bun.lock"), "utf8") === readFileSync(join(ROOT, "bun.lock"), "utf8")) {
      symlinkSync(join(ROOT, "node_modules"), join(root, "node_modules"));
    } else {
      const inst = Bun.spawnSync(["bun", "install", "--frozen-lockfile"], { cwd: root, stdout: "pipe", stderr: "pipe" });
      if (inst.exitCode !== 0) throw new Error(`bun install in ${root}: ${inst.stderr.toString()}`);
    }
    writeFileSync(stamp, `${sha}\n`);
  }
  const mine = readdirSync(join(ROOT, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();
  const theirs = readdirSync(join(root, "migrations"))
    .filter((f) => f.endsWith(".sql"))
    .sort();
  for (const f of theirs) {
    if (!mine.includes(f) || readFileSync(join(root, "migrations", f), "utf8") !== readFileSync(join(ROOT, "migrations", f), "utf8")) {
      throw new Error(`${sha.slice(0, 12)}'s migration ${f} is not one of this checkout's: the two cannot share a database`);
    }
  }
  const added = mine.filter((f) => !theirs.includes(f));
  for (const f of added) copyFileSync(join(ROOT, "migrations", f), join(root, "migrations", f));
  return { root, sha, note: added.length ? `this checkout's newer migrations copied in: ${added.join(", ")}` : "same migrations" };
}

/** CPU time (user + system, ms) of a process, from /proc (Linux; clock ticks of 10 ms); 0 once it is gone. */
export function cpuMs(pid: number): number {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(f[11]) + Number(f[12])) * 10;
  } catch {
    return 0;
  }
}

/**
 * CPU time (ms) of this process by thread, from /proc (10 ms ticks): the JavaScript thread as
 * "main", the others by the name the runtime gives them (JITWorker, HTTP Client, HeapHelper...).
 */
export function threadCpuMs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${process.pid}/task`)) {
    try {
      const stat = readFileSync(`/proc/${process.pid}/task/${tid}/stat`, "utf8");
      const name = tid === String(process.pid) ? "main" : stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const f = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) * 10);
    } catch {
      // the thread ended
    }
  }
  return out;
}

/** The CPU so far of a server process (`pid`) and of the backends of the database `db` is connected to. */
export interface CpuReading {
  bun: number;
  pg: Map<number, number>;
}

export async function cpuReading(db: postgres.Sql, pid: number): Promise<CpuReading> {
  const pids = await db<{ pid: number }[]>`select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`;
  return { bun: cpuMs(pid), pg: new Map(pids.map((p) => [p.pid, cpuMs(p.pid)])) };
}

/** The CPU (ms) spent between two readings: the server's, and its database backends' (those of the later reading). */
export function cpuSpent(before: CpuReading, after: CpuReading): { bunMs: number; pgMs: number } {
  let pgMs = 0;
  for (const [pid, ms] of after.pg) pgMs += ms - (before.pg.get(pid) ?? 0);
  return { bunMs: after.bun - before.bun, pgMs };
}

/** The end of a run: every side's server stopped and its pool closed, the clones dropped, the test server stopped. */
export async function stopAll(sides: readonly { server: ServerHandle; db: postgres.Sql }[], dbs: Databases): Promise<void> {
  for (const s of sides) {
    await s.server.stop();
    await s.db.end({ timeout: 1 });
  }
  await dbs.dropClones();
  await dbs.end();
  await stopTestServer();
}
