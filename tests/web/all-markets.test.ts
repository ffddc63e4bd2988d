// The All markets choice of the market picker and the market table's letters (web/src/features/results).
import { describe, expect, test } from "bun:test";
import { ALL_MARKETS, EMPTY_FILTERS, changeRegion, effectiveRegionId, isAllMarkets, stateFromSegment, toResponseFilter } from "../../web/src/features/results/filters";
import { letterOf, lowerMarkets, marketLetters, weightingNote } from "../../web/src/features/results/markets";

describe("All markets", () => {
  test("is a choice only with more than one market", () => {
    expect(isAllMarkets(ALL_MARKETS, [1, 2])).toBe(true);
    expect(isAllMarkets(ALL_MARKETS, [1])).toBe(false);
    expect(isAllMarkets(1, [1, 2])).toBe(false);
    // Results open where the project is whole (issue 37): no market chosen on a project of several is All markets,
    // with one market it is that market; a market not among the project's still falls back to the first (SPEC 4).
    expect(isAllMarkets(null, [1, 2])).toBe(true);
    expect(isAllMarkets(null, [1])).toBe(false);
    expect(isAllMarkets(15, [1, 2])).toBe(false);
    expect(effectiveRegionId(15, [2, 1])).toBe(2);
    // The lookups keep a real market (the first) underneath.
    expect(effectiveRegionId(ALL_MARKETS, [2, 1])).toBe(2);
  });
  test("asks the API for every market, and a saved filter set of several markets comes back as All markets", () => {
    const s = changeRegion({ ...EMPTY_FILTERS, selectedRegionId: 1, selectedFilterIds: { GENDER: [4500002] } }, ALL_MARKETS);
    // SPEC 4: a market change clears the demographic filters.
    expect(s.selectedFilterIds).toEqual({});
    expect(toResponseFilter(s, [1, 2])).toEqual({ regionIds: [1, 2] });
    expect(
      stateFromSegment(
        5,
        { regionIds: [1, 2] },
        () => undefined,
        () => undefined,
      ).selectedRegionId,
    ).toBe(ALL_MARKETS);
    expect(
      stateFromSegment(
        5,
        { regionIds: [2] },
        () => undefined,
        () => undefined,
      ).selectedRegionId,
    ).toBe(2);
  });
});

describe("the market table's letters", () => {
  const letters = marketLetters([2, 1, 15]);
  test("follow the project's market order, as spreadsheet columns", () => {
    expect([...letters]).toEqual([
      [2, "A"],
      [1, "B"],
      [15, "C"],
    ]);
    expect([0, 25, 26, 27].map(letterOf)).toEqual(["A", "Z", "AA", "AB"]);
  });
  test("a cell carries the letters of the markets it is significantly above, not below, not merely different", () => {
    const t = (regionId: number, diff: number, significant: boolean) => ({ regionId, diff, se: 0.05, z: diff / 0.05, pValue: 0.01, pAdjusted: significant ? 0.01 : 0.2, significant, lowBase: false });
    expect(lowerMarkets({ vsMarkets: [t(1, 0.2, true), t(15, -0.2, true)] }, letters)).toEqual(["B"]);
    expect(lowerMarkets({ vsMarkets: [t(1, 0.2, false), t(15, 0.3, true)] }, letters)).toEqual(["C"]);
    expect(lowerMarkets({ vsMarkets: [] }, letters)).toEqual([]);
  });
  test("the weighting is disclosed with each market's share", () => {
    const names: Record<number, string> = { 1: "New Zealand", 2: "Australia" };
    const all = {
      weighting: "population" as const,
      note: null,
      measures: [],
      shares: [
        { regionId: 1, population: 5, source: "x", sampleShare: 0.5, share: 0.164 },
        { regionId: 2, population: 27, source: "y", sampleShare: 0.5, share: 0.836 },
      ],
    };
    expect(weightingNote(all, (r) => names[r]!)).toBe("All markets: weighted by population (New Zealand 16.4%, Australia 83.6%).");
    expect(weightingNote({ ...all, weighting: "sample", note: "No population figure for region 999999: markets weighted by sample" }, (r) => names[r] ?? "Other")).toBe(
      "All markets: weighted by sample size (New Zealand 16.4%, Australia 83.6%). No population figure for region 999999: markets weighted by sample.",
    );
  });
});
