// The simulated panel is a supplier like the others (issue 36: "It sends its people through the
// same entry link with rid and a valid signature and follows the end redirects, so the demo
// exercises the real protocol end to end"). It called the engine directly inside a transaction: no
// entry link, no signature, no redirect. Now each simulated person enters through the run's entry
// link signed with the simulated supplier's secret, answers through the respondent routes and is
// sent back to the supplier's signed end link; an entry whose signature does not match is refused
// and stores nothing; production configuration turns the panel off (409, and the tick leaves its
// runs alone). Signatures here are computed with node:crypto, outside the code under test.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { readConfig } from "../../api/src/config.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { simulatedSupplier } from "../../api/src/domains/fielding/suppliers.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

/** A Live simulated run of a one-concept Ideally-panel project in New Zealand, n completes, with the given seed. */
async function liveRun(name: string, n: number, seed?: number): Promise<{ runId: number; link: string }> {
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: n });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText: "Cold brew in a can" })).status).toBe(201);
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {})).body.statusCode).toBe(300);
  const [r] = await fielding.createSurveys(tdb.db, p.body.id);
  if (seed !== undefined) await tdb.db`update survey_runs set simulated_seed = ${seed} where id = ${r!.surveyRunId}`;
  await fielding.launchRun(tdb.db, r!.surveyRunId, PUBLIC);
  return { runId: r!.surveyRunId, link: r!.surveyLink };
}

/** The panel's supplier row (made on first use, as the panel's first batch makes it). */
const supplierRow = async () => {
  await tdb.db.begin((tx) => simulatedSupplier(tx));
  const [row] = await tdb.db<{ id: number; secret: string }[]>`select id, secret from sample_suppliers where is_simulated and deleted_at is null`;
  return row!;
};

/** The hex HMAC-SHA256 of `text` under `secret` (the default scheme's signature), by node:crypto. */
const hmac = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("hex");

describe("the simulated panel as a sample supplier", () => {
  test("every simulated respondent entered through the panel's signed entry link and was sent back to its signed end link", async () => {
    const run = await liveRun("Panel as supplier", 20);
    const r = await panel.simulate(tdb.db, run.runId, 20, { publicUrl: PUBLIC });
    expect(r.totalCompletes).toBe(20);
    const s = await supplierRow();
    const sessions = await tdb.db<{ supplier: number | null; rid: string | null; simulated: boolean; status: string; outcome: string | null }[]>`
      select x.sample_supplier_id as supplier, x.supplier_rid as rid, x.is_simulated as simulated, x.status, o.outcome
      from survey_sessions x left join supplier_outcomes o on o.survey_session_id = x.id where x.survey_run_id = ${run.runId} order by x.id`;
    expect(sessions.length).toBe(r.invited);
    for (const x of sessions) {
      expect([x.supplier, x.simulated], "a session of the panel's supplier, simulated").toEqual([s.id, true]);
      expect(x.rid).toMatch(/^sim-\d+-\d+$/);
      expect(x.outcome, `rid ${x.rid} was sent back with its outcome`).not.toBeNull();
    }
    // The panel counts what its end links said: the completes it was sent back with are the run's completes.
    expect(sessions.filter((x) => x.outcome === "complete").length).toBe(20);
    expect(sessions.filter((x) => x.status === "Complete").length).toBe(20);
    expect(r.completes + r.screenedOut + r.overQuota + r.excluded).toBe(r.invited);
    // The reconciliation lists every rid of the panel, as a supplier's.
    const csv = await call(app, "staff", null, "GET", `/api/v1/SurveyRuns(${run.runId})/ReconciliationCsv`);
    expect(csv.status).toBe(200);
    expect(String(csv.body).trim().split("\r\n").length - 1).toBe(r.invited);
    // The respondents' own clock: lengths are the people's (about 20 s a page), ending by now.
    const [{ median }] = await tdb.db<{ median: number }[]>`
      select percentile_cont(0.5) within group (order by extract(epoch from completed_at - started_at))::float8 as median
      from survey_sessions where survey_run_id = ${run.runId} and status = 'Complete'`;
    expect(median, "a person spends minutes, not the process's milliseconds").toBeGreaterThan(30);
    const [late] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${run.runId} and completed_at > now()`;
    expect(late!.n, "no session ends in the future").toBe(0);
  });

  test("an entry signed with the panel's secret (computed independently) starts a simulated session; a tampered one is refused (403) and stores nothing", async () => {
    const fresh = await liveRun("Panel entry check", 5);
    const s = await supplierRow();
    const count = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${fresh.runId}`)[0]!.n;
    const query = `supplier=${s.id}&rid=probe-1`;
    const sig = hmac(s.secret, `${PUBLIC}/s/${fresh.link}?${query}`);

    for (const bad of [
      `${query}&sig=${sig.slice(0, -1)}${sig.endsWith("0") ? "1" : "0"}`,
      `${query}&sig=${hmac("another secret of 32 characters!", `${PUBLIC}/s/${fresh.link}?${query}`)}`,
      query,
      `supplier=${s.id}&rid=probe-2&sig=${sig}`,
    ]) {
      const res = await call(app, null, null, "POST", `/s/api/${fresh.link}/start`, { entryQuery: bad });
      expect(res.status, bad).toBe(403);
      expect(res.body.typename).toBe("Forbidden");
    }
    expect(await count(), "no session from a refused entry").toBe(0);

    const ok = await call(app, null, null, "POST", `/s/api/${fresh.link}/start`, { entryQuery: `${query}&sig=${sig}` });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const [x] = await tdb.db<{ simulated: boolean; supplier: number }[]>`select is_simulated as simulated, sample_supplier_id as supplier from survey_sessions where survey_run_id = ${fresh.runId}`;
    expect(x).toEqual({ simulated: true, supplier: s.id });
  });

  test("the panel's supplier enters no supplier's run: its signed entry there is refused; staff cannot make it a run's supplier, change or remove it", async () => {
    const outside = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
      name: "Outside Sample",
      completeUrl: "https://supplier.example/end?st=c&id={rid}",
      screenOutUrl: "https://supplier.example/end?st=s&id={rid}",
      overQuotaUrl: "https://supplier.example/end?st=q&id={rid}",
      qualityTerminateUrl: "https://supplier.example/end?st=t&id={rid}",
    });
    expect(outside.status).toBe(201);
    const other = await liveRun("Outside supplier's run", 5);
    await tdb.db`update survey_runs set sample_supplier_id = ${outside.body.id} where id = ${other.runId}`;
    const s = await supplierRow();
    const query = `supplier=${s.id}&rid=probe-3`;
    const res = await call(app, null, null, "POST", `/s/api/${other.link}/start`, { entryQuery: `${query}&sig=${hmac(s.secret, `${PUBLIC}/s/${other.link}?${query}`)}` });
    expect(res.status).toBe(403);
    // Staff cannot make it a supplier's run, change it or remove it: Ideally configures it.
    const asSupplier = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${other.runId})/SetSampleSource`, { sampleSource: "supplier", sampleSupplierId: s.id });
    expect([asSupplier.status, asSupplier.body.typename]).toEqual([409, "Conflict"]);
    const viaSupplier = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${other.runId})/SetSampleSupplier`, { sampleSupplierId: s.id });
    expect(viaSupplier.status, JSON.stringify(viaSupplier.body)).toBe(409);
    expect((await call(app, "staff", null, "PATCH", `/api/v1/SampleSuppliers(${s.id})`, { name: "Renamed" })).status).toBe(409);
    expect((await call(app, "staff", null, "DELETE", `/api/v1/SampleSuppliers(${s.id})`)).status).toBe(409);
    const listed = await call(app, "staff", null, "GET", `/api/v1/SampleSuppliers(${s.id})`);
    expect([listed.body.isSimulated, listed.body.hasSecret, listed.body.name]).toEqual([true, true, "Ideally simulated panel"]);
  });

  test("the same seed gives the same people: two runs of one seed get the same answers, outcomes and quality flags, person by person", async () => {
    const a = await liveRun("Seeded A", 15, 4242);
    const b = await liveRun("Seeded B", 15, 4242);
    await panel.simulate(tdb.db, a.runId, 15, { publicUrl: PUBLIC });
    await panel.simulate(tdb.db, b.runId, 15, { publicUrl: PUBLIC });
    const people = async (runId: number) =>
      tdb.db<{ rid: string; status: string; answers: Record<string, unknown>; flags: string[]; len: number }[]>`
        select supplier_rid as rid, status, answers, quality_flags as flags, round(extract(epoch from completed_at - started_at)::numeric, 1)::float8 as len
        from survey_sessions where survey_run_id = ${runId} order by id`;
    const pa = await people(a.runId);
    const pb = await people(b.runId);
    expect(pa.length).toBeGreaterThan(15);
    // The answers' option ids are the same (one questionnaire's system questions; the concept's loop questions differ by project).
    const demographics = (x: Record<string, unknown>) => Object.fromEntries(Object.entries(x).filter(([k]) => /^s\d+$/.test(k)));
    expect(pb.map((x) => [x.rid, x.status, demographics(x.answers), x.flags, x.len])).toEqual(pa.map((x) => [x.rid, x.status, demographics(x.answers), x.flags, x.len]));
  });
});

