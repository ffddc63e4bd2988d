// A project's journey as a user makes it, through the API alone, against the real server (a
// subprocess, as in realtime.test.ts): create an Idea project with two test options, two regions
// and targets, see its cost, submit it, staff approve it while the status events arrive on a
// websocket, duplicate it, share it with a user of another team who can then read it, delete and
// undelete a question (DELETE ProjectQuestions, SPEC 7's delete of a question in a project); and share it with an outside email, whose invite arrives in the dev
// mailbox, through which they register and then see that project and nothing else.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { openSocket, startServerProcess, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let server: ServerProcess;
let base = "";

beforeAll(async () => {
  tdb = await createTestDb();
  // Acme Team A's credits: the one thing set up outside the API (a HubSpot deal would add them).
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1003, 1, 100000, 'Journey top-up')`;
  server = await startServerProcess(tdb.url);
  base = server.base;
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await tdb.drop();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Body = any;

async function api(token: string | null, clientId: number | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: Body }> {
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  if (clientId !== null) headers.clientId = String(clientId);
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed };
}

async function signIn(email: string, password = "Password123!"): Promise<string> {
  const res = await api(null, null, "POST", "/auth/Login/PasswordLogin", { email, password });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.accessToken as string;
}

const connect = (token: string) => openSocket(base, token);

async function mailbox(staff: string, to: string): Promise<{ template: string; links: string[] }[]> {
  const res = await api(staff, null, "GET", `/api/v1/DevMailbox?to=${encodeURIComponent(to)}`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.value;
}

test("create, cost, submit, approve with live events, duplicate, share, delete and undelete a question; an outside email registers through a share", async () => {
  const uma = await signIn("user@acme.test"); // a User of Acme Team A
  const ada = await signIn("admin@acme.test"); // its Admin
  const sam = await signIn("staff@ideally.test"); // Ideally staff (super admin)
  const gil = await signIn("admin@globex.test"); // another team's user
  const T = 1003;

  // Uma's socket: her own channel, and her team's channel with its token.
  const sock = await connect(uma);
  const channel = await api(uma, T, "GET", `/api/v1/Clients(${T})/GetChannelInfo`);
  expect(channel.status).toBe(200);
  sock.ws.send(JSON.stringify({ action: "join", channel: channel.body.name, token: channel.body.token }));
  await sock.next((m) => m.event === "joined" && m.channel === `client-${T}`);

  // 1. An Idea project (framework 1000) in two regions, with two test options and targets.
  const created = await api(uma, T, "POST", "/api/v1/Projects", { projectName: "Journey bars", projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2] });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as number;
  for (const conceptText of ["Honey oat bar", "Dark cocoa bar"]) {
    const opt = await api(uma, T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText });
    expect(opt.status, JSON.stringify(opt.body)).toBe(201);
  }
  const targets = await api(uma, T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
    regionIds: [1, 2],
    targets: [
      { systemQuestionOptionId: 5100002, regionId: 1 },
      { systemQuestionOptionId: 4500002, regionId: 2 },
    ],
  });
  expect(targets.status, JSON.stringify(targets.body)).toBe(200);
  expect(targets.body.value).toHaveLength(2);
  const regions = await api(uma, T, "GET", `/api/v1/Projects(${id})?$expand=projectsRegions($select=regionId),testOptions($select=id)`);
  expect(regions.body.projectsRegions.map((r: { regionId: number }) => r.regionId).sort()).toEqual([1, 2]);
  expect(regions.body.testOptions).toHaveLength(2);
  const watchers = await api(uma, T, "GET", `/api/v1/ProjectWatchers?$filter=projectId eq ${id}&$select=userId&$orderby=userId`);
  expect(
    watchers.body.value.map((w: { userId: number }) => w.userId),
    "the team watches its new projects",
  ).toEqual([9003, 9004, 9005]);

  // 2. Its cost.
  const cost = await api(uma, T, "GET", `/api/v1/Projects(${id})/CreditCostNow`);
  expect(cost.status, JSON.stringify(cost.body)).toBe(200);
  expect(cost.body.total).toBeGreaterThan(0);
  expect(cost.body.cells).toBe(2);
  expect(cost.body.affordable).toBe(true);

  // 3. Submit (a User: it waits for the Admin), the Admin approves, staff review and approve.
  const sub = await api(uma, T, "POST", `/api/v1/Projects(${id})/Submit`);
  expect(sub.status, JSON.stringify(sub.body)).toBe(200);
  expect(sub.body).toMatchObject({ statusCode: 50, charged: cost.body.total });
  await sock.next((m) => m.event === "ProjectUpdated" && (m.data as Body).projectId === id && (m.data as Body).statusCode === 50);

  const approved = await api(ada, T, "POST", `/api/v1/Projects(${id})/Approve`);
  expect(approved.body.statusCode, JSON.stringify(approved.body)).toBe(100);
  await sock.next((m) => m.event === "SurveyApproved" && m.channel === "user-9004" && (m.data as Body).projectId === id);
  expect((await api(sam, T, "POST", `/api/v1/Projects(${id})/Approve`)).body.statusCode).toBe(200);
  expect((await api(sam, T, "POST", `/api/v1/Projects(${id})/Approve`)).body.statusCode).toBe(300);
  await sock.next((m) => m.event === "ProjectUpdated" && (m.data as Body).projectId === id && (m.data as Body).statusCode === 300);
  // As a watcher, Uma hears of staff's final approval too.
  const watched = await sock.next((m) => m.event === "SurveyApproved" && (m.data as Body).projectId === id && (m.data as Body).statusCode === 300);
  expect(watched.data).toMatchObject({ watching: true, url: `/${T}/project-surveys/${id}` });
  const mine = await api(uma, null, "GET", "/api/v1/Notifications/All");
  expect(mine.body.value.filter((n: Body) => n.projectId === id).map((n: Body) => n.type)).toEqual(["SurveyApproved", "SurveyApproved"]);
  const read = await api(uma, null, "POST", "/api/v1/Notifications/MarkAsRead", { all: true });
  expect(read.body.unreadCount).toBe(0);

  // 4. Duplicate: a Draft copy with the options, regions and targets.
  const dup = await api(uma, T, "POST", `/api/v1/Projects(${id})/Duplicate`, {});
  expect(dup.status, JSON.stringify(dup.body)).toBe(200);
  expect(dup.body).toMatchObject({ statusCode: 0, duplicatedFromProjectId: id });
  const copy = dup.body.id as number;
  const copied = await api(uma, T, "GET", `/api/v1/Projects(${copy})?$expand=testOptions($select=id),projectsRegions($select=regionId)`);
  expect(copied.body.testOptions).toHaveLength(2);
  expect(copied.body.projectsRegions).toHaveLength(2);

  // 5. Share with a user of another team, who can then read it (and only read it).
  expect((await api(gil, 2001, "GET", `/api/v1/Projects(${id})`)).status).toBe(404);
  const shared = await api(uma, T, "POST", `/api/v1/Projects(${id})/Share`, { emails: ["admin@globex.test"], message: "Our bars" });
  expect(shared.status, JSON.stringify(shared.body)).toBe(200);
  expect(shared.body.results[0]).toMatchObject({ status: "shared", userId: 9006 });
  const seen = await api(gil, 2001, "GET", `/api/v1/Projects(${id})?$expand=testOptions($select=conceptText)`);
  expect(seen.status).toBe(200);
  expect(seen.body.projectName).toBe("Journey bars");
  expect(seen.body.testOptions).toHaveLength(2);
  // Read-only: the reader's write finds no row it may change (the error shape, SPEC: typename and message).
  const write = await api(gil, 2001, "PATCH", `/api/v1/Projects(${id})`, { projectName: "Ours" });
  expect([write.status, write.body]).toEqual([404, { typename: "NotFound", message: `Projects(${id}) not found` }]);
  expect((await api(uma, T, "GET", `/api/v1/Projects(${id})?$select=projectName`)).body.projectName, "the name unchanged").toBe("Journey bars");
  expect((await api(gil, null, "GET", "/api/v1/Notifications/All")).body.value[0]).toMatchObject({ type: "ProjectShared", projectId: id });

  // 6. Delete a question of the Draft copy and undelete it.
  const q = await api(uma, T, "POST", "/api/v1/Questions", {
    projectId: copy,
    questionText: "Where would you buy it?",
    questionTypeId: 1,
    questionPositionId: 6,
    questionOptions: [{ optionText: "Supermarket" }, { optionText: "Petrol station" }],
  });
  expect(q.status, JSON.stringify(q.body)).toBe(201);
  // SPEC 7 lists DELETE on ProjectQuestions (a question's place in the project), not on Questions.
  const pq = q.body.projectQuestions[0].id as number;
  expect((await api(uma, T, "DELETE", `/api/v1/ProjectQuestions(${pq})`)).status).toBe(204);
  expect((await api(uma, T, "GET", `/api/v1/ProjectQuestions(${pq})`)).status).toBe(404);
  const trashed = await api(uma, T, "GET", "/api/v1/ProjectQuestions/GetTrashed");
  expect(trashed.status, JSON.stringify(trashed.body)).toBe(200);
  expect(trashed.body.value.some((t: Body) => t.id === pq)).toBe(true);
  const undo = await api(uma, T, "POST", `/api/v1/ProjectQuestions(${pq})/Undelete`, {});
  expect(undo.status, JSON.stringify(undo.body)).toBe(200);
  const back = await api(uma, T, "GET", `/api/v1/ProjectQuestions(${pq})?$expand=question($select=questionText)`);
  expect(back.status).toBe(200);
  expect(back.body.question.questionText).toBe("Where would you buy it?");

  // 7. Share with an outside email: the invite arrives, they register through it, and see that
  //    project and nothing else.
  const outsider = "pat@partner-agency.test";
  const invited = await api(uma, T, "POST", `/api/v1/Projects(${id})/Share`, { emails: [outsider] });
  expect(invited.body.results[0]).toMatchObject({ status: "invited", userId: null });
  const invite = (await mailbox(sam, outsider)).find((m) => m.template === "projectShareInvite")!;
  expect(invite).toBeDefined();
  const identifier = new URL(invite.links.find((l) => l.includes("/invites/demo"))!).searchParams.get("identifier")!;
  const landing = await api(null, null, "GET", `/auth/Login/GetRegistrationInvite/${identifier}`);
  expect(landing.status, JSON.stringify(landing.body)).toBe(200);
  expect(landing.body).toMatchObject({ projectId: id, projectName: "Journey bars", clientName: "Acme Team A", forOneEmail: true });
  expect((await api(null, null, "POST", "/auth/Login/VerifyRegistrationEmail", { inviteIdentifier: identifier, email: outsider })).status).toBe(204);
  const verify = (await mailbox(sam, outsider)).find((m) => m.template === "registrationVerify")!;
  const token = new URL(verify.links.find((l) => l.includes("token="))!).searchParams.get("token")!;
  const accepted = await api(null, null, "POST", "/auth/Login/AcceptInvitation", { token, password: "Partner-password-1", firstName: "Pat" });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
  const pat = accepted.body.accessToken as string;
  const theirs = await api(pat, null, "GET", "/api/v1/Projects?$select=id,projectName");
  expect(theirs.status, JSON.stringify(theirs.body)).toBe(200);
  expect(theirs.body.value).toEqual([{ id, projectName: "Journey bars" }]);
  expect((await api(pat, null, "GET", `/api/v1/Projects(${copy})`)).status, "not the copy").toBe(404);
  expect((await api(pat, T, "GET", "/api/v1/Projects")).status, "not a member of the team").toBe(403);
  expect((await api(pat, null, "GET", `/api/v1/Projects(${id})`)).status).toBe(200);

  const log = await tdb.db<{ data: Body }[]>`select data from data_events_log where project_id = ${id} and event = 'Shared' order by id`;
  expect(log.map((l) => l.data.email)).toEqual(["admin@globex.test", outsider]);
  sock.ws.close();
}, 120_000);
