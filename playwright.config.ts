import { defineConfig } from "@playwright/test";

// E2E_PORT and E2E_PG_PORT let several checkouts run their browser tests side by side.
const PORT = process.env.E2E_PORT ?? "3999";
const PG_PORT = process.env.E2E_PG_PORT ?? "54349";

// Debian's Chromium (never `playwright install`: nothing may download). The flags keep it off
// the network this machine does not have.
export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  timeout: 60_000,
  // An assertion's wait for the page (a guard against a hang, not a time to meet): Playwright's 5 s
  // ran out on a review page still loading while other work loaded the machine (load average 7 to
  // 10, a clean run of session 18); a passing check waits no longer for it.
  expect: { timeout: 10_000 },
  workers: 1,
  // The real server; with DATABASE_URL unset it starts its own embedded PostgreSQL.
  webServer: {
    command: "bun run build && bun --max-http-header-size=262144 run api/src/server.ts",
    url: `http://127.0.0.1:${PORT}/openapi.json`,
    // PASSWORD_HASH_COST=test: the demo logins it seeds are hashed cheaply; CHECK_ANSWERS=1: every
    // answer checked against the document (docs/testing.md); EXPORT_WORKERS=2: two exports read
    // side by side (export-queue.spec.ts holds two; the default is one on two cores).
    env: { PORT, HOST: "127.0.0.1", PUBLIC_URL: `http://127.0.0.1:${PORT}`, DATA_DIR: ".data/e2e", EMBEDDED_PG_PORT: PG_PORT, LOG_REQUESTS: "0", PASSWORD_HASH_COST: "test", CHECK_ANSWERS: "1", EXPORT_WORKERS: "2" },
    reuseExistingServer: false,
    timeout: 120_000,
  },
  use: {
    baseURL: process.env.E2E_BASE_URL ?? `http://127.0.0.1:${PORT}`,
    // No transitions: axe reads a colour mid-fade (a button turning enabled) as too little contrast.
    contextOptions: { reducedMotion: "reduce" },
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
});
