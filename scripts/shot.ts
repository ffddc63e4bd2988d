// Screenshots of pages for looking at them (not part of the suite): bun scripts/shot.ts URL OUT.png [email] [width]
import { chromium } from "@playwright/test";
const [url, out, email, width] = process.argv.slice(2);
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: Number(width ?? 1280), height: 860 } });
page.on("console", (m) => m.type() === "error" && console.log("console:", m.text()));
page.on("pageerror", (e) => console.log("pageerror:", e.message));
const base = new URL(url).origin;
if (email) {
  await page.goto(`${base}/auth/login`);
  await page.getByLabel("Work email").fill(email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password").fill("ideally-demo");
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 15000 });
}
await page.goto(url);
await page.waitForTimeout(1500);
console.log("at", page.url());
await page.screenshot({ path: out, fullPage: true });
await browser.close();
