// bun run lint: Biome's recommended rules and its formatter (biome.json) over the source trees,
// scripts and tests, as `biome check` (a file the formatter would change is an error; `bun run
// format` writes the formatting). Any finding fails, whatever its level: biome exits non-zero on
// errors and, with --error-on-warnings, on warnings; its infos (useTemplate and a few others) only
// print, so the summary of its JSON report is read for them. Paths to lint may be given (default:
// the whole tree).
import { mkdirSync, readFileSync, rmSync } from "node:fs";

const paths = process.argv.slice(2);
mkdirSync(".tmp", { recursive: true });
const report = `.tmp/biome-lint-${process.pid}.json`;
const p = Bun.spawn(["bunx", "biome", "check", "--error-on-warnings", "--reporter=default", "--reporter=json", `--reporter-file=${report}`, ...(paths.length ? paths : ["."])], {
  stdout: "inherit",
  stderr: "inherit",
});
let code = await p.exited;
try {
  const { summary } = JSON.parse(readFileSync(report, "utf8")) as { summary: { errors: number; warnings: number; infos: number } };
  if (summary.infos > 0) {
    console.error(`lint: ${summary.infos} info finding(s): every finding fails, fix it or turn its rule off with a reason (docs/testing.md "The linter")`);
    code ||= 1;
  }
} catch (e) {
  console.error(`lint: could not read biome's report ${report}: ${e instanceof Error ? e.message : String(e)}`);
  code ||= 1;
} finally {
  rmSync(report, { force: true });
}
process.exit(code);
