// The simulated panel's people take a survey in batches (record 0144: respondentBatch, one
// transaction for many people, a person saved when they end, completes announced and ingested once
// a batch). The batch must decide nothing of its own: the same people sent one transaction a page
// through the respondent service the routes call (startSession, submitPage), with entry links
// signed here by node:crypto, must end exactly as the batch left them: the same sessions (status,
// answers, concept order, page, end reason, quality flags), the same outcomes sent back per rid,
// the same close at quota and the same results rows. Two databases from one template, so both
// worlds have the same ids.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHmac } from "node:crypto";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { enterTenant } from "../../api/src/access/policy.ts";
import { systemCtx } from "../../api/src/domains/lifecycle/lifecycle.service.ts";
import { pages } from "../../api/src/domains/fielding/engine.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as respondents from "../../api/src/domains/fielding/respondents.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";
import { answerPage, makePerson, skipOrderDraws } from "../../api/src/domains/fielding/simulate.ts";
import { simulatedSupplier } from "../../api/src/domains/fielding/suppliers.ts";

const T = 1003;
const PUBLIC = "http://ideally.test";
const SEED = 4242;
const TARGET = 30;
let batch: TestDb;
let paged: TestDb;

/** A Live three-concept run of target completes in New Zealand, seeded: the same ids in either database. */
async function liveRun(tdb: TestDb): Promise<{ runId: number; link: string }> {
  const app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Batch or pages", projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: TARGET });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  for (const conceptText of ["Cold brew in a can", "Oat milk latte", "Sparkling yerba mate"]) {
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText })).status).toBe(201);
  }
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {})).body.statusCode).toBe(300);
  const [r] = await fielding.createSurveys(tdb.db, p.body.id);
  await tdb.db`update survey_runs set simulated_seed = ${SEED} where id = ${r!.surveyRunId}`;
  await fielding.launchRun(tdb.db, r!.surveyRunId, PUBLIC);
  return { runId: r!.surveyRunId, link: r!.surveyLink };
}

/** The hex HMAC-SHA256 of `text` under `secret` (the simulated supplier's scheme), by node:crypto. */
const hmac = (secret: string, text: string) => createHmac("sha256", secret).update(text).digest("hex");

/**
 * The panel's people, one after another as its seed orders them, each page its own transaction
 * through startSession and submitPage (what RespondentSurvey_Start and _Answer call), on the
 * person's clock, until the run has `target` completes. Returns the end links they were sent.
 */
async function pageByPage(tdb: TestDb, run: { runId: number; link: string }, target: number): Promise<Map<string, string | null>> {
  const system = <R>(fn: Parameters<typeof enterTenant<R>>[2]) => enterTenant(tdb.db, systemCtx(), fn);
  const { def, plan, margins, supplier } = await system(async (tx) => {
    const r = await fielding.liveRun(tx, run.runId);
    return { def: r.definition, plan: await fielding.panelPlan(tx, r), margins: await fielding.margins(tx, r.regionId), supplier: await simulatedSupplier(tx) };
  });
  const byId = new Map(
    pages(
      def,
      def.testOptions.map((t) => t.id),
    ).map((p) => [p.id, p] as const),
  );
  const most = pages(
    def,
    def.testOptions.map((t) => t.id),
  ).length;
  const links = new Map<string, string | null>();
  let completes = 0;
  for (let index = 0; completes < target; index++) {
    const person = makePerson(def, margins, SEED, index, plan.shares);
    skipOrderDraws(def, person);
    const spent = (n: number) => Math.max(5, n * person.secondsPerPage) * 1000;
    const start = Date.now() - spent(most);
    const rid = `sim-${SEED}-${index}`;
    const query = `supplier=${supplier.id}&rid=${rid}`;
    const entryQuery = `${query}&sig=${hmac(supplier.secret, `${PUBLIC}/s/${run.link}?${query}`)}`;
    let view = await respondents.startSession(tdb.db, run.link, null, { entryQuery, publicUrl: PUBLIC, deviceFingerprint: `device-${person.fingerprint}`, at: new Date(start) });
    let answered = 0;
    while (view.status === "InProgress" && view.page) {
      answered++;
      view = await respondents.submitPage(tdb.db, run.link, view.respondentId, view.page.id, answerPage(def, person, byId.get(view.page.id)!), new Date(start + spent(answered)));
    }
    links.set(rid, view.redirectUrl);
    if (view.status === "Complete") completes++;
  }
  return links;
}

