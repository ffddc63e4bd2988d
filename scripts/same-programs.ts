// bun run scripts/same-programs.ts A B [dir ...]: whether a change between two commits (a format)
// changed any program. For every .ts/.tsx file (not .d.ts) under the dirs at B (default: api/src),
// compares its program at A and at B as Bun's transpiler prints it, whitespace minified (no
// comments, types or layout: scripts/mutation.ts programHash, record 0142). Prints the counts and
// each file whose program differs; exits 1 if any does.
//
//   bun run scripts/same-programs.ts HEAD~1 HEAD api/src
const [a, b, ...args] = process.argv.slice(2);
if (!a || !b) {
  console.error("usage: bun run scripts/same-programs.ts A B [dir ...]");
  process.exit(2);
}
const dirs = args.length ? args : ["api/src"];

function git(...argv: string[]): string {
  const p = Bun.spawnSync(["git", ...argv], { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`git ${argv.join(" ")}: ${p.stderr.toString().trim()}`);
  return p.stdout.toString();
}
/** The file's text at a commit, or null where it is not. */
function at(commit: string, file: string): string | null {
  const p = Bun.spawnSync(["git", "show", `${commit}:${file}`], { stdout: "pipe", stderr: "pipe" });
  return p.exitCode === 0 ? p.stdout.toString() : null;
}

const transpilers = { ts: new Bun.Transpiler({ loader: "ts", minifyWhitespace: true }), tsx: new Bun.Transpiler({ loader: "tsx", minifyWhitespace: true }) };
const files = git("ls-tree", "-r", "--name-only", b, "--", ...dirs)
  .split("\n")
  .filter((f) => /\.tsx?$/.test(f) && !f.endsWith(".d.ts"));
let textChanged = 0;
const differ: string[] = [];
for (const f of files) {
  const before = at(a, f);
  const after = at(b, f) ?? "";
  if (before === null) {
    differ.push(`${f} (not at ${a})`);
    continue;
  }
  if (before !== after) textChanged++;
  const t = f.endsWith(".tsx") ? transpilers.tsx : transpilers.ts;
  if (t.transformSync(before) !== t.transformSync(after)) differ.push(f);
}
console.log(`${files.length} files under ${dirs.join(", ")}: text changed in ${textChanged}, program the same in ${files.length - differ.length}, different in ${differ.length}`);
for (const f of differ) console.log(`  program differs: ${f}`);
process.exit(differ.length ? 1 : 0);
