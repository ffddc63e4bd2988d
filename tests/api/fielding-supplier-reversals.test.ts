// Supplier callbacks in the supplier's own status codes, what counts as delivered, and reversals
// (issue 36; decision record 0136):
// - a PureSpectrum-style supplier gets its callbacks with PureSpectrum's documented status codes
//   (21 complete, 18 termination, 17 over quota, 20 quality termination), signed with ps_hash;
// - 2xx delivers a callback (299 does, 300 does not); 5xx, 408, 429 and network errors are tried
//   again later; any other answer (3xx, 4xx) fails the callback at once, recorded;
// - a complete that staff remove after it was reported is reversed: the supplier gets a signed
//   reversal callback (at its reversal URL) and the reconciliation lists the final outcome with
//   what was first reported.
// Every expected signature is computed outside the code under test (node:crypto here; fixed
// vectors from openssl with the command beside each).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { deliverDueCallbacks } from "../../api/src/domains/fielding/suppliers.ts";
import { ANOTHER_GENDER, enterAndWalk, FEMALE, launchSupplierRun, MALE, type SupplierRun } from "../helpers/supplier-run.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
const PS_SECRET = "purespectrum-shared-secret-02";
const CINT_SECRET = "cint-style-shared-secret-01";
/** PureSpectrum-style: hex SHA-1 of the text followed by the secret. */
const psHash = (s: string) =>
  createHash("sha1")
    .update(s + PS_SECRET)
    .digest("hex");
/** Cint-style: base64url (no padding) HMAC-SHA1 keyed by the secret. */
const cintHash = (s: string) => createHmac("sha1", CINT_SECRET).update(s).digest("base64url");

/** The supplier's server: records every call; answers `answers.get(rid)` (200 by default). */
const calls: string[] = [];
const answers = new Map<string, number>();
let server: ReturnType<typeof Bun.serve>;
let base: string;

let ps: { id: number; run: SupplierRun };
let cint: { id: number; run: SupplierRun };

const ends = (host: string, param: string, codes: [string, string, string, string]) => ({
  completeUrl: `${host}/return?st=${codes[0]}&${param}={rid}`,
  screenOutUrl: `${host}/return?st=${codes[1]}&${param}={rid}`,
  overQuotaUrl: `${host}/return?st=${codes[2]}&${param}={rid}`,
  qualityTerminateUrl: `${host}/return?st=${codes[3]}&${param}={rid}`,
});
/** PureSpectrum's status codes (its "Survey Status Codes" page and its transaction status API: 17 OverQuota, 18 Termination, 20 Quality Termination, 21 Complete). */
const PS_CODES = { complete: "21", "screen-out": "18", "over-quota": "17", "quality-terminate": "20" };

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const u = new URL(req.url);
      calls.push(`${req.method} ${req.url}`);
      const rid = u.searchParams.get("RID") ?? u.searchParams.get("transaction_id") ?? "";
      return new Response("", { status: answers.get(rid) ?? 200 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  const p = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name: "PureSpectrum-style",
    entryParameter: "transaction_id",
    ...ends("https://ps.example", "transaction_id", ["21", "18", "17", "20"]),
    callbackUrl: `${base}/ps/s2s?transaction_id={rid}&st={outcome}`,
    callbackCodes: PS_CODES,
    secret: PS_SECRET,
    signatureParameter: "ps_hash",
    signatureAlgorithm: "SHA1-SECRET-SUFFIX",
  });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  const c = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name: "Cint-style",
    entryParameter: "RID",
    ...ends("https://cint.example", "RID", ["complete", "screenout", "quotafull", "security"]),
    callbackUrl: `${base}/cint/s2s?RID={rid}&status={outcome}`,
    reversalUrl: `${base}/cint/reconcile?RID={rid}&status={outcome}`,
    callbackCodes: { "screen-out": "screenout", "over-quota": "quotafull", "quality-terminate": "security" },
    secret: CINT_SECRET,
    signatureParameter: "hash",
    signatureAlgorithm: "HMAC-SHA1",
    signatureEncoding: "base64url",
  });
  expect(c.status, JSON.stringify(c.body)).toBe(201);
  ps = { id: p.body.id, run: await launchSupplierRun(app, tdb, T, PUBLIC, "PureSpectrum-style codes", p.body.id, 4) };
  cint = { id: c.body.id, run: await launchSupplierRun(app, tdb, T, PUBLIC, "Cint-style reversals", c.body.id, 4) };
}, 120_000);
afterAll(async () => {
  server?.stop(true);
  await tdb.drop();
});

