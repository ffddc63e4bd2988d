// Bun adapter: the database (embedded or DATABASE_URL), migrations, the job queue, the HTTP
// server and graceful shutdown. Everything Bun-specific lives here and in db/embedded.ts.
import { dirname, join } from "node:path";
import { API_POOL_SIZE, readConfigOrExit } from "./config.ts";
import { openDatabase } from "./db/open.ts";
import { connect } from "./db/client.ts";
import { routedDb, startReplicaRouter } from "./db/replica.ts";
import { migrate, migrationFiles } from "./db/migrate.ts";
import { newApp, SCALAR_SCRIPT_PATH } from "./app.ts";
import { registry } from "./entities/index.ts";
import { startQueue } from "./jobs/queue.ts";
import { jobs, runJobWorkers } from "./jobs/index.ts";
import { ensureQueues } from "./jobs/workers.ts";
import { seedDemoProjects } from "./domains/fielding/demo.ts";
import { seedDemoImages } from "./domains/fielding/demo-images.ts";
import { loadSigningKey } from "./auth/keys.ts";
import { bearerAuthenticate } from "./auth/authenticate.ts";
import { argon2idPasswords } from "./auth/passwords-bun.ts";
import { ssoFromConfig } from "./auth/sso.ts";
import { demoLoginsText, seedDemo } from "./db/demo.ts";
import { createMailer } from "./email/smtp.ts";
import { Hub } from "./realtime/hub.ts";
import { upgrade, websocketHandlers, type WsData } from "./realtime/bun.ts";
import { subscribe } from "./jobs/channel.ts";
import { WEBSOCKET_PATH } from "./domains/realtime/realtime.routes.ts";
import { s3ImageOrigin, storageFromEnv } from "./storage/index.ts";
import { useDeckFiles } from "./domains/results/powerpoint.ts";
import { ExportWorkers, useExportWorkers } from "./domains/results/export-workers.ts";
import { createMetrics } from "./ops/metrics.ts";
import { devRoutes, webFiles } from "./web/static.ts";
import { chooseEncoding } from "./web/compress.ts";
import type { Server } from "bun";
import { configureResultsCache } from "./domains/results/columnar.ts";
import { errorFields, log as logJson } from "./ops/log.ts";
import { secureResponse } from "./ops/security.ts";

const cfg = readConfigOrExit();
// New password hashes at the configured cost (production's unless a test run's PASSWORD_HASH_COST=test).
const passwords = argon2idPasswords(cfg.passwordCost);
const devWebBundle = cfg.webDev ? (await import("../../web/index.html")).default : null;
configureResultsCache(cfg.resultsCacheMb * 2 ** 20);
// Production logs are JSON lines (ops/log.ts); development keeps them readable.
const log = (m: string) => (cfg.production ? logJson("info", m) : console.log(m));
const handle = await openDatabase(cfg, log);
// Per-request work on DATABASE_URL (a pooler in transaction mode, when DATABASE_DIRECT_URL is set:
// then no prepared statements); migrations, LISTEN and the job queue on the database itself.
const db = connect(handle.url, { max: API_POOL_SIZE, pooled: handle.pooled });
const direct = handle.pooled ? connect(handle.directUrl, { max: 2 }) : db;
// DATABASE_REPLICA_URL: the results functions and exports read there while it keeps up (db/replica.ts).
const replica = handle.replicaUrl ? startReplicaRouter(db, connect(handle.replicaUrl, { max: API_POOL_SIZE })) : undefined;
if (handle.pooled) log("database: per-request work through the pooler (DATABASE_URL), sessions on DATABASE_DIRECT_URL");
if (replica) log("database: results and exports read from the replica (DATABASE_REPLICA_URL)");
// Data exports (CSV, Excel) are built in worker threads that read with connections of their own,
// as this process reads them (the replica while it keeps up): the main thread only admits them and
// sends the bytes (domains/results/export-workers.ts, record 0137). EXPORT_WORKERS=0: built here.
const exportWorkers =
  cfg.exportWorkers > 0
    ? new ExportWorkers({ size: cfg.exportWorkers, db: { url: handle.url, pooled: handle.pooled, replicaUrl: handle.replicaUrl }, resultsCacheBytes: cfg.resultsCacheMb * 2 ** 20 })
    : null;
useExportWorkers(exportWorkers);
let shuttingDown = false;

