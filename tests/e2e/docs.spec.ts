import { expect, test } from "@playwright/test";
import { readFileSync } from "node:fs";
// The 66 entity sets of SPEC.md section 3, committed as data (tests/fixtures/README.md).
const sets: string[] = JSON.parse(readFileSync(new URL("../fixtures/spec-entity-sets.json", import.meta.url), "utf8"));

test("the API reference at /docs lists every entity set and loads nothing from outside", async ({ page }) => {
  const outside: string[] = [];
  page.on("request", (req) => {
    const u = new URL(req.url());
    if (!["http:", "https:", "ws:", "wss:"].includes(u.protocol)) return; // data:, blob:
    if (!/^(127\.\d+\.\d+\.\d+|localhost|\[::1\])$/.test(u.hostname)) outside.push(req.url());
  });
  // The page's strict Content-Security-Policy (ops/security.ts) must not block any of its own parts.
  const blocked: string[] = [];
  page.on("console", (m) => {
    if (/Content.Security.Policy/i.test(m.text())) blocked.push(m.text());
  });
  await page.goto("/docs");
  await expect(page.getByText("Ideally API").first()).toBeVisible({ timeout: 30_000 });
  const text = await page.locator("body").innerText();
  const missing = sets.filter((s) => !text.includes(s));
  expect(sets.length, "SPEC.md lists 66 entity sets").toBe(66);
  expect(missing, "every entity set appears in the reference").toEqual([]);
  expect(outside, "no request leaves loopback").toEqual([]);
  expect(blocked, "nothing of the page is blocked by its CSP").toEqual([]);
});
