// Crossed quota cells in the web editor (web/src/features/crossed.ts, record 0128): the stored
// cells grouped into crossings as the API groups them, the grid's answers (the targets' answers in
// the market, else all), the total checked as the API checks it (in hundredths, 100% exactly) and
// ChangeTargets' crossedQuotas after one crossing's save: the whole list, the other crossings and
// markets as stored (crossedQuotas replaces every cell; left out it keeps them, [] removes them).
import { describe, expect, test } from "bun:test";
import type { Schemas } from "../../web/src/api/client.ts";
import { crossedBody, crossedError, crossedWith, crossingsIn, gridAnswers, totalOf, type CrossedBody, type StoredCrossedCell } from "../../web/src/features/crossed.ts";

type TargetQuestion = Schemas["TargetQuestion"];
const option = (id: number, answerLabel: string, regionId: number | null = null): TargetQuestion["options"][number] => ({
  systemQuestionOptionId: id,
  questionOptionId: null,
  answerLabel,
  filterSubtext: null,
  regionId,
  exclusive: false,
  isTarget: false,
  count: 0,
});
const question = (id: number, label: string, options: TargetQuestion["options"], source: "system" | "question" = "system"): TargetQuestion => ({
  source,
  id,
  projectQuestionId: null,
  questionPositionId: null,
  questionText: label,
  questionLabel: label,
  questionCode: null,
  questionTypeId: 1,
  options,
});
const MALE = 4500001;
const FEMALE = 4500002;
const OTHER = 4500003;
const A18 = 5100001;
const A25 = 5100002;
const GENDER = question(45, "Gender", [option(MALE, "Male"), option(FEMALE, "Female"), option(OTHER, "Another gender")]);
const AGE = question(51, "Age group", [option(A18, "18-24"), option(A25, "25-34")]);
// Income bands of one market each (AUD in Australia, 2; NZD in New Zealand, 1).
const INCOME = question(60, "Income", [option(6000001, "Under $50k", 1), option(6000002, "Under A$50k", 2)]);
const QUESTIONS = [GENDER, AGE, INCOME];
const cell = (regionId: number, a: number, b: number, quotaPercent: number): StoredCrossedCell => ({ regionId, firstOptionId: a, secondOptionId: b, quotaPercent });
const QUARTERS_NZ = [cell(1, MALE, A18, 25), cell(1, MALE, A25, 25), cell(1, FEMALE, A18, 25), cell(1, FEMALE, A25, 25)];

describe("the stored cells by crossing", () => {
  test("a market's cells are one crossing keyed by the lower question first; another market's are not in it", () => {
    const xs = crossingsIn(QUESTIONS, [...QUARTERS_NZ, cell(2, MALE, A18, 100)], 1);
    expect(xs.map((x) => [x.regionId, x.questionIds, [...x.shares]])).toEqual([
      [
        1,
        [45, 51],
        [
          ["4500001&5100001", 25],
          ["4500001&5100002", 25],
          ["4500002&5100001", 25],
          ["4500002&5100002", 25],
        ],
      ],
    ]);
    expect(crossingsIn(QUESTIONS, QUARTERS_NZ, 2)).toEqual([]);
    expect(crossedWith(xs, GENDER)).toBe(51);
    expect(crossedWith(xs, AGE)).toBe(45);
    expect(crossedWith(xs, INCOME)).toBeNull();
  });
});

describe("the grid's answers", () => {
  test("the answers the targets take in the market; with no targets every answer of the market", () => {
    const targeted = {
      entries: [
        { option: `s${MALE}`, quotaPercent: null },
        { option: `s${FEMALE}`, quotaPercent: null },
      ],
      onlyThese: false,
    };
    expect(gridAnswers(GENDER, targeted, 1).map((o) => o.label)).toEqual(["Male", "Female"]);
    expect(gridAnswers(GENDER, undefined, 1).map((o) => o.label)).toEqual(["Male", "Female", "Another gender"]);
    expect(
      gridAnswers(INCOME, undefined, 2).map((o) => o.label),
      "Australia's bands only",
    ).toEqual(["Under A$50k"]);
    // An answer with a stored cell stays in view though no target takes it now.
    expect(gridAnswers(GENDER, targeted, 1, [OTHER]).map((o) => o.label)).toEqual(["Male", "Female", "Another gender"]);
  });
});

