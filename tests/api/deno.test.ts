// Edge-first: the same Hono app runs under Deno (npm `deno`) against the test database and gives
// the same answers as under Bun for a list, a key, a $count, an error and an anonymous call.
import { freePort } from "../helpers/port.ts";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { resolve } from "node:path";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

const ROOT = resolve(import.meta.dir, "../..");
let tdb: TestDb;
let app: App;
let deno: ReturnType<typeof Bun.spawn> | undefined;
let base = "";
let token = "";

beforeAll(async () => {
  tdb = await createTestDb();
  ({ app } = await realApp(tdb.db));
  ({ token } = await login(app, "user@acme.test"));
  const port = freePort();
  // The binary itself, not node_modules/.bin/deno: that is a Node wrapper whose child would
  // outlive kill().
  deno = Bun.spawn([resolve(ROOT, "node_modules/deno/deno"), "run", "-A", "api/src/deno.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: tdb.url, PORT: String(port), NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  base = `http://127.0.0.1:${port}`;
  const until = Date.now() + 90_000;
  for (;;) {
    try {
      await fetch(`${base}/openapi.json`);
      break;
    } catch {
      if (Date.now() > until || deno.exitCode !== null) {
        throw new Error(`deno did not start: ${await new Response(deno.stderr as ReadableStream).text()}`);
      }
      await Bun.sleep(250);
    }
  }
}, 120_000);

afterAll(async () => {
  deno?.kill();
  await deno?.exited;
  await tdb.drop();
});

async function both(path: string, auth = true): Promise<[{ status: number; body: unknown }, { status: number; body: unknown }]> {
  const headers: Record<string, string> = { clientId: "1003" };
  if (auth) headers.authorization = `Bearer ${token}`;
  const underBun = await app.request(path, { headers });
  const underDeno = await fetch(base + path, { headers });
  return [
    { status: underBun.status, body: await underBun.json() },
    { status: underDeno.status, body: await underDeno.json() },
  ];
}

test("a list, a key, a $count, an error and an anonymous call answer alike under Bun and Deno", async () => {
  const paths: [string, boolean, number][] = [
    ["/api/v1/Projects?$select=id,projectName&$expand=testOptions($select=conceptText)&$orderby=id", true, 200],
    ["/api/v1/Projects(1001)?$expand=projectsRegions($expand=region)", true, 200],
    ["/api/v1/Projects/$count?$filter=statusCode ge 100", true, 200],
    ["/api/v1/Projects?$filter=nosuch eq 1", true, 400],
    ["/api/v1/Projects", false, 401],
  ];
  for (const [path, auth, status] of paths) {
    const [b, d] = await both(path, auth);
    expect(b.status, `${path} under Bun`).toBe(status);
    expect(d.status, `${path} under Deno`).toBe(status);
    expect(d.body, `${path}: same body`).toEqual(b.body);
  }
}, 60_000);
