// The respondent engine (api/src/domains/fielding/engine.ts) on its own: pure functions, no server,
// no fielded project. Expected values are written by hand from DOMAIN.md (the order of a survey,
// Van Westendorp's price order), docs/decisions.md ("Fielding", "Quotas that can be met", "The
// simulated panel") and the engine's stated rules; the generators against published test vectors
// (FNV-1a) and an independent Python implementation of mulberry32. Fast enough to run per mutant
// (`bun run test:mutation engine`).
import { describe, expect, test } from "bun:test";
import {
  afterPage,
  answerCell,
  answerKey,
  assignTestOptions,
  ATTENTION,
  countComplete,
  crossedCell,
  crossingKeyOf,
  hash32,
  pages,
  quotaProgress,
  quotaReads,
  seeded,
  validatePage,
  type DefCrossing,
  type DefOption,
  type DefQuestion,
  type Answers,
  type DefTarget,
  type Outcome,
  type Page,
  type SurveyDefinition,
} from "../../api/src/domains/fielding/engine.ts";

const opt = (id: number, text = `Option ${id}`, exclusive = false): DefOption => ({ id, text, exclusive, isNotSure: false, standardAnswerValue: null });

function question(key: string, type: DefQuestion["type"], extra: Partial<DefQuestion> = {}): DefQuestion {
  return {
    key,
    systemQuestionId: null,
    projectQuestionId: null,
    questionId: null,
    standardQuestionId: null,
    positionId: null,
    testOptionId: null,
    type,
    title: key,
    text: `Question ${key}`,
    options: [],
    minChoices: null,
    maxChoices: null,
    ...extra,
  };
}

const price = (std: number, testOptionId: number | null = null) => question(`q${std}`, "price", { standardQuestionId: std, testOptionId });

function definition(extra: Partial<SurveyDefinition> = {}): SurveyDefinition {
  return {
    version: 1,
    surveyRunId: 1,
    projectId: 1,
    projectName: "Engine test",
    projectTypeId: 1,
    regionId: 1,
    regionName: "New Zealand",
    currencyCode: "NZD",
    currencySymbol: "$",
    isCustomerPanel: false,
    targetCompletes: 100,
    design: "sequential",
    testOptions: [],
    demographics: [],
    screener: [],
    loop: [],
    followUps: [],
    targets: [],
    priceRange: {},
    translations: {},
    ...extra,
  };
}

const testOption = (id: number) => ({ id, conceptText: `Concept ${id}`, conceptDescription: null, fileKey: null, fileType: null });

describe("answerKey: where an answer is kept", () => {
  test("the question's key, with the test option when it was asked about one", () => {
    const q = question("q7", "single");
    expect(answerKey(q, null)).toBe("q7");
    expect(answerKey(q, 12)).toBe("q7:t12");
    expect(answerKey(q, 0)).toBe("q7:t0");
  });
});

describe("pages: the order a respondent meets (DOMAIN.md, docs/decisions.md Fielding)", () => {
  const demo = question("s1", "single");
  const screen = question("q1", "single");
  const shared = question("q2", "single"); // asked of every test option
  const onlyFor5 = question("q3", "text", { testOptionId: 5 });
  const follow = question("q4", "text");

  test("demographics, screener, each test option's concept and price pages (prices 19-22 in order), attention, follow-ups", () => {
    const def = definition({
      demographics: [demo],
      screener: [screen],
      loop: [price(22), shared, price(20), onlyFor5, price(19), price(21)],
      followUps: [follow],
    });
    const all = pages(def, [5, 6]);
    expect(all.map((p) => p.id)).toEqual(["demographics", "screener", "concept:5", "price:5", "concept:6", "price:6", "attention", "followUps"]);
    expect(all.map((p) => p.kind)).toEqual(["demographics", "screener", "concept", "price", "concept", "price", "attention", "followUps"]);
    expect(all.map((p) => p.testOptionId)).toEqual([null, null, 5, 5, 6, 6, null, null]);
    expect(all[0]!.questions).toEqual([demo]);
    expect(all[1]!.questions).toEqual([screen]);
    // Option 5 is asked the shared question and its own; option 6 only the shared one.
    expect(all[2]!.questions.map((q) => q.key)).toEqual(["q2", "q3"]);
    expect(all[4]!.questions.map((q) => q.key)).toEqual(["q2"]);
    expect(all[3]!.questions.map((q) => q.standardQuestionId)).toEqual([19, 20, 21, 22]);
    expect(all[5]!.questions.map((q) => q.standardQuestionId)).toEqual([19, 20, 21, 22]);
    expect(all[6]!.questions).toEqual([]);
    expect(all[7]!.questions).toEqual([follow]);
  });

  test("a price question tied to one test option is asked on that option's page only", () => {
    const def = definition({ loop: [price(19, 5), price(20, 5), price(19, 6), price(20, 6)] });
    const all = pages(def, [6]);
    expect(all.map((p) => p.id)).toEqual(["concept:6", "price:6", "attention"]);
    expect(all[1]!.questions.map((q) => q.testOptionId)).toEqual([6, 6]);
    expect(all[0]!.questions).toEqual([]);
  });

  test("without demographics, screener, prices or follow-ups: the concept pages and the attention check", () => {
    const all = pages(definition({ loop: [shared] }), [3, 1]);
    expect(all.map((p) => p.id)).toEqual(["concept:3", "concept:1", "attention"]);
    expect(pages(definition(), []).map((p) => p.id)).toEqual(["attention"]);
  });

  test("the purchase-intent page follows the price page of the options that ask it, never an option without prices", () => {
    const def = definition({ loop: [price(19), price(20)], purchaseIntent: [5] });
    expect(pages(def, [5, 6]).map((p) => p.id)).toEqual(["concept:5", "price:5", "intent:5", "concept:6", "price:6", "attention"]);
    const intent = pages(def, [5])[2]!;
    expect(intent).toEqual({ id: "intent:5", kind: "intent", testOptionId: 5, questions: [] });
    const noPrices = definition({ loop: [shared], purchaseIntent: [5] });
    expect(pages(noPrices, [5]).map((p) => p.id)).toEqual(["concept:5", "attention"]);
  });
});

