// app.ts imports every routes module; no module it reaches may import app.ts back (issue 18: the
// routes take `App` and friends from app-types.ts). Reads the import statements of api/src
// (static, re-exports and dynamic import()) and walks the graph from app.ts.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const SRC = join(ROOT, "api/src");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** The relative imports of a source text: `import … from "x"`, `export … from "x"`, `import("x")`, `import "x"`. */
export function importSpecifiers(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const out: string[] = [];
  const re = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;
  for (const m of code.matchAll(re)) out.push(m[1]!);
  return out;
}

export function importGraph(files: string[], read: (f: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const g = new Map<string, string[]>();
  for (const f of files) {
    const deps = importSpecifiers(read(f))
      .filter((s) => s.startsWith("."))
      .map((s) => resolve(dirname(f), s))
      .map((p) => (known.has(p) ? p : known.has(`${p}.ts`) ? `${p}.ts` : p))
      .filter((p) => known.has(p));
    g.set(f, deps);
  }
  return g;
}

/** A chain of imports from `start` back to `start`, or null. */
export function cycleThrough(g: Map<string, string[]>, start: string): string[] | null {
  const seen = new Set<string>();
  const stack: string[] = [start];
  const walk = (f: string): string[] | null => {
    for (const d of g.get(f) ?? []) {
      if (d === start) return [...stack, start];
      if (seen.has(d)) continue;
      seen.add(d);
      stack.push(d);
      const found = walk(d);
      if (found) return found;
      stack.pop();
    }
    return null;
  };
  return walk(start);
}

describe("api/src imports", () => {
  test("the parser finds static, type-only, re-exported and dynamic imports", () => {
    const text = [
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'export { c } from "./c.ts";',
      'const d = await import("./d.ts");',
      'import "./e.ts";',
      '// import { x } from "./commented.ts";',
    ].join("\n");
    expect(importSpecifiers(text)).toEqual(["./a.ts", "../b.ts", "./c.ts", "./d.ts", "./e.ts"]);
  });

  test("a circle through app.ts is found (the check can fail)", () => {
    const g = new Map([
      ["/app.ts", ["/domains/index.ts"]],
      ["/domains/index.ts", ["/domains/x.routes.ts"]],
      ["/domains/x.routes.ts", ["/app.ts"]],
    ]);
    expect(cycleThrough(g, "/app.ts")).toEqual(["/app.ts", "/domains/index.ts", "/domains/x.routes.ts", "/app.ts"]);
    g.set("/domains/x.routes.ts", ["/app-types.ts"]);
    expect(cycleThrough(g, "/app.ts")).toBeNull();
  });

  test("no module that app.ts reaches imports app.ts (no circle between app.ts and the routes modules)", () => {
    const files = sourceFiles(SRC);
    const app = join(SRC, "app.ts");
    expect(files).toContain(app);
    const g = importGraph(files, (f) => readFileSync(f, "utf8"));
    // The walk covers the routes: app.ts reaches every *.routes.ts module.
    const reached = new Set<string>();
    const visit = (f: string) => {
      for (const d of g.get(f) ?? []) if (!reached.has(d)) (reached.add(d), visit(d));
    };
    visit(app);
    const routes = files.filter((f) => f.endsWith(".routes.ts") || f.endsWith("entities/routes.ts"));
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((f) => !reached.has(f)).map((f) => relative(ROOT, f))).toEqual([]);
    const circle = cycleThrough(g, app);
    expect(circle?.map((f) => relative(ROOT, f)) ?? null).toBeNull();
    // And no routes module imports app.ts directly.
    expect(routes.filter((f) => (g.get(f) ?? []).includes(app)).map((f) => relative(ROOT, f))).toEqual([]);
  });
});
