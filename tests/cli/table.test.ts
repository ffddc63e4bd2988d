// Tables fit the terminal (issue 24, finding 6): the widest text column is cut with an ellipsis,
// numbers never are, no line is wider than the width, and no width (--wide, no terminal) cuts nothing.
import { expect, test } from "bun:test";
import { table } from "../../cli/src/output.ts";

const header = ["id", "question", "answer", "market"];
const rows = [
  ["4300001", "Technology adoption", "I am usually the first to try new technology", "all"],
  ["4200102", "Region", "Auckland", "NZ"],
];

test("at 60 and 80 columns every line fits, text cut with …, numbers whole", () => {
  for (const w of [60, 80]) {
    const lines = table(header, rows, w).split("\n");
    for (const l of lines) expect(l.length, `${w}: ${l}`).toBeLessThan(w);
    expect(lines[2]).toStartWith("4300001  ");
    expect(lines[2]).toContain("…");
    expect(lines[3]).toContain("Auckland");
  }
});

test("just wide enough: nothing is cut; one column less: the widest text column is", () => {
  const full = table(header, rows, null).split("\n");
  const widest = Math.max(...full.map((l) => l.length));
  expect(table(header, rows, widest + 1)).toBe(full.join("\n"));
  const cut = table(header, rows, widest).split("\n");
  expect(cut[2]).toBe("4300001  Technology adoption  I am usually the first to try new technolo…  all");
  expect(Math.max(...cut.map((l) => l.length))).toBe(widest - 1);
});

test("no width (--wide or no terminal): the table is whole", () => {
  expect(table(header, rows, null)).toContain("I am usually the first to try new technology");
});

test("too many numbers for the width: text goes down to 3 characters, then lines are cut at the edge; no line wraps", () => {
  // The results table at 60 columns (tmux): 7 columns, four of them numbers.
  const header = ["measure", "test option", "n", "top-2", "interval", "vs bench", "above", ""];
  const rows = [["Likability", "A Protein crunch bar", "3", "63.3%", "14.4%–94.7%", "", "", "(small base)"]];
  for (const w of [60, 40, 20]) {
    const lines = table(header, rows, w).split("\n");
    for (const l of lines) expect(l.length, `${w}: ${l}`).toBeLessThanOrEqual(w - 1);
  }
  const at60 = table(header, rows, 60).split("\n");
  expect(at60[2], "numbers whole while they fit").toContain("14.4%–94.7%");
});

test("a note (the results' footer) wraps at word boundaries instead of being cut mid-word", async () => {
  const { note } = await import("../../cli/src/output.ts");
  const text = "* significant difference from the benchmark; letters: significantly above those options; (small base) n_eff under 30";
  // By hand: the longest run of words that stays under 80 columns (79 characters), then the rest.
  expect(note(text, 80)).toBe("* significant difference from the benchmark; letters: significantly above those\n  options; (small base) n_eff under 30");
  for (const w of [60, 80]) {
    const lines = note(text, w).split("\n");
    for (const l of lines) expect(l.length, `${w}: ${l}`).toBeLessThan(w);
    expect(lines.join(" ").replace(/\s+/g, " "), "every word kept, none cut").toBe(text);
  }
  expect(note(text, null), "no terminal: one line").toBe(text);
});