/** What a run's fielding left: its sessions, outcomes, state and results rows. */
async function world(tdb: TestDb, runId: number) {
  const sessions = await tdb.db`
    select supplier_rid as rid, status, answers, test_option_order as "order", page, end_reason as "endReason", quality_flags as flags, is_simulated as simulated,
           extract(epoch from completed_at - started_at)::float8 as seconds
    from survey_sessions where survey_run_id = ${runId} order by id`;
  // Each outcome decided when its person ended (their own clock, as their session's end).
  const outcomes = await tdb.db`
    select o.rid, o.outcome, o.kind, o.decided_at = x.completed_at as "decidedAtTheEnd"
    from supplier_outcomes o join survey_sessions x on x.id = o.survey_session_id where o.survey_run_id = ${runId} order by o.rid, o.kind`;
  const [run] = await tdb.db`select survey_status_id as status, closed_reason as "closedReason", is_simulated as simulated from survey_runs where id = ${runId}`;
  const responses = await tdb.db`
    select x.supplier_rid as rid, r.project_question_id as question, r.system_question_id as "systemQuestion", r.test_option_id as concept,
           r.question_option_id as option, r.system_question_option_id as "systemOption", r.standard_answer_value as "standardValue",
           r.numeric_value as "numericValue", r.purchase_intent as intent
    from responses r join survey_sessions x on x.id = r.survey_session_id where r.survey_run_id = ${runId}
    order by 1, 2, 3, 4, 5, 6, 9`;
  const texts = await tdb.db`
    select x.supplier_rid as rid, t.project_question_id as question, t.test_option_id as concept, t.response_text as text
    from text_responses t join survey_sessions x on x.id = t.survey_session_id where t.survey_run_id = ${runId} order by 1, 2, 3`;
  return { sessions, outcomes, run, responses, texts };
}

let runs: { batch: { runId: number; link: string }; paged: { runId: number; link: string } };

beforeAll(async () => {
  [batch, paged] = await Promise.all([createTestDb(), createTestDb()]);
  runs = { batch: await liveRun(batch), paged: await liveRun(paged) };
  expect(runs.batch.runId, "the same ids in both worlds").toBe(runs.paged.runId);
});
afterAll(async () => {
  await Promise.all([batch.drop(), paged.drop()]);
});

describe("the simulated panel's batch and the respondent service a page at a time", () => {
  test("the same people end the same: sessions, outcomes per rid, the close at quota and the results rows", async () => {
    const r = await panel.simulate(batch.db, runs.batch.runId, TARGET, { publicUrl: PUBLIC });
    expect(r.totalCompletes).toBe(TARGET);
    expect(r.closed, "the run closed at its quota").toBe(true);
    const links = await pageByPage(paged, runs.paged, TARGET);
    const a = await world(batch, runs.batch.runId);
    const b = await world(paged, runs.paged.runId);
    expect(a.sessions.length, "the same people invited").toBe(b.sessions.length);
    expect(a.sessions.length).toBe(r.invited);
    // Some of them did not complete (the attention check, the quality checks), so more than completes are compared.
    expect(a.sessions.filter((s) => s.status !== "Complete").length).toBeGreaterThan(0);
    for (let i = 0; i < a.sessions.length; i++) {
      const { seconds: sa, ...x } = a.sessions[i]!;
      const { seconds: sb, ...y } = b.sessions[i]!;
      expect(x, `person ${i}`).toEqual(y);
      expect(Math.abs(Number(sa) - Number(sb)), `person ${i}'s length`).toBeLessThan(0.01);
    }
    expect(a.outcomes).toEqual(b.outcomes);
    expect(a.outcomes.every((o) => o.decidedAtTheEnd === true)).toBe(true);
    expect(a.run).toEqual(b.run);
    expect(a.run!.closedReason).toBe("quota");
    expect(a.responses.length).toBeGreaterThan(TARGET);
    expect(a.responses).toEqual(b.responses);
    expect(a.texts).toEqual(b.texts);
    // Each paged person was sent back to the panel's end link for their outcome (the batch's people were checked by the panel).
    for (const o of b.outcomes) expect(links.get(String(o.rid))).toStartWith(`https://simulated-panel.invalid/${o.outcome}?`);
  });
});
