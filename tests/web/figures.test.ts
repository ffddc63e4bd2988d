// The results page each kind of cited figure opens (web/src/features/results/figures.ts), and the
// filters it opens with. The routes are the results area's own (SPEC 2): grow-ideas/{testOptionId},
// summary, qual/{pq}, text/{pq}/themes, text/{pq}, drivers, price-sensitivity, market-reach. A
// figure computed for women opens its chart filtered to women (issue 23: a cited 94.3% (women)
// opened a page without the filter, showing 88.5%).
import { describe, expect, test } from "bun:test";
import { figureSearch, figureTarget, type Figure } from "../../web/src/features/results/figures";
import { decodeSearch } from "../../web/src/lib/search";
import { filtersFromSearch, toResponseFilter } from "../../web/src/features/results/filters";

const filters = { regionIds: [1] };
const fig = (ref: string, source: Figure["source"]): Figure => ({ ref, text: ref, value: 1, source });
const route = (f: Figure, all: Figure[] = []) => figureTarget(f, all).path;

describe("figureTarget", () => {
  test("each results function's figure opens its page", () => {
    expect(route(fig("F1", { fn: "QualResults", filters, benchmarkTypeId: null, standardQuestionId: 3, testOptionId: 9, field: "top2" }))).toBe("grow-ideas/9");
    expect(route(fig("F1", { fn: "QualResults", filters, benchmarkTypeId: null, standardQuestionId: 3, testOptionId: null, field: "top2" }))).toBe("summary");
    expect(route(fig("F1", { fn: "PriceSensitivityResults", filters, testOptionId: null, field: "opp" }))).toBe("price-sensitivity");
    expect(route(fig("F1", { fn: "MarketReachResults", filters, k: 2, field: "reach" }))).toBe("market-reach");
    expect(route(fig("F1", { fn: "VerbatimCount", filters, projectQuestionId: 12, themeId: 4, field: "share" }))).toBe("text/12/themes");
    expect(route(fig("F1", { fn: "DriverResults", filters, testOptionId: 9, standardQuestionId: 5, field: "importance" }))).toBe("drivers");
    const quote = figureTarget(fig("F1", { fn: "Verbatim", filters, projectQuestionId: 12, testOptionId: 9, themeId: 4, sentiment: "Positive", answerId: 77, field: "text" }));
    expect(quote.path).toBe("text/12");
    expect(quote.params).toEqual({ theme: 4, sentiment: "Positive", option: 9 });
  });

  test("an answer option's share (QuestionResults) opens its question's page, not 'undefined'", () => {
    expect(route(fig("F1", { fn: "QuestionResults", filters, projectQuestionId: 7, testOptionId: null, questionOptionId: 30, field: "share" }))).toBe("qual/7");
  });

  test("the count of simulated respondents an AI text cites (issue 36) opens the Summary under its filters", () => {
    const t = figureTarget(fig("F9", { fn: "SimulatedRespondents", filters, field: "respondents" }));
    expect(t).toEqual({ path: "summary", params: {}, filters });
  });

  test("a difference opens the page of the figure it is taken from", () => {
    const a = fig("F1", { fn: "VerbatimCount", filters, projectQuestionId: 12, themeId: 4, field: "share" });
    const d = fig("F3", { fn: "Difference", a: "F1", b: "F2" });
    expect(route(d, [a, d])).toBe("text/12/themes");
    expect(route(d, [d])).toBe("summary");
  });
});

describe("figureSearch", () => {
  const codeOf = (id: number) => ({ 101: "GENDER", 102: "GENDER", 201: "AGE" })[id];
  const questionOf = (id: number) => ({ 900: 55 })[id];

  test("a figure for women opens its chart with the women filter, in the figure's market, the benchmark kept", () => {
    const women = fig("F2", { fn: "QualResults", filters: { regionIds: [2], filterIds: [101] }, benchmarkTypeId: 1, standardQuestionId: 5, testOptionId: 9, field: "top2" });
    const search = figureSearch("?region=1&filters=%7B%22AGE%22%3A%5B201%5D%7D&benchmark=3&page=4", figureTarget(women), codeOf, questionOf);
    const q = decodeSearch(search);
    expect(q.benchmark).toBe("3");
    expect(q.page).toBeUndefined();
    // The page computes exactly the figure's filter from the link.
    const state = filtersFromSearch(q);
    expect(toResponseFilter(state, state.selectedRegionId!)).toEqual({ regionIds: [2], filterIds: [101] });
  });

  test("answer options, runs and dates come back too; a figure without markets keeps the page's market", () => {
    const f = fig("F1", { fn: "VerbatimCount", filters: { filterIds: [101, 201], questionOptionsIds: [900], surveyIds: [3] }, projectQuestionId: 12, themeId: 4, field: "share" });
    const q = decodeSearch(figureSearch("?region=2&filters=%7B%22GENDER%22%3A%5B102%5D%7D", figureTarget(f), codeOf, questionOf));
    const state = filtersFromSearch(q);
    expect(state.selectedRegionId).toBe(2);
    expect(toResponseFilter(state, 2)).toEqual({ regionIds: [2], filterIds: [101, 201], questionOptionsIds: [900], surveyIds: [3] });
  });

  test("a quote opens the answers list on its theme, sentiment and test option", () => {
    const quote = fig("F1", { fn: "Verbatim", filters: { regionIds: [1] }, projectQuestionId: 12, testOptionId: 9, themeId: 4, sentiment: "Negative", answerId: 77, field: "text" });
    const q = decodeSearch(figureSearch("?region=1&theme=2&q=crunch", figureTarget(quote), codeOf, questionOf));
    expect(q.theme).toBe("4");
    expect(q.sentiment).toBe("Negative");
    expect(q.option).toBe("9");
    expect(q.q).toBeUndefined();
  });
});
