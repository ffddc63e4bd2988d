// The web app's shell as a user meets it (issue #8): sign in and land by tier, switch client by
// URL, every redirect rule of SPEC 2, a session that expires and refreshes, logout in one tab
// logging out the other, a 401, the error view, the project-not-found rule, and the main pages'
// accessibility at desktop and phone widths.
import { expect, test, type Page } from "@playwright/test";
import { apiToken, clientIdByName, fakeToken, shot, signIn, axeFindings } from "./helpers";

let teamA = 0;
let globex = 0;
let enterprise = 0;
test.beforeAll(async ({ request }) => {
  const staff = await apiToken(request, "staff@ideally.test");
  teamA = await clientIdByName(request, staff, "Acme Team A");
  globex = await clientIdByName(request, staff, "Globex");
  enterprise = await clientIdByName(request, staff, "Acme");
});

const seriousViolations = (page: Page) => axeFindings(page);

test("a team user signs in and lands on the team's home; the login page is accessible", async ({ page }) => {
  await page.goto("/auth/login");
  await expect(page.getByRole("heading", { name: "Sign in to Ideally" })).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, "shell-login");
  await signIn(page, "user@acme.test");
  await expect(page).toHaveURL(new RegExp(`/${teamA}/home$`));
  await expect(page.getByRole("heading", { name: "Projects" })).toBeVisible();
  await expect(page.getByRole("button", { name: "New project" })).toBeVisible();
  // The newest projects first: the specs before this one add projects, so the demo ones may be on a later page.
  await expect(page.getByRole("table", { name: "Projects" }).getByRole("link").first()).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, "shell-home");
  await page.setViewportSize({ width: 390, height: 844 });
  await page.reload();
  await expect(page.getByRole("button", { name: "Open menu" })).toBeVisible();
  await shot(page, "shell-home-phone");
  expect(await seriousViolations(page)).toEqual([]);
});

test("a wrong password is refused on the page", async ({ page }) => {
  await page.goto("/auth/login");
  await page.getByLabel("Work email").fill("user@acme.test");
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password", { exact: true }).fill("not-the-password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toContainText("incorrect");
  await expect(page).toHaveURL(/\/auth\/login$/);
});

test("the redirect rules of SPEC 2", async ({ page }) => {
  for (const p of ["/auth", "/auth/nothing-here", "/invites", "/invites/unknown"]) {
    await page.goto(p);
    await expect(page, `${p} goes to login`).toHaveURL(/\/auth\/login$/);
  }
  await page.goto(`/${teamA}/home`);
  await expect(page, "signed out: login").toHaveURL(/\/auth\/login$/);
  await signIn(page, "user@acme.test");
  await expect(page, "the last visited URL is restored after login").toHaveURL(new RegExp(`/${teamA}/home$`));

  const cases: [string, RegExp][] = [
    ["/", new RegExp(`/${teamA}/home$`)],
    ["/no/such/page", new RegExp(`/${teamA}/home$`)],
    [`/${teamA}`, new RegExp(`/${teamA}/home$`)],
    [`/${teamA}/nothing`, new RegExp(`/${teamA}/home$`)],
    [`/${teamA}/result/1/summary?x=1`, new RegExp(`/${teamA}/results/1/summary\\?x=1$`)],
    [`/${teamA}/project/1`, new RegExp(`/${teamA}/projects/1$`)],
  ];
  for (const [from, to] of cases) {
    await page.goto(from);
    await expect(page, `${from} redirects`).toHaveURL(to);
  }
});

test("the tier decides where / lands, and a numeric client id switches the current client", async ({ page }) => {
  await signIn(page, "admin@acme.test");
  await page.goto(`/${enterprise}`);
  await expect(page, "an enterprise lands on its management area").toHaveURL(new RegExp(`/${enterprise}/manage-enterprise`));
  await expect.poll(() => page.evaluate(() => localStorage.getItem("client_id"))).toBe(String(enterprise));
  await page.goto("/");
  await expect(page, "/ keeps the current (enterprise) client").toHaveURL(new RegExp(`/${enterprise}/manage-enterprise`));
  await page.goto(`/${teamA}/home`);
  await expect.poll(() => page.evaluate(() => localStorage.getItem("client_id"))).toBe(String(teamA));
  await page.goto("/");
  await expect(page).toHaveURL(new RegExp(`/${teamA}/home$`));
});

