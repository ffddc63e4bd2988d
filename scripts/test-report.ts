// The closing lines of `bun run test` (scripts/test-all.ts), pure so they can be tested: what was
// skipped and what passed only on a retry, then "N passed, N failed" as the very last line.

interface PwSpec {
  title: string;
  file?: string;
  tests: { status?: string; results: { status: string }[] }[];
}
interface PwSuite {
  title: string;
  specs?: PwSpec[];
  suites?: PwSuite[];
}
export interface PwReport {
  stats: { expected: number; unexpected: number; flaky: number; skipped?: number };
  suites?: PwSuite[];
}

/** The titles of the Playwright tests whose outcome was "flaky" (failed, then passed on a retry). */
export function flakyTitles(r: PwReport): string[] {
  const out: string[] = [];
  const walk = (s: PwSuite, path: string[]) => {
    const here = s.title ? [...path, s.title] : path;
    for (const spec of s.specs ?? []) {
      if (spec.tests.some((t) => t.status === "flaky")) out.push([...here, spec.title].join(" > "));
    }
    for (const c of s.suites ?? []) walk(c, here);
  };
  for (const s of r.suites ?? []) walk(s, []);
  return out;
}

const entity: Record<string, string> = { quot: '"', amp: "&", lt: "<", gt: ">", apos: "'" };
const unescapeXml = (x: string): string =>
  x.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) => (e[0] === "#" ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (entity[e] ?? m)));
const attr = (attrs: string, name: string): string => unescapeXml((attrs.match(new RegExp(`\\b${name}="([^"]*)"`)) ?? [])[1] ?? "");

/**
 * The failed tests of bun's JUnit report, a line each: file > describe > test: the message on one
 * line, cut at 500 characters. The CI log shows only its last lines, and bun names a failing
 * top-level hook "(unnamed)" with no file: this says which file and why.
 */
export function bunFailures(xml: string): string[] {
  const out: string[] = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const failure = (m[2] ?? "").match(/<failure\b([^>]*?)(?:\/>|>)/);
    if (!failure) continue;
    const where = [attr(m[1]!, "file"), attr(m[1]!, "classname"), attr(m[1]!, "name")].filter(Boolean).join(" > ");
    let message = attr(failure[1]!, "message").replace(/\s+/g, " ").trim();
    if (message.length > 500) message = `${message.slice(0, 499)}…`;
    out.push(`${where}: ${message}`);
  }
  return out;
}

export interface Summary {
  passed: number;
  failed: number;
  skipped: { bun: number; playwright: number };
  /** Playwright tests that passed only on a retry; already counted in `failed`. */
  flaky: string[];
}

export function summaryLines(s: Summary): string[] {
  const skipped = s.skipped.bun + s.skipped.playwright;
  return [
    `skipped: ${skipped} (bun test ${s.skipped.bun}, playwright ${s.skipped.playwright}), counted neither passed nor failed`,
    `retried: ${s.flaky.length} passed only on a retry (flaky, counted as failed)${s.flaky.length ? `: ${s.flaky.join("; ")}` : ""}`,
    `${s.passed} passed, ${s.failed} failed`,
  ];
}

export interface FileTime {
  file: string;
  seconds: number;
}

/**
 * Seconds per test file from bun's JUnit report: the time of each file's outermost testsuite, which
 * covers its hooks (a beforeAll that fields the panel counts) and not only its tests. A report whose
 * file suites carry no time falls back to the sum of the file's testcases.
 */
export function fileTimes(xml: string): FileTime[] {
  const own = new Map<string, number>();
  const summed = new Map<string, number>();
  let depth = 0;
  for (const m of xml.matchAll(/<(\/?)(testsuites|testsuite|testcase)\b([^>]*?)(\/?)>/g)) {
    const [, close, tag, attrs, selfClosing] = m;
    if (tag === "testsuite") {
      if (close) depth--;
      else {
        if (depth === 0) {
          const file = attr(attrs!, "file") || attr(attrs!, "name");
          const t = attr(attrs!, "time");
          if (file && t !== "" && Number.isFinite(Number(t))) own.set(file, (own.get(file) ?? 0) + Number(t));
        }
        if (!selfClosing) depth++;
      }
    } else if (tag === "testcase" && !close) {
      const file = attr(attrs!, "file");
      const t = Number(attr(attrs!, "time"));
      if (file && Number.isFinite(t)) summed.set(file, (summed.get(file) ?? 0) + t);
    }
  }
  for (const [file, t] of summed) if (!own.has(file)) own.set(file, t);
  return [...own].map(([file, seconds]) => ({ file, seconds }));
}

export interface StageTime {
  name: string;
  seconds: number;
}

const secs = (s: number): string => `${s.toFixed(1)} s`;

/**
 * The time lines of `bun run test`: each stage's wall time and the run's, then the `n` slowest bun
 * test files (slowest first, ties by name), with how many files there were and their sum. `wall`:
 * the whole run's wall time when stages ran side by side (their sum would overstate it); without
 * it the stages ran one after another and the total is their sum.
 */
export function timingLines(stages: StageTime[], files: FileTime[], n = 10, wall?: number): string[] {
  const out: string[] = [];
  const total = wall ?? stages.reduce((a, s) => a + s.seconds, 0);
  out.push(`time per stage: ${stages.map((s) => `${s.name} ${secs(s.seconds)}`).join(", ")}; total ${secs(total)}${wall === undefined ? "" : " (wall clock, stages side by side)"}`);
  if (files.length) {
    const sum = files.reduce((a, f) => a + f.seconds, 0);
    const slowest = [...files].sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0)).slice(0, n);
    out.push(`slowest bun test files (${slowest.length} of ${files.length}, which took ${secs(sum)} in all):`);
    const width = Math.max(...slowest.map((f) => secs(f.seconds).length));
    for (const f of slowest) out.push(`  ${secs(f.seconds).padStart(width)}  ${f.file}`);
  }
  return out;
}

/**
 * Everything `bun run test` prints after its stages, in order: the time lines, the failed stages
 * and bun tests, then summaryLines, so "N passed, N failed" stays the very last line.
 */
export function closingLines(c: { stages: StageTime[]; files: FileTime[]; failures: string[]; bunFailed: string[]; summary: Summary; wall?: number }): string[] {
  return [
    "",
    ...timingLines(c.stages, c.files, 10, c.wall),
    ...(c.failures.length ? ["", `failed: ${c.failures.join(", ")}`] : []),
    ...c.bunFailed.map((f) => `bun test failed: ${f}`),
    ...summaryLines(c.summary),
  ];
}