describe("assignTestOptions: monadic sees the least filled option, sequential all of them shuffled", () => {
  const mono = definition({ design: "monadic", testOptions: [testOption(1), testOption(2), testOption(3)] });
  const seq = definition({ design: "sequential", testOptions: [testOption(1), testOption(2), testOption(3)] });
  const always = (x: number) => () => x;
  const sequence = (xs: number[]) => {
    let i = 0;
    return () => xs[i++]!;
  };

  test("monadic: one option, among the least filled (an option without completes counts 0), chosen by the generator", () => {
    expect(assignTestOptions(mono, { 1: 5, 2: 3, 3: 3 }, always(0))).toEqual([2]);
    expect(assignTestOptions(mono, { 1: 5, 2: 3, 3: 3 }, always(0.99))).toEqual([3]);
    expect(assignTestOptions(mono, { 1: 5, 2: 4, 3: 3 }, always(0))).toEqual([3]);
    expect(assignTestOptions(mono, { 1: 5 }, always(0))).toEqual([2]);
    expect(assignTestOptions(mono, { 1: 5 }, always(0.99))).toEqual([3]);
    expect(assignTestOptions(mono, {}, always(0.5))).toEqual([2]);
  });

  test("sequential: all options in a Fisher-Yates shuffle (worked by hand for three generators)", () => {
    // i = 2: j = floor(r * 3); i = 1: j = floor(r * 2).
    expect(assignTestOptions(seq, {}, always(0))).toEqual([2, 3, 1]);
    expect(assignTestOptions(seq, {}, always(0.99))).toEqual([1, 2, 3]);
    expect(assignTestOptions(seq, {}, sequence([0.5, 0]))).toEqual([3, 1, 2]);
    expect(assignTestOptions(seq, { 1: 100 }, sequence([0.1, 0.9]))).toEqual([3, 2, 1]);
  });

  test("no test options: nothing to see", () => {
    // toHaveLength: toEqual([]) would take [undefined] for [].
    expect(assignTestOptions(definition({ design: "monadic" }), {}, always(0))).toHaveLength(0);
    expect(assignTestOptions(definition({ design: "sequential" }), {}, always(0))).toHaveLength(0);
  });

  test("one option: monadic and sequential both see it", () => {
    const one = [testOption(9)];
    expect(assignTestOptions(definition({ design: "monadic", testOptions: one }), {}, always(0.7))).toEqual([9]);
    expect(assignTestOptions(definition({ design: "sequential", testOptions: one }), {}, always(0.7))).toEqual([9]);
  });
});

