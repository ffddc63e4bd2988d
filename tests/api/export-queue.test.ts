// Synchronous exports bounded per user and per tenant (issue 38, record 0134): within the bound
// ExportCsv and ExportExcel answer the file; beyond it the export is queued as a job (202 with its
// id, the shape PowerPointExport answers), its progress published on job-{id}, and its file, the
// same a synchronous export gives, downloaded when done. Exports are held open deterministically:
// a table lock keeps the export building in the database (counted in pg_stat_activity) until the
// test lets go, and the tenant's other exports in flight wait for its turn (counted by the
// process's ExportTurns, which this test shares with the app); no timing decides what is in flight.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import JSZip from "jszip";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { DEFAULT_QUERY_LIMITS, type QueryLimits } from "../../api/src/config.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers } from "../../api/src/jobs/workers.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";
import { dataExportJob } from "../../api/src/domains/results/exports.jobs.ts";
import { ExportBound, ExportTurns, exportTurns } from "../../api/src/domains/results/export-bound.ts";
import { QUEUED_EXPORTS_PER_USER } from "../../api/src/config.ts";
import type { App } from "../../api/src/app.ts";

describe("the bound's count", () => {
  test("a place while the user is under its bound and the tenant under its own; given back once", () => {
    const b = new ExportBound({ perUser: 2, perTenant: 3 });
    const viewer = { userId: 1, tenant: "client 7" };
    const user = { userId: 2, tenant: "client 7" };
    const r1 = b.enter(viewer);
    const r2 = b.enter(viewer);
    expect(r1 && r2, "exactly 2 of one user: both in").toBeTruthy();
    expect(b.enter(viewer), "a third of the same user: beyond").toBeNull();
    const r3 = b.enter(user);
    expect(r3, "another user of the tenant, the tenant's third: in").toBeTruthy();
    expect(b.enter(user), "the tenant's fourth: beyond, though its user has one").toBeNull();
    expect(b.enter({ userId: 3, tenant: "client 8" }), "another tenant: in").toBeTruthy();
    r1!();
    r1!();
    expect(b.inFlight(viewer), "a release counts once").toEqual({ user: 1, tenant: 2 });
    expect(b.enter(viewer), "a place given back is taken again").toBeTruthy();
    expect(() => new ExportBound({ perUser: 0, perTenant: 3 })).toThrow("perUser must be a whole number from 1");
  });
});

describe("a tenant's turns at building", () => {
  test("one export of a tenant builds at a time, the others in the order they came; another tenant's at once; a waiter whose client left leaves", async () => {
    const t = new ExportTurns();
    const order: string[] = [];
    const first = await t.take("client 7");
    const noted = (name: string) => (r: () => void) => {
      order.push(name);
      return r;
    };
    const second = t.take("client 7").then(noted("second"));
    const gone = new AbortController();
    const third = t.take("client 7", gone.signal);
    const fourth = t.take("client 7").then(noted("fourth"));
    const other = await t.take("client 8");
    expect(t.of("client 7")).toEqual({ building: 1, waiting: 3 });
    gone.abort();
    await expect(third).rejects.toMatchObject({ code: "CLIENT_GONE" });
    expect(t.of("client 7")).toEqual({ building: 1, waiting: 2 });
    first();
    first();
    (await second)();
    (await fourth)();
    expect(order).toEqual(["second", "fourth"]);
    expect(t.of("client 7")).toEqual({ building: 0, waiting: 0 });
    other();
    expect(t.of("client 8")).toEqual({ building: 0, waiting: 0 });
  });
});

