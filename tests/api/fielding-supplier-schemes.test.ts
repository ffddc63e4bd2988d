// Suppliers configured as the industry does (issue 36): a Cint-style supplier (`RID` in, `hash` =
// base64url HMAC-SHA1 of the URL) and a PureSpectrum-style one (`transaction_id` in, `ps_hash` =
// hex SHA-1 of the URL followed by the secret) each get signed entries checked, signed end links
// and signed server-to-server callbacks (a local HTTP server plays the supplier), retried with
// backoff and recorded; the reconciliation lists exactly what each rid was sent back with.
//
// Every expected signature is computed outside the code under test: fixed values from openssl,
// run once with the command beside each, and node:crypto written here for links that hold the
// run's random survey link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash, createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { CALLBACK_MAX_ATTEMPTS, callbackBackoffSeconds, deliverDueCallbacks, signLink } from "../../api/src/domains/fielding/suppliers.ts";
import { supplierCallbacksJob } from "../../api/src/domains/fielding/suppliers.jobs.ts";
import { answers } from "../helpers/supplier-run.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
const MALE = 4500001;
const FEMALE = 4500002;
const ANOTHER = 4500003;

const CINT_SECRET = "cint-style-shared-secret-01";
const PS_SECRET = "purespectrum-shared-secret-02";
/** Cint-style: base64url (no padding) HMAC-SHA1 keyed by the secret (node:crypto, independent of suppliers.ts). */
const cintHash = (s: string) => createHmac("sha1", CINT_SECRET).update(s).digest("base64url");
/** PureSpectrum-style: hex SHA-1 of the text followed by the secret. */
const psHash = (s: string) => createHash("sha1").update(s + PS_SECRET).digest("hex");

/** The supplier: a local HTTP server recording every callback; rids in `failing` answer 500. */
const calls: { method: string; url: string; outcomeLocked: boolean | null }[] = [];
const failing = new Set<string>();
let server: ReturnType<typeof Bun.serve>;
let base: string;
/** While a callback is being answered, whether its outcome row is locked (the claim's transaction still open). */
let probeLock: ((rid: string) => Promise<boolean>) | null = null;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      const rid = u.searchParams.get("RID") ?? u.searchParams.get("transaction_id") ?? "";
      calls.push({ method: req.method, url: req.url, outcomeLocked: probeLock ? await probeLock(rid) : null });
      return new Response(failing.has(rid) ? "try later" : "ok", { status: failing.has(rid) ? 500 : 200 });
    },
  });
  base = `http://127.0.0.1:${server.port}`;
  probeLock = async (rid) => {
    // NOWAIT: an error if any transaction still holds the row.
    try {
      await tdb.db.begin(async (tx) => {
        await tx`select 1 from supplier_outcomes where rid = ${rid} for update nowait`;
      });
      return false;
    } catch {
      return true;
    }
  };
});
afterAll(async () => {
  server?.stop(true);
  await tdb.drop();
});

type Q = { key: string; type: string; options: { id: number; exclusive: boolean }[] };
type View = { respondentId: string; status: string; redirectUrl: string | null; message: string; page: { id: string; kind: string; questions: Q[] } | null };

interface Run {
  id: number;
  link: string;
}

