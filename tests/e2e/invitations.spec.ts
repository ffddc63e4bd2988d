// Issue 19: an existing account is invited to a team, not added. The invited person finds the
// invitations on their home page and in the account menu, declines one and accepts the other on
// the Account page; the
// accepted team then appears among theirs. Demo data (README): admin@acme.test is Admin of Acme
// Team A (client 3) and of the Acme enterprise (client 1); admin@globex.test is Admin of Globex only.
import { expect, test } from "@playwright/test";
import { apiCall, shot, signIn, token } from "./helpers";

test("an invited person declines one invitation and accepts another from the Account page", async ({ page, request }) => {
  const acme = await token(request, "admin@acme.test");
  await apiCall(request, acme, 3, "POST", "/api/v1/Users", { email: "admin@globex.test", roleId: 3 });
  await apiCall(request, acme, 1, "POST", "/api/v1/Users", { email: "admin@globex.test", roleId: 2 });

  await signIn(page, "admin@globex.test");
  await expect(page).toHaveURL(/\/home$/);
  const notice = page.getByRole("status", { name: "Invitations waiting" });
  await expect(notice).toContainText("You are invited to join Acme Team A, Acme.");
  await expect(notice.getByRole("link", { name: "Review invitations" })).toHaveAttribute("href", "/account");
  const menu = page.getByRole("button", { name: /Account menu \(2 invitations waiting\)/ });
  await expect(menu).toBeVisible();
  await menu.click();
  await page.getByRole("menuitem", { name: /Invitations/ }).click();
  await expect(page).toHaveURL(/\/account$/);
  const list = page.getByRole("list", { name: "Invitations" });
  await expect(list.getByRole("listitem")).toHaveCount(2);
  await expect(list.getByText("As Viewer, invited by", { exact: false })).toBeVisible();
  await page.setViewportSize({ width: 1440, height: 900 });
  await shot(page, "invitations-1440");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "invitations-390");
  await page.setViewportSize({ width: 1440, height: 900 });

  await page.getByRole("button", { name: "Decline the invitation to Acme", exact: true }).click();
  await expect(page.getByText("Invitation declined")).toBeVisible();
  await expect(list.getByRole("listitem")).toHaveCount(1);

  await page.getByRole("button", { name: "Accept the invitation to Acme Team A" }).click();
  await expect(page.getByText("Invitation accepted")).toBeVisible();
  await expect(page.getByText("You are now a Viewer of Acme Team A.")).toBeVisible();
  await expect(page.getByRole("list", { name: "Invitations" })).toHaveCount(0);
  await expect(page.getByRole("link", { name: "Acme Team A" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Account menu", exact: true })).toBeVisible();

  // As the API sees it: a Viewer of Acme Team A, not a member of the Acme enterprise.
  const gil = await token(request, "admin@globex.test");
  const policies = await apiCall<{ value: { clientId: number; role: { roleName: string } | null }[] }>(request, gil, null, "GET", "/api/v1/Users/MyPolicies");
  expect(policies.value.find((p) => p.clientId === 3)?.role?.roleName).toBe("Viewer");
  expect(policies.value.find((p) => p.clientId === 1)).toBeUndefined();
  // Leave the demo data as it was for the other specs.
  const me = await apiCall<{ id: number }>(request, gil, null, "GET", "/api/v1/Users/Me");
  await apiCall(request, acme, 3, "POST", `/api/v1/Users(${me.id})/RemoveFromAccount`, {});
});
