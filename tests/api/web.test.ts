// The web app's side of the server: which paths the API answers and which the SPA serves (one
// table, web/paths.ts), the SPA fallback, and GET /Logger (the error view's and logout's reports).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import { isApiPath, targetOf } from "../../api/src/web/paths.ts";
import { LOGGER_LIMIT_PER_MINUTE } from "../../api/src/domains/logger/logger.routes.ts";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await tdb.drop();
});

test("the API's paths and the web app's differ by case and prefix", () => {
  for (const p of [
    "/api/v1/Projects",
    "/auth/Login/PasswordLogin",
    "/auth/Saml/Code",
    "/auth/LinkedIn/Login",
    "/openapi.json",
    "/docs",
    "/docs/scalar.js",
    "/Logger",
    "/ws",
    "/s/abc",
    "/healthz",
    "/readyz",
    "/metrics",
    "/api/CommandRunner/SyncDemoData",
  ]) {
    expect(isApiPath(p), `${p} is the API's`).toBe(true);
  }
  for (const p of [
    "/",
    "/auth/login",
    "/auth/saml/login",
    "/auth/saml/error",
    "/auth/reset-password",
    "/invites/demo",
    "/3/home",
    "/3/results/7/summary",
    "/admin/users",
    "/common/no-client-id",
    "/assets/index-abc.js",
    "/logger",
  ]) {
    expect(isApiPath(p), `${p} is the web app's`).toBe(false);
  }
});

test("a request URL's pathname and search are cut out as the URL parser gives them", () => {
  const urls = [
    "http://127.0.0.1/api/v1/Projects?$top=50&$expand=projectsRegions($expand=region)",
    "http://localhost:3000/api/v1/Projects",
    "http://localhost/api/v1/Projects?",
    "http://localhost/",
    "http://localhost",
    "http://localhost?a=1",
    "https://u:p@[::1]:8443/a/b%00c?x=%2F%3F&y=a+b#frag",
    "http://h/a?b=c?d/e",
    "http://h/s/abc?token=x#y?z",
    new Request("http://h/a b/%zz?q=ä ö").url,
  ];
  for (const url of urls) {
    const u = new URL(url);
    expect(targetOf(url), url).toEqual({ pathname: u.pathname, search: u.search });
  }
});

test("every other GET is the web app's; API paths keep their JSON errors", async () => {
  const served: string[] = [];
  const app = testApp(tdb.db, {
    web: async (path) => {
      served.push(path);
      return new Response("<!doctype html>", { headers: { "content-type": "text/html" } });
    },
  });
  const page = await app.request("/3/projects/9");
  expect(page.status).toBe(200);
  expect(await page.text()).toBe("<!doctype html>");
  const api = await app.request("/api/v1/NoSuchSet", { headers: { authorization: "Bearer acmeUser" } });
  expect(api.status, "an unknown API path is a JSON 404, not the SPA").toBe(404);
  expect((await api.json()).typename).toBe("NotFound");
  expect(served).toEqual(["/3/projects/9"]);
});

test("Logger records the event with the user and trace id; anonymous reports are kept too", async () => {
  const app = testApp(tdb.db);
  const signed = await app.request("/Logger?eventId=error-500&url=%2F3%2Fhome&message=TypeError%3A%20x", { headers: { authorization: "Bearer acmeUser" } });
  expect(signed.status).toBe(204);
  const anon = await app.request("/Logger?eventId=Logout");
  expect(anon.status).toBe(204);
  const rows = await tdb.db<{ user_id: number | null; event_id: string; url: string | null; message: string | null; trace_id: string }[]>`
    select user_id, event_id, url, message, trace_id from client_events order by id`;
  expect(rows.map((r) => [r.user_id, r.event_id, r.url, r.message])).toEqual([
    [9004, "error-500", "/3/home", "TypeError: x"],
    [null, "Logout", null, null],
  ]);
  expect(rows[0].trace_id.length, "the trace id is kept").toBeGreaterThan(8);
});

test("Logger refuses a missing eventId and limits each user to a rate", async () => {
  const app = testApp(tdb.db);
  const bad = await app.request("/Logger?url=x", { headers: { authorization: "Bearer acmeAdmin" } });
  expect(bad.status).toBe(400);
  let last = 0;
  for (let i = 0; i <= LOGGER_LIMIT_PER_MINUTE; i++) {
    last = (await app.request(`/Logger?eventId=e${i}`, { headers: { authorization: "Bearer acmeAdmin" } })).status;
  }
  expect(last, "the event over the limit is refused").toBe(429);
  const [n] = await tdb.db<{ n: number }[]>`select count(*)::int as n from client_events where user_id = 9003`;
  expect(n.n).toBe(LOGGER_LIMIT_PER_MINUTE);
});
