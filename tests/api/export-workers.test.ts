// Exports built off the API's JavaScript thread (issue 38, record 0137): the export workers build
// ExportCsv and ExportExcel in threads of their own and answer the very files the service functions
// build in the calling thread (the CSV byte for byte; the workbook part for part, but for the
// moment it was written). Which thread built a file is read from the worker's own threadId
// (node:worker_threads), not from any timing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { threadId } from "node:worker_threads";
import JSZip from "jszip";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { PRINCIPALS, testApp } from "../helpers/app.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { access } from "../../api/src/access/policy.ts";
import { buildHere, defaultExportWorkers, ExportWorkers, useExportWorkers, type DataExportRequest } from "../../api/src/domains/results/export-workers.ts";
import type { App } from "../../api/src/app.ts";
import { DEFAULT_QUERY_LIMITS, readConfig, type QueryLimits } from "../../api/src/config.ts";
import { call } from "../helpers/app.ts";

let tdb: TestDb;
let db: Db;
let workers: ExportWorkers;
let app: App;

beforeAll(async () => {
  tdb = await createTestDb();
  db = connect(tdb.url, { max: 4 });
  workers = new ExportWorkers({ size: 2, db: { url: tdb.url, connections: 2 } });
  app = testApp(db);
}, 60_000);
afterAll(async () => {
  useExportWorkers(null);
  await workers?.close();
  await db?.end({ timeout: 1 });
  await tdb.drop();
});

const viewer: RequestCtx = { principal: PRINCIPALS.acmeViewer!, clientId: 1003, descendants: false, access: access.viewer };
const csv: DataExportRequest = { kind: "ProjectCsv", csv: { projectId: 1001, filters: {} } };
const excel: DataExportRequest = { kind: "ProjectExcel", excel: { projectId: 1001, filters: {}, includeAllSegments: true, confidence: 95, adjust: "bh", total: "sample" } };

/** A workbook's parts as text, but for when it was written (the core properties' dates, the cover's "Exported" line). */
async function parts(xlsx: Uint8Array): Promise<Record<string, string>> {
  const zip = await JSZip.loadAsync(xlsx);
  const out: Record<string, string> = {};
  for (const name of Object.keys(zip.files).sort()) {
    if (zip.files[name]!.dir) continue;
    out[name] = (await zip.files[name]!.async("string")).replace(/<dcterms:(created|modified)[^>]*>[^<]*<\/dcterms:\1>/g, "<dcterms:$1/>").replace(/\d{4}-\d\d-\d\d \d\d:\d\d UTC/g, "(exported)");
  }
  return out;
}

describe("the export workers", () => {
  test("a CSV is built in a worker thread, byte for byte the file the calling thread builds", async () => {
    const here = await buildHere(db, viewer, csv);
    expect(here.threadId, "the test runs on the main thread").toBe(threadId);
    const there = await workers.build(viewer, csv);
    expect(there.threadId, "built in another thread").not.toBe(threadId);
    expect(there.threadId).toBeGreaterThan(0);
    expect(there.fileName).toBe("Snack-bar-ideas.csv");
    expect(there.body).toEqual(here.body);
    expect(new TextDecoder().decode(there.body)).toStartWith("Respondent,Market,");
  }, 60_000);

  test("a workbook is built in a worker thread, the same parts as the calling thread's", async () => {
    const here = await buildHere(db, viewer, excel);
    const there = await workers.build(viewer, excel);
    expect(there.threadId).not.toBe(threadId);
    expect(there.fileName).toBe(here.fileName);
    const [a, b] = [await parts(here.body), await parts(there.body)];
    expect(Object.keys(b)).toEqual(Object.keys(a));
    expect(Object.keys(a)).toContain("xl/worksheets/sheet1.xml");
    for (const name of Object.keys(a)) expect(b[name], name).toBe(a[name]!);
  }, 60_000);

  test("the service's errors cross as they were: a project the caller cannot see is NotFound; another tenant's role is refused", async () => {
    await expect(workers.build(viewer, { kind: "ProjectCsv", csv: { projectId: 999_999, filters: {} } })).rejects.toMatchObject({ name: "ApiError", code: "NotFound", status: 404 });
    const globexOnAcme: RequestCtx = { principal: PRINCIPALS.globexAdmin!, clientId: 1003, descendants: false, access: access.viewer };
    const e = await workers.build(globexOnAcme, csv).catch((x: unknown) => x);
    const here = await buildHere(db, globexOnAcme, csv).catch((x: unknown) => x);
    expect(e, "the same error as in the calling thread").toMatchObject({ name: (here as Error).name, message: (here as Error).message });
  }, 60_000);

  test("an export whose client went away before a worker took it leaves the line", async () => {
    const gone = new AbortController();
    gone.abort();
    await expect(workers.build(viewer, csv, gone.signal)).rejects.toMatchObject({ code: "CLIENT_GONE" });
    // Three at once on two workers: the third waits for a worker, and leaves when its client does.
    const first = workers.build(viewer, excel);
    const second = workers.build(viewer, excel);
    const third = new AbortController();
    const waiting = workers.build(viewer, csv, third.signal);
    expect(workers.stats()).toEqual({ building: 2, waiting: 1, size: 2 });
    third.abort();
    await expect(waiting).rejects.toMatchObject({ code: "CLIENT_GONE" });
    expect(workers.stats().waiting).toBe(0);
    await Promise.all([first, second]);
    expect(workers.stats()).toEqual({ building: 0, waiting: 0, size: 2 });
  }, 60_000);

  test("workers by default: one per core beside the main thread's, from 1 to 4; EXPORT_WORKERS says otherwise, 0 builds in the serving thread", () => {
    expect([1, 2, 3, 4, 5, 8, 64].map((cores) => defaultExportWorkers(cores))).toEqual([1, 1, 2, 3, 4, 4, 4]);
    expect(readConfig({}).exportWorkers).toBe(defaultExportWorkers());
    expect(readConfig({ EXPORT_WORKERS: "0" }).exportWorkers).toBe(0);
    expect(readConfig({ EXPORT_WORKERS: "64" }).exportWorkers).toBe(64);
    expect(() => readConfig({ EXPORT_WORKERS: "65" })).toThrow("EXPORT_WORKERS must be a whole number from 0 to 64 (0 builds exports in the serving thread), got '65'");
    expect(() => readConfig({ EXPORT_WORKERS: "-1" })).toThrow("EXPORT_WORKERS must be a whole number from 0 to 64");
  });
});

