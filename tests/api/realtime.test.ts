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
  for (const [c, base, token] of [[onA, a.base, tokenA], [onB, b.base, tokenB]] as const) {
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
  await publish(tdb.db, { channel: "user-9004", event: "ProjectReady", data: { projectId: 1001 } });
  expect(await onA.next((m) => m.event === "ProjectReady")).toEqual({ channel: "user-9004", event: "ProjectReady", data: { projectId: 1001 } });

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
