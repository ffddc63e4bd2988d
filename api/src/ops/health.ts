// Health endpoints for load balancers and orchestrators (not in the OpenAPI document: they are
// for machines, answer without sign-in, and reveal nothing but up or not):
//   GET /healthz  the process is up (no database call)
//   GET /readyz   the database answers, every migration file is applied, the job queue runs;
//                 503 with Retry-After and the failing checks otherwise
import type { Env, Hono } from "hono";
import type { Db } from "../db/client.ts";

export interface ReadinessDeps {
  db: Db;
  /** Whether the job queue is running; absent: an app without a queue (tests) counts it as not needed. */
  queueRunning?: () => boolean;
  /** The migration files this build ships (the Bun adapter reads them from disk); absent: not checked. */
  expectedMigrations?: () => string[];
}

export interface Readiness {
  ready: boolean;
  checks: { database: boolean; migrations: boolean; queue: boolean };
}

export async function readiness(deps: ReadinessDeps): Promise<Readiness> {
  const checks = { database: false, migrations: false, queue: deps.queueRunning ? deps.queueRunning() : true };
  try {
    const rows = await deps.db<{ name: string }[]>`select name from schema_migrations`;
    checks.database = true;
    const applied = new Set(rows.map((r) => r.name));
    checks.migrations = (deps.expectedMigrations?.() ?? []).every((name) => applied.has(name));
  } catch {
    // The database is unreachable (or not migrated at all): not ready.
  }
  return { ready: checks.database && checks.migrations && checks.queue, checks };
}

/** On any app: the routes use no variable of its environment. */
export function registerHealthRoutes<E extends Env>(app: Hono<E>, deps: ReadinessDeps): void {
  app.get("/healthz", (c) => c.json({ status: "ok" }, 200, { "cache-control": "no-store" }));
  app.get("/readyz", async (c) => {
    const r = await readiness(deps);
    return c.json({ status: r.ready ? "ready" : "not ready", checks: r.checks }, r.ready ? 200 : 503, r.ready ? { "cache-control": "no-store" } : { "cache-control": "no-store", "Retry-After": "5" });
  });
}
