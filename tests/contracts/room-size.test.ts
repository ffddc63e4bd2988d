// Smaller rooms (issue 34): no source file over 400 lines and no function over 80 lines among the
// route files (api/src/domains/*/*.routes.ts) and the CLI's entry (cli/src/main.ts) and program
// (cli/src/program.ts) with the command-group modules it registers (cli/src/commands/*.commands.ts). A file's length is its
// lines (a final newline ends the last line, it does not start another); a function's is the lines
// from its first token to its last, found with the TypeScript compiler's parser: declarations,
// expressions, arrows, methods, constructors and accessors, nested ones measured on their own too.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import ts from "typescript";

const ROOT = resolve(import.meta.dir, "../..");
export const MAX_FILE_LINES = 400;
export const MAX_FUNCTION_LINES = 80;

/** The files the limits apply to, relative to the repository. */
function roomFiles(): string[] {
  const out: string[] = [];
  const domains = join(ROOT, "api/src/domains");
  for (const d of readdirSync(domains, { withFileTypes: true })) {
    if (!d.isDirectory()) continue;
    for (const f of readdirSync(join(domains, d.name))) if (f.endsWith(".routes.ts")) out.push(`api/src/domains/${d.name}/${f}`);
  }
  out.push("cli/src/main.ts", "cli/src/program.ts");
  for (const f of readdirSync(join(ROOT, "cli/src/commands"))) if (f.endsWith(".commands.ts")) out.push(`cli/src/commands/${f}`);
  return out.sort();
}

export function fileLines(text: string): number {
  if (text === "") return 0;
  const n = text.split("\n").length;
  return text.endsWith("\n") ? n - 1 : n;
}

export interface FunctionSpan {
  name: string;
  line: number;
  lines: number;
}

/** Every function-like node of a source text with its line span. */
export function functionSpans(fileName: string, text: string): FunctionSpan[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, true, fileName.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: FunctionSpan[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && "body" in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      out.push({ name: nameOf(node), line: first + 1, lines: last - first + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return out;
}

function nameOf(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  const p = node.parent;
  if (p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name)) return p.name.text;
  if (p && ts.isPropertyAssignment(p) && ts.isIdentifier(p.name)) return p.name.text;
  return "(anonymous)";
}

/** What is over a limit in one file, as lines to print. */
export function overLimits(fileName: string, text: string): string[] {
  const found: string[] = [];
  const n = fileLines(text);
  if (n > MAX_FILE_LINES) found.push(`${fileName}: ${n} lines (at most ${MAX_FILE_LINES})`);
  for (const f of functionSpans(fileName, text)) {
    if (f.lines > MAX_FUNCTION_LINES) found.push(`${fileName}:${f.line} ${f.name}: ${f.lines} lines (at most ${MAX_FUNCTION_LINES})`);
  }
  return found;
}

describe("the measure", () => {
  const body = (k: number) => Array.from({ length: k }, (_, i) => `  const v${i} = ${i};`).join("\n");
  test("a function of 80 lines passes and one of 81 is found, whatever its form", () => {
    // Braces on their own lines: the declaration's line, k body lines, the closing line.
    const at = `export function ok() {\n${body(78)}\n}\n`;
    expect(functionSpans("a.ts", at)).toEqual([{ name: "ok", line: 1, lines: 80 }]);
    expect(overLimits("a.ts", at)).toEqual([]);
    const over = `export function big() {\n${body(79)}\n}\n`;
    expect(overLimits("b.ts", over)).toEqual(["b.ts:1 big: 81 lines (at most 80)"]);
    const arrow = `const x = 1;\nexport const big = async (a: number) => {\n${body(79)}\n};\n`;
    expect(overLimits("c.ts", arrow)).toEqual(["c.ts:2 big: 81 lines (at most 80)"]);
    const nested = `register(app, {\n  handler: (c) => {\n${body(79)}\n  },\n});\n`;
    expect(overLimits("d.ts", nested)).toEqual(["d.ts:2 handler: 81 lines (at most 80)"]);
    const method = `class K {\n  run() {\n${body(79)}\n  }\n}\n`;
    expect(overLimits("e.ts", method)).toEqual(["e.ts:2 run: 81 lines (at most 80)"]);
  });

  test("an outer function is measured with its inner ones, and each inner one on its own", () => {
    const text = `function outer() {\n  const inner = () => {\n${body(40)}\n  };\n${body(40)}\n}\n`;
    expect(functionSpans("f.ts", text)).toEqual([
      { name: "outer", line: 1, lines: 84 },
      { name: "inner", line: 2, lines: 42 },
    ]);
  });

  test("a file of 400 lines passes and one of 401 is found", () => {
    const lines = (k: number) => `${Array.from({ length: k }, (_, i) => `export const c${i} = ${i};`).join("\n")}\n`;
    expect(fileLines(lines(400))).toBe(400);
    expect(overLimits("g.ts", lines(400))).toEqual([]);
    expect(overLimits("h.ts", lines(401))).toEqual(["h.ts: 401 lines (at most 400)"]);
    expect(fileLines("a\nb"), "no final newline: still two lines").toBe(2);
  });
});

test("no route file or CLI command-group file over 400 lines, no function in them over 80", () => {
  const files = roomFiles();
  expect(files.length, "the route files were found").toBeGreaterThan(30);
  expect(files).toContain("cli/src/main.ts");
  expect(files).toContain("cli/src/program.ts");
  expect(files, "the command groups were found").toContain("cli/src/commands/projects.commands.ts");
  const found = files.flatMap((f) => overLimits(relative(ROOT, join(ROOT, f)), readFileSync(join(ROOT, f), "utf8")));
  expect(found).toEqual([]);
});