test("a client the user cannot reach drops the stored client and moves to the first client by name", async ({ page }) => {
  await signIn(page, "user@acme.test");
  await page.goto(`/${globex}/home`);
  await expect(page).toHaveURL(new RegExp(`/${teamA}/home$`));
  await expect.poll(() => page.evaluate(() => localStorage.getItem("client_id"))).toBe(String(teamA));
});

test("policy gates send a disallowed user to /", async ({ page }) => {
  await signIn(page, "viewer@acme.test");
  await page.goto(`/${teamA}/projects/1`);
  await expect(page, "a Viewer is not a TeamUser").toHaveURL(new RegExp(`/${teamA}/home$`));
  await page.goto(`/${teamA}/manage-team`);
  await expect(page, "nor a TeamAdmin").toHaveURL(new RegExp(`/${teamA}/home$`));
});

test("an unknown project shows 'Project not found' and returns to /", async ({ page }) => {
  await signIn(page, "user@acme.test");
  await page.goto(`/${teamA}/projects/987654`);
  await expect(page.getByRole("alert").filter({ hasText: "Project not found" })).toBeVisible();
  await expect(page).toHaveURL(new RegExp(`/${teamA}/home$`));
});

test("an expired token is refreshed before the call; the user stays signed in", async ({ page }) => {
  await signIn(page, "user@acme.test");
  const before = await page.evaluate(() => localStorage.getItem("token"));
  await page.evaluate((t) => localStorage.setItem("token", t), fakeToken(Math.floor(Date.now() / 1000) - 60));
  const refreshed = page.waitForResponse((r) => r.url().endsWith("/auth/Login/Refresh") && r.status() === 200);
  await page.goto(`/${teamA}/home`);
  await refreshed;
  await expect(page.getByRole("heading", { name: "Projects" })).toBeVisible();
  const after = (await page.evaluate(() => localStorage.getItem("token"))) ?? "";
  // Signed in and refreshed within one second, the server may issue the very same token: what
  // matters is that the expired one was replaced by a live, signed one.
  expect(after, "the expired token was replaced").not.toContain("c2lnbmF0dXJl");
  const exp = JSON.parse(Buffer.from(after.split(".")[1], "base64url").toString()).exp as number;
  expect(exp * 1000, "the stored token is live").toBeGreaterThan(Date.now());
  expect(before).toBeTruthy();
});

test("a token near expiry is refreshed in the background", async ({ page }) => {
  await signIn(page, "user@acme.test");
  // Within 10 minutes of expiry (the real token's exp is read: 15-minute tokens are "near" after 5).
  await page.clock.install();
  await page.clock.fastForward(6 * 60_000);
  const refreshed = page.waitForResponse((r) => r.url().endsWith("/auth/Login/Refresh") && r.status() === 200);
  await page.getByRole("combobox", { name: "Status" }).selectOption("draft");
  await refreshed;
});

test("a 401 from the API logs the user out and remembers the page", async ({ page }) => {
  await signIn(page, "user@acme.test");
  // The sign-in lands on / and the app stores the client it opens once that client has loaded:
  // under load the goto below came first and the fake token's 401 meant it never did (client_id
  // null in a clean run, 2026-12-07). What the logout must keep has to be there before it.
  await expect.poll(() => page.evaluate(() => localStorage.getItem("client_id")), { timeout: 20_000 }).toBe(String(teamA));
  // The refused token goes in as the next page starts, before its scripts: put into the open page,
  // that page's own next call got the 401 and its logout aborted this goto (a loaded clean run,
  // 2026-12-07: net::ERR_ABORTED).
  const home = `/${teamA}/home`;
  await page.addInitScript(
    ([t, path]) => {
      if (location.pathname === path) localStorage.setItem("token", t);
    },
    [fakeToken(Math.floor(Date.now() / 1000) + 3600), home] as const,
  );
  await page.goto(`${home}?q=snack`);
  await expect(page).toHaveURL(/\/auth\/login$/);
  // The logout is a full navigation: read storage once the login page has drawn, not while its
  // document is still replacing the old one (the evaluate's context was destroyed under load).
  await expect(page.getByRole("heading", { name: "Sign in to Ideally" })).toBeVisible();
  await page.waitForLoadState("load");
  expect(await page.evaluate(() => localStorage.getItem("token"))).toBeNull();
  expect(await page.evaluate(() => localStorage.getItem("client_id"))).toBe(String(teamA));
  expect(await page.evaluate(() => localStorage.getItem("lastVisitedUrl"))).toBe(`/${teamA}/home?q=snack`);
});

