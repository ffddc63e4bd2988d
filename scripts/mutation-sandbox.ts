// Stryker's build command for scripts/mutation.ts, run in each sandbox after its files are copied:
// gives the sandbox a node_modules of its own whose workspace packages (node_modules/@ideally/*)
// are the sandbox's copies, and every other entry a link to the checkout's. Stryker's own
// `symlinkNodeModules` links the checkout's whole node_modules instead, where @ideally/analytics
// leads back to the checkout's unmutated analytics/: a test importing the package by name would
// never meet a mutant (every mutant survives).
//
//   MUTATION_NODE_MODULES=<the checkout's node_modules> bun scripts/mutation-sandbox.ts   (set by mutation.ts)
import { lstatSync, mkdirSync, readdirSync, readFileSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";

/** The workspace folders of a package.json's `workspaces`, by package name. */
export function workspaces(root: string): Map<string, string> {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { workspaces?: string[] };
  const out = new Map<string, string>();
  for (const dir of manifest.workspaces ?? []) out.set((JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")) as { name: string }).name, dir);
  return out;
}

/** Links `into` (a new node_modules) to each entry of `from`, the workspace packages to `root`'s own folders. */
export function linkNodeModules(from: string, into: string, root: string): void {
  const local = workspaces(root);
  mkdirSync(into);
  for (const entry of readdirSync(from)) {
    const scoped = entry.startsWith("@") && lstatSync(join(from, entry)).isDirectory() && [...local.keys()].some((n) => n.startsWith(`${entry}/`));
    if (!scoped) {
      symlinkSync(join(from, entry), join(into, entry));
      continue;
    }
    mkdirSync(join(into, entry));
    for (const name of readdirSync(join(from, entry))) {
      const dir = local.get(`${entry}/${name}`);
      symlinkSync(dir ? resolve(root, dir) : join(from, entry, name), join(into, entry, name));
    }
  }
}

if (import.meta.main) {
  const from = process.env.MUTATION_NODE_MODULES;
  if (!from) throw new Error("MUTATION_NODE_MODULES (the checkout's node_modules) is not set: run through scripts/mutation.ts");
  linkNodeModules(resolve(from), resolve("node_modules"), process.cwd());
}
