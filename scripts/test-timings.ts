// bun run test:timings: writes tests/timings.json, the per-file times bun's --parallel reads to start
// the slowest files first (scripts/test-all.ts), from the last `bun run test`'s JUnit report
// (.tmp/junit.xml) or the report named. Only the order of the files depends on it: a file missing
// from it, or a stale time, changes when a file starts, never whether it runs.
import { readFileSync, writeFileSync } from "node:fs";
import { fileTimes } from "./test-report.ts";

const report = process.argv[2] ?? ".tmp/junit.xml";
const files: Record<string, number> = {};
for (const f of fileTimes(readFileSync(report, "utf8")).sort((a, b) => a.file.localeCompare(b.file))) files[f.file] = Math.round(f.seconds * 1000);
writeFileSync("tests/timings.json", `${JSON.stringify({ version: 1, files }, null, 2)}\n`);
console.log(`tests/timings.json: ${Object.keys(files).length} files, from ${report}`);
