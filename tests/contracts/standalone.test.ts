// The repository stands on its own: no test, script, CI step or config reads a path outside it.
// A clone in an empty folder (no sibling folder of specs beside it, another machine's paths absent)
// must pass. The examples below are built from pieces, so this file holds no such path itself.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");

/** Machine folders a repository path never lives in (system paths such as /usr/bin or /tmp are fine). */
const MACHINE_PATH = /["'`](\/(?:work|home|root|Users|mnt|srv|data)\/[^"'`\s]*)/g;
/** A quoted relative path that climbs out of the folder it starts in: "../x", '../../y'. */
const CLIMBING = /["'`]((?:\.\.\/)+[^"'`\s]*)["'`]/g;

/** Where a file's text refers to a path outside the repository, as "line: text" strings, one per line. */
export function outsidePaths(file: string, text: string): string[] {
  const found: string[] = [];
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    const climbsOut = [...line.matchAll(CLIMBING)].some((m) => {
      const rel = relative(ROOT, resolve(dirname(file), m[1]!));
      return rel === ".." || rel.startsWith(`..${sep}`);
    });
    if (climbsOut || MACHINE_PATH.test(line) || /\.\.\/shared\b/.test(line)) found.push(`${i + 1}: ${line.trim()}`);
    MACHINE_PATH.lastIndex = 0;
  });
  return found;
}

function trackedFiles(): string[] {
  const out = Bun.spawnSync(["git", "ls-files", "-z", "tests", "scripts", ".ci", "*.config.ts", "bunfig.toml", "package.json", "tsconfig.json"], {
    cwd: ROOT,
  });
  return out.stdout
    .toString()
    .split("\0")
    .filter((f) => f && !f.startsWith("tests/fixtures/"))
    .filter((f) => /\.(ts|tsx|js|mjs|json|toml|sh|lua|sql)$|^\.ci\//.test(f));
}

describe("the repository stands on its own", () => {
  test("the scanner finds what a fresh clone would miss (and not what it has)", () => {
    const at = (p: string) => resolve(ROOT, p);
    const up3 = "../".repeat(3);
    const sibling = ["sha", "red"].join("");
    const machine = `/${"work"}/${sibling}/reference-data`;
    expect(outsidePaths(at("tests/api/x.test.ts"), `readFileSync(new URL("${up3}${sibling}/SPEC.md", import.meta.url))`)).toHaveLength(1);
    expect(outsidePaths(at("tests/api/x.test.ts"), `const REF = "${machine}";`)).toEqual([`1: const REF = "${machine}";`]);
    expect(outsidePaths(at("tests/api/x.test.ts"), `import { a } from "../../../other/x.ts";`)).toHaveLength(1);
    expect(outsidePaths(at("tests/api/x.test.ts"), `import { a } from "../../api/src/app.ts";`)).toEqual([]);
    expect(outsidePaths(at("tests/api/x.test.ts"), `new URL("../fixtures/reference-data/anes24.csv", import.meta.url)`)).toEqual([]);
    expect(outsidePaths(at("playwright.config.ts"), `executablePath: "/usr/bin/chromium"`)).toEqual([]);
  });

  test("no test, script, CI step or config reads a path outside the repository", () => {
    const files = trackedFiles();
    expect(files.length, "git lists the tests").toBeGreaterThan(50);
    const offenders: string[] = [];
    for (const f of files) {
      if (f === "tests/contracts/standalone.test.ts") continue; // its own examples above
      const hits = outsidePaths(resolve(ROOT, f), readFileSync(resolve(ROOT, f), "utf8"));
      for (const h of hits) offenders.push(`${f}:${h}`);
    }
    expect(offenders).toEqual([]);
  });
});
