// GET /api/v1/{Set} is answered without the framework (api/src/app.ts, the lean read): the same
// steps as Hono's middleware chain and the list route, with the same functions. Here both paths
// answer the same requests (every listed set, the OData options, every refusal on the way: input
// check, sign-in, headers, validation, the parser, the tenant, compression) and must give the same
// status, headers and body, the same log line and the same metrics; and the lean path must really
// be taken (the framework's router is never asked).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { gunzipSync } from "node:zlib";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { createMetrics, type Metrics } from "../../api/src/ops/metrics.ts";
import { MAX_URL_LENGTH } from "../../api/src/ops/input.ts";
import type { App } from "../../api/src/app.ts";

interface Side {
  app: App;
  lines: string[];
  metrics: Metrics;
}

let tdb: TestDb;
let lean: Side;
let framework: Side;
let user: string;
let staff: string;

async function side(leanReads: boolean): Promise<Side> {
  const lines: string[] = [];
  const metrics = createMetrics();
  const { app } = await realApp(tdb.db, { extra: { leanReads, log: (l) => lines.push(l), metrics, publicUrl: "https://ideally.test" } });
  return { app, lines, metrics };
}

beforeAll(async () => {
  tdb = await createTestDb();
  lean = await side(true);
  framework = await side(false);
  user = (await login(framework.app, "user@acme.test")).token;
  staff = (await login(framework.app, "staff@ideally.test")).token;
});
afterAll(async () => {
  await tdb.drop();
});

/** What a client sees of an answer: status, headers (the trace id's value aside) and the body as sent, decompressed. */
async function seen(res: Response): Promise<{ status: number; headers: [string, string][]; body: string }> {
  const bytes = new Uint8Array(await res.arrayBuffer());
  const body = new TextDecoder().decode(res.headers.get("content-encoding") === "gzip" ? gunzipSync(bytes) : bytes);
  const headers = [...res.headers].map(([k, v]): [string, string] => [k, k === "x-error-trace-id" ? "(a trace id)" : v]);
  return { status: res.status, headers, body };
}

/** The request log line without its time, duration and trace id. */
const logged = (line: string | undefined) =>
  line
    ?.replace(/"time":"[^"]+"/, '"time":""')
    .replace(/"ms":[\d.]+/, '"ms":0')
    .replace(/"traceId":"[^"]+"/, '"traceId":""');

/** Sends the same request to both apps; expects the same answer and log line; returns the lean one. */
async function same(path: string, headers: Record<string, string>) {
  const a = await seen(await lean.app.request(path, { headers }));
  const b = await seen(await framework.app.request(path, { headers }));
  expect(a).toEqual(b);
  expect(logged(lean.lines.at(-1))).toBe(logged(framework.lines.at(-1)));
  return a;
}

const as = (token: string | null, clientId: string | null, more: Record<string, string> = {}) => ({
  ...(token ? { authorization: `Bearer ${token}` } : {}),
  ...(clientId ? { clientId } : {}),
  "accept-encoding": "gzip",
  ...more,
});