describe("validatePage: each question type's rule", () => {
  const single = question("q1", "single", { options: [opt(11), opt(12)] });
  const dropdown = question("q2", "dropdown", { options: [opt(21), opt(22)] });
  const page = (questions: DefQuestion[], kind: Page["kind"] = "concept", testOptionId: number | null = null): Page => ({ id: "p", kind, testOptionId, questions });
  const errorsOf = (r: ReturnType<typeof validatePage>) => ("errors" in r ? r.errors : []);
  const answersOf = (r: ReturnType<typeof validatePage>) => ("answers" in r ? r.answers : null);

  test("single and dropdown: one of the question's options", () => {
    const p = page([single, dropdown]);
    expect(answersOf(validatePage(definition(), p, { q1: 12, q2: 21 }))).toEqual({ q1: 12, q2: 21 });
    expect(errorsOf(validatePage(definition(), p, { q1: 13, q2: "21" }))).toEqual([
      { path: "q1", message: "Choose one answer" },
      { path: "q2", message: "Choose one answer" },
    ]);
    expect(errorsOf(validatePage(definition(), p, {}))).toEqual([
      { path: "q1", message: "Choose one answer" },
      { path: "q2", message: "Choose one answer" },
    ]);
  });

  test("answers asked about a test option are kept under its key", () => {
    const p = page([single], "concept", 4);
    expect(answersOf(validatePage(definition(), p, { "q1:t4": 11 }))).toEqual({ "q1:t4": 11 });
    expect(errorsOf(validatePage(definition(), p, { q1: 11 }))).toEqual([{ path: "q1:t4", message: "Choose one answer" }]);
  });

  describe("multiple choice", () => {
    const multi = question("m", "multiple", { options: [opt(1), opt(2), opt(3), opt(4), opt(9, "None of these", true)] });
    const p = page([multi]);
    const check = (v: unknown) => validatePage(definition(), p, { m: v });

    test("at least one of its options, each once", () => {
      expect(answersOf(check([2, 1, 2]))).toEqual({ m: [2, 1] });
      expect(answersOf(check([3]))).toEqual({ m: [3] });
      for (const bad of [[], 2, [2, 5], [2, "3"], "1", null]) expect(errorsOf(check(bad))).toEqual([{ path: "m", message: "Choose at least one answer" }]);
    });

    test("an exclusive option alone, never with another", () => {
      expect(answersOf(check([9]))).toEqual({ m: [9] });
      expect(answersOf(check([9, 9]))).toEqual({ m: [9] });
      expect(errorsOf(check([1, 9]))).toEqual([{ path: "m", message: "“None of these” cannot be combined with other answers" }]);
    });

    test("minChoices and maxChoices at, below and above", () => {
      const bounded = question("m", "multiple", { options: multi.options, minChoices: 2, maxChoices: 3 });
      const v = (x: number[]) => validatePage(definition(), page([bounded]), { m: x });
      expect(errorsOf(v([1]))).toEqual([{ path: "m", message: "Choose at least 2" }]);
      expect(errorsOf(v([1, 1]))).toEqual([{ path: "m", message: "Choose at least 2" }]);
      expect(answersOf(v([1, 2]))).toEqual({ m: [1, 2] });
      expect(answersOf(v([1, 2, 3]))).toEqual({ m: [1, 2, 3] });
      expect(errorsOf(v([1, 2, 3, 4]))).toEqual([{ path: "m", message: "Choose at most 3" }]);
      // An exclusive answer with others is that message, whatever the counts.
      expect(errorsOf(v([9, 1, 2, 3]))).toEqual([{ path: "m", message: "“None of these” cannot be combined with other answers" }]);
    });
  });

  test("text: 2 to 2000 characters once trimmed, stored trimmed", () => {
    const p = page([question("t", "text")]);
    const check = (v: unknown) => validatePage(definition(), p, { t: v });
    expect(errorsOf(check("a"))).toEqual([{ path: "t", message: "Please write a short answer" }]);
    expect(errorsOf(check("  a  "))).toEqual([{ path: "t", message: "Please write a short answer" }]);
    expect(errorsOf(check(42))).toEqual([{ path: "t", message: "Please write a short answer" }]);
    expect(answersOf(check(" ok "))).toEqual({ t: "ok" });
    expect(answersOf(check("x".repeat(2000)))).toEqual({ t: "x".repeat(2000) });
    expect(answersOf(check(` ${"x".repeat(2000)} `))).toEqual({ t: "x".repeat(2000) });
    expect(errorsOf(check("x".repeat(2001)))).toEqual([{ path: "t", message: "Please keep your answer under 2000 characters" }]);
  });

  describe("price", () => {
    const one = (v: unknown, range: SurveyDefinition["priceRange"] = {}) => validatePage(definition({ priceRange: range }), page([price(19)], "concept", 7), { "q19:t7": v });

    test("a number above 0 (a numeric string too), rounded to cents", () => {
      expect(answersOf(one(0.01))).toEqual({ "q19:t7": 0.01 });
      expect(answersOf(one("12.5"))).toEqual({ "q19:t7": 12.5 });
      expect(answersOf(one(" 3 "))).toEqual({ "q19:t7": 3 });
      expect(answersOf(one(12.344))).toEqual({ "q19:t7": 12.34 });
      expect(answersOf(one(9.996))).toEqual({ "q19:t7": 10 });
      for (const bad of [0, -1, "", "  ", "abc", null, Number.POSITIVE_INFINITY, Number.NaN, [5]]) {
        expect(errorsOf(one(bad))).toEqual([{ path: "q19:t7", message: "Enter a price above 0" }]);
      }
    });

    test("at most 1e9", () => {
      expect(answersOf(one(1e9))).toEqual({ "q19:t7": 1e9 });
      expect(errorsOf(one(1e9 + 1))).toEqual([{ path: "q19:t7", message: "Enter a realistic price" }]);
    });

    test("up to ten times the set-up's maximum, named in the currency", () => {
      const range = { "7": { min: 2, max: 10 } };
      expect(answersOf(one(100, range))).toEqual({ "q19:t7": 100 });
      expect(errorsOf(one(100.01, range))).toEqual([{ path: "q19:t7", message: "Enter a price up to $100" }]);
      // Another option's range does not apply; no maximum: no cap.
      expect(answersOf(one(100.01, { "8": { min: null, max: 10 } }))).toEqual({ "q19:t7": 100.01 });
      expect(answersOf(one(5000, { "7": { min: 1, max: null } }))).toEqual({ "q19:t7": 5000 });
    });

    test("Van Westendorp (DOMAIN.md): too cheap < bargain < getting expensive < too expensive, strictly", () => {
      const p = page([price(19), price(20), price(21), price(22)], "price", 7);
      const check = (a: number, b: number, c: number, d: number) => validatePage(definition(), p, { "q19:t7": a, "q20:t7": b, "q21:t7": c, "q22:t7": d });
      expect(answersOf(check(1, 2, 3, 4))).toEqual({ "q19:t7": 1, "q20:t7": 2, "q21:t7": 3, "q22:t7": 4 });
      expect(answersOf(check(1, 1.01, 1.02, 1.03))).toEqual({ "q19:t7": 1, "q20:t7": 1.01, "q21:t7": 1.02, "q22:t7": 1.03 });
      expect(errorsOf(check(2, 2, 3, 4))).toEqual([{ path: "q20:t7", message: "The price at which it is a bargain must be higher than the price at which it is too cheap" }]);
      expect(errorsOf(check(1, 2, 2, 4))).toEqual([{ path: "q21:t7", message: "The price at which it is getting expensive must be higher than the price at which it is a bargain" }]);
      expect(errorsOf(check(1, 2, 3, 3))).toEqual([{ path: "q22:t7", message: "The price at which it is too expensive must be higher than the price at which it is getting expensive" }]);
      expect(errorsOf(check(4, 3, 2, 1)).map((e) => e.path)).toEqual(["q20:t7", "q21:t7", "q22:t7"]);
    });

    test("the order is not checked on a page with an invalid price (that error alone), nor on a concept page", () => {
      const p = page([price(19), price(20)], "price", 7);
      expect(errorsOf(validatePage(definition(), p, { "q19:t7": 5, "q20:t7": 0 }))).toEqual([{ path: "q20:t7", message: "Enter a price above 0" }]);
      const concept = page([price(19), price(20)], "concept", 7);
      expect(answersOf(validatePage(definition(), concept, { "q19:t7": 5, "q20:t7": 4 }))).toEqual({ "q19:t7": 5, "q20:t7": 4 });
    });
  });

  test("purchase intent: both questions (20 and 21) on the 5-point scale", () => {
    const p: Page = { id: "intent:3", kind: "intent", testOptionId: 3, questions: [] };
    expect(answersOf(validatePage(definition(), p, { "intent20:t3": 1, "intent21:t3": 5 }))).toEqual({ "intent20:t3": 1, "intent21:t3": 5 });
    expect(errorsOf(validatePage(definition(), p, { "intent20:t3": 0, "intent21:t3": 6 }))).toEqual([
      { path: "intent20:t3", message: "Choose one answer" },
      { path: "intent21:t3", message: "Choose one answer" },
    ]);
    expect(errorsOf(validatePage(definition(), p, { "intent20:t3": 2.5, "intent21:t3": "3" }))).toEqual([
      { path: "intent20:t3", message: "Choose one answer" },
      { path: "intent21:t3", message: "Choose one answer" },
    ]);
    expect(errorsOf(validatePage(definition(), p, { "intent20:t3": 3 }))).toEqual([{ path: "intent21:t3", message: "Choose one answer" }]);
  });

  test("the attention check: one of its five options (0..4)", () => {
    const p: Page = { id: "attention", kind: "attention", testOptionId: null, questions: [] };
    expect(ATTENTION.options.length).toBe(5);
    for (const v of [0, 1, 4]) expect(answersOf(validatePage(definition(), p, { attention: v }))).toEqual({ attention: v });
    for (const v of [-1, 5, 1.5, "1", null]) expect(errorsOf(validatePage(definition(), p, { attention: v }))).toEqual([{ path: "attention", message: "Choose one answer" }]);
  });
});

