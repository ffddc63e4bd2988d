// Local coding of open answers: AFINN sentiment and key-phrase themes on answers whose themes are
// known by construction.
import { expect, test } from "bun:test";
import { sentimentOf, themesOf } from "../../api/src/analytics/verbatims.ts";

test("sentiment: positive, negative, mixed, neutral", () => {
  expect(sentimentOf("I love it, great value").label).toBe("Positive");
  expect(sentimentOf("Awful taste, I hate it").label).toBe("Negative");
  expect(sentimentOf("Great taste but a terrible price").label).toBe("Mixed");
  expect(sentimentOf("It is a snack bar").label).toBe("Neutral");
  const s = sentimentOf("love love love love love");
  expect(s.score).toBeGreaterThan(0.9);
  expect(s.score).toBeLessThanOrEqual(1);
});

test("themes: the shared phrases become themes with their answers, deterministically", () => {
  const texts = [
    "Great value for money",
    "Really good value for money",
    "Value for money is excellent",
    "The taste sounds delicious",
    "I think the taste sounds delicious",
    "Packaging design looks cheap",
    "I dislike the packaging design",
    "Nothing else to say",
  ];
  const t = themesOf(texts, { minShare: 0 });
  const byName = Object.fromEntries(t.map((x) => [x.phrase, x.members]));
  expect(byName["value money"]).toEqual([0, 1, 2]);
  expect(byName["sounds delicious"]).toEqual([3, 4]);
  expect(byName["packaging design"]).toEqual([5, 6]);
  expect(t.find((x) => x.phrase === "value money")!.sentiment).toBe("Positive");
  expect(themesOf(texts, { minShare: 0 })).toEqual(t);
  expect(t.some((x) => x.members.includes(7)), "an answer sharing nothing has no theme").toBe(false);
});
