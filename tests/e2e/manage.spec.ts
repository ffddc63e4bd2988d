// The management areas as an admin uses them: the default-page redirects of manage-team, -org and
// -enterprise, each page's heading and key controls with an axe-core check, inviting a member and
// seeing them pending, changing their role, resending and removing; the ledger's CSV export, a
// credit transfer, a question template; and the policy gate for a team User.
// Demo data (README): admin@acme.test is Admin of Acme Team A (client 3) and of the Acme
// enterprise (client 1, with the org Acme Foods, client 2).
import { expect, test, type Page } from "@playwright/test";
import { expectAxeClean, SCREENS } from "./helpers";
import { readFileSync } from "node:fs";

const PASSWORD = "ideally-demo";

async function signIn(page: Page, email: string) {
  await page.goto("/auth/login");
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password").fill(PASSWORD);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 30_000 });
}

const noSeriousViolations = (page: Page, what: string) => expectAxeClean(page, what, { html: true });

test.describe("management areas as admin@acme.test", () => {
  test.beforeEach(async ({ page }) => {
    await signIn(page, "admin@acme.test");
  });

  test("default pages and redirects of each area (SPEC 2)", async ({ page }) => {
    const cases: [string, string][] = [
      ["/3/manage-team", "/3/manage-team/members"],
      ["/3/manage-team/overview", "/3/manage-team/members"],
      ["/2/manage-org", "/2/manage-org/admin-dashboard"],
      ["/1/manage-enterprise", "/1/manage-enterprise/overview"],
      ["/1/manage-enterprise/admin-dashboard", "/1/manage-enterprise/overview"],
    ];
    for (const [from, to] of cases) {
      await page.goto(from);
      await expect(page, `${from} goes to ${to}`).toHaveURL(new RegExp(`${to}$`));
      await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    }
  });

  test("each page: heading, key controls, sub-navigation and no serious accessibility violations", async ({ page }) => {
    const pages: { path: string; heading: string; controls: { role: "button" | "link" | "textbox" | "searchbox"; name: string | RegExp }[] }[] = [
      {
        path: "/3/manage-team/members",
        heading: "Members",
        controls: [
          { role: "button", name: "Invite member" },
          { role: "searchbox", name: "Search members" },
          { role: "link", name: "Access from above" },
        ],
      },
      {
        path: "/3/manage-team/transactions",
        heading: "Transactions",
        controls: [
          { role: "button", name: "Export CSV" },
          { role: "link", name: "Spend" },
          { role: "link", name: "Top-ups" },
        ],
      },
      { path: "/3/manage-team/templates", heading: "Question templates", controls: [{ role: "button", name: "New template" }] },
      { path: "/2/manage-org/admin-dashboard", heading: "Admin dashboard", controls: [{ role: "link", name: "Overview" }] },
      { path: "/2/manage-org/overview", heading: "Overview", controls: [{ role: "link", name: "Security" }] },
      { path: "/2/manage-org/members", heading: "Members", controls: [{ role: "button", name: "Invite member" }] },
      {
        path: "/2/manage-org/transactions",
        heading: "Transactions",
        controls: [
          { role: "button", name: "Export CSV" },
          { role: "button", name: "Transfer credits" },
        ],
      },
      {
        path: "/2/manage-org/security",
        heading: "Security",
        controls: [
          { role: "button", name: "Add identity provider" },
          { role: "textbox", name: "ACS URL (reply URL)" },
        ],
      },
      { path: "/1/manage-enterprise/overview", heading: "Overview", controls: [{ role: "link", name: "Members" }] },
      { path: "/1/manage-enterprise/members", heading: "Members", controls: [{ role: "button", name: "Invite member" }] },
      { path: "/1/manage-enterprise/transactions", heading: "Transactions", controls: [{ role: "button", name: "Transfer credits" }] },
      { path: "/1/manage-enterprise/security", heading: "Security", controls: [{ role: "button", name: "Add identity provider" }] },
    ];
    for (const p of pages) {
      await page.goto(p.path);
      await expect(page.getByRole("heading", { level: 1, name: p.heading }), `${p.path} heading`).toBeVisible();
      for (const c of p.controls) await expect(page.getByRole(c.role, { name: c.name }).first(), `${p.path}: ${c.role} ${c.name}`).toBeVisible();
      await expect(page.getByRole("status", { name: /Loading/ })).toHaveCount(0);
      await noSeriousViolations(page, p.path);
    }
    // The dashboards' charts come with their numbers.
    await page.goto("/1/manage-enterprise/overview");
    await expect(page.getByRole("img", { name: "Credits spent per month (bar chart)" })).toBeVisible();
    await expect(page.getByRole("img", { name: "Credits spent this year per team (bar chart)" })).toBeVisible();
    await expect(page.getByRole("table", { name: "Clients beneath Acme" }).getByText("Acme Team A")).toBeVisible();
    await page.goto("/1/manage-enterprise/security");
    await expect(page.getByRole("textbox", { name: "ACS URL (reply URL)" })).toHaveValue(/\/auth\/Saml\/Acs$/);
  });

  test("invite a new email, see it pending, change its role, resend the invite, remove it", async ({ page }) => {
    const email = `new.member.${Date.now()}@acme.test`;
    await page.goto("/3/manage-team/members");
    await page.getByRole("button", { name: "Invite member" }).click();
    const dialog = page.getByRole("dialog", { name: "Invite member" });
    await noSeriousViolations(page, "the invite dialog");
    await dialog.getByLabel("Email").fill(email);
    await dialog.getByLabel("First name (optional)").fill("Nia");
    await dialog.getByLabel("Role").selectOption({ label: "User" });
    await dialog.getByRole("button", { name: "Send invite" }).click();
    await expect(page.getByText("Invitation sent")).toBeVisible();
    const row = page.getByRole("row").filter({ hasText: email });
    await expect(row.getByText("Invite pending"), "the new person is pending until they accept").toBeVisible();

    // Inviting someone already in the team answers at the email field.
    await page.getByRole("button", { name: "Invite member" }).click();
    await dialog.getByLabel("Email").fill("user@acme.test");
    await dialog.getByRole("button", { name: "Send invite" }).click();
    await expect(dialog.getByRole("alert")).toContainText("already a member of Acme Team A");
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toHaveCount(0);

    await row.getByLabel(`Role of ${email}`).selectOption({ label: "Viewer" });
    await expect(page.getByText("Role changed")).toBeVisible();
    await page.reload();
    await expect(page.getByRole("row").filter({ hasText: email }).getByLabel(`Role of ${email}`), "the role change is stored").toHaveValue("3");

    await page.getByRole("button", { name: `Actions for ${email}` }).click();
    await page.getByRole("menuitem", { name: "Resend invite" }).click();
    await page.getByRole("dialog", { name: "Resend invite" }).getByRole("button", { name: "Send invite" }).click();
    await expect(page.getByText("Invite sent again")).toBeVisible();

    await page.getByRole("button", { name: `Actions for ${email}` }).click();
    await page.getByRole("menuitem", { name: "Disable account" }).click();
    await page.getByRole("dialog", { name: "Disable account" }).getByRole("button", { name: "Disable" }).click();
    await expect(page.getByText("Account disabled")).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: email }).getByText("Disabled")).toBeVisible();
    await page.getByRole("button", { name: `Actions for ${email}` }).click();
    await page.getByRole("menuitem", { name: "Enable account" }).click();
    await page.getByRole("dialog", { name: "Enable account" }).getByRole("button", { name: "Enable" }).click();
    await expect(page.getByText("Account enabled")).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: email }).getByText("Invite pending")).toBeVisible();

    await page.getByRole("button", { name: `Actions for ${email}` }).click();
    await page.getByRole("menuitem", { name: "Remove from Acme Team A" }).click();
    const confirm = page.getByRole("dialog", { name: "Remove member" });
    await expect(confirm).toContainText(`Remove Nia from Acme Team A?`);
    await confirm.getByRole("button", { name: "Remove" }).click();
    await expect(page.getByText("Member removed")).toBeVisible();
    await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(0);
  });

  test("the ledger downloads as CSV; an enterprise admin transfers credits between teams", async ({ page }) => {
    await page.goto("/3/manage-team/transactions");
    const [download] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: "Export CSV" }).click()]);
    expect(download.suggestedFilename()).toMatch(/^transactions-acme-team-a-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, "utf8");
    expect(csv.split("\r\n")[0], "the export's header row").toBe(
      "id,createdAt,type,typeName,creditAmount,balance,projectId,projectName,surveyRunId,relatedClientId,transferId,description,hubspotDealId,createdByUserId,createdByEmail",
    );

    await page.goto("/1/manage-enterprise/transactions");
    await page.getByRole("button", { name: "Transfer credits" }).click();
    const dialog = page.getByRole("dialog", { name: "Transfer credits" });
    await dialog.getByLabel("From").selectOption("3");
    await dialog.getByLabel("To").selectOption("4");
    await dialog.getByLabel("Credits").fill("1");
    await dialog.getByRole("button", { name: "Transfer" }).click();
    await expect(page.getByText("Credits transferred")).toBeVisible();
    await page.getByRole("link", { name: "Transfers" }).click();
    await expect(page.getByRole("table", { name: "Credit transactions" }).getByText("Transfer to Acme Team B").first()).toBeVisible();
  });

  test("a question template is made from a question a project asked, then deleted", async ({ page }) => {
    const name = `Template ${Date.now()}`;
    await page.goto("/3/manage-team/templates");
    await page.getByRole("button", { name: "New template" }).click();
    const dialog = page.getByRole("dialog", { name: "New template" });
    await dialog.getByRole("radio").first().check();
    await dialog.getByLabel("Template name").fill(name);
    await dialog.getByRole("button", { name: "Save template" }).click();
    await expect(page.getByText("Template saved")).toBeVisible();
    await page.getByRole("button", { name: `Delete template ${name}` }).click();
    await page.getByRole("dialog", { name: "Delete template" }).getByRole("button", { name: "Delete" }).click();
    await expect(page.getByText("Template deleted")).toBeVisible();
    await expect(page.getByText(name)).toHaveCount(0);
  });
});

