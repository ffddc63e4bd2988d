// The local sentiment coder measured on open answers labelled by hand (tests/fixtures/sentiment,
// written by us for issue 23, 80 per label): accuracy over the whole set, the development half
// (odd ids) and the held-out half (even ids), printed with the confusion matrix; and the answers
// the issue found wrongly tagged. docs/decisions.md "Sentiment worth reading" has the figures.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { sentimentOf, type SentimentLabel } from "@ideally/analytics/verbatims";

const LABELS: SentimentLabel[] = ["Positive", "Negative", "Mixed", "Neutral"];
const rows = parseCsvObjects(readFileSync(join(import.meta.dir, "../fixtures/sentiment/labelled.csv"), "utf8")).rows.map((r) => ({
  id: Number(r.id),
  text: r.text!,
  label: r.label as SentimentLabel,
}));

function accuracy(set: typeof rows) {
  const confusion = Object.fromEntries(LABELS.map((l) => [l, Object.fromEntries(LABELS.map((m) => [m, 0]))])) as Record<SentimentLabel, Record<SentimentLabel, number>>;
  let right = 0;
  for (const r of set) {
    const got = sentimentOf(r.text).label;
    confusion[r.label][got]++;
    if (got === r.label) right++;
  }
  return { accuracy: right / set.length, confusion };
}

test("the labelled set is balanced and large enough", () => {
  expect(rows.length).toBeGreaterThanOrEqual(300);
  for (const l of LABELS) expect(rows.filter((r) => r.label === l).length).toBe(rows.length / 4);
});

test("accuracy on the labelled answers: at least 85% overall and 80% on the held-out half", () => {
  const all = accuracy(rows);
  const dev = accuracy(rows.filter((r) => r.id % 2 === 1));
  const held = accuracy(rows.filter((r) => r.id % 2 === 0));
  console.log(`sentiment accuracy: all ${(all.accuracy * 100).toFixed(1)}%, development ${(dev.accuracy * 100).toFixed(1)}%, held-out ${(held.accuracy * 100).toFixed(1)}%`);
  console.log("confusion (row: label, column: coded):", JSON.stringify(all.confusion));
  // Four labels, balanced: guessing scores 25%; the AFINN sum alone scored 60.6% (docs/decisions.md).
  expect(all.accuracy).toBeGreaterThanOrEqual(0.85);
  expect(held.accuracy).toBeGreaterThanOrEqual(0.8);
});

test("negation, hedges and concern phrases: the answers the issue found wrongly tagged", () => {
  expect(sentimentOf("My concern is it is seems like a hassle to use.").label).toBe("Negative");
  expect(["Negative", "Mixed"]).toContain(sentimentOf("Honestly, not sure about the taste, and seems like a hassle to use.").label);
  expect(sentimentOf("To me it is too expensive for what it is.").label).toBe("Negative");
  expect(sentimentOf("It is not bad at all.").label).toBe("Positive");
  expect(sentimentOf("I do not trust the claims.").label).toBe("Negative");
  expect(sentimentOf("Great taste, but too expensive.").label).toBe("Mixed");
  expect(sentimentOf("Not sure, I would have to taste it.").label).toBe("Neutral");
  // The thresholds at their edges: a sum of exactly 1 is Positive, a hedged 1 (0.5) Neutral; 1 of
  // praise with criticism is Mixed, 0.5 of praise with criticism (no contrast) is not.
  expect(sentimentOf("Yes.").label).toBe("Positive");
  expect(sentimentOf("Maybe yes.").label).toBe("Neutral");
  expect(sentimentOf("Yes, I worry.").label).toBe("Mixed");
  expect(sentimentOf("Maybe yes, I worry.").label).toBe("Negative");
  expect(sentimentOf("Maybe yes, though I worry.").label, "a contrast makes any praise and criticism Mixed").toBe("Mixed");
  // Scores stay in [-1, 1] and agree in sign with a one-sided label.
  for (const r of rows) {
    const s = sentimentOf(r.text);
    expect(s.score).toBeGreaterThanOrEqual(-1);
    expect(s.score).toBeLessThanOrEqual(1);
    if (s.label === "Positive") expect(s.score).toBeGreaterThan(0);
    if (s.label === "Negative") expect(s.score).toBeLessThan(0);
  }
});

// The answers of the set the coder labels differently from the hand label (19 of 320, the 94.1% of
// the accuracy test). Every other answer must get its hand label: a change to a lexicon entry, a
// phrase or a rule that turns a right answer wrong fails here, not only when it moves the total
// below the threshold. An id may leave this list when the coder improves; none may join it.
const KNOWN_MISSES = new Set([28, 60, 71, 79, 89, 104, 140, 171, 174, 190, 207, 210, 235, 238, 251, 254, 258, 296, 304]);

test("every labelled answer outside the known misses gets its hand label", () => {
  const wrong = rows.filter((r) => !KNOWN_MISSES.has(r.id) && sentimentOf(r.text).label !== r.label).map((r) => `${r.id} ${r.label}: ${r.text}`);
  expect(wrong).toEqual([]);
  expect(rows.length - KNOWN_MISSES.size).toBe(301);
});