describe("SIMULATED_PANEL: production configuration turns the simulated supplier off", () => {
  test("the setting: off by default in production, on otherwise; on or off says so; anything else is refused", () => {
    expect(readConfig({ NODE_ENV: "production", PUBLIC_URL: "https://x.example" }).simulatedPanel).toBe(false);
    expect(readConfig({}).simulatedPanel).toBe(true);
    expect(readConfig({ NODE_ENV: "production", PUBLIC_URL: "https://x.example", SIMULATED_PANEL: "on" }).simulatedPanel).toBe(true);
    expect(readConfig({ SIMULATED_PANEL: "off" }).simulatedPanel).toBe(false);
    expect(() => readConfig({ SIMULATED_PANEL: "yes" })).toThrow("SIMULATED_PANEL must be on or off, got 'yes'");
  });

  test("off: a run asking for the panel is refused (409 in the error shape), RunSimulatedData too, and the tick leaves its simulated runs alone", async () => {
    const off = testApp(tdb.db, { publicUrl: PUBLIC, simulatedPanel: false });
    const r = await liveRun("Panel off", 5);
    const set = await call(off, "staff", T, "POST", `/api/v1/SurveyRuns(${r.runId})/SetSampleSource`, { sampleSource: "simulated" });
    expect(set.status).toBe(409);
    expect(set.body.typename).toBe("Conflict");
    expect(set.body.message).toContain("SIMULATED_PANEL=off");
    const sim = await call(off, "staff", T, "POST", `/api/v1/SurveyRuns(${r.runId})/RunSimulatedData`, { completes: 5 });
    expect([sim.status, sim.body.typename]).toEqual([409, "Conflict"]);
    await panel.tick(tdb.db, PUBLIC, { panel: false });
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${r.runId}`;
    expect(n, "nobody answered the run").toBe(0);
    // On (the default in tests), the same call answers it.
    const on = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${r.runId})/RunSimulatedData`, { completes: 5 });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body.totalCompletes).toBe(5);
  });
});
