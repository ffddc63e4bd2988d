// The local provider's reading of a results question ("which concept did best with women under
// 35?"): which measure, which audience (demographic options, markets), which test options, and
// whether the best or the worst is asked for. Pure: it matches the words against the project's own
// names (test options, measures, demographic labels, markets), so it knows what the data knows.
import type { ProjectContext } from "./facts.ts";

export interface ParsedQuestion {
  /**
   * What is asked. "unknown": nothing in the question names a measure, a test option, an audience,
   * a market, prices, reach, what people said, or a ranking: the local provider says what it can
   * answer instead of guessing. "action": the question asks to change, delete or send something,
   * which a results chat never does. "why": why people like or dislike one named test option, or
   * what they say about it (answered from its open answers and drivers).
   */
  kind: "ranking" | "price" | "reach" | "themes" | "why" | "unknown" | "action";
  /** For "why": what people like (like), dislike (dislike), or everything they say (null). */
  stance: "like" | "dislike" | null;
  standardQuestionId: number | null;
  /** System question options (demographics), as the response filter's filterIds. */
  filterIds: number[];
  regionIds: number[];
  testOptionIds: number[];
  direction: "best" | "worst";
  /**
   * A ranking that also asks why ("Which concept did best, and why?", the chat's own suggestion):
   * the leader's reasons follow the ranking (issue 37: it was answered with the ranking alone).
   */
  alsoWhy: boolean;
  /** What the audience words matched, for the answer's wording. */
  audience: string[];
}

/** Words people use for the standard measures (by id), beside their titles. */
const MEASURE_WORDS: [number, RegExp][] = [
  [3, /\b(purchase intent|purchase|buy|buying)\b/],
  [5, /\b(lik(e|ed|ing|ability)|appeal(ing)?)\b/],
  [1, /\b(desire|desirable|want(ed)?)\b/],
  [4, /\b(distinct(ive|iveness)?|different|unique|stand out)\b/],
  [2, /\b(brand fit|fit(s)? the brand)\b/],
  [24, /\b(believ(e|able|ability)|credib(le|ility))\b/],
  [23, /\b(consider(ation)?)\b/],
  [6, /\b(recogni(se|ze|tion))\b/],
];

const FEMALE = /\b(women|woman|female|females|ladies|girls)\b/;
const MALE = /\b(men|man|male|males|guys|boys)\b/;

/** "18-24" -> [18, 24], "65+" -> [65, Infinity]; null for labels that are not age bands. */
export function ageBand(label: string): [number, number] | null {
  const m = /^(\d+)\s*[-–]\s*(\d+)$/.exec(label.trim());
  if (m) return [Number(m[1]), Number(m[2])];
  const p = /^(\d+)\s*\+$/.exec(label.trim());
  return p ? [Number(p[1]), Number.POSITIVE_INFINITY] : null;
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A name's pattern, compiled once per name (a project's names recur on every question). */
const namePatterns = new Map<string, RegExp>();
function namePattern(name: string): RegExp {
  let re = namePatterns.get(name);
  if (!re) {
    if (namePatterns.size >= 2000) namePatterns.clear();
    re = new RegExp(`(^|[^\\p{L}\\p{N}])${escapeRegExp(name.toLowerCase())}($|[^\\p{L}\\p{N}])`, "u");
    namePatterns.set(name, re);
  }
  return re;
}
const mentions = (text: string, name: string) => name.trim().length >= 2 && namePattern(name).test(text);

/** Asking the assistant to act on data (it only reads results): an order, or "can you ...". */
const VERBS = "delete|remove|erase|wipe|destroy|drop|purge|cancel|update|change|modify|edit|rename|send|email|share|transfer|refund|reset|disable|unsubscribe";
const ACTION = new RegExp(`^(please )?(${VERBS})\\b|\\b(can|could|would|will) you (please )?(${VERBS})\\b|\\b(i want|i'd like|i would like) (you )?to (${VERBS})\\b`);
/** Words of a comparison: which test option did best or worst. */
const RANKING =
  /\b(best|worst|better|worse|top|highest|lowest|most|least|lead(s|ing)?|won|wins?|winner|strongest|weakest|perform(s|ed|ing|ance)?|scored?|rank(s|ed|ing)?|compare[ds]?|comparison|versus|vs|beat|preferred?|favou?rite|stack(s|ed)? up|differen(ce|ces|t)|significan(t|ce|tly)|(take|go|move) (\w+ )?forward|recommend(ed)?|choose|pick|launch)\b/;

/** What a comparison ranks: the test options, by any of the words people use for them. */
const SUBJECT = /\b(which|concepts?|ideas?|options?|messages?|plans?|products?|variants?|versions?|designs?|names?|packs?|flavou?rs?|ones?|them|these|those)\b/;

/** Asking for reasons or for what people say about something. */
const WHY =
  /\bwhy\b|\breasons?\b|\bwhat (do|did|does|would|are|were)\b.*\b(like|likes|love|dislike|dislikes|hate|say|said|think|thought|mention|feel|complain)\b|\bwhat\b.*\b(like|dislike|love|hate)s? (about|in)\b/;
