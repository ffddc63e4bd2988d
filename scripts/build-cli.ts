// `bun run build:cli`: the `ideally` CLI as one executable, dist/ideally (bun build --compile).
// Ink's optional react-devtools-core is replaced by a stub (cli/src/stubs), since it is not
// installed and the binary never talks to React DevTools; production React, minified. Code
// splitting keeps each command's dynamic import (Ink and React only in `projects watch`) out of
// the entry chunk, so `ideally --version` and `ideally --help` run main.ts alone (the help from the
// generated table, checked fresh before the build) and every other command line commander,
// program.ts and its command-group modules (commands/*.commands.ts); and the chunks ship as
// JavaScriptCore bytecode, so even those are not parsed at start (docs/performance.md).
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { generated } from "./generate-cli-help.ts";

const ROOT = resolve(import.meta.dir, "..");

/** The checkout's commit, stamped into the binary for `ideally --version`. */
function commitOf(root: string): string {
  const r = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: root, stdout: "pipe", stderr: "ignore" });
  return r.exitCode === 0 ? r.stdout.toString().trim() : "";
}

/** The contract's API version (contracts/openapi.json's info.version), stamped for `ideally --version`, which then reads no JSON. */
function contractVersionOf(root: string): string {
  return JSON.parse(readFileSync(resolve(root, "contracts/openapi.json"), "utf8")).info.version;
}

/** The bundle's options, shared with the startup benchmark (tests/perf/cli-startup.bench.ts). */
export function cliBuildOptions(root: string) {
  return {
    entrypoints: [resolve(root, "cli/src/main.ts")],
    target: "bun" as const,
    format: "esm" as const,
    splitting: true,
    bytecode: true,
    minify: true,
    sourcemap: "none" as const,
    define: {
      "process.env.NODE_ENV": JSON.stringify("production"),
      "process.env.IDEALLY_CLI_COMMIT": JSON.stringify(commitOf(root)),
      "process.env.IDEALLY_CONTRACT_VERSION": JSON.stringify(contractVersionOf(root)),
    },
    plugins: [
      {
        name: "stub-react-devtools-core",
        setup(build: Bun.PluginBuilder) {
          build.onResolve({ filter: /^react-devtools-core$/ }, () => ({ path: resolve(root, "cli/src/stubs/react-devtools-core.ts") }));
        },
      },
    ],
  };
}
if (import.meta.main) await buildCli(resolve(ROOT, process.argv[2] ?? "dist/ideally"));

export async function buildCli(outfile: string): Promise<void> {
  const started = performance.now();
  // `ideally --help` is printed from a generated table (cli/src/help-table.generated.ts): no binary with a stale one.
  if (!(await generated()).current) {
    console.error("build:cli: cli/src/help-table.generated.ts is stale; run 'bun run cli-help' and commit");
    process.exit(1);
  }
  const result = await Bun.build({ ...cliBuildOptions(ROOT), compile: { outfile } });
  if (!result.success) {
    for (const log of result.logs) console.error(log);
    process.exit(1);
  }
  console.log(`built ${outfile} in ${Math.round(performance.now() - started)} ms`);
}
