// The closing lines of `bun run test`: each stage's time and the slowest files (from hand-made
// reports), skipped and retried tests are reported on the lines just before the last, flaky
// Playwright tests are named, and the last line stays "N passed, N failed".
// Also: the preload makes a test with no assertion fail (run in a child bun test).
import { testServerAdminUrl } from "../helpers/server.ts";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { bunFailures, closingLines, fileTimes, flakyTitles, summaryLines, timingLines, type PwReport } from "../../scripts/test-report.ts";

const report: PwReport = {
  stats: { expected: 5, unexpected: 1, flaky: 1, skipped: 2 },
  suites: [
    {
      title: "results.spec.ts",
      specs: [
        { title: "summary page", tests: [{ status: "expected", results: [{ status: "passed" }] }] },
        { title: "chat panel opens", tests: [{ status: "flaky", results: [{ status: "failed" }, { status: "passed" }] }] },
      ],
      suites: [{ title: "phone width", specs: [{ title: "h2h", tests: [{ status: "skipped", results: [] }] }] }],
    },
  ],
};

test("flaky Playwright tests are named by file and title", () => {
  expect(flakyTitles(report)).toEqual(["results.spec.ts > chat panel opens"]);
  expect(flakyTitles({ stats: { expected: 1, unexpected: 0, flaky: 0 } })).toEqual([]);
});

// Bun's JUnit report, as bun test 1.4 writes it: a failing top-level beforeAll (or afterAll) is a
// testcase "(unnamed)" with an empty classname; the last lines of a CI log must say where it was.
const junit = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="4" assertions="2" failures="2" skipped="0" time="0.18">
  <testsuite name="tests/a.test.ts" file="tests/a.test.ts" tests="1" failures="1">
    <testsuite name="d" file="tests/a.test.ts" line="2" tests="1" failures="1">
      <testcase name="keeps &quot;x&quot; &amp; y" classname="d" time="0.1" file="tests/a.test.ts" assertions="0">
        <failure type="Error" message="expected 1 &lt; 2">Error: expected 1 &lt; 2&#10;      at tests/a.test.ts:3:59&#10;</failure>
      </testcase>
    </testsuite>
  </testsuite>
  <testsuite name="tests/b.test.ts" file="tests/b.test.ts" tests="3" failures="1">
    <testcase name="one" classname="" time="0.0" file="tests/b.test.ts" line="3" assertions="1" />
    <testcase name="(unnamed)" classname="" time="1.39" file="tests/b.test.ts" assertions="0">
      <failure type="Error" message="server did not start: error: Failed to start server. Is port 30210 in use?&#10;second line">Error: server did not start</failure>
    </testcase>
  </testsuite>
</testsuites>`;

test("a bun test failure is named by its file, its describe and its message, on one line each", () => {
  expect(bunFailures(junit)).toEqual([
    'tests/a.test.ts > d > keeps "x" & y: expected 1 < 2',
    "tests/b.test.ts > (unnamed): server did not start: error: Failed to start server. Is port 30210 in use? second line",
  ]);
  expect(bunFailures(junit.replace(/<failure[\s\S]*?<\/failure>/g, ""))).toEqual([]);
  const long = bunFailures(junit.replace("expected 1 &lt; 2", "x".repeat(2000)))[0]!;
  expect(long.length, "a long message is cut").toBeLessThanOrEqual(600);
  expect(long.endsWith("…")).toBe(true);
});

test("skipped and retried counts come on the lines before the last, which is exactly 'N passed, N failed'", () => {
  const lines = summaryLines({ passed: 40, failed: 2, skipped: { bun: 3, playwright: 2 }, flaky: ["results.spec.ts > chat panel opens"] });
  expect(lines).toEqual([
    "skipped: 5 (bun test 3, playwright 2), counted neither passed nor failed",
    "retried: 1 passed only on a retry (flaky, counted as failed): results.spec.ts > chat panel opens",
    "40 passed, 2 failed",
  ]);
  expect(lines.at(-1)).toMatch(/^\d+ passed, \d+ failed$/);
  expect(summaryLines({ passed: 1, failed: 0, skipped: { bun: 0, playwright: 0 }, flaky: [] })[1]).toBe("retried: 0 passed only on a retry (flaky, counted as failed)");
});

// A report as bun test 1.4 writes it (checked on a file with hooks): each file's outermost
// testsuite carries the file's whole time, its beforeAll and afterAll included, which its
// testcases' times leave out (tests/a: 12.5 s, of which its tests took 0.5 s). A file whose suite
// has no time (tests/c) is timed by its testcases: 0.25 + 0.5 + 1.25 = 2 s.
const timed = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="6" assertions="6" failures="0" skipped="0" time="20.1">
  <testsuite name="tests/a.test.ts" file="tests/a.test.ts" tests="2" time="12.5" hostname="vm">
    <testcase name="x &gt; y" classname="" time="0.2" file="tests/a.test.ts" line="3" assertions="1" />
    <testsuite name="d" file="tests/a.test.ts" line="4" tests="1" time="0.3" hostname="vm">
      <testcase name="z" classname="d" time="0.3" file="tests/a.test.ts" line="5" assertions="1" />
    </testsuite>
  </testsuite>
  <testsuite name="tests/b.test.ts" file="tests/b.test.ts" tests="1" time="4.75" hostname="vm">
    <testcase name="one" classname="" time="4.7" file="tests/b.test.ts" line="3" assertions="1" />
  </testsuite>
  <testsuite name="tests/c.test.ts" file="tests/c.test.ts" tests="3">
    <testcase name="one" classname="" time="0.25" file="tests/c.test.ts" line="3" assertions="1" />
    <testsuite name="e" file="tests/c.test.ts" line="4" tests="2">
      <testcase name="two" classname="e" time="0.5" file="tests/c.test.ts" line="5" assertions="1" />
      <testcase name="three" classname="e" time="1.25" file="tests/c.test.ts" line="6" assertions="1" />
    </testsuite>
  </testsuite>
</testsuites>`;

