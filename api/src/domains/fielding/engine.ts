// The respondent engine: the survey a run asks, as pages, and the rules that move a respondent
// through it. Pure (no I/O): the service loads a session, calls step(), and saves what it returns;
// the simulated panel walks the same pages with the same step(), so a simulated respondent is held
// to every rule a person is (validation, targets, quotas, the attention check).
//
// The order a respondent meets (DOMAIN.md): demographics (the system questions of the region),
// screener and audience questions (positions 1, 4, 7), then the test loop: for each test option
// seen (monadic: one, the least filled; sequential monadic: all, in an order shuffled per
// respondent) its concept with the loop questions (positions 8, 2, 5) and, when set up, the four
// Van Westendorp price questions (standard questions 19-22) on a page of their own; then an
// attention check; then the follow-ups (positions 3, 6, 9-12, the market reach question among them).

export type QuestionType = "single" | "multiple" | "text" | "dropdown" | "price";

// The survey definition is stored as JSON (survey_runs.definition): its parts are type aliases, not
// interfaces, so that TypeScript sees them as JSON values (postgres.js's json() takes JSONValue).
export type DefOption = {
  id: number;
  text: string;
  exclusive: boolean;
  isNotSure: boolean;
  standardAnswerValue: number | null;
  /** Market reach: the test option this option stands for. */
  testOptionId?: number | null;
};

export type DefQuestion = {
  /** s{systemQuestionId} or q{projectQuestionId}. */
  key: string;
  systemQuestionId: number | null;
  projectQuestionId: number | null;
  questionId: number | null;
  standardQuestionId: number | null;
  positionId: number | null;
  /** Asked about this test option only (price questions; a question tied to one option). */
  testOptionId: number | null;
  type: QuestionType;
  title: string;
  text: string;
  options: DefOption[];
  minChoices: number | null;
  maxChoices: number | null;
};

export type DefTestOption = {
  id: number;
  conceptText: string;
  conceptDescription: string | null;
  fileKey: string | null;
  fileType: string | null;
};

/**
 * A target group: the targets of one question. Without quotas (or marked "only these") the
 * respondent's answer must be among these options; with quotas the rest of the run's completes
 * are open to the group's other answers (othersQuota of them; docs/decisions.md "Quotas that can
 * be met").
 */
export type DefTarget = {
  key: string;
  optionIds: number[];
  /** Completes allowed per option (quota_percent of the run's target), when quotas are set. */
  quotas: Record<string, number>;
  /** quota_percent per capped option, so the caps follow a changed order (absent in runs built before them). */
  shares?: Record<string, number>;
  onlyThese?: boolean;
  /** Completes open to answers outside optionIds; null or absent: those screen out. */
  othersQuota?: number | null;
};

/**
 * A crossing of two demographic questions (crossed quota cells, crossed.ts): keys in code-unit
 * order (the order quotaCounts pairs answers in), each cell a pair of their answers in that order
 * with its cap. A respondent whose pair is no cell screens out; a full cell is over quota.
 */
export type DefCrossing = {
  keys: [string, string];
  cells: { optionIds: [number, number]; cap: number; share?: number }[];
};

export type SurveyDefinition = {
  version: 1;
  surveyRunId: number;
  projectId: number;
  projectName: string;
  projectTypeId: number;
  regionId: number;
  regionName: string;
  currencyCode: string;
  currencySymbol: string;
  isCustomerPanel: boolean;
  targetCompletes: number;
  design: "monadic" | "sequential";
  testOptions: DefTestOption[];
  demographics: DefQuestion[];
  screener: DefQuestion[];
  loop: DefQuestion[];
  followUps: DefQuestion[];
  targets: DefTarget[];
  /** Crossed quota cells of the run's market (absent in runs built before them). */
  crossed?: DefCrossing[];
  /** Price set-up: min and max per test option (null: unbounded), for validation of the answers. */
  priceRange: Record<string, { min: number | null; max: number | null }>;
  /** Test options whose price questions are followed by the purchase-intent questions (NMS). */
  purchaseIntent?: number[];
  /** Texts translated for the region (TranslatedTextRegions), by English text. */
  translations: Record<string, string>;
};

