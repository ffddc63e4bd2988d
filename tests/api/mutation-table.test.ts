// docs/testing.md's mutation scores belong to the code they measured. Each row of its mutation table
// names its modules (scripts/mutation.ts), the commit measured and the sha256 of the modules' program
// as Bun's transpiler prints it (programHash: no comments, types or layout; first 12 hex, as
// `bun run test:mutation` prints it). When a module's behaviour changes, its row's hash no longer
// matches and this test fails until the module is measured again; a reformat leaves it. A row that has not
// been measured since hashes were recorded must say so ("not re-measured"), and then carries no hash:
// its score is marked as an old figure in the table itself, never passed off as current.
import { readFileSync } from "node:fs";
import { describe, expect, test } from "bun:test";
import { FORMER_PATHS, MODULES, moduleFiles, moduleHash, programHash } from "../../scripts/mutation.ts";

interface Row {
  line: string;
  modules: string[];
  score: string;
  measured: string;
}

function mutationTable(): Row[] {
  const doc = readFileSync(new URL("../../docs/testing.md", import.meta.url), "utf8");
  const section = doc.slice(doc.indexOf("## Mutation testing"));
  const lines = section.split("\n");
  const head = lines.findIndex((l) => l.startsWith("| module |"));
  if (head < 0) throw new Error("docs/testing.md: no mutation table (a header starting '| module |')");
  const cols = lines[head]!.split("|").map((c) => c.trim());
  const at = (name: string) => {
    const i = cols.indexOf(name);
    if (i < 0) throw new Error(`docs/testing.md: the mutation table has no column '${name}'`);
    return i;
  };
  const [mod, score, measured] = [at("module"), at("score"), at("measured (commit, sha256)")];
  const rows: Row[] = [];
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith("|")) break;
    const c = line.split("|").map((x) => x.trim());
    rows.push({ line, modules: [...c[mod]!.matchAll(/`([a-z-]+)`/g)].map((m) => m[1]!), score: c[score]!, measured: c[measured]! });
  }
  return rows;
}

/** The module's hash at a commit (programHash of its files there), when git and that commit are at hand (a shallow clone may lack it). */
function hashAt(commit: string, files: string[]): string | null {
  const known = Bun.spawnSync(["git", "cat-file", "-e", `${commit}^{commit}`], { stdout: "ignore", stderr: "ignore" });
  if (known.exitCode !== 0) return null;
  const sources: string[] = [];
  for (const f of files) {
    // The file where it was at that commit: at its path now, else at the path it had before it moved.
    const show = (path: string) => Bun.spawnSync(["git", "show", `${commit}:${path}`], { stdout: "pipe", stderr: "ignore" });
    let p = show(f);
    if (p.exitCode !== 0 && FORMER_PATHS[f]) p = show(FORMER_PATHS[f]);
    if (p.exitCode !== 0) return "(not in that commit)";
    sources.push(p.stdout.toString());
  }
  return programHash(sources);
}

describe("docs/testing.md's mutation scores match the code they measured", () => {
  const rows = mutationTable();
  const measuredRe = /^commit `([0-9a-f]{7,40})`, sha256 `([0-9a-f]{12})`/;

  test("the table has a row for every module of scripts/mutation.ts, and names no other", () => {
    expect(rows.length).toBeGreaterThan(0);
    const named = rows.flatMap((r) => r.modules);
    expect(named.filter((m) => !(m in MODULES))).toEqual([]);
    expect(Object.keys(MODULES).filter((m) => !named.includes(m))).toEqual([]);
  });

  test("each row records the commit and the module's sha256, or says it was not re-measured", () => {
    const neither = rows.filter((r) => !measuredRe.test(r.measured) && !/^not re-measured/.test(r.measured)).map((r) => r.line.slice(0, 80));
    expect(neither).toEqual([]);
    // A row not re-measured says so in its score too, not only in a column further right.
    const unmarked = rows.filter((r) => /^not re-measured/.test(r.measured) && !/^stale\b/.test(r.score)).map((r) => r.modules.join(", "));
    expect(unmarked).toEqual([]);
  });

  test("each recorded hash is the module's source now: else re-measure it", () => {
    const stale: string[] = [];
    for (const r of rows) {
      const m = measuredRe.exec(r.measured);
      if (!m) continue;
      const now = moduleHash(...r.modules);
      if (now !== m[2])
        stale.push(
          `${r.modules.join(" + ")}: the row's sha256 ${m[2]} (commit ${m[1]}) is not the source's now (${now}); ` +
            `re-measure with \`bun run test:mutation ${r.modules.join(" ")}\` and update the row`,
        );
    }
    expect(stale).toEqual([]);
  });

  test("each recorded hash is the module's source at the recorded commit (where git has that commit)", () => {
    const wrong: string[] = [];
    for (const r of rows) {
      const m = measuredRe.exec(r.measured);
      if (!m) continue;
      const files = [...new Set(r.modules.flatMap(moduleFiles))];
      const then = hashAt(m[1]!, files);
      if (then === null) continue;
      if (then !== m[2]) wrong.push(`${r.modules.join(" + ")}: sha256 ${m[2]} recorded, ${then} at commit ${m[1]}`);
    }
    expect(wrong).toEqual([]);
  });
});
