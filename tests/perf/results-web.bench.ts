// Benchmark: the results summary page in headless Chromium against a running server. Measures
//   - navigation: from page.goto of /{clientId}/results/{projectId}/summary to the measures chart
//     drawn (its bars in the DOM), goal 1.5 s;
//   - filter change: from ticking a demographic filter to the chart redrawn with the new
//     QualResults answer, goal 0.5 s.
// Prints p50 and p95 of each and exits non-zero when a p50 misses its goal.
//
//   BASE_URL=http://localhost:3107 CLIENT_ID=3 PROJECT_ID=1 bun run tests/perf/results-web.bench.ts
//
// EMAIL / PASSWORD default to the demo login user@acme.test / ideally-demo; RUNS (default 7).
import { chromium, type Page } from "@playwright/test";

const BASE = process.env.BASE_URL ?? "http://localhost:3107";
const CLIENT = process.env.CLIENT_ID ?? "3";
const PROJECT = process.env.PROJECT_ID ?? "1";
const RUNS = Number(process.env.RUNS ?? 7);
const GOAL_NAV_MS = 1500;
const GOAL_FILTER_MS = 500;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
await page.goto(`${BASE}/auth/login`);
await page.getByLabel("Work email").fill(process.env.EMAIL ?? "user@acme.test");
await page.getByRole("button", { name: "Continue" }).click();
await page.getByLabel("Password").fill(process.env.PASSWORD ?? "ideally-demo");
await page.getByRole("button", { name: "Sign in" }).click();
await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 20_000 });

const bars = (p: Page) => p.locator('[data-testid="measures-chart"] svg[role=img] rect').first();
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;

const nav: number[] = [];
const filter: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const url = `${BASE}/${CLIENT}/results/${PROJECT}/summary`;
  const t0 = performance.now();
  await page.goto(url);
  await bars(page).waitFor({ timeout: 30_000 });
  nav.push(performance.now() - t0);

  await page.locator("summary", { hasText: "Gender" }).click();
  const box = page.locator("details", { hasText: "Gender" }).getByRole("checkbox").first();
  const before = await page.locator('[data-testid="top2-cell"]').first().innerText();
  const t1 = performance.now();
  const answered = page.waitForResponse((r) => r.url().includes("/Responses/QualResults") && r.status() === 200);
  await box.check();
  await answered;
  await page.waitForFunction((b) => document.querySelector('[data-testid="top2-cell"]')?.textContent !== b, before, { timeout: 30_000 });
  filter.push(performance.now() - t1);
}
await browser.close();

const line = (name: string, xs: number[], goal: number) => `${name}: p50 ${pct(xs, 0.5).toFixed(0)} ms, p95 ${pct(xs, 0.95).toFixed(0)} ms (goal p50 ≤ ${goal} ms) over ${xs.length} runs`;
console.log(line("summary charts after navigation", nav, GOAL_NAV_MS));
console.log(line("charts after a filter change", filter, GOAL_FILTER_MS));
if (pct(nav, 0.5) > GOAL_NAV_MS || pct(filter, 0.5) > GOAL_FILTER_MS) process.exit(1);
