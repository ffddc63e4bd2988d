// Field periods (issue 21): every run has a field end; a run that cannot fill closes there with the
// completes it has, is processed as usual, and its shortfall is refunded (one ledger row, exact);
// a run closed by staff (ForceCloseSurvey) is refunded the same way; stalled runs are marked and
// their owners told; staff move a run's field end (ExtendFieldPeriod).
//
// The price of the runs below, from docs/credits.md's formula (not from the code): New Zealand at
// 1.00 credit per complete, 2 test options (cellFactor 1.25) and price sensitivity (+20%):
//   100 completes: ceil(100 x 1.25 x 1.2) = 150 (the ledger case reported: "New Zealand, 100 completes")
//   50 delivered:  ceil(50 x 1.5) = 75   -> refund 150 - 75 = 75
//   37 delivered:  ceil(37 x 1.5) = ceil(55.5) = 56 -> refund 150 - 56 = 94
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
const T = 1003;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

/** Submitted by a member (who becomes its owner), approved by staff, its run launched. */
async function liveRun(sampleSize = 100): Promise<{ projectId: number; runId: number; ownerId: number }> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: `Period ${Math.random().toString(36).slice(2, 7)}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  for (const conceptText of ["Oat milk barista blend", "Sparkling yerba mate"]) {
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText })).status).toBe(201);
  }
  expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/CreatePriceSensitivities`, { minPrice: 2, maxPrice: 12 })).status).toBe(200);
  await tdb.db`update projects_regions set sample_size = ${sampleSize} where project_id = ${id}`;
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const [charge] = await tdb.db<{ c: number }[]>`select -sum(credit_amount)::float8 as c from credit_logs where project_id = ${id}`;
  expect(charge!.c, "the charge by the formula").toBe(150);
  const [run] = await fielding.createSurveys(tdb.db, id);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  const [{ owner }] = await tdb.db<{ owner: number }[]>`select owner_user_id as owner from projects where id = ${id}`;
  return { projectId: id, runId: run!.surveyRunId, ownerId: owner };
}

const refunds = (runId: number) => tdb.db<{ amount: number; type: number; description: string }[]>`
  select credit_amount::float8 as amount, type, description from credit_logs where survey_run_id = ${runId} and credit_amount > 0`;

