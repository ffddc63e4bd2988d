// Stable React keys (Biome's noArrayIndexKey): a list item's key is its text, a repeat numbered by
// its occurrence, so a key follows its item when another is added or removed before it.
import { describe, expect, test } from "bun:test";
import { keyedBy } from "../../web/src/lib/keys.ts";

describe("keyedBy", () => {
  test("the text is the key; repeats are numbered from the second", () => {
    expect(keyedBy(["b", "a", "b", "", "b", ""], (x) => x).map(([k]) => k)).toEqual(["b", "a", "b#2", "", "b#3", "#2"]);
  });

  test("an item keeps its key when an item before it goes, where a position would pass it on", () => {
    const before = new Map(keyedBy(["Taste", "Price", "Pack"], (x) => x));
    const after = new Map(keyedBy(["Price", "Pack"], (x) => x));
    expect(after.get("Price")).toBe(before.get("Price")!);
    expect(after.get("Pack")).toBe(before.get("Pack")!);
    expect([...after.keys()]).toEqual(["Price", "Pack"]); // by position they would have been 0 and 1, Taste's and Price's
  });
});
