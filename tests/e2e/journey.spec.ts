import { expect, test, type APIRequestContext, type Page } from "@playwright/test";
import { api, clientIdByName, signIn, token, expectAxeClean, SCREENS } from "./helpers";
import { designText } from "../../web/src/features/design";

// The researcher's path without dead ends (issue 22), in Chromium against the real server: the
// client switcher lands on the chosen client's tier page; every notification type opens its
// project where its status is now (SPEC 2's project links); a test with no concepts cannot be
// submitted and nothing is charged; a Viewer is offered no action their role cannot take; a
// project shared from another client opens read-only, named with its owner; a bad email in Share
// is shown at its field, in words. axe finds no serious violation on the pages this adds, at
// desktop and phone widths. The editor's completes per market change until Submit, two markets'
// targets are grouped under each market's name, and a draft goes to the trash and comes back; the
// review page names the design in the editor's words. Screenshots: .tmp/screens/journey-*.png.

let teamA = 0;
let teamB = 0;
let enterprise = 0;
let globex = 0;
test.beforeAll(async ({ request }) => {
  const staff = await token(request, "staff@ideally.test");
  teamA = await clientIdByName(request, staff, "Acme Team A");
  teamB = await clientIdByName(request, staff, "Acme Team B");
  enterprise = await clientIdByName(request, staff, "Acme");
  globex = await clientIdByName(request, staff, "Globex");
});

async function shot(page: Page, name: string) {
  if (SCREENS) await page.screenshot({ path: `.tmp/screens/journey-${name}.png`, fullPage: true });
}

const noSeriousViolations = (page: Page, where: string) => expectAxeClean(page, `axe on ${where}`, { include: "main" });

/** A completed demo project of Acme Team A (results ready). */
async function completedProject(request: APIRequestContext, tok: string): Promise<{ id: number; projectName: string }> {
  const r = await api(request, tok, teamA, "GET", "/api/v1/Projects?$select=id,projectName&$filter=statusCode ge 800 and projectTypeId eq 1&$orderby=id&$top=1");
  expect(r.value.length, "a completed Idea project in the demo data").toBe(1);
  return r.value[0];
}

