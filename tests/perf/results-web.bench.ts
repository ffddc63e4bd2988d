// Benchmark: the results page with the measures chart (All results) in headless Chromium on the 10-million-row data set of
// results-data.ts (the same one as `bun run bench:results`). Measures
//   - navigation: from page.goto of /{clientId}/results/{projectId}/all to the measures chart
//     drawn (its bars in the DOM), goal 1.5 s;
//   - filter change: from ticking a demographic filter to the chart redrawn with the new
//     QualResults answer, goal 0.5 s;
//   - the baseline, in the same run and the same browser: navigation to the home page until its
//     project list is drawn (the app's boot, the session and one API call, no results).
// Prints p50 and p95 of each and the ratios to the baseline; exits non-zero when a p50 misses its goal.
//
//   bun run bench:results-web
//
// By default it seeds (or reuses) the data set, builds the web app when dist/web is missing, and
// starts its own server on the data set (PORT, default 3107) as Globex's Admin, the team of the
// project results.bench.ts measures. BASE_URL points it at a running server instead (CLIENT_ID,
// PROJECT_ID, EMAIL, PASSWORD then say what to open). RUNS (default 9) runs of each.
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { cpus, loadavg } from "node:os";
import { chromium, type Page } from "@playwright/test";
import { connect } from "../../api/src/db/client.ts";
import { WEB_DIST } from "../../api/src/web/static.ts";
import { PROJECTS, seededDatabase } from "./results-data.ts";
import { stopTestServer } from "../helpers/server.ts";

const RUNS = Number(process.env.RUNS ?? 9);
const GOAL_NAV_MS = 1500;
const GOAL_FILTER_MS = 500;
const ROOT = resolve(import.meta.dir, "../..");
const log = (m: string) => console.log(m);

interface Target {
  base: string;
  clientId: number;
  projectId: number;
  email: string;
  password: string;
  stop: () => Promise<void>;
}

/** A server of our own on the seeded data set; its project in the middle of the table. */
async function ownServer(): Promise<Target> {
  const url = await seededDatabase();
  const db = connect(url, { max: 1 });
  const [p] = await db<{ id: number; clientId: number }[]>`
    select id, client_id as "clientId" from projects where project_name = ${`Results bench ${Math.ceil(PROJECTS / 2)}`}`;
  await db.end();
  if (!p) throw new Error("the data set has no project 'Results bench N'");
  if (!existsSync(resolve(WEB_DIST, "index.html"))) {
    log("building the web app (dist/web is missing)");
    const b = Bun.spawnSync(["bun", "run", "build"], { cwd: ROOT, stdout: "inherit", stderr: "inherit" });
    if (b.exitCode !== 0) throw new Error("bun run build failed");
  }
  const port = Number(process.env.PORT ?? 3107);
  const server = Bun.spawn(["bun", "run", "api/src/server.ts"], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), DATA_DIR: ".data/bench-web", LOG_REQUESTS: "0", PUBLIC_URL: `http://localhost:${port}` },
    stdout: "ignore",
    stderr: "inherit",
  });
  const base = `http://localhost:${port}`;
  for (let t = 0; ; t++) {
    if (server.exitCode !== null) throw new Error(`the server exited with ${server.exitCode}`);
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (t > 600) throw new Error("the server did not answer /readyz within 60 s");
    await Bun.sleep(100);
  }
  const login = p.clientId === 1003 ? "user@acme.test" : "admin@globex.test";
  return {
    base,
    clientId: p.clientId,
    projectId: p.id,
    email: login,
    password: "Password123!", // the fixtures' password (tests/helpers/fixtures.sql)
    stop: async () => {
      server.kill();
      await server.exited;
    },
  };
}

const target: Target = process.env.BASE_URL
  ? {
      base: process.env.BASE_URL,
      clientId: Number(process.env.CLIENT_ID ?? 3),
      projectId: Number(process.env.PROJECT_ID ?? 1),
      email: process.env.EMAIL ?? "user@acme.test",
      password: process.env.PASSWORD ?? "ideally-demo",
      stop: async () => {},
    }
  : await ownServer();

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
  args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
});
const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
let failed = false;
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(`${target.base}/auth/login`);
  await page.getByLabel("Work email").fill(target.email);
  await page.getByRole("button", { name: "Continue" }).click();
  await page.getByLabel("Password").fill(target.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((u) => !u.pathname.startsWith("/auth"), { timeout: 20_000 });

  const bars = (p: Page) => p.locator('[data-testid="measures-chart"] svg[role=img] rect').first();
  const summary = `${target.base}/${target.clientId}/results/${target.projectId}/all`; // the measures chart (Summary leads with the verdict)
  const home = `${target.base}/${target.clientId}/`;
  // The first visit is reported apart: the server loads its columnar copy of the project (and, on a
  // database whose norms were never rolled up, builds the rollup) and the browser caches the app's
  // scripts. The timed runs are a researcher coming back to a project.
  const tFirst = performance.now();
  await page.goto(summary);
  await bars(page).waitFor({ timeout: 120_000 });
  const first = performance.now() - tFirst;

  const nav: number[] = [];
  const filter: number[] = [];
  const boot: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    let t0 = performance.now();
    await page.goto(home);
    await page
      .getByRole("link", { name: /Results bench/ })
      .first()
      .waitFor({ timeout: 30_000 });
    boot.push(performance.now() - t0);

    t0 = performance.now();
    await page.goto(summary);
    await bars(page).waitFor({ timeout: 30_000 });
    nav.push(performance.now() - t0);

    await page.locator("summary", { hasText: "Gender" }).click();
    const box = page
      .locator("details", { hasText: "Gender" })
      .getByRole("checkbox")
      .nth(i % 2);
    const before = await page.locator('[data-testid="top2-cell"]').first().innerText();
    const t1 = performance.now();
    const answered = page.waitForResponse((r) => r.url().includes("/Responses/QualResults") && r.status() === 200);
    await box.check();
    await answered;
    await page.waitForFunction((b) => document.querySelector('[data-testid="top2-cell"]')?.textContent !== b, before, { timeout: 30_000 });
    filter.push(performance.now() - t1);
  }

  const base = pct(boot, 0.5);
  const line = (name: string, xs: number[], goal?: number) =>
    `${name.padEnd(34)} p50 ${pct(xs, 0.5).toFixed(0).padStart(5)} ms   p95 ${pct(xs, 0.95).toFixed(0).padStart(5)} ms   ${(pct(xs, 0.5) / base).toFixed(2)}x the baseline` +
    (goal ? `   goal p50 ≤ ${goal} ms: ${pct(xs, 0.5) <= goal ? "ok" : "MISSED"}` : "");
  log(`${target.base}, project ${target.projectId} of client ${target.clientId}, ${RUNS} runs each; ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(1)}`);
  log(`first visit (cold server copy, cold browser cache): ${first.toFixed(0)} ms`);
  log(line("baseline: home page, project list", boot));
  log(line("summary charts after navigation", nav, GOAL_NAV_MS));
  log(line("charts after a filter change", filter, GOAL_FILTER_MS));
  failed = pct(nav, 0.5) > GOAL_NAV_MS || pct(filter, 0.5) > GOAL_FILTER_MS;
} finally {
  await browser.close();
  await target.stop();
  await stopTestServer();
}
if (failed) process.exit(1);
