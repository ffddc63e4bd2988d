// The feasibility and quota explanation (issue 21): per market, whether the panel can deliver the
// completes (its reach in a field period x the incidence; estimate.ts), per target group and market
// what its quotas mean (quotas.ts), and per crossing of two questions its cells (crossed.ts), each
// cell's needs against what the market can deliver in it, in words. Pure but for explainProject's
// reads; feasibility.ts publishes it (IncidenceEstimate, FeasibilityEstimate) and readiness.ts reads
// the cells that fall short for Submit's 409.
import type { Tx } from "../../db/client.ts";
import { cellCap, groupOptions, hundredths, loadQuotaTargets, pct, quotaProblems, type GroupOption, type QuotaTarget } from "../fielding/quotas.ts";
import { cellLabel, crossedProblems, crossingsIn, loadCrossedCells, type CrossedCell, type Crossing } from "../fielding/crossed.ts";
import { marketText, type IncidenceEstimate, type RegionIncidence } from "./estimate.ts";

export interface MarketFeasibility {
  regionId: number;
  regionName: string;
  sampleSize: number;
  feasible: boolean | null;
  text: string;
}

/** One answer of a group in a market; with a quota, a cell: the completes it needs and can get. */
export interface QuotaCellFeasibility {
  optionId: number;
  label: string;
  quotaPercent: number | null;
  /** The cell's cap in a run of the market's completes (null: no quota). */
  needed: number | null;
  /**
   * The completes the panel can deliver in the cell in a field period: the market's deliverable
   * completes x the answer's share of the group's qualifying answers (the incidence estimate's
   * factor). Null where the estimate has no share for it: no quota, a customer panel, a screener
   * question, or a group open to its other answers (it screens nobody, so it is no factor).
   */
  deliverable: number | null;
  feasible: boolean | null;
}

export interface QuotaGroupExplanation {
  groupKey: string;
  groupName: string;
  regionId: number;
  regionName: string;
  answers: QuotaCellFeasibility[];
  /** The quotas' sum in percent (null: no quotas, the targets only say who qualifies). */
  totalPercent: number | null;
  onlyThese: boolean;
  /** false: no run can fill it (refused at ChangeTargets and Submit). */
  ok: boolean;
  text: string;
}

/** A crossed cell of a market: its pair of answers, the completes it needs and can get. */
export interface CrossedCellFeasibility {
  optionIds: number[];
  /** "Male × 18-24" */
  label: string;
  quotaPercent: number;
  needed: number;
  /** floor(the market's feasibleCompletes × the cell's share ÷ the crossing's share), from the estimate's crossed factor (null: a customer panel). */
  deliverable: number | null;
  feasible: boolean | null;
}

export interface CrossedGroupExplanation {
  /** s{first question}&s{second question} */
  key: string;
  /** "Gender × Age group" */
  name: string;
  regionId: number;
  regionName: string;
  cells: CrossedCellFeasibility[];
  totalPercent: number;
  /** false: no run can fill it (refused at ChangeTargets and Submit). */
  ok: boolean;
  text: string;
}

/** A quota cell (of one question, or crossed) that the panel cannot fill in a field period. */
export interface CellShortfall {
  regionId: number;
  regionName: string;
  label: string;
  needed: number;
  deliverable: number;
  /** "New Zealand: the quota cell Male × 18-24 needs 344 completes and about 343 can be delivered." */
  text: string;
}

export interface FeasibilityExplanation {
  /** Every group's quotas can be met and no market is known to fall short. */
  feasible: boolean;
  quotasOk: boolean;
  markets: MarketFeasibility[];
  groups: QuotaGroupExplanation[];
  crossed: CrossedGroupExplanation[];
  /** The markets', the groups' then the crossings' texts, in order: what the editor and the CLI print. */
  lines: string[];
}

const num = (n: number) => n.toLocaleString("en");

