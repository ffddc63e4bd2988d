// Shared by the browser tests: sign in through the login page, API calls with a token, and
// screenshots kept out of the repo (.tmp/screens) to be looked at.
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
