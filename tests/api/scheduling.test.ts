// Scheduling and waves: the wave-mode rule, UpdateProjectScheduling's waves per region and wave
// (types and dates), SchedulingState, ProjectSchedules ToRun / SyncDates / SyncNpdDates, the
// scheduler job (directly and through the queue): DelayCharge waves charged exactly once, blocked
// when the balance is short, 800 -> 300 for the next wave; StopProjectScheduling's refund; security.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { todayUtc } from "../../api/src/domains/credits/ledger.ts";
import { startDueSchedules } from "../../api/src/domains/scheduling/scheduling.service.ts";
import { SCHEDULER_CRON, scheduleScheduler, schedulerJob } from "../../api/src/jobs/scheduler.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { enqueueJob, registerWorkers } from "../../api/src/jobs/workers.ts";

let tdb: TestDb;
let app: App;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1003, 1, 100000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

const today = todayUtc();
function addDays(date: string, days: number): string {
  const d = new Date(`${date}T00:00:00Z`);
  d.setUTCDate(d.getUTCDate() + days);
  return d.toISOString().slice(0, 10);
}

let seq = 0;
/** A Draft of `clientId` with regions NZ (1) and AU (2), 100 completes each, one test option. */
async function makeDraft(opts: { clientId?: number; typeId?: number; launchDate?: string | null } = {}): Promise<number> {
  const sql = tdb.db;
  const clientId = opts.clientId ?? 1003;
  const [p] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id, launch_date)
    values (${clientId}, ${`Scheduling test ${++seq}`}, ${opts.typeId ?? 1}, 0, 1000, 9004, 9004, ${opts.launchDate ?? null}::date) returning id`;
  for (const regionId of [1, 2]) {
    await sql`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (${clientId}, ${p!.id}, ${regionId}, 100, false)`;
  }
  await sql`insert into test_options (client_id, project_id, concept_text) values (${clientId}, ${p!.id}, 'Concept')`;
  return p!.id;
}

interface Sched {
  id: number;
  regionId: number;
  waveNumber: number;
  scheduleDate: string;
  scheduleTypeId: number;
  creditLogId: number | null;
  launchState: string;
  startedAt: string | null;
  surveyRunId: number | null;
}
async function schedules(projectId: number): Promise<Sched[]> {
  return tdb.db<Sched[]>`
    select id, region_id as "regionId", wave_number as "waveNumber", schedule_date::text as "scheduleDate", schedule_type_id as "scheduleTypeId",
           credit_log_id as "creditLogId", launch_state as "launchState", started_at::text as "startedAt", survey_run_id as "surveyRunId"
    from project_schedules where project_id = ${projectId} order by wave_number, region_id`;
}
async function statusOf(id: number): Promise<number> {
  const [r] = await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${id}`;
  return r!.s;
}
async function logsOf(projectId: number): Promise<{ id: number; type: number; amount: number; by: number | null }[]> {
  return tdb.db`select id, type, credit_amount::float8 as amount, created_by_user_id as by from credit_logs where project_id = ${projectId} order by id`;
}
const setScheduling = (projectId: number, body: unknown, who = "acmeUser", clientId = 1003) => call(app, who, clientId, "POST", `/api/v1/Projects(${projectId})/UpdateProjectScheduling`, body);

