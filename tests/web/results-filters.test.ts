// The results page's filter rules (SPEC 3, 4, 5), benchmark choice and chart palette, as the web
// app runs them (web/src/features/results/*: pure functions, no DOM).
import { beforeEach, describe, expect, test } from "bun:test";
import { BENCHMARK_DESCRIPTIONS, benchmarkTypeAvailable, chooseBenchmark, npdBandOfWeek, storeBenchmarkId, storedBenchmarkId, viewSettings } from "../../web/src/features/results/benchmarks";
import {
  EMPTY_FILTERS,
  changeRegion,
  effectiveRegionId,
  filterCount,
  filtersFromSearch,
  filtersToSearch,
  normaliseDates,
  resetFilters,
  selectDates,
  selectSurveyRuns,
  stateFromSegment,
  toResponseFilter,
  toggleQuestionOption,
  toggleSystemOption,
  type FilterState,
} from "../../web/src/features/results/filters";
import { SERIES, minPairDifference, simulate, hexToRgb } from "../../web/src/features/results/palette";
import { encodeSearch, decodeSearch } from "../../web/src/lib/search";

const full: FilterState = {
  selectedRegionId: 2,
  selectedFilterIds: { AGE: [5101, 5102], GENDER: [4501] },
  selectedQuestionOptionFilterIds: { "10": { "100": true, "101": false }, "11": { "110": true } },
  selectedSurveyRunIds: [7, 8],
  selectedDates: null,
  selectedPanelType: "Customer",
  selectedTestOptionIds: [3],
  selectedProjectGroupSegmentIds: [41],
  segmentId: null,
};

describe("filter state (SPEC 4)", () => {
  test("changing region clears question filters, option filters and dates", () => {
    const withDates = { ...full, selectedSurveyRunIds: [], selectedDates: { from: "2026-01-01T00:00:00.000Z", to: "2026-01-02T00:00:00.000Z" } };
    const s = changeRegion(withDates, 1);
    expect(s.selectedRegionId).toBe(1);
    expect(s.selectedFilterIds).toEqual({});
    expect(s.selectedQuestionOptionFilterIds).toEqual({});
    expect(s.selectedDates).toBeNull();
    expect(s.selectedTestOptionIds, "test options are not a question filter: kept").toEqual([3]);
    expect(changeRegion(withDates, 2), "the same region changes nothing").toBe(withDates);
  });

  test("survey runs and dates exclude each other", () => {
    const dated = selectDates(full, { from: new Date(2026, 0, 5), to: new Date(2026, 0, 9) });
    expect(dated.selectedSurveyRunIds, "selecting dates clears survey runs").toEqual([]);
    expect(dated.selectedDates).not.toBeNull();
    const runs = selectSurveyRuns(dated, [9]);
    expect(runs.selectedDates, "selecting survey runs clears dates").toBeNull();
    expect(runs.selectedSurveyRunIds).toEqual([9]);
  });

  test("dates run from the start of the first day to the end of the last, in either order", () => {
    const d = normaliseDates(new Date(2026, 2, 10, 15, 30), new Date(2026, 2, 3, 8));
    const from = new Date(d.from);
    const to = new Date(d.to);
    expect([from.getDate(), from.getHours(), from.getMinutes(), from.getSeconds(), from.getMilliseconds()]).toEqual([3, 0, 0, 0, 0]);
    expect([to.getDate(), to.getHours(), to.getMinutes(), to.getSeconds(), to.getMilliseconds()]).toEqual([10, 23, 59, 59, 999]);
  });

  test("filter count = question groups + option groups + runs + panel (1) + dates (1) + group segments", () => {
    // 2 question groups + 2 option groups + 2 runs + 1 panel + 0 dates + 1 group segment
    expect(filterCount(full)).toBe(8);
    expect(filterCount(selectDates(full, { from: new Date(), to: new Date() })), "runs cleared (-2), dates (+1)").toBe(7);
    expect(filterCount(EMPTY_FILTERS)).toBe(0);
    expect(filterCount({ ...EMPTY_FILTERS, selectedTestOptionIds: [1, 2] }), "test options are not counted").toBe(0);
  });

  test("the selected region falls back to the first project region, else 1", () => {
    expect(effectiveRegionId(2, [1, 2])).toBe(2);
    expect(effectiveRegionId(15, [2, 1]), "not among the project's").toBe(2);
    expect(effectiveRegionId(null, [17])).toBe(17);
    expect(effectiveRegionId(null, [])).toBe(1);
  });

  test("option filters cycle include, exclude, off; system options toggle", () => {
    let s = toggleQuestionOption(EMPTY_FILTERS, 5, 50);
    expect(s.selectedQuestionOptionFilterIds).toEqual({ "5": { "50": true } });
    s = toggleQuestionOption(s, 5, 50);
    expect(s.selectedQuestionOptionFilterIds).toEqual({ "5": { "50": false } });
    s = toggleQuestionOption(s, 5, 50);
    expect(s.selectedQuestionOptionFilterIds, "an empty group is dropped").toEqual({});
    s = toggleSystemOption(toggleSystemOption(EMPTY_FILTERS, "AGE", 1), "AGE", 2);
    expect(s.selectedFilterIds).toEqual({ AGE: [1, 2] });
    expect(toggleSystemOption(toggleSystemOption(s, "AGE", 1), "AGE", 2).selectedFilterIds).toEqual({});
  });

  test("the response filter the API takes", () => {
    expect(toResponseFilter(full, 2)).toEqual({
      regionIds: [2],
      filterIds: [5101, 5102, 4501],
      questionOptionsIds: [100, 110],
      excludeQuestionOptionsIds: [101],
      surveyIds: [7, 8],
      testOptionIds: [3],
      projectGroupSegmentIds: [41],
      panelType: "Customer",
    });
    expect(toResponseFilter(EMPTY_FILTERS, 1)).toEqual({ regionIds: [1] });
  });

  test("a segment's stored filters load back into the active state", () => {
    const stored = toResponseFilter(full, 2);
    const codes: Record<number, string> = { 5101: "AGE", 5102: "AGE", 4501: "GENDER" };
    const questionOf: Record<number, number> = { 100: 10, 101: 10, 110: 11 };
    const s = stateFromSegment(
      77,
      stored,
      (id) => codes[id],
      (id) => questionOf[id],
    );
    expect(s).toEqual({ ...full, segmentId: 77 });
    expect(toResponseFilter(s, 2), "round trip").toEqual(stored);
  });

  test("the state survives the URL (objects and arrays as JSON, empty values removed)", () => {
    const url = encodeSearch(filtersToSearch(full) as never);
    expect(url).not.toContain("dates");
    expect(filtersFromSearch(decodeSearch(url))).toEqual(full);
    expect(resetFilters(full)).toEqual({ ...EMPTY_FILTERS, selectedRegionId: 2 });
  });
});

