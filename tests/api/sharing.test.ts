// Projects Share and ProjectShares DELETE: an account gets the project readable at once, a
// ProjectShared notification (and its event) and an email; an outside email gets one share link
// and a pending share, and registers through the link; every share is audited ('Shared');
// revoking removes access and withdraws the link.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, realApp, refreshCookie, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";

let tdb: TestDb;
let app: App;
let real: App;
const events: NotifiedEvent[] = [];
let unsubscribe: () => Promise<void>;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  ({ app: real } = await realApp(tdb.db));
  unsubscribe = await subscribe(tdb.url, (e) => events.push(e));
});
afterAll(async () => {
  await unsubscribe?.();
  await tdb.drop();
});

async function mailbox(to: string): Promise<{ template: string; subject: string; links: string[]; text: string }[]> {
  const res = await call(app, "ops", null, "GET", `/api/v1/DevMailbox?to=${encodeURIComponent(to)}`);
  expect(res.status).toBe(200);
  return res.body.value;
}

async function anon(method: string, path: string, body?: unknown, token?: string) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await real.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, cookie: refreshCookie(res) };
}

describe("Projects Share", () => {
  test("with an account of another team: readable at once, notified, emailed, audited", async () => {
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1002)")).status, "not shared yet").toBe(404);
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1002)/Share", { emails: ["Admin@Globex.test"], message: "Have a look" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results).toEqual([{ email: "Admin@Globex.test", status: "shared", projectShareId: expect.any(Number), userId: 9006, linkInviteId: null }]);
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1002)")).status, "readable now").toBe(200);
    const write = await call(app, "globexAdmin", 2001, "PATCH", "/api/v1/Projects(1002)", { projectName: "Mine" });
    expect([write.status, write.body], "never writable: no row the reader may change").toEqual([404, { typename: "NotFound", message: "Projects(1002) not found" }]);
    expect((await tdb.db<{ name: string }[]>`select project_name as name from projects where id = 1002`)[0]!.name, "the name unchanged").toBe("Oat bar launch tracking");

    const notes = await call(app, "globexAdmin", null, "GET", "/api/v1/Notifications/All");
    expect(notes.body.value[0]).toMatchObject({ type: "ProjectShared", projectId: 1002, clientId: 1003, body: "Have a look", url: "/1003/projects/1002" });
    const deadline = Date.now() + 5000;
    while (!events.some((e) => e.channel === "user-9006" && e.event === "ProjectShared") && Date.now() < deadline) await Bun.sleep(20);
    expect(events.find((e) => e.channel === "user-9006" && e.event === "ProjectShared")?.data).toMatchObject({ projectId: 1002 });
    const mail = await mailbox("admin@globex.test");
    expect(mail[0]).toMatchObject({ template: "projectShared" });
    expect(mail[0]!.text).toContain("Have a look");
    const [log] = await tdb.db`select event, user_id, data from data_events_log where project_id = 1002 and event = 'Shared' order by id desc limit 1`;
    expect(log).toMatchObject({ event: "Shared", user_id: 9004 });
    expect(log!.data).toMatchObject({ userId: 9006, email: "admin@globex.test" });

    const again = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1002)/Share", { emails: ["admin@globex.test", "viewer@acme.test"] });
    expect(again.body.results.map((r: { status: string }) => r.status)).toEqual(["alreadyShared", "member"]);
  });

  test("with an outside email: one link per email, a pending share, registration through it", async () => {
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/Share", { emails: ["newbie@outside.test", "NEWBIE@outside.test"] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results.length, "one per email").toBe(1);
    const r = res.body.results[0];
    expect(r).toMatchObject({ status: "invited", userId: null });
    const again = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1001)/Share", { emails: ["newbie@outside.test"] });
    expect(again.body.results[0].linkInviteId, "the same live link").toBe(r.linkInviteId);
    const [li] = await tdb.db`select invite_type, email, project_id, client_id from link_invites where id = ${r.linkInviteId}`;
    expect(li).toMatchObject({ invite_type: "ProjectShare", email: "newbie@outside.test", project_id: 1001, client_id: 1003 });
    const [ps] = await tdb.db`select user_id, link_invite_id from project_shares where id = ${r.projectShareId}`;
    expect(ps).toMatchObject({ user_id: null, link_invite_id: r.linkInviteId });

    const mail = await mailbox("newbie@outside.test");
    expect(mail[0]!.template).toBe("projectShareInvite");
    const identifier = new URL(mail[0]!.links.find((l) => l.includes("/invites/demo"))!).searchParams.get("identifier")!;
    expect((await anon("POST", "/auth/Login/VerifyRegistrationEmail", { inviteIdentifier: identifier, email: "newbie@outside.test" })).status).toBe(204);
    const verify = (await mailbox("newbie@outside.test")).find((m) => m.template === "registrationVerify")!;
    const token = new URL(verify.links.find((l) => l.includes("token="))!).searchParams.get("token")!;
    const acc = await anon("POST", "/auth/Login/AcceptInvitation", { token, password: "A-long-password-1" });
    expect(acc.status, JSON.stringify(acc.body)).toBe(200);
    const list = await anon("GET", "/api/v1/Projects?$select=id", undefined, acc.body.accessToken);
    expect(list.status).toBe(200);
    expect(list.body.value.map((p: { id: number }) => p.id)).toEqual([1001]);
    const [after] = await tdb.db`select user_id is not null as has_user from project_shares where id = ${r.projectShareId}`;
    expect(after!.has_user).toBe(true);
  });

  test("who may; bad input; unknown project", async () => {
    const body = { emails: ["x@outside.test"] };
    expect((await call(app, "acmeViewer", 1003, "POST", "/api/v1/Projects(1002)/Share", body)).status).toBe(403);
    expect((await call(app, "globexAdmin", 2001, "POST", "/api/v1/Projects(1002)/Share", body)).status, "a shared reader cannot reshare").toBe(404);
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1002)/Share", { emails: [] })).status).toBe(400);
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1002)/Share", { emails: ["not an email"] })).status).toBe(400);
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(-1)/Share", body)).status).toBe(404);
  });
});

describe("ProjectShares DELETE", () => {
  test("revoking removes access and withdraws the link; audited", async () => {
    const shared = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects(1002)/Share", { emails: ["later@outside.test"] });
    const r = shared.body.results[0];
    const [direct] = await tdb.db<{ id: number }[]>`select id from project_shares where project_id = 1002 and user_id = 9006`;
    expect((await call(app, "acmeViewer", 1003, "DELETE", `/api/v1/ProjectShares(${direct!.id})`)).status, "Viewer").toBe(403);
    expect((await call(app, "globexAdmin", 2001, "DELETE", `/api/v1/ProjectShares(${direct!.id})`)).status, "the recipient's team").toBe(404);
    expect((await call(app, "acmeUser", 1003, "DELETE", `/api/v1/ProjectShares(${direct!.id})`)).status).toBe(204);
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(1002)")).status).toBe(404);

    expect((await call(app, "acmeUser", 1003, "DELETE", `/api/v1/ProjectShares(${r.projectShareId})`)).status).toBe(204);
    const [li] = await tdb.db`select count(*)::int as n from link_invites where id = ${r.linkInviteId}`;
    expect(li!.n, "the link is withdrawn").toBe(0);
    const logs = await tdb.db`select data from data_events_log where project_id = 1002 and event = 'Unshared' order by id`;
    expect(logs.length).toBe(2);
    expect((await call(app, "acmeUser", 1003, "DELETE", `/api/v1/ProjectShares(${r.projectShareId})`)).status).toBe(404);
  });
});
