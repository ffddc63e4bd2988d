// readAsTenant as one extended-protocol pipeline (db/tx.ts, patches/postgres@3.4.9.patch): once
// the entry and the statement are prepared on a connection, a read goes out as one query of
// postgres.js with statements `before` it: Bind/Execute of the settings and of the entry,
// Bind/Execute of the statement and one Sync, with no BEGIN or COMMIT: PostgreSQL runs them in one
// implicit transaction. The statement must never run outside it: a failed entry fails
// the statement too (without running it), nothing hangs, the role is the app role, row-level
// security applies, the statement timeout bounds it, and a statement is never retried on its own.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { readAsTenant } from "../../api/src/db/tx.ts";

let tdb: TestDb;
/** One connection, so every read after the first finds its statements prepared. */
let one: Db;
const texts: string[] = [];
beforeAll(async () => {
  tdb = await createTestDb();
  one = connect(tdb.url, { max: 1, onQuery: (t) => texts.push(t) });
});
afterAll(async () => {
  await one?.end({ timeout: 1 });
  await tdb.drop();
});

const globex = { userId: 9006, clientId: 2001, descendants: false };
const noMembership = { userId: 9006, clientId: 1003, descendants: false };

/** Which transaction statements a read sent (BEGIN/COMMIT: the first-use path). */
async function sent<T>(f: () => Promise<T>): Promise<{ value: T; controls: string[] }> {
  texts.length = 0;
  const value = await f();
  return { value, controls: texts.filter((t) => /^(begin|commit|rollback)$/i.test(t.trim())) };
}

const WHO = `select current_user::text as who, current_setting('app.user_id') as uid, current_setting('app.client_ids') as ids,
  (select count(*)::int from projects where client_id <> $1 and id <> 1001) as others, (select count(*)::int from projects) as visible`;

/** Runs once per call, at session level (survives the read's transaction): counts executions. */
const BUMP = `select set_config('h5.ran', (coalesce(nullif(current_setting('h5.ran', true), ''), '0')::int + $1)::text, false) as ran`;
const ran = async () => Number((await one<{ v: string | null }[]>`select current_setting('h5.ran', true) as v`)[0]!.v ?? 0);

