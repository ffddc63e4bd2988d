import AxeBuilder from "@axe-core/playwright";
import { expect, test, type APIRequestContext, type Page } from "@playwright/test";

// The staff admin area in Chromium (issue #10's Done-when): as staff, approve a project from the
// queue and see its status and the team's credits, add a credit adjustment, switch a flag on for
// one client and see it reach that client's user, publish a prompt version, run a command and watch
// its progress; every admin page passes axe (no serious or critical violations); a non-staff user
// is sent from every /admin path to /. Screenshots go to .tmp/screens to be looked at.

const ADMIN_PATHS = [
  "users", "approvals", "clients", "clients/3/credits", "projects", "project-groups", "project-groups/1",
  "email-summaries", "prompts", "prompts/1", "edit-prompt/1", "surveys", "features", "project-summaries",
  "ai-conversations", "ai-conversations/1", "notifications", "translations", "commands",
];

async function token(request: APIRequestContext, email: string): Promise<string> {
  const r = await request.post("/auth/Login/PasswordLogin", { data: { email, password: "ideally-demo" } });
  expect(r.status(), `${email} signs in`).toBe(200);
  return ((await r.json()) as { accessToken: string }).accessToken;
}

async function api(request: APIRequestContext, tok: string, clientId: number | null, method: "GET" | "POST", path: string, data?: unknown) {
  const r = await request.fetch(path, { method, data, headers: { authorization: `Bearer ${tok}`, ...(clientId ? { clientId: String(clientId) } : {}) } });
  const body = await r.json().catch(() => null);
  expect(r.status(), `${method} ${path}: ${JSON.stringify(body)}`).toBeLessThan(300);
  return body;
}

async function teamA(request: APIRequestContext, tok: string): Promise<number> {
  const r = await api(request, tok, null, "GET", "/api/v1/Clients?$select=id&$filter=name eq 'Acme Team A'");
  return r.value[0].id as number;
}

async function balance(request: APIRequestContext, tok: string, clientId: number): Promise<number> {
  const r = await api(request, tok, clientId, "GET", `/api/v1/CreditLogs?$apply=filter(clientId eq ${clientId})/aggregate(creditAmount with sum as balance)`);
  return Number(r.value[0]?.balance ?? 0);
}

async function signIn(page: Page, email: string) {
  await page.goto("/auth/login");
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password").fill("ideally-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"));
}

async function shot(page: Page, name: string) {
  await page.screenshot({ path: `.tmp/screens/admin-${name}.png`, fullPage: true });
}

const fmt = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 2 });

