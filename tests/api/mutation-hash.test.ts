// The hash a mutation row pins (scripts/mutation.ts programHash, moduleHash) is of the module's
// program as Bun's transpiler prints it: a formatter's rewrite (layout, quotes, semicolons,
// trailing commas, parentheses, number spellings), comments and types leave it as it was; a change
// of behaviour (an operator, a constant, a statement) changes it. Each is checked here on a small
// program written both ways by hand and on every module the mutation table names, formatted by
// Biome with settings unlike the house's and changed by one operator.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, test } from "bun:test";
import { MODULES, moduleFiles, moduleHash, programHash } from "../../scripts/mutation.ts";

const ROOT = resolve(import.meta.dir, "../..");

const written = `// The price, rounded up.
import type { Region } from "./regions";
export const RATE = 1.50;
/** Whole credits. */
export function cost(r: Region, n: number): number {
  if (n <= 0) return 0
  const x = n * RATE + (r.boost ? 0.25 : 0)  // the boost
  return Math.ceil(x)
}
export const label = (r: Region) => 'region ' + r.name
`;

// The same program as another formatter (and another author's comments and types) would write it.
const reformatted = `import type {Region} from './regions'

export const RATE = 1.5

export function cost(
\tr: Region & { extra?: string },
\tn: number,
) {
\t/* nothing below 1 */
\tif (n <= 0)
\t\treturn 0
\tconst x = (n * RATE) + (r.boost ? .25 : 0)
\treturn Math.ceil(x)
}
export const label = (r: Region): string => "region " + r.name
`;

describe("programHash: layout, comments and types leave it, behaviour changes it", () => {
  test("a program and its reformatted copy hash alike", () => {
    expect(reformatted).not.toBe(written);
    expect(programHash([reformatted])).toBe(programHash([written]));
  });

  test("an operator, a constant, a string or a statement changed: another hash", () => {
    const changes: [string, string][] = [
      ["n <= 0", "n < 0"],
      ["n * RATE", "n / RATE"],
      ["1.50", "1.51"],
      ["0.25", "0.5"],
      ["'region '", "'Region '"],
      ["Math.ceil(x)", "Math.round(x)"],
      ["  if (n <= 0) return 0\n", ""],
    ];
    for (const [from, to] of changes) {
      expect(written).toContain(from);
      expect(programHash([written.replace(from, to)]), `${from} -> ${JSON.stringify(to)}`).not.toBe(programHash([written]));
    }
  });

  const files = [...new Set(Object.keys(MODULES).flatMap(moduleFiles))];

  test("every module of the mutation table, formatted by Biome unlike the house style, keeps its hash", () => {
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const source = readFileSync(resolve(ROOT, file), "utf8");
      const p = Bun.spawnSync(
        [
          resolve(ROOT, "node_modules/.bin/biome"),
          "format",
          "--javascript-formatter-enabled=true",
          "--line-width=40",
          "--indent-style=tab",
          "--javascript-formatter-quote-style=single",
          "--semicolons=as-needed",
          "--trailing-commas=none",
          "--arrow-parentheses=as-needed",
          "--bracket-spacing=false",
          `--stdin-file-path=${file}`,
        ],
        { cwd: ROOT, stdin: Buffer.from(source), stdout: "pipe", stderr: "pipe" },
      );
      expect(p.exitCode, `${file}: ${p.stderr.toString()}`).toBe(0);
      const formatted = p.stdout.toString();
      expect(formatted, `${file}: the format changed its text`).not.toBe(source);
      expect(programHash([formatted]), file).toBe(programHash([source]));
    }
  }, 120_000);

  test("every module of the mutation table with one operator or constant changed has another hash", () => {
    // The first code line (not a comment line; the change before any comment on it) holding one of
    // these operators, its first one changed; in a module without them, its first whole number + 1.
    const swaps: [string, string][] = [
      [" === ", " !== "],
      [" < ", " <= "],
      [" * ", " / "],
      [" + ", " - "],
    ];
    const changes: ((code: string) => string | null)[] = [
      ...swaps.map(
        ([from, to]) =>
          (code: string) =>
            code.includes(from) ? code.replace(from, to) : null,
      ),
      (code: string) => (/\b\d+\b/.test(code) ? code.replace(/\b\d+\b/, (n) => String(Number(n) + 1)) : null),
    ];
    const codeOf = (line: string) => (/^\s*(\/\/|\/\*|\*)/.test(line) ? "" : line.replace(/\/\/.*$/, ""));
    for (const file of files) {
      const source = readFileSync(resolve(ROOT, file), "utf8");
      const lines = source.split("\n");
      let changed: string | null = null;
      for (const change of changes) {
        const i = lines.findIndex((l) => change(codeOf(l)) !== null);
        if (i < 0) continue;
        const code = codeOf(lines[i]!);
        changed = [...lines.slice(0, i), change(code)! + lines[i]!.slice(code.length), ...lines.slice(i + 1)].join("\n");
        break;
      }
      expect(changed, `${file}: an operator or a number to change`).not.toBeNull();
      expect(changed).not.toBe(source);
      expect(programHash([changed!]), file).not.toBe(programHash([source]));
    }
  });

  test("a module's hash is the hash of its files' programs, one after another", () => {
    expect(moduleHash("cost")).toBe(programHash([readFileSync(resolve(ROOT, "api/src/domains/credits/cost.ts"), "utf8")]));
    expect(moduleHash("ledger", "ledger-writes")).toBe(moduleHash("ledger"));
  });
});