describe("readAsTenant as one pipeline", () => {
  test("the first read on a connection prepares with BEGIN/COMMIT; the next is one pipeline, as the app role, in the tenant", async () => {
    const owner = await tdb.db<{ n: number }[]>`select count(*)::int as n from projects where client_id <> 2001 and id <> 1001`;
    expect(owner[0]!.n, "other clients' projects exist").toBeGreaterThan(0);
    const first = await sent(() => readAsTenant<{ who: string; others: number }>(one, globex, WHO, [2001]));
    expect(first.controls, "first use: the statements are described inside BEGIN/COMMIT").toEqual(["begin", "commit"]);
    const reserve = one.reserve;
    let reserved = 0;
    one.reserve = (() => (reserved++, reserve())) as typeof reserve;
    const second = await sent(() => readAsTenant<{ who: string; uid: string; ids: string; others: number; visible: number }>(one, globex, WHO, [2001])).finally(() => {
      one.reserve = reserve;
    });
    expect(second.controls, "prepared: no BEGIN, no COMMIT").toEqual([]);
    expect(reserved, "one query on the pool: no connection reserved for it").toBe(0);
    const [row] = second.value;
    expect(row!.who, "the app role, not the connection's superuser").toBe("ideally_app");
    expect(row!.uid, "the entry's settings are the statement's: one transaction").toBe("9006");
    expect(row!.ids).toBe("2001");
    expect(row!.others, "row-level security hides other clients' rows").toBe(0);
    expect(row!.visible).toBeGreaterThan(0);
    const after = await one<{ who: string; uid: string }[]>`select current_user::text as who, coalesce(current_setting('app.user_id', true), '') as uid`;
    expect(after[0], "nothing of the pipeline's transaction stays on the connection").toEqual({ who: "postgres", uid: "" });
  });

  test("a failed entry in the pipeline fails the read with its error; the statement does not run; nothing hangs", async () => {
    await readAsTenant(one, globex, BUMP, [1]);
    await readAsTenant(one, globex, BUMP, [1]);
    const before = await ran();
    const r = await sent(() => readAsTenant(one, noMembership, BUMP, [1]).then(() => "resolved", (e: Error) => e.message));
    expect(r.controls, "it was the pipeline").toEqual([]);
    expect(r.value).toMatch(/no access/);
    expect(await ran(), "the statement behind the failed entry never ran").toBe(before);
    // Twice more, and a good read after: the connection's answers are still in step.
    await expect(readAsTenant(one, noMembership, BUMP, [1])).rejects.toThrow(/no access/);
    await readAsTenant(one, globex, BUMP, [1]);
    expect(await ran()).toBe(before + 1);
    const [row] = await readAsTenant<{ who: string }>(one, globex, WHO, [2001]);
    expect(row!.who).toBe("ideally_app");
  });

  test("a failing statement in the pipeline rejects, and rolls back the entry with it", async () => {
    const q = `select 10 / $1::int as x`;
    expect((await readAsTenant<{ x: number }>(one, globex, q, [2]))[0]!.x).toBe(5);
    const r = await sent(() => readAsTenant(one, globex, q, [0]).then(() => "resolved", (e: Error) => e.message));
    expect(r.controls).toEqual([]);
    expect(r.value).toMatch(/division by zero/);
    expect((await readAsTenant<{ x: number }>(one, globex, q, [5]))[0]!.x).toBe(2);
    const after = await one<{ who: string }[]>`select current_user::text as who`;
    expect(after[0]!.who).toBe("postgres");
  });

  test("the statement timeout set by the entry bounds the statement in the pipeline", async () => {
    const q = `select pg_sleep($1::float8) as s`;
    await readAsTenant(one, globex, q, [0]);
    const limited = { ...globex, limits: { statementTimeoutMs: 300 } };
    const t0 = performance.now();
    const r = await sent(() => readAsTenant(one, limited, q, [5]).then(() => "resolved", (e: { code?: string }) => e.code));
    const ms = performance.now() - t0;
    expect(r.controls, "it was the pipeline").toEqual([]);
    expect(r.value, "canceled by the statement timeout").toBe("57014");
    expect(ms).toBeLessThan(3000);
    const [row] = await one<{ t: string }[]>`select current_setting('statement_timeout') as t`;
    expect(row!.t, "the timeout was transaction-local").toBe("0");
  });

  test("the statement timeout bounds the entry too (a lock it waits for)", async () => {
    await readAsTenant(one, globex, WHO, [2001]);
    const limited = { ...globex, limits: { statementTimeoutMs: 300 } };
    const locker = await tdb.db.reserve();
    try {
      await locker`begin`;
      await locker`lock table app_auth_epoch in access exclusive mode`;
      const t0 = performance.now();
      const r = await sent(() => readAsTenant(one, limited, WHO, [2001]).then(() => "resolved", (e: { code?: string }) => e.code));
      expect(r.controls, "it was the pipeline").toEqual([]);
      expect(r.value, "the entry, waiting on the epoch's lock, was stopped by the timeout").toBe("57014");
      expect(performance.now() - t0).toBeLessThan(3000);
    } finally {
      await locker`rollback`;
      locker.release();
    }
  });

  test("the client going away cancels the pipelined statement in the database", async () => {
    const q = `select pg_sleep($1::float8) as s, 'h5-cancel' as tag`;
    await readAsTenant(one, globex, q, [0]);
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 200);
    const t0 = performance.now();
    const r = await sent(() => readAsTenant(one, { ...globex, limits: { signal: ac.signal } }, q, [20]).then(() => "resolved", (e: { code?: string }) => e.code));
    expect(r.controls, "it was the pipeline").toEqual([]);
    expect(r.value, "cancelled in the database").toBe("57014");
    expect(performance.now() - t0).toBeLessThan(5000);
    const [busy] = await tdb.db<{ n: number }[]>`select count(*)::int as n from pg_stat_activity where query like '%h5-cancel%' and state = 'active' and pid <> pg_backend_pid()`;
    expect(busy!.n, "nothing left running").toBe(0);
  });

  test("a statement whose cached plan went stale is not retried outside the pipeline's transaction", async () => {
    await tdb.db.unsafe(`create table h5_shape (a int); insert into h5_shape values (1); grant select on h5_shape to ideally_app`);
    const q = `select *, current_user::text as who from h5_shape where a = $1`;
    await readAsTenant(one, globex, q, [1]);
    await tdb.db.unsafe(`alter table h5_shape add column b int`);
    // postgres.js retries a statement whose plan went stale (cached plan must not change result
    // type) on its own; in a pipeline that would run it after the Sync, as the owner.
    const r = await readAsTenant<{ who: string }>(one, globex, q, [1]).then((rows) => rows[0]!.who, (e: Error) => e.message);
    expect(r === "ideally_app" || /cached plan/.test(r), `ran as ${r}`).toBe(true);
    const [row] = await readAsTenant<{ who: string; b: number | null }>(one, globex, q, [1]);
    expect(row, "the next read prepares the statement afresh").toEqual({ a: 1, b: null, who: "ideally_app" } as never);
  });

  test("with prepared statements off (PgBouncer transaction mode) every read takes BEGIN/COMMIT", async () => {
    const pooled = connect(tdb.url, { max: 1, pooled: true, onQuery: (t) => texts.push(t) });
    try {
      for (let i = 0; i < 2; i++) {
        const r = await sent(() => readAsTenant<{ who: string; others: number }>(pooled, globex, WHO, [2001]));
        expect(r.controls).toEqual(["commit"]);
        expect(texts.some((t) => t.startsWith("begin;")), "the simple entry with BEGIN").toBe(true);
        expect(r.value[0]).toMatchObject({ who: "ideally_app", others: 0 });
      }
      await expect(readAsTenant(pooled, noMembership, WHO, [2001])).rejects.toThrow(/no access/);
    } finally {
      await pooled.end({ timeout: 1 });
    }
  });
});

