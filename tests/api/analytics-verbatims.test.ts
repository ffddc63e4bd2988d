// Local coding of open answers: AFINN sentiment and key-phrase themes on answers whose themes are
// known by construction.
import { expect, test } from "bun:test";
import { STOP_WORDS, contentWords, sentimentOf, stem, themesOf, type SentimentLabel } from "@ideally/analytics/verbatims";

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
  expect(byName.taste, "the noun, not what is said of it").toEqual([3, 4]);
  expect(byName["packaging design"]).toEqual([5, 6]);
  expect(t.map((x) => x.name)).toEqual(["Value for money", "Packaging design", "Taste"]);
  expect(t.find((x) => x.phrase === "value for money")!.sentiment).toBe("Positive");
  expect(themesOf(texts, { minShare: 0 })).toEqual(t);
  expect(
    t.some((x) => x.members.includes(7)),
    "an answer sharing nothing has no theme",
  ).toBe(false);
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
  expect(
    t.some((x) => x.members.includes(7) || x.members.includes(8) || x.members.includes(9)),
    "filler-only answers have no theme",
  ).toBe(false);
  for (const w of ["like", "honestly", "mostly", "because", "basically", "well", "actually", "seems", "kind"]) expect(STOP_WORDS.has(w), w).toBe(true);
  expect(contentWords("Honestly, like, the packaging design is mostly great")).toEqual(["packaging", "design", "great"]);
  expect([stem("flavours"), stem("berries"), stem("glass"), stem("bus")]).toEqual(["flavour", "berri", "glass", "bus"]);
});

// The theme rules of the header of analytics/verbatims.ts, one at a time, on answers built so that
// the rule decides the outcome (the expected themes worked out by hand from the rule).
const themes = (texts: string[], opts: { maxThemes?: number; minShare?: number } = { minShare: 0 }) => themesOf(texts, opts).map((t) => [t.phrase, t.members]);

test("themes: at most maxThemes (8 unless given), each used by at least 2 answers", () => {
  const fruits = ["apple", "banana", "cherry", "grape", "lemon", "mango", "melon", "peach", "pear", "plum"];
  const texts = fruits.flatMap((f) => [`I liked the ${f}.`, `The ${f} was nice.`]);
  // "nice" is in 10 answers, each fruit in 2: the fruits follow in alphabetical order until 8.
  const all = themes(texts);
  expect(all).toEqual([["nice", [1, 3, 5, 7, 9, 11, 13, 15, 17, 19]], ...fruits.slice(0, 7).map((f, i) => [f, [2 * i, 2 * i + 1]])]);
  expect(themes(texts, { minShare: 0, maxThemes: 3 })).toEqual(all.slice(0, 3));
  // A phrase in one answer only is never a theme, even with minShare 0.
  expect(themes(["The apple was nice.", "The apple was sweet.", "The plum."])).toEqual([["apple", [0, 1]]]);
});

test("themes: the default minShare is 3% of the answers (3 of 70), at and below it", () => {
  const texts = [...Array.from({ length: 65 }, () => "I do not know."), "I liked the apple.", "The apple was nice.", "Banana please.", "The banana was nice.", "More banana."];
  // apple: 2 answers (below ceil(70 × 0.03) = 3), nice: 2, banana: 3.
  expect(themesOf(texts).map((t) => [t.phrase, t.members])).toEqual([["banana", [67, 68, 69]]]);
});

test("themes: a phrase is skipped when over half its answers are already in themes, not at half", () => {
  // apple in 0-3, cake in 2-5 (half covered by apple: taken), pear in 0, 1, 2, 6 (three quarters: skipped).
  const texts = ["The apple. The pear.", "The apple. The pear.", "The apple. The cake. The pear.", "The apple. The cake.", "The cake.", "The cake.", "The pear."];
  expect(themes(texts)).toEqual([
    ["apple", [0, 1, 2, 3]],
    ["cake", [2, 3, 4, 5]],
  ]);
});

test("themes: at equal use a noun comes before an adjective, whatever the alphabet says", () => {
  expect(themes(["The apple was awful", "The banana was awful", "The banana was good"])).toEqual([
    ["banana", [1, 2]],
    ["awful", [0, 1]],
  ]);
});

test("themes: 'noun of word' is a phrase of its own; a surface form tie goes to the alphabet; a sentiment tie to Positive", () => {
  expect(themes(["A bag of chips", "another bag of chips", "a cup of tea", "my cup of tea"])).toEqual([
    ["bag of chips", [0, 1]],
    ["cup of tea", [2, 3]],
  ]);
  expect(themes(["Good flavours", "Good flavour", "I like the crunch"])).toEqual([["good flavour", [0, 1]]]);
  // One positive and one negative answer: a tie, broken in the order Positive, Negative, Mixed, Neutral.
  const t = themesOf(["The taste is good", "The taste is bad"], { minShare: 0 });
  expect(t.map((x) => [x.phrase, x.sentiment])).toEqual([["taste", "Positive"]]);
});

test("content words: nouns and adjectives of three letters or more; the listed fillers and function words are stop words", () => {
  expect(contentWords("The tea was hot")).toEqual(["tea", "hot"]);
  expect(contentWords("We walked and talked")).toEqual([]);
  // One word from each part of the filler and function-word lists (none is in the stopword package's list).
  for (const w of ["stuff", "anyway", "totally", "yeah", "reason"]) expect(STOP_WORDS.has(w), w).toBe(true);
  expect([stem("glasses"), stem("classes")]).toEqual(["glass", "class"]);
});

// Sentiment rules (docs/decisions.md "Sentiment worth reading") on constructed answers whose
// words the labelled set lacks: each expected sum worked by hand from AFINN-165's published scores
// (good 3, super 3, bad -3) and the rules (negation flips, a negated negative word counts half
// positive; intensifiers x1.5; a hedged clause counts half); the score is tanh(sum / 5).
const sums: [string, number, SentimentLabel][] = [
  ["It is hardly good.", -3, "Negative"],
  ["Neither good nor bad", -3 + 1.5, "Mixed"],
  ["Extremely good.", 4.5, "Positive"],
  ["Super good.", 3 + 4.5, "Positive"],
  ["Absolutely good.", 4.5, "Positive"],
  ["Truly good.", 4.5, "Positive"],
  ["Perhaps good.", 1.5, "Positive"],
  ["Possibly good.", 1.5, "Positive"],
  ["I suppose it is good.", 1.5, "Positive"],
  ["It could be good.", 1.5, "Positive"],
  ["We like it.", 2, "Positive"],
  ["They did like it.", 2, "Positive"],
  ["Also like it.", 2, "Positive"],
  ["Always like it.", 2, "Positive"],
  // Words AFINN lacks or scores for another register, scored by the coder's own list (DOMAIN).
  ["It is gimmicky.", -2, "Negative"],
  ["I am concerned.", -2, "Negative"],
  ["It worries me.", -2, "Negative"],
  ["I am skeptical.", -2, "Negative"],
  ["Gross.", -3, "Negative"],
];

test("sentiment: the rules' sums on answers outside the labelled set", () => {
  for (const [text, sum, label] of sums) {
    const s = sentimentOf(text);
    expect(s.label, text).toBe(label);
    expect(s.score, text).toBeCloseTo(Math.tanh(sum / 5), 12);
  }
});
