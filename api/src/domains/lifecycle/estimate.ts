// The incidence estimate and each market's feasibility, from a project's rows or from settings not
// saved anywhere: IncidenceEstimate (incidence.service.ts) stores and publishes it, the
// pre-launch check and Submit read it (readiness.ts), FeasibilityEstimate explains it
// (feasibility.ts). Computed here once; this module needs nothing of the lifecycle service. Method in
// docs/project-lifecycle.md ("Incidence"):
// - a demographic target's share in a region is its census margin (reference data) when there is
//   one, else the share of past respondents in the region who gave that answer, else one over the
//   number of answers the question offers there (a uniform prior); targeted answers of one question
//   add up (capped at 1), questions multiply (treated as independent);
// - two crossed questions of a market (crossed quota cells, fielding/crossed.ts) are one factor: each
//   cell's share is the product of its two answers' shares, the factor's share their sum;
// - a screener's share is the share of past respondents to the question who gave a targeted answer,
//   else the targeted answers over all its answers (uniform prior);
// - a region's incidence is the product of its shares; the project's is total completes over the
//   respondents they need, sum(n_r) / sum(n_r / incidence_r): the share of everyone screened who
//   qualifies.
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import * as q from "./incidence.sql.ts";
import { crossingsIn, loadCrossedCells, type CrossedCell, type Crossing } from "../fielding/crossed.ts";

export type Basis = "census" | "responses" | "prior" | "mixed" | "noTargets";

export interface Factor {
  kind: "demographic" | "screener" | "crossed";
  /** The system question (demographic) or project question (screener) screened on. */
  systemQuestionId?: number;
  questionId?: number;
  optionIds: number[];
  share: number;
  /** A demographic factor's share per targeted answer (they add up to share, before its cap at 1). */
  optionShares?: { optionId: number; share: number }[];
  /** A crossed factor's two questions (the lower id first) and each cell's share (they add up to share). */
  systemQuestionIds?: number[];
  cellShares?: { optionIds: number[]; share: number }[];
  basis: Basis;
}

export interface RegionIncidence {
  regionId: number;
  regionName: string;
  sampleSize: number;
  incidence: number;
  factors: Factor[];
  /** Panellists the Ideally panel reaches in the market in one field period (null: the team's own list). */
  panelReach: number | null;
  /** floor(panelReach x incidence): the completes the market can deliver (null: unknown). */
  feasibleCompletes: number | null;
  /** sampleSize <= feasibleCompletes (null: unknown, a customer panel). */
  feasible: boolean | null;
}

/**
 * Panellists of the Ideally panel (its outside suppliers together) who take a survey in a market in
 * one field period: our planning figures, not the spec's (docs/decisions.md "Feasibility").
 */
export const PANEL_REACH: Readonly<Record<number, number>> = {
  1: 6000, // New Zealand
  2: 25000, // Australia
  15: 120000, // USA
  17: 5000, // Singapore
  999999: 20000, // Other markets
};
/** A US state (56-104) or any market not listed. */
export const OTHER_PANEL_REACH = 3000;

export function feasibility(sampleSize: number, incidence: number, isCustomerPanel: boolean, regionId: number): Pick<RegionIncidence, "panelReach" | "feasibleCompletes" | "feasible"> {
  if (isCustomerPanel) return { panelReach: null, feasibleCompletes: null, feasible: null };
  const reach = PANEL_REACH[regionId] ?? OTHER_PANEL_REACH;
  const completes = Math.floor(reach * incidence);
  return { panelReach: reach, feasibleCompletes: completes, feasible: sampleSize <= completes };
}

export interface IncidenceEstimate {
  projectId: number;
  incidenceEstimate: number;
  regions: RegionIncidence[];
}

/** The stored estimate's bounds: numeric(5,4) above 0. */
const MIN_INCIDENCE = 0.0001;
export const round4 = (x: number) => Math.round(x * 10000) / 10000;
const clamp = (x: number) => Math.min(1, Math.max(MIN_INCIDENCE, round4(x)));

function combineBasis(bases: Basis[]): Basis {
  const u = [...new Set(bases)];
  return u.length === 1 ? u[0]! : "mixed";
}

