// Fault: the database stops in the middle of a load and comes back. Requests meanwhile answer 503
// with Retry-After (never a 500, never a hang), nothing is half-written (every project that exists
// has its markets; every 201 names a project that exists), and the same server process serves
// again within seconds of the database's return, realtime included, without a restart.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { startOwnPostgres, type OwnPostgres } from "../helpers/own-postgres.ts";
import { liveCall, liveSignIn, openSocket, startServerProcess, type ServerProcess } from "../helpers/live.ts";

let pg: OwnPostgres;
let server: ServerProcess;
const T = 1003;

beforeAll(async () => {
  pg = await startOwnPostgres();
  server = await startServerProcess(pg.url);
}, 120_000);
afterAll(async () => {
  await server?.stop();
  await pg?.destroy();
}, 60_000);

interface Outcome {
  /** When the request was sent, and when its answer came. */
  sent: number;
  at: number;
  kind: "write" | "read";
  status: number;
  retryAfter: string | null;
  id?: number;
}

test("the database stopped mid-load: 503 with Retry-After, nothing half-written, full service within seconds of its return", async () => {
  const token = await liveSignIn(server.base, "user@acme.test");
  // Warm up first (the first write and read of a fresh process compile and prepare what they use):
  // on a busy machine a cold first request was slower than the hang limit below, before any fault.
  for (const [method, path, body] of [
    ["POST", "/api/v1/Projects", { projectName: "Warm-up", projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2] }],
    ["GET", "/api/v1/Projects?$top=5&$select=id,projectName&$expand=projectsRegions", undefined],
  ] as const) {
    expect((await liveCall(server.base, token, T, method, path, body)).status, `warm-up ${method}`).toBeLessThan(300);
  }
  const outcomes: Outcome[] = [];
  let running = true;
  let n = 0;
  const loop = async (w: number) => {
    while (running) {
      const write = (n++ + w) % 2 === 0;
      const sent = Date.now();
      // A request unanswered after 15 s (three times the 5 s connect timeout) counts as status 0,
      // a hang: the server must answer, not wait it out.
      const timeoutMs = 15_000;
      const r = await (write
        ? liveCall(server.base, token, T, "POST", "/api/v1/Projects", { projectName: `Load ${w}-${n}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2] }, { timeoutMs })
        : liveCall(server.base, token, T, "GET", "/api/v1/Projects?$top=5&$select=id,projectName&$expand=projectsRegions", undefined, { timeoutMs })
      ).catch(() => ({ status: 0, headers: new Headers(), body: null }));
      outcomes.push({ sent, at: Date.now(), kind: write ? "write" : "read", status: r.status, retryAfter: r.headers.get("retry-after"), id: write && r.status === 201 ? r.body.id : undefined });
      if (r.status === 503) await Bun.sleep(100); // a client honouring Retry-After would wait longer
    }
  };
  const loops = Array.from({ length: 6 }, (_, w) => loop(w));
  // Conditions, not fixed sleeps: on a busy machine 1.5 s of load may not have answered anything
  // yet, and 3 s of outage may not have seen a request fail. Each wait is bounded.
  const until = async (what: () => boolean, ms: number) => {
    const end = Date.now() + ms;
    while (!what() && Date.now() < end) await Bun.sleep(50);
  };
  await until(() => outcomes.filter((o) => o.status < 300).length >= 6, 30_000);
  const stoppedAt = Date.now();
  await pg.stop();
  await until(() => outcomes.filter((o) => o.status === 503 && o.sent >= stoppedAt).length >= 6, 30_000);
  await Bun.sleep(500);
  await pg.start();
  const backAt = Date.now();
  // Load goes on until at least two seconds after the first success since the return and until a
  // dozen requests sent after it have been answered (on a busy machine two seconds may hold none),
  // or 30 s at most.
  for (;;) {
    const firstOk = outcomes.find((o) => o.at > backAt && o.status < 300);
    const answeredAfter = firstOk ? outcomes.filter((o) => o.sent > firstOk.at + 500).length : 0;
    if ((firstOk && Date.now() - firstOk.at > 2000 && answeredAfter >= 12) || Date.now() - backAt > 30_000) break;
    await Bun.sleep(100);
  }
  running = false;
  await Promise.all(loops);

  const odd = outcomes.filter((o) => ![200, 201, 503].includes(o.status)).map((o) => `${o.kind} ${o.status} sent ${o.sent - stoppedAt} ms after the stop, ${o.at - o.sent} ms`);
  expect(odd, "only 200, 201 and 503 (0: no answer within the client's timeout)").toEqual([]);
  const unavailable = outcomes.filter((o) => o.status === 503);
  expect(unavailable.length, "requests while the database was down answered 503").toBeGreaterThan(0);
  expect(
    unavailable.every((o) => o.retryAfter === "2"),
    "every 503 carries Retry-After",
  ).toBe(true);
  expect(outcomes.filter((o) => o.at < stoppedAt && o.status < 300).length, "service before the stop").toBeGreaterThan(0);
  const firstOk = outcomes.find((o) => o.at > backAt && o.status < 300);
  expect(firstOk, "service again after the database's return").toBeDefined();
  expect(firstOk!.at - backAt, "full service within 5 s of the database's return").toBeLessThan(5000);
  // Requests sent after the first success (not merely answered after it: one sent during the
  // outage may still be waiting out its connection attempt) all succeed.
  const after = outcomes.filter((o) => o.sent > firstOk!.at + 500);
  expect(after.length, "requests after recovery").toBeGreaterThan(0);
  const late = after.filter((o) => o.status >= 300).map((o) => `${o.kind} ${o.status} sent ${o.sent - backAt} ms after the return, answered in ${o.at - o.sent} ms`);
  expect(late, "every request sent after recovery succeeds").toEqual([]);

  // Nothing half-written: every 201 is there with both markets, and no project lacks its markets.
  const created = outcomes.filter((o) => o.id !== undefined).map((o) => o.id!);
  const rows = await pg.db<{ id: number; markets: number }[]>`
    select p.id, (select count(*)::int from projects_regions r where r.project_id = p.id) as markets
    from projects p where p.project_name like 'Load %'`;
  const byId = new Map(rows.map((r) => [r.id, r.markets]));
  for (const id of created) expect(byId.get(id), `project ${id} answered 201 and has its two markets`).toBe(2);
  expect(
    rows.filter((r) => r.markets !== 2),
    "no project without its markets",
  ).toEqual([]);

  // Readiness and realtime are back too, in the same process.
  const readyBy = Date.now() + 15_000;
  let ready = await liveCall(server.base, null, null, "GET", "/readyz");
  while (ready.status !== 200 && Date.now() < readyBy) {
    await Bun.sleep(250);
    ready = await liveCall(server.base, null, null, "GET", "/readyz");
  }
  expect(ready.body, "ready again").toEqual({ status: "ready", checks: { database: true, migrations: true, queue: true } });
  const sock = await openSocket(server.base, token);
  sock.send({ action: "broadcast", channel: "user-9004", event: "client:hello", data: { after: "outage" } });
  const echo = await sock.next((m) => m.event === "client:hello", 10_000);
  expect(echo.data, "NOTIFY fan-out listens again").toEqual({ after: "outage" });
  sock.ws.close();
  expect(server.proc.exitCode, "the server process was never restarted").toBeNull();
}, 150_000);