describe("afterPage: screen-out by target, over quota, the attention check, next page or complete", () => {
  // Demographics ask the age group (s51: 18-24 is 1, 25-34 is 2, 35+ is 3) and gender (s52).
  const age = question("s51", "single", { options: [opt(1), opt(2), opt(3)] });
  const gender = question("s52", "single", { options: [opt(4), opt(5)] });
  const all: Page[] = [
    { id: "demographics", kind: "demographics", testOptionId: null, questions: [age] },
    { id: "screener", kind: "screener", testOptionId: null, questions: [gender] },
    { id: "concept:1", kind: "concept", testOptionId: 1, questions: [] },
    { id: "attention", kind: "attention", testOptionId: null, questions: [] },
    { id: "followUps", kind: "followUps", testOptionId: null, questions: [] },
  ];
  // Completes per answer, given by option id (unique across the two questions here) and kept as the
  // engine keeps them, per question and option (answerCell).
  const byAnswer = (completes: Record<string, number>) =>
    Object.fromEntries(Object.entries(completes).map(([id, n]) => [answerCell([age, gender].find((q) => q.options.some((o) => o.id === Number(id)))!.key, id), n]));
  const run = (targets: DefTarget[], index: number, answers: Record<string, number | number[] | string>, completes: Record<string, number> = {}) =>
    afterPage(definition({ targets }), all, index, answers, { completesByOption: {}, completesByAnswer: byAnswer(completes) });

  test("no target on the page: the next page, then Complete after the last", () => {
    expect(run([], 0, { s51: 3 })).toEqual({ status: "InProgress", page: 1 });
    expect(run([], 2, {})).toEqual({ status: "InProgress", page: 3 });
    expect(run([], 4, {})).toEqual({ status: "Complete" });
  });

  test("an answer outside a target screens out, naming the target; a target of another page is not applied", () => {
    const t: DefTarget = { key: "s51", optionIds: [1, 2], quotas: {} };
    expect(run([t], 0, { s51: 3 })).toEqual({ status: "ScreenedOut", reason: "target s51" });
    expect(run([t], 0, {})).toEqual({ status: "ScreenedOut", reason: "target s51" });
    expect(run([t], 0, { s51: 2 })).toEqual({ status: "InProgress", page: 1 });
    // The target asks s51; page 1 asks s52 only, so the answers there are not checked against it.
    expect(run([t], 1, { s51: 3, s52: 4 })).toEqual({ status: "InProgress", page: 2 });
    // Targets apply on demographics and screener pages only.
    const onConcept: Page[] = [{ id: "concept:1", kind: "concept", testOptionId: 1, questions: [age] }, all[3]!];
    expect(afterPage(definition({ targets: [t] }), onConcept, 0, { s51: 3 }, { completesByOption: {}, completesByAnswer: {} })).toEqual({ status: "InProgress", page: 1 });
  });

  test("a screener page's target works as a demographic's", () => {
    const t: DefTarget = { key: "s52", optionIds: [5], quotas: {} };
    expect(run([t], 1, { s52: 4 })).toEqual({ status: "ScreenedOut", reason: "target s52" });
    expect(run([t], 1, { s52: 5 })).toEqual({ status: "InProgress", page: 2 });
  });

  test("a multiple answer qualifies when any pick is in the target and its quota is open", () => {
    const t: DefTarget = { key: "s51", optionIds: [1, 2], quotas: { "1": 10, "2": 10 } };
    expect(run([t], 0, { s51: [3, 2] }, { 1: 10, 2: 9 })).toEqual({ status: "InProgress", page: 1 });
    expect(run([t], 0, { s51: [1, 2] }, { 1: 10, 2: 10 })).toEqual({ status: "OverQuota", reason: "quota s51" });
    expect(run([t], 0, { s51: [3] }, {})).toEqual({ status: "ScreenedOut", reason: "target s51" });
    expect(run([t], 0, { s51: "1" }, {})).toEqual({ status: "ScreenedOut", reason: "target s51" });
  });

  test("a quota is full at its count: 9 of 10 lets one more in, 10 and 11 do not; no count yet is 0", () => {
    const t: DefTarget = { key: "s51", optionIds: [1, 2], quotas: { "1": 10 } };
    expect(run([t], 0, { s51: 1 }, { 1: 9 })).toEqual({ status: "InProgress", page: 1 });
    expect(run([t], 0, { s51: 1 }, { 1: 10 })).toEqual({ status: "OverQuota", reason: "quota s51" });
    expect(run([t], 0, { s51: 1 }, { 1: 11 })).toEqual({ status: "OverQuota", reason: "quota s51" });
    expect(run([t], 0, { s51: 1 }, {})).toEqual({ status: "InProgress", page: 1 });
    expect(run([{ ...t, quotas: { "1": 0 } }], 0, { s51: 1 }, {})).toEqual({ status: "OverQuota", reason: "quota s51" });
  });

  test("a group open to its other answers (docs/decisions.md): they share othersQuota, full at it", () => {
    // Target 18-24 (option 1) with a quota; 25-34 (2) and 35+ (3) share what is left: 5 completes.
    const t: DefTarget = { key: "s51", optionIds: [1], quotas: { "1": 10 }, othersQuota: 5 };
    expect(run([t], 0, { s51: 3 }, { 1: 10, 2: 2, 3: 2 })).toEqual({ status: "InProgress", page: 1 });
    expect(run([t], 0, { s51: 3 }, { 1: 0, 2: 3, 3: 2 })).toEqual({ status: "OverQuota", reason: "quota s51" });
    expect(run([t], 0, { s51: 2 }, { 2: 6 })).toEqual({ status: "OverQuota", reason: "quota s51" });
    expect(run([t], 0, { s51: 2 }, { 3: 4 })).toEqual({ status: "InProgress", page: 1 });
    // The target's own completes do not count against the others.
    expect(run([t], 0, { s51: 2 }, { 1: 100 })).toEqual({ status: "InProgress", page: 1 });
    // othersQuota 0 or absent: the other answers screen out.
    expect(run([{ ...t, othersQuota: 0 }], 0, { s51: 2 }, {})).toEqual({ status: "ScreenedOut", reason: "target s51" });
    expect(run([{ ...t, othersQuota: null }], 0, { s51: 2 }, {})).toEqual({ status: "ScreenedOut", reason: "target s51" });
    expect(run([{ ...t, othersQuota: 1 }], 0, { s51: 2 }, {})).toEqual({ status: "InProgress", page: 1 });
  });

  test("several targets on one page: each must pass", () => {
    const both: Page[] = [{ id: "demographics", kind: "demographics", testOptionId: null, questions: [age, gender] }, all[4]!];
    const targets: DefTarget[] = [
      { key: "s51", optionIds: [1], quotas: {}, othersQuota: 3 },
      { key: "s52", optionIds: [4], quotas: {} },
    ];
    const go = (answers: Record<string, number>, completes: Record<string, number> = {}) =>
      afterPage(definition({ targets }), both, 0, answers, { completesByOption: {}, completesByAnswer: byAnswer(completes) });
    expect(go({ s51: 2, s52: 4 })).toEqual({ status: "InProgress", page: 1 });
    expect(go({ s51: 2, s52: 5 })).toEqual({ status: "ScreenedOut", reason: "target s52" });
    expect(go({ s51: 1, s52: 5 })).toEqual({ status: "ScreenedOut", reason: "target s52" });
  });

  test("the others' share counts the target's own question's other answers, wherever it sits on the page", () => {
    // Gender second on the page: the others of s52 are its option 5, not the age question's options.
    const both: Page[] = [{ id: "demographics", kind: "demographics", testOptionId: null, questions: [age, gender] }, all[4]!];
    const t: DefTarget = { key: "s52", optionIds: [4], quotas: {}, othersQuota: 3 };
    const go = (completes: Record<string, number>) => afterPage(definition({ targets: [t] }), both, 0, { s51: 1, s52: 5 }, { completesByOption: {}, completesByAnswer: byAnswer(completes) });
    expect(go({ 5: 3 })).toEqual({ status: "OverQuota", reason: "quota s52" });
    expect(go({ 5: 2, 1: 50, 2: 50, 3: 50 })).toEqual({ status: "InProgress", page: 1 });
  });

  test("the attention check: only “Somewhat agree” (1) passes", () => {
    expect(ATTENTION.correct).toBe(1);
    expect(ATTENTION.options[ATTENTION.correct]).toBe("Somewhat agree");
    expect(run([], 3, { attention: 1 })).toEqual({ status: "InProgress", page: 4 });
    for (const v of [0, 2, 4]) expect(run([], 3, { attention: v })).toEqual({ status: "ScreenedOut", reason: "attention check" });
    expect(run([], 3, {})).toEqual({ status: "ScreenedOut", reason: "attention check" });
    // The attention answer matters on its own page only.
    expect(run([], 2, { attention: 0 })).toEqual({ status: "InProgress", page: 3 });
    const lastIsAttention = all.slice(0, 4);
    expect(afterPage(definition(), lastIsAttention, 3, { attention: 1 }, { completesByOption: {}, completesByAnswer: {} })).toEqual({ status: "Complete" });
  });

  test("a quota cell counts its own question's answers only: a test option or another question's answer with the same id is not one of them", () => {
    // Option ids of demographics, screeners and test options come from separate sequences: the
    // screener's answer 1 and test option 1 (and the age group's option 1) are different things.
    const screener = question("q9", "single", { options: [opt(1), opt(2)] });
    const withScreener: Page[] = [{ id: "screener", kind: "screener", testOptionId: null, questions: [screener] }, all[4]!];
    const t: DefTarget = { key: "q9", optionIds: [1, 2], quotas: { "1": 3, "2": 3 } };
    const go = (state: { completesByOption: Record<string, number>; completesByAnswer: Record<string, number> }) => afterPage(definition({ targets: [t] }), withScreener, 0, { q9: 1 }, state);
    // Test option 1 seen by 5 completes and 5 answers of the age group's option 1: the cell is empty.
    expect(go({ completesByOption: { 1: 5 }, completesByAnswer: { "s51:1": 5 } })).toEqual({ status: "InProgress", page: 1 });
    expect(go({ completesByOption: {}, completesByAnswer: { "q9:1": 2 } })).toEqual({ status: "InProgress", page: 1 });
    expect(go({ completesByOption: {}, completesByAnswer: { "q9:1": 3 } })).toEqual({ status: "OverQuota", reason: "quota q9" });
  });
});

