// Duplicates judged on the server (issue 36, docs/decisions/0129): a complete whose entry came from
// the same network address AND the same user agent as a complete already in the run is flagged
// "duplicate", whatever device fingerprint its page sent; the same address with another user agent
// (colleagues behind one office NAT) or another address with the same user agent is not; the
// fingerprint stays a signal of its own. What is stored is a keyed hash of address and user agent
// under the run's own key, never the address, and it is cleared when the run closes. The peer
// address is the server adapter's (deps.clientIp); here a stand-in the test sets per request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { ATTENTION } from "../../api/src/domains/fielding/engine.ts";
import { networkKey } from "../../api/src/domains/fielding/quality.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
let runId: number;
let link: string;
/** The peer address the server adapter reports for the next request. */
let peer = "198.51.100.7";

const CHROME = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";
/** The same browser one minor version on: one character differs. */
const CHROME_NEXT = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/132.0.0.0 Safari/537.36";

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { clientIp: () => peer });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Duplicates", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const projectId = created.body.id as number;
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId, conceptText: "Oat milk barista blend" })).status).toBe(201);
  await tdb.db`update projects_regions set sample_size = 50 where project_id = ${projectId}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${projectId})/SuperApprove`)).body.statusCode).toBe(300);
  const [run] = await fielding.createSurveys(tdb.db, projectId);
  runId = run!.surveyRunId;
  link = (await fielding.launchRun(tdb.db, runId, "http://ideally.test")).surveyLink;
}, 120_000);
afterAll(async () => {
  await tdb.drop();
});

type Q = { key: string; type: string; options: { id: number; exclusive: boolean }[] };
type View = { respondentId: string; status: string; page: { id: string; questions: Q[] } | null };

async function post(path: string, body: unknown, ua: string | null): Promise<{ status: number; body: View }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (ua !== null) headers["user-agent"] = ua;
  const r = await app.request(`/s/api/${link}${path}`, { method: "POST", headers, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as View };
}

const TEXTS = ["It sounds tasty and good value", "I would try it with my morning coffee", "The carton looks easy to recycle", "Maybe a smaller size for the fridge"];

/** Plausible answers: varied scale answers (no straight-lining), a different sentence per open question. */
function answers(v: View): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  let text = 0;
  for (const q of v.page!.questions) {
    if (q.key === ATTENTION.key) out[q.key] = ATTENTION.correct;
    else if (q.type === "text") out[q.key] = TEXTS[text++ % TEXTS.length];
    else if (q.type === "multiple") out[q.key] = [q.options.find((o) => !o.exclusive)!.id];
    else out[q.key] = q.options[Object.keys(out).length % q.options.length]!.id;
  }
  return out;
}

/** One respondent from `address` with user agent `ua` and device fingerprint `fp`, through to the end; the session's row. */
async function respondent(address: string, ua: string | null, fp: string) {
  peer = address;
  const start = await post("/start", { deviceFingerprint: fp }, ua);
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  let cur = start.body;
  for (let i = 0; i < 30 && cur.status === "InProgress"; i++) {
    const r = await post(`/${cur.respondentId}/answers`, { pageId: cur.page!.id, answers: answers(cur) }, ua);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    cur = r.body;
  }
  const [row] = await tdb.db<{ status: string; flags: string[]; key: string | null }[]>`
    select status, quality_flags as flags, network_key as key from survey_sessions where respondent_uuid = ${cur.respondentId}::uuid`;
  return row!;
}

describe("the address and user agent, judged on the server", () => {
  test("the first respondent from an address completes", async () => {
    expect(await respondent("198.51.100.7", CHROME, "fingerprint-0001")).toMatchObject({ status: "Complete", flags: [] });
  });

  test("the same address and user agent with another device fingerprint: flagged a duplicate", async () => {
    expect(await respondent("198.51.100.7", CHROME, "fingerprint-0002")).toMatchObject({ status: "Removed", flags: ["duplicate"] });
  });

  test("the same address with a user agent one character apart (a colleague behind the office NAT): not flagged", async () => {
    expect(await respondent("198.51.100.7", CHROME_NEXT, "fingerprint-0003")).toMatchObject({ status: "Complete", flags: [] });
  });

  test("the same user agent from the next address: not flagged", async () => {
    expect(await respondent("198.51.100.8", CHROME, "fingerprint-0004")).toMatchObject({ status: "Complete", flags: [] });
  });

  test("the same address without a user agent: no network signal, not flagged", async () => {
    expect(await respondent("198.51.100.7", null, "fingerprint-0005")).toMatchObject({ status: "Complete", flags: [], key: null });
  });

  test("an IPv4 address seen as IPv4-mapped IPv6 is the same address", async () => {
    expect(await respondent("::ffff:198.51.100.8", CHROME, "fingerprint-0006")).toMatchObject({ status: "Removed", flags: ["duplicate"] });
  });

  test("the fingerprint stays a signal of its own: a new address and user agent with a complete's fingerprint is flagged", async () => {
    expect(await respondent("203.0.113.50", "Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X)", "fingerprint-0001")).toMatchObject({ status: "Removed", flags: ["duplicate"] });
  });
});

describe("what is stored", () => {
  test("a keyed hash of address and user agent under the run's own key (computed here with node:crypto), never the address", async () => {
    const [run] = await tdb.db<{ key: string }[]>`select respondent_key::text as key from survey_runs where id = ${runId}`;
    const expected = createHmac("sha256", run!.key).update(`198.51.100.7\n${CHROME}`).digest("hex");
    expect(networkKey(run!.key, "198.51.100.7", CHROME)).toBe(expected);
    const rows = await tdb.db<{ key: string | null; fp: string | null }[]>`select network_key as key, device_fingerprint as fp from survey_sessions where survey_run_id = ${runId} order by id`;
    expect(rows.filter((r) => r.key === expected).length, "the first two respondents").toBe(2);
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions s where survey_run_id = ${runId} and row_to_json(s)::text like '%198.51.100%'`;
    expect(n, "no session row holds an address").toBe(0);
    // Another run's key gives another hash for the same address and user agent: runs cannot be linked.
    expect(networkKey("00000000-0000-4000-8000-000000000001", "198.51.100.7", CHROME)).not.toBe(expected);
    expect(networkKey(run!.key, "198.51.100.7", "")).toBeNull();
  });

  test("the keys are cleared when the run closes (no completes are judged after it)", async () => {
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${runId})/ForceCloseSurvey`)).status).toBe(200);
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId} and network_key is not null`;
    expect(n).toBe(0);
    const flags = await tdb.db<{ flags: string[] }[]>`select quality_flags as flags from survey_sessions where survey_run_id = ${runId} and status = 'Removed' order by id`;
    expect(
      flags.map((f) => f.flags),
      "the flags are kept",
    ).toEqual([["duplicate"], ["duplicate"], ["duplicate"]]);
  });
});
