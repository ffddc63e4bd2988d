// The mutation sandbox's node_modules (scripts/mutation-sandbox.ts): its workspace packages are the
// sandbox's own copies, every other package the checkout's. With Stryker's default (the sandbox's
// node_modules one link to the checkout's), @ideally/analytics led back to the checkout's unmutated
// files and every mutant of an analytics module survived (docs/testing.md, "Mutation testing").
import { afterAll, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { linkNodeModules, workspaces } from "../../scripts/mutation-sandbox.ts";

const dir = mkdtempSync(join(tmpdir(), "mutation-sandbox-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A checkout-like folder: package.json with workspaces, the packages, and node_modules linking them as bun does. */
function tree(root: string, withNodeModules: boolean): void {
  mkdirSync(join(root, "analytics"), { recursive: true });
  mkdirSync(join(root, "contracts"), { recursive: true });
  writeFileSync(join(root, "package.json"), JSON.stringify({ workspaces: ["contracts", "analytics"] }));
  writeFileSync(join(root, "analytics/package.json"), JSON.stringify({ name: "@ideally/analytics" }));
  writeFileSync(join(root, "contracts/package.json"), JSON.stringify({ name: "@ideally/contracts" }));
  if (!withNodeModules) return;
  mkdirSync(join(root, "node_modules/@ideally"), { recursive: true });
  mkdirSync(join(root, "node_modules/@types/bun"), { recursive: true });
  mkdirSync(join(root, "node_modules/zod"), { recursive: true });
  symlinkSync("../../analytics", join(root, "node_modules/@ideally/analytics"));
  symlinkSync("../../contracts", join(root, "node_modules/@ideally/contracts"));
}

test("the workspace packages are read from package.json", () => {
  const root = join(dir, "w");
  tree(root, false);
  expect([...workspaces(root)]).toEqual([
    ["@ideally/contracts", "contracts"],
    ["@ideally/analytics", "analytics"],
  ]);
});

test("in the sandbox, @ideally/* are the sandbox's folders and the rest the checkout's; one link to the checkout's node_modules is not", () => {
  const checkout = join(dir, "checkout");
  const sandbox = join(dir, "sandbox");
  tree(checkout, true);
  tree(sandbox, false);
  linkNodeModules(join(checkout, "node_modules"), join(sandbox, "node_modules"), sandbox);
  const real = (p: string) => realpathSync(join(sandbox, "node_modules", p));
  expect(real("@ideally/analytics")).toBe(realpathSync(join(sandbox, "analytics")));
  expect(real("@ideally/contracts")).toBe(realpathSync(join(sandbox, "contracts")));
  expect(real("zod")).toBe(realpathSync(join(checkout, "node_modules/zod")));
  expect(real("@types/bun")).toBe(realpathSync(join(checkout, "node_modules/@types/bun")));
  // Stryker's default: the checkout's node_modules linked whole, and the package is the checkout's.
  const stryker = join(dir, "stryker-default");
  tree(stryker, false);
  symlinkSync(join(checkout, "node_modules"), join(stryker, "node_modules"));
  expect(realpathSync(join(stryker, "node_modules/@ideally/analytics"))).toBe(realpathSync(join(checkout, "analytics")));
});
