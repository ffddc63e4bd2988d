// The web editor's quota cells (web/src/features/quotas.ts): the shares checked at the field as the
// API checks them (ChangeTargets: an "only these" group's shares add up to exactly 100%, in
// hundredths), and every save of the markets tab sending the whole stored set, so a tick keeps each
// market's quotas (the editor's toggle once sent answers only).
import { describe, expect, test } from "bun:test";
import type { Schemas } from "../../web/src/api/client.ts";
import { modelOf, sharesError, targetsBody, toggled, withQuotas, type StoredTarget } from "../../web/src/features/quotas.ts";

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
const question = (id: number, label: string, options: TargetQuestion["options"]): TargetQuestion => ({
  source: "system",
  id,
  projectQuestionId: null,
  questionPositionId: null,
  questionText: label,
  questionLabel: label,
  questionCode: null,
  questionTypeId: 1,
  options,
});
const GENDER = question(45, "Gender", [option(4500001, "Male"), option(4500002, "Female"), option(4500003, "Another gender")]);
const AGE = question(51, "Age group", [option(5100001, "18-24"), option(5100002, "25-34")]);
const QUESTIONS = [GENDER, AGE];
const stored = (id: number, o: number, regionId: number | null, quotaPercent: number | null, onlyThese = false): StoredTarget => ({
  id,
  regionId,
  systemQuestionOptionId: o,
  questionOptionId: null,
  quotaPercent,
  onlyThese,
});

describe("sharesError: the words at the field", () => {
  test("100% in all, or every share empty, can be saved", () => {
    expect(sharesError(["50", "50", ""])).toBeNull();
    expect(sharesError(["33.33", "66.67"])).toBeNull();
    expect(sharesError(["", "", ""])).toBeNull();
  });
  test("99.99% and 100.01% are refused with the sum", () => {
    expect(sharesError(["49.99", "50"])).toBe("The shares add up to 99.99%: they must add up to 100%, or be left empty for no quota.");
    expect(sharesError(["50.01", "50"])).toBe("The shares add up to 100.01%: they must add up to 100%, or be left empty for no quota.");
  });
  test("a share of 0, above 100, with three decimals or not a number is refused", () => {
    for (const bad of ["0", "100.01", "50.001", "fifty", "-5"])
      expect(sharesError([bad, ""]), bad).toBe("Enter each share as a percentage above 0 and up to 100 (at most two decimals), or leave it empty.");
    expect(sharesError(["100", ""])).toBeNull();
  });
});

describe("targetsBody: the whole set, every save", () => {
  test("50/50 set in New Zealand only: one target per market, the quotas in New Zealand only, the ticks in Australia", () => {
    const model = withQuotas(
      modelOf(QUESTIONS, [stored(1, 4500001, null, null), stored(2, 4500002, null, null)], [1, 2]),
      GENDER,
      1,
      new Map([
        ["s4500001", 50],
        ["s4500002", 50],
      ]),
    );
    expect(targetsBody(QUESTIONS, model, [1, 2])).toEqual([
      { systemQuestionOptionId: 4500001, regionId: 1, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: 4500002, regionId: 1, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: 4500001, regionId: 2, quotaPercent: null, onlyThese: false },
      { systemQuestionOptionId: 4500002, regionId: 2, quotaPercent: null, onlyThese: false },
    ]);
  });

  test("ticking an age answer keeps the gender quotas as stored", () => {
    const s = [stored(1, 4500001, 1, 50, true), stored(2, 4500002, 1, 50, true)];
    const model = toggled(modelOf(QUESTIONS, s, [1]), AGE, AGE.options[0]!, true, [1]);
    expect(targetsBody(QUESTIONS, model, [1])).toEqual([
      { systemQuestionOptionId: 4500001, regionId: 1, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: 4500002, regionId: 1, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: 5100001, quotaPercent: null, onlyThese: false },
    ]);
  });

  test("a quota set from the CLI for every market and open to the other answers stays open (not made 'only these')", () => {
    const model = toggled(modelOf(QUESTIONS, [stored(1, 4500002, null, 50)], [1]), AGE, AGE.options[1]!, true, [1]);
    expect(targetsBody(QUESTIONS, model, [1])).toEqual([
      { systemQuestionOptionId: 4500002, regionId: 1, quotaPercent: 50, onlyThese: false },
      { systemQuestionOptionId: 5100002, quotaPercent: null, onlyThese: false },
    ]);
  });

  test("a tick does not touch a market whose quotas decide; clearing the shares removes the question's targets there", () => {
    const s = [stored(1, 4500001, 1, 50, true), stored(2, 4500002, 1, 50, true)];
    const ticked = toggled(modelOf(QUESTIONS, s, [1]), GENDER, GENDER.options[2]!, true, [1]);
    expect(targetsBody(QUESTIONS, ticked, [1]).map((t) => t.systemQuestionOptionId)).toEqual([4500001, 4500002]);
    expect(targetsBody(QUESTIONS, withQuotas(ticked, GENDER, 1, new Map()), [1])).toEqual([]);
  });
});