const DISLIKE =
  /\b(dislike[sd]?|hate[sd]?|(do|does|did)( not|n't)( \w+){0,2} (like|love|enjoy)|not (like|love|enjoy)|problems?|complain(ts?)?|negatives?|put (them|people|you) off|against|reject(ed)?|turn(s|ed)? off|wrong|bad|weak(ness)?)\b/;
const LIKE = /\b(like[sd]?|lov(e|es|ed)|enjoy(s|ed)?|prefer(s|red)?|positives?|choose|chose|pick(ed)?|favou?r|good|strong|strength|appeal(s|ing)?)\b/;
/** A test option by its number: "concept 2", "idea #3", "option 1". */
const BY_NUMBER = /\b(?:concepts?|ideas?|options?|messages?|products?|variants?|versions?|designs?|plans?|packs?|flavou?rs?|names?|ads?)\s*(?:no\.?|number|#)?\s*(\d{1,2})\b/;

/**
 * The words a question about this kind of project's results is made of, beside the project's own
 * names (concepts, measures, audiences, markets): the grammar's small words, and the vocabulary of
 * concept tests (who was asked, what they were shown, how it scored, what they said, prices, reach).
 * Base forms: `known` also tries a word without its -s, -es, -ed, -d, -ing, -er, -est, -ly ending.
 */
const FUNCTION_WORDS = new Set(
  (
    "a an the and or but nor so if then than that this these those there here it its it's i me my mine we us our ours you your yours they them their " +
    "he she his her him who whom whose which what when where why how whether all any both each either neither every some none no not n't " +
    "is am are was were be been being do does did done doing have has had having can could will would shall should may might must " +
    "of in on at by for with about against between among into onto from to up down out over under above below again further once " +
    "more most less least very much many few lot lots just only also too really quite rather overall per versus vs via " +
    "please tell show give let get got go going see look know want need make made take one two three first second third other another same " +
    "well yes okay ok ever"
  ).split(" "),
);

const RESULTS_WORDS = new Set(
  (
    "concept idea option product message variant version design name pack flavour flavor ad advert advertising claim proposition offer range line " +
    "test survey study project research result data finding insight number figure score rating rate percent percentage share proportion top box bottom " +
    "people person respondent consumer customer shopper buyer user audience public sample panel base segment group demographic " +
    "market country region nation local women woman men man female male gender girl boy lady guy young old age aged year adult senior " +
    "millennial youth older younger household parent family mum mom dad " +
    "like dislike love hate enjoy prefer preference favourite favorite choose choice pick want desire appeal resonate engage interest " +
    "buy purchase purchasing intent intention likely likelihood probability consider consideration try trial recommend " +
    "distinct distinctive distinctiveness different unique new fresh original stand believe believable credible credibility trust " +
    "brand fit recognise recognize recognition likability likeability likable likeable " +
    "best worst better worse good bad great poor top high low strong weak strength weakness lead leader win winner beat lose loser " +
    "perform performance do stack compare affect effect impact influence comparison rank ranking order clear clearly significant significance significantly difference differ " +
    "benchmark norm average mean median total all-markets whole overall split break breakdown cut filter " +
    "why reason because driver drive explain explanation cause theme topic comment verbatim say saying said mention open answer response feedback " +
    "think thought feel felt opinion view complain complaint positive negative like-dislike praise criticism issue problem concern " +
    "price pricing pay paid cost costly expensive cheap value money charge dollar afford affordable premium discount " +
    "reach turf combination portfolio together incremental unduplicated " +
    "take forward launch develop improve improvement change recommendation next step decision go summary summarise summarize overview highlight key main"
  ).split(" "),
);

const ENDINGS = ["", "s", "es", "ed", "d", "ing", "er", "est", "ly", "ies"];

/** The question's words that are neither small words, nor results vocabulary, nor the project's own names. */
export function unknownWords(text: string, pc: ProjectContext): string[] {
  const own = new Set<string>();
  for (const n of [
    ...pc.testOptions.map((o) => o.name),
    ...pc.measures.map((m) => m.title),
    ...pc.demographics.flatMap((d) => [d.label, ...d.options.map((o) => o.label)]),
    ...pc.regions.map((r) => r.name),
    pc.projectName,
  ]) {
    for (const w of n.toLowerCase().split(/[^\p{L}]+/u)) if (w) own.add(w);
  }
  const known = (w: string) =>
    ENDINGS.some((e) => {
      if (e && !w.endsWith(e)) return false;
      const base = w.slice(0, w.length - e.length);
      return [base, `${base}e`, base.replace(/i$/, "y")].some((b) => FUNCTION_WORDS.has(b) || RESULTS_WORDS.has(b) || own.has(b));
    });
  return text
    .toLowerCase()
    .replace(/[’']/g, "'")
    .split(/[^\p{L}']+/u)
    .map((w) =>
      w
        .replace(/^'+|'+$/g, "")
        .replace(/'(s|re|ve|ll|d|m)$/, "")
        .replace(/n't$/, ""),
    )
    .filter((w) => w.length >= 2 && !known(w));
}

export function parseQuestion(question: string, pc: ProjectContext): ParsedQuestion {
  const text = question.toLowerCase().replace(/\s+/g, " ");
  const topical: ParsedQuestion["kind"] = /\b(price|pricing|pay|cost|expensive|cheap)\b/.test(text)
    ? "price"
    : /\b(reach|turf|combination)\b/.test(text)
      ? "reach"
      : /\b(say|said|saying|theme|themes|verbatim|verbatims|comment|comments|mention|mentioned|open answers?)\b/.test(text)
        ? "themes"
        : "ranking";
  const has = new Set(pc.measures.map((m) => m.standardQuestionId));
  let standardQuestionId: number | null = pc.measures.find((m) => mentions(text, m.title))?.standardQuestionId ?? null;
  if (standardQuestionId === null) standardQuestionId = MEASURE_WORDS.find(([id, re]) => has.has(id) && re.test(text))?.[0] ?? null;

  const filterIds: number[] = [];
  const audience: string[] = [];
  for (const d of pc.demographics) {
    if (d.systemQuestionId === 45) {
      const f = d.options.find((o) => o.label === "Female");
      const m = d.options.find((o) => o.label === "Male");
      if (f && FEMALE.test(text)) {
        filterIds.push(f.id);
        audience.push(f.label);
      }
      if (m && MALE.test(text)) {
        filterIds.push(m.id);
        audience.push(m.label);
      }
      continue;
    }
    if (d.systemQuestionId === 51) {
      const bands = d.options.map((o) => ({ o, band: ageBand(o.label) })).filter((x): x is { o: { id: number; label: string }; band: [number, number] } => x.band !== null);
      let pick: typeof bands = [];
      const under = /\b(?:under|below|younger than|less than)\s+(\d{2})\b/.exec(text);
      const over = /\b(?:over|above|older than|more than)\s+(\d{2})\b|\b(\d{2})\s*(?:\+|and over|and older|or older)/.exec(text);
      const range = /\b(\d{2})\s*(?:-|–|to)\s*(\d{2})\b/.exec(text);
      if (under) pick = bands.filter((b) => b.band[1] < Number(under[1]));
      else if (over) pick = bands.filter((b) => b.band[0] >= Number(over[1] ?? over[2]));
      else if (range) pick = bands.filter((b) => b.band[0] >= Number(range[1]) && b.band[1] <= Number(range[2]));
      else if (/\b(young|younger|youth)\b/.test(text)) pick = bands.filter((b) => b.band[1] < 35);
      else if (/\b(older|seniors?|elderly)\b/.test(text)) pick = bands.filter((b) => b.band[0] >= 55);
      for (const b of pick) {
        filterIds.push(b.o.id);
        audience.push(b.o.label);
      }
      continue;
    }
    for (const o of d.options) {
      if (o.label.length >= 4 && mentions(text, o.label)) {
        filterIds.push(o.id);
        audience.push(o.label);
      }
    }
  }
  const regionIds = pc.regions.length > 1 ? pc.regions.filter((r) => mentions(text, r.name)).map((r) => r.id) : [];
  const testOptionIds = pc.testOptions.filter((o) => mentions(text, o.name)).map((o) => o.id);
  const numbered = BY_NUMBER.exec(text);
  const byNumber = numbered ? pc.testOptions[Number(numbered[1]) - 1] : undefined;
  if (byNumber && !testOptionIds.includes(byNumber.id)) testOptionIds.push(byNumber.id);
  const why = WHY.test(text) && testOptionIds.length === 1;
  const stance: ParsedQuestion["stance"] = DISLIKE.test(text) ? "dislike" : LIKE.test(text) ? "like" : null;
  const direction = /\b(worst|lowest|least|weakest|bottom|poorest)\b/.test(text) ? "worst" : "best";
  // A ranking needs something to rank by or among: a measure, a test option, an audience, a market
  // or a word of comparison about the test options ("which is better?"). Anything else ("What is the capital of France?", "Tell me more") is
  // not understood, and is never answered with a ranking.
  const understood = topical !== "ranking" || standardQuestionId !== null || testOptionIds.length > 0 || filterIds.length > 0 || regionIds.length > 0 || (RANKING.test(text) && SUBJECT.test(text));
  // A word that is none of those is about something else ("prime minister", "stock", "weather"):
  // naming a market, a measure or a concept beside it does not make it a results question.
  const onTopic = unknownWords(text, pc).length === 0;
  const kind: ParsedQuestion["kind"] = ACTION.test(text) ? "action" : !onTopic ? "unknown" : why ? "why" : understood ? topical : "unknown";
  const alsoWhy = kind === "ranking" && testOptionIds.length === 0 && /\bwhy\b|\breasons?\b/.test(text);
  return {
    kind,
    stance: why ? stance : null,
    standardQuestionId,
    filterIds,
    regionIds,
    testOptionIds,
    direction,
    alsoWhy,
    audience: [...audience, ...pc.regions.filter((r) => regionIds.includes(r.id)).map((r) => r.name)],
  };
}