describe("quotaProgress: each quota cell's completes against its cap, as the status page shows them", () => {
  // Age group (s51) a demographic, gender (q9) a screener; a target on the region question (s53)
  // whose question the survey does not ask is left out (no question to name its cells).
  const age = question("s51", "single", { title: "Age group", options: [opt(1, "18-24"), opt(2, "25-34"), opt(3, "35+")] });
  const gender = question("q9", "single", { title: "", text: "Your gender?", options: [opt(4, "Woman"), opt(5, "Man"), opt(6, "Another")] });
  const def = (targets: DefTarget[]) => definition({ demographics: [age], screener: [gender], targets });
  const state = (completesByAnswer: Record<string, number>) => ({ completesByOption: { 1: 99 }, completesByAnswer });

  test("capped answers in the question's order (not the quotas' order), uncounted cells at 0, then the other answers' shared cap", () => {
    // Quotas on 35+ (option 3) and 18-24 (1), written in that order; 25-34 (2) shares othersQuota 20.
    // Completes: 18-24 has 7, 25-34 has 4, 35+ none counted yet. "Other answers" = 25-34's 4 (option 2
    // is the only answer outside the targets [1, 3]).
    const t: DefTarget = { key: "s51", optionIds: [3, 1], quotas: { "3": 30, "1": 50 }, othersQuota: 20 };
    expect(quotaProgress(def([t]), state({ "s51:1": 7, "s51:2": 4, "q9:3": 9 }))).toEqual([
      {
        key: "s51",
        question: "Age group",
        cells: [
          { optionId: 1, label: "18-24", completes: 7, target: 50 },
          { optionId: 3, label: "35+", completes: 0, target: 30 },
          { optionId: null, label: "Other answers", completes: 4, target: 20 },
        ],
      },
    ]);
  });

  test("a group without quotas, or whose question is not asked, has no cells; a question without a title is named by its text; othersQuota 0 is a cell", () => {
    const noQuotas: DefTarget = { key: "s51", optionIds: [1, 2], quotas: {} };
    const notAsked: DefTarget = { key: "s53", optionIds: [1], quotas: { "1": 10 } };
    // Women capped at 40; men and another gender share a cap of 0 (only these): 2 + 1 completes over it.
    const women: DefTarget = { key: "q9", optionIds: [4], quotas: { "4": 40 }, othersQuota: 0 };
    expect(quotaProgress(def([noQuotas, notAsked, women]), state({ "q9:4": 12, "q9:5": 2, "q9:6": 1, "s51:1": 5 }))).toEqual([
      {
        key: "q9",
        question: "Your gender?",
        cells: [
          { optionId: 4, label: "Woman", completes: 12, target: 40 },
          { optionId: null, label: "Other answers", completes: 3, target: 0 },
        ],
      },
    ]);
    // othersQuota null or absent: no "Other answers" cell.
    expect(quotaProgress(def([{ ...women, othersQuota: null }]), state({ "q9:4": 12 }))).toEqual([
      { key: "q9", question: "Your gender?", cells: [{ optionId: 4, label: "Woman", completes: 12, target: 40 }] },
    ]);
    expect(quotaProgress(def([]), state({}))).toEqual([]);
  });
});

