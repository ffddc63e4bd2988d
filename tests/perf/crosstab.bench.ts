// The cross-tab engine's cost (api/src/analytics/crosstab.ts), in memory, on synthetic respondents:
// time per respondent-row and how it grows with the banner (ratios, not thresholds: run
// `bun run tests/perf/crosstab.bench.ts` and read). The API's limits (8 variables, 60 columns, 100
// rows) bound the banner; the respondents are the project's.
import { crossTab, type XtabRespondent } from "../../api/src/analytics/crosstab.ts";

function run(n: number, rows: number, vars: number, perVar: number) {
  const groups = Array.from({ length: vars }, (_, v) => Array.from({ length: perVar }, (_, c) => v * perVar + c));
  const rs: XtabRespondent[] = Array.from({ length: n }, (_, i) => ({
    stratum: String(i % 6),
    weight: 0.5 + (i % 7) / 7,
    columns: groups.map((g, v) => g[(i * (v + 3)) % g.length]!),
    units: Array.from({ length: rows }, (_, r) => ({ row: r, y: (i * (r + 1)) % 3 === 0 ? 1 : 0 })),
  }));
  const strata = new Map(Array.from({ length: 6 }, (_, h) => [String(h), Math.ceil(n / 6)]));
  const t = performance.now();
  const x = crossTab(rs, { rows, groups, strata, confidence: 95, adjust: "bh" });
  const ms = performance.now() - t;
  console.log(`${n} respondents x ${rows} rows, ${vars} variables x ${perVar} columns: ${ms.toFixed(0)} ms (${((ms * 1e6) / (n * rows)).toFixed(0)} ns per respondent-row), ${x.tests.length} tests`);
  return ms;
}

const small = run(20_000, 5, 3, 4);
const large = run(200_000, 5, 3, 4);
const wide = run(200_000, 10, 8, 7);
console.log(`10x the respondents: ${(large / small).toFixed(1)}x the time; the widest banner (8 x 7) with 2x the rows: ${(wide / large).toFixed(1)}x`);
