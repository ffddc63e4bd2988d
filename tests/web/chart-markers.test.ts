// The price points' labels on a line chart point away from the nearer neighbouring marker, so two
// close points print outwards rather than over each other (issue 22: PMC and Optimal overlapped at 390 px).
import { expect, test } from "bun:test";
import { markerSides } from "../../web/src/components/charts/markers.ts";

test("two close markers label outwards; the lone ends label away from their neighbour", () => {
  // PMC 2.00 and Optimal 2.10 close together, Indifferent 3.00, PME 4.50.
  const sides = markerSides([
    { x: 3, label: "Indifferent" },
    { x: 2.1, label: "Optimal" },
    { x: 4.5, label: "PME" },
    { x: 2, label: "PMC" },
  ]).map((m) => [m.label, m.side]);
  expect(sides).toEqual([
    ["PMC", "left"],
    ["Optimal", "right"],
    // Indifferent's nearer neighbour is Optimal (0.9 away, PME 1.5): away from it, to the right.
    ["Indifferent", "right"],
    ["PME", "right"],
  ]);
});

test("a close pair in the middle also labels outwards; one marker alone goes left; none is none", () => {
  const sides = markerSides([
    { x: 1, label: "a" },
    { x: 5, label: "b" },
    { x: 5.2, label: "c" },
    { x: 9, label: "d" },
  ]).map((m) => m.side);
  expect(sides).toEqual(["left", "left", "right", "right"]);
  expect(markerSides([{ x: 1 }]).map((m) => m.side)).toEqual(["left"]);
  expect(markerSides([])).toEqual([]);
});
