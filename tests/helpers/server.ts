// Where the tests' PostgreSQL is: DATABASE_URL's server when set (CI), else an embedded server
// started once for the whole run under .data/test-pg.
import { readConfig } from "../../api/src/config.ts";

let adminUrl: string | undefined;
let stopEmbedded: (() => Promise<void>) | undefined;

/** A URL to the server's `postgres` maintenance database (for CREATE/DROP DATABASE). */
export async function testServerAdminUrl(): Promise<string> {
  if (adminUrl) return adminUrl;
  const url = process.env.DATABASE_URL;
  if (url) {
    const u = new URL(url);
    u.pathname = "/postgres";
    adminUrl = u.toString();
  } else {
    const { startEmbedded } = await import("../../api/src/db/embedded.ts");
    const cfg = readConfig({ ...process.env, DATA_DIR: ".data/test", EMBEDDED_PG_PORT: process.env.TEST_PG_PORT ?? "54339" });
    const e = await startEmbedded(cfg.dataDir, cfg.embeddedPort, () => {});
    stopEmbedded = e.stop;
    const u = new URL(e.url);
    u.pathname = "/postgres";
    adminUrl = u.toString();
  }
  return adminUrl;
}

export async function stopTestServer(): Promise<void> {
  await stopEmbedded?.();
}
