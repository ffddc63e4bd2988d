// Shared by the browser tests: sign in through the login page, API calls with a token, and
// screenshots kept out of the repo (.tmp/screens, with SCREENS=1 or SCREENS=all) to be looked at.
import { expect, type APIRequestContext, type Page } from "@playwright/test";
import type { AxeResults } from "axe-core";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

declare global {
  interface Window {
    axe?: { run(context: Document | { include: string[] }, options: { resultTypes: string[] }): Promise<AxeResults> };
  }
}

// axe-core's script, put into a page once per document and run there. @axe-core/playwright's
// builder did the same in about 2.2 s a page where this takes about 0.3 s (measured on the results
// pages; docs/testing.md): it puts the script into every frame on each call and finishes the run in a
// new blank page. The pages here have no frames, so one run in the page reads everything.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/**
 * axe-core's serious and critical violations on the page (or inside `include`, a CSS selector),
 * each as "rule (impact): where" with up to five of its nodes.
 */
export async function axeFindings(page: Page, opts: { include?: string; html?: boolean } = {}): Promise<string[]> {
  // page.evaluate runs through the DevTools protocol, which the page's CSP does not govern.
  if (!(await page.evaluate(() => typeof window.axe !== "undefined"))) await page.evaluate(AXE_SOURCE);
  const r = await page.evaluate((include) => window.axe!.run(include ? { include: [include] } : document, { resultTypes: ["violations"] }), opts.include ?? null);
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.nodes
          .slice(0, 5)
          .map((n) => `${n.target.join(" ")}${opts.html ? ` ${n.html.slice(0, 160)}` : ""}`)
          .join(", ")}`,
    );
}

/** No serious or critical axe-core violation on the page (or inside `include`). */
export async function expectAxeClean(page: Page, where: string, opts: { include?: string; html?: boolean } = {}) {
  expect(await axeFindings(page, opts), `${where}: no serious or critical accessibility violations`).toEqual([]);
}

export const PASSWORD = "ideally-demo";
export const DEMO_PASSWORD = PASSWORD;

export async function signIn(page: Page, email: string, password = PASSWORD) {
  await page.goto("/auth/login");
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password", { exact: true }).fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 20_000 });
}

export async function apiToken(request: APIRequestContext, email: string): Promise<string> {
  const r = await request.post("/auth/Login/PasswordLogin", { data: { email, password: PASSWORD } });
  expect(r.status(), `${email} signs in`).toBe(200);
  return ((await r.json()) as { accessToken: string }).accessToken;
}

export async function apiCall<T = any>(request: APIRequestContext, tok: string, clientId: number | null, method: string, path: string, data?: unknown): Promise<T> {
  const r = await request.fetch(path, { method, data, headers: { authorization: `Bearer ${tok}`, ...(clientId ? { clientId: String(clientId) } : {}) } });
  const body = await r.json().catch(() => null);
  expect(r.status(), `${method} ${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body as T;
}

/** The id of a client by name, as a signed-in user sees it. */
export async function clientIdByName(request: APIRequestContext, tok: string, name: string): Promise<number> {
  const r = await apiCall<{ value: { id: number }[] }>(request, tok, null, "GET", `/api/v1/Clients?$select=id&$filter=name eq '${name.replace(/'/g, "''")}'`);
  expect(r.value.length, `client ${name} is visible`).toBe(1);
  return r.value[0].id;
}

/** A full-page screenshot to .tmp/screens/NAME.png, with SCREENS set (see SCREENS). */
export async function shot(page: Page, name: string) {
  if (SCREENS) await page.screenshot({ path: `.tmp/screens/${name}.png`, fullPage: true });
}

