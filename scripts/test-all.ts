// bun run test: typecheck, bun tests, the contract drift check and Playwright, then one line
// "N passed, N failed" summing them (bun's JUnit report + Playwright's JSON report; the typecheck
// and the drift check count as one test each). The lines just before it say what the two numbers
// leave out: the skipped tests (counted in neither), and Playwright tests that passed only on a
// retry (flaky), each named; a flaky test counts as failed, never as passed. Before those: each
// stage's wall time and the ten slowest bun test files (from the JUnit report's per-file times).
import { mkdirSync, existsSync, readFileSync, rmSync } from "node:fs";
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

async function step(name: string, cmd: string[], env: Record<string, string> = {}): Promise<number> {
  console.log(`\n=== ${name}: ${cmd.join(" ")}`);
  const started = performance.now();
  const p = Bun.spawn(cmd, { stdout: "inherit", stderr: "inherit", env: { ...process.env, ...env } });
  const code = await p.exited;
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

check("typecheck", await step("typecheck", ["bun", "run", "typecheck"]));

// Dependency audit (scripts/audit.ts): high or critical advisories fail the run. When the advisory
// service cannot be reached (an offline machine, a registry mirror without the audit endpoint) the
// step is reported as not run, and fails only where AUDIT_REQUIRED=1 (the CI that has the registry).
const auditCode = await step("dependency audit", ["bun", "run", "scripts/audit.ts"]);
if (auditCode === 2 && process.env.AUDIT_REQUIRED !== "1") console.log("dependency audit: not run (advisory service unreachable); set AUDIT_REQUIRED=1 to fail on that");
else check("dependency audit", auditCode);

const junit = `${TMP}/junit.xml`;
rmSync(junit, { force: true });
const bunCode = await step("bun test", ["bun", "test", "--timeout=60000", "--reporter=junit", `--reporter-outfile=${junit}`]);
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

const pwJson = `${TMP}/playwright.json`;
rmSync(pwJson, { force: true });
const pwCode = await step("playwright", ["bunx", "playwright", "test", "--reporter=list,json"], { PLAYWRIGHT_JSON_OUTPUT_NAME: pwJson });
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

for (const line of closingLines({ stages, files, failures, bunFailed, summary: { passed, failed, skipped, flaky } })) console.log(line);
process.exit(failed ? 1 : 0);