/** A Draft Idea project of Acme Team A with `concepts` test options, made through the API. */
async function draft(request: APIRequestContext, tok: string, name: string, concepts: number): Promise<{ id: number; projectName: string }> {
  const p = await api(request, tok, teamA, "POST", "/api/v1/Projects", { projectName: `${name} ${Date.now()}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  for (let i = 0; i < concepts; i++) await api(request, tok, teamA, "POST", "/api/v1/TestOptions", { projectId: p.id, conceptText: `Concept ${i + 1}` });
  return p;
}

async function openNotification(page: Page, title: string | RegExp) {
  await page.getByRole("button", { name: /^Notifications/ }).click();
  await page.getByRole("menuitem", { name: title }).first().click();
}

test("an enterprise Admin switches to a team with the switcher, and from one team to another", async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  await signIn(page, "admin@acme.test");
  await page.goto(`/${enterprise}/manage-enterprise/overview`);
  await expect(page.getByRole("button", { name: /Switch client/ })).toContainText("Acme");
  await page.getByRole("button", { name: /Switch client/ }).click();
  await page.getByRole("menuitem", { name: /Acme Team A/ }).click();
  await expect(page, "the team's tier landing: its projects").toHaveURL(new RegExp(`/${teamA}/home$`));
  await expect(page.getByRole("heading", { level: 1, name: "Projects" })).toBeVisible();
  await expect(page.getByRole("button", { name: /Switch client/ })).toContainText("Acme Team A");
  await shot(page, "switched-to-team");
  await page.getByRole("button", { name: /Switch client/ }).click();
  await page.getByRole("menuitem", { name: /Acme Team B/ }).click();
  await expect(page).toHaveURL(new RegExp(`/${teamB}/home$`));
  await expect(page.getByRole("button", { name: /Switch client/ })).toContainText("Acme Team B");
  await page.getByRole("button", { name: /Switch client/ }).click();
  await page.getByRole("menuitem", { name: /^Acme\s*Enterprise/ }).click();
  await expect(page, "back to the enterprise: its management area").toHaveURL(new RegExp(`/${enterprise}/manage-enterprise`));
});

test("every notification type opens its target, by the project's status now", async ({ page, request }) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const ada = await token(request, "admin@acme.test");
  const sam = await token(request, "staff@ideally.test");
  const me = (id: string) => api(request, id, teamA, "GET", "/api/v1/Users/Me");
  const userId = (await me(uma)).id as number;
  const done = await completedProject(request, uma);

  // Real flows: a User submits (the team Admin is asked), the Admin approves one and declines another.
  const approved = await draft(request, uma, "Approve me", 1);
  const declined = await draft(request, uma, "Decline me", 1);
  for (const p of [approved, declined]) expect((await api(request, uma, teamA, "POST", `/api/v1/Projects(${p.id})/Submit`, {})).statusCode).toBe(50);

  // SurveySubmittedForApproval -> the team Admin's review page.
  await signIn(page, "admin@acme.test");
  await page.goto(`/${teamA}/home`);
  await expect(page.getByRole("region", { name: /Waiting for your approval/ }), "the Admin's approvals inbox").toContainText(approved.projectName);
  await shot(page, "approvals-inbox");
  await noSeriousViolations(page, "home with the approvals inbox");
  await openNotification(page, /Project submitted for approval/);
  await expect(page).toHaveURL(new RegExp(`/${teamA}/projects/${declined.id}/review$`));
  await expect(page.getByRole("heading", { level: 1, name: declined.projectName })).toBeVisible();
  await api(request, ada, teamA, "POST", `/api/v1/Projects(${approved.id})/Approve`, {});
  await api(request, ada, teamA, "POST", `/api/v1/Projects(${declined.id})/Decline`, { reason: "Add a second concept." });
  // Staff then take it into review (100 -> 200): its links now lead to its status page.
  await api(request, sam, teamA, "POST", `/api/v1/Projects(${approved.id})/Approve`, {});

  // Staff send the types no quick flow raises, about projects at known statuses.
  const send = (notificationTypeId: number, title: string, projectId: number | null, url: string | null) =>
    api(request, sam, 0, "POST", "/api/v1/Notifications", { userId, notificationTypeId, title, clientId: teamA, projectId, url });
  const stamp = Date.now();
  await send(4, `Sent out ${stamp}`, approved.id, `/${teamA}/results/${approved.id}`);
  await send(5, `Ready ${stamp}`, done.id, `/${teamA}/results/${done.id}`);
  await send(6, `Reset ${stamp}`, null, null);
  await send(7, `Added ${stamp}`, null, `/${teamA}/home`);
  await send(8, `Link ready ${stamp}`, approved.id, `/${teamA}/project-surveys/${approved.id}`);

  const page2 = await page
    .context()
    .browser()!
    .newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page2, "user@acme.test");
  const cases: [string | RegExp, RegExp][] = [
    // Sent when the Admin approved it (100); it is at 200 now, so its status page (SPEC 2).
    [/Project approved/, new RegExp(`/${teamA}/project-surveys/${approved.id}$`)],
    [/Project declined/, new RegExp(`/${teamA}/projects/${declined.id}$`)],
    // The stored link said results; the project is at 200, so its status page opens (SPEC 2).
    [new RegExp(`^Sent out ${stamp}`), new RegExp(`/${teamA}/project-surveys/${approved.id}$`)],
    [new RegExp(`^Ready ${stamp}`), new RegExp(`/${teamA}/results/${done.id}/`)],
    [new RegExp(`^Reset ${stamp}`), /\/auth\/change-password$/],
    [new RegExp(`^Added ${stamp}`), new RegExp(`/${teamA}/home$`)],
    [new RegExp(`^Link ready ${stamp}`), new RegExp(`/${teamA}/project-surveys/${approved.id}$`)],
  ];
  for (const [title, url] of cases) {
    await page2.goto(`/${teamA}/home`);
    await openNotification(page2, title);
    await expect(page2, `${title} opens its target`).toHaveURL(url);
  }
  await shot(page2, "notification-declined-target");

  // The status page of a project with results links to them.
  await page2.goto(`/${teamA}/project-surveys/${done.id}`);
  await page2.getByRole("link", { name: "Open the results" }).click();
  await expect(page2).toHaveURL(new RegExp(`/${teamA}/results/${done.id}`));

  // Staff's copy of the approval request opens the admin approvals queue.
  const page3 = await page
    .context()
    .browser()!
    .newPage({ viewport: { width: 1280, height: 900 } });
  await signIn(page3, "staff@ideally.test");
  await page3.goto("/admin/users");
  await openNotification(page3, /Project submitted for approval/);
  await expect(page3).toHaveURL(/\/admin\/approvals$/);
  await page2.close();
  await page3.close();
});

test("a test with no concepts cannot be submitted and nothing is charged", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const p = await draft(request, uma, "No concepts", 0);
  await signIn(page, "user@acme.test");
  await page.goto(`/${teamA}/projects/${p.id}`);
  const check = page.getByRole("region", { name: "Before you can submit" });
  await expect(check).toContainText("Add at least one test option: respondents have nothing to rate.");
  await expect(page.getByRole("button", { name: "Submit", exact: true }), "Submit waits for a complete test").toBeDisabled();
  await shot(page, "no-concepts");
  await noSeriousViolations(page, "the editor with the pre-launch check");
  await check.getByRole("link", { name: "Fix in Test options" }).click();
  await expect(page).toHaveURL(new RegExp(`/${teamA}/projects/${p.id}/test-options$`));

  // The API refuses it too, before charging.
  const res = await request.post(`/api/v1/Projects(${p.id})/Submit`, { data: {}, headers: { authorization: `Bearer ${uma}`, clientId: String(teamA) } });
  expect(res.status(), "Submit refused").toBe(400);
  expect((await res.json()).errors).toEqual([{ path: "testOptions", message: "Add at least one test option: respondents have nothing to rate." }]);
  const logs = await api(request, uma, teamA, "GET", `/api/v1/CreditLogs?$filter=projectId eq ${p.id}&$select=id`);
  expect(logs.value, "nothing charged").toEqual([]);
  expect((await api(request, uma, teamA, "GET", `/api/v1/Projects(${p.id})?$select=statusCode`)).statusCode).toBe(0);

  // One concept later, the check passes and Submit is offered.
  await api(request, uma, teamA, "POST", "/api/v1/TestOptions", { projectId: p.id, conceptText: "Oat bar" });
  await page.goto(`/${teamA}/projects/${p.id}`);
  await expect(page.getByRole("button", { name: "Submit", exact: true })).toBeEnabled();
  await expect(check).toHaveCount(0);

  // Phone width: the check still reads (editor's 'open anyway').
  await page.setViewportSize({ width: 390, height: 844 });
  const q = await draft(request, uma, "No concepts phone", 0);
  await page.goto(`/${teamA}/projects/${q.id}?desktop=1`);
  await expect(check).toBeVisible();
  await shot(page, "no-concepts-phone");
  await noSeriousViolations(page, "the pre-launch check at phone width");
});

test("a Viewer sees no action their role cannot take", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const vic = await token(request, "viewer@acme.test");
  const done = await completedProject(request, vic);
  await signIn(page, "viewer@acme.test");
  await page.goto(`/${teamA}/results/${done.id}/summary`);
  await expect(page.getByRole("heading", { level: 1, name: done.projectName })).toBeVisible();
  await expect(page.getByRole("button", { name: "Test info" })).toBeVisible();
  for (const name of ["Rename project", "Clone"]) await expect(page.getByRole("button", { name, exact: true }), name).toHaveCount(0);
  await page.getByRole("button", { name: "Objectives" }).click();
  await expect(page.getByRole("heading", { name: "Objectives" }).first()).toBeVisible();
  await expect(page.getByRole("button", { name: "Save objective" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Delete objective" })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Filter sets" }).click();
  await expect(page.getByLabel("Filter set name")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^(Rename|Update|Delete) / })).toHaveCount(0);
  await page.keyboard.press("Escape");
  await page.getByRole("button", { name: "Scheduling" }).click();
  await expect(page.getByRole("button", { name: "Edit schedule" })).toHaveCount(0);
  await shot(page, "viewer-results");
  await page.keyboard.press("Escape");
  // Drafts are named, not links that send them home.
  await page.goto(`/${teamA}/home`);
  await expect(page.getByRole("button", { name: "New project" })).toHaveCount(0);
  await expect(page.getByRole("table", { name: "Projects" }).getByText("opens when results are ready").first()).toBeVisible();
  await shot(page, "viewer-home");
});

test("a user of another client opens a shared project read-only, with its owner named", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const done = await completedProject(request, uma);
  const d = await draft(request, uma, "Shared draft", 1);
  for (const p of [done, d]) {
    const r = await api(request, uma, teamA, "POST", `/api/v1/Projects(${p.id})/Share`, { emails: ["admin@globex.test"] });
    expect(["shared", "alreadyShared"]).toContain(r.results[0].status);
  }
  await signIn(page, "admin@globex.test");
  await page.goto(`/${globex}/home`);
  await openNotification(page, new RegExp(`${d.projectName} was shared with you`));
  await expect(page, "under the reader's own client").toHaveURL(new RegExp(`/${globex}/projects/${d.id}$`));
  const note = page.getByRole("note").filter({ hasText: "Shared with you" });
  await expect(note).toContainText("Acme Team A");
  await expect(page.getByRole("heading", { level: 1, name: d.projectName })).toBeVisible();
  for (const name of ["Submit", "Share", "Clone", "Watch", "Rename"]) await expect(page.getByRole("button", { name, exact: true }), name).toHaveCount(0);
  await expect(page.getByLabel("Project name")).toBeDisabled();
  await shot(page, "shared-draft");
  await noSeriousViolations(page, "a shared draft");
  await page.goto(`/${globex}/results/${done.id}/summary`);
  await expect(page.getByRole("note").filter({ hasText: "Shared with you" })).toContainText("Acme Team A");
  await expect(page.getByRole("button", { name: "Rename project" })).toHaveCount(0);
  await shot(page, "shared-results");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("note").filter({ hasText: "Shared with you" })).toBeVisible();
  await noSeriousViolations(page, "shared results at phone width");
});

test("a field error shows at its field, in words; sharing with a team member says so", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const p = await draft(request, uma, "Share errors", 1);
  await signIn(page, "user@acme.test");
  await page.goto(`/${teamA}/projects/${p.id}`);
  await page.getByRole("button", { name: "Share", exact: true }).click();
  const dlg = page.getByRole("dialog", { name: "Share project" });
  await dlg.getByLabel("Emails").fill("not-an-email");
  await dlg.getByRole("button", { name: "Share" }).click();
  await expect(dlg.getByRole("alert")).toHaveText("This is not an email address: not-an-email");
  await expect(dlg.getByLabel("Emails")).toHaveAttribute("aria-invalid", "true");
  await expect(page.getByText("Invalid json")).toHaveCount(0);
  await shot(page, "share-field-error");
  await noSeriousViolations(page, "the share dialog with a field error");
  // One the page lets through and the API refuses (no top-level domain): the API's field error
  // ("emails.0") is shown at the field, in words, not as a toast with the raw path.
  const refused = page.waitForResponse((r) => r.url().includes(`/Projects(${p.id})/Share`));
  await dlg.getByLabel("Emails").fill("someone@example.c");
  await dlg.getByRole("button", { name: "Share" }).click();
  expect((await refused).status(), "the API refused it").toBe(400);
  await expect(dlg.getByRole("alert")).toHaveText("Invalid email address");
  await expect(page.getByText("emails.0")).toHaveCount(0);
  await expect(page.getByText("An error has occured")).toHaveCount(0);
  await shot(page, "share-api-field-error");
  await dlg.getByLabel("Emails").fill("viewer@acme.test");
  await dlg.getByRole("button", { name: "Share" }).click();
  await expect(page.getByText("Nobody new to share with", { exact: true })).toBeVisible();
  await expect(page.getByText(/1 person already in the team/).first()).toBeVisible();
  await expect(page.getByText(/shared with 0 people/)).toHaveCount(0);
  await shot(page, "share-member");
  await page.getByRole("button", { name: "Done" }).click();

  // A question's repeated answer option: the API's error at that option, in words.
  await page.getByRole("navigation", { name: "Project set-up" }).getByRole("link", { name: "Questions" }).click();
  await page.getByRole("button", { name: "Add question" }).click();
  const q = page.getByRole("dialog", { name: "Add question" });
  await q.getByLabel("Question", { exact: true }).fill("Where do you usually buy snack bars?");
  await q.getByRole("textbox", { name: "Option 1" }).fill("Supermarket");
  await q.getByRole("textbox", { name: "Option 2" }).fill("Supermarket");
  await q.getByRole("button", { name: "Add question" }).click();
  await expect(q.getByRole("textbox", { name: "Option 2" })).toHaveAttribute("aria-invalid", "true");
  await expect(q.getByRole("alert")).toContainText("appears twice");
  await expect(q.getByRole("alert")).not.toContainText("questionOptions");
  await expect(page.getByText("An error has occured")).toHaveCount(0);
  await shot(page, "question-option-error");
  await noSeriousViolations(page, "the question dialog with an option's error");
});

test("the respondent preview walks the survey page by page and stores nothing", async ({ page, request }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const p = await draft(request, uma, "Preview", 2);
  await signIn(page, "user@acme.test");
  await page.goto(`/${teamA}/projects/${p.id}`);
  await page.getByRole("link", { name: "Preview as a respondent" }).click();
  await expect(page).toHaveURL(new RegExp(`/${teamA}/projects/${p.id}/preview$`));
  await expect(page.getByRole("heading", { level: 1, name: "Respondent preview" })).toBeVisible();

  // A page left unanswered is refused at its questions, as a respondent's would be.
  await expect(page.getByText(/^Page 1 of \d+$/)).toBeVisible();
  await page.getByRole("button", { name: "Next" }).click();
  await expect(page.getByRole("alert").first()).toBeVisible();
  await shot(page, "preview-errors");

  const seen: string[] = [];
  for (let i = 0; i < 40; i++) {
    if (await page.getByRole("heading", { name: "End of the survey" }).isVisible()) break;
    const counter = (await page.getByText(/^Page \d+ of \d+$/).textContent()) ?? "";
    const concept = page.locator("figcaption p").first();
    if (await concept.count()) seen.push((await concept.textContent()) ?? "");
    const groups = page.locator("main form fieldset");
    let price = 1;
    for (let j = 0; j < (await groups.count()); j++) {
      const g = groups.nth(j);
      if (await g.getByLabel("Somewhat agree", { exact: true }).count()) await g.getByLabel("Somewhat agree", { exact: true }).check();
      else if (await g.locator("input[type=radio]").count()) await g.locator("input[type=radio]").first().check();
      else if (await g.locator("input[type=checkbox]").count()) await g.locator("input[type=checkbox]").first().check();
      else if (await g.locator("textarea").count()) await g.locator("textarea").fill("Tasty and filling");
      else if (await g.locator("input[type=number]").count()) await g.locator("input[type=number]").fill(String(price++));
      else if (await g.locator("select").count()) await g.locator("select").selectOption({ index: 1 });
    }
    if (i === 1) await shot(page, "preview-page");
    await page.getByRole("button", { name: "Next" }).click();
    await expect(page.getByText(counter, { exact: true }), `moved on from ${counter}`).toHaveCount(0);
  }
  await expect(page.getByRole("heading", { name: "End of the survey" })).toBeVisible();
  await expect(page.getByRole("status").filter({ hasText: "Thank you! Your answers have been recorded." })).toBeVisible();
  expect(seen, "each concept shown").toEqual(["Concept 1", "Concept 2"]);
  await shot(page, "preview-end");
  await noSeriousViolations(page, "the preview's end");
  const sessions = await api(request, uma, teamA, "GET", `/api/v1/ProjectSurveySessions?$filter=projectId eq ${p.id}&$select=id`);
  expect(sessions.value, "nothing stored").toEqual([]);
  // At phone width the preview is a respondent's page too.
  await page.setViewportSize({ width: 390, height: 844 });
  await page.getByRole("button", { name: "Start again" }).click();
  await expect(page.getByText(/^Page 1 of \d+$/)).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/projects/${p.id}/preview$`));
  await shot(page, "preview-phone");
  await noSeriousViolations(page, "the preview at phone width");
});