const post = async (run: Run, path: string, body: unknown) => {
  const r = await app.request(`/s/api/${run.link}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as View };
};

async function walk(run: Run, v: View, gender: number, pages = 30): Promise<View> {
  let cur = v;
  for (let i = 0; i < pages && cur.status === "InProgress"; i++) {
    const r = await post(run, `/${cur.respondentId}/answers`, { pageId: cur.page!.id, answers: answers(cur, gender) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    cur = r.body;
  }
  return cur;
}

/** A launched run of 2 completes (50/50 gender quotas) taking respondents from `supplierId`. */
async function supplierRun(name: string, supplierId: number): Promise<Run> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = created.body.id as number;
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" })).status).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: [{ systemQuestionOptionId: MALE, quotaPercent: 50 }, { systemQuestionOptionId: FEMALE, quotaPercent: 50 }] })).status).toBe(200);
  await tdb.db`update projects_regions set sample_size = 2, is_customer_panel = true where project_id = ${id}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const [run] = await fielding.createSurveys(tdb.db, id);
  const set = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run!.surveyRunId})/SetSampleSupplier`, { sampleSupplierId: supplierId });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  await fielding.launchRun(tdb.db, run!.surveyRunId, PUBLIC);
  return { id: run!.surveyRunId, link: run!.surveyLink };
}

const ends = (host: string, param: string, codes: [string, string, string, string]) => ({
  completeUrl: `${host}/return?st=${codes[0]}&${param}={rid}`,
  screenOutUrl: `${host}/return?st=${codes[1]}&${param}={rid}`,
  overQuotaUrl: `${host}/return?st=${codes[2]}&${param}={rid}`,
  qualityTerminateUrl: `${host}/return?st=${codes[3]}&${param}={rid}`,
});

let cint: { id: number; run: Run };
let ps: { id: number; run: Run };

describe("a supplier's signature scheme is configured, and checked as a whole (400s)", () => {
  test("defaults keep the scheme every supplier had: sig, HMAC-SHA256, hex, over the URL; no callback", async () => {
    const r = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { name: "Plain", ...ends("https://plain.example", "id", ["c", "s", "q", "t"]) });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body).toMatchObject({ entryParameter: "rid", signatureParameter: "sig", signatureAlgorithm: "HMAC-SHA256", signatureEncoding: "hex", signedPart: "url", callbackUrl: null, hasSecret: false });
  });

  test("refused with the field named, nothing stored", async () => {
    const good = { name: "Refused", ...ends("https://r.example", "id", ["c", "s", "q", "t"]), secret: "a-secret-of-sixteen-plus" };
    const cases: [Record<string, unknown>, string][] = [
      [{ signatureAlgorithm: "MD5" }, "signatureAlgorithm"],
      [{ signatureEncoding: "base64" }, "signatureEncoding"],
      [{ signedPart: "path" }, "signedPart"],
      [{ signatureParameter: "rid" }, "signatureParameter"],
      [{ signatureParameter: "supplier" }, "signatureParameter"],
      [{ signatureParameter: "has-dash" }, "signatureParameter"],
      [{ callbackUrl: "https://r.example/s2s?id={rid}" }, "callbackUrl"],
      [{ callbackUrl: "https://{outcome}.r.example/s2s?id={rid}" }, "callbackUrl"],
      [{ callbackUrl: "https://r.example/s2s?st={outcome}" }, "callbackUrl"],
      // Only the query is signed: a rid in the path could be changed under a valid signature.
      [{ signedPart: "query", completeUrl: "https://r.example/done/{rid}?st=c" }, "completeUrl"],
      [{ signedPart: "query", completeUrl: "https://r.example/done?st=c&id={rid}#{rid}" }, "completeUrl"],
      [{ signedPart: "query", callbackUrl: "https://r.example/s2s/{rid}?st={outcome}&id={rid}" }, "callbackUrl"],
    ];
    for (const [change, path] of cases) {
      const r = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { ...good, ...change });
      expect(r.status, JSON.stringify(change)).toBe(400);
      expect(r.body.errors?.[0]?.path ?? r.body.error?.errors?.[0]?.path, JSON.stringify(r.body)).toBe(path);
    }
    const stored = (await call(app, "staff", null, "GET", "/api/v1/SampleSuppliers")).body.value.filter((x: { name: string }) => x.name === "Refused");
    expect(stored.length).toBe(0);
  });

  test("a PATCH is checked with what it keeps: signedPart query refused while a kept link has {rid} in its path", async () => {
    const r = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { name: "Path rid", ...ends("https://p.example", "id", ["c", "s", "q", "t"]), completeUrl: "https://p.example/done/{rid}" });
    expect(r.status).toBe(201);
    const patched = await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${r.body.id})`, { signedPart: "query" });
    expect(patched.status).toBe(400);
    expect(patched.body.errors[0].path).toBe("completeUrl");
    expect((await call(app, "staff", null, "GET", `/api/v1/SampleSuppliers(${r.body.id})`)).body.signedPart, "unchanged").toBe("url");
  });

  test("a Cint-style and a PureSpectrum-style supplier, each with a callback URL", async () => {
    const c = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
      name: "Cint-style",
      entryParameter: "RID",
      completeUrl: "https://cint.example/complete?RID={rid}",
      screenOutUrl: "https://cint.example/screenout?RID={rid}",
      overQuotaUrl: "https://cint.example/overquota?RID={rid}",
      qualityTerminateUrl: "https://cint.example/quality?RID={rid}",
      callbackUrl: `${base}/cint/s2s?RID={rid}&status={outcome}`,
      secret: CINT_SECRET,
      signatureParameter: "hash",
      signatureAlgorithm: "HMAC-SHA1",
      signatureEncoding: "base64url",
    });
    expect(c.status, JSON.stringify(c.body)).toBe(201);
    expect(c.body).toMatchObject({ signatureParameter: "hash", signatureAlgorithm: "HMAC-SHA1", signatureEncoding: "base64url", signedPart: "url", hasSecret: true });
    const p = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
      name: "PureSpectrum-style",
      entryParameter: "transaction_id",
      ...ends("https://ps.example", "transaction_id", ["21", "20", "30", "40"]),
      callbackUrl: `${base}/ps/s2s?transaction_id={rid}&status={outcome}`,
      secret: PS_SECRET,
      signatureParameter: "ps_hash",
      signatureAlgorithm: "SHA1-SECRET-SUFFIX",
    });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    expect(JSON.stringify([c.body, p.body])).not.toContain("secret-0");
    cint = { id: c.body.id, run: await supplierRun("Cint-style run", c.body.id) };
    ps = { id: p.body.id, run: await supplierRun("PureSpectrum-style run", p.body.id) };
  });
});

