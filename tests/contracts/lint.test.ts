// `bun run lint` fails on a finding of any level (docs/testing.md "The linter"): biome itself exits
// 0 on an info (useTemplate) and on a warning without --error-on-warnings, so the script reads its
// report. It fails too on a file Biome's formatter would change, which `bun run format` writes.
// Probed on small files written under tests/ (which biome.json lints and formats) and removed after.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const DIR = join(ROOT, `tests/.lint-probe-${process.pid}`);
mkdirSync(DIR, { recursive: true });
afterAll(() => rmSync(DIR, { recursive: true, force: true }));

function probe(name: string, text: string): string {
  const f = join(DIR, name);
  writeFileSync(f, text);
  return f;
}
const run = (cmd: string[]) => Bun.spawnSync(cmd, { cwd: ROOT, stdout: "pipe", stderr: "pipe" }).exitCode;
const lint = (f: string) => run(["bun", "run", "scripts/lint.ts", f]);

describe("bun run lint", () => {
  test("a clean file passes", () => {
    expect(lint(probe("clean.ts", 'export const greeting = (name: string) => ["Hello", name].join(" ");\n'))).toBe(0);
  });

  test("an info-level finding fails, where biome alone passes it", () => {
    const f = probe("info.ts", 'export const greeting = (name: string) => "Hello " + name;\n');
    expect(run(["bunx", "biome", "lint", f]), "biome exits 0 on an info").toBe(0);
    expect(lint(f)).toBe(1);
  });

  test("a warning-level finding fails", () => {
    expect(lint(probe("warning.ts", 'import { join } from "node:path";\nexport const one = 1;\n'))).toBe(1);
  });

  test("a file the formatter would change fails, and passes once `bun run format` has written it", () => {
    // Single quotes and no semicolon, against biome.json's double quotes and semicolons.
    const f = probe("layout.ts", "export const greeting = (name: string) => ['Hello', name].join(' ')\n");
    expect(lint(f)).toBe(1);
    expect(run(["bun", "run", "format", f])).toBe(0);
    expect(readFileSync(f, "utf8")).toBe('export const greeting = (name: string) => ["Hello", name].join(" ");\n');
    expect(lint(f)).toBe(0);
  });
});
