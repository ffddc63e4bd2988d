// Quota cells in the web editor (docs/decisions.md "Quotas in the web editor"): a project's targets
// as the editor edits them, per target question and market, and back into one ChangeTargets body.
// Every save of the markets tab sends the whole set through targetsBody, so ticking an answer,
// adding a market or changing the completes keeps each market's quotas as they are stored.
import type { Row, Schemas } from "../api/client";

export type StoredTarget = Row<"Targets", "id" | "regionId" | "systemQuestionOptionId" | "questionOptionId" | "quotaPercent" | "onlyThese">;
type TargetQuestion = Schemas["TargetQuestion"];
type TargetOption = TargetQuestion["options"][number];
export type TargetBody = Schemas["ChangeTargets"]["targets"][number];

/** An answer's key: s{systemQuestionOptionId} or q{questionOptionId}. */
export const optionKey = (o: { systemQuestionOptionId?: number | null; questionOptionId?: number | null }) =>
  o.systemQuestionOptionId != null ? `s${o.systemQuestionOptionId}` : `q${o.questionOptionId}`;
/** A question's key, as the API's quota groups name it: s{systemQuestionId} or q{questionId}. */
export const questionKey = (q: Pick<TargetQuestion, "source" | "id">) => `${q.source === "system" ? "s" : "q"}${q.id}`;

export interface Entry {
  option: string;
  quotaPercent: number | null;
}
/** A question's targets in one market: the answers that qualify, with their quota shares. */
export interface MarketGroup {
  entries: Entry[];
  onlyThese: boolean;
}
/** questionKey -> regionId -> the group there. */
export type TargetModel = Map<string, Map<number, MarketGroup>>;

/** Whether an answer can be targeted in a market (demographic answers of one market only there). */
const appliesIn = (o: TargetOption, regionId: number) => o.regionId === null || o.regionId === regionId;

/** The stored targets, spread over the project's markets (a target of every market is in each). */
export function modelOf(questions: readonly TargetQuestion[], stored: readonly StoredTarget[], regionIds: readonly number[]): TargetModel {
  const model: TargetModel = new Map();
  for (const q of questions) {
    const byRegion = new Map<number, MarketGroup>();
    for (const t of stored) {
      const o = q.options.find((x) => optionKey(x) === optionKey(t));
      if (!o) continue;
      for (const r of t.regionId !== null ? [t.regionId] : regionIds.filter((r) => appliesIn(o, r))) {
        const g = byRegion.get(r) ?? { entries: [], onlyThese: false };
        if (!g.entries.some((e) => e.option === optionKey(t))) g.entries.push({ option: optionKey(t), quotaPercent: t.quotaPercent });
        g.onlyThese ||= t.onlyThese;
        byRegion.set(r, g);
      }
    }
    model.set(questionKey(q), byRegion);
  }
  return model;
}

const hasQuota = (g: MarketGroup | undefined) => !!g?.entries.some((e) => e.quotaPercent !== null);

/** The markets where a question's quotas decide who qualifies (its ticks apply in the others). */
export function quotaMarkets(model: TargetModel, q: Pick<TargetQuestion, "source" | "id">): number[] {
  return [...(model.get(questionKey(q))?.entries() ?? [])].filter(([, g]) => hasQuota(g)).map(([r]) => r);
}

/** An answer ticked on or off: in every market where it applies and its question has no quotas. */
export function toggled(model: TargetModel, q: TargetQuestion, o: TargetOption, on: boolean, regionIds: readonly number[]): TargetModel {
  const next: TargetModel = new Map(model);
  const byRegion = new Map(model.get(questionKey(q)) ?? []);
  for (const r of regionIds.filter((r) => appliesIn(o, r))) {
    const g = byRegion.get(r) ?? { entries: [], onlyThese: false };
    if (hasQuota(g)) continue;
    const entries = g.entries.filter((e) => e.option !== optionKey(o));
    byRegion.set(r, { entries: on ? [...entries, { option: optionKey(o), quotaPercent: null }] : entries, onlyThese: false });
  }
  next.set(questionKey(q), byRegion);
  return next;
}

