// The feasibility and quota explanation published (issue 21; explain.ts says it): per market, whether
// the panel can deliver the completes, per target group and crossing what its quotas mean. One
// function says it for the web editor (IncidenceEstimate's `explanation`, from the project's rows)
// and the CLI (Projects/FeasibilityEstimate, from a project file's settings before anything exists).
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError, type FieldError } from "../../errors.ts";
import { groupOptions, type QuotaTarget } from "../fielding/quotas.ts";
import { checkCrossedInput, crossedCellsOf, type CrossedInput } from "../fielding/crossed.ts";
import type { DemographicTarget, RegionSample } from "./incidence.sql.ts";
import { incidenceEstimate } from "./incidence.service.ts";
import { estimateRegions, type IncidenceEstimate } from "./estimate.ts";
import { explainFeasibility, explainProject, type FeasibilityExplanation } from "./explain.ts";

/** IncidenceEstimate with the explanation of its markets and quotas (the editor's markets tab shows it). */
export async function incidenceEstimateExplained(db: Db, ctx: RequestCtx, input: { projectId: number }): Promise<IncidenceEstimate & { explanation: FeasibilityExplanation }> {
  const est = await incidenceEstimate(db, ctx, input);
  return { ...est, explanation: await enterTenant(db, ctx, (tx) => explainProject(tx, input.projectId, est)) };
}

export interface FeasibilitySettings {
  regionIds: number[];
  sampleSize?: number | null;
  targets: { systemQuestionOptionId: number; regionId?: number | null; quotaPercent?: number | null; onlyThese?: boolean }[];
  /** Crossed quota cells, as ChangeTargets takes them (none when omitted). */
  crossedQuotas?: CrossedInput[];
}

/** Completes per region when a project is created without a sample size (POST Projects). */
const DEFAULT_SAMPLE_SIZE = 200;

/**
 * Projects/FeasibilityEstimate: the incidence and the explanation of settings not saved anywhere
 * (a project file's markets, completes, demographic targets and crossed quota cells: `ideally
 * projects create --dry-run` and `validate`), checked as ChangeTargets checks them. The estimate and
 * the explanation are IncidenceEstimate's (estimateRegions, explainFeasibility), crossed cells
 * included, so a cell that cannot be met is named with the figures Submit's 409 gives. Nothing is written.
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
      if (!o) {
        at("systemQuestionOptionId", `No system question option ${t.systemQuestionOptionId}`);
        continue;
      }
      if (o.regionId !== null && !ids.includes(o.regionId)) {
        at("systemQuestionOptionId", `Option ${o.id} belongs to region ${o.regionId}, which the settings do not field in`);
        continue;
      }
      if (t.regionId != null && !ids.includes(t.regionId)) {
        at("regionId", `Region ${t.regionId} is not one of the settings' regions`);
        continue;
      }
      if (o.regionId !== null && t.regionId != null && t.regionId !== o.regionId) {
        at("regionId", `Option ${o.id} belongs to region ${o.regionId}, not ${t.regionId}`);
        continue;
      }
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
    const crossedInput = await checkCrossedInput(tx, input.crossedQuotas ?? [], ids, "the settings'");
    errors.push(...crossedInput.errors);
    if (errors.length) throw new ApiError("ValidationError", errors.map((e) => `${e.path}: ${e.message}`).join("; "), undefined, errors);
    const crossed = await crossedCellsOf(tx, crossedInput.rows);
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
    const est = await estimateRegions(tx, regions, screening, [], crossed);
    return { ...est, explanation: explainFeasibility(est.regions, quota, quota.length ? await groupOptions(tx, quota) : [], crossed) };
  });
}
