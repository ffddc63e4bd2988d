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
  x.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) =>
    e[0] === "#" ? String.fromCodePoint(e[1] === "x" || e[1] === "X" ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (entity[e] ?? m),
  );
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