/** The cells' needs against what the market's estimate can deliver in them (QuotaCellFeasibility). */
function cells(r: RegionIncidence, groupKey: string, answers: { optionId: number; label: string; quotaPercent: number | null }[]): QuotaCellFeasibility[] {
  const factor = groupKey.startsWith("s") ? r.factors.find((f) => f.kind === "demographic" && f.systemQuestionId === Number(groupKey.slice(1))) : undefined;
  return answers.map((a) => {
    if (a.quotaPercent === null) return { ...a, needed: null, deliverable: null, feasible: null };
    const needed = cellCap(r.sampleSize, a.quotaPercent);
    const share = factor?.optionShares?.find((o) => o.optionId === a.optionId)?.share;
    if (r.feasibleCompletes === null || share === undefined || !factor || factor.share <= 0) return { ...a, needed, deliverable: null, feasible: null };
    const deliverable = Math.floor((r.feasibleCompletes * share) / factor.share);
    return { ...a, needed, deliverable, feasible: needed <= deliverable };
  });
}

const list = (xs: string[]) => (xs.length <= 1 ? (xs[0] ?? "") : `${xs.slice(0, -1).join(", ")} or ${xs[xs.length - 1]}`);

export function explainFeasibility(
  regions: readonly RegionIncidence[],
  targets: readonly QuotaTarget[],
  options: readonly GroupOption[],
  crossedCells: readonly CrossedCell[] = [],
): FeasibilityExplanation {
  const markets = regions.map((r) => ({ regionId: r.regionId, regionName: r.regionName, sampleSize: r.sampleSize, feasible: r.feasible, text: marketText(r) }));
  const groups: QuotaGroupExplanation[] = [];
  for (const r of regions) {
    const here = targets.filter((t) => (t.regionId === null || t.regionId === r.regionId) && (t.optionRegionId === null || t.optionRegionId === r.regionId));
    for (const key of [...new Set(here.map((t) => t.groupKey))]) {
      const group = here.filter((t) => t.groupKey === key);
      const name = group[0]!.groupName;
      const at = `${name} in ${r.regionName}`;
      const answers = cells(r, key, [...new Map(group.map((t) => [t.optionId, { optionId: t.optionId, label: t.optionLabel, quotaPercent: t.quotaPercent }])).values()]);
      const onlyThese = group.some((t) => t.onlyThese);
      const capped = answers.filter((a) => a.quotaPercent !== null);
      const base = { groupKey: key, groupName: name, regionId: r.regionId, regionName: r.regionName, answers, onlyThese };
      if (!capped.length) {
        groups.push({ ...base, totalPercent: null, ok: true, text: `${at}: only people answering ${list(answers.map((a) => a.label))} qualify (no quotas).` });
        continue;
      }
      const sum = capped.reduce((s, a) => s + hundredths(a.quotaPercent!), 0);
      const [problem] = quotaProblems(group, options, [{ regionId: r.regionId, regionName: r.regionName }]);
      const totalPercent = sum / 100;
      if (problem) {
        groups.push({ ...base, totalPercent, ok: false, text: `${problem.message}.` });
        continue;
      }
      const shares = capped.map((a) => `${a.label} ${pct(hundredths(a.quotaPercent!))}`).join(", ");
      const uncapped = answers.filter((a) => a.quotaPercent === null).map((a) => `${a.label} (no quota)`);
      const rest = pct(10000 - sum);
      const short = answers.filter((a) => a.feasible === false).map((a) => `${a.label} needs ${num(a.needed!)} completes and about ${num(a.deliverable!)} can be delivered`);
      const text =
        (sum === 10000
          ? `${at}: ${shares}, 100% in all.`
          : onlyThese
            ? `${at}: ${shares}; only these answers qualify, and the other ${rest} goes to ${list(uncapped)}.`
            : `${at}: ${shares}; the other ${rest} is open to ${uncapped.length ? `${list(uncapped)} and ` : ""}the question's other answers.`) +
        (short.length ? ` Not feasible in every cell: ${short.join("; ")}.` : "");
      groups.push({ ...base, totalPercent, ok: true, text });
    }
  }
  const crossed = regions.flatMap((r) => explainCrossings(r, crossedCells, targets));
  const quotasOk = groups.every((g) => g.ok) && crossed.every((x) => x.ok);
  return {
    // A cell the market cannot fill (of one question or crossed) makes the design infeasible as
    // Submit judges it (its 409), though its quotas add up and the market as a whole fits.
    feasible: quotasOk && markets.every((m) => m.feasible !== false) && !cellShortfalls({ groups, crossed }).length,
    quotasOk,
    markets,
    groups,
    crossed,
    lines: [...markets.map((m) => m.text), ...groups.map((g) => g.text), ...crossed.map((x) => x.text)],
  };
}

