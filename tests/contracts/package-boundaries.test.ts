// Package boundaries (issue 34, docs/decisions/0139): `contracts/` (@ideally/contracts) and
// `analytics/` (@ideally/analytics) are workspace packages, imported by their names through their
// `exports` maps, never by a relative path into their folders; a package reaches nothing outside
// its folder by a relative path, and imports only what its package.json declares. Beside them the
// root package holds three programs, api/src (the server), web/src (the browser app) and cli/src
// (the `ideally` binary), and none of them imports another's src by a relative path: what two of
// them share lives in a package. tests/ and scripts/ belong to the root package and may reach the
// programs' sources, but the packages only by name. Imports are read as import-cycles.test.ts
// reads them (static, re-exported, dynamic and type-only).
import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { importSpecifiers } from "../helpers/imports.ts";

const ROOT = resolve(import.meta.dir, "../..");

/** The workspace packages, by folder: their names and what they may import (their package.json). */
const PACKAGES = ["contracts", "analytics"] as const;
/** The programs of the root package: none may import another's sources by a relative path. */
const PROGRAMS = ["api/src", "web/src", "cli/src"] as const;
/** Where the root package's code lives. */
const ROOT_TREES = [...PROGRAMS, "tests", "scripts"];

const inside = (rel: string, dir: string) => rel === dir || rel.startsWith(`${dir}/`);
const toPosix = (p: string) => p.split(sep).join("/");

/**
 * The boundary a relative import crosses, or null: `file` and `spec` as written (the file's path
 * relative to the repository root, forward slashes).
 */
export function crossing(file: string, spec: string): string | null {
  if (!spec.startsWith(".")) return null;
  const target = toPosix(relative(ROOT, resolve(ROOT, dirname(file), spec)));
  for (const pkg of PACKAGES) {
    if (inside(file, pkg) && !inside(target, pkg)) return `${file} reaches ${target} outside its package ${pkg}/`;
    if (!inside(file, pkg) && inside(target, pkg)) return `${file} imports ${target} by a relative path: import @ideally/${pkg} by name`;
  }
  const from = PROGRAMS.find((p) => inside(file, p));
  const to = PROGRAMS.find((p) => inside(target, p));
  if (from && to && from !== to) return `${file} imports ${target}, another program's src: share it through a package`;
  return null;
}

/** The package a bare specifier names: `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
export function packageOf(spec: string): string {
  const parts = spec.split("/");
  return spec.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!;
}

function sourceFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.name === "node_modules" ? [] : e.isDirectory() ? sourceFiles(join(dir, e.name)) : /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith(".d.ts") ? [join(dir, e.name)] : [],
  );
}

const imports = (abs: string) => importSpecifiers(readFileSync(abs, "utf8"), abs.endsWith(".tsx") ? "tsx" : "ts");

describe("package boundaries", () => {
  test("the check finds a relative import across a boundary, and passes one inside a package or a program", () => {
    // The climbing specifiers built from pieces: standalone.test.ts reads quoted "../" paths as paths outside the repository.
    const up = (n: number) => "../".repeat(n);
    expect(crossing("cli/src/commands/analyze/rake.ts", `${up(4)}analytics/rake.ts`)).toContain("import @ideally/analytics by name");
    expect(crossing("cli/src/commands/analyze/rake.ts", `${up(4)}api/src/analytics/rake.ts`)).toContain("another program's src");
    expect(crossing("web/src/features/results/filters.ts", `${up(4)}contracts/labels`)).toContain("import @ideally/contracts by name");
    expect(crossing("tests/contracts/odata.test.ts", `${up(2)}contracts/odata.ts`)).toContain("import @ideally/contracts by name");
    expect(crossing("scripts/x.ts", `${up(1)}analytics/csv.ts`)).toContain("import @ideally/analytics by name");
    expect(crossing("contracts/events.ts", `${up(1)}api/src/jobs/channel.ts`)).toContain("outside its package contracts/");
    expect(crossing("analytics/design.ts", `${up(1)}api/src/errors.ts`)).toContain("outside its package analytics/");
    expect(crossing("web/src/api/client.ts", `${up(3)}api/src/app.ts`)).toContain("another program's src");
    // Inside one package or program, and the root package's tests and scripts reaching a program: fine.
    expect(crossing("analytics/design.ts", "./significance.ts")).toBeNull();
    expect(crossing("contracts/odata.ts", "./client")).toBeNull();
    expect(crossing("web/src/app/App.tsx", `${up(1)}api/errors`)).toBeNull();
    expect(crossing("tests/api/x.test.ts", `${up(2)}api/src/app.ts`)).toBeNull();
    expect(crossing("scripts/mutation.ts", `${up(1)}api/src/db/embedded.ts`)).toBeNull();
    expect(crossing("cli/src/main.ts", "@ideally/analytics/rake")).toBeNull();
    expect(packageOf("@ideally/contracts/odata")).toBe("@ideally/contracts");
    expect(packageOf("sentiment/languages/en/labels.json")).toBe("sentiment");
  });

  test("no file imports a package by a relative path, and no program imports another's src", () => {
    const files = [...PACKAGES, ...ROOT_TREES].flatMap((d) => sourceFiles(join(ROOT, d)));
    expect(files.length).toBeGreaterThan(500);
    const found: string[] = [];
    for (const abs of files) {
      const file = toPosix(relative(ROOT, abs));
      for (const spec of imports(abs)) {
        const c = crossing(file, spec);
        if (c) found.push(c);
      }
    }
    expect(found).toEqual([]);
  });

  for (const pkg of PACKAGES) {
    test(`${pkg}/ is the workspace package @ideally/${pkg}: imported by name, through its exports, declaring what it imports`, () => {
      const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
      const manifest = JSON.parse(readFileSync(join(ROOT, pkg, "package.json"), "utf8"));
      expect(manifest.name).toBe(`@ideally/${pkg}`);
      expect(root.workspaces).toContain(pkg);
      expect(root.dependencies[`@ideally/${pkg}`]).toBe("workspace:*");
      // Every export names a file of the package, and every import of it by name is an export.
      const exported = new Set(Object.keys(manifest.exports).map((k: string) => (k === "." ? manifest.name : `${manifest.name}/${k.slice(2)}`)));
      // An export is a file, or files by condition ({ "types": ..., "default": ... }).
      const targets = Object.values(manifest.exports).flatMap((t) => (typeof t === "string" ? [t] : Object.values(t as Record<string, string>)));
      for (const target of targets) expect(existsSync(join(ROOT, pkg, target)), target).toBe(true);
      const unexported: string[] = [];
      for (const abs of [...ROOT_TREES, ...PACKAGES].flatMap((d) => sourceFiles(join(ROOT, d))))
        for (const spec of imports(abs)) if (packageOf(spec) === manifest.name && !exported.has(spec)) unexported.push(`${relative(ROOT, abs)}: ${spec}`);
      expect(unexported).toEqual([]);
      // What the package imports by name is in its own dependencies (it must install on its own).
      const declared = new Set(Object.keys(manifest.dependencies ?? {}));
      const undeclared = new Set<string>();
      for (const abs of sourceFiles(join(ROOT, pkg)))
        for (const spec of imports(abs)) if (!spec.startsWith(".") && !spec.startsWith("node:") && !spec.startsWith("bun:") && !declared.has(packageOf(spec))) undeclared.add(packageOf(spec));
      expect([...undeclared]).toEqual([]);
    });
  }
});