describe("postgres.js statements before a query (patch)", () => {
  const SET = "select set_config('h5.x', $1::text, true) as v";
  const GET = "select coalesce(current_setting('h5.x', true), '') as v, $1::int as n";
  const NEXT = "select nextval('h5_seq')::int as n, $1::int as k";
  const DIV = "select 10 / $1::int as v";
  type Rows = { v?: string; n?: number }[] & { before?: { v: string }[][] };
  /** The sequence moves even in a transaction that rolls back: whether a statement ran at all. */
  const seq = async () => (await tdb.db<{ n: number }[]>`select last_value::int as n from h5_seq`)[0]!.n;

  beforeAll(async () => {
    await tdb.db.unsafe("create sequence h5_seq");
    // Described once on the one connection, outside any transaction.
    for (const [text, param] of [[SET, "0"], [GET, 0], [NEXT, 0], [DIV, 1]] as const) await one.unsafe(text, [param] as never[], { prepare: true });
  });

  test("one implicit transaction: each statement's result, the query's rows, nothing left after the Sync", async () => {
    texts.length = 0;
    const rows = (await one.unsafe(GET, [7], { prepare: true, before: [{ text: SET, params: ["a"] }, { text: SET, params: ["b"] }] } as { prepare: boolean })) as unknown as Rows;
    expect(rows.map((r) => ({ ...r }))).toEqual([{ v: "b", n: 7 }]);
    expect(rows.before!.map((r) => r.map((x) => x.v))).toEqual([["a"], ["b"]]);
    expect(texts, "each statement reported to the query hook, the ones before first").toEqual([SET, SET, GET]);
    expect(((await one.unsafe(GET, [8], { prepare: true })) as unknown as Rows)[0]!.v, "ended at the Sync").toBe("");
  });

  test("every statement must be prepared on the connection: else refused before anything is written", async () => {
    const c = await one.reserve();
    try {
      const q = c.unsafe(GET, [1], { prepare: true, before: [{ text: "select $1::text as v /* never described */", params: ["x"] }] } as { prepare: boolean });
      expect((c as unknown as { isPrepared(q: unknown): boolean }).isPrepared(q)).toBe(false);
      const n = await seq();
      await expect(q).rejects.toThrow(/must be prepared, each of them/);
      const main = c.unsafe(NEXT, [1], { prepare: true, before: [{ text: "select $1::int as v /* nor this */", params: [1] }] } as { prepare: boolean });
      await expect(main).rejects.toThrow(/must be prepared/);
      expect(await seq(), "nothing ran").toBe(n);
      expect((await c`select 4 as v`)[0]!.v, "the connection answers in step").toBe(4);
    } finally {
      c.release();
    }
  });

  test("an error stops the transaction where it happens and says which statement failed; nothing after it runs", async () => {
    const n = await seq();
    const failedBefore = await one
      .unsafe(NEXT, [1], { prepare: true, before: [{ text: SET, params: ["a"] }, { text: DIV, params: [0] }] } as { prepare: boolean })
      .then(() => null, (e: { step?: number; message: string }) => e);
    expect(failedBefore?.message).toMatch(/division by zero/);
    expect(failedBefore?.step, "the second statement before").toBe(1);
    expect(await seq(), "the query's own statement never ran").toBe(n);
    const failedOwn = await one
      .unsafe(DIV, [0], { prepare: true, before: [{ text: NEXT, params: [1] }] } as { prepare: boolean })
      .then(() => null, (e: { step?: number }) => e);
    expect(failedOwn?.step, "the query's own: after the one before").toBe(1);
    expect(await seq(), "the statement before ran (the sequence moved), then all rolled back").toBe(n + 1);
    expect(((await one.unsafe(GET, [1], { prepare: true })) as unknown as Rows)[0]!.v, "the connection answers in step").toBe("");
  });

  test("a connection that dies under it fails it, and the pool opens again", async () => {
    const SLEEP = "select pg_sleep($1::float8)::text as v";
    await one.unsafe(SLEEP, [0], { prepare: true });
    const [{ pid }] = (await one`select pg_backend_pid() as pid`) as unknown as [{ pid: number }];
    const q = one.unsafe(SLEEP, [10], { prepare: true, before: [{ text: SET, params: ["a"] }] } as { prepare: boolean });
    const outcome = q.then(() => "resolved", (e: { code?: string }) => e.code ?? "rejected");
    await Bun.sleep(200);
    await tdb.db`select pg_terminate_backend(${pid})`;
    expect(await outcome).not.toBe("resolved");
    let rows: unknown = null;
    for (let i = 0; i < 40 && rows === null; i++) {
      rows = await one.unsafe("select $1::int + 1 as v /* after reconnect */", [41]).then((r) => r, () => Bun.sleep(50).then(() => null));
    }
    expect((rows as unknown as { v: number }[])[0]!.v).toBe(42);
  });
});

