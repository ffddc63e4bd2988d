// bun test preload: make sure the test PostgreSQL is up before any file runs, and stop an
// embedded one when the run ends.
import { afterAll } from "bun:test";
import { stopTestServer, testServerAdminUrl } from "./server.ts";

await testServerAdminUrl();
afterAll(async () => {
  await stopTestServer();
});
