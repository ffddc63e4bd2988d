// No import circles in the code we ship: api/src, web/src, cli/src and the packages contracts and
// analytics (which import nothing outside themselves: package-boundaries.test.ts). A circle makes a
// module's exports undefined while the circle loads (the order decides which side sees them), and
// it ties modules that should not know of each other (issue 34 found auth.routes.ts <-> saml.routes.ts,
// ProjectPage.tsx <-> its editor tabs, pages.ts <-> the areas it splits off). The imports are read by
// Bun's own parser (static, re-exported and dynamic), plus `import type` / `export type` ones, and
// the graph's strongly connected components are found (Tarjan); app.ts must still reach every
// routes module.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { importSpecifiers } from "../helpers/imports.ts";

const ROOT = resolve(import.meta.dir, "../..");
const TREES = ["api/src", "web/src", "cli/src", "contracts", "analytics"];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.tsx?$/.test(e.name) && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : []));
}

export function importGraph(files: string[], read: (f: string) => string): Map<string, string[]> {
  const known = new Set(files);
  const find = (p: string) => [p, `${p}.ts`, `${p}.tsx`, join(p, "index.ts"), join(p, "index.tsx")].find((x) => known.has(x));
  const g = new Map<string, string[]>();
  for (const f of files) {
    const deps = importSpecifiers(read(f), f.endsWith(".tsx") ? "tsx" : "ts")
      .filter((s) => s.startsWith("."))
      .map((s) => find(resolve(dirname(f), s)))
      .filter((p): p is string => p !== undefined);
    g.set(f, [...new Set(deps)]);
  }
  return g;
}

/** The graph's circles: each strongly connected component of more than one module, or a module importing itself. */
export function circles(g: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of g.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const part: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        part.push(w);
      } while (w !== v);
      if (part.length > 1 || (g.get(v) ?? []).includes(v)) out.push(part.sort());
    }
  };
  for (const v of g.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("imports", () => {
  test("the reader finds static, type-only, re-exported and dynamic imports, and is not misled by a '/*' in a string", () => {
    const text = [
      'const route = "/api/*";',
      'import { a } from "./a.ts";',
      'import type { B } from "../b.ts";',
      'export { c } from "./c.ts";',
      'export type { C2 } from "./c2.ts";',
      'const d = await import("./d.ts");',
      'import "./e.ts";',
      '// import { x } from "./commented.ts";',
      'const end = "*/";',
      'import { f } from "./f.ts";',
      "f(a, c, d, end, route);",
    ].join("\n");
    expect(importSpecifiers(text).sort()).toEqual(["../b.ts", "./a.ts", "./c.ts", "./c2.ts", "./d.ts", "./e.ts", "./f.ts"]);
  });

  test("a circle is found, through a dynamic import too (the check can fail)", () => {
    const g = new Map([
      ["/pages.ts", ["/Area.tsx"]],
      ["/Area.tsx", ["/Tab.tsx"]],
      ["/Tab.tsx", ["/pages.ts"]],
      ["/leaf.ts", []],
      ["/self.ts", ["/self.ts"]],
    ]);
    expect(circles(g)).toEqual([["/Area.tsx", "/Tab.tsx", "/pages.ts"], ["/self.ts"]]);
    g.set("/Tab.tsx", ["/leaf.ts"]);
    g.set("/self.ts", []);
    expect(circles(g)).toEqual([]);
  });

  for (const tree of TREES) {
    test(`no import circle in ${tree}`, () => {
      const files = sourceFiles(join(ROOT, tree));
      expect(files.length).toBeGreaterThan(0);
      const g = importGraph(files, (f) => readFileSync(f, "utf8"));
      expect(circles(g).map((c) => c.map((f) => relative(ROOT, f)))).toEqual([]);
    });
  }

  test("app.ts reaches every routes module", () => {
    const src = join(ROOT, "api/src");
    const files = sourceFiles(src);
    const app = join(src, "app.ts");
    const g = importGraph(files, (f) => readFileSync(f, "utf8"));
    const reached = new Set<string>();
    const walk = (f: string) => {
      for (const d of g.get(f) ?? []) {
        if (!reached.has(d)) {
          reached.add(d);
          walk(d);
        }
      }
    };
    walk(app);
    const routes = files.filter((f) => f.endsWith(".routes.ts") || f.endsWith("entities/routes.ts"));
    expect(routes.length).toBeGreaterThan(20);
    expect(routes.filter((f) => !reached.has(f)).map((f) => relative(ROOT, f))).toEqual([]);
  });
});