const psEntry = (rid: string) => {
  const q = `supplier=${ps.id}&transaction_id=${encodeURIComponent(rid)}`;
  return `${q}&ps_hash=${psHash(`${PUBLIC}/s/${ps.run.link}?${q}`)}`;
};
const cintEntry = (rid: string) => {
  const q = `supplier=${cint.id}&RID=${encodeURIComponent(rid)}`;
  return `${q}&hash=${cintHash(`${PUBLIC}/s/${cint.run.link}?${q}`)}`;
};
const csvRows = async (runId: number) => {
  const csv = (await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${runId})/ReconciliationCsv`)).body as string;
  const [header, ...rows] = csv.trimEnd().split("\r\n");
  return { header, rows: Object.fromEntries(rows.map((l) => l.split(",")).map((c) => [c[0]!, c])) };
};

describe("the supplier's own status codes", () => {
  test("configured and read back; unknown outcomes, unsafe codes and a reversal URL without {rid} are 400s, nothing stored", async () => {
    const r = await call(app, "staff", null, "GET", `/api/v1/SampleSuppliers(${ps.id})`);
    expect(r.body).toMatchObject({ callbackCodes: PS_CODES, reversalUrl: null });
    const good = { name: "Refused codes", ...ends("https://r.example", "id", ["c", "s", "q", "t"]), callbackUrl: "https://r.example/s2s?id={rid}&st={outcome}" };
    const cases: [Record<string, unknown>, string][] = [
      [{ callbackCodes: { completed: "21" } }, "callbackCodes"],
      [{ callbackCodes: { complete: "" } }, "callbackCodes"],
      [{ callbackCodes: { complete: "a b" } }, "callbackCodes"],
      [{ callbackCodes: { complete: "x".repeat(41) } }, "callbackCodes"],
      [{ reversalUrl: "https://r.example/reconcile?st={outcome}" }, "reversalUrl"],
      [{ reversalUrl: "https://{rid}.r.example/reconcile" }, "reversalUrl"],
    ];
    for (const [change, path] of cases) {
      const res = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { ...good, ...change });
      expect(res.status, JSON.stringify(change)).toBe(400);
      expect(String(res.body.errors?.[0]?.path), JSON.stringify(res.body)).toStartWith(path);
    }
    const stored = (await call(app, "staff", null, "GET", "/api/v1/SampleSuppliers")).body.value.filter((x: { name: string }) => x.name === "Refused codes");
    expect(stored.length).toBe(0);
  });

  test("PureSpectrum-style: a complete is called back with st=21 and a screen-out with st=18, each ps_hash verifying", async () => {
    const complete = await enterAndWalk(app, ps.run, psEntry("P1"), MALE);
    expect(complete.status).toBe("Complete");
    const screened = await enterAndWalk(app, ps.run, psEntry("P2"), ANOTHER_GENDER);
    expect(screened.status).toBe("ScreenedOut");
    await deliverDueCallbacks(tdb.db);
    for (const [rid, st] of [
      ["P1", "21"],
      ["P2", "18"],
    ] as const) {
      const unsigned = `${base}/ps/s2s?transaction_id=${rid}&st=${st}`;
      expect(calls.filter((c) => c === `POST ${unsigned}&ps_hash=${psHash(unsigned)}`).length, rid).toBe(1);
    }
    // printf '%s' 'https://ps.example/s2s?transaction_id=P1&st=21purespectrum-shared-secret-02' | openssl dgst -sha1
    expect(psHash("https://ps.example/s2s?transaction_id=P1&st=21")).toBe("2ba27ee96a7f549528157391e205661194167038");
  });
});

describe("what a callback's answer means: 2xx delivers; 5xx, 408 and 429 are tried again; anything else fails at once", () => {
  test("at the edges: 200 and 299 delivered; 300, 400, 404, 499 failed after one attempt; 408, 429, 500, 503 pending, due again", async () => {
    const cases: [string, number, "delivered" | "failed" | "pending"][] = [
      ["E200", 200, "delivered"],
      ["E299", 299, "delivered"],
      ["E300", 300, "failed"],
      ["E400", 400, "failed"],
      ["E404", 404, "failed"],
      ["E499", 499, "failed"],
      ["E408", 408, "pending"],
      ["E429", 429, "pending"],
      ["E500", 500, "pending"],
      ["E503", 503, "pending"],
    ];
    // Due a second ago: next_attempt_at keeps milliseconds (timestamptz(3)), so an insert's own now()
    // can round up past the now() of a transaction begun within half a millisecond after it (the
    // last case was then not yet due: 3 times in some ten runs on the branch sim-supplier).
    for (const [rid, status] of cases) {
      answers.set(rid, status);
      await tdb.db`
        insert into supplier_outcomes (survey_run_id, sample_supplier_id, rid, outcome, callback_state, next_attempt_at)
        values (${ps.run.id}, ${ps.id}, ${rid}, 'complete', 'pending', now() - interval '1 second')`;
    }
    const sent = await deliverDueCallbacks(tdb.db);
    for (const [rid, status, state] of cases) {
      const a = sent.find((x) => x.url.includes(`transaction_id=${rid}&`));
      expect(a, rid).toMatchObject({ attempt: 1, httpStatus: status, delivered: state === "delivered" });
      const [o] = await tdb.db<{ state: string; due: boolean }[]>`
        select callback_state as state, next_attempt_at is not null as due from supplier_outcomes where rid = ${rid}`;
      expect(o, `${rid} answered ${status}`).toEqual({ state, due: state === "pending" });
    }
  });
});

describe("reversals: a reported complete removed later", () => {
  test("the supplier is told once (a signed reversal callback at its reversal URL, in its own code); the reconciliation lists the final outcome with what was first reported", async () => {
    const done = await enterAndWalk(app, cint.run, cintEntry("C1"), FEMALE);
    expect(done.status).toBe("Complete");
    const c1 = done.respondentId;
    const screened = await enterAndWalk(app, cint.run, cintEntry("C2"), ANOTHER_GENDER);
    expect(screened.status).toBe("ScreenedOut");
    await deliverDueCallbacks(tdb.db);
    const completeCall = `${base}/cint/s2s?RID=C1&status=complete`;
    expect(calls).toContain(`POST ${completeCall}&hash=${cintHash(completeCall)}`);

    const removed = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${cint.run.id})/RemoveUuidsFromSurvey`, { uuids: [c1, screened.respondentId] });
    expect(removed.status, JSON.stringify(removed.body)).toBe(200);
    const before = calls.length;
    const sent = await deliverDueCallbacks(tdb.db);
    const reversal = `${base}/cint/reconcile?RID=C1&status=security`;
    expect(calls.slice(before), "one reversal, for the complete only").toEqual([`POST ${reversal}&hash=${cintHash(reversal)}`]);
    expect(sent.map((a) => a.delivered)).toEqual([true]);
    // printf '%s' 'https://cint.example/reconcile?RID=C1&status=security' | openssl dgst -sha1 -hmac 'cint-style-shared-secret-01' -binary | base64 | tr '+/' '-_' | tr -d '='
    expect(cintHash("https://cint.example/reconcile?RID=C1&status=security")).toBe("L_4jWYFlcebJ1b-7ZkE3Pb19lYY");

    // Removed again: nothing reversed twice. Staff read the reversal beside the outcome.
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${cint.run.id})/RemoveUuidsFromSurvey`, { uuids: [c1] })).status).toBe(200);
    expect(await deliverDueCallbacks(tdb.db)).toEqual([]);
    const r = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${cint.run.id})/SupplierCallbacks`);
    const mine = (r.body.value as { rid: string; kind: string; outcome: string; state: string }[]).filter((x) => x.rid === "C1").map((x) => [x.kind, x.outcome, x.state]);
    expect(mine).toEqual([
      ["outcome", "complete", "delivered"],
      ["reversal", "quality-terminate", "delivered"],
    ]);
    const { header, rows } = await csvRows(cint.run.id);
    expect(header).toBe("rid,status,start,end,quality_flags,supplier,callback,reported,reversed_at,reversal_callback");
    expect([rows.C1![1], rows.C1![6], rows.C1![7], rows.C1![9]]).toEqual(["quality-terminate", "delivered", "complete", "delivered"]);
    expect(rows.C1![8]).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(rows.C2!.slice(7), "not reversed: a screen-out stays what it was").toEqual(["", "", ""]);
    expect(rows.C2![1]).toBe("screen-out");
  });

  test("a reversal waits while the complete's own callback is still to be delivered", async () => {
    answers.set("C3", 503);
    const done = await enterAndWalk(app, cint.run, cintEntry("C3"), MALE);
    expect(done.status).toBe("Complete");
    const first = await deliverDueCallbacks(tdb.db);
    expect(first.map((a) => [a.httpStatus, a.delivered])).toEqual([[503, false]]);
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${cint.run.id})/RemoveUuidsFromSurvey`, { uuids: [done.respondentId] })).status).toBe(200);
    await tdb.db`update supplier_outcomes set next_attempt_at = now() where rid = 'C3' and kind = 'reversal'`;
    expect(await deliverDueCallbacks(tdb.db), "the complete's retry is not due; the reversal waits for it").toEqual([]);
    answers.delete("C3");
    await tdb.db`update supplier_outcomes set next_attempt_at = now() where rid = 'C3'`;
    const second = await deliverDueCallbacks(tdb.db);
    expect(second.map((a) => a.url.replace(/&hash=.*$/, ""))).toEqual([`${base}/cint/s2s?RID=C3&status=complete`]);
    const third = await deliverDueCallbacks(tdb.db);
    expect(third.map((a) => a.url.replace(/&hash=.*$/, ""))).toEqual([`${base}/cint/reconcile?RID=C3&status=security`]);
  });
});
