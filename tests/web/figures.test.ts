// The results page each kind of cited figure opens (web/src/features/results/figures.ts). The
// routes are the results area's own (SPEC 2): grow-ideas/{testOptionId}, summary, qual/{pq},
// text/{pq}/themes, price-sensitivity, market-reach.
import { describe, expect, test } from "bun:test";
import { figureRoute, type Figure } from "../../web/src/features/results/figures";

const filters = { regionIds: [1] };
const fig = (ref: string, source: Figure["source"]): Figure => ({ ref, text: ref, value: 1, source });

describe("figureRoute", () => {
  test("each results function's figure opens its page", () => {
    expect(figureRoute(fig("F1", { fn: "QualResults", filters, benchmarkTypeId: null, standardQuestionId: 3, testOptionId: 9, field: "top2" }))).toBe("grow-ideas/9");
    expect(figureRoute(fig("F1", { fn: "QualResults", filters, benchmarkTypeId: null, standardQuestionId: 3, testOptionId: null, field: "top2" }))).toBe("summary");
    expect(figureRoute(fig("F1", { fn: "PriceSensitivityResults", filters, testOptionId: null, field: "opp" }))).toBe("price-sensitivity");
    expect(figureRoute(fig("F1", { fn: "MarketReachResults", filters, k: 2, field: "reach" }))).toBe("market-reach");
    expect(figureRoute(fig("F1", { fn: "VerbatimCount", filters, projectQuestionId: 12, themeId: 4, field: "share" }))).toBe("text/12/themes");
  });

  test("an answer option's share (QuestionResults) opens its question's page, not 'undefined'", () => {
    expect(figureRoute(fig("F1", { fn: "QuestionResults", filters, projectQuestionId: 7, testOptionId: null, questionOptionId: 30, field: "share" }))).toBe("qual/7");
  });

  test("a difference opens the page of the figure it is taken from", () => {
    const a = fig("F1", { fn: "VerbatimCount", filters, projectQuestionId: 12, themeId: 4, field: "share" });
    const d = fig("F3", { fn: "Difference", a: "F1", b: "F2" });
    expect(figureRoute(d, [a, d])).toBe("text/12/themes");
    expect(figureRoute(d, [d])).toBe("summary");
  });
});
