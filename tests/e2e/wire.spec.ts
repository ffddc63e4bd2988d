import { expect, test } from "@playwright/test";

// What the login page costs on the wire (issue: nothing was compressed; the entry script went out
// as 281 KB): its scripts, as the browser received them, at most 110 KB, each compressed.
const LOGIN_SCRIPTS_BUDGET = 110 * 1024;

test("the login page's scripts arrive compressed, at most 110 KB on the wire", async ({ page }) => {
  const scripts: { url: string; encoding: string | undefined; bytes: Promise<number> }[] = [];
  page.on("response", (res) => {
    if (res.request().resourceType() !== "script") return;
    scripts.push({
      url: res.url(),
      encoding: res.headers()["content-encoding"],
      bytes: res
        .request()
        .sizes()
        .then((s) => s.responseBodySize),
    });
  });
  await page.goto("/auth/login", { waitUntil: "networkidle" });
  await expect(page.getByRole("button", { name: "Continue" })).toBeVisible();
  expect(scripts.length, "the page loads its scripts").toBeGreaterThan(0);
  const sizes = await Promise.all(scripts.map((s) => s.bytes));
  const total = sizes.reduce((a, b) => a + b, 0);
  console.log(`login page: ${scripts.length} scripts, ${(total / 1024).toFixed(1)} KB on the wire (${scripts.map((s) => s.encoding).join(", ")})`);
  for (const s of scripts) expect(["br", "gzip"], `${s.url} is compressed`).toContain(s.encoding);
  expect(total).toBeLessThanOrEqual(LOGIN_SCRIPTS_BUDGET);
});