test("the review page shows the concepts, the questions' wording, the targets and the design", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const p = await draft(request, uma, "Review", 2);
  expect((await api(request, uma, teamA, "POST", `/api/v1/Projects(${p.id})/Submit`, {})).statusCode).toBe(50);
  await signIn(page, "admin@acme.test");
  await page.goto(`/${teamA}/projects/${p.id}/review`);
  await expect(page.getByRole("heading", { name: "Awaiting approval" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: "Concept 1" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 3, name: "Concept 2" })).toBeVisible();
  // The design in the editor's words (the test options tab's designText), splitCellQuota false.
  await expect(page.getByTestId("design")).toHaveText(designText(false));
  const framework = page.getByRole("region", { name: "Framework" });
  await expect(framework.locator("li").first()).not.toBeEmpty();
  await expect(page.getByText("No targets: everyone in the markets qualifies.")).toBeVisible();
  await shot(page, "review");
  await noSeriousViolations(page, "the review page");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("heading", { name: "Awaiting approval" })).toBeVisible();
  await noSeriousViolations(page, "the review page at phone width");
});

test("the review page names the design as the editor does: one concept sequential is still sequential monadic; split cells is monadic", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const seq = await draft(request, uma, "Review one", 1);
  const split = await api(request, uma, teamA, "POST", "/api/v1/Projects", { projectName: `Review split ${Date.now()}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1], splitCellQuota: true });
  for (const c of ["Cell A", "Cell B"]) await api(request, uma, teamA, "POST", "/api/v1/TestOptions", { projectId: split.id, conceptText: c });
  for (const p of [seq, split]) expect((await api(request, uma, teamA, "POST", `/api/v1/Projects(${p.id})/Submit`, {})).statusCode).toBe(50);
  await signIn(page, "admin@acme.test");
  await page.goto(`/${teamA}/projects/${seq.id}/review`);
  await expect(page.getByTestId("design")).toHaveText(designText(false));
  await expect(page.getByTestId("design")).toContainText("Sequential monadic");
  await page.goto(`/${teamA}/projects/${split.id}/review`);
  await expect(page.getByTestId("design")).toHaveText(designText(true));
  await expect(page.getByTestId("design")).toContainText("Monadic (split cells)");
});

test("the editor: completes per market change until submitted, targets grouped by market, the feasibility explained, a draft deleted and restored", async ({ page, request }) => {
  await page.setViewportSize({ width: 1280, height: 900 });
  const uma = await token(request, "user@acme.test");
  const p = await api(request, uma, teamA, "POST", "/api/v1/Projects", { projectName: `Two markets ${Date.now()}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1, 2], sampleSize: 200 });
  await api(request, uma, teamA, "POST", "/api/v1/TestOptions", { projectId: p.id, conceptText: "Concept 1" });
  await signIn(page, "user@acme.test");
  await page.goto(`/${teamA}/projects/${p.id}/markets`);

  // Completes per market: changed after creation, saved for every market.
  await page.getByLabel("Completes per market").fill("350");
  await page.getByRole("button", { name: "Save completes" }).click();
  await expect
    .poll(async () => (await api(request, uma, teamA, "GET", `/api/v1/ProjectsRegions?$filter=projectId eq ${p.id}&$select=sampleSize`)).value.map((r: { sampleSize: number }) => r.sampleSize))
    .toEqual([350, 350]);
  // The feasibility in the API's words (New Zealand's panel reaches 6,000: docs/decisions.md "Feasibility").
  const feasibility = page.getByTestId("feasibility");
  await expect(feasibility).toContainText("New Zealand: 350 completes: the panel reaches about 6,000 people there in a field period");

  // Targets of two markets: each market's answers under its name, labelled for screen readers too.
  const region = page.getByRole("group", { name: "Region", exact: true });
  await expect(region.getByText("New Zealand", { exact: true })).toBeVisible();
  await expect(region.getByText("Australia", { exact: true })).toBeVisible();
  await expect(region.getByRole("checkbox", { name: "Auckland (New Zealand)" })).toBeVisible();
  expect(await region.getByRole("checkbox", { name: /\(Australia\)$/ }).count(), "Australia's regions labelled with their market").toBeGreaterThan(3);
  // A target without a quota says who qualifies, in the feasibility's words.
  await page.getByRole("group", { name: "Gender", exact: true }).getByRole("checkbox", { name: "Female" }).check();
  await expect(feasibility).toContainText("Gender in New Zealand: only people answering Female qualify (no quotas).");
  await shot(page, "markets-two");
  await noSeriousViolations(page, "the markets tab of two markets");

  // Delete the draft: confirmed, to the trash, and restored from the toast.
  await page.getByRole("button", { name: "Delete draft" }).click();
  await page.getByRole("dialog", { name: "Delete draft" }).getByRole("button", { name: "Delete draft" }).click();
  await expect(page).toHaveURL(new RegExp(`/${teamA}/home$`));
  const toastBox = page.getByRole("status").filter({ hasText: "Draft deleted" });
  await expect(toastBox).toContainText(`${p.projectName} is in the trash.`);
  const trashed = await api(request, uma, teamA, "GET", "/api/v1/Projects/GetTrashed?$top=1000");
  expect(
    trashed.value.map((x: { id: number }) => x.id),
    "in the trash",
  ).toContain(p.id);
  await expect(page.getByRole("link", { name: p.projectName }), "gone from the list").toHaveCount(0);
  await shot(page, "draft-deleted");
  await toastBox.getByRole("button", { name: "Restore it" }).click();
  await expect(page).toHaveURL(new RegExp(`/${teamA}/projects/${p.id}$`));
  const back = await api(request, uma, teamA, "GET", "/api/v1/Projects/GetTrashed?$top=1000");
  expect(
    back.value.map((x: { id: number }) => x.id),
    "restored",
  ).not.toContain(p.id);
});

