// Prometheus metrics at /metrics (prom-client): requests per route and status, request latency
// per route, websocket connections, the job queues' depth by state (cluster-wide, from pg-boss),
// job outcomes of the jobs this process ran, database connections by process kind and state
// (cluster-wide, from pg_stat_activity), and the process's own (CPU, memory, event loop). The route
// label is the matched route pattern (/api/v1/Projects/:key), never the raw path, so labels stay few.
// /metrics needs the scrape token when METRICS_TOKEN is set; in production without one it is not
// served on the API port at all (docs/decisions.md "What leaves the server (issue 19)").
import { ApiError } from "../errors.ts";
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Context, Env, Hono, Next } from "hono";
import type { Db } from "../db/client.ts";
import type { Queue } from "../jobs/queue.ts";
import type { ReadOutcome, ReplicaRouter } from "../db/replica.ts";

export interface Metrics {
  registry: Registry;
  middleware: (c: Context, next: Next) => Promise<void>;
  /** Counts an answered request and its duration (what the middleware does, for answers made without it). */
  request(method: string, route: string, status: number, seconds: number): void;
  /** Sets where the websocket connection count comes from (the server adapter's hub). */
  websockets(count: () => number): void;
  /** Sets the database and queue the pool and queue gauges read at each scrape. */
  sources(db: Db, queue?: Queue): void;
  /** Sets the replica router whose lag and read counts the replica gauges report (db/replica.ts). */
  replica(r: ReplicaRouter): void;
  /** Counts a job this process ran: completed, failed (will retry) or failed for good. */
  jobOutcome(queue: string, outcome: "completed" | "retried" | "failed"): void;
}

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({ name: "ideally_http_requests_total", help: "HTTP requests by method, route and status", labelNames: ["method", "route", "status"], registers: [registry] });
  const latency = new Histogram({
    name: "ideally_http_request_duration_seconds",
    help: "HTTP request latency by method and route",
    labelNames: ["method", "route"],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  let wsCount: () => number = () => 0;
  new Gauge({
    name: "ideally_websocket_connections",
    help: "Open websocket connections",
    registers: [registry],
    collect() {
      this.set(wsCount());
    },
  });
  let db: Db | undefined;
  let queue: Queue | undefined;
  const jobs = new Counter({ name: "ideally_jobs_total", help: "Jobs run by this process, by queue and outcome", labelNames: ["queue", "outcome"], registers: [registry] });
  // A scrape must answer even when the database does not: a failed read leaves the gauge empty.
  new Gauge({
    name: "ideally_job_queue_jobs",
    help: "Jobs per queue and state (ready, deferred, active, failed) across the cluster",
    labelNames: ["queue", "state"],
    registers: [registry],
    async collect() {
      this.reset();
      if (!queue) return;
      try {
        for (const q of await queue.getQueues()) {
          this.set({ queue: q.name, state: "ready" }, q.readyCount);
          this.set({ queue: q.name, state: "deferred" }, q.deferredCount);
          this.set({ queue: q.name, state: "active" }, q.activeCount);
          this.set({ queue: q.name, state: "failed" }, q.failedCount);
        }
      } catch {
        /* the database is away: /readyz says so */
      }
    },
  });
  new Gauge({
    name: "ideally_db_connections",
    help: "Connections to this database by application (ideally, ideally-jobs, ideally-events) and state",
    labelNames: ["application", "state"],
    registers: [registry],
    async collect() {
      this.reset();
      if (!db) return;
      try {
        const rows = await db<{ app: string; state: string; n: number }[]>`
          select application_name as app, coalesce(state, 'unknown') as state, count(*)::int as n
          from pg_stat_activity where datname = current_database() and application_name like 'ideally%'
          group by 1, 2`;
        for (const r of rows) this.set({ application: r.app, state: r.state }, r.n);
      } catch {
        /* the database is away */
      }
    },
  });
  // The streaming replica (DATABASE_REPLICA_URL), as this process last polled it: no series without one.
  let replica: ReplicaRouter | undefined;
  new Gauge({
    name: "ideally_replica_lag_bytes",
    help: "WAL bytes the read replica has still to replay (absent when it does not answer)",
    registers: [registry],
    collect() {
      this.reset();
      if (replica?.lag.bytes != null) this.set(replica.lag.bytes);
    },
  });
  new Gauge({
    name: "ideally_replica_lag_seconds",
    help: "Seconds the read replica is behind the primary (0 when it has replayed everything)",
    registers: [registry],
    collect() {
      this.reset();
      if (replica?.lag.seconds != null) this.set(replica.lag.seconds);
    },
  });
  new Gauge({
    name: "ideally_replica_usable",
    help: "1 while the results and exports read from the replica, 0 while they read from the primary",
    registers: [registry],
    collect() {
      this.reset();
      if (replica) this.set(replica.usable() ? 1 : 0);
    },
  });
  new Gauge({
    name: "ideally_replica_reads_total",
    help: "Read transactions of the routed calls by where they ran: replica, primary (replica behind or away), fallback (retried on the primary)",
    labelNames: ["outcome"],
    registers: [registry],
    collect() {
      this.reset();
      if (replica) for (const k of Object.keys(replica.reads) as ReadOutcome[]) this.set({ outcome: k }, replica.reads[k]);
    },
  });
  const request = (method: string, route: string, status: number, seconds: number) => {
    requests.inc({ method, route, status: String(status) });
    latency.observe({ method, route }, seconds);
  };
  return {
    registry,
    replica(r) {
      replica = r;
    },
    sources(d, q) {
      db = d;
      queue = q;
    },
    jobOutcome(q, outcome) {
      jobs.inc({ queue: q, outcome });
    },
    async middleware(c, next) {
      const t0 = performance.now();
      await next();
      const route = c.req.routePath && c.req.routePath !== "*" ? c.req.routePath : "unmatched";
      request(c.req.method, route, c.res.status, (performance.now() - t0) / 1000);
    },
    request,
    websockets(count) {
      wsCount = count;
    },
  };
}

/** On any app: the route uses no variable of its environment. */
export function registerMetricsRoute<E extends Env>(app: Hono<E>, metrics: Metrics, token?: string): void {
  app.get("/metrics", async (c) => {
    // With METRICS_TOKEN set, only a scraper that sends it reads the metrics (docs/decisions.md).
    if (token !== undefined && !sameText(c.req.header("authorization") ?? "", `Bearer ${token}`)) {
      throw new ApiError("Unauthorized", "The metrics need the scrape token (Authorization: Bearer METRICS_TOKEN)");
    }
    return c.body(await metrics.registry.metrics(), 200, { "content-type": metrics.registry.contentType });
  });
}

/** Compares in time independent of where the texts differ. */
function sameText(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