describe("exports beyond the bound are queued", () => {
  let tdb: TestDb;
  let pool: Db;
  let queue: Queue;
  let app: App;
  const events: NotifiedEvent[] = [];
  let unsubscribe: () => Promise<void>;
  // All admitted exports reach the database at once (a lane as wide as the bound), so the lock
  // below holds each of them there and they can be counted.
  // A request whose user's queue is full waits up to userWaitMs for a place: 1 s here.
  const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, syncExportsPerUser: 2, syncExportsPerTenant: 4, costlyConnections: 8, costlyTenantConnections: 8, userWaitMs: 1000 };

  beforeAll(async () => {
    tdb = await createTestDb();
    pool = connect(tdb.url, { max: 12 });
    queue = await startQueue(tdb.url, () => {});
    await registerWorkers(queue, tdb.db, [dataExportJob], { log: () => {} });
    unsubscribe = await subscribe(tdb.url, (e) => events.push(e));
    app = testApp(pool, { queue, queryLimits: limits });
  }, 60_000);
  afterAll(async () => {
    await unsubscribe?.();
    await queue?.stop({ graceful: true, timeout: 5000 });
    await pool?.end({ timeout: 1 });
    await tdb.drop();
  });

  const who = { acmeViewer: 1003, acmeUser: 1003, acmeAdmin: 1003, globexAdmin: 2001 } as const;
  const get = (user: keyof typeof who, path: string) => app.request(path, { headers: { authorization: `Bearer ${user}`, clientId: String(who[user]) } });

  async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      if (await check()) return true;
      await Bun.sleep(50);
    }
    return check();
  }
  /** Requests of the test database's app and jobs waiting for the lock now. */
  async function waitingOnLock(): Promise<number> {
    const [row] = await tdb.db<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    return row!.n;
  }
  /** Exports of a tenant in flight in this process: building (held on the lock) and waiting for the tenant's turn. */
  const turns = (client: number) => exportTurns.of(`client ${client}`);
  /** Runs `fn` with project_survey_sessions locked: every export that reads it waits until fn is done. */
  async function withLock<T>(fn: () => Promise<T>): Promise<T> {
    const locker = connect(tdb.url, { max: 1 });
    const locked = await locker.reserve();
    try {
      await locked`begin`;
      await locked`lock table project_survey_sessions in access exclusive mode`;
      const out = await fn();
      await locked`commit`;
      return out;
    } finally {
      await locked`rollback`.catch(() => {});
      locked.release();
      await locker.end({ timeout: 1 });
    }
  }
  /** The job's file, once it is kept (the job's Success comes right after). */
  async function exportOf(jobId: string): Promise<string> {
    expect(await until(async () => (await tdb.db`select 1 from export_files where job_id = ${jobId}`).length === 1, 60_000), `job ${jobId} kept its file`).toBe(true);
    const [r] = await tdb.db<{ id: string }[]>`select id::text from export_files where job_id = ${jobId}`;
    return r!.id;
  }
  const bytes = async (res: Response) => new Uint8Array(await res.arrayBuffer());

  test("one user: exactly 2 in flight answer the file, the third is queued and completes with the same bytes; another user and another tenant are not queued", async () => {
    const csv = "/api/v1/Projects(1001)/ExportCsv";
    const { held, third, user, globex } = await withLock(async () => {
      const held = [get("acmeViewer", csv), get("acmeViewer", csv)];
      expect(await until(async () => (await waitingOnLock()) === 1 && turns(1003).waiting === 1, 20_000), "the user's two exports are in flight").toBe(true);
      const third = await get("acmeViewer", csv);
      // The same tenant's other user (the tenant at 2 of 4) and another tenant: answered in the request.
      const user = get("acmeUser", csv);
      const globex = get("globexAdmin", "/api/v1/Projects(2001)/ExportCsv");
      expect(
        await until(async () => turns(1003).waiting >= 2 && turns(2001).building === 1 && (await waitingOnLock()) === 2, 20_000),
        "the other user's export waits for its tenant's turn; the other tenant's builds",
      ).toBe(true);
      return { held, third, user, globex };
    });
    expect(third.status).toBe(202);
    const { jobId } = (await third.json()) as { jobId: string };
    expect(jobId).toMatch(/^[0-9a-f-]{36}$/);
    const answers = await Promise.all(held);
    for (const a of answers) {
      expect(a.status).toBe(200);
      expect(a.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    }
    const sync = await bytes(answers[0]!);
    expect(new TextDecoder().decode(sync)).toStartWith("Respondent,Market,");
    expect((await user).status, "another user of the tenant under its bound").toBe(200);
    const g = await globex;
    expect(g.status, "another tenant's export at the same time").toBe(200);
    expect(new TextDecoder().decode(await bytes(g))).toStartWith("Respondent,Market,");

    const id = await exportOf(jobId);
    const dl = await get("acmeViewer", `/api/v1/Projects(1001)/ExportCsv/${id}`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get("content-type")).toBe("text/csv; charset=utf-8");
    expect(dl.headers.get("content-disposition")).toBe('attachment; filename="Snack-bar-ideas.csv"');
    expect(await bytes(dl), "the queued file is the synchronous one").toEqual(sync);
    const byJob = await get("acmeViewer", `/api/v1/Projects(1001)/ExportCsv/${jobId}`);
    expect(await bytes(byJob), "downloadable by the job's id too").toEqual(sync);

    // Progress, then Success naming the download, on the job's channel, for the user who asked.
    expect(await until(async () => events.some((e) => e.channel === `job-${jobId}` && e.event === "Success"), 20_000)).toBe(true);
    const mine = events.filter((e) => e.channel === `job-${jobId}`);
    expect(mine.filter((e) => e.event === "Progress").length).toBeGreaterThanOrEqual(2);
    const success = mine.find((e) => e.event === "Success")!;
    expect(success.userId).toBe(9005);
    expect(success.data).toMatchObject({ result: { exportId: id, fileName: "Snack-bar-ideas.csv", sizeBytes: sync.byteLength, download: `/api/v1/Projects(1001)/ExportCsv/${id}` } });

    expect((await get("globexAdmin", `/api/v1/Projects(1001)/ExportCsv/${id}`)).status, "another tenant cannot download it").toBe(404);
    expect((await get("acmeViewer", `/api/v1/Projects(1001)/ExportExcel/${id}`)).status, "nor is it a workbook").toBe(404);
  }, 120_000);

  test("one tenant: exactly 4 in flight over its users answer the file, the fifth is queued", async () => {
    const csv = "/api/v1/Projects(1001)/ExportCsv";
    const { held, fifth } = await withLock(async () => {
      const held = [get("acmeViewer", csv), get("acmeViewer", csv), get("acmeUser", csv)];
      expect(await until(async () => (await waitingOnLock()) === 1 && turns(1003).waiting === 2, 20_000)).toBe(true);
      // The fourth: the tenant at 3 of 4 and its user at 0 of 2, so it runs in the request.
      held.push(get("acmeAdmin", csv));
      expect(await until(async () => turns(1003).waiting === 3, 20_000), "the tenant's fourth is in flight").toBe(true);
      // The fifth: its user holds none, its tenant holds 4.
      const fifth = await get("acmeUser", csv);
      return { held, fifth };
    });
    expect(fifth.status).toBe(202);
    for (const a of await Promise.all(held)) expect(a.status).toBe(200);
    await exportOf(((await fifth.json()) as { jobId: string }).jobId);
  }, 120_000);

  test("a queued workbook is the synchronous one (every part but the time it was written)", async () => {
    const xlsx = "/api/v1/Projects(1001)/ExportExcel?confidence=90";
    const { held, queued } = await withLock(async () => {
      const held = [get("acmeAdmin", xlsx), get("acmeAdmin", xlsx)];
      expect(await until(async () => (await waitingOnLock()) === 1 && turns(1003).waiting === 1, 20_000)).toBe(true);
      return { held, queued: await get("acmeAdmin", xlsx) };
    });
    expect(queued.status).toBe(202);
    const [a] = await Promise.all(held);
    expect(a!.status).toBe(200);
    const sync = await JSZip.loadAsync(await a!.arrayBuffer());
    const id = await exportOf(((await queued.json()) as { jobId: string }).jobId);
    const dl = await get("acmeAdmin", `/api/v1/Projects(1001)/ExportExcel/${id}`);
    expect(dl.status).toBe(200);
    expect(dl.headers.get("content-type")).toBe("application/vnd.openxmlformats-officedocument.spreadsheetml.sheet");
    const job = await JSZip.loadAsync(await dl.arrayBuffer());
    const partsOf = (z: JSZip) =>
      Object.keys(z.files)
        .filter((f) => !z.files[f]!.dir && f !== "docProps/core.xml")
        .sort();
    const parts = partsOf(sync);
    expect(partsOf(job)).toEqual(parts);
    expect(parts).toContain("xl/worksheets/sheet2.xml");
    // The "Exported" cell carries the minute each was written (two builds a second apart can
    // straddle a minute: seen in a clean run at 23:57 and 23:58): both must carry one, the rest equal.
    const stamp = /(<si><t>Exported<\/t><\/si><si><t>)\d{4}-\d\d-\d\d \d\d:\d\d UTC/;
    const written = (s: string) => s.replace(stamp, "$1(the minute written) UTC");
    const strings = "xl/sharedStrings.xml";
    expect(await sync.file(strings)!.async("string")).toMatch(stamp);
    expect(await job.file(strings)!.async("string")).toMatch(stamp);
    for (const p of parts) expect(written((await job.file(p)?.async("string")) ?? ""), p).toBe(written(await sync.file(p)!.async("string")));
  }, 120_000);

  test("a queued export of a project the caller cannot see is refused as the synchronous one is, nothing queued", async () => {
    const csv = "/api/v1/Projects(2001)/ExportCsv";
    const jobs = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from pgboss.job where name = 'exports.data'`)[0]!.n;
    const before = await jobs();
    const { held, refused } = await withLock(async () => {
      const held = [get("acmeViewer", "/api/v1/Projects(1001)/ExportCsv"), get("acmeViewer", "/api/v1/Projects(1001)/ExportCsv")];
      expect(await until(async () => (await waitingOnLock()) === 1 && turns(1003).waiting === 1, 20_000)).toBe(true);
      return { held, refused: await get("acmeViewer", csv) };
    });
    expect(refused.status).toBe(404);
    expect(((await refused.json()) as { message: string }).message).toBe("No project 2001");
    expect(await jobs(), "nothing was queued").toBe(before);
    for (const a of await Promise.all(held)) expect(a.status).toBe(200);
  }, 120_000);

  test("the queue is bounded too: a user with QUEUED_EXPORTS_PER_USER exports queued and not done waits for a place, then gets 429 with Retry-After, nothing more queued", async () => {
    const csv = "/api/v1/Projects(1001)/ExportCsv";
    const pending = async () =>
      (await tdb.db<{ n: number }[]>`select count(*)::int as n from pgboss.job where name = 'exports.data' and state in ('created', 'retry', 'active') and data->'origin'->>'userId' = '9004'`)[0]!.n;
    const { held, queued, refused, pendingAtRefusal } = await withLock(async () => {
      const held = [get("acmeUser", csv), get("acmeUser", csv)];
      expect(await until(async () => (await waitingOnLock()) === 1 && turns(1003).waiting === 1, 20_000)).toBe(true);
      // Exactly QUEUED_EXPORTS_PER_USER are queued (the first job waits on the lock, the rest behind it).
      const queued: Response[] = [];
      for (let i = 0; i < QUEUED_EXPORTS_PER_USER; i++) queued.push(await get("acmeUser", csv));
      const refused = await get("acmeUser", csv);
      return { held, queued, refused, pendingAtRefusal: await pending() };
    });
    expect(queued.map((r) => r.status)).toEqual(Array.from({ length: QUEUED_EXPORTS_PER_USER }, () => 202));
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("10");
    expect(((await refused.json()) as { message: string }).message).toBe(`This account already has ${QUEUED_EXPORTS_PER_USER} exports queued; retry when one of them is done`);
    expect(pendingAtRefusal, "nothing more was queued").toBe(QUEUED_EXPORTS_PER_USER);
    for (const a of await Promise.all(held)) expect(a.status).toBe(200);
    expect(await until(async () => (await pending()) === 0, 120_000), "the queued ones all run").toBe(true);
    expect((await get("acmeUser", csv)).status, "and then the user exports again").toBe(200);
  }, 180_000);
});