// Crossed (interlocked) quota cells, record docs/decisions/0128-crossed-quota-cells.md: two
// demographic questions crossed, each cell a pair of one answer of each with its cap. A respondent
// whose pair is no cell screens out; a full cell is over quota; completes are counted per pair of
// demographic answers under "s45:4500001&s51:5100001" (keys in code-unit order). The count keys
// below are written out by hand in that form, never built with the engine's own helpers, and match
// what quotaCounts' SQL (fielding.sql.ts, an independent implementation) counts.
const MALE = 4500001;
const FEMALE = 4500002;
const AGE_18 = 5100001;
const AGE_25 = 5100002;
const gender45 = question("s45", "single", { title: "Gender", options: [opt(MALE, "Male"), opt(FEMALE, "Female")] });
const age51 = question("s51", "single", { title: "Age group", options: [opt(AGE_18, "18-24"), opt(AGE_25, "25-34")] });
// Male × 25-34 is no cell; Female × 25-34 has a small cap of its own.
const crossing: DefCrossing = {
  keys: ["s45", "s51"],
  cells: [
    { optionIds: [MALE, AGE_18], cap: 10 },
    { optionIds: [FEMALE, AGE_18], cap: 5 },
    { optionIds: [FEMALE, AGE_25], cap: 3 },
  ],
};

describe("crossed cells' keys: a pair's count key and a crossing's name", () => {
  test("crossedCell joins both answers' cells with &, in the order given; crossingKeyOf joins the two keys", () => {
    // The record's example: "s45:4500001&s51:5100001".
    expect(crossedCell(["s45", "s51"], [MALE, AGE_18])).toBe("s45:4500001&s51:5100001");
    expect(crossedCell(["s45", "s51"], [FEMALE, AGE_25])).toBe("s45:4500002&s51:5100002");
    expect(crossedCell(["s100", "s45"], ["7", 8])).toBe("s100:7&s45:8");
    expect(crossingKeyOf(crossing)).toBe("s45&s51");
    expect(crossingKeyOf({ keys: ["s100", "s45"] })).toBe("s100&s45");
  });
});

describe("countComplete: a complete's answers added to the counts, as quotaCounts counts the stored sessions", () => {
  test("each single answer's cell and the demographic pair's crossed cell, onto the counts already there; lists and texts are not counted", () => {
    const byAnswer: Record<string, number> = { "s45:4500001": 2, "s45:4500001&s51:5100001": 4, "q9:7": 1 };
    // Age before gender in the answers: the pair's key still puts s45 first ("s45" < "s51").
    countComplete(byAnswer, { s51: AGE_18, s45: MALE, q9: 7, "q3:t2": 1, attention: 1, m: [1, 2], t: "a text", "q19:t2": 12.5 });
    expect(byAnswer).toEqual({
      "s45:4500001": 3,
      "s51:5100001": 1,
      "s45:4500001&s51:5100001": 5,
      "q9:7": 2,
      "q3:t2:1": 1,
      "attention:1": 1,
      "q19:t2:12.5": 1,
    });
  });

  test("two completes of one pair count 2 in its cell; another pair has its own cell", () => {
    const byAnswer: Record<string, number> = {};
    countComplete(byAnswer, { s45: FEMALE, s51: AGE_25 });
    countComplete(byAnswer, { s51: AGE_25, s45: FEMALE });
    countComplete(byAnswer, { s45: MALE, s51: AGE_25 });
    expect(byAnswer).toEqual({
      "s45:4500002": 2,
      "s45:4500001": 1,
      "s51:5100002": 3,
      "s45:4500002&s51:5100002": 2,
      "s45:4500001&s51:5100002": 1,
    });
  });

  test("three demographics: each of the three pairs, keys in code-unit order (s100 < s45 < s51), whatever the answers' order", () => {
    // Code-unit order compares "s100" and "s45" at their second character: "1" < "4", so s100 comes
    // first (numeric order would put it last). The three pairs: (s100, s45), (s100, s51), (s45, s51).
    const expected = {
      "s100:1": 1,
      "s45:4500002": 1,
      "s51:5100001": 1,
      "s100:1&s45:4500002": 1,
      "s100:1&s51:5100001": 1,
      "s45:4500002&s51:5100001": 1,
    };
    const orders: [string, number][][] = [
      [
        ["s100", 1],
        ["s45", FEMALE],
        ["s51", AGE_18],
      ],
      [
        ["s51", AGE_18],
        ["s45", FEMALE],
        ["s100", 1],
      ],
      [
        ["s45", FEMALE],
        ["s51", AGE_18],
        ["s100", 1],
      ],
      [
        ["s51", AGE_18],
        ["s100", 1],
        ["s45", FEMALE],
      ],
      [
        ["s45", FEMALE],
        ["s100", 1],
        ["s51", AGE_18],
      ],
      [
        ["s100", 1],
        ["s51", AGE_18],
        ["s45", FEMALE],
      ],
    ];
    for (const order of orders) {
      const byAnswer: Record<string, number> = {};
      countComplete(byAnswer, Object.fromEntries(order));
      expect(byAnswer).toEqual(expected);
    }
  });

  test("only answers kept under s{id} pair: one demographic alone, a demographic asked about a test option, q, intent and other keys do not", () => {
    const byAnswer: Record<string, number> = {};
    // "s45:t3" starts as a demographic's key but goes on; "qs12" and "intent20:t5" end like one; "sx" is no id.
    countComplete(byAnswer, { s45: MALE, "s51:t3": AGE_18, qs12: 2, "intent20:t5": 4, sx: 1, q51: 9 });
    expect(byAnswer).toEqual({ "s45:4500001": 1, "s51:t3:5100001": 1, "qs12:2": 1, "intent20:t5:4": 1, "sx:1": 1, "q51:9": 1 });
    const none: Record<string, number> = {};
    countComplete(none, { m: [MALE], t: "x" });
    expect(none).toEqual({});
  });
});