/** The attention check: an instructed-response item (Meade and Craig 2012). */
export const ATTENTION = {
  key: "attention",
  text: "To show you are reading carefully, please choose “Somewhat agree” below.",
  options: ["Strongly agree", "Somewhat agree", "Neither agree nor disagree", "Somewhat disagree", "Strongly disagree"],
  correct: 1,
} as const;

export type PageKind = "demographics" | "screener" | "concept" | "price" | "intent" | "attention" | "followUps";

/** Newton, Miller and Smith (1993): purchase likelihood at the respondent's own prices, 5..1. */
export const INTENT_SCALE = [
  { value: 5, text: "Very likely" },
  { value: 4, text: "Somewhat likely" },
  { value: 3, text: "Neither likely nor unlikely" },
  { value: 2, text: "Somewhat unlikely" },
  { value: 1, text: "Very unlikely" },
] as const;
/** The price questions the intent is asked at: 20 bargain, 21 getting expensive. */
export const INTENT_AT = [20, 21] as const;
export const intentKey = (standardQuestionId: number, testOptionId: number) => `intent${standardQuestionId}:t${testOptionId}`;

export interface Page {
  id: string;
  kind: PageKind;
  testOptionId: number | null;
  questions: DefQuestion[];
}

/** Where an answer is kept on the session: the question, and the test option it was asked about. */
export function answerKey(q: DefQuestion, testOptionId: number | null): string {
  return testOptionId === null ? q.key : `${q.key}:t${testOptionId}`;
}

export const PRICE_ORDER = [19, 20, 21, 22] as const;
const PRICE_LABEL: Record<number, string> = { 19: "too cheap", 20: "a bargain", 21: "getting expensive", 22: "too expensive" };

export function pages(def: SurveyDefinition, order: readonly number[]): Page[] {
  const out: Page[] = [];
  if (def.demographics.length) out.push({ id: "demographics", kind: "demographics", testOptionId: null, questions: def.demographics });
  if (def.screener.length) out.push({ id: "screener", kind: "screener", testOptionId: null, questions: def.screener });
  for (const t of order) {
    const asked = def.loop.filter((q) => q.testOptionId === null || q.testOptionId === t);
    const concept = asked.filter((q) => q.type !== "price");
    const price = asked.filter((q) => q.type === "price").sort((a, b) => a.standardQuestionId! - b.standardQuestionId!);
    out.push({ id: `concept:${t}`, kind: "concept", testOptionId: t, questions: concept });
    if (price.length) out.push({ id: `price:${t}`, kind: "price", testOptionId: t, questions: price });
    if (price.length && def.purchaseIntent?.includes(t)) out.push({ id: `intent:${t}`, kind: "intent", testOptionId: t, questions: [] });
  }
  out.push({ id: "attention", kind: "attention", testOptionId: null, questions: [] });
  if (def.followUps.length) out.push({ id: "followUps", kind: "followUps", testOptionId: null, questions: def.followUps });
  return out;
}

/** The test options a new respondent sees: monadic, the least filled; sequential, all, shuffled. */
export function assignTestOptions(def: SurveyDefinition, completesByOption: Record<string, number>, random: () => number): number[] {
  const ids = def.testOptions.map((t) => t.id);
  if (!ids.length) return [];
  if (def.design === "monadic") {
    const least = Math.min(...ids.map((id) => completesByOption[id] ?? 0));
    const candidates = ids.filter((id) => (completesByOption[id] ?? 0) === least);
    return [candidates[Math.floor(random() * candidates.length)]!];
  }
  const shuffled = [...ids];
  for (let i = shuffled.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [shuffled[i], shuffled[j]] = [shuffled[j]!, shuffled[i]!];
  }
  return shuffled;
}

export type AnswerValue = number | number[] | string;
export type Answers = Record<string, AnswerValue>;

export interface PageError {
  path: string;
  message: string;
}

