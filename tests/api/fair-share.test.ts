// Issue 38: no tenant can slow another. The gate's order and bounds (db/gate.ts), driven with
// promises and its own counters (no timing), then through the app on the database: a costly read
// waits in its lane without holding a connection, a cheap call of the same tenant passes it, and a
// request past its wait answers 503 with the error shape and Retry-After.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { COSTLY_LANE_BUSY, ConnectionGate, type GateOptions, POOL_BUSY, TENANT_CONNECTIONS_BUSY, USER_CONNECTIONS_BUSY, tenantKey } from "../../api/src/db/gate.ts";
import { DEFAULT_QUERY_LIMITS, GATED_CONNECTIONS, API_POOL_SIZE, type QueryLimits } from "../../api/src/config.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { weighedCostly } from "../../api/src/odata/cost.ts";
import { COSTLY_ROWS } from "../../api/src/odata/limits.ts";
import { registry } from "../../api/src/entities/index.ts";
import { COSTLY_ANSWER_CHARS, PIECE_CHARS } from "../../api/src/entities/service.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { connect, type Db } from "../../api/src/db/client.ts";

const A = "client 1";
const B = "client 2";
const C = "client 3";

/** A gate with a long wait (nothing here waits for it to pass) and the given bounds. */
const gateOf = (o: Partial<GateOptions>) => new ConnectionGate({ capacity: 10, perUser: 10, perTenant: 10, costly: 2, costlyPerTenant: 1, waitMs: 60_000, ...o });

/** A request at the gate: whether it has its slot, and its release once it has. */
function ask(gate: ConnectionGate, userId: number, tenant: string, costly = false, signal?: AbortSignal) {
  const r = { got: false, refused: undefined as string | undefined, free: () => {} };
  const p = gate.acquire({ userId, tenant, costly }, signal).then(
    (free) => {
      r.got = true;
      r.free = free;
    },
    (e: { code?: string }) => {
      r.refused = e.code;
    },
  );
  return Object.assign(r, { settled: p });
}

/** Lets the promise callbacks of what the gate decided run (microtasks only: no time passes). */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await Promise.resolve();
}

