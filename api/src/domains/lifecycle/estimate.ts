// The incidence estimate and each market's feasibility, from a project's rows or from settings not
// saved anywhere: IncidenceEstimate (incidence.service.ts) stores and publishes it, the
// pre-launch check and Submit read it (readiness.ts), FeasibilityEstimate explains it
// (feasibility.ts). Computed here once; this module needs nothing of the lifecycle service. Method in
// docs/project-lifecycle.md ("Incidence"):
// - a demographic target's share in a region is its census margin (reference data) when there is
//   one, else the share of past respondents in the region who gave that answer, else one over the
//   number of answers the question offers there (a uniform prior); targeted answers of one question
//   add up (capped at 1), questions multiply (treated as independent);
// - a screener's share is the share of past respondents to the question who gave a targeted answer,
//   else the targeted answers over all its answers (uniform prior);
// - a region's incidence is the product of its shares; the project's is total completes over the
//   respondents they need, sum(n_r) / sum(n_r / incidence_r): the share of everyone screened who
//   qualifies.
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import * as q from "./incidence.sql.ts";

export type Basis = "census" | "responses" | "prior" | "mixed" | "noTargets";

export interface Factor {
  kind: "demographic" | "screener";
  /** The system question (demographic) or project question (screener) screened on. */
  systemQuestionId?: number;
  questionId?: number;
  optionIds: number[];
  share: number;
  /** A demographic factor's share per targeted answer (they add up to share, before its cap at 1). */
  optionShares?: { optionId: number; share: number }[];
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
  return { projectId, ...(await estimateRegions(tx, regions, targets, screeners)) };
}

/**
 * The estimate from its inputs (a project's rows, or settings not yet saved: FeasibilityEstimate):
 * the regions with their completes, the demographic targets that screen (a group with quotas and
 * not "only these" screens nobody out), and the screeners' factors.
 */
export async function estimateRegions(tx: Tx, regions: q.RegionSample[], targets: q.DemographicTarget[], screeners: Factor[]): Promise<Omit<IncidenceEstimate, "projectId">> {
  const questionIds = [...new Set(targets.map((t) => t.systemQuestionId))];
  const census = await q.censusShares(tx, [...new Set(targets.map((t) => t.optionId))]);
  const answers = await q.systemAnswerCounts(tx, questionIds, regions.map((r) => r.regionId));
  const optionCounts = await q.systemOptionCounts(tx, questionIds);

  const out: RegionIncidence[] = regions.map((r) => {
    const factors: Factor[] = [];
    for (const sq of questionIds) {
      const opts = targets.filter(
        (t) => t.systemQuestionId === sq && (t.regionId === null || t.regionId === r.regionId) && (t.optionRegionId === null || t.optionRegionId === r.regionId),
      );
      if (!opts.length) continue;
      const total = answers.find((a) => a.regionId === r.regionId && a.systemQuestionId === sq && a.optionId === null)?.respondents ?? 0;
      const offered = optionCounts
        .filter((c) => c.systemQuestionId === sq && (c.regionId === null || c.regionId === r.regionId))
        .reduce((s, c) => s + c.options, 0);
      const bases: Basis[] = [];
      const optionShares: { optionId: number; share: number }[] = [];
      for (const o of [...new Set(opts.map((t) => t.optionId))]) {
        const c = census.find((x) => x.regionId === r.regionId && x.optionId === o);
        if (c) {
          optionShares.push({ optionId: o, share: c.share });
          bases.push("census");
        } else if (total > 0) {
          optionShares.push({ optionId: o, share: (answers.find((a) => a.regionId === r.regionId && a.systemQuestionId === sq && a.optionId === o)?.respondents ?? 0) / total });
          bases.push("responses");
        } else {
          optionShares.push({ optionId: o, share: 1 / Math.max(1, offered) });
          bases.push("prior");
        }
      }
      const share = optionShares.reduce((s, o) => s + o.share, 0);
      factors.push({ kind: "demographic", systemQuestionId: sq, optionIds: optionShares.map((o) => o.optionId), share: Math.min(1, share), optionShares, basis: combineBasis(bases) });
    }
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
  return r.feasible
    ? `${need}: ${basis}. Feasible.`
    : `${need}: ${basis}. Not feasible: lower the completes to ${num(r.feasibleCompletes)} or fewer, or target less narrowly.`;
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
  return markets
    .map((m, i) => `about ${num(m.feasibleCompletes)} of ${num(m.sampleSize)}${i === 0 ? " completes can be delivered" : ""} in ${m.regionName}`)
    .join("; ");
}