/** Checks one page's answers; answers the normalised values to store, or the errors. */
export function validatePage(def: SurveyDefinition, page: Page, input: Record<string, unknown>): { answers: Answers } | { errors: PageError[] } {
  const errors: PageError[] = [];
  const answers: Answers = {};
  if (page.kind === "intent") {
    for (const std of INTENT_AT) {
      const key = intentKey(std, page.testOptionId!);
      const v = input[key];
      if (typeof v !== "number" || !Number.isInteger(v) || v < 1 || v > 5) errors.push({ path: key, message: "Choose one answer" });
      else answers[key] = v;
    }
    return errors.length ? { errors } : { answers };
  }
  if (page.kind === "attention") {
    const v = input[ATTENTION.key];
    if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v >= ATTENTION.options.length) {
      errors.push({ path: ATTENTION.key, message: "Choose one answer" });
    } else answers[ATTENTION.key] = v;
    return errors.length ? { errors } : { answers };
  }
  for (const q of page.questions) {
    const key = answerKey(q, page.testOptionId);
    const v = input[key];
    const ids = new Set(q.options.map((o) => o.id));
    if (q.type === "single" || q.type === "dropdown") {
      if (typeof v !== "number" || !ids.has(v)) errors.push({ path: key, message: "Choose one answer" });
      else answers[key] = v;
    } else if (q.type === "multiple") {
      if (!Array.isArray(v) || !v.length || !v.every((x) => typeof x === "number" && ids.has(x))) {
        errors.push({ path: key, message: "Choose at least one answer" });
        continue;
      }
      const chosen = [...new Set(v as number[])];
      const exclusive = q.options.filter((o) => o.exclusive && chosen.includes(o.id));
      if (exclusive.length && chosen.length > 1) errors.push({ path: key, message: `“${exclusive[0]!.text}” cannot be combined with other answers` });
      else if (q.minChoices !== null && chosen.length < q.minChoices) errors.push({ path: key, message: `Choose at least ${q.minChoices}` });
      else if (q.maxChoices !== null && chosen.length > q.maxChoices) errors.push({ path: key, message: `Choose at most ${q.maxChoices}` });
      else answers[key] = chosen;
    } else if (q.type === "text") {
      const s = typeof v === "string" ? v.trim() : "";
      if (s.length < 2) errors.push({ path: key, message: "Please write a short answer" });
      else if (s.length > 2000) errors.push({ path: key, message: "Please keep your answer under 2000 characters" });
      else answers[key] = s;
    } else {
      const n = typeof v === "string" && v.trim() !== "" ? Number(v) : v;
      const range = def.priceRange[String(page.testOptionId)] ?? { min: null, max: null };
      if (typeof n !== "number" || !Number.isFinite(n) || n <= 0) errors.push({ path: key, message: "Enter a price above 0" });
      else if (n > 1e9) errors.push({ path: key, message: "Enter a realistic price" });
      else if (range.max !== null && n > range.max * 10) errors.push({ path: key, message: `Enter a price up to ${def.currencySymbol}${range.max * 10}` });
      else answers[key] = Math.round(n * 100) / 100;
    }
  }
  if (page.kind === "price" && !errors.length) {
    // Van Westendorp (1976): too cheap < bargain < getting expensive < too expensive.
    const byStd = page.questions.map((q) => ({ std: q.standardQuestionId!, v: answers[answerKey(q, page.testOptionId)] as number }));
    for (let i = 1; i < byStd.length; i++) {
      const a = byStd[i - 1]!;
      const b = byStd[i]!;
      if (!(b.v > a.v)) {
        errors.push({
          path: answerKey(page.questions[i]!, page.testOptionId),
          message: `The price at which it is ${PRICE_LABEL[b.std]} must be higher than the price at which it is ${PRICE_LABEL[a.std]}`,
        });
      }
    }
  }
  return errors.length ? { errors } : { answers };
}

export type Outcome = { status: "InProgress"; page: number } | { status: "Complete" } | { status: "ScreenedOut"; reason: string } | { status: "OverQuota"; reason: string };

/**
 * Counts the rules need, in this run: completes per test option seen (by its id), and per answer
 * given (by answerCell: the question's key and the option's id, since a demographic's, a screener's
 * and a test option's ids come from separate sequences and may be equal).
 */
