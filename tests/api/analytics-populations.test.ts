// The market populations of analytics/populations.ts against the table a reviewer reads in
// docs/reference-data.md ("Market populations"): the same regions, figures and sources, so a
// figure changed in one place and not the other fails here.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { MARKET_POPULATION } from "@ideally/analytics/populations";

test("every population figure and its source is the one docs/reference-data.md gives", () => {
  const doc = readFileSync(join(import.meta.dir, "../../docs/reference-data.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Market populations"));
  const table = section.slice(0, section.indexOf("\n\n", section.indexOf("| region |")));
  const rows = table
    .split("\n")
    .filter((l) => /^\| \d+ /.test(l))
    .map((l) => l.split("|").map((c) => c.trim()))
    .map(([, region, population, source]) => [Number(region!.split(" ")[0]), { population: Number(population!.replaceAll(",", "")), source }] as const);
  expect(rows.length).toBe(4);
  expect(Object.fromEntries(rows)).toEqual(MARKET_POPULATION);
});