test("staff approve from the queue and see the project's status and the team's credits", async ({ page, request }) => {
  const uma = await token(request, "user@acme.test");
  const sam = await token(request, "staff@ideally.test");
  const team = await teamA(request, uma);
  const name = `Queue check ${Date.now()}`;
  const p = await api(request, uma, team, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  await api(request, uma, team, "POST", "/api/v1/TestOptions", { projectId: p.id, conceptText: "Oat bar" });
  const submitted = await api(request, uma, team, "POST", `/api/v1/Projects(${p.id})/Submit`, {});
  expect(submitted.statusCode, "a User's submission waits for approval").toBe(50);
  const before = await balance(request, sam, team);

  await signIn(page, "staff@ideally.test");
  await page.goto("/admin/approvals");
  const row = page.getByRole("row", { name: new RegExp(name) });
  await expect(row.getByText("Awaiting Approval")).toBeVisible();
  await expect(row.getByTestId(`balance-${team}`), "the queue shows the team's ledger balance").toHaveText(fmt(before));
  await shot(page, "approvals");
  await row.getByRole("button", { name: `Approve ${name}`, exact: true }).click();
  await expect(page.getByText(`${name} is now Submitted. Acme Team A's balance: `, { exact: false })).toBeVisible();
  await expect(row.getByText("Submitted", { exact: true }), "the row shows the new status").toBeVisible();
  const status = await api(request, sam, team, "GET", `/api/v1/Projects(${p.id})?$select=statusCode`);
  expect(status.statusCode, "the project moved 50 -> 100").toBe(100);
  await expect(row.getByTestId(`balance-${team}`)).toHaveText(fmt(await balance(request, sam, team)));
  const audit = page.getByRole("list", { name: "Recent status changes" });
  await expect(audit.getByText(`Project ${p.id}`).first(), "the approval is an audit row on the page").toBeVisible();
});

test("staff add a credit adjustment and the balance moves by it", async ({ page, request }) => {
  const sam = await token(request, "staff@ideally.test");
  const team = await teamA(request, sam);
  const before = await balance(request, sam, team);
  await signIn(page, "staff@ideally.test");
  await page.goto(`/admin/clients/${team}/credits`);
  await expect(page.getByTestId("credit-balance")).toHaveText(fmt(before));
  await page.getByRole("button", { name: "Add adjustment" }).click();
  const dialog = page.getByRole("dialog");
  await dialog.getByLabel("Type").selectOption("90");
  await dialog.getByLabel("Project").selectOption({ index: 1 });
  await dialog.getByLabel("Credits", { exact: true }).fill("25");
  const note = `Goodwill for a late wave ${Date.now()}`;
  await dialog.getByLabel("Note").fill(note);
  await dialog.getByRole("button", { name: "Add" }).click();
  await expect(page.getByTestId("credit-balance")).toHaveText(fmt(before + 25));
  expect(await balance(request, sam, team), "the ledger holds the adjustment").toBe(before + 25);
  await expect(page.getByRole("table", { name: "Credit ledger" }).getByText(note)).toBeVisible();
  await expect(page.getByRole("list", { name: "Credit changes" }).getByText("by staff@ideally.test").first(), "audited with who").toBeVisible();
  await shot(page, "credits");
});

test("a client flag switched on by staff reaches that client's user only", async ({ page, browser, request }) => {
  const uma = await token(request, "user@acme.test");
  const gil = await token(request, "admin@globex.test");
  const team = await teamA(request, uma);
  const resolved = async (tok: string, clientId: number) =>
    ((await api(request, tok, clientId, "GET", "/api/v1/FeatureFlags/Resolved")).value as { ff: string; isEnabled: boolean }[]).find((f) => f.ff === "MarketReach")!.isEnabled;
  // The e2e database outlives a run: start from no client setting.
  const sam = await token(request, "staff@ideally.test");
  const rows = await api(request, sam, team, "GET", `/api/v1/ClientFeatures?$filter=clientId eq ${team} and featureFlag/ff eq 'MarketReach'`);
  for (const r of rows.value as { id: number }[]) {
    const del = await request.delete(`/api/v1/ClientFeatures(${r.id})`, { headers: { authorization: `Bearer ${sam}`, clientId: String(team) } });
    expect(del.status(), "the old client setting is removed").toBe(204);
  }
  expect(await resolved(uma, team), "MarketReach starts off").toBe(false);

  await signIn(page, "staff@ideally.test");
  await page.goto("/admin/features");
  await page.getByLabel("Client", { exact: true }).selectOption({ label: "Acme Team A (Team)" });
  await page.getByLabel("MarketReach for this client").selectOption("on");
  await expect(page.getByText("MarketReach: on")).toBeVisible();
  await expect(page.getByRole("listitem").filter({ hasText: "MarketReach" }).getByText("Set for this client")).toBeVisible();
  await shot(page, "features");

  expect(await resolved(uma, team), "the team's user now has MarketReach").toBe(true);
  const globex = (await api(request, gil, null, "GET", "/api/v1/Clients?$select=id&$filter=name eq 'Globex'")).value[0].id as number;
  expect(await resolved(gil, globex), "another client's user does not").toBe(false);
  // The user's signed-in app resolves the same flags for the client in the URL.
  const ctx = await browser.newContext();
  const up = await ctx.newPage();
  await signIn(up, "user@acme.test");
  const flags = await up.evaluate(async (clientId) => {
    const r = await fetch("/api/v1/FeatureFlags/Resolved", { headers: { authorization: `Bearer ${localStorage.getItem("token")}`, clientId: String(clientId) } });
    return ((await r.json()) as { value: { ff: string; isEnabled: boolean }[] }).value;
  }, team);
  expect(flags.find((f) => f.ff === "MarketReach")?.isEnabled, "in the user's browser session").toBe(true);
  await ctx.close();
});

test("staff publish a prompt version", async ({ page, request }) => {
  const sam = await token(request, "staff@ideally.test");
  const prompt = await api(request, sam, null, "POST", "/api/v1/Prompts", { name: `Full test summary ${Date.now()}`, promptType: (await api(request, sam, null, "GET", "/api/v1/Prompts/PlaybookPluginOptions")).promptTypes[0] });
  const v = await api(request, sam, null, "POST", "/api/v1/PromptVersions", { promptId: prompt.id, template: "Summarise {{projectName}}." });
  await signIn(page, "staff@ideally.test");
  await page.goto(`/admin/prompts/${prompt.id}`);
  await expect(page.getByRole("table", { name: "Versions" }).getByText("Draft")).toBeVisible();
  await page.getByRole("link", { name: "Edit version 1" }).click();
  await expect(page).toHaveURL(new RegExp(`/admin/edit-prompt/${v.id}$`));
  await page.getByRole("button", { name: "Publish" }).click();
  await expect(page.getByText("Version published")).toBeVisible();
  await expect(page.getByRole("button", { name: "Published" })).toBeDisabled();
  const after = await api(request, sam, null, "GET", `/api/v1/Prompts(${prompt.id})?$select=publishedVersionId`);
  expect(after.publishedVersionId, "the prompt now points at the version").toBe(v.id);
  await expect(page.getByRole("list", { name: "Prompt events" }).getByText("Published")).toBeVisible();
  await shot(page, "edit-prompt");
});

test("staff run a command and watch its progress to the end", async ({ page }) => {
  await signIn(page, "staff@ideally.test");
  await page.goto("/admin/commands");
  await page.getByRole("button", { name: "Run Test next schedule" }).click();
  const bar = page.getByRole("progressbar", { name: "TestNextSchedule progress" });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute("aria-valuenow", "100", { timeout: 20_000 });
  await expect(page.getByText("Done", { exact: true })).toBeVisible();
  const runs = page.getByRole("list", { name: "Command runs" });
  await expect(runs.getByText("CommandCompleted").first(), "the completion is audited").toBeVisible();
  await shot(page, "commands");
});

test("every admin page passes axe at desktop and phone widths", async ({ page }) => {
  await signIn(page, "staff@ideally.test");
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 860 });
    for (const path of ADMIN_PATHS) {
      await page.goto(`/admin/${path}`);
      await expect(page.getByRole("navigation", { name: "Admin" })).toBeVisible();
      await page.waitForLoadState("networkidle");
      await expect(page.getByRole("status", { name: /Loading/ })).toHaveCount(0);
      const { violations } = await new AxeBuilder({ page }).analyze();
      const bad = violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
      expect(bad, `/admin/${path} at ${width}px`).toEqual([]);
      if (width === 390) await shot(page, `phone-${path.replace(/\W+/g, "-")}`);
    }
  }
});

test("a non-staff user is sent from every /admin path to /", async ({ page }) => {
  await signIn(page, "admin@acme.test");
  for (const path of [...ADMIN_PATHS, "", "unknown"]) {
    await page.goto(`/admin/${path}`);
    await page.waitForURL((u) => !u.pathname.startsWith("/admin"), { timeout: 10_000 });
    expect(new URL(page.url()).pathname, `/admin/${path}`).not.toMatch(/^\/admin/);
  }
  await page.goto("/3/create-group");
  await page.waitForURL((u) => !u.pathname.endsWith("/create-group"));
});
