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
