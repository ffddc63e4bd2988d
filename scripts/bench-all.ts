// bun run bench: every benchmark of tests/perf with short settings, one after the other, and a line
// per benchmark appended to docs/performance.md's "Regression log" (date, commit, the figure the
// benchmark prints, its verdict, how long it took, the host's load average), so a regression shows
// the day it lands. Not part of `bun run test`: the figures are ratios and rates on a shared host.
//
//   bun run bench                        load, odata, results, crosstab, cli, results-web, chat-web, fair
//   bun run bench --only load,odata      some of them (names as above, or cluster)
//   bun run bench --no-log               print only, docs/performance.md untouched
//
// The browser benchmarks need the built web app (bun run build) and Playwright's Chromium; the
// cluster benchmark (--only cluster) needs pgbouncer and PostgreSQL's server programs. The
// environment passes through (DATABASE_URL, BENCH_PORT, BENCH_DB_PREFIX ...).
import { loadavg } from "node:os";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "..");
const DOC = join(ROOT, "docs/performance.md");
const HEADING = "## Regression log (`bun run bench`)";

interface Bench {
  name: string;
  script: string;
  /** The short settings. */
  env: Record<string, string>;
  /** The figure to log, from the benchmark's output. */
  pick(out: string): string | null;
}

const lastMatch = (out: string, re: RegExp) =>
  out
    .split("\n")
    .filter((l) => re.test(l))
    .at(-1)
    ?.trim() ?? null;
const port = Number(process.env.BENCH_PORT ?? 0);
const prefix = process.env.BENCH_DB_PREFIX;

/** The line `BENCH_RESULT {...}` a benchmark prints for this script. */
function result(out: string): string | null {
  const line = lastMatch(out, /^BENCH_RESULT /);
  if (!line) return null;
  return (JSON.parse(line.slice("BENCH_RESULT ".length)) as { figure: string }).figure;
}

export const BENCHES: Bench[] = [
  { name: "load", script: "tests/perf/load.bench.ts", env: { BENCH_CONNECTIONS: "32", BENCH_SECONDS: "4" }, pick: result },
  {
    name: "odata",
    script: "tests/perf/odata-expand.bench.ts",
    // 20 pairs (the benchmark's own default is 40): the median's 95% interval is about +-0.05, so a
    // row below 0.8 within it is noise, one below its interval's low end a regression.
    env: { BENCH_PAIRS: "20" },
    pick: (out) => {
      const m = /ratio full\/bare \(median of pairs\): ([\d.]+)(?:, 95% interval ([\d.]+-[\d.]+))?/.exec(out);
      const rates = /bare: (\d+) req\/s\s+full stack[^:]*: (\d+) req\/s/.exec(out);
      return m ? `full/bare ${m[1]}${m[2] ? ` (95% interval ${m[2]})` : ""}${rates ? ` (bare ${rates[1]}, full ${rates[2]} req/s)` : ""}` : null;
    },
  },
  {
    name: "results",
    script: "tests/perf/results.bench.ts",
    env: { BENCH_RUNS: "11", BENCH_NAIVE_RUNS: "2" },
    pick: (out) => {
      const rows = out.split("\n").filter((l) => /^(QualResults|ResponsesCount)\s+[\d.]+/.test(l));
      return rows.length ? `${rows.map((l) => l.replace(/\s+/g, " ").trim()).join("; ")} (p50 ms service, naive, scan; service/scan; naive/service)` : null;
    },
  },
  {
    name: "crosstab",
    script: "tests/perf/crosstab.bench.ts",
    env: {},
    pick: (out) => {
      const cases = out
        .split("\n")
        .filter((l) => / ms \(\d+ ns per respondent-row\)/.test(l))
        .map((l) => /^(\d+) respondents x (\d+) rows.*?: (\d+) ms/.exec(l))
        .filter((m) => m !== null);
      return cases.length ? cases.map((m) => `${m[1]}x${m[2]} ${m[3]} ms`).join(", ") : null;
    },
  },
  { name: "cli", script: "tests/perf/cli-startup.bench.ts", env: { BENCH_PAIRS: "10" }, pick: (out) => lastMatch(out, /binary --help median/) },
  {
    name: "results-web",
    script: "tests/perf/results-web.bench.ts",
    env: { RUNS: "5" },
    pick: (out) => {
      const nav = lastMatch(out, /^summary charts after navigation/);
      const filter = lastMatch(out, /^charts after a filter change/);
      return nav && filter ? `${nav.replace(/\s+/g, " ")}; ${filter.replace(/\s+/g, " ")}` : null;
    },
  },
  {
    name: "chat-web",
    script: "tests/perf/chat-web.bench.ts",
    env: { RUNS: "6", ...(port ? { PORT: String(port + 15) } : {}), ...(prefix ? { BENCH_CHAT_DB: `${prefix}_chat` } : {}) },
    pick: (out) => lastMatch(out, /^answer drawn, all questions/)?.replace(/\s+/g, " ") ?? null,
  },
  { name: "fair", script: "tests/perf/fair-share.bench.ts", env: { BENCH_ROUNDS: "2", BENCH_SLICE_S: "10" }, pick: result },
  { name: "cluster", script: "tests/perf/load-cluster.bench.ts", env: { BENCH_CONNECTIONS: "32", BENCH_SECONDS: "4" }, pick: (out) => lastMatch(out, /^\s+32 \|/) },
];
const DEFAULT = ["load", "odata", "results", "crosstab", "cli", "results-web", "chat-web", "fair"];

