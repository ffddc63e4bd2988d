// The simulated Ideally panel: respondents who answer a survey the way a real panel's would, so
// demo data and tests carry real signal. Pure and seeded: the same run seed and respondent index
// give the same person and the same answers.
//
// - Each person is drawn from the market as the incidence estimate sees it (lifecycle/estimate.ts),
//   so screen-outs follow incidence: for each target group that screens (a demographic or a
//   screener question), the person gives a targeted answer with the estimate's share for the group
//   (PanelPlan.shares: the census share of the targeted answers, else past responses, else the
//   uniform prior), independently per group, so the share who qualify is the estimate's incidence.
//   Within the targeted answers, and within the others, answers follow the census margins (age
//   group, gender, region); answers without a margin evenly, "prefer not to say" rarely. A group
//   with quotas that is open to its other answers screens nobody: its answers follow the census and
//   its quotas fill or close over quota as for real people. Two crossed questions (crossed quota
//   cells) are drawn together: in one of the crossing's cells with the estimate's share for it, else
//   in a pair that is no cell (screened out), pairs weighted by the product of their census margins,
//   so the crossed cells fill, close over quota and screen out as the estimate expects.
// - Each test option has a latent appeal from its concept text (stable across runs), plus an appeal
//   that depends on the respondent's age and gender, so concepts differ and segments differ.
// - The 4-point scales follow an ordered-logit-like rule: the latent score plus noise falls into one
//   of four bands (Top, Second top, Second bottom, Bottom).
// - Open answers are built from phrases about themes (price, taste, convenience, design, trust,
//   health, novelty), positive or negative with the respondent's appeal, so verbatims have themes.
// - Prices: each respondent's four Van Westendorp prices are spread around a reference price for
//   the concept (higher for better concepts), always in increasing order, so the price sensitivity
//   meter finds a sensible acceptable range.
// - 3% fail the attention check; 4% speed, 3% straight-line, 3% write gibberish, 2% come back on a
//   device already seen (POOR_SHARES): flagged and replaced by the quality checks (quality.ts).
import {
  ATTENTION,
  answerKey,
  assignTestOptions,
  crossingKeyOf,
  hash32,
  intentKey,
  seeded,
  type AnswerValue,
  type DefCrossing,
  type DefOption,
  type DefQuestion,
  type DefTarget,
  type Page,
  type SurveyDefinition,
} from "./engine.ts";

export interface Margins {
  /** systemQuestionId -> optionId -> share */
  [systemQuestionId: string]: Record<string, number>;
}

export type PersonQuality = "good" | "speeder" | "straightliner" | "gibberish" | "duplicate";

/**
 * The simulated panel's plan for a run (survey_runs.panel_plan), from the incidence estimate of
 * the run's market when the panel first answers it (fielding.service.ts panelPlan).
 */
export type PanelPlan = {
  /** People the panel reaches in the market in one field period (the estimate's panelReach). */
  reach: number;
  /** The estimate's incidence in the market: the product of the shares below. */
  incidence: number;
  /** floor(reach x incidence): the completes the estimate says the market can deliver. */
  feasibleCompletes: number;
  /** The run's field period in days: the panel invites reach / fieldPeriodDays people per tick. */
  fieldPeriodDays: number;
  /** Per target group that screens (s{systemQuestionId}, q{projectQuestionId}): the share who give a targeted answer; per crossing (s45&s51), the share in one of its cells. */
  shares: Record<string, number>;
};

export interface Person {
  random: () => number;
  demographics: Record<string, number>;
  /** Per target group that screens: whether this person gives a targeted answer. */
  inTarget: Record<string, boolean>;
  /** Extra appeal per test option for this person, from their age and gender. */
  appeal: (testOptionId: number) => number;
  /** Poor respondents a real panel sends too (docs/decisions.md "Respondent quality"). */
  quality: PersonQuality;
  /** Seconds this person spends per page. */
  secondsPerPage: number;
  /** The device's fingerprint (a duplicate reuses an earlier respondent's). */
  fingerprint: string;
}

/**
 * Shares of poor respondents among the panel's invitations, besides the 3% who fail the attention
 * check: speeders 4%, straight-liners 3%, gibberish writers 3%, duplicates (a device seen before)
 * 2%, so about one complete in eight is flagged, within the 10-30% online panels remove (Pew
 * Research Center 2020; Kennedy et al. 2020).
 */
