// Prometheus metrics at /metrics (prom-client): requests per route and status, request latency
// per route, websocket connections, and the process's own (CPU, memory, event loop). The route
// label is the matched route pattern (/api/v1/Projects/:key), never the raw path, so labels stay few.
// /metrics answers anyone who reaches it: keep it off the public load balancer (docs/decisions.md).
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";
import type { Context, Hono, Next } from "hono";

export interface Metrics {
  registry: Registry;
  middleware: (c: Context, next: Next) => Promise<void>;
  /** Sets where the websocket connection count comes from (the server adapter's hub). */
  websockets(count: () => number): void;
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
  new Gauge({ name: "ideally_websocket_connections", help: "Open websocket connections", registers: [registry], collect() { this.set(wsCount()); } });
  return {
    registry,
    async middleware(c, next) {
      const t0 = performance.now();
      await next();
      const route = c.req.routePath && c.req.routePath !== "*" ? c.req.routePath : "unmatched";
      requests.inc({ method: c.req.method, route, status: String(c.res.status) });
      latency.observe({ method: c.req.method, route }, (performance.now() - t0) / 1000);
    },
    websockets(count) {
      wsCount = count;
    },
  };
}

// biome-ignore lint: the app's env type is not needed here
export function registerMetricsRoute(app: Hono<any>, metrics: Metrics): void {
  app.get("/metrics", async (c) => c.body(await metrics.registry.metrics(), 200, { "content-type": metrics.registry.contentType }));
}
