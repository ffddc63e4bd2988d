// The ports tests start servers on: never one in use (a listener's), never in the kernel's
// ephemeral range (outgoing connections'), and a server whose first pick is taken starts on the next.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { freePort, PORT_HIGH, PORT_IN_USE, PORT_LOW, portFree, randomPort } from "../helpers/port.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";

const seq = (...xs: number[]) => {
  let i = 0;
  return () => xs[Math.min(i++, xs.length - 1)]!;
};
const listenOn = (port: number) => Bun.listen({ hostname: "127.0.0.1", port, socket: { data() {} } });

let tdb: TestDb;
let server: ServerProcess | undefined;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await server?.stop();
  await tdb.drop();
});

test("the picks stay below the kernel's ephemeral range", () => {
  const [low] = readFileSync("/proc/sys/net/ipv4/ip_local_port_range", "utf8").trim().split(/\s+/).map(Number);
  expect(PORT_HIGH).toBeLessThanOrEqual(low!);
  for (let i = 0; i < 2000; i++) {
    const p = randomPort();
    expect(p).toBeGreaterThanOrEqual(PORT_LOW);
    expect(p).toBeLessThan(PORT_HIGH);
  }
});

test("a port a listener holds is never picked", () => {
  const held = listenOn(0);
  try {
    const p = held.port;
    expect(portFree(p)).toBe(false);
    const next = p + 1 < 65536 && portFree(p + 1) ? p + 1 : freePort();
    expect(freePort(seq(p, p, next))).toBe(next);
    expect(() => freePort(() => p)).toThrow("no free port");
  } finally {
    held.stop(true);
  }
});

test("a server whose first port is taken starts on the next one", async () => {
  const held = listenOn(0);
  try {
    const second = freePort();
    server = await startServerProcess(tdb.url, {}, seq(held.port, second));
    expect(server.base).toBe(`http://127.0.0.1:${second}`);
    expect((await fetch(`${server.base}/openapi.json`)).ok).toBe(true);
  } finally {
    held.stop(true);
  }
}, 60_000);

test("the words of a server that cannot listen are recognised", () => {
  expect(PORT_IN_USE.test("error: Failed to start server. Is port 30210 in use?")).toBe(true);
  expect(PORT_IN_USE.test("listen EADDRINUSE: address already in use 127.0.0.1:30210")).toBe(true);
  expect(PORT_IN_USE.test('error: relation "users" does not exist')).toBe(false);
});
