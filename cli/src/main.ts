#!/usr/bin/env bun
// `ideally` command-line entry. `ideally --version` (also with --json or --api) is answered here
// with nothing else loaded (version-info.ts), and so is the top-level `ideally --help` (or `-h`,
// alone, or `ideally` with no arguments): printed from the table generated from the command tree (help-table.ts,
// help-table.generated.ts), the same bytes as commander's. Every other command line goes to
// program.ts, which sets up commander and the command tree. Issue 38: start-up within 2x of a
// compiled hello-world.
// No top-level await: kept out of the entry so the bundle stays free to be bytecode either way.
import { terminalWidth } from "./help-fit.ts";
import { TOP_HELP } from "./help-table.generated.ts";
import { helpText } from "./help-table.ts";
import { printVersion } from "./version-info.ts";

const argv = process.argv;
const rest = argv.slice(2);
const isVersion = (a: string) => a === "--version" || a === "-V";
// `--api URL` and `--api=URL` may stand beside it (they change nothing offline).
const versionOnly = rest.some(isVersion) && rest.every((a, i) => isVersion(a) || a === "--json" || a.startsWith("--api") || rest[i - 1] === "--api");
// The top-level help alone, or no arguments at all (as `gh` run bare: the help on stdout, exit 0;
// docs/cli.md "Exit codes"); `ideally help` and `ideally <command> --help` stay commander's.
const helpOnly = rest.length === 0 || (rest.length === 1 && (rest[0] === "--help" || rest[0] === "-h"));

if (versionOnly) {
  void printVersion(rest.includes("--json"));
} else if (helpOnly) {
  // console.log, as program.ts's writeOut: process.stdout is built on first use and costs more than the rest.
  console.log(helpText(TOP_HELP, terminalWidth()).replace(/\n$/, ""));
} else {
  void import("./program.ts").then((p) => p.runProgram(argv));
}