export interface QuotaState {
  completesByOption: Record<string, number>;
  completesByAnswer: Record<string, number>;
}

/** An answer's cell: "{question key}:{option id}", e.g. "s45:4500002". */
export const answerCell = (questionKey: string, optionId: number | string) => `${questionKey}:${optionId}`;

/** A demographic's answer key (s{systemQuestionId}): the answers crossed cells pair. */
const DEMOGRAPHIC = /^s\d+$/;

/** A crossed cell's count key: both answers' cells, keys in code-unit order, e.g. "s45:4500001&s51:5100001". */
export const crossedCell = (keys: readonly [string, string], optionIds: readonly [number | string, number | string]) => `${answerCell(keys[0], optionIds[0])}&${answerCell(keys[1], optionIds[1])}`;
export const crossingKeyOf = (x: Pick<DefCrossing, "keys">) => `${x.keys[0]}&${x.keys[1]}`;

/**
 * Adds a complete's answers to the counts (as quotaCounts counts the stored sessions): each single
 * answer's cell, and each pair of demographic answers' crossed cell.
 */
export function countComplete(byAnswer: Record<string, number>, answers: Answers): void {
  const demographic: [string, number][] = [];
  for (const [k, v] of Object.entries(answers)) {
    if (typeof v !== "number") continue;
    byAnswer[answerCell(k, v)] = (byAnswer[answerCell(k, v)] ?? 0) + 1;
    if (DEMOGRAPHIC.test(k)) demographic.push([k, v]);
  }
  demographic.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (let i = 0; i < demographic.length; i++) {
    for (let j = i + 1; j < demographic.length; j++) {
      const cell = crossedCell([demographic[i]![0], demographic[j]![0]], [demographic[i]![1], demographic[j]![1]]);
      byAnswer[cell] = (byAnswer[cell] ?? 0) + 1;
    }
  }
}

/** A crossing's verdict on a respondent's answers: in an open cell (null), in no cell, or in a full one. */
function crossingOutcome(x: DefCrossing, answers: Answers, quota: QuotaState): Outcome | null {
  const [a, b] = x.keys.map((k) => answers[k]);
  const cell = x.cells.find((c) => c.optionIds[0] === a && c.optionIds[1] === b);
  if (!cell) return { status: "ScreenedOut", reason: `crossed ${crossingKeyOf(x)}` };
  if ((quota.completesByAnswer[crossedCell(x.keys, cell.optionIds)] ?? 0) >= cell.cap) return { status: "OverQuota", reason: `quota ${crossingKeyOf(x)}` };
  return null;
}

/** The single answer a respondent gave to a target's question (system or project). */
function chosen(answers: Answers, key: string): number[] {
  const v = answers[key];
  return typeof v === "number" ? [v] : Array.isArray(v) ? v : [];
}

/**
 * After a page is answered: screen out those outside a target, close the door on a full quota,
 * fail the attention check, or go on to the next page (or complete).
 */
export function afterPage(def: SurveyDefinition, all: Page[], index: number, answers: Answers, quota: QuotaState): Outcome {
  const page = all[index]!;
  if (page.kind === "demographics" || page.kind === "screener") {
    for (const t of def.targets) {
      const asked = page.questions.some((q) => q.key === t.key);
      if (!asked) continue;
      const picks = chosen(answers, t.key);
      const hit = picks.filter((id) => t.optionIds.includes(id));
      if (!hit.length) {
        if (t.othersQuota == null || t.othersQuota <= 0) return { status: "ScreenedOut", reason: `target ${t.key}` };
        // The group's other answers share what its quotas leave.
        const q = page.questions.find((x) => x.key === t.key)!;
        if (othersCompletes(q, t, quota) >= t.othersQuota) return { status: "OverQuota", reason: `quota ${t.key}` };
        continue;
      }
      const open = hit.filter((id) => t.quotas[id] === undefined || (quota.completesByAnswer[answerCell(t.key, id)] ?? 0) < t.quotas[id]!);
      if (!open.length) return { status: "OverQuota", reason: `quota ${t.key}` };
    }
    for (const x of def.crossed ?? []) {
      if (!x.keys.every((k) => page.questions.some((q) => q.key === k))) continue;
      const out = crossingOutcome(x, answers, quota);
      if (out) return out;
    }
  }
  if (page.kind === "attention" && answers[ATTENTION.key] !== ATTENTION.correct) return { status: "ScreenedOut", reason: "attention check" };
  return index + 1 < all.length ? { status: "InProgress", page: index + 1 } : { status: "Complete" };
}