describe("afterPage with crossed cells: the pair's cell, screen-out outside every cell, over quota at its cap", () => {
  const demographics: Page = { id: "demographics", kind: "demographics", testOptionId: null, questions: [gender45, age51] };
  const screener: Page = { id: "screener", kind: "screener", testOptionId: null, questions: [question("q9", "single", { options: [opt(1), opt(2)] })] };
  const attention: Page = { id: "attention", kind: "attention", testOptionId: null, questions: [] };
  const all = [demographics, screener, attention];
  const run = (answers: Answers, completesByAnswer: Record<string, number> = {}, index = 0, extra: Partial<SurveyDefinition> = {}, on: Page[] = all) =>
    afterPage(definition({ demographics: [gender45, age51], crossed: [crossing], ...extra }), on, index, answers, { completesByOption: {}, completesByAnswer });
  const next: Outcome = { status: "InProgress", page: 1 };
  const over: Outcome = { status: "OverQuota", reason: "quota s45&s51" };
  const outside: Outcome = { status: "ScreenedOut", reason: "crossed s45&s51" };

  test("a pair in a cell goes on while its cell is open: cap 10 lets one in at 9, not at 10 or 11; no count yet is 0", () => {
    expect(run({ s45: MALE, s51: AGE_18 })).toEqual(next);
    expect(run({ s45: MALE, s51: AGE_18 }, { "s45:4500001&s51:5100001": 9 })).toEqual(next);
    expect(run({ s45: MALE, s51: AGE_18 }, { "s45:4500001&s51:5100001": 10 })).toEqual(over);
    expect(run({ s45: MALE, s51: AGE_18 }, { "s45:4500001&s51:5100001": 11 })).toEqual(over);
  });

  test("a cell is judged by its own pair's count: other cells, the single answers' cells and other crossings' pairs do not fill it", () => {
    // Female × 25-34 (cap 3) with 2: open, though Female × 18-24 (cap 5) and Male × 18-24 are full
    // and Female and 25-34 alone have many completes.
    const others = { "s45:4500002&s51:5100001": 5, "s45:4500001&s51:5100001": 10, "s45:4500002": 50, "s51:5100002": 50, "s45:4500002&s52:5200001": 9 };
    expect(run({ s45: FEMALE, s51: AGE_25 }, { ...others, "s45:4500002&s51:5100002": 2 })).toEqual(next);
    expect(run({ s45: FEMALE, s51: AGE_25 }, { ...others, "s45:4500002&s51:5100002": 3 })).toEqual(over);
    // Female × 18-24 (cap 5) at 4 and at 5, whatever Female × 25-34's count.
    expect(run({ s45: FEMALE, s51: AGE_18 }, { "s45:4500002&s51:5100001": 4, "s45:4500002&s51:5100002": 3 })).toEqual(next);
    expect(run({ s45: FEMALE, s51: AGE_18 }, { "s45:4500002&s51:5100001": 5 })).toEqual(over);
  });

  test("a cell of cap 0 is full before its first complete", () => {
    const zero: DefCrossing = { keys: ["s45", "s51"], cells: [{ optionIds: [MALE, AGE_18], cap: 0 }] };
    expect(run({ s45: MALE, s51: AGE_18 }, {}, 0, { crossed: [zero] })).toEqual(over);
  });

  test("a pair that is no cell screens out, naming the crossing: one answer matching a cell's is not enough", () => {
    // Male × 25-34: Male is in the cell Male × 18-24 and 25-34 in Female × 25-34, but the pair is in neither.
    expect(run({ s45: MALE, s51: AGE_25 })).toEqual(outside);
    // An answer missing, or an answer that is no option.
    expect(run({ s45: MALE })).toEqual(outside);
    expect(run({ s45: 4500009, s51: AGE_18 })).toEqual(outside);
    // The pair read in the crossing's key order: answers swapped between the questions are no cell.
    expect(run({ s45: AGE_18, s51: MALE })).toEqual(outside);
  });

  test("the crossing is judged on the page that asks both its questions, only there", () => {
    // On the screener page, a no-cell pair already in the answers is not judged again.
    expect(run({ s45: MALE, s51: AGE_25, q9: 1 }, {}, 1)).toEqual({ status: "InProgress", page: 2 });
    // A demographics page asking gender only: the crossing waits for a page asking both.
    const genderOnly: Page[] = [{ ...demographics, questions: [gender45] }, attention];
    expect(run({ s45: MALE }, {}, 0, {}, genderOnly)).toEqual(next);
    // Both asked on a page with another question: judged.
    const three: Page[] = [{ ...demographics, questions: [question("s52", "single", { options: [opt(1)] }), gender45, age51] }, attention];
    expect(run({ s52: 1, s45: MALE, s51: AGE_25 }, {}, 0, {}, three)).toEqual(outside);
    // Both asked on a concept page: crossings, as targets, apply on demographics and screener pages only.
    const concept: Page[] = [{ id: "concept:1", kind: "concept", testOptionId: 1, questions: [gender45, age51] }, attention];
    expect(run({ s45: MALE, s51: AGE_25 }, {}, 0, {}, concept)).toEqual(next);
    // A run without crossings (built before them): nothing judged.
    expect(run({ s45: MALE, s51: AGE_25 }, {}, 0, { crossed: undefined })).toEqual(next);
  });

  test("targets first, then each crossing in turn: the first that refuses gives the outcome", () => {
    const target: DefTarget = { key: "s45", optionIds: [FEMALE], quotas: {} };
    // Male is outside the target: screened out by the target, before the crossing is asked.
    expect(run({ s45: MALE, s51: AGE_18 }, {}, 0, { targets: [target] })).toEqual({ status: "ScreenedOut", reason: "target s45" });
    // A second crossing (region s52 × income s53) on the same page: the first's cell is open, the second's full.
    const second: DefCrossing = { keys: ["s52", "s53"], cells: [{ optionIds: [1, 2], cap: 4 }] };
    const both: Page[] = [{ ...demographics, questions: [gender45, age51, question("s52", "single"), question("s53", "single")] }, attention];
    const answers = { s45: MALE, s51: AGE_18, s52: 1, s53: 2 };
    expect(run(answers, { "s52:1&s53:2": 3 }, 0, { crossed: [crossing, second] }, both)).toEqual(next);
    expect(run(answers, { "s52:1&s53:2": 4 }, 0, { crossed: [crossing, second] }, both)).toEqual({ status: "OverQuota", reason: "quota s52&s53" });
    expect(run({ ...answers, s53: 1 }, {}, 0, { crossed: [crossing, second] }, both)).toEqual({ status: "ScreenedOut", reason: "crossed s52&s53" });
    // The first crossing refuses first.
    expect(run({ ...answers, s51: AGE_25, s53: 1 }, {}, 0, { crossed: [crossing, second] }, both)).toEqual(outside);
  });
});

