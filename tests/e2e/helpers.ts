// Shared by the browser tests: sign in through the login page, API calls with a token, and
// screenshots kept out of the repo (.tmp/screens) to be looked at.
import { expect, type APIRequestContext, type Page } from "@playwright/test";

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
