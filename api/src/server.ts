// Bun adapter: the database (embedded or DATABASE_URL), migrations, the job queue, the HTTP
// server and graceful shutdown. Everything Bun-specific lives here and in db/embedded.ts.
import { dirname, join } from "node:path";
import { readConfig } from "./config.ts";
import { openDatabase } from "./db/open.ts";
import { connect } from "./db/client.ts";
import { migrate } from "./db/migrate.ts";
import { newApp, SCALAR_SCRIPT_PATH } from "./app.ts";
import { registry } from "./entities/index.ts";
import { startQueue } from "./jobs/queue.ts";
import { ApiError } from "./errors.ts";

const cfg = readConfig();
const log = (m: string) => console.log(m);
const handle = await openDatabase(cfg, log);
const db = connect(handle.url, { max: 10 });
let shuttingDown = false;

try {
  const { applied } = await migrate(db, { log });
  log(applied.length ? `database migrated (${applied.length} new)` : "database is up to date");
} catch (e) {
  console.error(`startup failed: ${(e as Error).message}`);
  await db.end();
  await handle.stop();
  process.exit(1);
}

const queue = await startQueue(handle.url, log);

const app = newApp({
  db,
  registry,
  // Sign-in arrives with the auth layer; until then no /api/v1 call is answered anonymously.
  authenticate: async () => {
    throw new ApiError("Unauthorized", "Not signed in");
  },
  log: cfg.logRequests ? log : undefined,
});

// The package exports no subpath for its browser bundle; it sits beside the main entry.
const scalarScript = Bun.file(join(dirname(Bun.resolveSync("@scalar/api-reference", import.meta.dir)), "browser/standalone.js"));

const server = Bun.serve({
  port: cfg.port,
  hostname: process.env.HOST ?? "0.0.0.0",
  fetch(req) {
    if (new URL(req.url).pathname === SCALAR_SCRIPT_PATH) {
      return new Response(scalarScript, { headers: { "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600" } });
    }
    return app.fetch(req);
  },
});
log(`Ideally API on http://localhost:${server.port} (docs at /docs)`);

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  log(`${signal}: shutting down`);
  await server.stop(); // stops accepting, lets in-flight requests finish
  await queue.stop({ graceful: true, timeout: 10_000 }).catch(() => {});
  await db.end({ timeout: 5 });
  await handle.stop();
  log("stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
