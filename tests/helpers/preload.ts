// bun test preload: make sure the test PostgreSQL is up before any file runs, and stop an
// embedded one when the run ends; cheap password hashes in the processes tests start. Every test
// must make at least one assertion: a test that returns early or whose checks sit behind a
// condition that never holds fails instead of passing with nothing checked (bun's
// expect.hasAssertions, checked when the test ends).
import { afterAll, beforeEach, expect } from "bun:test";
import { stopTestServer, testServerAdminUrl } from "./server.ts";

// The server, worker and CLI processes tests start inherit this: new password hashes at the test
// cost (api/src/config.ts; refused with NODE_ENV=production), like the fixtures' own.
process.env.PASSWORD_HASH_COST ??= "test";

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
