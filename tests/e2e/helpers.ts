// Shared by the browser tests: sign in through the login page, API calls with a token, and
// screenshots kept out of the repo (.tmp/screens) to be looked at.
import { expect, type APIRequestContext, type Page, type Request } from "@playwright/test";
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
  const r = await page.evaluate(
    (include) => window.axe!.run(include ? { include: [include] } : document, { resultTypes: ["violations"] }),
    opts.include ?? null,
  );
  return r.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 5).map((n) => `${n.target.join(" ")}${opts.html ? ` ${n.html.slice(0, 160)}` : ""}`).join(", ")}`);
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

export async function shot(page: Page, name: string) {
  await page.screenshot({ path: `.tmp/screens/${name}.png`, fullPage: true });
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
 * The page's data calls (fetch, XHR) in flight, from Playwright's request events, and a wait until
 * none has been in flight for `quietMs`. Playwright's "networkidle" is the same wait with 500 ms of
 * quiet, measured at 0.62 s a page over the 60 results routes (docs/testing.md "The results
 * crawl"); the pages' data calls end well within 150 ms of each other. The websocket is not a
 * request and does not count.
 */
export function requestsInFlight(page: Page): { settled(quietMs?: number, timeout?: number): Promise<void> } {
  // A request a navigation cancels ends as failed (net::ERR_ABORTED), so each one leaves the set.
  const open = new Set<Request>();
  let lastChange = performance.now();
  // Data calls only: a document's scripts and styles are the load event's, and a module the
  // browser takes from its memory cache after a navigation raised a request event with no end.
  page.on("request", (r) => {
    if (r.resourceType() !== "fetch" && r.resourceType() !== "xhr") return;
    open.add(r);
    lastChange = performance.now();
  });
  const done = (r: Request) => {
    open.delete(r);
    lastChange = performance.now();
  };
  page.on("requestfinished", done);
  page.on("requestfailed", done);
  return {
    // The timeout is a guard against a call that never ends, as networkidle's was the test's: a
    // costly call (MarketReachResults) took over 15 s on a saturated machine (2026-12-07).
    async settled(quietMs = 150, timeout = 60_000) {
      const until = performance.now() + timeout;
      for (;;) {
        if (open.size === 0 && performance.now() - lastChange >= quietMs) return;
        if (performance.now() > until) throw new Error(`${open.size} requests still in flight after ${timeout} ms: ${[...open].map((r) => r.url()).join(", ")}`);
        await page.waitForTimeout(25);
      }
    },
  };
}

/** Two animation frames: a resize's ResizeObserver callbacks have run and React has drawn what they set. */
export async function nextFrames(page: Page, frames = 3) {
  await page.evaluate((n) => new Promise<void>((done) => {
    const step = (k: number) => (k ? requestAnimationFrame(() => step(k - 1)) : done());
    step(n);
  }), frames);
}

/** Screenshots of every page a crawl visits are taken only with SCREENS=all (one look at a time, not in every run). */
export const SCREENS_ALL = process.env.SCREENS === "all";
