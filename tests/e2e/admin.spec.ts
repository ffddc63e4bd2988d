import { expect, test, type APIRequestContext, type Locator, type Page } from "@playwright/test";
import { expectAxeClean, SCREENS, liveRunsOf } from "./helpers";
import { readFileSync } from "node:fs";

// The staff admin area in Chromium (issue #10's Done-when): as staff, approve a project from the
// queue and see its status and the team's credits, add a credit adjustment, switch a flag on for
// one client and see it reach that client's user, publish a prompt version, run a command and watch
// its progress; every admin page passes axe (no serious or critical violations); a non-staff user
// is sent from every /admin path to /; switched off, the gated market-reach route sends the user
// away; staff ask the AI and open the debug view. Screenshots go to .tmp/screens to be looked at.

const ADMIN_PATHS = [
  "users",
  "approvals",
  "clients",
  "clients/3/credits",
  "projects",
  "project-groups",
  "project-groups/1",
  "email-summaries",
  "prompts",
  "prompts/1",
  "edit-prompt/1",
  "surveys",
  "features",
  "project-summaries",
  "ai-conversations",
  "ai-conversations?mine=1",
  "ai-conversations/1",
  "ai-conversations/1?view=debug",
  "notifications",
  "translations",
  "commands",
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
  if (SCREENS) await page.screenshot({ path: `.tmp/screens/admin-${name}.png`, fullPage: true });
}

/** The control is within a screen `width` px wide and not cut off by a scrolling or clipping box around it. */
async function expectOnScreen(b: Locator, width: number) {
  await expect(b).toBeVisible();
  const box = (await b.boundingBox())!;
  expect(box.x + box.width, `${await b.getAttribute("aria-label")} within the ${width} px screen`).toBeLessThanOrEqual(width);
  const hidden = await b.evaluate((el) => {
    const r = el.getBoundingClientRect();
    for (let p = el.parentElement; p; p = p.parentElement) {
      const s = getComputedStyle(p);
      if (s.overflowX !== "visible") {
        const pr = p.getBoundingClientRect();
        if (r.right > pr.right + 1 || r.left < pr.left - 1) return true;
      }
    }
    return false;
  });
  expect(hidden, `${await b.getAttribute("aria-label")} not cut off by a scrolling or clipping box`).toBe(false);
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
  const supplierName = `Queue supplier ${Date.now()}`;
  const sup = await api(request, sam, null, "POST", "/api/v1/SampleSuppliers", {
    name: supplierName,
    completeUrl: "https://sup.example/end?st=c&rid={rid}",
    screenOutUrl: "https://sup.example/end?st=s&rid={rid}",
    overQuotaUrl: "https://sup.example/end?st=q&rid={rid}",
    qualityTerminateUrl: "https://sup.example/end?st=t&rid={rid}",
  });

  await signIn(page, "staff@ideally.test");
  await page.goto("/admin/approvals");
  const row = page.getByRole("row", { name: new RegExp(name) });
  await expect(row.getByText("Awaiting Approval")).toBeVisible();
  // The market's sample, chosen before approval (record 0145): written on the wave's schedule.
  const sample = row.getByRole("combobox", { name: `Sample of ${name} in New Zealand` });
  await expect(sample).toHaveValue("");
  await sample.selectOption({ label: supplierName });
  await expect(page.getByText(`${name} in New Zealand will be fielded by ${supplierName}.`)).toBeVisible();
  const waves = await api(request, sam, team, "GET", `/api/v1/ProjectSchedules?$filter=projectId eq ${p.id}&$select=sampleSupplierId`);
  expect(
    waves.value.map((w: { sampleSupplierId: number | null }) => w.sampleSupplierId),
    "the wave's schedule names the supplier",
  ).toEqual([sup.id]);
  await expect(sample, "the queue reads it back").toHaveValue(String(sup.id));
  await expectAxeClean(page, "the approval queue with a market's sample");
  await expect(row.getByTestId(`balance-${team}`), "the queue shows the team's ledger balance").toHaveText(fmt(before));
  // At 1440 px (issue 22: the table clipped its Decline button there): every action fits the screen.
  await page.setViewportSize({ width: 1440, height: 900 });
  for (const action of ["Approve", "Decline"]) await expectOnScreen(row.getByRole("button", { name: `${action} ${name}`, exact: true }), 1440);
  await shot(page, "approvals-1440");
  await page.setViewportSize({ width: 1280, height: 720 });
  await shot(page, "approvals");
  await row.getByRole("button", { name: `Approve ${name}`, exact: true }).click();
  // Approving charges nothing (the charge was at Submit), so the toast names no balance; the row's balance stays.
  await expect(page.getByText(`${name} is now Submitted.`, { exact: false })).toBeVisible();
  await expect(row.getByText("Submitted", { exact: true }), "the row shows the new status").toBeVisible();
  const status = await api(request, sam, team, "GET", `/api/v1/Projects(${p.id})?$select=statusCode`);
  expect(status.statusCode, "the project moved 50 -> 100").toBe(100);
  await expect(row.getByTestId(`balance-${team}`)).toHaveText(fmt(await balance(request, sam, team)));
  const audit = page.getByRole("list", { name: "Recent status changes" });
  await expect(audit.getByText(`Project ${p.id}`).first(), "the approval is an audit row on the page").toBeVisible();
});

