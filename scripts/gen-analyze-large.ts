// bun scripts/gen-analyze-large.ts ROWS [DIR]: synthetic CSV files for measuring `ideally analyze`
// on large inputs (docs/performance.md "ideally analyze on large files"). Writes DIR/psm-ROWS.csv,
// turf-ROWS.csv, rake-ROWS.csv and compare-ROWS.csv (default DIR .tmp, not committed). A fixed
// linear congruential generator, so the same ROWS gives the same bytes on every run.
import { mkdirSync } from "node:fs";
import { join } from "node:path";

const rows = Number(process.argv[2] ?? 1_000_000);
const dir = process.argv[3] ?? join(import.meta.dir, "../.tmp");
mkdirSync(dir, { recursive: true });
let seed = 12345;
const rnd = () => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return seed / 4294967296;
};
const int = (lo: number, hi: number) => lo + Math.floor(rnd() * (hi - lo + 1));

async function write(name: string, header: string, line: (i: number) => string) {
  const path = join(dir, `${name}-${rows}.csv`);
  const w = Bun.file(path).writer();
  w.write(`${header}\n`);
  for (let i = 0; i < rows; i++) {
    w.write(`${line(i)}\n`);
    if (i % 50_000 === 0) await w.flush();
  }
  await w.end();
  console.log(path);
}

const INTENT = ["Very likely", "Likely", "Neither likely nor unlikely", "Unlikely", "Very unlikely"];
await write("psm", "too_cheap,cheap,expensive,too_expensive,pi_cheap,pi_expensive,w", () => {
  const tc = int(1, 60);
  const c = tc + int(0, 20);
  const e = c + int(1, 20);
  const te = e + int(1, 30);
  return `${tc},${c},${e},${te},${INTENT[int(0, 4)]},${INTENT[int(0, 4)]},${(0.5 + rnd()).toFixed(3)}`;
});
const ITEMS = Array.from({ length: 10 }, (_, j) => `item_${j + 1}`);
await write("turf", [...ITEMS, "w"].join(","), () => [...ITEMS.map((_, j) => (rnd() < 0.05 + j * 0.02 ? 1 : 0)), (0.5 + rnd()).toFixed(3)].join(","));
const AGE = ["18-24", "25-34", "35-44", "45-54", "55+"];
const REGION = ["North", "South", "East", "West"];
await write("rake", "sex,age,region", () => `${rnd() < 0.45 ? "Female" : "Male"},${AGE[int(0, 4)]},${rnd() < 0.02 ? "" : REGION[int(0, 3)]}`);
// Long format: four options rated by each respondent (sequential monadic), ten markets.
await write("compare", "respondent,market,option,value,w", (i) => {
  const r = Math.floor(i / 4);
  return `r${r},M${r % 10},${"ABCD"[i % 4]},${rnd() < 0.03 ? "" : int(1, 5)},${(0.5 + ((r * 7919) % 1000) / 1000).toFixed(3)}`;
});