export const POOR_SHARES: readonly [PersonQuality, number][] = [
  ["speeder", 0.04],
  ["straightliner", 0.03],
  ["gibberish", 0.03],
  ["duplicate", 0.02],
];

const AGE = 51;
const GENDER = 45;
const YOUNG = new Set([5100001, 5100002]);
const FEMALE = 4500002;

function pick<T>(random: () => number, items: readonly T[], weights?: readonly number[]): T {
  const w = weights ?? items.map(() => 1);
  const total = w.reduce((a, b) => a + b, 0);
  let r = random() * total;
  for (let i = 0; i < items.length; i++) {
    r -= w[i]!;
    if (r <= 0) return items[i]!;
  }
  return items[items.length - 1]!;
}

function normal(random: () => number): number {
  // Box-Muller.
  const u = Math.max(random(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** A concept's latent appeal in [-1, 1], stable for its text. */
export function conceptAppeal(conceptText: string): number {
  return ((hash32(conceptText) % 2001) / 1000 - 1) * 0.9;
}

/** A target group that screens people out: without quotas, or with quotas on "only these" answers. */
export function screens(target: DefTarget): boolean {
  return !(target.othersQuota && target.othersQuota > 0);
}

/**
 * One answer of a question drawn for a person: among the targeted answers when `inTarget`, among
 * the others when not (or every answer when the group does not screen, `inTarget` null), by weight.
 */
function drawOption<T extends { id: number }>(random: () => number, options: readonly T[], target: DefTarget | undefined, inTarget: boolean | null, weight: (o: T) => number): T {
  let pool = options;
  if (target && inTarget !== null) {
    const side = options.filter((o) => target.optionIds.includes(o.id) === inTarget);
    // A group whose every answer is targeted has no other side (its share is 1): every answer qualifies.
    if (side.length) pool = side;
  }
  return pick(random, pool, pool.map(weight));
}

/** An answer's weight in the market: its census margin, else even ("prefer not to say" and "another gender" rarely). */
function censusWeight(margins: Margins, q: DefQuestion): (o: { id: number; text: string }) => number {
  const census = margins[String(q.systemQuestionId)];
  return (o) => census?.[o.id] ?? (/prefer not/i.test(o.text) ? 0.15 : /another gender/i.test(o.text) ? 0.02 : 1);
}

/**
 * The answers of a crossing's two questions drawn for a person: in one of its cells with the
 * estimate's share for the crossing, else in a pair that is no cell; within either side, pairs by
 * the product of their census weights (the questions independent, as the estimate has them).
 */
function drawCrossing(random: () => number, def: SurveyDefinition, margins: Margins, x: DefCrossing, share: number): Record<string, number> {
  const [qa, qb] = x.keys.map((k) => def.demographics.find((q) => q.key === k));
  if (!qa || !qb) return {};
  const inCell = random() < share;
  const pairs = qa.options.flatMap((a) => qb.options.map((b) => [a, b] as const));
  const isCell = ([a, b]: readonly [DefOption, DefOption]) => x.cells.some((c) => c.optionIds[0] === a.id && c.optionIds[1] === b.id);
  const side = pairs.filter((p) => isCell(p) === inCell);
  const pool = side.length ? side : pairs;
  const wa = censusWeight(margins, qa);
  const wb = censusWeight(margins, qb);
  const [a, b] = pick(
    random,
    pool,
    pool.map(([oa, ob]) => wa(oa) * wb(ob)),
  );
  return { [qa.key]: a.id, [qb.key]: b.id };
}

export function makePerson(def: SurveyDefinition, margins: Margins, seed: number, index: number, shares: PanelPlan["shares"]): Person {
  const random = seeded(hash32(`${seed}:${index}`));
  const demographics: Record<string, number> = {};
  // A crossing's two questions are drawn together, by its cells.
  const crossed = new Set((def.crossed ?? []).flatMap((x) => x.keys));
  // Independent draws per group, so the share who pass every group is the product of the shares.
  const inTarget: Record<string, boolean> = {};
  for (const t of def.targets) if (screens(t) && !crossed.has(t.key)) inTarget[t.key] = random() < (shares[t.key] ?? 1);
  for (const x of def.crossed ?? []) Object.assign(demographics, drawCrossing(random, def, margins, x, shares[crossingKeyOf(x)] ?? 1));
  for (const q of def.demographics) {
    if (crossed.has(q.key)) continue;
    const target = def.targets.find((t) => t.key === q.key);
    demographics[q.key] = drawOption(random, q.options, target, inTarget[q.key] ?? null, censusWeight(margins, q)).id;
  }
  const young = YOUNG.has(demographics[`s${AGE}`] ?? 0);
  const female = demographics[`s${GENDER}`] === FEMALE;
  const appeal = (testOptionId: number) => {
    const t = def.testOptions.find((o) => o.id === testOptionId);
    const h = hash32(t?.conceptText ?? String(testOptionId));
    // Some concepts speak to the young, some to women: bits of the concept's hash decide which.
    return conceptAppeal(t?.conceptText ?? "") + (h & 1 ? (young ? 0.45 : -0.2) : 0) + (h & 2 ? (female ? 0.35 : -0.15) : 0);
  };
  // Quality from a generator of its own, so a good respondent answers as before.
  const qr = seeded(hash32(`${seed}:${index}:quality`));
  let quality: PersonQuality = "good";
  let x = qr();
  for (const [kind, share] of POOR_SHARES) {
    if (x < share) {
      quality = kind;
      break;
    }
    x -= share;
  }
  // Lengths per page spread log-normally around 20 seconds; a speeder clicks through in a tenth.
  const secondsPerPage = 20 * Math.exp(normal(qr) * 0.3) * (quality === "speeder" ? 0.1 : 1);
  const fingerprint = `sim-${seed}-${quality === "duplicate" && index > 0 ? Math.floor(qr() * index) : index}`;
  return { random, demographics, inTarget, appeal, quality, secondsPerPage, fingerprint };
}

/**
 * The draws the panel made to order a person's concepts when it walked the engine itself. The
 * survey orders them now, as it does for anyone (docs/decisions/0144); the person still makes
 * those draws, so each person answers with the draws they always had (a one-concept survey's
 * people answer exactly as before). The number of draws depends on the design only.
 */
export function skipOrderDraws(def: SurveyDefinition, person: Person): void {
  assignTestOptions(def, {}, person.random);
}

/** Band of a latent score: 1 Top .. 4 Bottom. */
function band(score: number): number {
  return score > 0.9 ? 1 : score > 0 ? 2 : score > -0.8 ? 3 : 4;
}

const THEMES = {
  positive: [
    "great value for money",
    "the taste sounds delicious",
    "really convenient for busy days",
    "love the packaging design",
    "a brand I trust",
    "feels like a healthier choice",
    "something new I have not seen before",
  ],
  negative: [
    "too expensive for what it is",
    "not sure about the taste",
    "seems like a hassle to use",
    "the design looks cheap",
    "I do not trust the claims",
    "seems unhealthy",
    "nothing new, I have seen this before",
  ],
};

/** What a respondent mashing the keyboard writes. */
const GIBBERISH = ["asdf asdf", "sdfghjkl", "qwertyy", "jjjjjjj", "xcvbnm xcvb", "dfgdfgdfg ghjk"];

function textAnswer(random: () => number, score: number): string {
  const positive = score + normal(random) * 0.5 > 0;
  const bank = positive ? THEMES.positive : THEMES.negative;
  const first = pick(random, bank);
  const second = random() < 0.35 ? pick(random, bank) : null;
  const lead = positive ? pick(random, ["I like that it is", "Honestly,", "For me it is", "Mostly because it is"]) : pick(random, ["My concern is it is", "Honestly,", "To me it is", "I worry it is"]);
  return second && second !== first ? `${lead} ${first}, and ${second}.` : `${lead} ${first}.`;
}

function singleAnswer(random: () => number, q: DefQuestion, score: number, straightliner = false): number {
  const scaled = q.options.filter((o) => o.standardAnswerValue !== null);
  // A straight-liner ticks the same box down every grid.
  if (straightliner && scaled.length) return (scaled.find((o) => o.standardAnswerValue === 2) ?? scaled[0]!).id;
  const notSure = q.options.find((o) => o.isNotSure);
  if (notSure && random() < 0.03) return notSure.id;
  if (scaled.length) {
    const want = band(score + normal(random) * 0.7);
    return (scaled.find((o) => o.standardAnswerValue === want) ?? scaled[0]!).id;
  }
  // An unscaled question: options favoured by a stable preference, shifted a little by appeal.
  const weights = q.options.map((o, i) => 0.5 + (hash32(o.text) % 100) / 100 + (i === 0 ? Math.max(0, score) * 0.5 : 0));
  return pick(random, q.options, weights).id;
}

function multipleAnswer(random: () => number, q: DefQuestion, person: Person, score: number): number[] {
  const normalOptions = q.options.filter((o) => !o.exclusive);
  const chosen = normalOptions.filter((o) => {
    const s = o.testOptionId != null ? person.appeal(o.testOptionId) : score;
    const p = 1 / (1 + Math.exp(-(s * 1.6 + (hash32(o.text) % 100) / 100 - 0.9)));
    return random() < p;
  });
  let ids = chosen.map((o) => o.id);
  if (q.maxChoices !== null && ids.length > q.maxChoices) ids = ids.slice(0, q.maxChoices);
  if (!ids.length) {
    const none = q.options.find((o) => o.exclusive);
    ids = [none ? none.id : pick(random, q.options).id];
  }
  if (q.minChoices !== null && ids.length < q.minChoices) {
    for (const o of normalOptions) if (ids.length < q.minChoices && !ids.includes(o.id)) ids.push(o.id);
  }
  return ids;
}

/** The four Van Westendorp prices, increasing, around the concept's reference price. */
function prices(random: () => number, def: SurveyDefinition, testOptionId: number, score: number): number[] {
  const range = def.priceRange[String(testOptionId)];
  const base = range?.min != null && range?.max != null ? (range.min + range.max) / 2 : range?.max != null ? range.max * 0.6 : 10;
  const reference = base * Math.exp(0.12 * score + normal(random) * 0.18);
  const ratios = [0.5, 0.75, 1.15, 1.55].map((r) => r * Math.exp(normal(random) * 0.08));
  const out: number[] = [];
  for (const r of ratios) {
    let v = Math.max(0.5, Math.round(reference * r * 2) / 2);
    if (out.length && v <= out[out.length - 1]!) v = out[out.length - 1]! + 0.5;
    out.push(v);
  }
  return out;
}

/** The answers a simulated respondent gives to one page (the engine validates them as everyone's). */
export function answerPage(def: SurveyDefinition, person: Person, page: Page): Record<string, AnswerValue> {
  const r = person.random;
  const out: Record<string, AnswerValue> = {};
  if (page.kind === "attention") {
    out[ATTENTION.key] = r() < 0.97 ? ATTENTION.correct : Math.floor(r() * ATTENTION.options.length);
    return out;
  }
  if (page.kind === "demographics") {
    for (const q of page.questions) out[q.key] = person.demographics[q.key] ?? q.options[0]!.id;
    return out;
  }
  const score = page.testOptionId !== null ? person.appeal(page.testOptionId) : def.testOptions.length ? Math.max(...def.testOptions.map((t) => person.appeal(t.id))) * 0.5 : 0;
  if (page.kind === "intent") {
    // Likelier to buy at one's own bargain price than at one's getting-expensive price.
    const base = 3 + score * 1.2;
    out[intentKey(20, page.testOptionId!)] = Math.max(1, Math.min(5, Math.round(base + 0.8 + normal(r) * 0.7)));
    out[intentKey(21, page.testOptionId!)] = Math.max(1, Math.min(5, Math.round(base - 0.9 + normal(r) * 0.7)));
    return out;
  }
  if (page.kind === "price") {
    const p = prices(r, def, page.testOptionId!, score);
    page.questions.forEach((q, i) => {
      out[answerKey(q, page.testOptionId)] = p[i] ?? p[p.length - 1]! + 0.5 * (i + 1);
    });
    return out;
  }
  for (const q of page.questions) {
    const key = answerKey(q, page.testOptionId);
    if (page.kind === "screener") {
      // A screening question: one answer on the person's side of the target, evenly (the
      // estimate's prior is the targeted answers over all answers; its share decided the side).
      const target = def.targets.find((t) => t.key === q.key);
      const side = target ? person.inTarget[target.key] : undefined;
      if (target && side !== undefined) {
        const o = drawOption(r, q.options, target, side, () => 1);
        out[key] = q.type === "multiple" ? [o.id] : o.id;
        continue;
      }
    }
    if (q.type === "text") out[key] = person.quality === "gibberish" ? pick(r, GIBBERISH) : textAnswer(r, score);
    else if (q.type === "multiple") out[key] = multipleAnswer(r, q, person, score);
    else out[key] = singleAnswer(r, q, score, person.quality === "straightliner" && page.kind === "concept");
  }
  return out;
}