test("staff see a run's field period on the surveys page, move its field end and close it", async ({ page, request }) => {
  test.setTimeout(120_000);
  const uma = await token(request, "user@acme.test");
  const sam = await token(request, "staff@ideally.test");
  const team = await teamA(request, uma);
  const p = await api(request, uma, team, "POST", "/api/v1/Projects", { projectName: `Field period ${Date.now()}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: 5000 });
  await api(request, uma, team, "POST", "/api/v1/TestOptions", { projectId: p.id, conceptText: "Oat bar" });
  await api(request, sam, team, "POST", `/api/v1/Projects(${p.id})/SuperApprove`, {});
  const [runId] = await liveRunsOf(request, sam, team, p.id);
  const launched = await api(request, sam, team, "GET", `/api/v1/SurveyRuns(${runId})?$select=fieldEndAt`);
  expect(launched.fieldEndAt, "a field end at launch").toBeTruthy();

  await signIn(page, "staff@ideally.test");
  await page.goto(`/admin/surveys?project=${p.id}`);
  const row = page.getByRole("row").filter({ hasText: `#${runId}` });
  await expect(row.getByTestId("field-period")).toContainText("Closes at");
  // At 1280 px every button of the row is on the screen (session 18 saw the last column cut there).
  for (const b of await row.getByRole("button").all()) await expectOnScreen(b, 1280);
  await row.getByRole("button", { name: `Move the field end of run ${runId}` }).click();
  const dialog = page.getByRole("dialog", { name: `Field end of run ${runId}` });
  const later = new Date(Date.now() + 30 * 86_400_000);
  const local = new Date(later.getTime() - later.getTimezoneOffset() * 60_000).toISOString().slice(0, 16);
  await dialog.getByLabel("Closes at").fill(local);
  await shot(page, "surveys-field-end");
  await dialog.getByRole("button", { name: "Save" }).click();
  await expect(dialog).toHaveCount(0);
  const moved = await api(request, sam, team, "GET", `/api/v1/SurveyRuns(${runId})?$select=fieldEndAt`);
  expect(Math.abs(new Date(moved.fieldEndAt).getTime() - new Date(local).getTime()), "the field end moved to the time chosen").toBeLessThan(60_000);
  // Respondents before the close: the simulated panel's include some it removes for quality.
  await api(request, sam, team, "POST", `/api/v1/SurveyRuns(${runId})/RunSimulatedData`, { completes: 80 });
  await row.getByRole("button", { name: `Force close run ${runId}` }).click();
  await expect(row.getByTestId("field-period")).toContainText("Closed by staff");
  await shot(page, "surveys-closed");
  // Processing refunds the shortfall; the fielding tick would do it within a minute, landing in a
  // later test's ledger (a CI run saw the next test's balance move by this refund). Done here, and
  // the refund checked, the test leaves nothing pending.
  const processed = await request.fetch(`/api/v1/SurveyRuns(${runId})/StartSurveyProcessing`, { method: "POST", headers: { authorization: `Bearer ${sam}`, clientId: String(team) } });
  expect(processed.status(), await processed.text()).toBeLessThan(300);
  await expect
    .poll(async () => (await api(request, sam, team, "GET", `/api/v1/CreditLogs?$filter=projectId eq ${p.id} and creditAmount gt 0`)).value.length, {
      message: "the shortfall refunded",
      timeout: 30_000,
    })
    .toBe(1);
  // Issue 37: the page's "Completes" are the run's completes, as the researcher's status page counts
  // them (DecipherCompletesCounts), not every session (screen-outs, over-quota and removed ones too).
  const counts = await api(request, sam, team, "GET", `/api/v1/Projects(${p.id})/DecipherCompletesCounts`);
  const mine = (counts.value as { surveyRunId: number; complete: number }[]).find((r) => r.surveyRunId === runId)!;
  const sessions = await api(request, sam, team, "GET", `/api/v1/SurveyRuns(${runId})?$select=id&$expand=surveySessions/$count`);
  await page.reload();
  await expect(row.getByRole("cell").nth(5), "completes over the quota, as the status page counts them").toHaveText(`${mine.complete} / 5000`);
  expect(sessions["surveySessions@odata.count"], "the run has sessions other than completes (the panel's poor respondents are removed), so the two counts differ").toBeGreaterThan(mine.complete);
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
  // The gated route: a demo project with a reach question shows Market reach to the team's user.
  const reach = (await api(request, uma, team, "GET", "/api/v1/Projects?$select=id&$filter=projectName eq 'Energy drink flavour line-up'")).value[0].id as number;
  await up.goto(`/${team}/results/${reach}`);
  await up.getByRole("link", { name: "Market reach" }).click();
  await expect(up).toHaveURL(new RegExp(`/${team}/results/${reach}/market-reach`));
  await expect(up.getByRole("heading", { name: "Market reach" }).first()).toBeVisible();
  // Switched off again by staff: no link, and the route sends the user away.
  await page.getByLabel("MarketReach for this client").selectOption("off");
  await expect(page.getByText("MarketReach: off")).toBeVisible();
  expect(await resolved(uma, team), "the team's user lost MarketReach").toBe(false);
  await up.goto(`/${team}/results/${reach}/market-reach`);
  await expect(up).not.toHaveURL(/market-reach/);
  await up.goto(`/${team}/results/${reach}/summary`);
  await expect(up.getByRole("link", { name: "Summary" }).first()).toBeVisible();
  await expect(up.getByRole("link", { name: "Market reach" })).toHaveCount(0);
  await ctx.close();
});

test("staff publish a prompt version", async ({ page, request }) => {
  const sam = await token(request, "staff@ideally.test");
  const prompt = await api(request, sam, null, "POST", "/api/v1/Prompts", {
    name: `Full test summary ${Date.now()}`,
    promptType: (await api(request, sam, null, "GET", "/api/v1/Prompts/PlaybookPluginOptions")).promptTypes[0],
  });
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
  const progress: number[] = [];
  page.on("websocket", (ws) =>
    ws.on("framereceived", (f) => {
      const m = JSON.parse(String(f.payload)) as { channel?: string; event?: string; data?: { pct?: number } };
      if (m.channel?.startsWith("job-") && m.event === "Progress") progress.push(m.data?.pct ?? -1);
    }),
  );
  await signIn(page, "staff@ideally.test");
  await page.goto("/admin/commands");
  await page.locator("#cmd-ReGenerateThemes").fill("1");
  await page.getByRole("button", { name: "Run Regenerate themes" }).click();
  const bar = page.getByRole("progressbar", { name: "ReGenerateThemes progress" });
  await expect(bar).toBeVisible();
  await expect(bar).toHaveAttribute("aria-valuenow", "100", { timeout: 30_000 });
  await expect(page.getByText("Done", { exact: true })).toBeVisible();
  expect(progress.length, "Progress events arrived on the job's channel").toBeGreaterThan(0);
  const runs = page.getByRole("list", { name: "Command runs" });
  await expect(runs.getByText("CommandCompleted").first(), "the completion is audited").toBeVisible();
  // The open answers' quality check, with its counts when done.
  await page.locator("#cmd-ReGenerateTextResponsesQa").fill("1");
  await page.getByRole("button", { name: "Run Recheck open answers" }).click();
  const qa = page.getByRole("progressbar", { name: "ReGenerateTextResponsesQa progress" });
  await expect(qa).toHaveAttribute("aria-valuenow", "100", { timeout: 30_000 });
  await expect(page.locator("pre").filter({ hasText: '"byStatus"' }), "the job's result").toBeVisible();
  await shot(page, "commands");
});

test("staff ask the AI in a conversation, watch the answer stream and open its debug view", async ({ page, request }) => {
  test.setTimeout(120_000); // two answers, each a real exchange with tool calls
  const sam = await token(request, "staff@ideally.test");
  const project = (await api(request, sam, null, "GET", "/api/v1/Projects?$select=id&$filter=projectName eq 'Plant-based snacks idea screen'")).value[0].id as number;
  const deltas: string[] = [];
  page.on("websocket", (ws) =>
    ws.on("framereceived", (f) => {
      const m = JSON.parse(String(f.payload)) as { event?: string; data?: { aiConversationId?: number; delta?: string } };
      if (m.event === "AiMessageDelta" && m.data?.aiConversationId) deltas.push(m.data.delta ?? "");
    }),
  );
  await signIn(page, "staff@ideally.test");
  await page.goto("/admin/ai-conversations");
  await page.getByRole("button", { name: "My conversations" }).click();
  await page.getByLabel("Question").fill("Which idea do women under 35 like best?");
  await page.getByLabel("Project id (optional)").fill(String(project));
  await page.getByRole("button", { name: "Ask", exact: true }).click();
  await expect(page).toHaveURL(/\/admin\/ai-conversations\/\d+$/, { timeout: 30_000 });
  const id = Number(new URL(page.url()).pathname.split("/").pop());
  const answer = page.getByRole("listitem").filter({ hasText: "Answer ·" });
  await expect(answer).toContainText("[F1]");
  expect(deltas.join(""), "the answer streamed on the staff member's channel").toContain("[F1]");
  await expect(page.getByText("Passed", { exact: true }), "the automatic grounding check").toBeVisible();
  // The answer's figures and the conversation download as files.
  const csv = page.waitForEvent("download");
  await answer.getByRole("button", { name: /^Download figures-\d+\.csv$/ }).click();
  expect(readFileSync(await (await csv).path(), "utf8"), "the figures CSV").toContain("F1");
  const yml = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download YML" }).click();
  expect((await yml).suggestedFilename()).toBe(`conversation-${id}.yml`);
  // A second question in the same conversation.
  await page.getByLabel("Add a question").fill("And among men?");
  await page.getByRole("button", { name: "Ask and answer" }).click();
  await expect(page.getByRole("listitem").filter({ hasText: "Answer ·" })).toHaveCount(2, { timeout: 30_000 });
  // The debug view: rounds with prompts, the tool calls with arguments and results, tokens, figures.
  await page.getByRole("button", { name: "Debug view" }).click();
  await expect(page).toHaveURL(/view=debug/);
  const first = page.getByRole("region", { name: "Answer 1", exact: true });
  await expect(first.getByText(/^Round 1: completion · [\d,]+ tokens/)).toBeVisible();
  await expect(first.getByText(/^Tool call: qual_results/)).toBeVisible();
  await first.getByText("Result", { exact: true }).first().click();
  await expect(first.getByText(/^[[{]/).first(), "the tool's result, opened").toBeVisible();
  await expect(first.getByRole("table", { name: "Figures cited" })).toContainText("F1");
  await expect(page.getByRole("region", { name: "Answer 2", exact: true })).toBeVisible();
  await expect(page.getByText(/^Conversation total: [\d,]+ tokens/)).toBeVisible();
  await shot(page, "ai-conversation-debug");
});

test("every admin page passes axe at desktop and phone widths", async ({ page }) => {
  test.setTimeout(300_000); // 19 pages at two widths, each analysed
  await signIn(page, "staff@ideally.test");
  for (const width of [1280, 390]) {
    await page.setViewportSize({ width, height: 860 });
    for (const path of ADMIN_PATHS) {
      await page.goto(`/admin/${path}`);
      await expect(page.getByRole("navigation", { name: "Admin" })).toBeVisible();
      await page.waitForLoadState("networkidle");
      await expect(page.getByRole("status", { name: /Loading/ })).toHaveCount(0);
      await expectAxeClean(page, `/admin/${path} at ${width}px`);
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
