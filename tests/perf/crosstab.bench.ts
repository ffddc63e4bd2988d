// The cross-tab engine's cost (analytics/crosstab.ts), in memory, on synthetic respondents:
// time per respondent-row and how it grows with the banner (ratios, not thresholds: run
// `bun run tests/perf/crosstab.bench.ts` and read). The API's limits (8 variables, 60 columns, 100
// rows) bound the banner; the respondents are the project's.
import { crossTab, type XtabRespondent } from "@ideally/analytics/crosstab";
import { pacedCrossTab, XTAB_SLICE_MS } from "../../api/src/domains/results/crosstab.service.ts";

function make(n: number, rows: number, vars: number, perVar: number) {
  const groups = Array.from({ length: vars }, (_, v) => Array.from({ length: perVar }, (_, c) => v * perVar + c));
  const rs: XtabRespondent[] = Array.from({ length: n }, (_, i) => ({
    stratum: String(i % 6),
    weight: 0.5 + (i % 7) / 7,
    columns: groups.map((g, v) => g[(i * (v + 3)) % g.length]!),
    units: Array.from({ length: rows }, (_, r) => ({ row: r, y: (i * (r + 1)) % 3 === 0 ? 1 : 0 })),
  }));
  const strata = new Map(Array.from({ length: 6 }, (_, h) => [String(h), Math.ceil(n / 6)]));
  return { rs, spec: { rows, groups, strata, confidence: 95 as const, adjust: "bh" as const } };
}

function run(n: number, rows: number, vars: number, perVar: number) {
  const { rs, spec } = make(n, rows, vars, perVar);
  const t = performance.now();
  const x = crossTab(rs, spec);
  const ms = performance.now() - t;
  console.log(`${n} respondents x ${rows} rows, ${vars} variables x ${perVar} columns: ${ms.toFixed(0)} ms (${((ms * 1e6) / (n * rows)).toFixed(0)} ns per respondent-row), ${x.tests.length} tests`);
  return ms;
}

const small = run(20_000, 5, 3, 4);
const large = run(200_000, 5, 3, 4);
const wide = run(200_000, 10, 8, 7);
console.log(`10x the respondents: ${(large / small).toFixed(1)}x the time; the widest banner (8 x 7) with 2x the rows: ${(wide / large).toFixed(1)}x`);

// As the API runs it (crosstab.service.ts): in slices, the event loop given back between them.
// The longest gap between two ticks of a 1 ms timer is how long any other request could wait.
async function stalls(paced: boolean) {
  const { rs, spec } = make(200_000, 10, 8, 7);
  let last = performance.now();
  let longest = 0;
  const timer = setInterval(() => {
    const t = performance.now();
    longest = Math.max(longest, t - last);
    last = t;
  }, 1);
  await new Promise((r) => setTimeout(r, 5));
  last = performance.now();
  const t0 = performance.now();
  if (paced) await pacedCrossTab(rs, spec, {});
  else crossTab(rs, spec);
  const ms = performance.now() - t0;
  await new Promise((r) => setTimeout(r, 5));
  clearInterval(timer);
  return { ms, longest };
}
const sync = await stalls(false);
const paced = await stalls(true);
console.log(
  `200000 x 10 rows, 8 x 7 columns: at once ${sync.ms.toFixed(0)} ms, the event loop held ${sync.longest.toFixed(0)} ms; in ${XTAB_SLICE_MS} ms slices ${paced.ms.toFixed(0)} ms (${(paced.ms / sync.ms).toFixed(2)}x), the loop held at most ${paced.longest.toFixed(0)} ms`,
);