test("logout keeps client_id, is tracked, and logs out the other tab", async ({ page, context }) => {
  await signIn(page, "user@acme.test");
  const other = await context.newPage();
  await other.goto(`/${teamA}/home`);
  await expect(other.getByRole("heading", { name: "Projects" })).toBeVisible();
  const tracked = page.waitForRequest((r) => r.url().includes("/Logger?") && r.url().includes("eventId=Logout"));
  await page.getByRole("button", { name: "Account menu" }).click();
  await expect(page.getByText("Ideally v139")).toBeVisible();
  await page.getByRole("menuitem", { name: "Log out" }).click();
  await tracked;
  await expect(page).toHaveURL(/\/auth\/login$/);
  await expect(other, "the other tab follows").toHaveURL(/\/auth\/login$/);
  // The logout may still be loading the login page after its URL shows (CI, 2026-12-06: "Execution
  // context was destroyed" under load): read the storage once the page has settled.
  await expect.poll(() => page.evaluate(() => Object.keys(localStorage)).catch(() => null), { message: "only client_id is left in local storage" }).toEqual(["client_id"]);
});

test("signing in in one tab signs in the other", async ({ page, context }) => {
  const other = await context.newPage();
  await other.goto("/auth/login");
  await signIn(page, "user@acme.test");
  await expect(other).not.toHaveURL(/\/auth\//);
});

test("the error view: code, the spec's texts, a support contact and Go back", async ({ page }) => {
  await signIn(page, "user@acme.test");
  await page.route(`**/api/v1/Clients(${teamA})**`, (r) => r.fulfill({ status: 500, contentType: "application/json", body: JSON.stringify({ typename: "InternalError", message: "boom" }) }));
  await page.goto(`/${teamA}/home`);
  await expect(page.getByText("Error 500")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Sorry, something went wrong on our end." })).toBeVisible();
  await expect(page.getByText("We are experiencing some difficulties with our server. Please try again later.")).toBeVisible();
  await expect(page.getByRole("link", { name: /support@/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "Go back" })).toBeVisible();
  await shot(page, "shell-error");
});

test("the account menu toggles beta features in local storage; the profile page shows memberships", async ({ page }) => {
  await signIn(page, "user@acme.test");
  await page.getByRole("button", { name: "Account menu" }).click();
  await page.getByRole("menuitem", { name: /Beta features/ }).click();
  expect(await page.evaluate(() => localStorage.getItem("beta-enabled"))).toBe("true");
  await page.goto("/account");
  await expect(page.getByRole("heading", { name: "Account" })).toBeVisible();
  await expect(page.getByText("Acme Team A")).toBeVisible();
  expect(await seriousViolations(page)).toEqual([]);
  await shot(page, "shell-account");
});

test("the common pages", async ({ page }) => {
  await page.goto("/common/mobile");
  await expect(page.getByRole("heading", { name: "Best on a larger screen" })).toBeVisible();
  await signIn(page, "user@acme.test");
  await page.goto("/common/no-client-id");
  await expect(page.getByRole("heading", { name: "No team yet" })).toBeVisible();
  await page.goto(`/common/notification-redirect?url=${encodeURIComponent(`/${teamA}/home`)}`);
  await expect(page).toHaveURL(new RegExp(`/${teamA}/home$`));
});

test("the accessibility check finds what it is for: an image without a text alternative and a button without a name", async ({ page }) => {
  await page.setContent(`<!doctype html><html lang="en"><head><title>probe</title></head><body><main><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw="><button></button></main></body></html>`);
  const found = await axeFindings(page);
  expect(found.map((f) => f.split(" ")[0]).sort()).toEqual(["button-name", "image-alt"]);
  expect(
    found.every((f) => f.includes("(critical)")),
    found.join("; "),
  ).toBe(true);
});