test("a file's time is its outermost suite's, hooks included; without one, the sum of its testcases", () => {
  const byFile = Object.fromEntries(fileTimes(timed).map((f) => [f.file, f.seconds]));
  expect(byFile).toEqual({ "tests/a.test.ts": 12.5, "tests/b.test.ts": 4.75, "tests/c.test.ts": 2 });
  expect(fileTimes('<?xml version="1.0"?><testsuites name="bun test" tests="0"></testsuites>')).toEqual([]);
});

test("the time lines: each stage and their total, then the ten slowest files, slowest first", () => {
  const files = [...["k", "a", "j", "b", "i", "c", "h", "d", "g", "e", "f"].map((n, i) => ({ file: `tests/${n}.test.ts`, seconds: i + 1 })), { file: "tests/z.test.ts", seconds: 246.04 }];
  // 1 + 2 + ... + 11 = 66, and 246.04: 312.04 in all. k (1 s) is left out, the 12th.
  expect(
    timingLines(
      [
        { name: "typecheck", seconds: 31.26 },
        { name: "bun test", seconds: 600 },
        { name: "playwright", seconds: 95.5 },
      ],
      files,
    ),
  ).toEqual([
    "time per stage: typecheck 31.3 s, bun test 600.0 s, playwright 95.5 s; total 726.8 s",
    "slowest bun test files (10 of 12, which took 312.0 s in all):",
    "  246.0 s  tests/z.test.ts",
    "   11.0 s  tests/f.test.ts",
    "   10.0 s  tests/e.test.ts",
    "    9.0 s  tests/g.test.ts",
    "    8.0 s  tests/d.test.ts",
    "    7.0 s  tests/h.test.ts",
    "    6.0 s  tests/c.test.ts",
    "    5.0 s  tests/i.test.ts",
    "    4.0 s  tests/b.test.ts",
    "    3.0 s  tests/j.test.ts",
  ]);
  // Equal times in name order; no report (the bun step never wrote one): the stages only.
  expect(
    timingLines(
      [],
      [
        { file: "tests/b.test.ts", seconds: 2 },
        { file: "tests/a.test.ts", seconds: 2 },
      ],
    ).slice(1),
  ).toEqual(["slowest bun test files (2 of 2, which took 4.0 s in all):", "  2.0 s  tests/a.test.ts", "  2.0 s  tests/b.test.ts"]);
  expect(timingLines([{ name: "typecheck", seconds: 2 }], [])).toEqual(["time per stage: typecheck 2.0 s; total 2.0 s"]);
  // Stages side by side: the run's wall time, not the sum (31.3 + 600 + 95.5 would be 726.8).
  expect(
    timingLines(
      [
        { name: "typecheck", seconds: 31.26 },
        { name: "bun test", seconds: 600 },
        { name: "playwright", seconds: 95.5 },
      ],
      [],
      10,
      640.04,
    ),
  ).toEqual(["time per stage: typecheck 31.3 s, bun test 600.0 s, playwright 95.5 s; total 640.0 s (wall clock, stages side by side)"]);
});

test("the time lines come before the failures, and 'N passed, N failed' stays the last line", () => {
  const lines = closingLines({
    stages: [{ name: "typecheck", seconds: 30 }],
    files: [{ file: "tests/a.test.ts", seconds: 12.5 }],
    failures: ["bun test (1)"],
    bunFailed: ["tests/a.test.ts > d > z: expected 1"],
    summary: { passed: 5, failed: 1, skipped: { bun: 0, playwright: 0 }, flaky: [] },
  });
  expect(lines).toEqual([
    "",
    "time per stage: typecheck 30.0 s; total 30.0 s",
    "slowest bun test files (1 of 1, which took 12.5 s in all):",
    "  12.5 s  tests/a.test.ts",
    "",
    "failed: bun test (1)",
    "bun test failed: tests/a.test.ts > d > z: expected 1",
    "skipped: 0 (bun test 0, playwright 0), counted neither passed nor failed",
    "retried: 0 passed only on a retry (flaky, counted as failed)",
    "5 passed, 1 failed",
  ]);
});

const tmp = mkdtempSync(join(tmpdir(), "ideally-honest-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test("a test with no assertion fails under the suite's preload; one with an assertion passes", async () => {
  const file = join(tmp, "zero.test.ts");
  writeFileSync(
    file,
    `import { expect, test } from "bun:test";\n` +
      `test("returns before checking", async () => { if (Date.now() > 0) return; expect(1).toBe(1); });\n` +
      `test("checks", () => { expect(1).toBe(1); });\n`,
  );
  const proc = Bun.spawn([process.execPath, "test", "--preload", resolve(import.meta.dir, "../helpers/preload.ts"), file], {
    cwd: tmp,
    stdout: "pipe",
    stderr: "pipe",
    // The child's preload uses this run's PostgreSQL (the embedded one when DATABASE_URL is unset),
    // never starts one of its own in the temporary folder.
    env: { ...process.env, DATABASE_URL: await testServerAdminUrl() },
  });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  const text = out + err;
  expect(code).toBe(1);
  expect(text).toContain("(fail) returns before checking");
  expect(text).toContain("expected at least one assertion");
  expect(text).toContain("(pass) checks");
}, 60_000);