try {
  const { applied } = await migrate(direct, { log });
  log(applied.length ? `database migrated (${applied.length} new)` : "database is up to date");
} catch (e) {
  console.error(`startup failed: ${(e as Error).message}`);
  await db.end();
  await handle.stop();
  process.exit(1);
}

let demoProjectIds: number[] = [];
if (!cfg.production && (await seedDemo(db, passwords.hash, { whenEmpty: true }))) {
  log("seeded the demo data");
  // Completed projects of every type, fielded by the simulated panel (domains/fielding/demo.ts).
  demoProjectIds = await seedDemoProjects(db, registry, cfg.publicUrl, log);
}
if (!cfg.production) log(demoLoginsText());

// Email: SMTP when configured; otherwise the outbox is the delivery (GET /api/v1/DevMailbox), and in
// development each email is also logged with its links.
const mailer = createMailer(db, { smtpUrl: cfg.smtpUrl, from: cfg.mailFrom, publicUrl: cfg.publicUrl, log: cfg.production ? undefined : log });
if (!cfg.metricsToken) log(`${cfg.production ? "warning: " : ""}METRICS_TOKEN is not set: /metrics is not served on the API port`);
if (!cfg.smtpUrl) log(`${cfg.production ? "warning: " : ""}SMTP_URL is not set: emails stay in the outbox (staff read them at /api/v1/DevMailbox)`);
const queue = await startQueue(handle.directUrl, log);
let queueRunning = true;
queue.on("stopped", () => (queueRunning = false));
// RUN_WORKERS=0: this process only enqueues; `bun run worker` processes (worker.ts) run the jobs.
const metrics = createMetrics();
metrics.sources(db, queue);
if (replica) metrics.replica(replica);
if (cfg.runWorkers) await runJobWorkers(queue, db, cfg.publicUrl, log, mailer, { onOutcome: metrics.jobOutcome });
else {
  await ensureQueues(queue, jobs); // enqueueing needs the queues, whoever works them
  log("job workers are off in this process (RUN_WORKERS=0): run `bun run worker` beside it");
}

const key = await loadSigningKey(db, cfg.authSecret);
// The peer address Bun saw, keyed by request: rate limits never trust a client-set header.
const peers = new WeakMap<Request, string>();
// Uploaded files: S3 when S3_* is configured, else DATA_DIR/uploads (storage/index.ts).
const storage = storageFromEnv(process.env, { dataDir: cfg.dataDir, signingKey: key });
if (!cfg.production) log(`file storage: ${storage.kind === "s3" ? "S3" : "local disk"}`);
// The PowerPoint job reads the concept images from the same store.
useDeckFiles(storage);
// The demo concepts' pictures, stored as uploads are (domains/fielding/demo-images.ts).
if (demoProjectIds.length) log(`stored ${await seedDemoImages(db, storage, cfg.publicUrl, demoProjectIds)} demo concept images`);
const shippedMigrations = migrationFiles().map((f) => f.name);
const app = newApp({
  db,
  queue,
  readDb: replica ? routedDb(replica) : undefined,
  expectedMigrations: () => shippedMigrations,
  metrics,
  // Without METRICS_TOKEN /metrics is not served on this port, in development too (issue 38: a
  // fresh `bun run start` answered it to anyone who could reach the port).
  metricsToken: cfg.metricsToken ?? null,
  queueRunning: () => queueRunning,
  mailer,
  registry,
  authenticate: bearerAuthenticate(key),
  auth: {
    db,
    key,
    passwords,
    linkedInEnabled: cfg.linkedInEnabled,
    clientIp: (req) => peers.get(req) ?? null,
    secureCookies: cfg.production,
    sso: ssoFromConfig(cfg, log),
  },
  // Signed file and websocket URLs are built from PUBLIC_URL (as emails are), never the Host header.
  publicUrl: cfg.publicUrl,
  storage,
  web: devWebBundle ? undefined : webFiles(),
  log: cfg.logRequests ? log : undefined,
  checkAnswers: cfg.checkAnswers,
  imageOrigins: storage.kind === "s3" ? [s3ImageOrigin(process.env)] : [],
  queryLimits: cfg.queryLimits,
  clientIp: (req) => peers.get(req) ?? null,
});

// Realtime: this process's sockets, fed by every process's events through NOTIFY.
const hub = new Hub(db, key);
metrics.websockets(() => hub.conns.size);
const unsubscribe = await subscribe(handle.directUrl, (ev) => hub.deliver(ev), { onError: (e) => log(`[realtime] ${String(e)}`) });
const sweeper = setInterval(() => hub.sweep(), 30_000);

