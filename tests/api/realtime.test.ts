// Realtime across API processes: two real servers on one database; a websocket client of one
// receives events raised in the other (fan-out through PostgreSQL NOTIFY), channels need the
// right ticket and token, and ping answers pong.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { openSocket, startServerProcess, type LiveSocket, type ServerProcess } from "../helpers/live.ts";
import { publish } from "../../api/src/jobs/channel.ts";

let tdb: TestDb;
const servers: ServerProcess[] = [];

beforeAll(async () => {
  tdb = await createTestDb();
  // One at a time: both run the migrations check and the job queue's set-up at start.
  servers.push(await startServerProcess(tdb.url));
  servers.push(await startServerProcess(tdb.url));
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
  await tdb.drop();
});

async function signIn(base: string, email: string): Promise<string> {
  const res = await fetch(`${base}/auth/Login/PasswordLogin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email, password: "Password123!" }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { accessToken: string }).accessToken;
}

async function connect(base: string, token: string): Promise<LiveSocket> {
  const c = await openSocket(base, token);
  expect(c.ws.url).toStartWith("ws://127.0.0.1");
  return c;
}

test("an event raised in one API process reaches a websocket client of the other", async () => {
  const [a, b] = servers as [(typeof servers)[0], (typeof servers)[0]];
  const tokenA = await signIn(a.base, "user@acme.test");
  const tokenB = await signIn(b.base, "admin@acme.test");
  const onA = await connect(a.base, tokenA);
  const onB = await connect(b.base, tokenB);

  // Both join Acme Team A's channel with their channel tokens.
  for (const [c, base, token] of [
    [onA, a.base, tokenA],
    [onB, b.base, tokenB],
  ] as const) {
    const res = await fetch(`${base}/api/v1/Clients(1003)/GetChannelInfo`, { headers: { authorization: `Bearer ${token}`, clientId: "1003" } });
    expect(res.status).toBe(200);
    const { name, token: channelToken } = (await res.json()) as { name: string; token: string };
    expect(name).toBe("client-1003");
    c.send({ action: "join", channel: name, token: channelToken });
    await c.next((m) => m.event === "joined" && m.channel === name);
  }

  // A broadcast from the client on B arrives at the client on A.
  onB.send({ action: "broadcast", channel: "client-1003", event: "client:hello", data: { from: "B" } });
  const got = await onA.next((m) => m.event === "client:hello");
  expect(got).toEqual({ channel: "client-1003", event: "client:hello", data: { from: "B" } });

  // A server-side event (as a job or an action raises it) reaches the user's own channel.
  const ready = { notificationId: 1, title: "Results are ready", body: null, url: null, projectId: 1001 };
  await publish(tdb.db, { channel: "user-9004", event: "ProjectReady", data: ready });
  expect(await onA.next((m) => m.event === "ProjectReady")).toEqual({ channel: "user-9004", event: "ProjectReady", data: ready });

  // Ping keeps the connection and answers pong.
  onA.send({ action: "ping" });
  await onA.next((m) => m.event === "pong");
  onA.ws.close();
  onB.ws.close();
}, 60_000);

test("channels are guarded: another user's channel, another client's channel, no ticket", async () => {
  const a = servers[0]!;
  const token = await signIn(a.base, "admin@globex.test");
  const c = await connect(a.base, token);
  c.send({ action: "join", channel: "user-9004" });
  expect((await c.next((m) => m.event === "error")).message).toContain("cannot join user-9004");
  c.send({ action: "join", channel: "client-1003" });
  await c.next((m) => m.event === "error" && String(m.message).includes("client-1003"));
  const denied = await fetch(`${a.base}/api/v1/Clients(1003)/GetChannelInfo`, { headers: { authorization: `Bearer ${token}`, clientId: "1003" } });
  expect(denied.status, "a channel token only for members").toBe(403);
  c.ws.close();

  const bare = await fetch(`${a.base}/ws`);
  expect(bare.status, "no ticket, no websocket").toBe(401);
}, 30_000);

// ---- membership and session as of now (issue 19, findings 4 and 5) ----

async function websocketUrl(base: string, token: string): Promise<string> {
  const info = await fetch(`${base}/api/v1/Users/WebsocketConnection`, { headers: { authorization: `Bearer ${token}` } });
  expect(info.status).toBe(200);
  return ((await info.json()) as { value: string }).value;
}

/** Opens a websocket at a URL: "open", or "refused" when the upgrade is answered with an error. */
function tryOpen(url: string): Promise<{ outcome: "open" | "refused"; ws: WebSocket }> {
  const ws = new WebSocket(url);
  return new Promise((res) => {
    ws.onopen = () => res({ outcome: "open", ws });
    ws.onerror = () => res({ outcome: "refused", ws });
  });
}

/** Resolves with the close code once the server closes the socket (or rejects after `ms`); listen before acting. */
function closed(ws: WebSocket, ms = 8000): Promise<number> {
  return new Promise((res, rej) => {
    const t = setTimeout(() => rej(new Error(`socket still open after ${ms} ms`)), ms);
    ws.addEventListener("close", (e) => {
      clearTimeout(t);
      res(e.code);
    });
  });
}

async function channelToken(base: string, token: string, clientId: number): Promise<string> {
  const res = await fetch(`${base}/api/v1/Clients(${clientId})/GetChannelInfo`, { headers: { authorization: `Bearer ${token}`, clientId: String(clientId) } });
  expect(res.status).toBe(200);
  return ((await res.json()) as { token: string }).token;
}

async function logout(base: string, token: string): Promise<void> {
  const res = await fetch(`${base}/auth/Login/Logout`, { method: "POST", headers: { authorization: `Bearer ${token}` } });
  expect(res.status).toBe(204);
}

test("a websocket ticket works once", async () => {
  const a = servers[0]!;
  const token = await signIn(a.base, "viewer@acme.test");
  const url = await websocketUrl(a.base, token);
  const first = await tryOpen(url);
  expect(first.outcome).toBe("open");
  expect((await tryOpen(url)).outcome, "the same ticket a second time").toBe("refused");
  expect((await tryOpen(url.replace(servers[0]!.base.replace(/^http/, "ws"), servers[1]!.base.replace(/^http/, "ws")))).outcome, "nor on another process").toBe("refused");
  first.ws.close();
}, 30_000);

test("a ticket is refused after logout, and logout closes the sockets already open, on every process", async () => {
  const [a, b] = servers as [ServerProcess, ServerProcess];
  const token = await signIn(a.base, "viewer@acme.test");
  const unused = await websocketUrl(a.base, token);
  const onA = await connect(a.base, token);
  const onB = await connect(b.base, token);
  const [closedA, closedB] = [closed(onA.ws), closed(onB.ws)];
  await logout(a.base, token);
  expect((await tryOpen(unused)).outcome, "the ticket died with the session").toBe("refused");
  expect(await closedA).toBe(4001);
  expect(await closedB, "the other process hears of it through NOTIFY").toBe(4001);
}, 30_000);

test("a member removed from a team is disconnected, and its old channel token joins nothing", async () => {
  const [a, b] = servers as [ServerProcess, ServerProcess];
  const admin = await signIn(b.base, "admin@acme.test");
  // A member of its own for this test: added directly, with a password login.
  await tdb.db`insert into users (id, email, first_name, last_name, password_hash, role_id, default_client_id, onboarded_at)
               select 9701, 'leaver@acme.test', 'Lee', 'Leaver', password_hash, 1, 1003, now() from users where id = 9004`;
  await tdb.db`insert into cognito_users (user_id, username, status) values (9701, 'leaver@acme.test', 'CONFIRMED')`;
  await tdb.db`insert into user_and_clients (user_id, client_id, role_id) values (9701, 1003, 2)`;
  const token = await signIn(a.base, "leaver@acme.test");
  const channel = await channelToken(a.base, token, 1003);
  const s = await connect(a.base, token);
  s.send({ action: "join", channel: "client-1003", token: channel });
  await s.next((m) => m.event === "joined" && m.channel === "client-1003");

  const gone = closed(s.ws);
  const removed = await fetch(`${b.base}/api/v1/Users(9701)/RemoveFromAccount`, { method: "POST", headers: { authorization: `Bearer ${admin}`, clientId: "1003" } });
  expect(removed.status).toBe(200);
  expect(await gone, "closed on removal").toBe(4003);

  // Still signed in (the account lives on), but the channel token's claim is checked against now.
  const again = await connect(a.base, token);
  again.send({ action: "join", channel: "client-1003", token: channel });
  await again.next((m) => m.event === "error" && String(m.message).includes("client-1003"));
  again.ws.close();
}, 30_000);

test("disabling a user closes their sockets", async () => {
  const a = servers[0]!;
  const staff = await signIn(a.base, "staff@ideally.test");
  const token = await signIn(a.base, "admin@globex.test");
  const s = await connect(servers[1]!.base, token);
  const gone = closed(s.ws);
  const res = await fetch(`${a.base}/api/v1/Users(9006)/Disable`, { method: "POST", headers: { authorization: `Bearer ${staff}` } });
  expect(res.status).toBe(200);
  expect(await gone).toBe(4001);
  await tdb.db`update users set disabled_at = null where id = 9006`;
}, 30_000);

test("channel tokens live minutes, not hours", async () => {
  const a = servers[0]!;
  const token = await signIn(a.base, "user@acme.test");
  const channel = await channelToken(a.base, token, 1003);
  const claims = JSON.parse(atob(channel.split(".")[0]!.replace(/-/g, "+").replace(/_/g, "/"))) as { exp: number };
  const seconds = claims.exp - Date.now() / 1000;
  expect(seconds).toBeGreaterThan(0);
  expect(seconds).toBeLessThanOrEqual(10 * 60);
}, 30_000);