async function screenerFactors(tx: Tx, projectId: number): Promise<Factor[]> {
  const out: Factor[] = [];
  for (const sq of await q.screenerQuestions(tx, projectId)) {
    if (!sq.targetedOptionIds.length) continue; // asked, but nobody is screened out on it
    const counts = await q.questionAnswerCounts(tx, sq.questionId, sq.targetedOptionIds);
    const share = counts.answered > 0 ? counts.qualified / counts.answered : sq.targetedOptionIds.length / Math.max(1, sq.options);
    out.push({
      kind: "screener",
      questionId: sq.questionId,
      optionIds: sq.targetedOptionIds,
      share: Math.min(1, share),
      basis: counts.answered > 0 ? "responses" : "prior",
    });
  }
  return out;
}

export async function estimateIn(tx: Tx, projectId: number): Promise<IncidenceEstimate> {
  const regions = await q.regionsOf(tx, projectId);
  if (!regions.length) throw new ApiError("Conflict", `Project ${projectId} has no regions: its incidence depends on where it fields`);
  const targets = await q.demographicTargets(tx, projectId);
  const screeners = await screenerFactors(tx, projectId);
  return { projectId, ...(await estimateRegions(tx, regions, targets, screeners, await loadCrossedCells(tx, projectId))) };
}

/**
 * A crossing's factor: each cell's share is the product of its two answers' shares (the questions
 * independent, as the estimate has them everywhere), and the crossing qualifies their sum.
 */
function crossedFactor(x: Crossing, shareOf: (sq: number, o: number) => { share: number; basis: Basis }): Factor {
  const bases: Basis[] = [];
  const cellShares = x.cells.map((c) => {
    const a = shareOf(c.firstQuestionId, c.firstOptionId);
    const b = shareOf(c.secondQuestionId, c.secondOptionId);
    bases.push(a.basis, b.basis);
    return { optionIds: [c.firstOptionId, c.secondOptionId], share: a.share * b.share };
  });
  return {
    kind: "crossed",
    systemQuestionIds: [x.firstQuestionId, x.secondQuestionId],
    optionIds: [...new Set(x.cells.flatMap((c) => [c.firstOptionId, c.secondOptionId]))],
    share: Math.min(
      1,
      cellShares.reduce((s, c) => s + c.share, 0),
    ),
    cellShares,
    basis: combineBasis(bases),
  };
}

/**
 * The estimate from its inputs (a project's rows, or settings not yet saved: FeasibilityEstimate):
 * the regions with their completes, the demographic targets that screen (a group with quotas and
 * not "only these" screens nobody out), the screeners' factors and the crossed quota cells (a
 * crossing's factor takes the place of its two questions' in its market).
 */