const cintEntry = (rid: string) => {
  const q = `supplier=${cint.id}&RID=${encodeURIComponent(rid)}`;
  return `${q}&hash=${cintHash(`${PUBLIC}/s/${cint.run.link}?${q}`)}`;
};
const psEntry = (rid: string) => {
  const q = `supplier=${ps.id}&transaction_id=${encodeURIComponent(rid)}`;
  return `${q}&ps_hash=${psHash(`${PUBLIC}/s/${ps.run.link}?${q}`)}`;
};

describe("entries are checked with the supplier's scheme", () => {
  test("Cint-style: the base64url HMAC-SHA1 `hash` enters; the old hex `sig`, a hex hash or a wrong one are refused", async () => {
    const q = `supplier=${cint.id}&RID=X1`;
    const url = `${PUBLIC}/s/${cint.run.link}?${q}`;
    const refused = [
      `${q}&sig=${createHmac("sha256", CINT_SECRET).update(url).digest("hex")}`,
      `${q}&hash=${createHmac("sha1", CINT_SECRET).update(url).digest("hex")}`,
      `${q}&hash=${cintHash(`${url}x`)}`,
      q,
    ];
    for (const entryQuery of refused) expect((await post(cint.run, "/start", { entryQuery })).status, entryQuery).toBe(403);
    // Padded base64url is the same signature.
    const padded = await post(cint.run, "/start", { entryQuery: `${q}&hash=${cintHash(url)}=` });
    expect(padded.status, JSON.stringify(padded.body)).toBe(200);
    expect(padded.body.status).toBe("InProgress");
  });

  test("PureSpectrum-style: the hex SHA-1 of URL + secret as `ps_hash` enters; an HMAC of the same URL is refused", async () => {
    const q = `supplier=${ps.id}&transaction_id=X2`;
    const url = `${PUBLIC}/s/${ps.run.link}?${q}`;
    expect((await post(ps.run, "/start", { entryQuery: `${q}&ps_hash=${createHmac("sha1", PS_SECRET).update(url).digest("hex")}` })).status).toBe(403);
    const ok = await post(ps.run, "/start", { entryQuery: `${q}&ps_hash=${psHash(url)}` });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  });
});

