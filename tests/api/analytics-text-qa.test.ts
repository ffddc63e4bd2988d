// The open-answer quality rules (analytics/text-qa.ts) on constructed answers, one per rule and
// the answers that must pass; and the command that applies them to a project.
import { expect, test } from "bun:test";
import { QA_STATUSES, normalise, textQa } from "@ideally/analytics/text-qa";

test("each rule catches its case; real answers pass", () => {
  const answers = [
    { id: 1, respondent: 1, text: "I love the crunch and the price is fair." },
    { id: 2, respondent: 1, text: "N/A" },
    { id: 3, respondent: 2, text: "k" },
    { id: 4, respondent: 2, text: "asdfgh jkl" },
    { id: 5, respondent: 3, text: "soooooo good" },
    { id: 6, respondent: 3, text: "brrrrzt" },
    { id: 7, respondent: 4, text: "Tastes great, would buy again!" },
    { id: 8, respondent: 4, text: "tastes great would buy again" },
    { id: 9, respondent: 5, text: "Tastes great, would buy again!" },
    { id: 10, respondent: 5, text: "Crème brûlée flavour please" },
    { id: 11, respondent: 6, text: "xkcdpqrst vbnm" },
    { id: 12, respondent: 6, text: "I don't know" },
    { id: 13, respondent: 7, text: "Great" },
  ];
  const r = textQa(answers);
  const status = (id: number) => r.get(id)!.status;
  expect([1, 7, 9, 10, 13].map(status), "real answers, and the same text from another respondent").toEqual(["Ok", "Ok", "Ok", "Ok", "Ok"]);
  expect(status(2)).toBe("NonAnswer");
  expect(status(12)).toBe("NonAnswer");
  expect(status(3)).toBe("TooShort");
  expect(r.get(4)).toEqual({ status: "Gibberish", reason: 'keyboard sequence "asdf"' });
  expect(r.get(5)).toEqual({ status: "Gibberish", reason: 'the letter "o" repeated' });
  expect(status(6)).toBe("Gibberish");
  expect(status(11)).toBe("Gibberish");
  expect(r.get(8)).toEqual({ status: "Duplicate", reason: "the same text as answer 7 of this respondent" });
  expect(normalise("  Crème—brûlée!! ")).toBe("cremebrulee");
});

// The rules of docs/decisions.md ("Open-answer quality checks") at their edges, each answer's
// expected status and reason written by hand from the rule, not from the code.
const qa = (...texts: string[]) => {
  const r = textQa(texts.map((text, i) => ({ id: i + 1, respondent: 1, text })));
  return texts.map((_, i) => r.get(i + 1));
};

test("the statuses, in the order the rules apply", () => {
  expect([...QA_STATUSES]).toEqual(["Ok", "NonAnswer", "TooShort", "Gibberish", "Duplicate"]);
});

test("non-answers: the phrases that say nothing, in the forms people type them", () => {
  // Written out as respondents type them: case, punctuation and accents do not matter.
  const typed = [
    "N/A",
    "n. a.",
    "None",
    "Nothing.",
    "no",
    "Nope!",
    "nil",
    "IDK",
    "I dk",
    "dunno",
    "No idea",
    "not sure",
    "Unsure",
    "Don't know",
    "I don't know",
    "No comment",
    "No comments",
    "nothing really",
    "Nothing at all!",
    "whatever",
    "same",
    "OK",
    "okay",
    "Yes",
    "good",
    "fine",
    "test",
    "asdf",
  ];
  for (const [i, r] of qa(...typed).entries()) expect(r?.status, typed[i]).toBe("NonAnswer");
  expect(qa("N/A", "  Nothing at all!! ")).toEqual([
    { status: "NonAnswer", reason: '"na" is not an answer' },
    { status: "NonAnswer", reason: '"nothing at all" is not an answer' },
  ]);
  // Nothing left once punctuation is stripped: an empty answer.
  expect(qa("", "!!!")).toEqual([
    { status: "NonAnswer", reason: "empty" },
    { status: "NonAnswer", reason: "empty" },
  ]);
  // A phrase that only contains a non-answer is an answer.
  expect(qa("nothing beats the crunch")[0]?.status).toBe("Ok");
});

