// The replica router's rules (api/src/db/replica.ts), on the test database standing in for both
// pools: which pool a read transaction runs on, the lag threshold at its edge, and the retry on
// the primary after the errors only a replica gives.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { onReadDb, routedDb, startReplicaRouter, type ReplicaRouter } from "../../api/src/db/replica.ts";

let tdb: TestDb;
let other: Db;
let r: ReplicaRouter;
beforeAll(async () => {
  tdb = await createTestDb();
  other = connect(tdb.url, { max: 1 });
  r = startReplicaRouter(tdb.db, other, { maxLagSeconds: 5, pollMs: 60_000 });
}, 60_000);
afterAll(async () => {
  r.stop();
  await other.end();
  await tdb.drop();
});

const fresh = (seconds: number | null) => (r.lag = { bytes: seconds === null ? null : seconds * 1000, seconds, polledAt: Date.now() });

test("a server that is not a replica is never used as one", async () => {
  await r.pollOnce();
  expect(r.lag.seconds, "the primary has no replay position").toBeNull();
  expect(r.usable()).toBe(false);
});

test("the lag threshold: 5 s behind is usable, 5.001 s is not; an old poll is not", () => {
  fresh(0);
  expect(r.usable()).toBe(true);
  fresh(5);
  expect(r.usable(), "at the threshold").toBe(true);
  fresh(5.001);
  expect(r.usable(), "just above").toBe(false);
  r.lag = { bytes: 0, seconds: 0, polledAt: Date.now() - 60_000 * 4 };
  expect(r.usable(), "a poll older than three intervals").toBe(false);
});

test("a routed read runs on the replica while usable, else on the primary; an unrouted Db is used as given", async () => {
  const db = routedDb(r);
  const where: Db[] = [];
  fresh(0);
  r.reads = { replica: 0, primary: 0, fallback: 0 };
  await onReadDb(db, async (d) => void where.push(d));
  fresh(60);
  await onReadDb(db, async (d) => void where.push(d));
  await onReadDb(tdb.db, async (d) => void where.push(d));
  expect(where).toEqual([other, tdb.db, tdb.db]);
  expect(r.reads).toEqual({ replica: 1, primary: 1, fallback: 0 });
});

test("a transaction that writes, or meets a session not yet replayed, is run again on the primary; other errors are not", async () => {
  const db = routedDb(r);
  fresh(0);
  r.reads = { replica: 0, primary: 0, fallback: 0 };
  for (const code of ["25006", "28000", "08006", "CONNECTION_CLOSED"]) {
    const ran: Db[] = [];
    const out = await onReadDb(db, async (d) => {
      ran.push(d);
      if (d === other) throw Object.assign(new Error(code), { code });
      return "ok";
    });
    expect(out).toBe("ok");
    expect(ran, code).toEqual([other, tdb.db]);
  }
  expect(r.reads.fallback).toBe(4);
  const bad = onReadDb(db, async () => {
    throw Object.assign(new Error("division by zero"), { code: "22012" });
  });
  await expect(bad).rejects.toThrow("division by zero");
  expect(r.reads.fallback, "a real error is not retried").toBe(4);
});

test("withTenant on a routed Db runs its tenant transaction on the chosen pool, under row-level security", async () => {
  const { withTenant } = await import("../../api/src/db/tx.ts");
  fresh(0);
  const db = routedDb(r);
  const n = await withTenant(db, { userId: 9004, clientId: 1003, descendants: false }, async (tx) => (await tx<{ n: number }[]>`select count(*)::int as n from projects`)[0]!.n);
  expect(n).toBeGreaterThan(0);
});
