// Issue 19, the lows 10-14 that are about what the API exposes: 409 bodies in the API's words (no
// table names), /metrics behind a token, signed URLs from PUBLIC_URL and never the Host header,
// generic creates that record who made the row, the public survey's rate limit, job channel
// events for the job's owner only, and the real server's 431 with the error shape.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp, PRINCIPALS } from "../helpers/app.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";
import { createMetrics } from "../../api/src/ops/metrics.ts";
import { publicDetail } from "../../api/src/errors.ts";
import { Hub, type Socket } from "../../api/src/realtime/hub.ts";
import { SURVEY_STARTS_PER_MINUTE } from "../../api/src/domains/fielding/respondent.routes.ts";
import { WindowLimiter } from "../../api/src/ops/rate-limit.ts";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
}, 60_000);
afterAll(async () => {
  await tdb.drop();
}, 30_000);

describe("409 bodies name no internal table or column (finding 10)", () => {
  test("a generic create with a missing reference: the detail in the API's words", async () => {
    const app = testApp(tdb.db);
    const res = await call(app, "acmeUser", 1003, "POST", "/api/v1/Segments", { projectId: 999999, name: "Nowhere" });
    expect(res.status).toBe(409);
    const text = JSON.stringify(res.body);
    expect(text).not.toContain("table");
    expect(text).not.toContain('\\"projects\\"');
    expect(text).not.toMatch(/project_id|client_id/);
    expect(res.body.detail).toBe("The Projects row it refers to does not exist");
  });

  test("the translation: missing, still referenced, duplicate, and anything else dropped", () => {
    const sets = (t: string) => ({ projects: "Projects", segments: "Segments" })[t];
    expect(publicDetail('Key (project_id)=(5) is not present in table "projects".', sets)).toBe("No Projects row has projectId = 5");
    expect(publicDetail('Key is not present in table "projects".', sets), "the issue's text (row-level security hides the key)").toBe("The Projects row it refers to does not exist");
    expect(publicDetail('Key is still referenced from table "segments".', sets)).toBe("Segments rows still refer to it");
    expect(publicDetail('Key (id)=(5) is still referenced from table "segments".', sets)).toBe("Segments rows still refer to id = 5");
    expect(publicDetail("Key (email)=(a@b.test) already exists.", sets)).toBe("email = a@b.test is already taken");
    expect(publicDetail('Key (x_id)=(1) is not present in table "internal_things".', sets)).toBe("No another row has xId = 1");
    expect(publicDetail("Failing row contains (1, secret, 3).", sets)).toBeUndefined();
    expect(publicDetail('violates check constraint "x" on relation "y"', sets)).toBeUndefined();
    expect(publicDetail("The project is submitted", sets), "our own words pass").toBe("The project is submitted");
  });
});