describe("benchmarks (SPEC 3, 5, 9)", () => {
  beforeEach(() => {
    const m = new Map<string, string>();
    (globalThis as { localStorage?: unknown }).localStorage = {
      getItem: (k: string) => m.get(k) ?? null,
      setItem: (k: string, v: string) => void m.set(k, String(v)),
      removeItem: (k: string) => void m.delete(k),
    };
  });

  test("NPD week bands: up to 8, 9 to 16, 17 to 25, 26 and above", () => {
    expect([1, 8, 9, 16, 17, 25, 26, 40].map(npdBandOfWeek)).toEqual([4, 4, 5, 5, 6, 6, 7, 7]);
    expect(benchmarkTypeAvailable(3, null), "types below 4 always").toBe(true);
    expect(benchmarkTypeAvailable(4, null), "a band needs a launch week").toBe(false);
    expect(benchmarkTypeAvailable(5, 12)).toBe(true);
    expect(benchmarkTypeAvailable(4, 12)).toBe(false);
    expect(benchmarkTypeAvailable(7, 26)).toBe(true);
  });

  test("descriptions are SPEC 9's", () => {
    expect(BENCHMARK_DESCRIPTIONS[1]).toBe("All customers and historical data");
    expect(BENCHMARK_DESCRIPTIONS[2]).toBe("Tests in your team");
    expect(BENCHMARK_DESCRIPTIONS[3]).toBe("Tests in your industry");
    expect(BENCHMARK_DESCRIPTIONS[8]).toBe("Tests within this category");
  });

  test("the stored benchmark id is restored if available, else the default type 1", () => {
    const rows = [
      { benchmarkTypeId: 1, isAvailable: true },
      { benchmarkTypeId: 2, isAvailable: true },
      { benchmarkTypeId: 5, isAvailable: false },
      { benchmarkTypeId: 0, isAvailable: true },
    ];
    expect(storedBenchmarkId()).toBeNull();
    storeBenchmarkId(2);
    expect(localStorage.getItem("benchmarkId")).toBe("2");
    expect(chooseBenchmark(rows, storedBenchmarkId())).toBe(2);
    expect(chooseBenchmark(rows, 5), "unavailable: the default").toBe(1);
    expect(chooseBenchmark(rows, 0), "'None' is a choice").toBe(0);
    expect(
      chooseBenchmark(
        [
          { benchmarkTypeId: 1, isAvailable: false },
          { benchmarkTypeId: 3, isAvailable: true },
        ],
        null,
      ),
    ).toBe(3);
  });

  test("view defaults, and top-2 combined forces the top-2 benchmark", () => {
    expect(viewSettings({})).toEqual({ splitBy: "testOption", metricVisualization: "top2combined", benchmarkType: "top2" });
    expect(viewSettings({ benchmarkLine: "off" }).benchmarkType, "forced while top-2 combined").toBe("top2");
    expect(viewSettings({ metric: "distribution", benchmarkLine: "off" }).benchmarkType).toBe("off");
  });
});

describe("chart palette under colour-vision deficiencies", () => {
  test("every pair of series colours stays distinct (CIE76 ΔE ≥ 15) seen normally and with protanopia, deuteranopia and tritanopia", () => {
    const worst = minPairDifference(SERIES);
    expect(worst.deltaE, `closest pair ${worst.a} / ${worst.b} under ${worst.vision}`).toBeGreaterThanOrEqual(15);
  });

  test("the check can fail: red and green merge under deuteranopia", () => {
    const worst = minPairDifference(["#d62728", "#2ca02c"]);
    expect(worst.vision).not.toBe("normal");
    expect(worst.deltaE).toBeLessThan(15);
    const [r, g, b] = simulate(hexToRgb("#ffffff"), "deuteranopia");
    expect(Math.min(r, g, b), "white stays white").toBeGreaterThan(0.98);
  });
});
