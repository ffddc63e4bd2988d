// Quotas that can be met (docs/decisions.md "Quotas that can be met"). A target group is the
// targets of one question (a demographic or a screener) in one region. Its quotas are shares of
// the run's completes: within a group they add up to at most 100%, and the remainder is open to
// the group's other answers, unless the group takes "only these" answers. A group without quotas
// only says who qualifies (as before). A design no run can fill is refused at set-up
// (ChangeTargets) and at Submit, before any charge, with a message naming the group.
import type { Tx } from "../../db/client.ts";
import { ApiError } from "../../errors.ts";
import { crossedProblems, loadCrossedCells } from "./crossed.ts";
import { hundredths, pct, type QuotaProblem, type QuotaTarget } from "./quota-shares.ts";

export { hundredths, pct, type QuotaProblem, type QuotaTarget } from "./quota-shares.ts";

export interface GroupOption {
  groupKey: string;
  optionId: number;
  /** Options of one region only (demographics); null: every region. */
  regionId: number | null;
}

/** A quota cell's cap in a run of `completes`: its share, rounded up, at least 1 (the engine's and feasibility's). */
export const cellCap = (completes: number, quotaPercent: number) => Math.max(1, Math.ceil((completes * quotaPercent) / 100));

export function quotaProblems(targets: readonly QuotaTarget[], options: readonly GroupOption[], regions: readonly { regionId: number; regionName: string }[]): QuotaProblem[] {
  const out: QuotaProblem[] = [];
  for (const r of regions) {
    const here = targets.filter((t) => (t.regionId === null || t.regionId === r.regionId) && (t.optionRegionId === null || t.optionRegionId === r.regionId));
    for (const key of [...new Set(here.map((t) => t.groupKey))]) {
      const group = here.filter((t) => t.groupKey === key);
      const name = group[0]!.groupName;
      const quotas = group.filter((t) => t.quotaPercent !== null);
      if (!quotas.length) continue; // who qualifies only: no shares to meet
      const sum = quotas.reduce((s, t) => s + hundredths(t.quotaPercent!), 0);
      const onlyThese = group.some((t) => t.onlyThese);
      const at = r.regionName;
      if (sum > 10000) {
        out.push({
          groupKey: key,
          groupName: name,
          regionId: r.regionId,
          message: `The quotas of the group "${name}" add up to ${pct(sum)} in ${at}: the shares within a group may add up to at most 100%`,
        });
        continue;
      }
      if (sum === 10000) continue;
      // Below 100%: someone must fill the rest, an uncapped targeted answer or (unless "only these")
      // an answer outside the targets.
      const uncapped = group.some((t) => t.quotaPercent === null);
      if (uncapped) continue;
      const targeted = new Set(group.map((t) => t.optionId));
      const others = options.filter((o) => o.groupKey === key && (o.regionId === null || o.regionId === r.regionId) && !targeted.has(o.optionId));
      if (onlyThese) {
        out.push({
          groupKey: key,
          groupName: name,
          regionId: r.regionId,
          message: `The quotas of the group "${name}" add up to ${pct(sum)} in ${at} and the group takes only these answers: they must add up to 100%, or the run can never fill`,
        });
      } else if (!others.length) {
        out.push({
          groupKey: key,
          groupName: name,
          regionId: r.regionId,
          message: `The quotas of the group "${name}" add up to ${pct(sum)} in ${at} and every answer of the question has a quota: they must add up to 100%, or the run can never fill`,
        });
      }
    }
  }
  return out;
}

export async function loadQuotaTargets(tx: Tx, projectId: number): Promise<QuotaTarget[]> {
  return tx<QuotaTarget[]>`
    select case when t.system_question_option_id is not null then 's' || so.system_question_id else 'q' || t.question_id end as "groupKey",
           coalesce(sq.question_label, nullif(qq.question_title, ''), qq.question_text, 'question') as "groupName",
           t.region_id as "regionId", so.region_id as "optionRegionId",
           coalesce(t.system_question_option_id, t.question_option_id) as "optionId",
           coalesce(so.answer_label, qo.option_text, 'answer') as "optionLabel",
           t.quota_percent::float8 as "quotaPercent", t.only_these as "onlyThese"
    from targets t
    left join system_question_option so on so.id = t.system_question_option_id
    left join question_options qo on qo.id = t.question_option_id
    left join system_question sq on sq.id = so.system_question_id
    left join questions qq on qq.id = t.question_id
    where t.project_id = ${projectId}
    order by t.id`;
}

export async function groupOptions(tx: Tx, targets: readonly QuotaTarget[]): Promise<GroupOption[]> {
  const sys = [...new Set(targets.filter((t) => t.groupKey.startsWith("s")).map((t) => Number(t.groupKey.slice(1))))];
  const qs = [...new Set(targets.filter((t) => t.groupKey.startsWith("q")).map((t) => Number(t.groupKey.slice(1))))];
  return tx<GroupOption[]>`
    select 's' || system_question_id as "groupKey", id as "optionId", region_id as "regionId"
    from system_question_option where system_question_id = any(${sys}::int[]) and is_visible
    union all
    select 'q' || question_id, id, null from question_options where question_id = any(${qs}::int[])`;
}

/** Every group's and every crossing's problems (a crossing's groupKey holds "&": crossed.ts crossingKey). */
export async function projectQuotaProblems(tx: Tx, projectId: number): Promise<QuotaProblem[]> {
  const targets = await loadQuotaTargets(tx, projectId);
  const crossed = await loadCrossedCells(tx, projectId);
  if (!targets.some((t) => t.quotaPercent !== null) && !crossed.length) return [];
  const regions = await tx<{ regionId: number; regionName: string }[]>`
    select pr.region_id as "regionId", r.region_name as "regionName"
    from projects_regions pr join regions r on r.id = pr.region_id where pr.project_id = ${projectId} order by r.sort_order, pr.region_id`;
  return [...quotaProblems(targets, await groupOptions(tx, targets), regions), ...crossedProblems(crossed, targets, regions)];
}

/** A problem's field path: targets.{group key}, or crossedQuotas.{crossing key}. */
export const problemPath = (p: Pick<QuotaProblem, "groupKey">) => (p.groupKey.includes("&") ? `crossedQuotas.${p.groupKey}` : `targets.${p.groupKey}`);

/** 400 naming every group whose quotas no run can meet (nothing written: the caller's transaction rolls back). */
export async function assertQuotasCanBeMet(tx: Tx, projectId: number): Promise<void> {
  const problems = await projectQuotaProblems(tx, projectId);
  if (!problems.length) return;
  throw new ApiError(
    "ValidationError",
    problems.map((p) => p.message).join("; "),
    undefined,
    problems.map((p) => ({ path: problemPath(p), message: p.message })),
  );
}