describe("/metrics (finding 10)", () => {
  const TOKEN = "metrics-token-0123456789";
  test("with a token: 401 without it or with another, 200 with it", async () => {
    const app = testApp(tdb.db, { metrics: createMetrics(), metricsToken: TOKEN });
    const none = await app.request("/metrics");
    expect(none.status).toBe(401);
    expect(none.headers.get("x-error-trace-id")).toBeTruthy();
    expect((await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    const ok = await app.request("/metrics", { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(ok.status).toBe(200);
    expect(await ok.text()).toContain("ideally_");
  });
  test("null (production without METRICS_TOKEN): not served on the API port", async () => {
    const app = testApp(tdb.db, { metrics: createMetrics(), metricsToken: null });
    expect((await app.request("/metrics")).status).toBe(404);
  });
});

describe("generic creates record who made the row (finding 14)", () => {
  test("createdByUserId, invitedByUserId and sharedByUserId are the caller's id, not left empty", async () => {
    const app = testApp(tdb.db);
    const me = PRINCIPALS.acmeUser!.userId;
    const seg = await call(app, "acmeUser", 1003, "POST", "/api/v1/Segments", { projectId: 1001, name: "Mine" });
    expect(seg.status, JSON.stringify(seg.body)).toBe(201);
    expect(seg.body.createdByUserId).toBe(me);
    const invite = await call(app, "acmeUser", 1003, "POST", "/api/v1/LinkInvites", { inviteType: "ProjectShare", projectId: 1001, email: "guest@example.test" });
    expect(invite.status, JSON.stringify(invite.body)).toBe(201);
    expect(invite.body.invitedByUserId).toBe(me);
    const share = await call(app, "acmeUser", 1003, "POST", "/api/v1/ProjectShares", { projectId: 1001, email: "viewer@acme.test" });
    expect(share.status, JSON.stringify(share.body)).toBe(201);
    expect(share.body.sharedByUserId).toBe(me);
    const [row] = await tdb.db<{ created_by_user_id: number }[]>`select created_by_user_id from segments where id = ${seg.body.id}`;
    expect(row!.created_by_user_id).toBe(me);
  });
});

describe("the public survey's rate limit (finding 14)", () => {
  test("one address: the starts up to the limit are served, the next is a 429 with Retry-After; another address is not held back", async () => {
    let ip = "203.0.113.9";
    const app = testApp(tdb.db, { clientIp: () => ip });
    const start = () => app.request("/s/api/00000000-0000-4000-a000-000000000099/start", { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    for (let i = 0; i < SURVEY_STARTS_PER_MINUTE; i++) expect((await start()).status, `start ${i + 1}`).toBe(404);
    const refused = await start();
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(((await refused.json()) as { typename: string }).typename).toBe("TooManyRequests");
    ip = "203.0.113.10";
    expect((await start()).status).toBe(404);
  });
  test("the window slides: a minute later the address is served again", () => {
    const l = new WindowLimiter(2, 60_000);
    expect(l.take("a", 0)).toBe(0);
    expect(l.take("a", 1000)).toBe(0);
    expect(l.take("a", 2000)).toBe(58);
    expect(l.take("a", 60_001)).toBe(0);
  });
});

describe("a job channel's events reach only the job's owner (finding 14)", () => {
  test("another user who joins the job's channel by its id receives nothing", async () => {
    const hub = new Hub(tdb.db, (await crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"])) as CryptoKey);
    const got = new Map<number, string[]>();
    const socket = (userId: number): Socket => ({ send: (t) => got.set(userId, [...(got.get(userId) ?? []), t]), close: () => {} });
    const owner = hub.open(socket(9004), 9004, crypto.randomUUID());
    const other = hub.open(socket(9006), 9006, crypto.randomUUID());
    const channel = `job-${crypto.randomUUID()}` as const;
    await hub.message(owner, JSON.stringify({ action: "join", channel }));
    await hub.message(other, JSON.stringify({ action: "join", channel }));
    got.clear();
    hub.deliver({ channel, event: "Success", data: { jobId: channel.slice(4), name: "export", result: { fileName: "secret.pptx", size: 1234 } }, userId: 9004, clientId: 1003 });
    expect(got.get(9004)?.length).toBe(1);
    expect(got.get(9006), "nothing for the other user").toBeUndefined();
  });
});

describe("the real server (findings 11 and 14)", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    // PUBLIC_URL and METRICS_TOKEN unset: the configured defaults, as a fresh install has.
    server = await startServerProcess(tdb.url, { PUBLIC_URL: "", METRICS_TOKEN: "" });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  }, 30_000);

  test("signed file and websocket URLs come from the configured URL, never the request's Host header", async () => {
    const login = await fetch(`${server.base}/auth/Login/PasswordLogin`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "user@acme.test", password: "Password123!" }),
    });
    expect(login.status).toBe(200);
    const token = ((await login.json()) as { accessToken: string }).accessToken;
    const port = new URL(server.base).port;
    const headers = { authorization: `Bearer ${token}`, clientId: "1003", host: "evil.example" };
    const up = await fetch(`${server.base}/api/v1/Projects(1001)/FileUploadUrl?fileName=a.png&fileType=image/png`, { headers });
    expect(up.status).toBe(200);
    expect(((await up.json()) as { url: string }).url).toStartWith(`http://localhost:${port}/api/files/upload?token=`);
    const ws = await fetch(`${server.base}/api/v1/Users/WebsocketConnection`, { headers });
    expect(ws.status).toBe(200);
    expect(((await ws.json()) as { value: string }).value).toStartWith(`ws://localhost:${port}/`);
  });

  test("without METRICS_TOKEN /metrics is not served (issue 38: a fresh start answered it to anyone)", async () => {
    const res = await fetch(`${server.base}/metrics`);
    expect(res.status).toBe(404);
    expect(await res.text()).not.toContain("ideally_");
  });

  test("a very long URL is a 431 with the error shape and a trace id (not Bun's bare 431)", async () => {
    const res = await fetch(`${server.base}/api/v1/Regions?x=${"a".repeat(40_000)}`);
    expect(res.status).toBe(431);
    expect(res.headers.get("x-error-trace-id")).toBeTruthy();
    expect(((await res.json()) as { typename: string }).typename).toBe("RequestHeaderFieldsTooLarge");
  });
});