describe("crossedError: the total at the field, in hundredths as the API checks it", () => {
  test("100% in all, or every share empty, can be saved", () => {
    expect(crossedError(["25", "25", "25", "25"])).toBeNull();
    expect(crossedError(["33.33", "33.33", "33.34", ""])).toBeNull();
    expect(crossedError(["", "", "", ""])).toBeNull();
    expect(totalOf(["33.33", "33.33", "33.34", ""])).toBe(100);
  });
  test("99.99% and 100.01% are refused with the sum", () => {
    expect(crossedError(["25", "25", "25", "24.99"])).toBe("The crossed cells add up to 99.99%: they must add up to 100%, or be left empty for no crossed quota.");
    expect(crossedError(["25", "25", "25", "25.01"])).toBe("The crossed cells add up to 100.01%: they must add up to 100%, or be left empty for no crossed quota.");
    expect(totalOf(["25", "25", "25", "24.99"])).toBe(99.99);
  });
  test("a share of 0, above 100, with three decimals or not a number is refused", () => {
    for (const bad of ["0", "100.01", "25.001", "a quarter"])
      expect(crossedError([bad, "100"]), bad).toBe("Enter each share as a percentage above 0 and up to 100 (at most two decimals), or leave it empty.");
  });
});

describe("crossedBody: the whole list after one crossing's save", () => {
  const OTHERS = [cell(2, MALE, A18, 50), cell(2, FEMALE, A18, 50)];
  const nz = (a: number, b: number, quotaPercent: number) => ({ regionId: 1, systemQuestionOptionIds: [a, b] satisfies [number, number], quotaPercent });
  const asBody = (c: StoredCrossedCell): CrossedBody => ({ regionId: c.regionId, systemQuestionOptionIds: [c.firstOptionId, c.secondOptionId], quotaPercent: c.quotaPercent });

  test("a new crossing is added to every stored cell of the other markets", () => {
    expect(crossedBody(QUESTIONS, OTHERS, 1, null, [45, 51], [nz(MALE, A18, 60), nz(FEMALE, A18, 40)])).toEqual([...OTHERS.map(asBody), nz(MALE, A18, 60), nz(FEMALE, A18, 40)]);
  });
  test("a crossing saved again replaces its own cells only; chosen the other way round (age as rows) it is the same crossing", () => {
    const next = [nz(MALE, A18, 40), nz(MALE, A25, 10), nz(FEMALE, A18, 40), nz(FEMALE, A25, 10)];
    expect(crossedBody(QUESTIONS, [...QUARTERS_NZ, ...OTHERS], 1, [45, 51], [51, 45], next)).toEqual([...OTHERS.map(asBody), ...next]);
  });
  test("no cells remove the crossing; the other markets' cells are still sent (an empty list would remove them too)", () => {
    expect(crossedBody(QUESTIONS, [...QUARTERS_NZ, ...OTHERS], 1, [45, 51], [45, 51], [])).toEqual(OTHERS.map(asBody));
    expect(crossedBody(QUESTIONS, QUARTERS_NZ, 1, [45, 51], [45, 51], [])).toEqual([]);
  });
  test("a crossing moved to other questions drops its former cells", () => {
    const income = [{ regionId: 1, systemQuestionOptionIds: [MALE, 6000001] satisfies [number, number], quotaPercent: 100 }];
    expect(crossedBody(QUESTIONS, QUARTERS_NZ, 1, [45, 51], [45, 60], income)).toEqual(income);
  });
});