/** The table row for one run; `|` in the figure is escaped so the table stays a table. */
export function logRow(r: { date: string; commit: string; name: string; figure: string; verdict: string; seconds: number; load: string }): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");
  return `| ${r.date} | ${r.commit} | ${r.name} | ${cell(r.figure)} | ${r.verdict} | ${r.seconds.toFixed(0)} s | ${r.load} |`;
}

/** The document with the rows added at the end of the regression log's table (the section made when missing). */
export function appendToLog(doc: string, rows: string[]): string {
  const lines = doc.split("\n");
  let at = lines.findIndex((l) => l.trim() === HEADING);
  if (at < 0) {
    while (lines.length && lines.at(-1)!.trim() === "") lines.pop();
    lines.push(
      "",
      HEADING,
      "Appended by `bun run bench` (scripts/bench-all.ts): each benchmark with short settings, its figure as it",
      "printed it, and its verdict (the benchmark's exit status). Compare a row with the rows of the same",
      "benchmark before it; the load average says how busy the host was.",
      "",
      "| date (UTC) | commit | benchmark | figure | verdict | took | load average |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    );
    at = lines.length - 1;
    lines.push(...rows, "");
    return lines.join("\n");
  }
  // The table's last row: the last line starting with | after the heading, before the next heading.
  let end = at;
  for (let i = at + 1; i < lines.length && !lines[i]!.startsWith("#"); i++) if (lines[i]!.startsWith("|")) end = i;
  lines.splice(end + 1, 0, ...rows);
  return lines.join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const onlyAt = args.indexOf("--only");
  const names = onlyAt >= 0 ? (args[onlyAt + 1] ?? "").split(",").filter(Boolean) : DEFAULT;
  const unknown = names.filter((n) => !BENCHES.some((b) => b.name === n));
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(", ")}; known: ${BENCHES.map((b) => b.name).join(", ")}`);
    process.exit(2);
  }
  const git = (a: string[]) =>
    Bun.spawnSync(["git", ...a], { cwd: ROOT })
      .stdout.toString()
      .trim();
  const dirty = git(["status", "--porcelain", "--untracked-files=no"]) !== "";
  const commit = `${git(["rev-parse", "--short=9", "HEAD"])}${dirty ? "+changes" : ""}`;
  const rows: string[] = [];
  let failed = 0;
  for (const b of BENCHES.filter((x) => names.includes(x.name))) {
    const load = loadavg()[0]!.toFixed(1);
    const t0 = performance.now();
    console.log(
      `\n=== ${b.name}: bun run ${b.script} (${
        Object.entries(b.env)
          .map(([k, v]) => `${k}=${v}`)
          .join(" ") || "defaults"
      })`,
    );
    const p = Bun.spawn(["bun", "run", b.script], { cwd: ROOT, env: { ...b.env, ...process.env }, stdout: "pipe", stderr: "pipe" });
    let out = "";
    const tee = async (s: ReadableStream<Uint8Array>, to: NodeJS.WriteStream) => {
      const d = new TextDecoder();
      for await (const chunk of s) {
        const text = d.decode(chunk);
        out += text;
        to.write(text);
      }
    };
    await Promise.all([tee(p.stdout, process.stdout), tee(p.stderr, process.stderr), p.exited]);
    const seconds = (performance.now() - t0) / 1000;
    const figure = b.pick(out) ?? "(no figure printed)";
    const verdict = p.exitCode === 0 ? "ok" : `FAILED (exit ${p.exitCode})`;
    if (p.exitCode !== 0) failed++;
    rows.push(logRow({ date: new Date().toISOString().slice(0, 16).replace("T", " "), commit, name: b.name, figure, verdict, seconds, load: `${load} -> ${loadavg()[0]!.toFixed(1)}` }));
  }
  console.log(`\n${rows.join("\n")}`);
  if (!args.includes("--no-log")) {
    writeFileSync(DOC, appendToLog(readFileSync(DOC, "utf8"), rows));
    console.log(`appended ${rows.length} rows to docs/performance.md (${HEADING.slice(3)})`);
  }
  process.exit(failed ? 1 : 0);
}
