// Fault: an API process killed (SIGKILL) while websocket clients are connected to it. The client
// does what the web app and the CLI do: it remembers the largest notificationId it has seen, and
// when its socket drops it asks another process (behind the load balancer) for a websocket, then
// catches up with Notifications/All?sinceId=. No notification stored meanwhile is missed.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { liveCall, liveSignIn, openSocket, startServerProcess, submitNewProject, type ServerProcess } from "../helpers/live.ts";

let tdb: TestDb;
let a: ServerProcess;
let b: ServerProcess;
const T = 1003;

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Fault top-up')`;
  [a, b] = await Promise.all([startServerProcess(tdb.url), startServerProcess(tdb.url, { RUN_WORKERS: "0" })]);
}, 120_000);
afterAll(async () => {
  await Promise.all([a?.stop(), b?.stop()]);
  await tdb.drop();
}, 60_000);

type Note = { id: number; title: string };
const submitted = (m: Record<string, unknown>) => m.event === "SurveySubmittedForApproval";
const idOf = (m: Record<string, unknown>) => (m.data as { notificationId: number }).notificationId;

test("websocket clients of a killed API process reconnect to another and miss no stored notification", async () => {
  const ada = await liveSignIn(a.base, "admin@acme.test");
  const uma = await liveSignIn(b.base, "user@acme.test");
  const baseline = await liveCall(a.base, ada, null, "GET", "/api/v1/Notifications/All?top=1");
  let lastSeen = (baseline.body.value as Note[])[0]?.id ?? 0;
  const live = new Set<number>();

  // Two clients of the same user on process A (two tabs): both must come back.
  const tabs = [await openSocket(a.base, ada), await openSocket(a.base, ada)];
  const p1 = await submitNewProject(b.base, uma, T, "Before the crash");
  for (const tab of tabs) {
    const m = await tab.next((x) => submitted(x) && (x.data as { projectId: number }).projectId === p1);
    live.add(idOf(m));
    lastSeen = Math.max(lastSeen, idOf(m));
  }
  const closed = tabs.map((t) => new Promise<number>((res) => t.ws.addEventListener("close", (e) => res(e.code))));

  a.proc.kill("SIGKILL");
  await a.proc.exited;
  const codes = await Promise.all(closed);
  expect(
    codes.every((c) => c !== 1000),
    `the sockets dropped without a clean close: ${codes}`,
  ).toBe(true);

  // Raised while the clients have no socket: no live event can reach them.
  const p2 = await submitNewProject(b.base, uma, T, "While disconnected");

  // Each tab reconnects through the remaining process and catches up from what it saw.
  const caughtUp = new Set<number>();
  const again = [];
  for (let i = 0; i < tabs.length; i++) {
    const sock = await openSocket(b.base, ada);
    again.push(sock);
    const page = await liveCall(b.base, ada, null, "GET", `/api/v1/Notifications/All?sinceId=${lastSeen}`);
    expect(page.status).toBe(200);
    for (const n of page.body.value as Note[]) caughtUp.add(n.id);
  }
  const p3 = await submitNewProject(b.base, uma, T, "After the reconnect");
  for (const sock of again) live.add(idOf(await sock.next((x) => submitted(x) && (x.data as { projectId: number }).projectId === p3)));

  const stored = await tdb.db<{ id: number; project_id: number }[]>`
    select id, project_id from notifications where user_id = 9003 and id > ${(baseline.body.value as Note[])[0]?.id ?? 0} order by id`;
  expect(
    stored.map((n) => n.project_id),
    "one notification per submitted project",
  ).toEqual([p1, p2, p3]);
  const missed = stored.filter((n) => !live.has(n.id) && !caughtUp.has(n.id));
  expect(missed, "every stored notification reached the client, live or by catch-up").toEqual([]);
  expect(caughtUp.has(stored[1]!.id), "the one raised while disconnected came by catch-up").toBe(true);
  for (const sock of again) sock.ws.close();
}, 90_000);