// A cancel request stops whatever its backend runs when it lands. On a reserved connection that is
// always the request's own work; on the pool it could be the next caller's query (patch: "pooled
// cancel", connection.js cancelSafely).
describe("postgres.js pooled cancel (patch)", () => {
  const SLEEP = "select pg_sleep($1::float8)::text as v, $2::text as tag";
  /** Holds the event loop, so the client reads no answer meanwhile while the server goes on. */
  const hold = (ms: number) => {
    const until = performance.now() + ms;
    while (performance.now() < until) {
      /* busy */
    }
  };
  const outcome = (q: Promise<unknown>) => q.then(() => "resolved", (e: { code?: string }) => e.code ?? String(e));
  let pool: Db;
  beforeAll(async () => {
    pool = connect(tdb.url, { max: 1 });
    await pool.unsafe(SLEEP, [0, "warm"], { prepare: true });
  });
  afterAll(() => pool.end({ timeout: 1 }));

  test("a lone pooled query is cancelled in the database, and the pool serves on", async () => {
    const q = pool.unsafe(SLEEP, [20, "pc-lone"], { prepare: true });
    const r = outcome(q);
    await Bun.sleep(200);
    const t0 = performance.now();
    q.cancel();
    expect(await r).toBe("57014");
    expect(performance.now() - t0).toBeLessThan(3000);
    expect((await pool`select 1 as v`)[0]!.v).toBe(1);
  });

  test("a cancel for a query that has answered never reaches the query sent next on its connection", async () => {
    // q1 ends on the server while the client is held; the cancel is asked for after, as a
    // disconnect would; q2 is sent at once. Unpatched, q2 went out on the same connection behind
    // q1 and the cancel request, landing while q2 ran, stopped q2.
    const q1 = pool.unsafe(SLEEP, [0.05, "pc-first"], { prepare: true });
    const r1 = outcome(q1);
    await Bun.sleep(20);
    hold(300);
    q1.cancel();
    const r2 = outcome(pool.unsafe(SLEEP, [1, "pc-next"], { prepare: true }));
    expect(await r1, "q1 had answered").toBe("resolved");
    expect(await r2, "the next query ran to its end").toBe("resolved");
  });

  test("no cancel is sent for a query with another pipelined behind it on its connection", async () => {
    // Both go out on the one connection, q2 pipelined behind q1; q1 ends on the server while the
    // client is held, and q2 runs. A cancel for q1 now would land in q2.
    const q1 = pool.unsafe(SLEEP, [0.05, "pc-ahead"], { prepare: true });
    const r1 = outcome(q1);
    const r2 = outcome(pool.unsafe(SLEEP, [1, "pc-behind"], { prepare: true }));
    await Bun.sleep(20);
    hold(300);
    q1.cancel();
    expect(await r1).toBe("resolved");
    expect(await r2, "the query behind ran to its end").toBe("resolved");
  });

  test("a query cancelled before it went out is refused and leaves its connection in the pool", async () => {
    const fresh = connect(tdb.url, { max: 1 });
    try {
      await fresh`select 1 as v`;
      const q = fresh`select 'pc-never' as v`;
      q.cancel();
      expect(await outcome(q)).toBe("57014");
      const next = fresh`select 2 as v`.then((r) => r[0]!.v);
      const late = Bun.sleep(3000).then(() => "waited");
      expect(await Promise.race([next, late]), "the connection serves the next query").toBe(2);
    } finally {
      await fresh.end({ timeout: 1 });
    }
  });

  test("a query with statements before it goes to an idle connection that has them prepared", async () => {
    // Two idle connections, the statements prepared on one: the pool hands out the connection
    // idle longest, so every other query came to the one without them and was refused (10% of
    // bench:odata's reads, never fewer: the reads taking the reserved path prepared whichever
    // connection came next, seldom the one that refused).
    const two = connect(tdb.url, { max: 2 });
    try {
      const a = await two.reserve();
      const b = await two.reserve();
      const PLAIN = "select $1::int as v /* pc-route */";
      const SET1 = "select set_config('h5.y', $1::text, true) as x";
      await a.unsafe(PLAIN, [1], { prepare: true });
      await a.unsafe(SET1, ["a"], { prepare: true });
      a.release();
      b.release();
      let refused = 0;
      for (let i = 0; i < 10; i++) {
        await two.unsafe(PLAIN, [i], { prepare: true, before: [{ text: SET1, params: ["b"] }] } as { prepare: boolean }).catch((e: { code?: string }) => {
          if (e.code !== "BEFORE_UNPREPARED") throw e;
          refused++;
        });
      }
      expect(refused).toBe(0);
    } finally {
      await two.end({ timeout: 1 });
    }
  });

  test("a query refused for unprepared statements gives its connection back, even the one opened for it", async () => {
    const fresh = connect(tdb.url, { max: 1 });
    try {
      const refused = fresh.unsafe("select $1::int as v", [1], { prepare: true, before: [{ text: "select $1::text as x /* pc */", params: ["x"] }] } as { prepare: boolean });
      await expect(refused).rejects.toThrow(/must be prepared/);
      const next = fresh`select 2 as v`.then((r) => r[0]!.v);
      const late = Bun.sleep(3000).then(() => "waited");
      expect(await Promise.race([next, late]), "the connection serves the next query").toBe(2);
    } finally {
      await fresh.end({ timeout: 1 });
    }
  });
});