test("too short: under two letters, at the edge", () => {
  expect(qa("k", "123", "ox")).toEqual([
    { status: "TooShort", reason: "fewer than two letters" },
    { status: "TooShort", reason: "fewer than two letters" },
    { status: "Ok", reason: null }, // exactly two letters
  ]);
});

test("gibberish: a letter four times in a row, not three", () => {
  expect(qa("sooo good", "soooo good", "Really good coffee")).toEqual([
    { status: "Ok", reason: null },
    { status: "Gibberish", reason: 'the letter "o" repeated' },
    { status: "Ok", reason: null },
  ]);
});

test("gibberish: four keys in a row of the keyboard, on every row and at a row's end", () => {
  expect(qa("qwer", "I rate it zxcv", "I liked uiop", "hjkl", "call 12 34 now", "call 7890 now")).toEqual([
    { status: "Gibberish", reason: 'keyboard sequence "qwer"' },
    { status: "Gibberish", reason: 'keyboard sequence "zxcv"' },
    { status: "Gibberish", reason: 'keyboard sequence "uiop"' },
    { status: "Gibberish", reason: 'keyboard sequence "hjkl"' },
    { status: "Gibberish", reason: 'keyboard sequence "1234"' }, // digits across a space
    { status: "Gibberish", reason: 'keyboard sequence "7890"' },
  ]);
  // Three keys are not a sequence.
  expect(qa("I rate it zxc")[0]).toEqual({ status: "Ok", reason: null });
  // "xkcdpqrst vbnm" also has a word without vowels, but the keyboard rule comes first, and the
  // reason names the sequence (the last four keys of the bottom row).
  expect(qa("xkcdpqrst vbnm")[0]).toEqual({ status: "Gibberish", reason: 'keyboard sequence "vbnm"' });
});

test("gibberish: a word of six letters or more without a vowel (y counts as one)", () => {
  expect(qa("the flavour was nice: bzzkrt", "nice: bzzkt", "rhythm and taste")).toEqual([
    { status: "Gibberish", reason: '"bzzkrt" has no vowels' },
    { status: "Ok", reason: null }, // five letters
    { status: "Ok", reason: null },
  ]);
});

test("gibberish: under 15% vowels over eight letters or more", () => {
  expect(
    qa(
      "st pr klm", // 7 letters, no vowel: too few letters to judge
      "st pr kl ma", // 8 letters, 1 vowel: 12.5%
      "st pr kl mn ts bd gr kt ta sa", // 20 letters, 2 vowels: 10%
      "st pr kl mn ts bd gr ka ta sa", // 20 letters, 3 vowels: exactly 15%
      "st pr kl mn ts bd ga ka ta sa", // 20 letters, 4 vowels: 20%
    ),
  ).toEqual([
    { status: "Ok", reason: null },
    { status: "Gibberish", reason: "almost no vowels" },
    { status: "Gibberish", reason: "almost no vowels" },
    { status: "Ok", reason: null },
    { status: "Ok", reason: null },
  ]);
});

test("duplicates: ten characters or more, counted against the respondent's earliest answer by id", () => {
  const r = textQa([
    { id: 9, respondent: 1, text: "Tasty food" },
    { id: 3, respondent: 1, text: "tasty  food!" },
    { id: 7, respondent: 1, text: "TASTY FOOD" },
    { id: 4, respondent: 1, text: "tasty pie" }, // 9 characters: short answers repeat
    { id: 5, respondent: 1, text: "Tasty pie" },
  ]);
  expect([3, 7, 9, 4, 5].map((id) => r.get(id))).toEqual([
    { status: "Ok", reason: null },
    { status: "Duplicate", reason: "the same text as answer 3 of this respondent" },
    { status: "Duplicate", reason: "the same text as answer 3 of this respondent" },
    { status: "Ok", reason: null },
    { status: "Ok", reason: null },
  ]);
  expect(normalise("tasty \t  food")).toBe("tasty food");
});
