// Staff send a supplier callback again (SurveyRuns({key})/SupplierCallbacks/{callbackId}/Resend;
// docs/suppliers.md, decision record 0141). A local HTTP server plays the supplier: it fails a
// rid's first 8 calls (the callback is failed after CALLBACK_MAX_ATTEMPTS = 8, docs/suppliers.md)
// and accepts the 9th. The re-send puts the callback back to pending for a fresh series of attempts
// (8 more, the backoff from 30 s again), keeps the attempts so far, nudges the callbacks job (a
// real pg-boss queue; the job fetched from it and run), and is audited; a delivered callback is
// 409, another run's callback 404, a non-staff caller 403; a reversed complete sent again is
// followed by its reversal again. Signatures are checked with node:crypto, independent of
// suppliers.ts.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type JobEnvelope, type Queue } from "../../api/src/jobs/queue.ts";
import { ensureQueues } from "../../api/src/jobs/workers.ts";
import { deliverDueCallbacks } from "../../api/src/domains/fielding/suppliers.ts";
import { supplierCallbacksJob } from "../../api/src/domains/fielding/suppliers.jobs.ts";
import { enterAndWalk, FEMALE, launchSupplierRun, MALE, type SupplierRun } from "../helpers/supplier-run.ts";

let tdb: TestDb;
let app: App;
let queue: Queue;
const T = 1003;
const PUBLIC = "http://ideally.test";
const SECRET = "resend-shared-secret-0123";
/** The default scheme: hex HMAC-SHA256 keyed by the secret, over the link before `&sig=`. */
const sig = (s: string) => createHmac("sha256", SECRET).update(s).digest("hex");
/** docs/suppliers.md: "after 8 attempts `failed`". */
const MAX_ATTEMPTS = 8;

/** The supplier's server: every call recorded; a rid in `failFirst` answers 500 to that many calls, in `refuse` that status. */
const calls: { rid: string; url: string }[] = [];
const failFirst = new Map<string, number>();
const refuse = new Map<string, number>();
let server: ReturnType<typeof Bun.serve>;
let base: string;
let supplierId: number;
let run: SupplierRun;
let other: SupplierRun;

beforeAll(async () => {
  tdb = await createTestDb();
  queue = await startQueue(tdb.url, () => {});
  await ensureQueues(queue, [supplierCallbacksJob]);
  app = testApp(tdb.db, { publicUrl: PUBLIC, queue });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const rid = new URL(req.url).searchParams.get("rid") ?? "";
      calls.push({ rid, url: req.url });
      const seen = calls.filter((c) => c.rid === rid).length;
      const status = refuse.get(rid) ?? (seen <= (failFirst.get(rid) ?? 0) ? 500 : 200);
      return new Response("", { status });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  const s = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name: "Resend supplier",
    completeUrl: "https://sup.example/end?st=c&rid={rid}",
    screenOutUrl: "https://sup.example/end?st=s&rid={rid}",
    overQuotaUrl: "https://sup.example/end?st=q&rid={rid}",
    qualityTerminateUrl: "https://sup.example/end?st=t&rid={rid}",
    callbackUrl: `${base}/s2s?rid={rid}&status={outcome}`,
    reversalUrl: `${base}/reverse?rid={rid}&status={outcome}`,
    secret: SECRET,
  });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  supplierId = s.body.id;
  run = await launchSupplierRun(app, tdb, T, PUBLIC, "Resend callbacks", supplierId, 20);
  other = await launchSupplierRun(app, tdb, T, PUBLIC, "Another supplier run", supplierId, 20);
}, 120_000);
afterAll(async () => {
  server?.stop(true);
  await queue?.stop({ graceful: false, timeout: 2000 });
  await tdb.drop();
});