export async function estimateRegions(
  tx: Tx,
  regions: q.RegionSample[],
  targets: q.DemographicTarget[],
  screeners: Factor[],
  crossed: readonly CrossedCell[] = [],
): Promise<Omit<IncidenceEstimate, "projectId">> {
  const questionIds = [...new Set([...targets.map((t) => t.systemQuestionId), ...crossed.flatMap((c) => [c.firstQuestionId, c.secondQuestionId])])];
  const census = await q.censusShares(tx, [...new Set([...targets.map((t) => t.optionId), ...crossed.flatMap((c) => [c.firstOptionId, c.secondOptionId])])]);
  const answers = await q.systemAnswerCounts(
    tx,
    questionIds,
    regions.map((r) => r.regionId),
  );
  const optionCounts = await q.systemOptionCounts(tx, questionIds);

  const out: RegionIncidence[] = regions.map((r) => {
    /** An answer's share in the market: its census margin, else past answers' share, else the uniform prior. */
    const shareOf = (sq: number, o: number): { share: number; basis: Basis } => {
      const c = census.find((x) => x.regionId === r.regionId && x.optionId === o);
      if (c) return { share: c.share, basis: "census" };
      const total = answers.find((a) => a.regionId === r.regionId && a.systemQuestionId === sq && a.optionId === null)?.respondents ?? 0;
      if (total > 0) return { share: (answers.find((a) => a.regionId === r.regionId && a.systemQuestionId === sq && a.optionId === o)?.respondents ?? 0) / total, basis: "responses" };
      const offered = optionCounts.filter((x) => x.systemQuestionId === sq && (x.regionId === null || x.regionId === r.regionId)).reduce((s, x) => s + x.options, 0);
      return { share: 1 / Math.max(1, offered), basis: "prior" };
    };
    const crossings = crossingsIn(crossed, r.regionId);
    const isCrossed = (sq: number) => crossings.some((x) => x.firstQuestionId === sq || x.secondQuestionId === sq);
    const factors: Factor[] = [];
    for (const sq of questionIds) {
      // A crossed question is screened by its crossing's cells (they lie within its targets).
      if (isCrossed(sq)) continue;
      const opts = targets.filter((t) => t.systemQuestionId === sq && (t.regionId === null || t.regionId === r.regionId) && (t.optionRegionId === null || t.optionRegionId === r.regionId));
      if (!opts.length) continue;
      const each = [...new Set(opts.map((t) => t.optionId))].map((o) => ({ optionId: o, ...shareOf(sq, o) }));
      const optionShares = each.map(({ optionId, share }) => ({ optionId, share }));
      const share = optionShares.reduce((s, o) => s + o.share, 0);
      factors.push({
        kind: "demographic",
        systemQuestionId: sq,
        optionIds: optionShares.map((o) => o.optionId),
        share: Math.min(1, share),
        optionShares,
        basis: combineBasis(each.map((e) => e.basis)),
      });
    }
    factors.push(...crossings.map((x) => crossedFactor(x, shareOf)));
    factors.push(...screeners);
    const incidence = factors.reduce((p, f) => p * f.share, 1);
    const inc = clamp(incidence);
    return { regionId: r.regionId, regionName: r.regionName, sampleSize: r.sampleSize, incidence: inc, factors, ...feasibility(r.sampleSize, inc, r.isCustomerPanel, r.regionId) };
  });
  const completes = out.reduce((s, r) => s + r.sampleSize, 0);
  const screened = out.reduce((s, r) => s + r.sampleSize / r.incidence, 0);
  return { incidenceEstimate: clamp(completes / screened), regions: out };
}

const num = (n: number) => n.toLocaleString("en");
const share = (x: number) => `${Number((x * 100).toFixed(x < 0.1 ? 1 : 0)).toString()}%`;

/** A market in words: its completes, the panel's reach there, the incidence and the completes it can deliver. */
export function marketText(r: RegionIncidence): string {
  const need = `${r.regionName}: ${num(r.sampleSize)} completes`;
  if (r.panelReach === null || r.feasibleCompletes === null) return `${need} from the team's own list (customer panel): the panel's reach does not apply.`;
  const basis = `the panel reaches about ${num(r.panelReach)} people there in a field period and ${share(r.incidence)} are expected to qualify, so about ${num(r.feasibleCompletes)} completes can be delivered`;
  return r.feasible ? `${need}: ${basis}. Feasible.` : `${need}: ${basis}. Not feasible: lower the completes to ${num(r.feasibleCompletes)} or fewer, or target less narrowly.`;
}

/** A market the panel cannot fill in one field period: the completes ordered and those it can deliver. */
export interface MarketShortfall {
  regionId: number;
  regionName: string;
  sampleSize: number;
  feasibleCompletes: number;
  /** marketText: the same words as the markets tab. */
  text: string;
}

/** The markets of an estimate that are known to fall short (a customer panel's reach is unknown: never). */
export function shortfallsOf(regions: readonly RegionIncidence[]): MarketShortfall[] {
  return regions.flatMap((r) =>
    r.feasible === false && r.feasibleCompletes !== null
      ? [{ regionId: r.regionId, regionName: r.regionName, sampleSize: r.sampleSize, feasibleCompletes: r.feasibleCompletes, text: marketText(r) }]
      : [],
  );
}

/** "about 2 of 5,000 completes can be delivered in New Zealand; about 40 of 5,000 in Australia" */
export function shortfallWords(markets: readonly MarketShortfall[]): string {
  return markets.map((m, i) => `about ${num(m.feasibleCompletes)} of ${num(m.sampleSize)}${i === 0 ? " completes can be delivered" : ""} in ${m.regionName}`).join("; ");
}
