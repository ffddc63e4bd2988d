// Watchers: UpdateWatchers, StartWatching / StopWatching, Teams UpdateAutoProjectWatch (new
// projects get the team's members), and watchers' status notifications (migration 0018's trigger):
// one per watcher, none for the actor, no duplicate for someone the action already notified.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";

let tdb: TestDb;
let app: App;
const events: NotifiedEvent[] = [];
let unsubscribe: () => Promise<void>;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  unsubscribe = await subscribe(tdb.url, (e) => events.push(e));
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1003, 1, 1000000, 'Test top-up')`;
});
afterAll(async () => {
  await unsubscribe?.();
  await tdb.drop();
});

async function waitFor<T>(f: () => T | undefined, what: string, ms = 5000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const v = f();
    if (v !== undefined) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

/** A Draft of Acme Team A written as the owner (no auto-watch: not created by a request). */
async function draft(): Promise<number> {
  const [p] = await tdb.db<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (1003, 'Watched', 1, 0, 1000, 9004, 9004) returning id`;
  await tdb.db`insert into projects_regions (client_id, project_id, region_id, sample_size) values (1003, ${p!.id}, 1, 100)`;
  await tdb.db`insert into test_options (client_id, project_id, concept_text) values (1003, ${p!.id}, 'Concept')`;
  return p!.id;
}

const watchers = async (id: number) => (await tdb.db<{ user_id: number }[]>`select user_id from project_watchers where project_id = ${id} order by user_id`).map((r) => r.user_id);

