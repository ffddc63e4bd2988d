// A PostgreSQL of the test's own (embedded, on its own port and folder) for fault tests that stop
// and start the database: never the machine's shared server. Migrated, with the fixtures.
import { freePort } from "./port.ts";
import { rmSync } from "node:fs";
import { resolve } from "node:path";
import { startEmbedded, type EmbeddedDb } from "../../api/src/db/embedded.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { migrateWithFixtures } from "./db.ts";

export interface OwnPostgres {
  url: string;
  port: number;
  /** A pool of the test's own (not the server's). */
  db: Db;
  /** Stops the server (fast shutdown: sessions are terminated). */
  stop(): Promise<void>;
  /** Starts it again on the same folder and port. */
  start(): Promise<void>;
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>;
}

export async function startOwnPostgres(): Promise<OwnPostgres> {
  const port = freePort();
  const dir = resolve(import.meta.dir, `../../.data/own-pg-${process.pid}-${port}`);
  let e: EmbeddedDb = await startEmbedded(dir, port, () => {});
  const db = connect(e.url, { max: 2 });
  await migrateWithFixtures(db);
  let running = true;
  return {
    url: e.url,
    port,
    db,
    async stop() {
      await e.stop();
      running = false;
    },
    async start() {
      e = await startEmbedded(dir, port, () => {});
      running = true;
    },
    async destroy() {
      await db.end({ timeout: 1 }).catch(() => {});
      if (running) await e.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