describe("the gate", () => {
  test("a tenant holds at most its share, however many users it has; another tenant is not held back", async () => {
    const gate = gateOf({ perUser: 2, perTenant: 3 });
    const mine = [ask(gate, 1, A), ask(gate, 1, A), ask(gate, 2, A), ask(gate, 3, A)];
    await flush();
    expect(mine.map((r) => r.got)).toEqual([true, true, true, false]);
    expect(gate.tenantHolding(A).all, "at the tenant's share (3), its third user included").toBe(3);
    const other = ask(gate, 9, B);
    await flush();
    expect(other.got, "another tenant at once").toBe(true);
    mine[0]!.free();
    await flush();
    expect(mine[3]!.got, "a slot of the tenant given back goes to its waiting user").toBe(true);
    expect(gate.tenantHolding(A).all).toBe(3);
    for (const r of [...mine, other]) r.free();
    expect(gate.tenantHolding(A).all + gate.tenantHolding(B).all + gate.queued).toBe(0);
  });

  test("when the pool is full, a waiting request of the tenant holding fewer goes first, before an earlier one of a tenant holding more", async () => {
    const gate = gateOf({ capacity: 4 });
    const a = [ask(gate, 1, A), ask(gate, 1, A), ask(gate, 1, A)];
    const b = ask(gate, 2, B);
    await flush();
    expect(gate.tenantHolding(A).all).toBe(3);
    // The pool (4) is full: A's request comes first, B's second, C's third.
    const aLate = ask(gate, 1, A);
    const bLate = ask(gate, 2, B);
    const cLate = ask(gate, 3, C);
    await flush();
    expect(gate.queued).toBe(3);
    a[0]!.free(); // A now holds 2, B 1, C 0: C's goes first although it came last
    await flush();
    expect([aLate.got, bLate.got, cLate.got]).toEqual([false, false, true]);
    a[1]!.free(); // A 1, B 1, C 1: equal, so the earliest: A's
    await flush();
    expect([aLate.got, bLate.got]).toEqual([true, false]);
    b.free(); // A 2, B 0, C 1: B's
    await flush();
    expect(bLate.got).toBe(true);
    for (const r of [a[2]!, aLate, bLate, cLate]) r.free();
    expect(gate.queued).toBe(0);
    expect(gate.tenantHolding(A).all + gate.tenantHolding(B).all + gate.tenantHolding(C).all).toBe(0);
  });

  test("costly requests wait in their own lane: cheap calls of the same tenant and user are never queued behind them", async () => {
    const gate = gateOf({ costly: 2, costlyPerTenant: 1 });
    const c1 = ask(gate, 1, A, true);
    const c2 = ask(gate, 1, A, true);
    const c3 = ask(gate, 2, A, true);
    await flush();
    expect([c1.got, c2.got, c3.got], "one costly request per tenant").toEqual([true, false, false]);
    const cheap = [ask(gate, 1, A), ask(gate, 2, A), ask(gate, 3, A)];
    await flush();
    expect(
      cheap.map((r) => r.got),
      "cheap calls pass the costly ones waiting",
    ).toEqual([true, true, true]);
    expect(gate.tenantHolding(A), "the waiting costly requests hold nothing").toEqual({ all: 4, costly: 1 });
    const bCostly = ask(gate, 9, B, true);
    const cCostly = ask(gate, 8, C, true);
    await flush();
    expect(bCostly.got, "another tenant's costly request: the lane's second slot").toBe(true);
    expect(cCostly.got, "the lane (2) is full").toBe(false);
    c1.free(); // lane: B 1; waiting costly: A's two (A holds 3 cheap), C's (holds 0): C first
    await flush();
    expect([c2.got, c3.got, cCostly.got]).toEqual([false, false, true]);
    cCostly.free(); // C holds 0 again but waits for nothing; A's earliest goes
    await flush();
    expect([c2.got, c3.got]).toEqual([true, false]);
    for (const r of [c2, ...cheap, bCostly]) r.free();
    await flush();
    expect(c3.got, "then the last").toBe(true);
    c3.free();
    expect(gate.tenantHolding(A)).toEqual({ all: 0, costly: 0 });
  });

  test("a waiter held by its own user's share holds back no one behind it", async () => {
    const gate = gateOf({ perUser: 1, capacity: 3 });
    const first = ask(gate, 1, A);
    const again = ask(gate, 1, A);
    const otherUser = ask(gate, 2, A);
    await flush();
    expect([first.got, again.got, otherUser.got]).toEqual([true, false, true]);
    first.free();
    await flush();
    expect(again.got).toBe(true);
    again.free();
    otherUser.free();
  });

  test("past its wait a request is refused with the bound that held it, having held nothing", async () => {
    const cases: [Partial<GateOptions>, boolean, string][] = [
      [{ perUser: 1 }, false, USER_CONNECTIONS_BUSY],
      [{ perTenant: 1 }, false, TENANT_CONNECTIONS_BUSY],
      [{ costlyPerTenant: 1 }, true, COSTLY_LANE_BUSY],
      [{ capacity: 1 }, false, POOL_BUSY],
    ];
    for (const [o, costly, code] of cases) {
      const gate = gateOf({ ...o, waitMs: 0 });
      const held = ask(gate, 1, A, costly);
      await flush();
      expect(held.got).toBe(true);
      const late = ask(gate, 1, A, costly);
      await late.settled;
      expect(late.refused, code).toBe(code);
      expect(gate.tenantHolding(A).all, "the refused one holds no slot").toBe(1);
      expect(gate.queued).toBe(0);
      held.free();
      held.free(); // twice: counted once
      expect(gate.tenantHolding(A)).toEqual({ all: 0, costly: 0 });
    }
  });

  test("a request whose client went away leaves the queue; one gone before it asks is refused at once", async () => {
    const gate = gateOf({ costlyPerTenant: 1 });
    const held = ask(gate, 1, A, true);
    const ac = new AbortController();
    const waiting = ask(gate, 2, A, true, ac.signal);
    await flush();
    expect(gate.queued).toBe(1);
    ac.abort();
    await waiting.settled;
    expect(waiting.refused).toBe("CLIENT_GONE");
    expect(gate.queued).toBe(0);
    const gone = ask(gate, 3, B, false, ac.signal);
    await gone.settled;
    expect(gone.refused).toBe("CLIENT_GONE");
    held.free();
    expect(gate.tenantHolding(A).costly).toBe(0);
  });

  test("bounds that are not whole numbers from 1 are refused", () => {
    expect(() => gateOf({ costlyPerTenant: 0 })).toThrow("gate: costlyPerTenant must be a whole number from 1, got 0");
    expect(() => gateOf({ waitMs: -1 })).toThrow("gate: waitMs must be a whole number, got -1");
  });

  test("the defaults: two connections of the pool stay outside the gate; a tenant's share leaves two to the others; one costly request per tenant, two in all", () => {
    expect(GATED_CONNECTIONS).toBe(API_POOL_SIZE - 2);
    expect(GATED_CONNECTIONS - DEFAULT_QUERY_LIMITS.tenantConnections).toBe(2);
    expect(DEFAULT_QUERY_LIMITS.costlyTenantConnections).toBe(1);
    expect(DEFAULT_QUERY_LIMITS.costlyConnections).toBe(2);
    expect(tenantKey(1003, 9004)).toBe("client 1003");
    expect(tenantKey(null, 9001), "a staff call naming no client counts as its user's own").toBe("user 9001");
  });
});

