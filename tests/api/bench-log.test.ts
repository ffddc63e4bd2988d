// bun run bench's regression log (scripts/bench-all.ts): rows land at the end of the log's table in
// docs/performance.md, the section is made when missing, and a figure's `|` cannot break the table.
// Expected documents written by hand.
import { expect, test } from "bun:test";
import { appendToLog, logRow } from "../../scripts/bench-all.ts";

const row = logRow({ date: "2026-11-26 01:30", commit: "abc123def", name: "load", figure: "151 req/s | 1.9x", verdict: "ok", seconds: 61.4, load: "3.0 -> 4.5" });

test("a row: one table line, the figure's pipe escaped", () => {
  expect(row).toBe("| 2026-11-26 01:30 | abc123def | load | 151 req/s \\| 1.9x | ok | 61 s | 3.0 -> 4.5 |");
});

test("the section is made at the end of a document without one", () => {
  const doc = "# Performance\n\n## Other\ntext\n\n";
  expect(appendToLog(doc, [row])).toBe(
    [
      "# Performance",
      "",
      "## Other",
      "text",
      "",
      "## Regression log (`bun run bench`)",
      "Appended by `bun run bench` (scripts/bench-all.ts): each benchmark with short settings, its figure as it",
      "printed it, and its verdict (the benchmark's exit status). Compare a row with the rows of the same",
      "benchmark before it; the load average says how busy the host was.",
      "",
      "| date (UTC) | commit | benchmark | figure | verdict | took | load average |",
      "| --- | --- | --- | --- | --- | --- | --- |",
      row,
      "",
    ].join("\n"),
  );
});

test("rows go after the log's last row, before the next section, not into another table", () => {
  const doc = ["## Regression log (`bun run bench`)", "", "| h |", "| --- |", "| old |", "", "## Later", "| other |", ""].join("\n");
  expect(appendToLog(doc, ["| new 1 |", "| new 2 |"])).toBe(
    ["## Regression log (`bun run bench`)", "", "| h |", "| --- |", "| old |", "| new 1 |", "| new 2 |", "", "## Later", "| other |", ""].join("\n"),
  );
});

test("the odata row carries the median's interval when the benchmark prints one", async () => {
  const { BENCHES } = await import("../../scripts/bench-all.ts");
  const odata = BENCHES.find((b) => b.name === "odata")!;
  const out = [
    "bare: 1427 req/s   full stack (signed in, 8 queries in turn): 1105 req/s   (20 pairs of 600 ms)",
    "ratio full/bare (median of pairs): 0.813, 95% interval 0.752-0.864 (goal >= 0.8)",
  ].join("\n");
  expect(odata.pick(out)).toBe("full/bare 0.813 (95% interval 0.752-0.864) (bare 1427, full 1105 req/s)");
  // Too few pairs for an interval: the median alone.
  expect(odata.pick("ratio full/bare (median of pairs): 0.790 (goal >= 0.8)")).toBe("full/bare 0.790");
});
