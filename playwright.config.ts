import { defineConfig } from "@playwright/test";

// Debian's Chromium (never `playwright install`: nothing may download). The flags keep it off
// the network this machine does not have.
export default defineConfig({
  testDir: "tests/e2e",
  testMatch: "**/*.spec.ts",
  timeout: 60_000,
  workers: 1,
  // The real server; with DATABASE_URL unset it starts its own embedded PostgreSQL.
  webServer: {
    command: "bun run api/src/server.ts",
    url: "http://127.0.0.1:3999/openapi.json",
    env: { PORT: "3999", HOST: "127.0.0.1", DATA_DIR: ".data/e2e", EMBEDDED_PG_PORT: "54349", LOG_REQUESTS: "0" },
    reuseExistingServer: false,
    timeout: 120_000,
  },
  use: {
    baseURL: process.env.E2E_BASE_URL ?? "http://127.0.0.1:3999",
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