describe("UpdateWatchers, StartWatching, StopWatching", () => {
  test("sets the watchers to exactly the members given; audited; ProjectUpdated", async () => {
    const id = await draft();
    const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, { userIds: [9003, 9004] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ projectId: id, userIds: [9003, 9004], added: [9003, 9004], removed: [] });
    const again = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, { userIds: [9005, 9004, 9005] });
    expect(again.body).toEqual({ projectId: id, userIds: [9004, 9005], added: [9005], removed: [9003] });
    expect(await watchers(id)).toEqual([9004, 9005]);
    const log = await tdb.db`select event, user_id, data from data_events_log where project_id = ${id} and event = 'WatchersUpdated' order by id`;
    expect(log.length).toBe(2);
    expect(log[1]!.data).toEqual({ added: [9005], removed: [9003] });
    await waitFor(() => events.find((e) => e.channel === "client-1003" && e.event === "ProjectUpdated" && (e.data as { projectId: number }).projectId === id), "ProjectUpdated");
  });

  test("only members of the project's team; who may; unknown projects", async () => {
    const id = await draft();
    const outsider = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, { userIds: [9004, 9006] });
    expect(outsider.status).toBe(400);
    expect(outsider.body.message).toContain("9006");
    expect((await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, { userIds: [] })).status, "Viewer").toBe(403);
    expect((await call(app, "globexAdmin", 2001, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, { userIds: [] })).status, "other team's project").toBe(404);
    expect((await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, {})).status).toBe(400);
    expect((await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(-1)/UpdateWatchers`, { userIds: [] })).status).toBe(404);
  });

  test("a Viewer starts and stops watching; both idempotent", async () => {
    const id = await draft();
    const start = await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/StartWatching`);
    expect(start.status, JSON.stringify(start.body)).toBe(200);
    expect(start.body).toMatchObject({ userIds: [9005], added: [9005] });
    expect((await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/StartWatching`, {})).body.added).toEqual([]);
    const stop = await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/StopWatching`);
    expect(stop.body).toMatchObject({ userIds: [], removed: [9005] });
    expect((await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/StopWatching`)).body.removed).toEqual([]);
    expect((await call(app, "globexAdmin", 1003, "POST", `/api/v1/Projects(${id})/StartWatching`)).status, "not a member").toBe(403);
  });
});

describe("Teams UpdateAutoProjectWatch", () => {
  test("on: a project created in the team gets every member as a watcher; off: none", async () => {
    const on = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Teams(1003)/UpdateAutoProjectWatch", { enabled: true });
    expect(on.status, JSON.stringify(on.body)).toBe(200);
    expect(on.body).toEqual({ teamId: 1003, autoProjectWatch: true });
    const p = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: "Auto watched", projectTypeId: 1, frameworkId: 1000 });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    expect(await watchers(p.body.id)).toEqual([9003, 9004, 9005]);

    const off = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Teams(1003)/UpdateAutoProjectWatch", { enabled: false });
    expect(off.body.autoProjectWatch).toBe(false);
    const [t] = await tdb.db`select auto_project_watch from teams where id = 1003`;
    expect(t!.auto_project_watch).toBe(false);
    const [log] = await tdb.db`select data from data_events_log where entity_type = 'Team' and entity_id = 1003 and event = 'AutoProjectWatchChanged' order by id desc limit 1`;
    expect(log!.data).toEqual({ from: true, to: false });
    const q = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: "Not watched", projectTypeId: 1, frameworkId: 1000 });
    expect(await watchers(q.body.id)).toEqual([]);
    await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Teams(1003)/UpdateAutoProjectWatch", { enabled: true });
  });

  test("Admins only; the team must be in the request's scope", async () => {
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Teams(1003)/UpdateAutoProjectWatch", { enabled: true })).status).toBe(403);
    expect((await call(app, "globexAdmin", 2001, "POST", "/api/v1/Teams(1003)/UpdateAutoProjectWatch", { enabled: true })).status).toBe(404);
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Teams(1003)/UpdateAutoProjectWatch", {})).status).toBe(400);
  });
});

describe("watchers hear of status changes", () => {
  test("Submit and Approve: one notification per watcher, none for the actor, no duplicates; events on user channels", async () => {
    const id = await draft();
    await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/UpdateWatchers`, { userIds: [9003, 9004, 9005] });
    const sub = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body.statusCode).toBe(50);
    const after = async () =>
      tdb.db<{ userId: number; type: string; watching: boolean }[]>`
        select n.user_id as "userId", t.name as type, coalesce((n.data->>'watching')::boolean, false) as watching
        from notifications n join notification_types t on t.id = n.notification_type_id where n.project_id = ${id} order by n.id`;
    let notes = await after();
    const forUser = (u: number, type: string) => notes.filter((n) => n.userId === u && n.type === type);
    expect(forUser(9003, "SurveySubmittedForApproval").length, "the Admin: once, as an approver").toBe(1);
    expect(forUser(9003, "SurveySubmittedForApproval")[0]!.watching).toBe(false);
    expect(
      forUser(9005, "SurveySubmittedForApproval").map((n) => n.watching),
      "the watching Viewer",
    ).toEqual([true]);
    expect(forUser(9004, "SurveySubmittedForApproval"), "not the submitter").toEqual([]);
    await waitFor(() => events.find((e) => e.channel === "user-9005" && e.event === "SurveySubmittedForApproval" && (e.data as { projectId: number }).projectId === id), "the watcher's event");

    const ok = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Approve`);
    expect(ok.body.statusCode).toBe(100);
    notes = await after();
    expect(forUser(9004, "SurveyApproved").length, "the submitter: once").toBe(1);
    expect(forUser(9005, "SurveyApproved").map((n) => n.watching)).toEqual([true]);
    expect(forUser(9003, "SurveyApproved"), "not the approver").toEqual([]);
    const ev = await waitFor(
      () => events.find((e) => e.channel === "user-9005" && e.event === "SurveyApproved" && (e.data as { projectId: number }).projectId === id),
      "SurveyApproved for the watcher",
    );
    expect(ev.data).toMatchObject({ statusCode: 100, url: `/1003/projects/${id}`, watching: true });
    expect((ev.data as { notificationId: number }).notificationId).toBeGreaterThan(0);
  });

  test("a status change with no SPEC 4 notification (Unsubmit) notifies no watcher", async () => {
    const id = await draft();
    await call(app, "acmeViewer", 1003, "POST", `/api/v1/Projects(${id})/StartWatching`);
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`)).body.statusCode).toBe(100);
    const [a] = await tdb.db`select count(*)::int as n from notifications where project_id = ${id} and user_id = 9005`;
    expect(a!.n, "Submit by an Admin: the watcher hears of it").toBe(1);
    expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Unsubmit`)).body.statusCode).toBe(0);
    const [b] = await tdb.db`select count(*)::int as n from notifications where project_id = ${id} and user_id = 9005`;
    expect(b!.n).toBe(1);
  });
});