/** A project submitted (Admin: straight to 100) with 3 waves every 2 weeks from next week. */
async function submittedTracker(clientId = 1003): Promise<number> {
  const id = await makeDraft({ clientId });
  const r = await setScheduling(id, { scheduleStartDate: addDays(today, 7), scheduleFrequencyWeeks: 2, wavesRequired: false, scheduleWavesRequired: 3 });
  expect(r.status).toBe(200);
  const s = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`, {});
  expect(s.status, JSON.stringify(s.body)).toBe(200);
  return id;
}

/** Wave `wave`'s schedules ran on a survey run (as fielding would record it). */
async function runWave(projectId: number, wave: number, clientId = 1003): Promise<void> {
  const [r] = await tdb.db<{ id: number }[]>`
    insert into survey_runs (client_id, region_id, survey_status_id, schedule_date, target_completes) values (${clientId}, 1, 90, current_date, 100) returning id`;
  await tdb.db`update project_schedules set survey_run_id = ${r!.id} where project_id = ${projectId} and wave_number = ${wave}`;
}

describe("wave mode and UpdateProjectScheduling", () => {
  test("wave mode: start date and frequency both set, or waves required", async () => {
    const id = await makeDraft();
    const cases: [unknown, boolean][] = [
      [{ scheduleStartDate: null, scheduleFrequencyWeeks: null, wavesRequired: false }, false],
      [{ scheduleStartDate: addDays(today, 3), scheduleFrequencyWeeks: null, wavesRequired: false }, false],
      [{ scheduleStartDate: null, scheduleFrequencyWeeks: 4, wavesRequired: false }, false],
      [{ scheduleStartDate: addDays(today, 3), scheduleFrequencyWeeks: 4, wavesRequired: false }, true],
      [{ scheduleStartDate: null, scheduleFrequencyWeeks: null, wavesRequired: true }, true],
    ];
    for (const [body, on] of cases) {
      const r = await setScheduling(id, body);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body.waveMode, JSON.stringify(body)).toBe(on);
      expect(r.body.regenerated).toBe(false); // a Draft has no schedules yet
      const st = await call(app, "acmeViewer", 1003, "GET", `/api/v1/Projects(${id})/SchedulingState`);
      expect(st.status).toBe(200);
      expect(st.body.waveMode).toBe(on);
    }
    expect(await schedules(id)).toEqual([]);
  });

  test("invalid bodies are 400; complete projects are 409", async () => {
    const id = await makeDraft();
    expect((await setScheduling(id, {})).status).toBe(400);
    expect((await setScheduling(id, { scheduleStartDate: "2026-02-30", scheduleFrequencyWeeks: 1, wavesRequired: false })).status).toBe(400);
    expect((await setScheduling(id, { scheduleStartDate: null, scheduleFrequencyWeeks: 0, wavesRequired: false })).status).toBe(400);
    await tdb.db`update projects set status_code = 900 where id = ${id}`;
    const r = await setScheduling(id, { scheduleStartDate: null, scheduleFrequencyWeeks: null, wavesRequired: false });
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("Cannot UpdateProjectScheduling");
  });

  test("schedules per region and wave: wave 1 Standard and charged, the next DelayCharge, later DelayChargeFuture, dated by the frequency", async () => {
    const id = await submittedTracker();
    expect(await statusOf(id)).toBe(100);
    let s = await schedules(id);
    expect(s.length).toBe(6); // 3 waves x 2 regions
    const chargedBefore = (await logsOf(id)).filter((l) => l.amount < 0).length;
    expect(chargedBefore).toBe(2);

    const r = await setScheduling(id, { scheduleStartDate: addDays(today, 14), scheduleFrequencyWeeks: 3, wavesRequired: false });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.regenerated).toBe(true);
    expect(r.body.waveMode).toBe(true);
    expect(r.body.waves).toBe(3);
    s = await schedules(id);
    expect(s.map((x) => [x.waveNumber, x.regionId, x.scheduleTypeId, x.scheduleDate, x.creditLogId !== null])).toEqual([
      [1, 1, 1, addDays(today, 14), true],
      [1, 2, 1, addDays(today, 14), true],
      [2, 1, 10, addDays(today, 35), false],
      [2, 2, 10, addDays(today, 35), false],
      [3, 1, 15, addDays(today, 56), false],
      [3, 2, 15, addDays(today, 56), false],
    ]);
    // The charged first wave was refunded and charged again: its pending charges net to one wave.
    const net = (await logsOf(id)).reduce((a, l) => a + l.amount, 0);
    expect(net).toBe(-r.body.charged);

    // Wave mode off: one wave.
    const off = await setScheduling(id, { scheduleStartDate: null, scheduleFrequencyWeeks: null, wavesRequired: false });
    expect(off.body.waveMode).toBe(false);
    expect(new Set((await schedules(id)).map((x) => x.waveNumber))).toEqual(new Set([1]));
  });

  test("SchedulingState: upcoming and past per region, charges, last-run cost, wave mode, pause", async () => {
    const id = await submittedTracker();
    await runWave(id, 1);
    await setScheduling(id, { scheduleStartDate: addDays(today, 7), scheduleFrequencyWeeks: 2, wavesRequired: false, schedulePause: true });
    const r = await call(app, "acmeViewer", 1003, "GET", `/api/v1/Projects(${id})/SchedulingState`);
    expect(r.status).toBe(200);
    const b = r.body;
    expect(b).toMatchObject({ projectId: id, statusCode: 100, waveMode: true, schedulePause: true, scheduleFrequencyWeeks: 2, scheduleWavesRequired: 3, wavesRun: 1, wavesUpcoming: 2 });
    expect(b.regions.map((x: { regionId: number }) => x.regionId)).toEqual([1, 2]);
    for (const region of b.regions) {
      expect(region.past.length).toBe(1);
      expect(region.upcoming.map((u: { waveNumber: number }) => u.waveNumber)).toEqual([2, 3]);
      expect(region.past[0]).toMatchObject({ waveNumber: 1, scheduleType: "Standard", chargeStatus: "Pending", launchState: "Run" });
      expect(region.past[0].creditAmount).toBeGreaterThan(0);
      expect(region.upcoming[0]).toMatchObject({ scheduleType: "DelayCharge", chargeStatus: "Uncharged", creditAmount: null, launchState: "Scheduled" });
    }
    const wave1 = b.regions.reduce((a: number, x: { past: { creditAmount: number }[] }) => a + x.past[0]!.creditAmount, 0);
    expect(b.lastRunCost).toBe(wave1);
    expect(b.nextScheduleDate).toBe(b.regions[0].upcoming[0].scheduleDate);
  });
});

describe("ToRun, SyncDates, SyncNpdDates", () => {
  test("ToRun lists exactly the due, unstarted schedules of projects at 300 or 800 that are not paused", async () => {
    const due = await submittedTracker();
    const paused = await submittedTracker();
    const notApproved = await submittedTracker();
    await tdb.db`update projects set status_code = 300 where id in (${due}, ${paused})`;
    await tdb.db`update projects set schedule_pause = true where id = ${paused}`;
    await tdb.db`update project_schedules set schedule_date = ${addDays(today, -1)}::date where wave_number = 1 and project_id in (${due}, ${paused}, ${notApproved})`;
    const r = await call(app, "ops", null, "GET", "/api/v1/ProjectSchedules/ToRun");
    expect(r.status).toBe(200);
    const mine = r.body.value.filter((x: { projectId: number }) => [due, paused, notApproved].includes(x.projectId));
    const expected = (await schedules(due)).filter((x) => x.waveNumber === 1).map((x) => x.id);
    expect(mine.map((x: { id: number }) => x.id).sort()).toEqual(expected.sort());
    expect((await call(app, "acmeAdmin", 1003, "GET", "/api/v1/ProjectSchedules/ToRun")).status).toBe(403);
    // Tidy: not due for the scheduler tests below.
    await tdb.db`update projects set status_code = 100 where id = ${due}`;
  });

  test("SyncDates realigns unrun waves to the start date and frequency; charges stay", async () => {
    const id = await submittedTracker();
    await tdb.db`update projects set schedule_start_date = ${addDays(today, 21)}::date, schedule_frequency_weeks = 1 where id = ${id}`;
    const before = await schedules(id);
    const r = await call(app, "acmeUser", 1003, "POST", "/api/v1/ProjectSchedules/SyncDates", { projectId: id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.redated).toBe(4); // wave 3 (today + 35) keeps its date
    const after = await schedules(id);
    expect(after.map((x) => x.scheduleDate)).toEqual([21, 21, 28, 28, 35, 35].map((d) => addDays(today, d)));
    expect(after.map((x) => x.creditLogId)).toEqual(before.map((x) => x.creditLogId));
    // Again: nothing to do.
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/ProjectSchedules/SyncDates", { projectId: id })).body.redated).toBe(0);
  });

  test("NPD weeks per region and run since the launch date, with bands; SyncNpdDates follows the launch date", async () => {
    const launch = addDays(today, -70); // 10 weeks ago
    const id = await makeDraft({ typeId: 4, launchDate: launch });
    await setScheduling(id, { scheduleStartDate: today, scheduleFrequencyWeeks: 8, wavesRequired: false, scheduleWavesRequired: 3 });
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`, {})).status).toBe(200);
    // Regenerate (writes the weeks): frequency 8.
    await setScheduling(id, { scheduleStartDate: today, scheduleFrequencyWeeks: 8, wavesRequired: true, scheduleWavesRequired: 3 });
    const weeks = await tdb.db<{ regionId: number; week: number }[]>`
      select region_id as "regionId", week from project_weeks where project_id = ${id} order by region_id, week`;
    expect(weeks.map((w) => [w.regionId, w.week])).toEqual([
      [1, 11],
      [1, 19],
      [1, 27],
      [2, 11],
      [2, 19],
      [2, 27],
    ]);
    const st = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/SchedulingState`);
    expect(st.body.regions[0].upcoming.map((u: { weekBand: string }) => u.weekBand)).toEqual(["9-16", "17-25", "26+"]);
    await tdb.db`update projects set launch_date = ${today}::date where id = ${id}`;
    const r = await call(app, "acmeUser", 1003, "POST", "/api/v1/ProjectSchedules/SyncNpdDates", { projectId: id });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.weeks).toBe(6);
    const again = await tdb.db<{ week: number }[]>`select week from project_weeks where project_id = ${id} and region_id = 1 order by week`;
    expect(again.map((w) => w.week)).toEqual([1, 9, 17]);
    // Not an NPD project: 409.
    const other = await submittedTracker();
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/ProjectSchedules/SyncNpdDates", { projectId: other })).status).toBe(409);
  });
});

describe("the scheduler", () => {
  test("starts the due first wave once; charges the next DelayCharge wave exactly once and takes 800 back to 300", async () => {
    const id = await submittedTracker();
    await tdb.db`update projects set status_code = 300 where id = ${id}`;
    await tdb.db`update project_schedules set schedule_date = ${today}::date where project_id = ${id} and wave_number = 1`;
    const logs0 = await logsOf(id);

    const first = await startDueSchedules(tdb.db);
    expect(first.outcomes.find((o) => o.projectId === id)).toMatchObject({ outcome: "started", waveNumber: 1, charged: 0 });
    let s = await schedules(id);
    expect(s.filter((x) => x.waveNumber === 1).every((x) => x.launchState === "ReadyToLaunch" && x.startedAt !== null)).toBe(true);
    expect(await logsOf(id)).toEqual(logs0); // wave 1 was charged at Submit
    // Twice: nothing starts twice.
    const second = await startDueSchedules(tdb.db);
    expect(second.outcomes.find((o) => o.projectId === id)).toBeUndefined();
    expect(await statusOf(id)).toBe(300);

    // Wave 1 runs and closes: the project is a Completed Wave; wave 2 comes due.
    await runWave(id, 1);
    await tdb.db`update projects set status_code = 800 where id = ${id}`;
    await tdb.db`update project_schedules set schedule_date = ${today}::date where project_id = ${id} and wave_number = 2`;
    const cost = (await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/CreditCostNow`)).body.total as number;

    const third = await schedulerJob.handler({
      data: {},
      jobId: "test",
      name: schedulerJob.name,
      origin: { userId: 5380, clientId: null },
      attempt: 1,
      db: tdb.db,
      queue: undefined as never,
      signal: new AbortController().signal,
      progress: async () => {},
    });
    expect(third.outcomes.find((o) => o.projectId === id)).toMatchObject({ outcome: "started", waveNumber: 2, charged: cost, statusCode: 300 });
    const charges = (await logsOf(id)).filter((l) => !logs0.some((o) => o.id === l.id));
    expect(charges.length).toBe(2);
    expect(charges.every((l) => l.type === 30 && l.amount < 0 && l.by === 5380)).toBe(true);
    expect(charges.reduce((a, l) => a - l.amount, 0)).toBe(cost);
    s = await schedules(id);
    expect(s.filter((x) => x.waveNumber === 2).every((x) => x.creditLogId !== null && x.launchState === "ReadyToLaunch")).toBe(true);
    expect(s.filter((x) => x.waveNumber === 3).every((x) => x.scheduleTypeId === 10)).toBe(true); // promoted: the next to come due
    expect(await statusOf(id)).toBe(300);
    const [ev] = await tdb.db<{ userId: number; data: { from: number; to: number } }[]>`
      select user_id as "userId", data from data_events_log where project_id = ${id} and event = 'StatusChanged' order by id desc limit 1`;
    expect(ev).toMatchObject({ userId: 5380, data: { from: 800, to: 300 } });

    // Again, and concurrently: no second charge.
    await Promise.all([startDueSchedules(tdb.db), startDueSchedules(tdb.db)]);
    expect((await logsOf(id)).length).toBe(logs0.length + 2);

    // StopProjectScheduling (at 300: nothing of the wave ran yet) cancels the unrun waves and refunds wave 2's charge.
    const stop = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/StopProjectScheduling`, {});
    expect(stop.status, JSON.stringify(stop.body)).toBe(200);
    expect(stop.body.refunded).toBe(cost);
    expect((await schedules(id)).filter((x) => x.surveyRunId === null)).toEqual([]);
  });

  test("a DelayCharge wave the balance cannot cover is blocked with a reason and a notification, not charged", async () => {
    // Acme Team B: no credits, no overdraft. Its project is written directly (it cannot Submit).
    const id = await makeDraft({ clientId: 1004 });
    await tdb.db`update projects set status_code = 800, owner_user_id = 9003 where id = ${id}`;
    await tdb.db`insert into project_schedules (client_id, project_id, region_id, schedule_date, schedule_type_id, wave_number, sample_size)
                 values (1004, ${id}, 1, ${today}::date, 10, 2, 100), (1004, ${id}, 2, ${today}::date, 10, 2, 100)`;
    const r1 = await startDueSchedules(tdb.db);
    const o = r1.outcomes.find((x) => x.projectId === id)!;
    expect(o.outcome).toBe("blocked");
    expect(o.reason).toContain("Not enough credits");
    const s = await schedules(id);
    expect(s.every((x) => x.launchState === "Blocked" && x.creditLogId === null && x.startedAt === null)).toBe(true);
    expect(await logsOf(id)).toEqual([]);
    expect(await statusOf(id)).toBe(800);
    const notes = await tdb.db`select user_id from notifications where project_id = ${id} and notification_type_id = 30`;
    expect(notes.length).toBeGreaterThan(0);
    // Retried next tick, notified once.
    await startDueSchedules(tdb.db);
    expect((await tdb.db`select 1 from notifications where project_id = ${id} and notification_type_id = 30`).length).toBe(notes.length);
    const st = await call(app, "staff", null, "GET", `/api/v1/Projects(${id})/SchedulingState`);
    expect(st.body.regions[0].upcoming[0]).toMatchObject({ launchState: "Blocked", chargeStatus: "Uncharged" });
    expect(st.body.regions[0].upcoming[0].blockedReason).toContain("Not enough credits");
    // Credits arrive: the next tick starts and charges it.
    await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1004, 1, 10000, 'Top-up')`;
    const r3 = await startDueSchedules(tdb.db);
    expect(r3.outcomes.find((x) => x.projectId === id)).toMatchObject({ outcome: "started", waveNumber: 2 });
    expect((await logsOf(id)).length).toBe(2);
    expect(await statusOf(id)).toBe(300);
  });

  test("through the queue: the job starts a due wave", async () => {
    const id = await submittedTracker();
    await tdb.db`update projects set status_code = 300 where id = ${id}`;
    await tdb.db`update project_schedules set schedule_date = ${today}::date where project_id = ${id} and wave_number = 1`;
    const queue: Queue = await startQueue(tdb.url, () => {});
    try {
      await registerWorkers(queue, tdb.db, [schedulerJob], { log: () => {} });
      await tdb.db.begin((tx) => enqueueJob(queue, tx, schedulerJob, {}, { userId: 5380, clientId: null }));
      const until = Date.now() + 10_000;
      for (;;) {
        const s = await schedules(id);
        if (s.filter((x) => x.waveNumber === 1).every((x) => x.startedAt !== null)) break;
        if (Date.now() > until) throw new Error("the job did not start the wave");
        await Bun.sleep(100);
      }
      // server.ts puts the job on pg-boss's cron, once for the cluster.
      await scheduleScheduler(queue);
      await scheduleScheduler(queue);
      const crons = await queue.getSchedules(schedulerJob.name);
      expect(crons.map((c) => c.cron)).toEqual([SCHEDULER_CRON]);
    } finally {
      await queue.stop({ graceful: true, timeout: 5000 });
    }
  }, 20_000);
});

describe("who may schedule", () => {
  test("a Viewer cannot change scheduling; Globex cannot touch Acme's project", async () => {
    const id = await submittedTracker();
    const body = { scheduleStartDate: null, scheduleFrequencyWeeks: null, wavesRequired: true };
    expect((await setScheduling(id, body, "acmeViewer")).status).toBe(403);
    expect((await call(app, "acmeViewer", 1003, "POST", "/api/v1/ProjectSchedules/SyncDates", { projectId: id })).status).toBe(403);
    expect((await setScheduling(id, body, "globexAdmin", 2001)).status).toBe(404);
    expect((await call(app, "globexAdmin", 2001, "POST", "/api/v1/ProjectSchedules/SyncDates", { projectId: id })).status).toBe(404);
    expect((await call(app, "globexAdmin", 2001, "POST", "/api/v1/ProjectSchedules/SyncNpdDates", { projectId: id })).status).toBe(404);
    expect((await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${id})/SchedulingState`)).status).toBe(404);
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/ProjectSchedules/ToRun")).status).toBe(403);
    // The Admin and staff may.
    expect((await setScheduling(id, body, "acmeAdmin")).status).toBe(200);
    expect((await setScheduling(id, body, "ops", 1003)).status).toBe(200);
  });
});
