// Notifications: All (the caller's own across clients, newest first, paged, unread count),
// MarkAsRead ({ids} or {all: true}, own only), and staff sending one (POST Notifications) with its
// realtime event on user-{id}.
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
  await tdb.db`delete from notifications where user_id in (9004, 9006)`;
  // Three for Uma (two clients' and one about no client), one for Gil.
  await tdb.db`
    insert into notifications (user_id, client_id, notification_type_id, title, created_at) values
      (9004, 1003, 2, 'First', now() - interval '3 hours'),
      (9004, 1004, 5, 'Second', now() - interval '2 hours'),
      (9004, null, 6, 'Third', now() - interval '1 hour'),
      (9006, 2001, 2, 'Gil''s', now())`;
});
afterAll(async () => {
  await unsubscribe?.();
  await tdb.drop();
});

describe("Notifications All", () => {
  test("the caller's own, newest first, whatever the clientId header; type and read state; paging", async () => {
    for (const clientId of [null, 1003]) {
      const res = await call(app, "acmeUser", clientId, "GET", "/api/v1/Notifications/All");
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(res.body.value.map((n: { title: string }) => n.title)).toEqual(["Third", "Second", "First"]);
      expect(res.body).toMatchObject({ count: 3, unreadCount: 3 });
      expect(res.body.value[0]).toMatchObject({ userId: 9004, clientId: null, type: "PasswordReset", notificationTypeId: 6, isRead: false, readAt: null });
      expect(res.body.value[0].createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    const page = await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All?top=1&skip=1");
    expect(page.body.value.map((n: { title: string }) => n.title)).toEqual(["Second"]);
    expect(page.body.count).toBe(3);
    expect((await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All?top=0")).status).toBe(400);
    const gil = await call(app, "globexAdmin", null, "GET", "/api/v1/Notifications/All");
    expect(gil.body.value.map((n: { title: string }) => n.title)).toEqual(["Gil's"]);
    const staff = await call(app, "staff", null, "GET", "/api/v1/Notifications/All");
    expect(
      staff.body.value.every((n: { userId: number }) => n.userId === 9001),
      "staff too see only their own",
    ).toBe(true);
    expect((await call(app, null, null, "GET", "/api/v1/Notifications/All")).status).toBe(401);
  });

  test("sinceId: only the ones after the last seen (a reconnecting client's catch-up)", async () => {
    const all = await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All");
    const ids = (all.body.value as { id: number }[]).map((n) => n.id).sort((a, b) => a - b);
    const since = await call(app, "acmeUser", null, "GET", `/api/v1/Notifications/All?sinceId=${ids[0]}`);
    expect(since.status).toBe(200);
    expect(since.body.value.map((n: { id: number }) => n.id).sort(), "the two after the first").toEqual(ids.slice(1).sort());
    expect((await call(app, "acmeUser", null, "GET", `/api/v1/Notifications/All?sinceId=${ids[2]}`)).body.value, "nothing after the last").toEqual([]);
    const gil = await call(app, "globexAdmin", null, "GET", "/api/v1/Notifications/All?sinceId=0");
    expect(
      gil.body.value.map((n: { title: string }) => n.title),
      "still only one's own",
    ).toEqual(["Gil's"]);
    const bad = await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All?sinceId=1%20or%201=1");
    expect(bad.status, "not a number").toBe(400);
  });
});

describe("MarkAsRead", () => {
  test("by ids (others' ignored), then all", async () => {
    const all = await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All");
    const [third, second] = all.body.value as { id: number }[];
    const [gils] = await tdb.db<{ id: number }[]>`select id from notifications where user_id = 9006`;
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Notifications/MarkAsRead", { ids: [third!.id, gils!.id] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ markedIds: [third!.id], unreadCount: 2 });
    const [g] = await tdb.db`select read_at from notifications where id = ${gils!.id}`;
    expect(g!.read_at, "not the caller's: untouched").toBeNull();
    const unread = await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All?unreadOnly=true");
    expect(unread.body.value.map((n: { id: number }) => n.id)).not.toContain(third!.id);
    expect(unread.body.value.some((n: { id: number }) => n.id === second!.id)).toBe(true);

    const rest = await call(app, "acmeUser", null, "POST", "/api/v1/Notifications/MarkAsRead", { all: true });
    expect(rest.body.markedIds.length).toBe(2);
    expect(rest.body.unreadCount).toBe(0);
    const after = await call(app, "acmeUser", null, "GET", "/api/v1/Notifications/All");
    expect(after.body.value.every((n: { isRead: boolean; readAt: string }) => n.isRead && n.readAt)).toBe(true);

    expect((await call(app, "acmeUser", null, "POST", "/api/v1/Notifications/MarkAsRead", {})).status).toBe(400);
    expect((await call(app, "acmeUser", null, "POST", "/api/v1/Notifications/MarkAsRead", { all: false })).status).toBe(400);
  });
});

describe("POST Notifications (staff)", () => {
  test("staff send a notification to a person: the row and its event on user-{id}", async () => {
    const res = await call(app, "ops", null, "POST", "/api/v1/Notifications", { userId: 9006, notificationTypeId: 5, title: "Your results", url: "/2001/results/2001", clientId: 2001 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ userId: 9006, type: "ProjectReady", title: "Your results", clientId: 2001, isRead: false });
    const deadline = Date.now() + 5000;
    while (!events.some((e) => e.channel === "user-9006" && e.event === "ProjectReady") && Date.now() < deadline) await Bun.sleep(20);
    const ev = events.find((e) => e.channel === "user-9006" && e.event === "ProjectReady");
    expect(ev?.data).toMatchObject({ notificationId: res.body.id, title: "Your results" });
    const gil = await call(app, "globexAdmin", null, "GET", "/api/v1/Notifications/All");
    expect(gil.body.value[0].id).toBe(res.body.id);
  });

  test("members may not; bad type or user", async () => {
    const body = { userId: 9006, notificationTypeId: 5, title: "x" };
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Notifications", body)).status).toBe(403);
    expect((await call(app, "acmeUser", null, "POST", "/api/v1/Notifications", body)).status).toBe(403);
    expect((await call(app, "ops", null, "POST", "/api/v1/Notifications", { ...body, notificationTypeId: 999 })).status).toBe(400);
    expect((await call(app, "ops", null, "POST", "/api/v1/Notifications", { ...body, userId: 999999 })).status).toBe(404);
    expect((await call(app, "ops", null, "POST", "/api/v1/Notifications", {})).status).toBe(400);
  });
});
