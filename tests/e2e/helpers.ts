// Shared by the Playwright specs (Node, not Bun): sign in through the API or the login page, and
// call the API as a user, failing the test with the body when a call fails.
import { expect, type APIRequestContext, type Page } from "@playwright/test";

export const DEMO_PASSWORD = "ideally-demo";

export async function token(request: APIRequestContext, email: string): Promise<string> {
  const r = await request.post("/auth/Login/PasswordLogin", { data: { email, password: DEMO_PASSWORD } });
  expect(r.status(), `${email} signs in`).toBe(200);
  return ((await r.json()) as { accessToken: string }).accessToken;
}

/** An API call as `tok`; clientId 0 sends no clientId header. */
export async function api(request: APIRequestContext, tok: string, clientId: number, method: "GET" | "POST", path: string, data?: unknown) {
  const r = await request.fetch(path, { method, data, headers: { authorization: `Bearer ${tok}`, ...(clientId ? { clientId: String(clientId) } : {}) } });
  const body = await r.json().catch(() => null);
  expect(r.status(), `${method} ${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body;
}

/** Signs in through the login page (email, then password). */
export async function signIn(page: Page, email: string) {
  await page.goto("/auth/login");
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password").fill(DEMO_PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 20_000 });
}
