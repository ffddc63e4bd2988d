// Crossed (interlocked) quota cells in the web editor (docs/decisions/0128-crossed-quota-cells.md,
// "Crossed cells in the web editor"): two demographic questions of a market crossed, a share per
// pair of answers. The stored cells (CrossedQuotaCells) grouped into crossings as the API groups
// them (the question with the lower id first, a cell's key its two answers in that order), the grid
// a crossing is edited in (rows and columns: each question's targeted answers there, else all of
// them), the words at the field for its shares, and ChangeTargets' crossedQuotas after one
// crossing's save: the whole list, every other crossing and market as stored.
import type { Row, Schemas } from "../api/client";
import { parseShare, type MarketGroup } from "./quotas";

export type StoredCrossedCell = Row<"CrossedQuotaCells", "regionId" | "firstOptionId" | "secondOptionId" | "quotaPercent">;
export type CrossedBody = NonNullable<Schemas["ChangeTargets"]["crossedQuotas"]>[number];
type TargetQuestion = Schemas["TargetQuestion"];

/** A crossing of one market: its two questions (SystemQuestion ids, the lower first) and its cells' shares by cellKey. */
export interface StoredCrossing {
  regionId: number;
  questionIds: [number, number];
  shares: Map<string, number>;
}

/** A cell's key: its two answers (SystemQuestionOption ids), the lower question's first: "4500001&5100001". */
export const cellKey = (firstOptionId: number, secondOptionId: number) => `${firstOptionId}&${secondOptionId}`;
/** A crossing's key as the API's explanation names it: "s45&s51". */
export const crossingKey = (questionIds: readonly [number, number]) => `s${questionIds[0]}&s${questionIds[1]}`;
/** Two questions in the API's order: the lower id first. */
export const ordered = (a: number, b: number): [number, number] => (a < b ? [a, b] : [b, a]);

/** The demographic questions (the only ones that cross: they have census margins). */
export const demographics = (questions: readonly TargetQuestion[]) => questions.filter((q) => q.source === "system");

/** The question an answer belongs to, among the project's target questions. */
function questionOf(questions: readonly TargetQuestion[], optionId: number): number | null {
  return demographics(questions).find((q) => q.options.some((o) => o.systemQuestionOptionId === optionId))?.id ?? null;
}

/** The stored cells of one market, grouped by crossing in the order their first cells come. */
export function crossingsIn(questions: readonly TargetQuestion[], stored: readonly StoredCrossedCell[], regionId: number): StoredCrossing[] {
  const out = new Map<string, StoredCrossing>();
  for (const c of stored) {
    if (c.regionId !== regionId) continue;
    const a = questionOf(questions, c.firstOptionId);
    const b = questionOf(questions, c.secondOptionId);
    if (a === null || b === null) continue;
    const questionIds = ordered(a, b);
    const x = out.get(crossingKey(questionIds)) ?? { regionId, questionIds, shares: new Map<string, number>() };
    x.shares.set(cellKey(c.firstOptionId, c.secondOptionId), c.quotaPercent);
    out.set(crossingKey(questionIds), x);
  }
  return [...out.values()];
}

/** An answer on a side of the grid. */
export interface GridAnswer {
  optionId: number;
  label: string;
}

/**
 * A question's answers on a side of the grid in a market: those its targets take there (the cells
 * lie within them), else every answer of the market; answers with a stored cell are kept in view.
 */
export function gridAnswers(q: TargetQuestion, group: MarketGroup | undefined, regionId: number, keep: readonly number[] = []): GridAnswer[] {
  const here = q.options.flatMap((o) => (o.systemQuestionOptionId !== null && (o.regionId === null || o.regionId === regionId) ? [{ optionId: o.systemQuestionOptionId, label: o.answerLabel }] : []));
  const targeted = new Set(group?.entries.map((e) => e.option) ?? []);
  if (!targeted.size) return here;
  return here.filter((o) => targeted.has(`s${o.optionId}`) || keep.includes(o.optionId));
}

/**
 * The words at the field for a crossing's shares, or null when they can be saved: each a number
 * above 0 up to 100 with at most two decimals, and together 100% (compared in hundredths, as the
 * API compares them), or all empty to remove the crossing.
 */
export function crossedError(texts: readonly string[]): string | null {
  const parsed = texts.map(parseShare);
  if (parsed.some((p) => p === "invalid")) return "Enter each share as a percentage above 0 and up to 100 (at most two decimals), or leave it empty.";
  const given = parsed.filter((p): p is number => typeof p === "number");
  if (!given.length) return null;
  const sum = given.reduce((s, p) => s + Math.round(p * 100), 0);
  return sum === 10000 ? null : `The crossed cells add up to ${(sum / 100).toString()}%: they must add up to 100%, or be left empty for no crossed quota.`;
}

/** The total of the shares typed, in percent (hundredths added, so 33.33 + 66.67 is 100). */
export const totalOf = (texts: readonly string[]) => texts.map(parseShare).reduce<number>((s, p) => s + (typeof p === "number" ? Math.round(p * 100) : 0), 0) / 100;

/**
 * ChangeTargets' crossedQuotas after one crossing of a market is saved: every stored cell of the
 * other crossings and markets as it is, the crossing's former cells (`replaced`: its questions
 * before the save, null for a new one) and any cells of the two questions now crossed there
 * replaced by `cells`, the market's (none: the crossing is removed).
 */
export function crossedBody(
  questions: readonly TargetQuestion[],
  stored: readonly StoredCrossedCell[],
  regionId: number,
  replaced: readonly [number, number] | null,
  now: readonly [number, number],
  cells: readonly CrossedBody[],
): CrossedBody[] {
  const gone = new Set([...(replaced ? [crossingKey(replaced)] : []), crossingKey(ordered(now[0], now[1]))]);
  const kept = stored.filter((c) => {
    if (c.regionId !== regionId) return true;
    const a = questionOf(questions, c.firstOptionId);
    const b = questionOf(questions, c.secondOptionId);
    return a === null || b === null || !gone.has(crossingKey(ordered(a, b)));
  });
  return [...kept.map((c): CrossedBody => ({ regionId: c.regionId, systemQuestionOptionIds: [c.firstOptionId, c.secondOptionId], quotaPercent: c.quotaPercent })), ...cells];
}

/** Whether a question is crossed in a market, and with which question (for the one-question form's note). */
export function crossedWith(crossings: readonly StoredCrossing[], q: Pick<TargetQuestion, "source" | "id">): number | null {
  if (q.source !== "system") return null;
  const x = crossings.find((c) => c.questionIds.includes(q.id));
  return x ? (x.questionIds[0] === q.id ? x.questionIds[1] : x.questionIds[0]) : null;
}
