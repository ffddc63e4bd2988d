// Fielding starts when the project is approved, not at the fielding tick's next cron minute
// (decision record 0142): the approval that reaches 300 (Approve's last step, SuperApprove) and
// LaunchSurvey send the fielding.tick job at once, throttled under one singleton key; running that
// job (no cron is scheduled in this test) creates and launches the run and the simulated panel
// answers it. Two run creations at once make one run per wave and market.
// A real pg-boss queue: the jobs are read from its table and run with their own data. No time is
// asserted.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type JobEnvelope, type Queue } from "../../api/src/jobs/queue.ts";
import { ensureQueues } from "../../api/src/jobs/workers.ts";
import { jobs } from "../../api/src/jobs/index.ts";
import { fieldingTickJob, type FieldingTickInput } from "../../api/src/domains/fielding/fielding.jobs.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";

let tdb: TestDb;
let app: App;
let queue: Queue;
const T = 1003;
const PUBLIC = "http://ideally.test";

beforeAll(async () => {
  tdb = await createTestDb();
  queue = await startQueue(tdb.url, () => {});
  // Every queue: the tick's job also queues the AI summaries of projects whose results are ready.
  await ensureQueues(queue, jobs);
  app = testApp(tdb.db, { publicUrl: PUBLIC, queue });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
}, 120_000);
afterAll(async () => {
  await queue?.stop({ graceful: false, timeout: 2000 });
  await tdb.drop();
});

type TickJob = { id: string; singletonKey: string | null; slotted: boolean; data: JobEnvelope<FieldingTickInput> };
/** The fielding.tick jobs waiting in the queue (due now or in a later slot), oldest first; they are taken out. */
async function takeTickJobs(): Promise<TickJob[]> {
  return tdb.db<TickJob[]>`
    delete from pgboss.job where name = ${fieldingTickJob.name} and state = 'created'
    returning id::text as id, singleton_key as "singletonKey", singleton_on is not null as slotted, data`;
}
/** Runs a job as its worker would: its own data, no cron. */
async function runTick(job: TickJob) {
  return fieldingTickJob.handler({
    data: job.data.input,
    jobId: job.id,
    name: fieldingTickJob.name,
    origin: job.data.origin,
    attempt: 1,
    db: tdb.db,
    queue,
    signal: new AbortController().signal,
    progress: async () => {},
  });
}
/** A draft Idea project (one concept, NZ, simulated panel) of `completes`. */
async function draft(completes: number): Promise<number> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", {
    projectName: `Starts at approval ${Math.random().toString(36).slice(2, 7)}`,
    projectTypeId: 1,
    frameworkId: 1000,
    regionIds: [1],
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as number;
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Oat milk barista blend" })).status).toBe(201);
  await tdb.db`update projects_regions set sample_size = ${completes}, is_customer_panel = false where project_id = ${id}`;
  return id;
}
const runsOf = (projectId: number) =>
  tdb.db<{ id: number; status: number; simulated: number }[]>`
    select r.id, r.survey_status_id as status, (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and s.is_simulated) as simulated
    from survey_runs r where r.id in (select survey_run_id from project_schedules where project_id = ${projectId}) order by r.id`;

describe("the fielding tick is nudged when fielding can start", () => {
  test("Approve's steps to 300: only the last sends the tick job; that job alone (no cron) makes the run, launches it and the simulated panel answers", async () => {
    expect(await queue.getSchedules(fieldingTickJob.name), "no cron in this test").toEqual([]);
    const id = await draft(20);
    await takeTickJobs();
    const submitted = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(submitted.status, JSON.stringify(submitted.body)).toBe(200);
    expect(submitted.body.statusCode).toBe(50);
    for (const [who, to] of [
      ["acmeAdmin", 100],
      ["staff", 200],
    ] as const) {
      const r = await call(app, who, T, "POST", `/api/v1/Projects(${id})/Approve`);
      expect(r.body.statusCode, JSON.stringify(r.body)).toBe(to);
      expect(await takeTickJobs(), `approved to ${to}: not yet fielding`).toEqual([]);
    }
    const approved = await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/Approve`);
    expect(approved.body.statusCode).toBe(300);
    const jobs = await takeTickJobs();
    expect(
      jobs.map((j) => [j.singletonKey, j.slotted, j.data.input]),
      "one tick job, throttled under its singleton key",
    ).toEqual([["fielding.tick.now", true, { publicUrl: PUBLIC }]]);
    expect((await runsOf(id)).length, "the approval itself makes no run").toBe(0);

    const r = await runTick(jobs[0]!);
    expect([r.created, r.launched]).toEqual([1, 1]);
    const runs = await runsOf(id);
    expect(runs.length).toBe(1);
    expect(runs[0]!.simulated, "simulated respondents answered in the nudged tick").toBeGreaterThan(0);
  });

  test("SuperApprove to 300 and LaunchSurvey each send it; the launched run is answered by the job", async () => {
    const id = await draft(20);
    await takeTickJobs();
    expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
    expect((await takeTickJobs()).length, "SuperApprove sent the tick").toBe(1);
    const created = await call(app, "staff", null, "POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId: id });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const runId = created.body.runs[0].surveyRunId as number;
    expect((await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${runId})/LaunchSurvey`)).status).toBe(200);
    const jobs = await takeTickJobs();
    expect(jobs.length, "LaunchSurvey sent the tick").toBe(1);
    expect((await runsOf(id))[0]!.simulated, "nobody has answered before the tick").toBe(0);
    const r = await runTick(jobs[0]!);
    expect(r.simulated).toBeGreaterThan(0);
    expect((await runsOf(id))[0]!.simulated).toBeGreaterThan(0);
  });

  test("two run creations at once (a nudged tick beside the cron's) make one run for the wave, with its schedules", async () => {
    const id = await draft(20);
    expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
    await takeTickJobs();
    const [a, b] = await Promise.all([fielding.createSurveys(tdb.db, id), fielding.createSurveys(tdb.db, id)]);
    expect([...a!, ...b!].length, "one of them found the wave already made into a run").toBe(1);
    const made = await tdb.db<{ n: number }[]>`select count(*)::int as n from survey_runs where id = any(${[...a!, ...b!].map((x) => x.surveyRunId)}::int[])`;
    expect(made[0]!.n).toBe(1);
    expect((await runsOf(id)).map((r) => r.id)).toEqual([...a!, ...b!].map((x) => x.surveyRunId));
  });
});