// The package exports no subpath for its browser bundle; it sits beside the main entry.
let scalarGzip: Uint8Array<ArrayBuffer> | undefined;
const scalarScript = Bun.file(join(dirname(Bun.resolveSync("@scalar/api-reference", import.meta.dir)), "browser/standalone.js"));

async function serve(req: Request, srv: Server<WsData>): Promise<Response | undefined> {
  const peer = srv.requestIP(req);
  if (peer) peers.set(req, peer.address);
  const path = new URL(req.url).pathname;
  if (path === WEBSOCKET_PATH) return upgrade(req, srv, key, hub);
  if (path === SCALAR_SCRIPT_PATH) {
    // 4.3 MB as shipped: gzipped once, on first use, for every client that accepts it (1.2 MB).
    const headers = new Headers({ "content-type": "text/javascript; charset=utf-8", "cache-control": "public, max-age=3600", vary: "Accept-Encoding" });
    let body: Blob | Uint8Array<ArrayBuffer> = scalarScript;
    if (chooseEncoding(req.headers.get("accept-encoding"), ["gzip"])) {
      scalarGzip ??= Bun.gzipSync(new Uint8Array(await scalarScript.arrayBuffer()), { level: 6 });
      body = scalarGzip;
      headers.set("content-encoding", "gzip");
    }
    return secureResponse(new Response(body, { headers }), { publicUrl: cfg.publicUrl });
  }
  return app.fetch(req);
}

// `bun run dev`: the web app is bundled on the fly from web/index.html with hot reloading (Tailwind
// through bunfig's [serve.static] plugins); the API's paths (web/paths.ts) still go to the app.
const devWeb = devWebBundle ? { development: { hmr: true, console: true }, routes: devRoutes(devWebBundle, serve) } : {};

const server = Bun.serve<WsData>({
  port: cfg.port,
  // The largest file type's limit and some room: each route enforces its own, smaller, limit.
  maxRequestBodySize: 101 * 1024 * 1024,
  // Bun closes a connection idle for 10 s by default, answerless: a staff export may run up to its
  // statement timeout, so the socket waits that long and a little more (Bun's ceiling is 255 s).
  idleTimeout: Math.min(255, Math.ceil(cfg.queryLimits.exportStatementTimeoutMs / 1000) + 10),
  hostname: cfg.host,
  // REUSE_PORT=1: several API processes listen on one port and the kernel spreads connections
  // among them (SO_REUSEPORT; Linux): N processes on one machine without a load balancer.
  reusePort: cfg.reusePort,
  websocket: websocketHandlers(hub),
  fetch: serve,
  ...devWeb,
});
log(`Ideally API on http://localhost:${server.port} (docs at /docs)`);

async function shutdown(signal: string) {
  if (shuttingDown) return;
  shuttingDown = true;
  queueRunning = false; // /readyz answers 503 while the process drains
  log(`${signal}: shutting down`);
  clearInterval(sweeper);
  for (const conn of hub.conns) conn.socket.close(1001, "server shutting down"); // clients reconnect elsewhere
  await server.stop(); // stops accepting, lets in-flight requests finish
  await unsubscribe();
  // Waits for running jobs (up to the timeout; a job cut off then is failed and runs again, its
  // handler being idempotent) before the pool and the database they use go away.
  await queue.stop({ graceful: true, timeout: 10_000 }).catch((e: Error) => log(`[jobs] stop: ${e.message}`));
  await mailer.close(); // deliveries under way record their outcome before the pool goes
  await exportWorkers?.close();
  replica?.stop();
  await Promise.all([db.end({ timeout: 5 }), direct === db ? null : direct.end({ timeout: 5 }), replica?.replica.end({ timeout: 5 })]);
  await handle.stop();
  log("stopped");
  process.exit(0);
}
// A terminal's Ctrl-C also reaches the embedded PostgreSQL (same process group), which then ends
// its connections while we drain: during shutdown those errors are expected, not crashes.
process.on("uncaughtException", (e) => {
  const code = (e as { code?: string }).code;
  if (shuttingDown && (code === "57P01" || code === "ECONNRESET" || code === "CONNECTION_ENDED")) return;
  logJson("error", "uncaught exception: exiting", errorFields(e));
  process.exit(1);
});
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
