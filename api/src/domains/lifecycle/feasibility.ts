// The feasibility and quota explanation (issue 21): per market, whether the panel can deliver the
// completes (its reach in a field period x the incidence; estimate.ts), and per target
// group and market, what its quotas mean (quotas.ts: shares within a group add up to at most 100%,
// the rest open to the group's other answers unless it takes "only these"), in words. One function
// says it for the web editor (IncidenceEstimate's `explanation`, from the project's rows) and the
// CLI (Projects/FeasibilityEstimate, from a project file's settings before anything exists).
import type { Db, Tx } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { cellCap, groupOptions, hundredths, loadQuotaTargets, pct, quotaProblems, type GroupOption, type QuotaTarget } from "../fielding/quotas.ts";
import type { DemographicTarget, RegionSample } from "./incidence.sql.ts";
import { incidenceEstimate } from "./incidence.service.ts";
import { estimateRegions, marketText, type IncidenceEstimate, type RegionIncidence } from "./estimate.ts";

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

export interface FeasibilityExplanation {
  /** Every group's quotas can be met and no market is known to fall short. */
  feasible: boolean;
  quotasOk: boolean;
  markets: MarketFeasibility[];
  groups: QuotaGroupExplanation[];
  /** The markets' then the groups' texts, in order: what the editor and the CLI print. */
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

export function explainFeasibility(regions: readonly RegionIncidence[], targets: readonly QuotaTarget[], options: readonly GroupOption[]): FeasibilityExplanation {
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
  const quotasOk = groups.every((g) => g.ok);
  return {
    feasible: quotasOk && markets.every((m) => m.feasible !== false),
    quotasOk,
    markets,
    groups,
    lines: [...markets.map((m) => m.text), ...groups.map((g) => g.text)],
  };
}

/** The explanation of a project's saved markets and targets (IncidenceEstimate adds it). */
export async function explainProject(tx: Tx, projectId: number, est: Pick<IncidenceEstimate, "regions">): Promise<FeasibilityExplanation> {
  const targets = await loadQuotaTargets(tx, projectId);
  return explainFeasibility(est.regions, targets, targets.length ? await groupOptions(tx, targets) : []);
}

/** IncidenceEstimate with the explanation of its markets and quotas (the editor's markets tab shows it). */
export async function incidenceEstimateExplained(db: Db, ctx: RequestCtx, input: { projectId: number }): Promise<IncidenceEstimate & { explanation: FeasibilityExplanation }> {
  const est = await incidenceEstimate(db, ctx, input);
  return { ...est, explanation: await enterTenant(db, ctx, (tx) => explainProject(tx, input.projectId, est)) };
}

export interface FeasibilitySettings {
  regionIds: number[];
  sampleSize?: number | null;
  targets: { systemQuestionOptionId: number; regionId?: number | null; quotaPercent?: number | null; onlyThese?: boolean }[];
}

/** Completes per region when a project is created without a sample size (POST Projects). */
const DEFAULT_SAMPLE_SIZE = 200;

/**
 * Projects/FeasibilityEstimate: the incidence and the explanation of settings not saved anywhere
 * (a project file's markets, completes and demographic targets: `ideally projects create --dry-run`
 * and `validate`), checked as ChangeTargets checks them. Nothing is written.
 */
export async function feasibilityEstimate(db: Db, ctx: RequestCtx, input: FeasibilitySettings): Promise<Omit<IncidenceEstimate, "projectId"> & { explanation: FeasibilityExplanation }> {
  return enterTenant(db, ctx, async (tx) => {
    const ids = [...new Set(input.regionIds)];
    const regionRows = await tx<{ regionId: number; regionName: string }[]>`
      select id as "regionId", region_name as "regionName" from regions where id = any(${ids}::int[]) order by sort_order, id`;
    const errors: FieldError[] = [];
    for (const id of ids) if (!regionRows.some((r) => r.regionId === id)) errors.push({ path: `regionIds.${input.regionIds.indexOf(id)}`, message: `No region ${id}` });
    const optionIds = [...new Set(input.targets.map((t) => t.systemQuestionOptionId))];
    const opts = await tx<{ id: number; systemQuestionId: number; regionId: number | null; label: string; groupName: string }[]>`
      select o.id, o.system_question_id as "systemQuestionId", o.region_id as "regionId", o.answer_label as label, sq.question_label as "groupName"
      from system_question_option o join system_question sq on sq.id = o.system_question_id
      where o.id = any(${optionIds}::int[])`;
    const quota: QuotaTarget[] = [];
    for (const [i, t] of input.targets.entries()) {
      const o = opts.find((x) => x.id === t.systemQuestionOptionId);
      const at = (field: string, message: string) => errors.push({ path: `targets.${i}.${field}`, message });
      if (!o) { at("systemQuestionOptionId", `No system question option ${t.systemQuestionOptionId}`); continue; }
      if (o.regionId !== null && !ids.includes(o.regionId)) { at("systemQuestionOptionId", `Option ${o.id} belongs to region ${o.regionId}, which the settings do not field in`); continue; }
      if (t.regionId != null && !ids.includes(t.regionId)) { at("regionId", `Region ${t.regionId} is not one of the settings' regions`); continue; }
      if (o.regionId !== null && t.regionId != null && t.regionId !== o.regionId) { at("regionId", `Option ${o.id} belongs to region ${o.regionId}, not ${t.regionId}`); continue; }
      quota.push({
        groupKey: `s${o.systemQuestionId}`,
        groupName: o.groupName,
        regionId: t.regionId ?? o.regionId,
        optionRegionId: o.regionId,
        optionId: o.id,
        optionLabel: o.label,
        quotaPercent: t.quotaPercent ?? null,
        onlyThese: t.onlyThese ?? false,
      });
    }
    if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
    const size = input.sampleSize ?? DEFAULT_SAMPLE_SIZE;
    const regions: RegionSample[] = regionRows.map((r) => ({ ...r, sampleSize: size, isCustomerPanel: false }));
    // As incidence.sql.ts demographicTargets: a group with quotas and not "only these" screens nobody out.
    const open = new Set(
      [...new Set(quota.map((t) => t.groupKey))].filter((k) => {
        const g = quota.filter((t) => t.groupKey === k);
        return g.some((t) => t.quotaPercent !== null) && !g.some((t) => t.onlyThese);
      }),
    );
    const screening: DemographicTarget[] = quota
      .filter((t) => !open.has(t.groupKey))
      .map((t) => ({ regionId: t.regionId, optionId: t.optionId, systemQuestionId: Number(t.groupKey.slice(1)), optionRegionId: t.optionRegionId }));
    const est = await estimateRegions(tx, regions, screening, []);
    return { ...est, explanation: explainFeasibility(est.regions, quota, quota.length ? await groupOptions(tx, quota) : []) };
  });
}