/** A crossing's cells against the estimate's crossed factor in the market. */
function cellsOfCrossing(r: RegionIncidence, x: Crossing): CrossedCellFeasibility[] {
  const factor = r.factors.find((f) => f.kind === "crossed" && f.systemQuestionIds?.[0] === x.firstQuestionId && f.systemQuestionIds[1] === x.secondQuestionId);
  return x.cells.map((c) => {
    const optionIds = [c.firstOptionId, c.secondOptionId];
    const needed = cellCap(r.sampleSize, c.quotaPercent);
    const share = factor?.cellShares?.find((s) => s.optionIds[0] === optionIds[0] && s.optionIds[1] === optionIds[1])?.share;
    const base = { optionIds, label: cellLabel(c), quotaPercent: c.quotaPercent, needed };
    if (r.feasibleCompletes === null || share === undefined || !factor || factor.share <= 0) return { ...base, deliverable: null, feasible: null };
    const deliverable = Math.floor((r.feasibleCompletes * share) / factor.share);
    return { ...base, deliverable, feasible: needed <= deliverable };
  });
}

function explainCrossings(r: RegionIncidence, all: readonly CrossedCell[], targets: readonly QuotaTarget[]): CrossedGroupExplanation[] {
  const problems = crossedProblems(all, targets, [{ regionId: r.regionId, regionName: r.regionName }]);
  return crossingsIn(all, r.regionId).map((x) => {
    const cells = cellsOfCrossing(r, x);
    const totalPercent = cells.reduce((s, c) => s + hundredths(c.quotaPercent), 0) / 100;
    const base = { key: x.key, name: x.name, regionId: r.regionId, regionName: r.regionName, cells, totalPercent };
    const problem = problems.find((p) => p.groupKey === x.key);
    if (problem) return { ...base, ok: false, text: `${problem.message}.` };
    const shares = cells.map((c) => `${c.label} ${pct(hundredths(c.quotaPercent))}`).join(", ");
    const short = cells.filter((c) => c.feasible === false).map((c) => `${c.label} needs ${num(c.needed)} completes and about ${num(c.deliverable!)} can be delivered`);
    return { ...base, ok: true, text: `${x.name} in ${r.regionName}: ${shares}, 100% in all.${short.length ? ` Not feasible in every cell: ${short.join("; ")}.` : ""}` };
  });
}

/** The quota cells, of one question or crossed, that a market cannot fill (Submit's 409, ReadinessCheck). */
export function cellShortfalls(e: Pick<FeasibilityExplanation, "groups" | "crossed">): CellShortfall[] {
  const cells = [
    ...e.groups.flatMap((g) => g.answers.map((a) => ({ g, label: a.label, needed: a.needed, deliverable: a.deliverable, feasible: a.feasible }))),
    ...e.crossed.flatMap((g) => g.cells.map((c) => ({ g, label: c.label, needed: c.needed, deliverable: c.deliverable, feasible: c.feasible }))),
  ];
  return cells.flatMap(({ g, label, needed, deliverable, feasible }) =>
    feasible === false && needed !== null && deliverable !== null
      ? [
          {
            regionId: g.regionId,
            regionName: g.regionName,
            label,
            needed,
            deliverable,
            text: `${g.regionName}: the quota cell ${label} needs ${num(needed)} completes and about ${num(deliverable)} can be delivered.`,
          },
        ]
      : [],
  );
}

/** "the quota cell Male × 18-24 needs 344 completes and about 343 can be delivered in New Zealand" */
export const cellShortfallWords = (c: CellShortfall) => `the quota cell ${c.label} needs ${num(c.needed)} completes and about ${num(c.deliverable)} can be delivered in ${c.regionName}`;

/** The explanation of a project's saved markets and targets (IncidenceEstimate adds it). */
export async function explainProject(tx: Tx, projectId: number, est: Pick<IncidenceEstimate, "regions">): Promise<FeasibilityExplanation> {
  const targets = await loadQuotaTargets(tx, projectId);
  return explainFeasibility(est.regions, targets, targets.length ? await groupOptions(tx, targets) : [], await loadCrossedCells(tx, projectId));
}
