// The Summary page's pure parts (issue 23): which AI summary belongs to the view on screen and
// where the Advertising entry is offered. (The verdict's headline is the API's: tests/api/verdict.test.ts.)
import { describe, expect, test } from "bun:test";
import { canonicalFilter, summaryForView, type AiSummary } from "../../web/src/features/results/summaryScope";
import { hasAdvertisingMeasures } from "../../web/src/features/results/questions";

const row = (id: number, o: Partial<AiSummary>): AiSummary => ({
  id,
  summaryType: "FullTestSummary",
  title: null,
  content: "x",
  status: "Ready",
  generatedAt: null,
  projectObjectiveId: null,
  segmentId: null,
  filters: null,
  benchmarkTypeId: null,
  total: null,
  referencesData: null,
  createdAt: `2026-11-25T10:0${id}:00Z`,
  ...o,
});

describe("summaryForView", () => {
  const project = row(1, {});
  const nz = row(2, { filters: { regionIds: [2] }, benchmarkTypeId: 1 });
  const nzNone = row(3, { filters: { regionIds: [2] }, benchmarkTypeId: 0 });
  const segment = row(4, { segmentId: 7, filters: { filterIds: [4500002] } });
  const all = [project, nz, nzNone, segment];

  test("the summary written for the market, filters and benchmark on screen", () => {
    expect(summaryForView(all, { regionIds: [2] }, 1)).toEqual({ summary: nz, scope: "view" });
    expect(summaryForView(all, { regionIds: [2] }, 0)).toEqual({ summary: nzNone, scope: "view" });
  });

  test("otherwise the project's own (all markets, all respondents), said to be another scope; never a segment's", () => {
    expect(summaryForView(all, { regionIds: [1] }, 1)).toEqual({ summary: project, scope: "project" });
    expect(summaryForView([segment], { regionIds: [1] }, 1)).toBeNull();
  });

  test("all the project's markets on screen is the project summary's own scope (no market filter), when it is of the all-markets total", () => {
    const byMarkets = row(6, { total: "markets" });
    expect(summaryForView([byMarkets], { regionIds: [2, 1] }, 1, [1, 2])).toEqual({ summary: byMarkets, scope: "view" });
    expect(summaryForView([byMarkets], { regionIds: [1] }, 1, [1, 2])?.scope).toBe("project");
    // A summary of the sample-weighted total is not what All markets shows (the all-markets total): another scope.
    expect(summaryForView([project], { regionIds: [2, 1] }, 1, [1, 2])).toEqual({ summary: project, scope: "project" });
    expect(summaryForView([row(7, { filters: { regionIds: [1, 2] }, total: "sample" })], { regionIds: [1, 2] }, 1, [1, 2])?.scope).toBeUndefined();
    // One market: the two totals are the same figures.
    expect(summaryForView([project], { regionIds: [1] }, 1, [1])?.scope).toBe("view");
  });

  test("a stored null benchmark is the default (all customers, 1)", () => {
    const a = row(5, { filters: { regionIds: [1] } });
    expect(summaryForView([a], { regionIds: [1] }, 1)?.scope).toBe("view");
    expect(summaryForView([a], { regionIds: [1] }, 2)).toBeNull();
  });

  test("filters compare in one spelling: key order, list order, empty lists", () => {
    expect(canonicalFilter({ regionIds: [2], filterIds: [5, 3], surveyIds: [] })).toBe(canonicalFilter({ filterIds: [3, 5], regionIds: [2] }));
    expect(canonicalFilter(null)).toBe("{}");
  });
});

describe("hasAdvertisingMeasures", () => {
  const q = (standardQuestionId: number | null, questionTypeId: 1 | 2 | 3 | 4) => ({
    standardQuestionId,
    question: { id: 1, questionText: "", questionTitle: null, questionTypeId, questionOptions: [] },
  });
  test("a tracker whose only advertising question is the open-text Advertisement Outtake has no Advertising entry", () => {
    expect(hasAdvertisingMeasures([q(5, 1), q(10, 3)])).toBe(false);
  });
  test("brand recognition (6) or in-store visibility (11) on the scale: the entry is there", () => {
    expect(hasAdvertisingMeasures([q(5, 1), q(11, 1)])).toBe(true);
    expect(hasAdvertisingMeasures([q(6, 1)])).toBe(true);
  });
});
