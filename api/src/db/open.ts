// DATABASE_URL when set (production, CI); otherwise the embedded server under DATA_DIR.
import type { Config } from "../config.ts";

export interface DbHandle {
  url: string;
  embedded: boolean;
  stop(): Promise<void>;
}

export async function openDatabase(cfg: Config, log: (m: string) => void = console.log): Promise<DbHandle> {
  if (cfg.databaseUrl) return { url: cfg.databaseUrl, embedded: false, stop: async () => {} };
  // Loaded lazily: the embedded server is a Bun/Node-side adapter, never needed with DATABASE_URL.
  const { startEmbedded } = await import("./embedded.ts");
  log(`starting embedded PostgreSQL in ${cfg.dataDir}/pg on port ${cfg.embeddedPort}`);
  const e = await startEmbedded(cfg.dataDir, cfg.embeddedPort, log);
  return { url: e.url, embedded: true, stop: e.stop };
}
