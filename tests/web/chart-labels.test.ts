// Bar charts' axis labels wrap onto two lines instead of being cut at 24 characters (two answers
// that began alike printed the same tick). Expected lines worked by hand.
import { expect, test } from "bun:test";
import { wrapLabel } from "../../web/src/components/charts/labels.ts";

test("a short label is one line, unchanged", () => {
  expect(wrapLabel("Auckland")).toEqual(["Auckland"]);
  expect(wrapLabel("exactly twenty-four char")).toEqual(["exactly twenty-four char"]); // 24 characters
});

test("two labels that begin alike stay apart", () => {
  // "I would definitely buy" is 22 characters; " this" would make 27.
  expect(wrapLabel("I would definitely buy this product")).toEqual(["I would definitely buy", "this product"]);
  expect(wrapLabel("I would definitely buy it at a lower price")).toEqual(["I would definitely buy", "it at a lower price"]);
});

test("what does not fit in two lines ends with an ellipsis", () => {
  // Line 2 would be "this product if it were" (23) and "cheaper" does not fit: cut there.
  expect(wrapLabel("I would definitely buy this product if it were cheaper")).toEqual(["I would definitely buy", "this product if it were…"]);
});

test("a word longer than a line is broken inside it", () => {
  expect(wrapLabel("Supercalifragilisticexpialidocious")).toEqual(["Supercalifragilisticexpi", "alidocious"]);
  expect(wrapLabel("a".repeat(60))).toEqual(["a".repeat(24), `${"a".repeat(23)}…`]);
});

test("spaces are collapsed; an empty label is no line", () => {
  expect(wrapLabel("  North   Island ")).toEqual(["North Island"]);
  expect(wrapLabel("")).toEqual([]);
});
