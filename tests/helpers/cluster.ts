// A small production-shaped database of the test's own: a primary PostgreSQL cluster, a streaming
// replica of it (pg_basebackup), and PgBouncer in transaction mode in front of the primary, each on
// a port of this machine, in a folder under .data/. Built from the machine's PostgreSQL binaries
// (Debian's postgresql-15) and Debian's pgbouncer, which .ci/run installs; never the machine's own
// server. The servers run as the `postgres` user when the tests run as root (PostgreSQL refuses root).
import { chownSync, existsSync, mkdirSync, readdirSync, rmSync, writeFileSync, appendFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { userInfo } from "node:os";
import { freePort } from "./port.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { migrateWithFixtures } from "./db.ts";

export interface Cluster {
  /** The primary, directly (what DATABASE_DIRECT_URL names). */
  primaryUrl: string;
  /** PgBouncer in transaction mode in front of the primary (what DATABASE_URL names). */
  bouncerUrl: string;
  /** The streaming replica (what DATABASE_REPLICA_URL names). */
  replicaUrl: string;
  /** A pool of the test's own on the primary. */
  primary: Db;
  /** A pool of the test's own on the replica. */
  replica: Db;
  /** Waits until the replica has replayed everything the primary wrote so far. */
  caughtUp(timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/** The folder of the machine's PostgreSQL server programs (initdb, pg_ctl, pg_basebackup). */
export function postgresBinDir(): string | null {
  const base = "/usr/lib/postgresql";
  if (!existsSync(base)) return null;
  for (const v of readdirSync(base).sort().reverse()) {
    const bin = join(base, v, "bin");
    if (existsSync(join(bin, "pg_basebackup")) && existsSync(join(bin, "initdb"))) return bin;
  }
  return null;
}

export const PGBOUNCER = ["/usr/sbin/pgbouncer", "/usr/bin/pgbouncer"].find((p) => existsSync(p)) ?? null;

const asRoot = userInfo().uid === 0;

function run(cmd: string[], what: string): string {
  const full = asRoot ? ["runuser", "-u", "postgres", "--", ...cmd] : cmd;
  const p = Bun.spawnSync(full, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${what} failed (${p.exitCode}): ${p.stderr.toString()}${p.stdout.toString()}`);
  return p.stdout.toString();
}

function ownedFolder(dir: string): void {
  mkdirSync(dir, { recursive: true });
  if (asRoot) {
    const uid = Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim());
    const gid = Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim());
    chownSync(dir, uid, gid);
  }
}

/** fixtures: the tests' fixture rows (default); false: an empty schema (a server then seeds the demo). */
export async function startCluster(opts: { fixtures?: boolean } = {}): Promise<Cluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL's server programs are missing (apt-get install postgresql): .ci/run installs them");
  if (!PGBOUNCER) throw new Error("pgbouncer is missing (apt-get install pgbouncer): .ci/run installs it");
  const root = resolve(import.meta.dir, `../../.data/cluster-${process.pid}-${Date.now().toString(36)}`);
  ownedFolder(root);
  const primaryDir = join(root, "primary");
  const replicaDir = join(root, "replica");
  const pPort = freePort();
  const rPort = freePort(undefined, [pPort]);
  const bPort = freePort(undefined, [pPort, rPort]);
  const started: string[] = [];
  let bouncer: ReturnType<typeof Bun.spawn> | undefined;
  const pools: Db[] = [];

  const stop = async () => {
    await Promise.all(pools.map((p) => p.end({ timeout: 1 }).catch(() => {})));
    if (bouncer && bouncer.exitCode === null) {
      bouncer.kill("SIGTERM");
      await bouncer.exited;
    }
    for (const d of started.reverse()) {
      try {
        run([join(bin, "pg_ctl"), "-D", d, "-m", "immediate", "-w", "stop"], "pg_ctl stop");
      } catch {
        /* already stopped */
      }
    }
    rmSync(root, { recursive: true, force: true });
  };

  try {
    run([join(bin, "initdb"), "-D", primaryDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"], "initdb");
    appendFileSync(
      join(primaryDir, "postgresql.conf"),
      [
        `port = ${pPort}`,
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = '${root}'`,
        "wal_level = replica",
        "max_wal_senders = 4",
        "hot_standby = on",
        "fsync = off",
        "synchronous_commit = off",
        "full_page_writes = off",
        "max_connections = 200",
        "",
      ].join("\n"),
    );
    appendFileSync(join(primaryDir, "pg_hba.conf"), "host replication all 127.0.0.1/32 trust\n");
    run([join(bin, "pg_ctl"), "-D", primaryDir, "-l", join(root, "primary.log"), "-w", "-t", "60", "start"], "pg_ctl start primary");
    started.push(primaryDir);

    const admin = connect(`postgres://postgres@127.0.0.1:${pPort}/postgres`, { max: 1 });
    await admin.unsafe("create database ideally");
    await admin.end();
    const primaryUrl = `postgres://postgres@127.0.0.1:${pPort}/ideally`;
    const primary = connect(primaryUrl, { max: 4 });
    pools.push(primary);
    await migrateWithFixtures(primary, opts.fixtures ?? true);

    // The replica: a base backup of the primary that follows its WAL (-R writes standby.signal and
    // primary_conninfo), on a port of its own.
    run([join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", String(pPort), "-U", "postgres", "-D", replicaDir, "-R", "-X", "stream", "-c", "fast"], "pg_basebackup");
    appendFileSync(join(replicaDir, "postgresql.auto.conf"), `port = ${rPort}\n`);
    run([join(bin, "pg_ctl"), "-D", replicaDir, "-l", join(root, "replica.log"), "-w", "-t", "60", "start"], "pg_ctl start replica");
    started.push(replicaDir);
    const replicaUrl = `postgres://postgres@127.0.0.1:${rPort}/ideally`;
    const replica = connect(replicaUrl, { max: 2 });
    pools.push(replica);

    // PgBouncer in transaction mode: a server connection belongs to a client for one transaction.
    const ini = join(root, "pgbouncer.ini");
    writeFileSync(join(root, "userlist.txt"), '"postgres" ""\n');
    writeFileSync(
      ini,
      [
        "[databases]",
        `ideally = host=127.0.0.1 port=${pPort} dbname=ideally`,
        "[pgbouncer]",
        "listen_addr = 127.0.0.1",
        `listen_port = ${bPort}`,
        "unix_socket_dir =",
        "auth_type = trust",
        `auth_file = ${join(root, "userlist.txt")}`,
        "pool_mode = transaction",
        "max_client_conn = 1000",
        "default_pool_size = 20",
        "ignore_startup_parameters = extra_float_digits,options",
        `logfile = ${join(root, "pgbouncer.log")}`,
        "",
      ].join("\n"),
    );
    for (const f of ["pgbouncer.ini", "userlist.txt"]) ownedFile(join(root, f));
    bouncer = Bun.spawn(asRoot ? ["runuser", "-u", "postgres", "--", PGBOUNCER, ini] : [PGBOUNCER, ini], { stdout: "ignore", stderr: "pipe" });
    const bouncerUrl = `postgres://postgres@127.0.0.1:${bPort}/ideally`;
    const probe = connect(bouncerUrl, { max: 1, pooled: true });
    for (let i = 0; ; i++) {
      try {
        await probe`select 1`;
        break;
      } catch (e) {
        if (i > 100 || bouncer.exitCode !== null) throw new Error(`pgbouncer did not start: ${(e as Error).message}`);
        await Bun.sleep(100);
      }
    }
    await probe.end();

    // The primary commits asynchronously (synchronous_commit = off): a commit has returned once its
    // WAL is inserted, before it is written, so the write position (pg_current_wal_lsn) can still
    // be short of it, and the replica can only have what was written. One synchronous commit first
    // writes and flushes everything inserted before it; the write position then covers every
    // commit that returned before this call.
    const caughtUp = async (timeoutMs = 10_000) => {
      await primary.begin(async (tx) => {
        await tx`set local synchronous_commit = on`;
        // A transaction that wrote no WAL of its own commits asynchronously whatever the setting: a
        // transactional message is WAL the commit then has to flush.
        await tx`select pg_logical_emit_message(true, 'ideally-caught-up', '')`;
      });
      const [{ lsn }] = await primary<{ lsn: string }[]>`select pg_current_wal_lsn()::text as lsn`;
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [{ done }] = await replica<{ done: boolean }[]>`select pg_last_wal_replay_lsn() >= ${lsn}::pg_lsn as done`;
        if (done) return;
        if (Date.now() > until) throw new Error("the replica did not catch up");
        await Bun.sleep(20);
      }
    };
    return { primaryUrl, bouncerUrl, replicaUrl, primary, replica, caughtUp, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}

function ownedFile(f: string): void {
  if (!asRoot) return;
  const uid = Number(Bun.spawnSync(["id", "-u", "postgres"]).stdout.toString().trim());
  const gid = Number(Bun.spawnSync(["id", "-g", "postgres"]).stdout.toString().trim());
  chownSync(f, uid, gid);
}
