// DATABASE_URL when set (production, CI); otherwise the embedded server under DATA_DIR.
import type { Config } from "../config.ts";

export interface DbHandle {
  /** Per-request work: the database, or a pooler in transaction mode in front of it. */
  url: string;
  /** What needs a session of its own (migrations, LISTEN, the job queue): the database itself. */
  directUrl: string;
  /** url is a pooler (DATABASE_DIRECT_URL names another address): no prepared statements there. */
  pooled: boolean;
  /** A streaming replica for the read-heavy calls, when configured. */
  replicaUrl?: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function openDatabase(cfg: Config, log: (m: string) => void = console.log): Promise<DbHandle> {
  if (cfg.databaseUrl) {
    const directUrl = cfg.databaseDirectUrl ?? cfg.databaseUrl;
    return { url: cfg.databaseUrl, directUrl, pooled: directUrl !== cfg.databaseUrl, replicaUrl: cfg.databaseReplicaUrl, embedded: false, stop: async () => {} };
  }
  // Loaded lazily: the embedded server is a Bun/Node-side adapter, never needed with DATABASE_URL.
  const { startEmbedded } = await import("./embedded.ts");
  log(`starting embedded PostgreSQL in ${cfg.dataDir}/pg on port ${cfg.embeddedPort}`);
  const e = await startEmbedded(cfg.dataDir, cfg.embeddedPort, log);
  return { url: e.url, directUrl: e.url, pooled: false, embedded: true, stop: e.stop };
}
