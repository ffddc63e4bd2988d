#!/usr/bin/env bun
// `ideally` command-line entry. `ideally --version` (also with --json or --api) is answered here
// with nothing else loaded (version-info.ts); every other command line goes to program.ts, which
// sets up commander and the command tree. Issue 38: start-up within 2x of a compiled hello-world.
// No top-level await: kept out of the entry so the bundle stays free to be bytecode either way.
import { printVersion } from "./version-info.ts";

const argv = process.argv;
const rest = argv.slice(2);
const isVersion = (a: string) => a === "--version" || a === "-V";
// `--api URL` and `--api=URL` may stand beside it (they change nothing offline).
const versionOnly = rest.some(isVersion) && rest.every((a, i) => isVersion(a) || a === "--json" || a.startsWith("--api") || rest[i - 1] === "--api");

if (versionOnly) {
  void printVersion(rest.includes("--json"));
} else {
  void import("./program.ts");
}