describe("what is weighed costly before it runs", () => {
  const weigh = (set: string, query: Record<string, string>) => weighedCostly(parseQuery(query, registry.sets.get(set)!, registry));

  test("by the rows it may produce: at COSTLY_ROWS and above", () => {
    expect(COSTLY_ROWS).toBe(100_000);
    // By hand: 100 projects with 999 sessions each is 99,900 rows, and the page's 100: 100,000.
    expect(weigh("Projects", { $top: "100", $expand: "projectSurveySessions($top=999)" }), "100,000: at the bound").toBe(true);
    // 100 + 100 * 998 = 99,900: under.
    expect(weigh("Projects", { $top: "100", $expand: "projectSurveySessions($top=998)" }), "99,900: under").toBe(false);
    // The flood: 9 + 9 * 1000 + 9 * 1000 * 1000 = 9,009,009.
    expect(weigh("Projects", { $top: "9", $expand: "projectSurveySessions($top=1000;$expand=responses($top=1000))" })).toBe(true);
    // A page of the web app: the default page (100), a to-one expansion (1 row each, not counted).
    expect(weigh("Projects", { $expand: "client($select=name),status" })).toBe(false);
    // An expansion without $top counts as 100: 100 + 100 * 100 = 10,100.
    expect(weigh("ProjectGroups", { $expand: "projectGroupVersions" })).toBe(false);
    // Two levels without $top: 100 + 10,000 + 1,000,000.
    expect(weigh("ProjectGroups", { $expand: "projectGroupVersions($expand=projects)" })).toBe(true);
  });

  test("by the lambdas nested in its filter: two (the most the budget allows) are costly, one is not", () => {
    expect(weigh("Responses", { $top: "1", $filter: "project/projectSurveySessions/any(a: a/responses/any(b: b/id gt 5))" })).toBe(true);
    expect(weigh("Responses", { $top: "1", $filter: "project/projectSurveySessions/any(a: a/id gt 5)" })).toBe(false);
  });
});