describe("end links and callbacks are signed with the supplier's scheme", () => {
  test("Cint-style complete: the end link and the callback carry a `hash` that verifies", async () => {
    const end = await walk(cint.run, (await post(cint.run, "/start", { entryQuery: cintEntry("C1") })).body, FEMALE);
    expect(end.status).toBe("Complete");
    // printf '%s' 'https://cint.example/complete?RID=C1' | openssl dgst -sha1 -hmac 'cint-style-shared-secret-01' -binary | base64 | tr '+/' '-_' | tr -d '='
    expect(end.redirectUrl).toBe("https://cint.example/complete?RID=C1&hash=h7Bvg1Fpsp1qzSgiKe3gNYzHFv8");
    const sent = await deliverDueCallbacks(tdb.db);
    const mine = sent.filter((a) => a.url.includes("RID=C1&"));
    expect(mine.length).toBe(1);
    expect(mine[0]).toMatchObject({ attempt: 1, httpStatus: 200, delivered: true });
    const got = calls.find((c) => c.url.includes("/cint/s2s?RID=C1&"))!;
    expect(got.method).toBe("POST");
    const unsigned = `${base}/cint/s2s?RID=C1&status=complete`;
    expect(got.url).toBe(`${unsigned}&hash=${cintHash(unsigned)}`);
    // The claim's transaction had committed: the supplier was called outside any transaction.
    expect(got.outcomeLocked).toBe(false);
  });

  test("Cint-style callback, fixed vector (the server's address aside, the same scheme signs it)", async () => {
    // printf '%s' 'https://cint.example/s2s?RID=C1&status=complete' | openssl dgst -sha1 -hmac 'cint-style-shared-secret-01' -binary | base64 | tr '+/' '-_' | tr -d '='
    expect(cintHash("https://cint.example/s2s?RID=C1&status=complete")).toBe("rsLFkPNQCgX5U8gWF4QDyF3CkwY");
  });

  test("PureSpectrum-style complete and screen-out: end links and callbacks carry a `ps_hash` that verifies", async () => {
    const complete = await walk(ps.run, (await post(ps.run, "/start", { entryQuery: psEntry("P1") })).body, MALE);
    expect(complete.status).toBe("Complete");
    // printf '%s' 'https://ps.example/return?st=21&transaction_id=P1purespectrum-shared-secret-02' | openssl dgst -sha1
    expect(complete.redirectUrl).toBe("https://ps.example/return?st=21&transaction_id=P1&ps_hash=1ed79636f1e92e212fb579a6b2bf610374859ed7");
    const screened = await walk(ps.run, (await post(ps.run, "/start", { entryQuery: psEntry("P2") })).body, ANOTHER);
    expect(screened.status).toBe("ScreenedOut");
    // printf '%s' 'https://ps.example/return?st=20&transaction_id=P2purespectrum-shared-secret-02' | openssl dgst -sha1
    expect(screened.redirectUrl).toBe("https://ps.example/return?st=20&transaction_id=P2&ps_hash=43969ff7df587fdf0619a5ba3591b8099a178430");
    await deliverDueCallbacks(tdb.db);
    for (const [rid, outcome] of [["P1", "complete"], ["P2", "screen-out"]] as const) {
      const unsigned = `${base}/ps/s2s?transaction_id=${rid}&status=${outcome}`;
      const got = calls.filter((c) => c.url.startsWith(`${unsigned}&`));
      expect(got.length, rid).toBe(1);
      expect(got[0]!.url).toBe(`${unsigned}&ps_hash=${psHash(unsigned)}`);
    }
    // printf '%s' 'https://ps.example/s2s?transaction_id=P1&status=completepurespectrum-shared-secret-02' | openssl dgst -sha1
    expect(psHash("https://ps.example/s2s?transaction_id=P1&status=complete")).toBe("c8be7930896a1ef7e74ed2cc47ad72df6969a551");
  });
});

describe("what is signed, where the signature goes", () => {
  const scheme = { signatureParameter: "s", signatureAlgorithm: "HMAC-SHA256", signatureEncoding: "hex" } as const;
  const h = (m: string) => createHmac("sha256", "k-0123456789abcdef").update(m).digest("hex");
  test("signedPart query: the query alone is signed; the signature goes last, before a fragment", async () => {
    const url = "https://q.example/end?st=c&id=R1#done";
    expect(await signLink("k-0123456789abcdef", { ...scheme, signedPart: "query" }, url)).toBe(`https://q.example/end?st=c&id=R1&s=${h("st=c&id=R1")}#done`);
  });
  test("signedPart url: the link without its fragment; a link without a query gets ?", async () => {
    expect(await signLink("k-0123456789abcdef", { ...scheme, signedPart: "url" }, "https://q.example/end/R1#x")).toBe(`https://q.example/end/R1?s=${h("https://q.example/end/R1")}#x`);
  });
});

