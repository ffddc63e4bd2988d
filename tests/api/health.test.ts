// /healthz answers without the database; /readyz checks the database, the migrations and the queue.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import { readiness } from "../../api/src/ops/health.ts";
import { connect } from "../../api/src/db/client.ts";
import { migrationFiles } from "../../api/src/db/migrate.ts";

const expectedMigrations = () => migrationFiles().map((f) => f.name);

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await tdb.drop();
});

test("healthz is up; readyz is ready with the database migrated and the queue running", async () => {
  let running = true;
  const app = testApp(tdb.db, { queueRunning: () => running, expectedMigrations });
  const h = await app.request("/healthz");
  expect(h.status).toBe(200);
  expect(await h.json()).toEqual({ status: "ok" });
  const r = await app.request("/readyz");
  expect(r.status).toBe(200);
  expect(await r.json()).toEqual({ status: "ready", checks: { database: true, migrations: true, queue: true } });
  running = false;
  const stopped = await app.request("/readyz");
  expect(stopped.status).toBe(503);
  expect(stopped.headers.get("Retry-After")).toBe("5");
});

test("a pending migration or an unreachable database is not ready", async () => {
  await tdb.db`delete from schema_migrations where name = (select max(name) from schema_migrations)`;
  expect((await readiness({ db: tdb.db, expectedMigrations })).checks).toEqual({ database: true, migrations: false, queue: true });
  const nowhere = connect("postgres://postgres@127.0.0.1:1/nothing", { max: 1 });
  try {
    expect((await readiness({ db: nowhere })).ready).toBe(false);
  } finally {
    await nowhere.end({ timeout: 1 });
  }
});

test("metrics count requests by route pattern, not by raw path", async () => {
  const { createMetrics } = await import("../../api/src/ops/metrics.ts");
  const metrics = createMetrics();
  metrics.websockets(() => 3);
  const app = testApp(tdb.db, { metrics });
  await app.request("/healthz");
  await app.request("/api/v1/Projects(1001)", { headers: { authorization: "Bearer acmeUser", clientId: "1003" } });
  const text = await (await app.request("/metrics")).text();
  expect(text).toContain('ideally_http_requests_total{method="GET",route="/healthz",status="200"} 1');
  expect(text).toContain('route="/api/v1/Projects/:key"');
  // No label holds the raw path's key (a process figure's digits may: a side-by-side run's
  // metrics text held "1001" in a CPU or memory value, 2026-12-07).
  const labels = [...text.matchAll(/\{([^}]*)\}/g)].map((m) => m[1]!);
  expect(labels.length).toBeGreaterThan(0);
  expect(labels.filter((l) => l.includes("1001"))).toEqual([]);
  expect(text).toContain("ideally_websocket_connections 3");
  expect(text).toContain("ideally_http_request_duration_seconds_bucket");
});
