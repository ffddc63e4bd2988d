// Local coding of open answers: AFINN sentiment and key-phrase themes on answers whose themes are
// known by construction.
import { expect, test } from "bun:test";
import { STOP_WORDS, contentWords, sentimentOf, stem, themesOf } from "../../api/src/analytics/verbatims.ts";

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
  expect(byName["value for money"]).toEqual([0, 1, 2]);
  expect(byName["taste"], "the noun, not what is said of it").toEqual([3, 4]);
  expect(byName["packaging design"]).toEqual([5, 6]);
  expect(t.map((x) => x.name)).toEqual(["Value for money", "Packaging design", "Taste"]);
  expect(t.find((x) => x.phrase === "value for money")!.sentiment).toBe("Positive");
  expect(themesOf(texts, { minShare: 0 })).toEqual(t);
  expect(t.some((x) => x.members.includes(7)), "an answer sharing nothing has no theme").toBe(false);
});

test("themes: fillers, hedges and discourse markers never start or make a theme; near duplicates merge", () => {
  const texts = [
    "Honestly, the price is too high.",
    "Like, the price is way too high I guess.",
    "Mostly because the flavour is great.",
    "Basically I love the flavours.",
    "Well, the flavours are great, honestly.",
    "Mostly because it is a crunchy texture.",
    "Like I said, crunchy texture and all.",
    "Honestly, I don't know.",
    "Honestly, like, mostly because, you know, basically.",
    "Actually it seems like, well, kind of whatever.",
  ];
  const t = themesOf(texts, { minShare: 0 });
  expect(t.map((x) => [x.phrase, x.members])).toEqual([
    ["flavours", [2, 3, 4]],
    ["crunchy texture", [5, 6]],
    ["price", [0, 1]],
  ]);
  for (const x of t) {
    const first = x.phrase.split(" ")[0]!;
    const head = x.phrase.split(" ").at(-1)!;
    expect(STOP_WORDS.has(first) || STOP_WORDS.has(head), x.phrase).toBe(false);
    expect(head.length).toBeGreaterThanOrEqual(3);
  }
  expect(t.some((x) => x.members.includes(7) || x.members.includes(8) || x.members.includes(9)), "filler-only answers have no theme").toBe(false);
  for (const w of ["like", "honestly", "mostly", "because", "basically", "well", "actually", "seems", "kind"]) expect(STOP_WORDS.has(w), w).toBe(true);
  expect(contentWords("Honestly, like, the packaging design is mostly great")).toEqual(["packaging", "design", "great"]);
  expect([stem("flavours"), stem("berries"), stem("glass"), stem("bus")]).toEqual(["flavour", "berri", "glass", "bus"]);
});