describe("the costly lane through the app", () => {
  let tdb: TestDb;
  let pool: Db;
  beforeAll(async () => {
    tdb = await createTestDb();
    pool = connect(tdb.url, { max: 10 });
  });
  afterAll(async () => {
    await pool?.end({ timeout: 1 });
    await tdb.drop();
  });

  /** Statements of the test database waiting for a lock now. */
  async function waitingOnLock(): Promise<number> {
    const [row] = await tdb.db<{ n: number }[]>`
      select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`;
    return row!.n;
  }
  async function until(check: () => Promise<boolean>, ms: number): Promise<boolean> {
    const end = performance.now() + ms;
    while (performance.now() < end) {
      if (await check()) return true;
      await Bun.sleep(50);
    }
    return check();
  }

  test("a costly read holds the tenant's lane; the tenant's next costly read is refused 503 after its wait, its cheap calls answer meanwhile, another tenant's costly read runs", async () => {
    const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, costlyConnections: 2, costlyTenantConnections: 1, userWaitMs: 300 };
    const app = testApp(pool, { queryLimits: limits });
    const costly = "/api/v1/Projects?$top=9&$expand=projectSurveySessions($top=1000;$expand=responses($top=1000))";
    // Hold the sessions table, so the first costly read, once admitted, waits in the database
    // (holding its lane slot) until the lock is let go: no timing decides who holds what.
    const locker = connect(tdb.url, { max: 1 });
    const locked = await locker.reserve();
    try {
      await locked`begin`;
      await locked`lock table project_survey_sessions in access exclusive mode`;
      const first = call(app, "acmeViewer", 1003, "GET", costly);
      expect(await until(async () => (await waitingOnLock()) === 1, 10_000), "the first costly read runs (on the lock)").toBe(true);

      const second = await call(app, "acmeUser", 1003, "GET", costly);
      expect(second.status).toBe(503);
      expect(second.headers.get("retry-after")).toBe("2");
      expect(second.body.typename).toBe("ServiceUnavailable");
      expect(second.body.message).toContain("costly requests (large reads, exports, cross-tabs) run 1 at a time per client and 2 at a time in all");
      expect(await waitingOnLock(), "the refused one never reached the database").toBe(1);

      const cheap = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects?$top=1&$select=id");
      expect(cheap.status, "the same tenant's cheap call is not queued behind its costly ones").toBe(200);

      const other = call(app, "globexAdmin", 2001, "GET", costly);
      expect(await until(async () => (await waitingOnLock()) === 2, 10_000), "another tenant's costly read runs beside it").toBe(true);

      await locked`commit`;
      const [a, b] = await Promise.all([first, other]);
      expect(a.status).toBe(200);
      expect(b.status).toBe(200);
    } finally {
      await locked`rollback`.catch(() => {});
      locked.release();
      await locker.end({ timeout: 1 });
    }
  }, 60_000);

  test("an export is weighed costly by its route", async () => {
    const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, costlyConnections: 2, costlyTenantConnections: 1, userWaitMs: 300 };
    const app = testApp(pool, { queryLimits: limits });
    const locker = connect(tdb.url, { max: 1 });
    const locked = await locker.reserve();
    try {
      await locked`begin`;
      await locked`lock table project_survey_sessions in access exclusive mode`;
      const first = call(app, "acmeViewer", 1003, "GET", "/api/v1/Projects?$top=9&$expand=projectSurveySessions($top=1000;$expand=responses($top=1000))");
      expect(await until(async () => (await waitingOnLock()) === 1, 10_000)).toBe(true);
      const exp = await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(1001)/ExportCsv");
      expect(exp.status, JSON.stringify(exp.body).slice(0, 300)).toBe(503);
      expect(exp.body.message).toContain("costly requests");
      await locked`commit`;
      expect((await first).status).toBe(200);
      expect((await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(1001)/ExportCsv")).status, "once the lane is free").toBe(200);
    } finally {
      await locked`rollback`.catch(() => {});
      locked.release();
      await locker.end({ timeout: 1 });
    }
  }, 60_000);

  test("a read that answered COSTLY_ANSWER_CHARS or more is weighed costly from then on, whatever its bound", async () => {
    // 90 more sessions of project 1001 with 150 responses each (13,500 rows, about 420 characters
    // of JSON each): the read below may produce 90 + 90 * 1000 = 90,090 rows (under COSTLY_ROWS)
    // and answers about 5.6 million characters (over COSTLY_ANSWER_CHARS).
    expect(COSTLY_ANSWER_CHARS).toBe(4_000_000);
    await tdb.db.begin(async (tx) => {
      await tx`set local session_replication_role = replica`;
      await tx`
        insert into project_survey_sessions (id, client_id, project_id, survey_session_id, survey_run_id, region_id, is_customer_panel, status, weight, week, created_at, updated_at)
        select 500000 + g, client_id, project_id, 500000 + g, survey_run_id, region_id, is_customer_panel, status, weight, week, created_at, updated_at
        from project_survey_sessions s cross join generate_series(1, 90) g where s.id = 1001`;
      await tx`
        insert into responses (id, client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, is_customer_panel,
                               project_question_id, question_id, standard_question_id, test_option_id, question_option_id, system_question_id,
                               system_question_option_id, standard_answer_value, numeric_value, created_at)
        select 5000000 + g * 1000 + k, client_id, project_id, survey_run_id, 500000 + g, 500000 + g, region_id, is_customer_panel,
               project_question_id, question_id, standard_question_id, test_option_id, question_option_id, system_question_id,
               system_question_option_id, standard_answer_value, numeric_value, created_at
        from responses r cross join generate_series(1, 90) g cross join generate_series(1, 150) k where r.id = (select min(id) from responses where project_survey_session_id = 1001)`;
    });
    const big = "/api/v1/ProjectSurveySessions?$top=90&$orderby=id desc&$expand=responses($top=1000)";
    expect(weighedCostly(parseQuery({ $top: "90", $orderby: "id desc", $expand: "responses($top=1000)" }, registry.sets.get("ProjectSurveySessions")!, registry)), "not by its bound").toBe(false);
    const limits: QueryLimits = { ...DEFAULT_QUERY_LIMITS, costlyConnections: 2, costlyTenantConnections: 1, userWaitMs: 300 };
    const app = testApp(pool, { queryLimits: limits });
    const locker = connect(tdb.url, { max: 1 });
    const locked = await locker.reserve();
    try {
      // Acme's costly lane held by a read of project weeks (100 + 100 * 1000 rows: costly by its bound) waiting on a lock.
      await locked`begin`;
      await locked`lock table project_weeks in access exclusive mode`;
      const holder = call(app, "acmeViewer", 1003, "GET", "/api/v1/Projects?$top=100&$expand=projectWeeks($top=1000)");
      expect(await until(async () => (await waitingOnLock()) === 1, 10_000)).toBe(true);
      const once = await call(app, "acmeUser", 1003, "GET", big);
      expect(once.status, "the first time it runs in the cheap lane").toBe(200);
      expect(JSON.stringify(once.body).length).toBeGreaterThan(COSTLY_ANSWER_CHARS);
      const again = await call(app, "acmeUser", 1003, "GET", big);
      expect(again.status, "then it waits for the costly lane, held: refused after the wait").toBe(503);
      expect(again.body.message).toContain("costly requests");
      await locked`commit`;
      expect((await holder).status).toBe(200);
      // Read as costly, its answer comes in pieces of PIECE_CHARS characters (6 here), never joined: the same body.
      expect(JSON.stringify(once.body).length).toBeGreaterThan(5 * PIECE_CHARS);
      const pieced = await call(app, "acmeUser", 1003, "GET", big);
      expect(pieced.status).toBe(200);
      expect(pieced.body).toEqual(once.body);
    } finally {
      await locked`rollback`.catch(() => {});
      locked.release();
      await locker.end({ timeout: 1 });
    }
  }, 60_000);
});
