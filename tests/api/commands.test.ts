// The admin command runner: staff queue a command, it runs as a job with progress and leaves audit
// rows (requested, completed); members get 403; a bad body is a 400 naming the field.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers } from "../../api/src/jobs/workers.ts";
import { commandJob } from "../../api/src/domains/commands/commands.jobs.ts";

let tdb: TestDb;
let app: App;
let queue: Queue;

beforeAll(async () => {
  tdb = await createTestDb();
  queue = await startQueue(tdb.url, () => {});
  await registerWorkers(queue, tdb.db, [commandJob], { log: () => {} });
  app = testApp(tdb.db, { queue });
});
afterAll(async () => {
  await queue.stop({ graceful: true, timeout: 5000 });
  await tdb.drop();
});

async function completed(jobId: string): Promise<{ event: string; data: Record<string, unknown> }> {
  for (let i = 0; i < 100; i++) {
    const [r] = await tdb.db<{ event: string; data: Record<string, unknown> }[]>`
      select event, data from data_events_log where entity_type = 'Command' and data->>'jobId' = ${jobId} and event in ('CommandCompleted', 'CommandFailed')`;
    if (r) return r;
    await Bun.sleep(100);
  }
  throw new Error(`job ${jobId} did not finish`);
}

test("TestNotification: staff queue it, the user gets the notification, the run is audited", async () => {
  const r = await call(app, "ops", null, "POST", "/api/CommandRunner/TestNotification", { userId: 9004, title: "Hello from staff" });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const done = await completed(r.body.jobId);
  expect(done.event).toBe("CommandCompleted");
  const [n] = await tdb.db<{ title: string }[]>`select title from notifications where user_id = 9004 and title = 'Hello from staff'`;
  expect(n).toBeDefined();
  const [req] = await tdb.db<{ userId: number }[]>`select user_id as "userId" from data_events_log where event = 'CommandRequested' and data->>'jobId' = ${r.body.jobId}`;
  expect(req!.userId).toBe(9002);
});

test("TestNextSchedule is a dry run; TestCreateNextSchedule starts the due waves", async () => {
  const dry = await call(app, "staff", null, "POST", "/api/CommandRunner/TestNextSchedule", {});
  expect((await completed(dry.body.jobId)).data.result).toHaveProperty("dueCount");
  const real = await call(app, "staff", null, "POST", "/api/CommandRunner/TestCreateNextSchedule", {});
  const done = await completed(real.body.jobId);
  expect(done.event).toBe("CommandCompleted");
  expect((done.data.result as { scheduler: { today: string } }).scheduler.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
});

test("members get 403; a bad body is a 400; an unknown user a 404", async () => {
  expect((await call(app, "acmeAdmin", 1003, "POST", "/api/CommandRunner/TestNotification", { userId: 9004 })).status).toBe(403);
  expect((await call(app, null, null, "POST", "/api/CommandRunner/TestNotification", { userId: 9004 })).status).toBe(401);
  const bad = await call(app, "staff", null, "POST", "/api/CommandRunner/TestNotification", { userId: "x" });
  expect(bad.status).toBe(400);
  expect(JSON.stringify(bad.body.errors)).toContain("userId");
  expect(bad.body.message, "the route's body schema answers first (the handler's own parse is a backstop)").toBe("Invalid json");
  expect((await tdb.db`select 1 from data_events_log where entity_type = 'Command' and event = 'CommandRequested' and data->'input'->>'userId' = 'x'`).length, "nothing queued").toBe(0);
  expect((await call(app, "staff", null, "POST", "/api/CommandRunner/TestNotification", { userId: 777777 })).status).toBe(404);
});

test("ReGenerateThemes codes a project's answers; an unknown project is a 404", async () => {
  expect((await call(app, "staff", null, "POST", "/api/CommandRunner/ReGenerateThemes", { projectId: 999999 })).status).toBe(404);
  const r = await call(app, "staff", null, "POST", "/api/CommandRunner/ReGenerateThemes", { projectId: 1001 });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const done = await completed(r.body.jobId);
  expect(done.event).toBe("CommandCompleted");
  expect(done.data.result).toHaveProperty("themes");
});

test("ReGenerateTextResponsesQa checks a project's open answers as a queued job", async () => {
  expect((await call(app, "staff", null, "POST", "/api/CommandRunner/ReGenerateTextResponsesQa", { projectId: 999999 })).status).toBe(404);
  expect((await call(app, "acmeAdmin", 1003, "POST", "/api/CommandRunner/ReGenerateTextResponsesQa", { projectId: 1001 })).status).toBe(403);
  const [s] = await tdb.db<{ id: number }[]>`select id::int from text_responses where project_id = 1001 order by id limit 1`;
  await tdb.db`update text_responses set response_text = 'qwerty qwerty' where id = ${s!.id}`;
  const r = await call(app, "staff", null, "POST", "/api/CommandRunner/ReGenerateTextResponsesQa", { projectId: 1001 });
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const done = await completed(r.body.jobId);
  expect(done.event).toBe("CommandCompleted");
  const result = done.data.result as { answers: number; byStatus: Record<string, number> };
  const rows = await tdb.db<{ status: string; n: number }[]>`select qa_status as status, count(*)::int as n from text_responses where project_id = 1001 and qa_checked_at is not null group by 1`;
  expect(
    rows.reduce((a, x) => a + x.n, 0),
    "every answer is checked",
  ).toBe(result.answers);
  expect(result.byStatus.Gibberish).toBeGreaterThanOrEqual(1);
  const [mine] = await tdb.db<{ status: string; reason: string }[]>`select qa_status as status, qa_reason as reason from text_responses where id = ${s!.id}`;
  expect(mine).toEqual({ status: "Gibberish", reason: 'keyboard sequence "qwer"' });
});