const entry = (r: SupplierRun, rid: string) => {
  const q = `supplier=${supplierId}&rid=${encodeURIComponent(rid)}`;
  return `${q}&sig=${sig(`${PUBLIC}/s/${r.link}?${q}`)}`;
};
type Callback = {
  id: number;
  rid: string;
  kind: string;
  outcome: string;
  state: string;
  series: number;
  nextAttemptAt: string | null;
  attempts: { attempt: number; series: number; url: string; httpStatus: number | null }[];
};
const callbacksOf = async (r: SupplierRun, rid: string): Promise<Callback[]> => {
  const res = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${r.id})/SupplierCallbacks`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return (res.body.value as Callback[]).filter((c) => c.rid === rid);
};
/** Time passes: the rid's retry is due (a second ago, as fielding-supplier-schemes does). */
const due = (rid: string) => tdb.db`update supplier_outcomes set next_attempt_at = now() - interval '1 second' where rid = ${rid} and callback_state = 'pending'`;
/** Sends what is due and keeps the rid's attempts. */
const send = async (rid: string) => (await deliverDueCallbacks(tdb.db)).filter((a) => new URL(a.url).searchParams.get("rid") === rid);
/** A complete of `rid` whose callback failed its 8 attempts (the server answering 500 each time). */
async function failedComplete(rid: string, gender: number): Promise<Callback> {
  failFirst.set(rid, Math.max(failFirst.get(rid) ?? 0, MAX_ATTEMPTS));
  expect((await enterAndWalk(app, run, entry(run, rid), gender)).status).toBe("Complete");
  for (let i = 1; i <= MAX_ATTEMPTS; i++) {
    if (i > 1) await due(rid);
    expect((await send(rid)).map((a) => [a.attempt, a.httpStatus])).toEqual([[i, 500]]);
  }
  const [c] = await callbacksOf(run, rid);
  expect(c).toMatchObject({ kind: "outcome", outcome: "complete", state: "failed", series: 1, nextAttemptAt: null });
  return c!;
}
/** Takes every suppliers.callbacks job waiting in the queue. */
const takeJobs = async () => queue.fetch<JobEnvelope<Record<string, never>>>(supplierCallbacksJob.name, { batchSize: 100 });
/** The nudged job once it is due: a nudge in a slot an earlier nudge took is due at the next slot (suppliers.jobs.ts, 2 s). */
async function nudgedJobs() {
  for (let i = 0; i < 50; i++) {
    const jobs = await takeJobs();
    if (jobs.length) return jobs;
    await Bun.sleep(100);
  }
  return [];
}

describe("a failed callback is sent again by staff", () => {
  test("a fresh series: pending again, the 8 attempts kept, the job nudged and run, delivered on the 9th call with a signature that verifies; audited; a delivered one is 409", async () => {
    const c = await failedComplete("R1", MALE);
    await takeJobs();
    const [{ id: lastLog }] = await tdb.db<{ id: number }[]>`select coalesce(max(id), 0)::int as id from data_events_log`;
    const r = await call(app, "ops", null, "POST", `/api/v1/SurveyRuns(${run.id})/SupplierCallbacks/${c.id}/Resend`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body).toMatchObject({ id: c.id, rid: "R1", state: "pending", series: 2 });
    expect(r.body.attempts.map((a: { attempt: number; series: number }) => [a.attempt, a.series])).toEqual([1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 1]));
    const audit = await tdb.db<{ userId: number; clientId: number; entityType: string; entityId: number; event: string; data: Record<string, unknown> }[]>`
      select user_id as "userId", client_id as "clientId", entity_type as "entityType", entity_id as "entityId", event, data from data_events_log where id > ${lastLog}`;
    expect([...audit]).toEqual([
      {
        userId: 9002,
        clientId: T,
        entityType: "SurveyRun",
        entityId: run.id,
        event: "SupplierCallbackResent",
        data: { callbackId: c.id, rid: "R1", kind: "outcome", outcome: "complete", from: "failed", attemptsBefore: 8, series: 2 },
      },
    ]);

    // The nudge: one suppliers.callbacks job waits in the queue; it runs (no cron in this test).
    const jobs = await nudgedJobs();
    expect(jobs.length, "the callbacks job was sent at the re-send").toBe(1);
    const before = calls.length;
    const result = await supplierCallbacksJob.handler({
      data: jobs[0]!.data.input,
      jobId: jobs[0]!.id,
      name: supplierCallbacksJob.name,
      origin: jobs[0]!.data.origin,
      attempt: 1,
      db: tdb.db,
      queue,
      signal: new AbortController().signal,
      progress: async () => {},
    });
    expect(result).toEqual({ attempts: 1, delivered: 1 });
    const unsigned = `${base}/s2s?rid=R1&status=complete`;
    expect(calls.slice(before).map((x) => x.url)).toEqual([`${unsigned}&sig=${sig(unsigned)}`]);
    const [after] = await callbacksOf(run, "R1");
    expect(after).toMatchObject({ state: "delivered", series: 2, nextAttemptAt: null });
    expect(after!.attempts.map((a) => [a.attempt, a.series, a.httpStatus])).toEqual([...[1, 2, 3, 4, 5, 6, 7, 8].map((n) => [n, 1, 500]), [9, 2, 200]]);

    const again = await call(app, "ops", null, "POST", `/api/v1/SurveyRuns(${run.id})/SupplierCallbacks/${c.id}/Resend`);
    expect(again.status, JSON.stringify(again.body)).toBe(409);
    expect(again.body.message).toContain("delivered");
  });

  test("the new series has its own 8 attempts and its backoff starts again at 30 s", async () => {
    const c = await failedComplete("R2", FEMALE);
    failFirst.set("R2", 100);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/SupplierCallbacks/${c.id}/Resend`)).status).toBe(200);
    expect((await send("R2")).map((a) => [a.attempt, a.httpStatus])).toEqual([[9, 500]]);
    const [o] = await tdb.db<{ state: string; wait: number }[]>`
      select o.callback_state as state, extract(epoch from o.next_attempt_at - a.finished_at)::float8 as wait
      from supplier_outcomes o join supplier_callback_attempts a on a.supplier_outcome_id = o.id and a.attempt = 9 where o.rid = 'R2'`;
    expect(o, "the first failure of a series waits 30 s (not 6 hours), and the callback stays pending").toEqual({ state: "pending", wait: 30 });
    for (let i = 10; i <= 2 * MAX_ATTEMPTS; i++) {
      await due("R2");
      expect((await send("R2")).map((a) => a.attempt)).toEqual([i]);
    }
    const [after] = await callbacksOf(run, "R2");
    expect(after).toMatchObject({ state: "failed", series: 2 });
    expect(after!.attempts.filter((a) => a.series === 2).length, "8 attempts in the second series").toBe(MAX_ATTEMPTS);
  });

  test("another run's callback is 404, as is an unknown run; a non-staff caller is 403; nothing changes", async () => {
    const c = await failedComplete("R4", MALE);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${other.id})/SupplierCallbacks/${c.id}/Resend`)).status).toBe(404);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(999999)/SupplierCallbacks/${c.id}/Resend`)).status).toBe(404);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/SupplierCallbacks/999999/Resend`)).status).toBe(404);
    for (const who of ["acmeAdmin", "acmeUser", "acmeViewer"] as const) {
      expect((await call(app, who, T, "POST", `/api/v1/SurveyRuns(${run.id})/SupplierCallbacks/${c.id}/Resend`)).status, who).toBe(403);
    }
    const [after] = await callbacksOf(run, "R4");
    expect(after).toMatchObject({ state: "failed", series: 1 });
  });
});

describe("a reversed rid keeps its order", () => {
  test("a complete refused at once, then reversed (the reversal delivered): sent again, the complete goes first and the reversal follows it again", async () => {
    refuse.set("R3", 400);
    const done = await enterAndWalk(app, run, entry(run, "R3"), FEMALE);
    expect(done.status).toBe("Complete");
    expect((await send("R3")).map((a) => a.httpStatus)).toEqual([400]);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/RemoveUuidsFromSurvey`, { uuids: [done.respondentId] })).status).toBe(200);
    refuse.delete("R3");
    expect((await send("R3")).map((a) => [new URL(a.url).pathname, a.httpStatus])).toEqual([["/reverse", 200]]);
    const [complete] = await callbacksOf(run, "R3");
    expect(complete).toMatchObject({ kind: "outcome", state: "failed" });

    const r = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run.id})/SupplierCallbacks/${complete!.id}/Resend`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const both = await callbacksOf(run, "R3");
    expect(both.map((c) => [c.kind, c.state, c.series])).toEqual([
      ["outcome", "pending", 2],
      ["reversal", "pending", 2],
    ]);
    // One round claims what is due: the reversal waits while its complete is pending.
    expect((await send("R3")).map((a) => new URL(a.url).pathname)).toEqual(["/s2s"]);
    expect((await send("R3")).map((a) => new URL(a.url).pathname)).toEqual(["/reverse"]);
    const told = calls.filter((c) => c.rid === "R3").map((c) => new URL(c.url));
    expect(
      told.map((u) => `${u.pathname} ${u.searchParams.get("status")}`),
      "what the supplier heard, in order; the last word is the reversal",
    ).toEqual(["/s2s complete", "/reverse quality-terminate", "/s2s complete", "/reverse quality-terminate"]);
    for (const u of told) {
      const [unsigned, signature] = u.href.split("&sig=");
      expect(signature, u.href).toBe(sig(unsigned!));
    }
  });
});