describe("a run that cannot fill", () => {
  test("has a field end from launch: the project's field period, 14 days by default", async () => {
    const { runId } = await liveRun();
    const [r] = await tdb.db<{ days: number }[]>`select extract(epoch from field_end_at - launched_at)::float8 / 86400 as days from survey_runs where id = ${runId}`;
    expect(r!.days).toBeCloseTo(14, 3);
    const state = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ExtendFieldPeriod`, { fieldEndAt: new Date(Date.now() + 3 * 86400_000).toISOString() });
    expect(state.status, JSON.stringify(state.body)).toBe(200);
    expect(state.body.fieldingState).toBe("filling");
  });

  test("a project's own field period sets its runs' field end", async () => {
    const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Short field", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
    const id = created.body.id as number;
    expect((await call(app, "acmeUser", T, "PATCH", `/api/v1/Projects(${id})`, { fieldPeriodDays: 0 })).status, "below 1 day").toBe(400);
    expect((await call(app, "acmeUser", T, "PATCH", `/api/v1/Projects(${id})`, { fieldPeriodDays: 91 })).status, "above 90 days").toBe(400);
    const ok = await call(app, "acmeUser", T, "PATCH", `/api/v1/Projects(${id})`, { fieldPeriodDays: 3 });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.fieldPeriodDays).toBe(3);
    await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "One" });
    await tdb.db`update projects_regions set sample_size = 20 where project_id = ${id}`;
    await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`);
    const [run] = await fielding.createSurveys(tdb.db, id);
    await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
    const [r] = await tdb.db<{ days: number }[]>`select extract(epoch from field_end_at - launched_at)::float8 / 86400 as days from survey_runs where id = ${run!.surveyRunId}`;
    expect(r!.days).toBeCloseTo(3, 3);
  });

  test("closes at its (short) field end with 37 of 100, is processed, and 94 credits come back in one ledger row; the owner is told", async () => {
    const { projectId, runId, ownerId } = await liveRun();
    // The panel delivers 37 and no more (a market that cannot fill): stopped by hand here.
    expect((await panel.simulate(tdb.db, runId, 37)).totalCompletes).toBe(37);
    expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ExtendFieldPeriod`, { fieldEndAt: new Date(Date.now() - 1000).toISOString() })).status, "a field end in the past").toBe(
      400,
    );
    expect((await call(app, "acmeAdmin", T, "POST", `/api/v1/SurveyRuns(${runId})/ExtendFieldPeriod`, { fieldEndAt: new Date(Date.now() + 60_000).toISOString() })).status, "staff only").toBe(403);
    const end = new Date(Date.now() + 1200);
    expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ExtendFieldPeriod`, { fieldEndAt: end.toISOString() })).status).toBe(200);
    // Before the field end, the run stays open.
    expect(await fielding.closeRunsAtFieldEnd(tdb.db)).not.toContain(runId);
    await Bun.sleep(Math.max(0, end.getTime() - Date.now()) + 50);
    const t = await panel.tick(tdb.db, "http://ideally.test");
    expect(t.processed).toBeGreaterThanOrEqual(1);
    const [run] = await tdb.db<{ status: number; reason: string; processed: boolean; completes: number }[]>`
      select survey_status_id as status, closed_reason as reason, processed_at is not null as processed,
             (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and s.status = 'Complete') as completes
      from survey_runs r where id = ${runId}`;
    expect(run).toEqual({ status: 90, reason: "field end", processed: true, completes: 37 });
    const [p] = await tdb.db<{ s: number; n: number }[]>`
      select status_code as s, (select count(*)::int from project_survey_sessions where project_id = ${projectId}) as n from projects where id = ${projectId}`;
    expect(p, "partial results, processed as usual").toEqual({ s: 900, n: 37 });
    const back = await refunds(runId);
    expect(back.length, "one ledger row").toBe(1);
    expect(back[0]!.amount).toBe(94);
    expect(back[0]!.type).toBe(40);
    expect(back[0]!.description).toContain("37 of 100");
    const [{ net }] = await tdb.db<{ net: number }[]>`select sum(credit_amount)::float8 as net from credit_logs where project_id = ${projectId}`;
    expect(net, "the team pays for the 37 it got").toBe(-56);
    // Processing again writes no second refund.
    expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ProcessProjectData`)).status).toBe(200);
    expect((await refunds(runId)).length).toBe(1);
    const [n] = await tdb.db<{ body: string }[]>`
      select n.body from notifications n join notification_types t on t.id = n.notification_type_id
      where n.user_id = ${ownerId} and t.name = 'SurveyClosedShort' and n.project_id = ${projectId}`;
    expect(n!.body).toContain("37 of 100 completes at its field end; 94 credits were refunded");
  });
});

test("ForceCloseSurvey with 50 of 100 delivered: the refund for the 50 undelivered (75 of 150)", async () => {
  const { runId } = await liveRun();
  await panel.simulate(tdb.db, runId, 50);
  expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ForceCloseSurvey`)).body.closedReason).toBe("staff");
  expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/StartSurveyProcessing`)).status).toBe(200);
  const back = await refunds(runId);
  expect(back.map((r) => r.amount)).toEqual([75]);
});

test("a run that fills is not refunded", async () => {
  const { runId } = await liveRun();
  let closed = false;
  for (let i = 0; i < 5 && !closed; i++) closed = (await panel.simulate(tdb.db, runId, 50)).closed;
  expect(closed).toBe(true);
  await fielding.processRun(tdb.db, runId);
  expect((await refunds(runId)).length).toBe(0);
});

describe("stall detection", () => {
  test("no complete for 24 hours with quota open: stalled once, the owner told; at 23:59 not yet", async () => {
    const { projectId, runId, ownerId } = await liveRun();
    await panel.simulate(tdb.db, runId, 10);
    await tdb.db`update survey_runs set last_complete_at = now() - interval '23 hours 59 minutes' where id = ${runId}`;
    expect(await fielding.detectStalls(tdb.db), "just below 24 hours").not.toContain(runId);
    await tdb.db`update survey_runs set last_complete_at = now() - interval '24 hours 1 minute' where id = ${runId}`;
    expect(await fielding.detectStalls(tdb.db), "just above 24 hours").toContain(runId);
    expect(await fielding.detectStalls(tdb.db), "once").not.toContain(runId);
    const counts = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect(counts.body.value[0].fieldingState).toBe("stalled");
    expect(counts.body.value[0].fieldEndAt).not.toBeNull();
    const notes = await tdb.db<{ body: string }[]>`
      select n.body from notifications n join notification_types t on t.id = n.notification_type_id
      where n.user_id = ${ownerId} and t.name = 'SurveyStalled' and n.project_id = ${projectId}`;
    expect(notes.length).toBe(1);
    expect(notes[0]!.body).toContain("no complete for 24 hours (10 of 100)");
    // The next complete clears it.
    await panel.simulate(tdb.db, runId, 1);
    const again = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect(again.body.value[0].fieldingState).toBe("filling");
  });

  test("ExtendFieldPeriod clears the stalled mark (README: stalledAt is cleared by the next complete or ExtendFieldPeriod)", async () => {
    const { projectId, runId } = await liveRun();
    await panel.simulate(tdb.db, runId, 5);
    await tdb.db`update survey_runs set last_complete_at = now() - interval '25 hours' where id = ${runId}`;
    expect(await fielding.detectStalls(tdb.db)).toContain(runId);
    const stalled = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect([stalled.body.value[0].fieldingState, typeof stalled.body.value[0].stalledAt]).toEqual(["stalled", "string"]);
    const fieldEndAt = new Date(Date.now() + 5 * 86400_000).toISOString();
    const moved = await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/ExtendFieldPeriod`, { fieldEndAt });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    expect([moved.body.fieldingState, moved.body.stalledAt, moved.body.fieldEndAt]).toEqual(["filling", null, fieldEndAt]);
    const [row] = await tdb.db<{ stalledAt: Date | null; completes: number }[]>`
      select stalled_at as "stalledAt", (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and s.status = 'Complete') as completes
      from survey_runs r where id = ${runId}`;
    expect(row, "cleared in the run itself, with no complete since").toEqual({ stalledAt: null, completes: 5 });
    const counts = await call(app, "acmeViewer", T, "GET", `/api/v1/Projects(${projectId})/DecipherCompletesCounts`);
    expect([counts.body.value[0].fieldingState, counts.body.value[0].stalledAt]).toEqual(["filling", null]);
  });
});
