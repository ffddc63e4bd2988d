// bun test preload: make sure the test PostgreSQL is up before any file runs, and stop an
// embedded one when the run ends. Every test must make at least one assertion: a test that
// returns early or whose checks sit behind a condition that never holds fails instead of passing
// with nothing checked (bun's expect.hasAssertions, checked when the test ends).
import { afterAll, beforeEach, expect } from "bun:test";
import { stopTestServer, testServerAdminUrl } from "./server.ts";

await testServerAdminUrl();
// The servers tests start as processes check every answer against the published document, as the
// in-process apps do (tests/helpers/app.ts; api/src/ops/answer-check.ts).
process.env.CHECK_ANSWERS = "1";
beforeEach(() => {
  expect.hasAssertions();
});
afterAll(async () => {
  await stopTestServer();
});
