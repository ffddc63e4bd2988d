// Outside sample suppliers by the redirect protocol (issue 21): a supplier's respondent enters with
// its rid and a valid signature, completes and is sent to the complete link, signed; a screened-out
// one to the screen-out link, one over quota to the over-quota link, one failing the attention
// check to the quality-terminate link; a bad or missing signature is refused; a rid enters once;
// the reconciliation CSV lists them. Signatures are computed here with node:crypto, independently
// of the code under test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { ATTENTION } from "../../api/src/domains/fielding/engine.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
const SECRET = "a-shared-secret-of-the-supplier";
const MALE = 4500001;
const FEMALE = 4500002;
const ANOTHER = 4500003;
const hmac = (s: string) => createHmac("sha256", SECRET).update(s).digest("hex");

let supplierId: number;
let runId: number;
let link: string;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

type Q = { key: string; type: string; options: { id: number; exclusive: boolean }[] };
type View = { respondentId: string; status: string; redirectUrl: string | null; page: { id: string; kind: string; questions: Q[] } | null };

const post = async (path: string, body: unknown) => {
  const r = await app.request(`/s/api/${link}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as View & { message: string } };
};

const get = async (path: string) => {
  const r = await app.request(`/s/api/${link}${path}`);
  return { status: r.status, body: (await r.json()) as View & { message: string } };
};

/** Plausible answers to a page (gender as given; the attention check right or wrong). */
function answers(v: View, gender: number, attentionRight: boolean): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const q of v.page!.questions) {
    if (q.key === "s45") out[q.key] = gender;
    else if (q.key === ATTENTION.key) out[q.key] = attentionRight ? ATTENTION.correct : 0;
    else if (q.type === "text") out[q.key] = "It sounds tasty and good value";
    else if (q.type === "multiple") out[q.key] = [q.options.find((o) => !o.exclusive)!.id];
    // A different answer on each scale item in turn: never one answer on every item (straight-lining).
    else out[q.key] = q.options[Object.keys(out).length % q.options.length]!.id;
  }
  return out;
}

async function walk(v: View, gender: number, attentionRight = true): Promise<View> {
  let cur = v;
  for (let i = 0; i < 30 && cur.status === "InProgress"; i++) {
    const r = await post(`/${cur.respondentId}/answers`, { pageId: cur.page!.id, answers: answers(cur, gender, attentionRight) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    cur = r.body;
  }
  return cur;
}

const entry = (rid: string, sign = true) => {
  const q = `supplier=${supplierId}&rid=${encodeURIComponent(rid)}`;
  return sign ? `${q}&sig=${hmac(`${PUBLIC}/s/${link}?${q}`)}` : q;
};
const signed = (url: string) => `${url}&sig=${hmac(url)}`;

describe("staff manage suppliers", () => {
  test("a supplier with four end links containing {rid} and a secret; the secret is never returned", async () => {
    const body = {
      name: "Acme Sample",
      completeUrl: "https://supplier.example/end?st=c&id={rid}",
      screenOutUrl: "https://supplier.example/end?st=s&id={rid}",
      overQuotaUrl: "https://supplier.example/end?st=q&id={rid}",
      qualityTerminateUrl: "https://supplier.example/end?st=t&id={rid}",
      secret: SECRET,
    };
    expect((await call(app, "acmeAdmin", T, "POST", "/api/v1/SampleSuppliers", body)).status, "staff only").toBe(403);
    const bad = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { ...body, overQuotaUrl: "https://supplier.example/end?st=q" });
    expect(bad.status, "a link without {rid}").toBe(400);
    expect(bad.body.errors[0].path).toBe("overQuotaUrl");
    const r = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", body);
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.entryParameter).toBe("rid");
    expect(r.body.hasSecret).toBe(true);
    expect(JSON.stringify(r.body)).not.toContain(SECRET);
    supplierId = r.body.id;
  });

  test("{rid} only in a link's path or query, no control characters; the link stored as validated (issue 38)", async () => {
    const base = {
      name: "Hostile Sample",
      completeUrl: "https://supplier.example/c/{rid}",
      screenOutUrl: "https://supplier.example/s?id={rid}",
      overQuotaUrl: "https://supplier.example/q?id={rid}",
      qualityTerminateUrl: "https://supplier.example/t?id={rid}",
    };
    const refused: [string, string][] = [
      ["https://{rid}/", "the respondent would choose the host"],
      ["http:{rid}", "no // : the rid is the host"],
      ["https://{rid}.supplier.example/end", "a subdomain"],
      ["https://supplier.example:{rid}/end", "the port"],
      ["https://{rid}@supplier.example/end", "the user name"],
      ["https://u:{rid}@supplier.example/end", "the password"],
      ["https://supplier.example/end?id={rid}\r\nSet-Cookie: x=1", "CR LF"],
      ["https://supplier.example/e\tnd?id={rid}", "a tab"],
      ["https://supplier.example/end?id={rid}\u007f", "DEL"],
    ];
    for (const [url, why] of refused) {
      const r = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { ...base, completeUrl: url });
      expect(r.status, `${why}: ${url}`).toBe(400);
      expect(r.body.errors[0].path, why).toBe("completeUrl");
    }
    const count = (await call(app, "staff", null, "GET", "/api/v1/SampleSuppliers")).body.value.filter((x: { name: string }) => x.name === "Hostile Sample").length;
    expect(count, "nothing stored").toBe(0);
    const ok = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", { ...base, completeUrl: "https://supplier.example/{rid}/done?x={rid}#{rid}" });
    expect(ok.status, JSON.stringify(ok.body)).toBe(201);
    expect(ok.body.completeUrl, "stored exactly as sent").toBe("https://supplier.example/{rid}/done?x={rid}#{rid}");
    const patched = await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${ok.body.id})`, { screenOutUrl: "https://{rid}/" });
    expect(patched.status, "PATCH checks the same").toBe(400);
    expect((await call(app, "staff", null, "DELETE", `/api/v1/SampleSuppliers(${ok.body.id})`)).status).toBe(204);
  });

  test("a run takes respondents from the supplier", async () => {
    const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Supplier run", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
    const id = created.body.id as number;
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" })).status).toBe(201);
    // Two completes, one man and one woman: the second woman is over quota; another gender screens out.
    expect(
      (
        await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
          targets: [
            { systemQuestionOptionId: MALE, quotaPercent: 50 },
            { systemQuestionOptionId: FEMALE, quotaPercent: 50 },
          ],
        })
      ).status,
    ).toBe(200);
    await tdb.db`update projects_regions set sample_size = 2, is_customer_panel = true where project_id = ${id}`;
    expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
    const [run] = await fielding.createSurveys(tdb.db, id);
    runId = run!.surveyRunId;
    link = run!.surveyLink;
    const set = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${runId})/SetSampleSupplier`, { sampleSupplierId: supplierId });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    await fielding.launchRun(tdb.db, runId, PUBLIC);
  });
});

describe("the redirect protocol", () => {
  test("unsigned, wrongly signed, or another rid's signature: refused (403)", async () => {
    expect((await post("/start", { entryQuery: entry("R1", false) })).status, "unsigned").toBe(403);
    expect((await post("/start", { entryQuery: `${entry("R1", false)}&sig=${"0".repeat(64)}` })).status, "a wrong signature").toBe(403);
    const other = entry("R9").split("&sig=")[1];
    expect((await post("/start", { entryQuery: `${entry("R1", false)}&sig=${other}` })).status, "another rid's signature").toBe(403);
    expect((await post("/start", {})).status, "no entry at all on a supplier's run").toBe(403);
    // One message for every refusal (a respondent learns nothing of why), the reason in the detail.
    const cases: [unknown, string][] = [
      [{ entryQuery: entry("R1", false) }, "the entry link is not signed"],
      [{ entryQuery: `${entry("R1", false)}&sig=${"0".repeat(64)}` }, "the entry link's signature does not match"],
      [{}, "a supplier's survey needs its entry link"],
    ];
    for (const [body, detail] of cases) {
      const r = await post("/start", body);
      expect(r.body, detail).toMatchObject({ message: "This survey link is not valid", detail });
    }
  });

  test("a respondent enters with rid and a valid sig, completes, and goes to the complete link, signed", async () => {
    const start = await post("/start", { entryQuery: entry("R1") });
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    const end = await walk(start.body, FEMALE);
    expect(end.status).toBe("Complete");
    expect(end.redirectUrl).toBe(signed("https://supplier.example/end?st=c&id=R1"));
    // The same signed entry again (issue 36: it was answered with the finished session and a
    // freshly signed complete link, without answering): a duplicate, told so, with no link, no
    // session id and nothing stored.
    const [{ n: before }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`;
    const again = await post("/start", { entryQuery: entry("R1") });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body).toMatchObject({ status: "Removed", redirectUrl: null, page: null, message: "You have already taken part in this survey. Thank you." });
    expect(again.body.respondentId).not.toBe(start.body.respondentId);
    const [{ n: after }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`;
    expect(after).toBe(before);
    // The finished respondent's own session still reads as it was (their page reloaded).
    const own = await get(`/${start.body.respondentId}`);
    expect(own.body).toMatchObject({ status: "Complete", redirectUrl: signed("https://supplier.example/end?st=c&id=R1") });
  });

  test("a screened-out respondent goes to the screen-out link", async () => {
    const end = await walk((await post("/start", { entryQuery: entry("R2") })).body, ANOTHER);
    expect(end.status).toBe("ScreenedOut");
    expect(end.redirectUrl).toBe(signed("https://supplier.example/end?st=s&id=R2"));
  });

  test("a respondent over quota goes to the over-quota link", async () => {
    const end = await walk((await post("/start", { entryQuery: entry("R3") })).body, FEMALE);
    expect(end.status).toBe("OverQuota");
    expect(end.redirectUrl).toBe(signed("https://supplier.example/end?st=q&id=R3"));
  });

  test("failing the attention check goes to the quality-terminate link", async () => {
    const end = await walk((await post("/start", { entryQuery: entry("R4 x") })).body, MALE, false);
    expect(end.status).toBe("ScreenedOut");
    expect(end.redirectUrl).toBe(signed("https://supplier.example/end?st=t&id=R4%20x"));
  });

  test("a screened-out, over-quota or quality-terminated rid entering again is a duplicate too: no fresh signed end link, nothing stored (issue 36)", async () => {
    const count = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`)[0]!.n;
    const before = await count();
    for (const rid of ["R2", "R3", "R4 x"]) {
      const again = await post("/start", { entryQuery: entry(rid) });
      expect(again.status, rid).toBe(200);
      expect(again.body, rid).toMatchObject({ status: "Removed", redirectUrl: null, page: null, message: "You have already taken part in this survey. Thank you." });
    }
    expect(await count(), "nothing stored").toBe(before);
  });

  test("the reconciliation CSV lists them (rid, status, start, end, quality flags)", async () => {
    expect((await call(app, "acmeAdmin", T, "GET", `/api/v1/SurveyRuns(${runId})/ReconciliationCsv`)).status, "staff only").toBe(403);
    const r = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${runId})/ReconciliationCsv`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("text/csv");
    const lines = (r.body as string).trimEnd().split("\r\n");
    expect(lines[0]).toBe("rid,status,start,end,quality_flags,supplier,callback,reported,reversed_at,reversal_callback");
    const rows = lines.slice(1).map((l) => l.split(","));
    expect(rows.map((c) => [c[0], c[1]])).toEqual([
      ["R1", "complete"],
      ["R2", "screen-out"],
      ["R3", "over-quota"],
      ["R4 x", "quality-terminate"],
    ]);
    for (const c of rows) {
      expect(Number.isNaN(Date.parse(c[2]!))).toBe(false);
      expect(Number.isNaN(Date.parse(c[3]!)), "ended").toBe(false);
    }
  });
});

describe("resuming (after the reconciliation above, which would list this respondent; before the run closes)", () => {
  test("a respondent who has not finished enters again into their own session", async () => {
    const first = await post("/start", { entryQuery: entry("R7") });
    expect(first.body.status).toBe("InProgress");
    const again = await post("/start", { entryQuery: entry("R7") });
    expect(again.body).toMatchObject({ respondentId: first.body.respondentId, status: "InProgress" });
  });
});

describe("a closed run", () => {
  test("a supplier's respondent arriving after the run closed goes to the over-quota link, signed; no session is stored, the outcome is", async () => {
    const closed = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${runId})/ForceCloseSurvey`);
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    const before = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`;
    const r = await post("/start", { entryQuery: entry("R6") });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.status).not.toBe("InProgress");
    expect(r.body.page).toBeNull();
    expect(r.body.message).toBe("This survey has closed. Thank you for your interest.");
    expect(r.body.redirectUrl).toBe(signed("https://supplier.example/end?st=q&id=R6"));
    const after = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId}`;
    expect(after[0]!.n, "no session for an arrival on a closed run").toBe(before[0]!.n);
    // The late arrival is in the reconciliation, as sent back (issue 36: it was not listed at all),
    // and its second entry is a duplicate, not a fresh signed link.
    const csv = (await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${runId})/ReconciliationCsv`)).body as string;
    expect(
      csv
        .split("\r\n")
        .find((l) => l.startsWith("R6,"))
        ?.split(",")[1],
    ).toBe("over-quota");
    expect((await post("/start", { entryQuery: entry("R6") })).body).toMatchObject({ redirectUrl: null, message: "You have already taken part in this survey. Thank you." });
    // A finished rid is still a duplicate (no end link); a bad signature is still refused.
    expect((await post("/start", { entryQuery: entry("R1") })).body).toMatchObject({ redirectUrl: null, message: "You have already taken part in this survey. Thank you." });
    expect((await post("/start", { entryQuery: `${entry("R7", false)}&sig=${"0".repeat(64)}` })).status).toBe(403);
  });

  test("a respondent mid-survey when the run closed: the reconciliation says what they were sent back with (issue 36)", async () => {
    // R7 was in progress (the resuming test above) when the run was force-closed.
    const [{ respondentId }] = await tdb.db<{ respondentId: string }[]>`select respondent_uuid::text as "respondentId" from survey_sessions where survey_run_id = ${runId} and supplier_rid = 'R7'`;
    const own = await get(`/${respondentId}`);
    expect(own.body.status).not.toBe("InProgress");
    expect(own.body.redirectUrl, "sent back as over quota").toBe(signed("https://supplier.example/end?st=q&id=R7"));
    const csv = (await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${runId})/ReconciliationCsv`)).body as string;
    const row = csv.split("\r\n").find((l) => l.startsWith("R7,"));
    expect(row?.split(",")[1], "the same outcome in the reconciliation (it said 'removed', no supplier outcome)").toBe("over-quota");
  });

  test("an entry without the supplier's link on a closed supplier's run is still refused (403), before the status", async () => {
    const r = await post("/start", {});
    expect(r.status).toBe(403);
  });
});
