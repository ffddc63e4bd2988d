// bun run test: typecheck (beside the other stages, its output printed once they end), lint, bun
// tests, the contract drift check and Playwright (beside the bun tests, its output printed once
// they end), then one line
// "N passed, N failed" summing them (bun's JUnit report + Playwright's JSON report; the typecheck,
// the lint and the drift check count as one test each). The lines just before it say what the two numbers
// leave out: the skipped tests (counted in neither), and Playwright tests that passed only on a
// retry (flaky), each named; a flaky test counts as failed, never as passed. Before those: each
// stage's wall time and the ten slowest bun test files (from the JUnit report's per-file times).
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync } from "node:fs";
import { bunFailures, closingLines, fileTimes, flakyTitles, type FileTime, type PwReport, type StageTime } from "./test-report.ts";

const TMP = ".tmp";
mkdirSync(TMP, { recursive: true });
let passed = 0;
let failed = 0;
const failures: string[] = [];
const skipped = { bun: 0, playwright: 0 };
const flaky: string[] = [];
const bunFailed: string[] = [];
const stages: StageTime[] = [];
let files: FileTime[] = [];

const runStarted = performance.now();

/** Runs a stage with its output on ours; with `log`, into that file instead (printed by the caller). */
async function step(name: string, cmd: string[], env: Record<string, string> = {}, log?: string): Promise<number> {
  console.log(`\n=== ${name}: ${cmd.join(" ")}${log ? ` (beside the stages that follow; its output, kept in ${log}, is printed when they end)` : ""}`);
  const started = performance.now();
  const fd = log ? openSync(log, "w") : null;
  const p = Bun.spawn(cmd, { stdout: fd ?? "inherit", stderr: fd ?? "inherit", env: { ...process.env, ...env } });
  const code = await p.exited;
  if (fd !== null) closeSync(fd);
  stages.push({ name, seconds: (performance.now() - started) / 1000 });
  return code;
}

function check(name: string, code: number) {
  if (code === 0) passed++;
  else {
    failed++;
    failures.push(name);
  }
}

// The type gate is the stable compiler (tsc, decision 0132): about 45 s of one core where the native
// preview took 15, so it runs beside the lint, the audit and the start of the bun tests and
// Playwright instead of before them; its output is kept in a log and printed at the end.
const typecheckLog = `${TMP}/typecheck.log`;
const typecheck = step("typecheck", ["bun", "run", "typecheck"], {}, typecheckLog);
// Biome's recommended rules (biome.json); any finding fails (scripts/lint.ts, docs/testing.md "The linter").
check("lint", await step("lint", ["bun", "run", "lint"]));

// Dependency audit (scripts/audit.ts): high or critical advisories fail the run. When the advisory
// service cannot be reached (an offline machine, a registry mirror without the audit endpoint) the
// step is reported as not run, and fails only where AUDIT_REQUIRED=1 (the CI that has the registry).
const auditCode = await step("dependency audit", ["bun", "run", "scripts/audit.ts"]);
if (auditCode === 2 && process.env.AUDIT_REQUIRED !== "1") console.log("dependency audit: not run (advisory service unreachable); set AUDIT_REQUIRED=1 to fail on that");
else check("dependency audit", auditCode);

// Playwright runs beside the bun tests: its stage is mostly waiting (page loads, network idle, a
// browser drawing) and the bun tests' own CPU leaves room for it on two cores, so the run takes
// about the longer of the two instead of their sum (docs/testing.md, "Two stages side by side").
// Its server has fixed ports (3999, embedded PostgreSQL 54349) outside the range the bun tests pick
// theirs from (tests/helpers/port.ts).
// TEST_STAGES=serial runs it after them instead (to measure the two ways on one machine).
const pwJson = `${TMP}/playwright.json`;
const pwLog = `${TMP}/playwright.log`;
rmSync(pwJson, { force: true });
const serial = process.env.TEST_STAGES === "serial";
const runPlaywright = () => step("playwright", ["bunx", "playwright", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson }, pwLog);
const early = serial ? null : runPlaywright();

// The bun tests in one process by default. BUN_TEST_WORKERS=N runs them in N (bun's --parallel,
// each taking the next file as it ends one, the slowest first by tests/timings.json; --no-isolate
// keeps one module registry per worker, as one process does), sharing one PostgreSQL: the run's
// DATABASE_URL, or an embedded server started here once for all. Two workers beside Playwright
// more than doubled the run's CPU and took it from 10.6 to 19 minutes on 2 cores (docs/testing.md
// "Bun test workers"), so one stays the default.
const workers = Math.max(1, Number(process.env.BUN_TEST_WORKERS ?? 1) || 1);
const bunEnv: Record<string, string> = {};
let stopEmbedded: (() => Promise<void>) | undefined;
if (!process.env.DATABASE_URL && workers > 1) {
  const { testServerAdminUrl, stopTestServer } = await import("../tests/helpers/server.ts");
  bunEnv.DATABASE_URL = await testServerAdminUrl();
  stopEmbedded = stopTestServer;
}
const junit = `${TMP}/junit.xml`;
rmSync(junit, { force: true });
const parallel = workers > 1 ? [`--parallel=${workers}`, "--no-isolate", "--timings=tests/timings.json"] : [];
const bunCode = await step("bun test", ["bun", "test", ...parallel, "--timeout=60000", "--reporter=junit", `--reporter-outfile=${junit}`], bunEnv);
await stopEmbedded?.();
if (existsSync(junit)) {
  const xml = readFileSync(junit, "utf8");
  const tests = Number((xml.match(/<testsuites[^>]*\btests="(\d+)"/) ?? [])[1] ?? 0);
  const fails = Number((xml.match(/<testsuites[^>]*\bfailures="(\d+)"/) ?? [])[1] ?? 0);
  skipped.bun = Number((xml.match(/<testsuites[^>]*\bskipped="(\d+)"/) ?? [])[1] ?? 0);
  passed += tests - fails - skipped.bun;
  failed += fails;
  if (fails) failures.push(`bun test (${fails})`);
  bunFailed.push(...bunFailures(xml));
  files = fileTimes(xml);
  if (bunCode !== 0 && !fails) check("bun test (runner exit)", bunCode);
} else check("bun test (no report)", 1);

check("contract drift", await step("contract drift check", ["bun", "run", "scripts/generate-contract.ts", "--check"]));

const typecheckCode = await typecheck;
console.log(`\n=== typecheck's output (${typecheckLog})`);
console.log(readFileSync(typecheckLog, "utf8"));
check("typecheck", typecheckCode);

const pwCode = await (early ?? runPlaywright());
console.log(`\n=== playwright's output (${pwLog})`);
console.log(readFileSync(pwLog, "utf8"));
if (existsSync(pwJson)) {
  const r = JSON.parse(readFileSync(pwJson, "utf8")) as PwReport;
  passed += r.stats.expected;
  failed += r.stats.unexpected + r.stats.flaky;
  skipped.playwright = r.stats.skipped ?? 0;
  flaky.push(...flakyTitles(r));
  if (r.stats.unexpected) failures.push(`playwright (${r.stats.unexpected})`);
  if (r.stats.flaky) failures.push(`playwright flaky (${r.stats.flaky})`);
  if (pwCode !== 0 && !r.stats.unexpected && !r.stats.flaky) check("playwright (runner exit)", pwCode);
} else check("playwright (no report)", 1);

const wall = (performance.now() - runStarted) / 1000;
for (const line of closingLines({ stages, files, failures, bunFailed, summary: { passed, failed, skipped, flaky }, wall })) console.log(line);
process.exit(failed ? 1 : 0);
