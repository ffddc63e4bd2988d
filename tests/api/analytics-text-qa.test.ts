// The open-answer quality rules (analytics/text-qa.ts) on constructed answers, one per rule and
// the answers that must pass; and the command that applies them to a project.
import { expect, test } from "bun:test";
import { normalise, textQa } from "../../api/src/analytics/text-qa.ts";

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