describe("callbacks are retried with backoff, and every attempt recorded", () => {
  test("backoff: 30 s, quadrupling, at most 6 hours (worked by hand)", () => {
    // 30, 30*4 = 120, 120*4 = 480, 480*4 = 1920, 1920*4 = 7680, 7680*4 = 30720 > 21600 (6 h): 21600.
    expect([1, 2, 3, 4, 5, 6, 7].map(callbackBackoffSeconds)).toEqual([30, 120, 480, 1920, 7680, 21600, 21600]);
  });

  test("a 500 leaves the callback pending, due 30 s after the attempt; the next attempt delivers it", async () => {
    failing.add("C2");
    const first = await walk(cint.run, (await post(cint.run, "/start", { entryQuery: cintEntry("C2") })).body, MALE);
    expect(first.status).toBe("Complete");
    const a1 = (await deliverDueCallbacks(tdb.db)).find((a) => a.url.includes("RID=C2&"));
    expect(a1).toMatchObject({ attempt: 1, httpStatus: 500, delivered: false });
    const [o] = await tdb.db<{ state: string; late: number }[]>`
      select o.callback_state as state, extract(epoch from o.next_attempt_at - a.finished_at)::float8 as late
      from supplier_outcomes o join supplier_callback_attempts a on a.supplier_outcome_id = o.id where o.rid = 'C2'`;
    expect(o).toEqual({ state: "pending", late: 30 });
    expect((await deliverDueCallbacks(tdb.db)).some((a) => a.url.includes("RID=C2&")), "not due yet").toBe(false);
    // Time passes: the retry is due (a second ago: a retry due at this statement's own now() was
    // sometimes not yet due to the next transaction's now() once test databases committed without
    // waiting for the disk, which left no millisecond between the two).
    failing.delete("C2");
    await tdb.db`update supplier_outcomes set next_attempt_at = now() - interval '1 second' where rid = 'C2'`;
    const a2 = (await deliverDueCallbacks(tdb.db)).find((a) => a.url.includes("RID=C2&"));
    expect(a2).toMatchObject({ attempt: 2, httpStatus: 200, delivered: true });
  });

  test(`a callback failing its ${CALLBACK_MAX_ATTEMPTS}th attempt is failed; an unreachable supplier is recorded with the error`, async () => {
    failing.add("C9");
    // The run closed at its quota with C2 (2 completes): C9 arrives late and is sent back over quota.
    const late = (await post(cint.run, "/start", { entryQuery: cintEntry("C9") })).body;
    // printf '%s' 'https://cint.example/overquota?RID=C9' | openssl dgst -sha1 -hmac 'cint-style-shared-secret-01' -binary | base64 | tr '+/' '-_' | tr -d '='
    expect(late.redirectUrl).toBe("https://cint.example/overquota?RID=C9&hash=31bO2exBHg7LQekbQfUnbdG1G7I");
    await tdb.db`update supplier_outcomes set callback_attempts = ${CALLBACK_MAX_ATTEMPTS - 2} where rid = 'C9'`;
    const a7 = (await deliverDueCallbacks(tdb.db)).find((a) => a.url.includes("RID=C9&"));
    expect(a7).toMatchObject({ attempt: CALLBACK_MAX_ATTEMPTS - 1, httpStatus: 500, delivered: false });
    // The supplier's server goes away: the last attempt fails with a network error.
    await tdb.db`update supplier_outcomes set next_attempt_at = now() - interval '1 second' where rid = 'C9'`;
    const closed = `http://127.0.0.1:1/cint/s2s?RID={rid}&status={outcome}`;
    expect((await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${cint.id})`, { callbackUrl: closed })).status).toBe(200);
    const a8 = (await deliverDueCallbacks(tdb.db)).find((a) => a.url.includes("RID=C9&"));
    expect(a8?.attempt).toBe(CALLBACK_MAX_ATTEMPTS);
    expect(a8?.httpStatus).toBeNull();
    expect(a8?.error).toBeTruthy();
    const [o] = await tdb.db<{ state: string; next: string | null }[]>`select callback_state as state, next_attempt_at as next from supplier_outcomes where rid = 'C9'`;
    expect(o).toEqual({ state: "failed", next: null });
    expect((await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${cint.id})`, { callbackUrl: `${base}/cint/s2s?RID={rid}&status={outcome}` })).status).toBe(200);
  });

  test("the suppliers.callbacks job sends what is due", async () => {
    // X1 was sent back over quota when C2 closed the run; make its callback due again as if unsent.
    await tdb.db`update supplier_outcomes set callback_state = 'pending', next_attempt_at = now() - interval '1 second', callback_attempts = 0, delivered_at = null where rid = 'X1'`;
    await tdb.db`delete from supplier_callback_attempts where supplier_outcome_id = (select id from supplier_outcomes where rid = 'X1')`;
    const before = calls.length;
    const ctx = { db: tdb.db, progress: async () => {}, signal: new AbortController().signal } as unknown as Parameters<typeof supplierCallbacksJob.handler>[0];
    const r = await supplierCallbacksJob.handler(ctx);
    expect(r).toEqual({ attempts: 1, delivered: 1 });
    const unsigned = `${base}/cint/s2s?RID=X1&status=over-quota`;
    expect(calls.slice(before).map((c) => c.url)).toEqual([`${unsigned}&hash=${cintHash(unsigned)}`]);
  });

  test("staff read the run's callbacks with every attempt; nobody else", async () => {
    expect((await call(app, "acmeAdmin", T, "GET", `/api/v1/SurveyRuns(${cint.run.id})/SupplierCallbacks`)).status).toBe(403);
    const r = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${cint.run.id})/SupplierCallbacks`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const byRid = Object.fromEntries((r.body.value as { rid: string; outcome: string; state: string; attempts: { attempt: number; httpStatus: number | null }[] }[]).map((c) => [c.rid, c]));
    expect(byRid.C1).toMatchObject({ outcome: "complete", state: "delivered", attempts: [{ attempt: 1, httpStatus: 200 }] });
    expect(byRid.C2).toMatchObject({ outcome: "complete", state: "delivered", attempts: [{ attempt: 1, httpStatus: 500 }, { attempt: 2, httpStatus: 200 }] });
    expect(byRid.C9).toMatchObject({ outcome: "over-quota", state: "failed" });
    expect(byRid.C9.attempts.map((a: { attempt: number }) => a.attempt)).toEqual([CALLBACK_MAX_ATTEMPTS - 1, CALLBACK_MAX_ATTEMPTS]);
  });
});

describe("the reconciliation lists exactly what each rid was sent back with", () => {
  test("mid-survey at the close (over-quota, with its callback), a late arrival (over-quota, listed, called back), and its second entry a duplicate", async () => {
    // X2 entered the PureSpectrum-style run above and is still answering.
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${ps.run.id})/ForceCloseSurvey`)).status).toBe(200);
    const late = await post(ps.run, "/start", { entryQuery: psEntry("P7") });
    expect(late.status).toBe(200);
    const unsignedEnd = "https://ps.example/return?st=30&transaction_id=P7";
    expect(late.body.redirectUrl).toBe(`${unsignedEnd}&ps_hash=${psHash(unsignedEnd)}`);
    const again = await post(ps.run, "/start", { entryQuery: psEntry("P7") });
    expect(again.body).toMatchObject({ redirectUrl: null, message: "You have already taken part in this survey. Thank you." });
    await deliverDueCallbacks(tdb.db);
    for (const rid of ["X2", "P7"]) {
      const unsigned = `${base}/ps/s2s?transaction_id=${rid}&status=over-quota`;
      expect(calls.filter((c) => c.url === `${unsigned}&ps_hash=${psHash(unsigned)}`).length, rid).toBe(1);
    }
    const csv = (await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${ps.run.id})/ReconciliationCsv`)).body as string;
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("rid,status,start,end,quality_flags,supplier,callback,reported,reversed_at,reversal_callback");
    const rows = Object.fromEntries(lines.slice(1).map((l) => l.split(",")).map((c) => [c[0], c]));
    expect(Object.keys(rows).sort()).toEqual(["P1", "P2", "P7", "X2"]);
    expect(rows.P1!.slice(1, 2).concat(rows.P1!.slice(5))).toEqual(["complete", "PureSpectrum-style", "delivered", "", "", ""]);
    expect(rows.P2![1]).toBe("screen-out");
    expect(rows.X2![1]).toBe("over-quota");
    expect(rows.P7![1]).toBe("over-quota");
    expect(rows.P7![6]).toBe("delivered");
  });

  test("the Cint-style run: what the redirects said, with the callbacks' states", async () => {
    const csv = (await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${cint.run.id})/ReconciliationCsv`)).body as string;
    const rows = csv.trimEnd().split("\r\n").slice(1).map((l) => l.split(","));
    // X1 was answering when C2's complete closed the run at its quota.
    expect(rows.map((c) => [c[0], c[1], c[6]])).toEqual([
      ["X1", "over-quota", "delivered"],
      ["C1", "complete", "delivered"],
      ["C2", "complete", "delivered"],
      ["C9", "over-quota", "failed"],
    ]);
  });
});
