// The weighting report's targets (finding 8): with a census level nobody in the sample has, the
// margins are matched to the other levels' shares rescaled to sum 1, and the report must list
// those rescaled targets beside the margins (and the census shares apart), not the census shares.
import { expect, test } from "bun:test";
import { weightingTargets } from "../../api/src/domains/fielding/fielding.service.ts";

test("an empty level is dropped and the remaining targets rescaled to sum 1; the census is kept apart", () => {
  const census = { s45: { "1": 0.49, "2": 0.5, "3": 0.01 }, s51: { "1": 0.3, "2": 0.7 } };
  const rows = [
    { s45: "1", s51: "1" },
    { s45: "2", s51: "2" },
    { s45: "2", s51: null },
  ];
  const t = weightingTargets(census, rows);
  expect(t.emptyLevels).toEqual(["s45=3"]);
  // 0.49 / 0.99 and 0.5 / 0.99 (by hand).
  expect(t.targets.s45!["1"]).toBeCloseTo(0.49 / 0.99, 15);
  expect(t.targets.s45!["2"]).toBeCloseTo(0.5 / 0.99, 15);
  expect(Object.values(t.targets.s45!).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 15);
  expect(t.targets.s51).toEqual({ "1": 0.3, "2": 0.7 });
  expect(t.census.s45).toEqual({ "1": 0.49, "2": 0.5, "3": 0.01 });
  // The caller's census object is not changed.
  expect(census.s45["3"]).toBe(0.01);
});

test("a variable left with one level is not weighted on", () => {
  const t = weightingTargets({ s45: { "1": 0.5, "2": 0.5 } }, [{ s45: "1" }, { s45: "1" }]);
  expect(t.targets).toEqual({});
  expect(t.emptyLevels).toEqual(["s45=2"]);
});