/**
 * The counts afterPage reads on a page (null: none): the demographics and screener pages judge the
 * keys of targets with a quota or an othersQuota (their answers' cells) and the crossings' pairs;
 * no other page and no uncapped target reads a count.
 */
export function quotaReads(def: SurveyDefinition, page: Page): { keys: string[]; crossings: [string, string][] } | null {
  if (page.kind !== "demographics" && page.kind !== "screener") return null;
  const keys = def.targets.filter((t) => Object.keys(t.quotas).length > 0 || (t.othersQuota != null && t.othersQuota > 0)).map((t) => t.key);
  const crossings = (def.crossed ?? []).map((x): [string, string] => [x.keys[0], x.keys[1]]);
  return keys.length || crossings.length ? { keys, crossings } : null;
}

/** Completes of a group's answers outside its targets (they share the group's othersQuota). */
function othersCompletes(q: DefQuestion, t: DefTarget, quota: QuotaState): number {
  return q.options.filter((o) => !t.optionIds.includes(o.id)).reduce((s, o) => s + (quota.completesByAnswer[answerCell(t.key, o.id)] ?? 0), 0);
}

/** One quota cell of a run: an answer with a quota, a group's other answers (optionId null), or a crossed pair (optionIds). */
export type QuotaCellProgress = { optionId: number | null; optionIds?: number[]; label: string; completes: number; target: number };
export type QuotaGroupProgress = { key: string; question: string; cells: QuotaCellProgress[] };

/**
 * Each quota cell's completes against its cap, read from the counts afterPage decides with (so the
 * status page shows what the engine enforces): per group with quotas, each capped answer, then the
 * group's other answers when its quotas leave them a share.
 */
export function quotaProgress(def: SurveyDefinition, quota: QuotaState): QuotaGroupProgress[] {
  const out: QuotaGroupProgress[] = [];
  for (const t of def.targets) {
    const q = [...def.demographics, ...def.screener].find((x) => x.key === t.key);
    if (!q) continue;
    // In the question's order of answers.
    const cells: QuotaCellProgress[] = q.options.flatMap((o) => {
      const target = t.quotas[o.id];
      return target === undefined ? [] : [{ optionId: o.id, label: o.text, completes: quota.completesByAnswer[answerCell(t.key, o.id)] ?? 0, target }];
    });
    if (!cells.length) continue;
    if (t.othersQuota != null) cells.push({ optionId: null, label: "Other answers", completes: othersCompletes(q, t, quota), target: t.othersQuota });
    out.push({ key: t.key, question: q.title || q.text, cells });
  }
  for (const x of def.crossed ?? []) {
    const [qa, qb] = x.keys.map((k) => def.demographics.find((q) => q.key === k));
    if (!qa || !qb) continue;
    const text = (q: DefQuestion, id: number) => q.options.find((o) => o.id === id)?.text ?? String(id);
    out.push({
      key: crossingKeyOf(x),
      question: `${qa.title || qa.text} × ${qb.title || qb.text}`,
      cells: x.cells.map((c) => ({
        optionId: null,
        optionIds: [...c.optionIds],
        label: `${text(qa, c.optionIds[0])} × ${text(qb, c.optionIds[1])}`,
        completes: quota.completesByAnswer[crossedCell(x.keys, c.optionIds)] ?? 0,
        target: c.cap,
      })),
    });
  }
  return out;
}

/** A seeded generator (mulberry32): the same seed, the same respondent. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A stable 32-bit hash of a string (FNV-1a). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
