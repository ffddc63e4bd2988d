// bun run worker: the job workers as a process of their own, beside API processes started with
// RUN_WORKERS=0. It runs every job of jobs/index.ts on the queue in DATABASE_URL's database; jobs
// publish their events through NOTIFY, so the API processes' websockets still see them. Run as many
// as the work needs: pg-boss hands each job to one worker (SKIP LOCKED), and a worker that dies
// mid-job loses its heartbeat, so the job is failed and retried elsewhere (jobs/workers.ts).
import { readConfigOrExit } from "./config.ts";
import { connect } from "./db/client.ts";
import { migrationFiles } from "./db/migrate.ts";
import { startQueue } from "./jobs/queue.ts";
import { runJobWorkers } from "./jobs/index.ts";
import { createMailer } from "./email/smtp.ts";
import { configureResultsCache } from "./domains/results/columnar.ts";
import { createMetrics } from "./ops/metrics.ts";
import { log as logJson } from "./ops/log.ts";
import { storageFromEnv } from "./storage/index.ts";
import { loadSigningKey } from "./auth/keys.ts";
import { useDeckFiles } from "./domains/results/powerpoint.ts";
import { ExportWorkers, useExportWorkers } from "./domains/results/export-workers.ts";

const cfg = readConfigOrExit();
// Production logs are JSON lines (ops/log.ts); development keeps them readable.
const log = (m: string) => (cfg.production ? logJson("info", m) : console.log(m));
if (!cfg.databaseUrl) {
  // The embedded database belongs to the one process that started it.
  console.error("DATABASE_URL must be set for `bun run worker` (the embedded database lives inside `bun run start`)");
  process.exit(1);
}
// Jobs' own work through DATABASE_URL (a pooler when DATABASE_DIRECT_URL is set); the queue, which
// holds a LISTEN session, on the database itself.
const directUrl = cfg.databaseDirectUrl ?? cfg.databaseUrl;
const db = connect(cfg.databaseUrl, { max: 5, pooled: directUrl !== cfg.databaseUrl });

// The API process migrates; a worker of an older or newer build than the schema waits or stops.
const shipped = migrationFiles().map((f) => f.name);
for (let waited = 0; ; waited += 2) {
  const applied = new Set((await db<{ name: string }[]>`select name from schema_migrations`.catch(() => [] as { name: string }[])).map((r) => r.name));
  if (shipped.every((n) => applied.has(n))) break;
  if (waited >= 120) {
    console.error("worker: the database lacks this build's migrations after 120 s; run `bun run db:migrate`");
    process.exit(1);
  }
  if (waited === 0) log("worker: waiting for the database's migrations (`bun run db:migrate` or an API start applies them)");
  await Bun.sleep(2000);
}

const queue = await startQueue(directUrl, { log });
// Jobs that email (the weekly results summaries) use SMTP when configured, else the outbox.
const mailer = createMailer(db, { smtpUrl: cfg.smtpUrl, from: cfg.mailFrom, publicUrl: cfg.publicUrl });
configureResultsCache(cfg.resultsCacheMb * 2 ** 20);
const metrics = createMetrics();
metrics.sources(db, queue);
// The PowerPoint job reads the concept images from the API's file store (local disk or S3, storage/index.ts).
useDeckFiles(storageFromEnv(process.env, { dataDir: cfg.dataDir, signingKey: await loadSigningKey(db, cfg.authSecret) }));
// The queued data exports are built in worker threads here too (export-workers.ts): the job's
// thread stays free for the queue's heartbeats and the other jobs.
const exportWorkers =
  cfg.exportWorkers > 0 ? new ExportWorkers({ size: cfg.exportWorkers, db: { url: cfg.databaseUrl, pooled: directUrl !== cfg.databaseUrl }, resultsCacheBytes: cfg.resultsCacheMb * 2 ** 20 }) : null;
useExportWorkers(exportWorkers);
await runJobWorkers(queue, db, cfg.publicUrl, log, mailer, { onOutcome: metrics.jobOutcome });
// METRICS_PORT: the worker's own /metrics (job outcomes, queue depth, process), for Prometheus.
const metricsPort = cfg.metricsPort;
const metricsServer = metricsPort
  ? Bun.serve({
      port: metricsPort,
      hostname: cfg.host,
      fetch: async (req) =>
        new URL(req.url).pathname === "/metrics"
          ? new Response(await metrics.registry.metrics(), { headers: { "content-type": metrics.registry.contentType } })
          : new Response("not found", { status: 404 }),
    })
  : undefined;
log(`worker ${process.pid} running the job queue${metricsServer ? ` (metrics on :${metricsServer.port}/metrics)` : ""}`);

let stopping = false;
async function shutdown(signal: string) {
  if (stopping) return;
  stopping = true;
  log(`${signal}: worker stopping (running jobs finish first, up to 10 s)`);
  metricsServer?.stop(true);
  await queue.stop({ graceful: true, timeout: 10_000 }).catch((e: Error) => log(`[jobs] stop: ${e.message}`));
  await exportWorkers?.close();
  await db.end({ timeout: 5 });
  log("worker stopped");
  process.exit(0);
}
process.on("SIGINT", () => void shutdown("SIGINT"));
process.on("SIGTERM", () => void shutdown("SIGTERM"));