/**
 * A question's quota cells in one market set from the editor: shares per answer (percent, adding up
 * to 100) make those answers the only ones that qualify there; no shares removes the question's
 * targets in that market (everyone qualifies on it, or tick answers to screen).
 */
export function withQuotas(model: TargetModel, q: Pick<TargetQuestion, "source" | "id">, regionId: number, shares: ReadonlyMap<string, number>): TargetModel {
  const next: TargetModel = new Map(model);
  const byRegion = new Map(model.get(questionKey(q)) ?? []);
  if (!shares.size) byRegion.delete(regionId);
  else byRegion.set(regionId, { entries: [...shares].map(([option, quotaPercent]) => ({ option, quotaPercent })), onlyThese: true });
  next.set(questionKey(q), byRegion);
  return next;
}

const idOf = (option: string): Pick<TargetBody, "systemQuestionOptionId" | "questionOptionId"> =>
  option.startsWith("s") ? { systemQuestionOptionId: Number(option.slice(1)) } : { questionOptionId: Number(option.slice(1)) };

/**
 * The ChangeTargets body of the model: every field explicit (the model is the whole truth). A
 * question without quotas whose answers are the same in every market is sent once for every
 * market (as the editor always did); otherwise one target per market.
 */
export function targetsBody(questions: readonly TargetQuestion[], model: TargetModel, regionIds: readonly number[]): TargetBody[] {
  const out: TargetBody[] = [];
  for (const q of questions) {
    const byRegion = model.get(questionKey(q)) ?? new Map<number, MarketGroup>();
    const anyQuota = [...byRegion.values()].some(hasQuota);
    const sets = regionIds.map((r) => {
      const here = byRegion.get(r)?.entries.map((e) => e.option) ?? [];
      // Answers of every market; an answer of one market is compared in its own only.
      return here
        .filter((k) => q.options.find((o) => optionKey(o) === k)?.regionId === null)
        .sort()
        .join(",");
    });
    const uniform = !anyQuota && sets.every((s) => s === sets[0]);
    if (uniform) {
      const keys = new Set([...byRegion.values()].flatMap((g) => g.entries.map((e) => e.option)));
      for (const k of keys) out.push({ ...idOf(k), quotaPercent: null, onlyThese: false });
      continue;
    }
    for (const r of regionIds) {
      const g = byRegion.get(r);
      for (const e of g?.entries ?? []) out.push({ ...idOf(e.option), regionId: r, quotaPercent: e.quotaPercent, onlyThese: g!.onlyThese });
    }
  }
  return out;
}

/** A share as typed: a number above 0 and at most 100 with at most two decimals (numeric(5,2)). */
export function parseShare(text: string): number | null | "invalid" {
  const t = text.trim();
  if (t === "") return null;
  if (!/^\d{1,3}(\.\d{1,2})?$/.test(t)) return "invalid";
  const n = Number(t);
  return n > 0 && n <= 100 ? n : "invalid";
}

/**
 * The words at the field for a question's shares in one market, or null when they can be saved:
 * each share a number above 0 up to 100, and together 100% (compared in hundredths, so 33.33 +
 * 66.67 is 100), or all empty for no quota.
 */
export function sharesError(texts: readonly string[]): string | null {
  const parsed = texts.map(parseShare);
  if (parsed.some((p) => p === "invalid")) return "Enter each share as a percentage above 0 and up to 100 (at most two decimals), or leave it empty.";
  const given = parsed.filter((p): p is number => typeof p === "number");
  if (!given.length) return null;
  const sum = given.reduce((s, p) => s + Math.round(p * 100), 0);
  return sum === 10000 ? null : `The shares add up to ${(sum / 100).toString()}%: they must add up to 100%, or be left empty for no quota.`;
}