test.describe("security as admin@acme.test", () => {
  test("an org admin adds a SAML identity provider, sees its domain pending then verified, switches it off, deletes it", async ({ page, request }) => {
    await signIn(page, "admin@acme.test");
    const stamp = Date.now();
    const name = `E2E${stamp}`;
    await page.goto("/2/manage-org/security");
    await page.getByRole("button", { name: "Add identity provider" }).first().click();
    const dialog = page.getByRole("dialog", { name: "Add identity provider" });
    await dialog.getByLabel("Name").fill(name);
    await dialog.getByLabel("Email domains").fill(`e2e-${stamp}.test`);
    await dialog.getByRole("radio", { name: "Sign-on URL and certificate" }).click();
    await dialog.getByLabel("Single sign-on URL").fill("https://idp.example.test/sso");
    await dialog.getByLabel("Issuer (entity ID)").fill("https://idp.example.test/entity");
    await dialog.getByLabel("Signing certificate (PEM)").fill(readFileSync(new URL("../fixtures/saml/idp-cert.pem", import.meta.url), "utf8"));
    await noSeriousViolations(page, "the identity provider dialog");
    await dialog.getByRole("button", { name: "Add" }).click();
    await expect(page.getByText("Identity provider added")).toBeVisible();
    await expect(page.getByText(/signing certificate valid until/)).toBeVisible();
    const card = page.locator("section").filter({ hasText: name });
    const domains = card.getByRole("list", { name: `Email domains of ${name}` });
    await expect(
      domains
        .getByRole("listitem")
        .filter({ hasText: `e2e-${stamp}.test` })
        .getByText("Pending verification"),
    ).toBeVisible();
    await expect(card.getByText(/sign in with a password until your organisation proves it owns the domain/)).toBeVisible();
    // Staff approve the domain for Acme Foods (ValidateDomainRecord without the DNS record): verified now.
    const login = await request.post("/auth/Login/PasswordLogin", { data: { email: "staff@ideally.test", password: PASSWORD } });
    const staff = ((await login.json()) as { accessToken: string }).accessToken;
    const approved = await request.post("/api/v1/Clients(2)/ValidateDomainRecord", { data: { domain: `e2e-${stamp}.test`, approve: true }, headers: { authorization: `Bearer ${staff}` } });
    expect(approved.status()).toBe(200);
    await page.reload();
    await expect(
      domains
        .getByRole("listitem")
        .filter({ hasText: `e2e-${stamp}.test` })
        .getByText("Verified"),
    ).toBeVisible();
    await expect(card.getByText(/until your organisation proves it owns the domain/)).toHaveCount(0);
    await page.setViewportSize({ width: 1440, height: 900 });
    if (SCREENS) await page.screenshot({ path: ".tmp/screens/security-1440.png", fullPage: true });
    await page.setViewportSize({ width: 390, height: 844 });
    if (SCREENS) await page.screenshot({ path: ".tmp/screens/security-390.png", fullPage: true });
    await page.setViewportSize({ width: 1280, height: 720 });
    await card.getByRole("button", { name: "Switch off" }).click();
    await expect(page.getByText("Single sign-on switched off")).toBeVisible();
    await expect(card.getByText("Off", { exact: true })).toBeVisible();
    await card.getByRole("button", { name: `Delete ${name}` }).click();
    await page.getByRole("dialog", { name: "Delete identity provider" }).getByRole("button", { name: "Delete" }).click();
    await expect(page.getByText("Identity provider deleted")).toBeVisible();
    await expect(page.locator("section").filter({ hasText: name })).toHaveCount(0);
  });
});

test("a team User is sent to / by the policy gate", async ({ page }) => {
  await signIn(page, "user@acme.test");
  await page.goto("/3/manage-team");
  await expect(page, "no TeamAdmin policy: / and from there the tier home").toHaveURL(/\/3\/home$/);
  await page.goto("/3/manage-team/transactions");
  await expect(page).toHaveURL(/\/3\/home$/);
});