describe("quotaProgress with crossed cells: each cell's completes against its cap, labelled by both answers", () => {
  const state = (completesByAnswer: Record<string, number>) => ({ completesByOption: {}, completesByAnswer });

  test("after the one-question groups, a crossing per group in its cells' order, labelled “Male × 18-24”, uncounted cells at 0", () => {
    const screener = question("q9", "single", { title: "Owns a car", options: [opt(1, "Yes"), opt(2, "No")] });
    const target: DefTarget = { key: "q9", optionIds: [1], quotas: { "1": 40 } };
    const def = definition({ demographics: [gender45, age51], screener: [screener], targets: [target], crossed: [crossing] });
    // Counts: Male × 18-24 4, Female × 25-34 3, Female × 18-24 none; the single answers' cells
    // (Male 7, 18-24 6) are not the pairs'.
    const counts = { "q9:1": 12, "s45:4500001": 7, "s51:5100001": 6, "s45:4500001&s51:5100001": 4, "s45:4500002&s51:5100002": 3 };
    expect(quotaProgress(def, state(counts))).toEqual([
      { key: "q9", question: "Owns a car", cells: [{ optionId: 1, label: "Yes", completes: 12, target: 40 }] },
      {
        key: "s45&s51",
        question: "Gender × Age group",
        cells: [
          { optionId: null, optionIds: [MALE, AGE_18], label: "Male × 18-24", completes: 4, target: 10 },
          { optionId: null, optionIds: [FEMALE, AGE_18], label: "Female × 18-24", completes: 0, target: 5 },
          { optionId: null, optionIds: [FEMALE, AGE_25], label: "Female × 25-34", completes: 3, target: 3 },
        ],
      },
    ]);
  });

  test("questions without a title named by their text; an answer that is no option labelled by its id", () => {
    const untitledGender = { ...gender45, title: "" };
    const untitledAge = { ...age51, title: "" };
    const x: DefCrossing = {
      keys: ["s45", "s51"],
      cells: [
        { optionIds: [4500009, AGE_25], cap: 2 },
        { optionIds: [MALE, 5100009], cap: 1 },
      ],
    };
    const at = (demographics: DefQuestion[]) => quotaProgress(definition({ demographics, crossed: [x] }), state({ "s45:4500009&s51:5100002": 1 }));
    expect(at([untitledGender, untitledAge])).toEqual([
      {
        key: "s45&s51",
        question: "Question s45 × Question s51",
        cells: [
          { optionId: null, optionIds: [4500009, AGE_25], label: "4500009 × 25-34", completes: 1, target: 2 },
          { optionId: null, optionIds: [MALE, 5100009], label: "Male × 5100009", completes: 0, target: 1 },
        ],
      },
    ]);
    expect(at([gender45, untitledAge])[0]!.question).toBe("Gender × Question s51");
    expect(at([untitledGender, age51])[0]!.question).toBe("Question s45 × Age group");
  });

  test("a crossing whose question is not among the run's demographics has no cells to show", () => {
    const onlyAge = definition({ demographics: [age51], screener: [gender45], crossed: [crossing] });
    const onlyGender = definition({ demographics: [gender45], crossed: [crossing] });
    expect(quotaProgress(onlyAge, state({}))).toEqual([]);
    expect(quotaProgress(onlyGender, state({}))).toEqual([]);
    expect(quotaProgress(definition({ crossed: [crossing] }), state({}))).toEqual([]);
  });
});

describe("the generators: the same seed, the same respondent", () => {
  test("mulberry32, against an independent Python implementation of the same algorithm", () => {
    // python3: a = (a + 0x6d2b79f5) & M; t = imul(t ^ t >> 15, t | 1); t ^= t + imul(t ^ t >> 7, t | 61); (t ^ t >> 14) / 2**32
    const r1 = seeded(1);
    expect([r1(), r1(), r1()]).toEqual([0.6270739405881613, 0.002735721180215478, 0.5274470399599522]);
    const r42 = seeded(42);
    expect([r42(), r42(), r42()]).toEqual([0.6011037519201636, 0.44829055899754167, 0.8524657934904099]);
    const r0 = seeded(0);
    expect([r0(), r0(), r0()]).toEqual([0.26642920868471265, 0.0003297457005828619, 0.2232720274478197]);
    // A negative seed is taken as its unsigned 32 bits (-1 is 0xffffffff).
    const rm = seeded(-1);
    expect([rm(), rm(), rm()]).toEqual([0.8964226141106337, 0.189478256739676, 0.7156526781618595]);
  });

  test("FNV-1a 32-bit, against the published test vectors", () => {
    expect(hash32("")).toBe(0x811c9dc5);
    expect(hash32("a")).toBe(0xe40c292c);
    expect(hash32("foobar")).toBe(0xbf9cf968);
    expect(hash32("Concept A")).toBe(2099890680); // python3, the same algorithm
  });
});

// The counts a page's verdict reads (quotaReads, used by the respondent service to ask only those):
// the demographics and the screener pages read the cells of every target with a quota or an
// othersQuota, and each crossing's pair; no other page and no uncapped target reads one.
describe("quotaReads: which quota counts a page's verdict needs", () => {
  const demo: Page = { id: "demographics", kind: "demographics", testOptionId: null, questions: [] };
  const screen: Page = { id: "screener", kind: "screener", testOptionId: null, questions: [] };
  const capped: DefTarget = { key: "s10", optionIds: [1, 2], quotas: { "1": 50 }, othersQuota: null };
  const others: DefTarget = { key: "s20", optionIds: [4], quotas: {}, othersQuota: 3 };
  const othersZero: DefTarget = { key: "s30", optionIds: [5], quotas: {}, othersQuota: 0 };
  const uncapped: DefTarget = { key: "s40", optionIds: [7], quotas: {}, othersQuota: null };
  const crossing: DefCrossing = { keys: ["s10", "s50"], cells: [{ optionIds: [1, 9], cap: 25 }] };

  test("the demographics and screener pages read the capped targets' keys, in the targets' order, and the crossings' pairs", () => {
    const def = definition({ targets: [uncapped, capped, othersZero, others], crossed: [crossing] });
    for (const page of [demo, screen]) expect(quotaReads(def, page)).toEqual({ keys: ["s10", "s20"], crossings: [["s10", "s50"]] });
  });

  test("a quota alone or an othersQuota alone is enough; an othersQuota of 0 or none, with no quota, is not", () => {
    expect(quotaReads(definition({ targets: [capped] }), demo)).toEqual({ keys: ["s10"], crossings: [] });
    expect(quotaReads(definition({ targets: [others] }), demo)).toEqual({ keys: ["s20"], crossings: [] });
    expect(quotaReads(definition({ targets: [othersZero, uncapped] }), demo)).toBeNull();
  });

  test("crossings alone are read; with nothing capped and nothing crossed, nothing is", () => {
    expect(quotaReads(definition({ targets: [uncapped], crossed: [crossing, { keys: ["s60", "s70"], cells: [] }] }), screen)).toEqual({
      keys: [],
      crossings: [
        ["s10", "s50"],
        ["s60", "s70"],
      ],
    });
    expect(quotaReads(definition({ targets: [uncapped] }), screen)).toBeNull();
    expect(quotaReads(definition({ targets: [uncapped], crossed: [] }), screen)).toBeNull();
  });

  test("no other page reads a count, however capped the design", () => {
    const def = definition({ targets: [capped, others], crossed: [crossing] });
    for (const kind of ["concept", "price", "intent", "attention", "followUps"] as const) {
      expect(quotaReads(def, { id: kind, kind, testOptionId: kind === "concept" ? 5 : null, questions: [] }), kind).toBeNull();
    }
  });
});
