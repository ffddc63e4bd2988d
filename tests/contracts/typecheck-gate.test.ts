// The type gate is the stable TypeScript compiler (issue 34): `bun run typecheck` runs `tsc` from
// the `typescript` package, pinned to a release (no nightly, beta or release candidate), and
// `bun run test` runs that script; the native preview (`tsgo`) stays as `typecheck:fast`, a quicker
// local check that is not the gate.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const json = (f: string): unknown => JSON.parse(readFileSync(join(ROOT, f), "utf8"));
const pkg = json("package.json");
const field = (o: unknown, ...path: string[]): unknown => path.reduce<unknown>((v, k) => (typeof v === "object" && v !== null && k in v ? Reflect.get(v, k) : undefined), o);

test("bun run typecheck is tsc, the stable compiler; tsgo is typecheck:fast", () => {
  // Incremental (decision 0132): the build info, kept under node_modules (never committed), lets a
  // second run re-check only the files a change reaches; with none (a clean clone) it checks all.
  expect(field(pkg, "scripts", "typecheck")).toBe("tsc --noEmit -p . --incremental --tsBuildInfoFile node_modules/.cache/ideally/typecheck.tsbuildinfo");
  expect(field(pkg, "scripts", "typecheck:fast")).toBe("tsgo --noEmit -p .");
});

test("typescript is pinned to a stable release, and that release is the one installed", () => {
  const pinned = field(pkg, "devDependencies", "typescript");
  expect(pinned, "an exact x.y.z, no range, no pre-release").toMatch(/^\d+\.\d+\.\d+$/);
  expect(field(json("node_modules/typescript/package.json"), "version")).toBe(pinned);
});

test("bun run test runs the gate (bun run typecheck), not the fast check", () => {
  const text = readFileSync(join(ROOT, "scripts/test-all.ts"), "utf8");
  expect(text).toContain('["bun", "run", "typecheck"]');
  expect(text).not.toContain("typecheck:fast");
  expect(text).not.toContain("tsgo");
});