/** A JWT-shaped token with the given expiry (unsigned: the web app reads exp; the API refuses it). */
export function fakeToken(expSeconds: number, sub = 1): string {
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${b64({ alg: "HS256", typ: "JWT" })}.${b64({ sub: String(sub), exp: expSeconds })}.c2lnbmF0dXJl`;
}

/** The same as apiToken (the specs' short name). */
export const token = apiToken;

/** An API call as `tok`; clientId 0 sends no clientId header. */
export async function api(request: APIRequestContext, tok: string, clientId: number, method: "GET" | "POST" | "PATCH", path: string, data?: unknown) {
  return apiCall(request, tok, clientId || null, method, path, data);
}

/**
 * The page's data calls (fetch, XHR) in flight, counted by the page itself, and a wait until none
 * has been in flight for `quietMs`. Playwright's "networkidle" is the same wait with 500 ms of
 * quiet, measured at 0.62 s a page over the 60 results routes (docs/testing.md "The results
 * crawl"); the pages' data calls end well within 150 ms of each other. The websocket is not a
 * request and does not count.
 *
 * Counted in the document, not from Playwright's request events: calls a navigation cancelled
 * (the landing page's, when the crawl moves on to the first sub-page) sometimes raised
 * `request` and then neither `requestfinished` nor `requestfailed`, so a set kept from the events
 * held them for ever (five calls "in flight" for 60 s that the server had answered, or seen
 * cancelled, within 0.5 s: a CI run at 0a19e76 and a loop of the crawl beside load, 2026-12-07).
 * A new document starts its count at zero; a call ends when its answer's body has arrived, or it
 * failed or was aborted.
 */
export function requestsInFlight(page: Page): { settled(quietMs?: number, timeout?: number): Promise<void> } {
  void page.addInitScript(() => {
    if (Reflect.has(window, "__calls")) return;
    const calls = { open: new Set<string>(), last: performance.now() };
    Reflect.set(window, "__calls", calls);
    let seq = 0;
    const begin = (what: string) => {
      const id = `${++seq} ${what}`;
      calls.open.add(id);
      calls.last = performance.now();
      return () => {
        calls.open.delete(id);
        calls.last = performance.now();
      };
    };
    const fetch0 = window.fetch;
    const wrapped = function (this: unknown, input: RequestInfo | URL, init?: RequestInit) {
      const end = begin(`${init?.method ?? (input instanceof Request ? input.method : "GET")} ${input instanceof Request ? input.url : String(input)}`);
      const p = fetch0.call(this, input, init);
      // The body read on a copy: the call ends when the whole answer has arrived (or broke off).
      p.then((r) => r.clone().arrayBuffer()).then(end, end);
      return p;
    };
    window.fetch = Object.assign(wrapped, { preconnect: fetch0.preconnect });
    const send0 = XMLHttpRequest.prototype.send;
    XMLHttpRequest.prototype.send = function (body) {
      const end = begin("XHR");
      this.addEventListener("loadend", end, { once: true });
      return send0.call(this, body);
    };
  });
  const state = () =>
    page.evaluate(() => {
      const c: { open: Set<string>; last: number } | undefined = Reflect.get(window, "__calls");
      return c ? { open: [...c.open], quietFor: performance.now() - c.last } : null;
    });
  return {
    // The timeout is a guard against a call that never ends, as networkidle's was the test's: a
    // costly call (MarketReachResults) took over 15 s on a saturated machine (2026-12-07).
    async settled(quietMs = 150, timeout = 60_000) {
      const until = performance.now() + timeout;
      let open: string[] = [];
      for (;;) {
        // A document being replaced has no state to read yet: asked again.
        const s = await state().catch(() => null);
        if (s) {
          open = s.open;
          if (!open.length && s.quietFor >= quietMs) return;
        }
        if (performance.now() > until) throw new Error(`${open.length} calls still in flight after ${timeout} ms: ${open.join(", ")}`);
        await page.waitForTimeout(25);
      }
    },
  };
}

/** Two animation frames: a resize's ResizeObserver callbacks have run and React has drawn what they set. */
export async function nextFrames(page: Page, frames = 3) {
  await page.evaluate(
    (n) =>
      new Promise<void>((done) => {
        const step = (k: number) => (k ? requestAnimationFrame(() => step(k - 1)) : done());
        step(n);
      }),
    frames,
  );
}

/**
 * Screenshots are for looking at (.tmp/screens), not for checking: a plain run takes none (a
 * full-page shot is about 0.35 s of the browser's CPU, and the specs took 92). SCREENS=1 takes the
 * specs' own; SCREENS=all also every page the results crawl visits, at both widths.
 */
export const SCREENS = process.env.SCREENS === "1" || process.env.SCREENS === "all";
export const SCREENS_ALL = process.env.SCREENS === "all";

/**
 * A just-approved project's runs, Live: made by CreateDecipherSurveys, or by the fielding tick when
 * it came first (it also makes the due runs of approved projects and launches them; it runs every
 * minute, and every 2 s while the simulated panel has answers to give, so in a busy run it often
 * does). A clean run at 365b730 failed quotas.spec on `created.runs[0]` undefined.
 */
export async function liveRunsOf(request: APIRequestContext, staff: string, clientId: number, projectId: number): Promise<number[]> {
  const created = await apiCall<{ runs: { surveyRunId: number }[] }>(request, staff, clientId, "POST", "/api/v1/SurveyRuns/CreateDecipherSurveys", { projectId });
  const ids = created.runs.length
    ? created.runs.map((r) => r.surveyRunId)
    : (
        await apiCall<{ value: { id: number }[] }>(
          request,
          staff,
          null,
          "GET",
          `/api/v1/SurveyRuns?$filter=${encodeURIComponent(`projectSchedules/any(s: s/projectId eq ${projectId})`)}&$select=id&$orderby=id`,
        )
      ).value.map((r) => r.id);
  expect(ids.length, `project ${projectId} has a run`).toBeGreaterThan(0);
  for (const id of ids) {
    const run = await apiCall<{ surveyStatusId: number }>(request, staff, null, "GET", `/api/v1/SurveyRuns(${id})?$select=surveyStatusId`);
    // Draft (0) or Testing (10): launched here; the tick's are Live (50) already.
    if (run.surveyStatusId === 0 || run.surveyStatusId === 10) await apiCall(request, staff, null, "POST", `/api/v1/SurveyRuns(${id})/LaunchSurvey`);
  }
  return ids;
}
