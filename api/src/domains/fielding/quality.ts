// Respondent quality before weighting (docs/decisions.md "Respondent quality"). Pure: a complete
// respondent is checked the moment they finish, and a flagged one is excluded (status Removed,
// end reason "quality", the flags kept) so the quota stays open and another respondent replaces
// them. The checks are the usual data-cleaning rules of online panels (Greszki, Meyer and Schoen
// 2015 on speeding; Kim et al. 2019 on straight-lining; Meade and Craig 2012 on instructed items;
// Pew Research Center 2020 on bogus respondents):
// - speeder: interview length under a third of the run's median length (once 10 completes give a
//   median);
// - straight-liner: the same answer on every item of the 4-point scale grids, at least 5 items (a
//   single concept's grid: 6 let a one-concept test never flag one);
// - attention: failed the instructed-response item (screened out there: engine.ts);
// - duplicate: the same device fingerprint as a complete already in the run, or (judged on the
//   server, issue 36) the same network address AND the same user agent as a complete already in
//   the run: an address alone never flags (an office or a mobile carrier puts many people behind
//   one address). Only a keyed hash of the two is kept (networkKey, docs/decisions/0129). The same
//   supplier rid cannot enter twice at all: suppliers.ts;
// - gibberish / pasted: an open answer the text check (analytics/text-qa.ts) calls Gibberish, or
//   the same text pasted into several questions (its Duplicate).
import { createHmac } from "node:crypto";
import { textQa } from "@ideally/analytics/text-qa";
import { answerKey, type Answers, type SurveyDefinition } from "./engine.ts";

export const QUALITY_REASONS = ["speeder", "straightliner", "attention", "duplicate", "gibberish", "pasted"] as const;
export type QualityFlag = (typeof QUALITY_REASONS)[number];

/** A speeder takes less than this share of the run's median length. */
export const SPEEDER_SHARE = 1 / 3;
/** Completes needed before the run's median length is trusted. */
export const MEDIAN_MIN_COMPLETES = 10;
/** Scale-grid items needed before identical answers count as straight-lining. */
export const STRAIGHTLINE_MIN_ITEMS = 5;

export function median(xs: readonly number[]): number | null {
  if (!xs.length) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** The run's median length, or null while it has fewer than MEDIAN_MIN_COMPLETES completes. */
export function runMedian(lengths: readonly number[]): number | null {
  return lengths.length >= MEDIAN_MIN_COMPLETES ? median(lengths) : null;
}

export interface QualityInput {
  answers: Answers;
  testOptionOrder: readonly number[];
  /** Seconds from start to complete. */
  lengthSeconds: number;
  /** The run's median length so far (null: too few completes to tell). */
  medianSeconds: number | null;
  /** Another complete of the run came from this device (the fingerprint its page sent). */
  duplicateDevice: boolean;
  /** Another complete of the run entered from this address with this user agent (networkKey, as the server saw them). */
  duplicateNetwork?: boolean;
}

/** An address as compared: lower case, an IPv4 address seen as IPv4-mapped IPv6 (::ffff:a.b.c.d) as IPv4. */
export function normalAddress(address: string): string {
  const a = address.trim().toLowerCase();
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(a);
  return mapped ? mapped[1]! : a;
}

/**
 * The entry's network signal: HMAC-SHA256 under the run's own key of the address (as the server
 * saw it) and the user agent, hex; null without either (no signal, never a match). The run's key
 * makes two runs' values unlinkable; the address itself is never stored.
 */
export function networkKey(runKey: string, address: string | null | undefined, userAgent: string | null | undefined): string | null {
  if (!address || !userAgent) return null;
  return createHmac("sha256", runKey)
    .update(`${normalAddress(address)}\n${userAgent}`)
    .digest("hex");
}

export function qualityFlags(def: SurveyDefinition, r: QualityInput): QualityFlag[] {
  const flags: QualityFlag[] = [];
  if (r.medianSeconds !== null && r.lengthSeconds < r.medianSeconds * SPEEDER_SHARE) flags.push("speeder");
  // The scale grids: every single-choice loop item on the 4-point scale, per test option seen.
  const values: number[] = [];
  for (const t of r.testOptionOrder) {
    for (const q of def.loop) {
      if (q.type !== "single" || (q.testOptionId !== null && q.testOptionId !== t)) continue;
      const v = r.answers[answerKey(q, t)];
      const o = typeof v === "number" ? q.options.find((x) => x.id === v) : undefined;
      if (o && o.standardAnswerValue !== null) values.push(o.standardAnswerValue);
    }
  }
  if (values.length >= STRAIGHTLINE_MIN_ITEMS && values.every((v) => v === values[0])) flags.push("straightliner");
  if (r.duplicateDevice || r.duplicateNetwork) flags.push("duplicate");
  const texts: { id: number; respondent: number; text: string }[] = [];
  const asked = [...def.screener.map((q) => [q, null] as const), ...r.testOptionOrder.flatMap((t) => def.loop.map((q) => [q, t] as const)), ...def.followUps.map((q) => [q, null] as const)];
  for (const [q, t] of asked) {
    if (q.type !== "text") continue;
    const v = r.answers[answerKey(q, t)];
    if (typeof v === "string") texts.push({ id: texts.length + 1, respondent: 1, text: v });
  }
  const qa = [...textQa(texts).values()];
  if (qa.some((x) => x.status === "Gibberish")) flags.push("gibberish");
  if (qa.some((x) => x.status === "Duplicate")) flags.push("pasted");
  return flags;
}