describe("the lean read answers as the framework does", () => {
  test("every listed set, as a member of a client and as staff", async () => {
    const sets = [...registry.sets.keys()];
    expect(sets.length).toBeGreaterThan(40);
    let ok = 0;
    for (const name of sets) {
      const a = await same(`/api/v1/${name}`, as(user, "1003"));
      await same(`/api/v1/${name}?$top=2`, as(staff, null));
      if (a.status === 200) ok++;
    }
    // Most sets answer a member; the rest refuse alike (staff-only sets, sets a domain route serves).
    expect(ok).toBeGreaterThan(sets.length / 2);
  });

  test("the OData options, the next page's link, small and large answers, with and without gzip", async () => {
    for (const q of [
      "",
      "?$top=1",
      "?$top=1&$skip=1",
      "?$select=id,projectName&$orderby=projectName desc",
      "?$filter=contains(projectName,'a')&$count=true",
      "?$expand=projectsRegions($expand=region)",
      "?$top=0",
    ]) {
      await same(`/api/v1/Projects${q}`, as(user, "1003"));
      await same(`/api/v1/Projects${q}`, as(user, "1003", { "accept-encoding": "identity" }));
    }
    const small = await same("/api/v1/Projects?$top=1&$select=id", as(user, "1003"));
    const large = await same("/api/v1/Regions", as(user, "1003"));
    expect(small.headers.find(([k]) => k === "content-encoding")).toBeUndefined();
    expect(large.headers).toContainEqual(["content-encoding", "gzip"]);
    expect(large.headers).toContainEqual(["strict-transport-security", "max-age=31536000; includeSubDomains"]);
    expect((await same("/api/v1/Projects?$top=1", as(user, "1003"))).body).toContain("@odata.nextLink");
  });

  test("refusals: sign-in, headers, the query's validation, the parser, hostile input, the tenant", async () => {
    const cases: [string, Record<string, string>, number][] = [
      ["/api/v1/Projects", as(null, "1003"), 401],
      ["/api/v1/Projects", as("not-a-token", "1003"), 401],
      ["/api/v1/Projects", as(user, "abc"), 400],
      ["/api/v1/Projects", as(user, "1003", { requestscope: "everything" }), 400],
      ["/api/v1/Projects?$top=1&$top=2", as(user, "1003"), 400],
      ["/api/v1/Projects?$count=maybe", as(user, "1003"), 400],
      ["/api/v1/Projects?$top=abc", as(user, "1003"), 400],
      ["/api/v1/Projects?$filter=nope eq 1", as(user, "1003"), 400],
      ["/api/v1/Projects?$unknown=1", as(user, "1003"), 400],
      ["/api/v1/Projects?$filter=projectName eq '%00'", as(user, "1003"), 400],
      ["/api/v1/Projects?id=99999999999", as(user, "1003"), 400],
      [`/api/v1/Projects?$filter=${"a".repeat(MAX_URL_LENGTH)}`, as(user, "1003"), 431],
      ["/api/v1/Projects", as(user, "2001"), 403],
    ];
    for (const [path, headers, status] of cases) {
      const a = await same(path, headers);
      expect([path, a.status]).toEqual([path, status]);
      expect(a.headers.map(([k]) => k)).toContain("x-error-trace-id");
    }
  });

  test("requests it does not take go to the framework alike (HEAD, a trailing slash, a key, $count, other verbs)", async () => {
    for (const path of ["/api/v1/Projects/", "/api/v1/Projects/1001", "/api/v1/Projects(1001)", "/api/v1/Projects/$count", "/api/v1/projects", "/api/v1/NoSuchSet"]) {
      await same(path, as(user, "1003"));
    }
    const head = async (app: App) => (await app.request("/api/v1/Projects", { method: "HEAD", headers: as(user, "1003") })).status;
    expect(await head(lean.app)).toBe(await head(framework.app));
  });

  test("the same metrics: requests by route and status", async () => {
    const counts = async (s: Side) =>
      (await s.metrics.registry.getSingleMetricAsString("ideally_http_requests_total"))
        .split("\n")
        .filter((l) => l.startsWith("ideally_http_requests_total{") && !l.includes('route="/auth/'))
        .sort();
    expect(await counts(lean)).toEqual(await counts(framework));
    expect((await counts(lean)).some((l) => l.includes('route="/api/v1/Projects",status="200"'))).toBe(true);
    expect((await counts(lean)).some((l) => l.includes('route="/api/v1/*",status="401"'))).toBe(true);
  });

  test("the lean read is taken: the framework's router is not asked for a list", async () => {
    const router = lean.app.router as { match: (...args: unknown[]) => unknown };
    const match = router.match.bind(router);
    let asked = 0;
    router.match = (...args: unknown[]) => {
      asked++;
      return match(...args);
    };
    try {
      expect((await lean.app.request("/api/v1/Projects?$top=1", { headers: as(user, "1003") })).status).toBe(200);
      expect(asked).toBe(0);
      expect((await lean.app.request("/api/v1/Projects/1001", { headers: as(user, "1003") })).status).toBe(200);
      expect(asked).toBe(1);
    } finally {
      router.match = match;
    }
  });
});