test("axe at phone width on the journey's pages: home with approvals, the editor, the status page, a shared project, the notifications", async ({ page, request }) => {
  test.setTimeout(120_000);
  const uma = await token(request, "user@acme.test");
  const d = await draft(request, uma, "Phone", 1);
  const waiting = await draft(request, uma, "Phone waiting", 1);
  expect((await api(request, uma, teamA, "POST", `/api/v1/Projects(${waiting.id})/Submit`, {})).statusCode).toBe(50);
  const done = await completedProject(request, uma);
  await page.setViewportSize({ width: 390, height: 844 });
  await signIn(page, "admin@acme.test");
  const pages: [string, string][] = [
    ["home with the approvals inbox", `/${teamA}/home`],
    ["the editor's set-up", `/${teamA}/projects/${d.id}?desktop=1`],
    ["the editor's markets", `/${teamA}/projects/${d.id}/markets?desktop=1`],
    ["the review page", `/${teamA}/projects/${waiting.id}/review`],
    ["the status page", `/${teamA}/project-surveys/${done.id}`],
  ];
  for (const [what, url] of pages) {
    await page.goto(url);
    await page.waitForLoadState("networkidle");
    await expect(page.locator("main")).toBeVisible();
    await shot(page, `phone-${what.replace(/[^a-z]+/g, "-")}`);
    await noSeriousViolations(page, `${what} at 390 px`);
  }
  await page.goto(`/${teamA}/home`);
  await page.getByRole("button", { name: /^Notifications/ }).click();
  await expect(page.getByRole("menu")).toBeVisible();
  await shot(page, "phone-notifications");
  await expectAxeClean(page, "axe on the open notifications at 390 px");
});