describe("the export routes with workers", () => {
  test("ExportCsv and ExportExcel are built by a worker thread and answer the same file as without", async () => {
    const get = (path: string) => app.request(path, { headers: { authorization: "Bearer acmeViewer", clientId: "1003" } });
    useExportWorkers(null);
    const csvHere = await get("/api/v1/Projects(1001)/ExportCsv");
    const xlsxHere = await get("/api/v1/Projects(1001)/ExportExcel?includeAllSegments=true");
    const bodyHere = new Uint8Array(await csvHere.arrayBuffer());
    const partsHere = await parts(new Uint8Array(await xlsxHere.arrayBuffer()));
    useExportWorkers(workers);
    const before = [...workers.builtBy.entries()].filter(([t]) => t !== threadId).reduce((n, [, k]) => n + k, 0);
    try {
      const c = await get("/api/v1/Projects(1001)/ExportCsv");
      const x = await get("/api/v1/Projects(1001)/ExportExcel?includeAllSegments=true");
      expect(c.status).toBe(200);
      expect(x.status).toBe(200);
      for (const h of ["content-type", "content-disposition"]) {
        expect(c.headers.get(h), h).toBe(csvHere.headers.get(h));
        expect(x.headers.get(h), h).toBe(xlsxHere.headers.get(h));
      }
      expect(new Uint8Array(await c.arrayBuffer())).toEqual(bodyHere);
      expect(await parts(new Uint8Array(await x.arrayBuffer()))).toEqual(partsHere);
      const after = [...workers.builtBy.entries()].filter(([t]) => t !== threadId).reduce((n, [, k]) => n + k, 0);
      expect(after - before, "both files built by worker threads").toBe(2);
      expect(workers.builtBy.get(threadId), "none on the main thread").toBeUndefined();
      expect((await get("/api/v1/Projects(999999)/ExportCsv")).status, "a project the caller cannot see").toBe(404);
    } finally {
      useExportWorkers(null);
    }
  }, 120_000);
});

describe("an export built by a worker keeps its place in the gate", () => {
  const workerBuilds = () => [...workers.builtBy.entries()].filter(([t]) => t !== threadId).reduce((n, [, k]) => n + k, 0);
  async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      if (await check()) return true;
      await Bun.sleep(50);
    }
    return check();
  }
  const waitingOnLock = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`)[0]!.n;

  test("the tenant's costly lane held by a costly read: its export is refused 503 after its wait, never reaching a worker; once the lane is free, a worker builds it", async () => {
    const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, costlyConnections: 2, costlyTenantConnections: 1, userWaitMs: 300 };
    const gated = testApp(db, { queryLimits: limits });
    useExportWorkers(workers);
    const locker = connect(tdb.url, { max: 1 });
    const locked = await locker.reserve();
    try {
      await locked`begin`;
      await locked`lock table project_survey_sessions in access exclusive mode`;
      const first = call(gated, "acmeViewer", 1003, "GET", "/api/v1/Projects?$top=9&$expand=projectSurveySessions($top=1000;$expand=responses($top=1000))");
      expect(await until(async () => (await waitingOnLock()) === 1, 10_000), "the costly read holds the lane (on the lock)").toBe(true);
      const before = workerBuilds();
      const exp = await call(gated, "acmeUser", 1003, "GET", "/api/v1/Projects(1001)/ExportCsv");
      expect(exp.status, JSON.stringify(exp.body).slice(0, 300)).toBe(503);
      expect(exp.body.message).toContain("costly requests");
      expect(workers.stats().building, "no worker was given it").toBe(0);
      await locked`commit`;
      expect((await first).status).toBe(200);
      expect((await call(gated, "acmeUser", 1003, "GET", "/api/v1/Projects(1001)/ExportCsv")).status, "once the lane is free").toBe(200);
      expect(workerBuilds() - before, "built by a worker").toBe(1);
    } finally {
      useExportWorkers(null);
      await locked`rollback`.catch(() => {});
      locked.release();
      await locker.end({ timeout: 1 });
    }
  }, 60_000);
});
