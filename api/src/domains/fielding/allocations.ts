// A supplier run's sample from several suppliers, each with its allocation (issue 36: "supplier (one
// or more sample suppliers, each with its allocation)"; docs/decisions/0146, migration 0057). Staff
// give each supplier a share of the run's completes (SurveyRuns SetSampleAllocations, shares in
// hundredths summing to 100); a supplier's cap is its share of the run's target, by the largest
// remainder so the caps sum to the target. An entry of a supplier whose cap is met goes back to it
// over quota (signed, recorded and called back like a late arrival); respondents already answering
// finish. The run still closes at its quota. A run without allocations takes its one supplier's
// respondents up to the quota, as before.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { assertUsableSupplier } from "./schedule-source.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

export interface AllocationInput {
  sampleSupplierId: number;
  /** Percent of the run's completes, in hundredths (0.01 to 100). */
  share: number;
}

export interface Allocation {
  sampleSupplierId: number;
  supplierName: string;
  share: number;
  /** The supplier's cap: its share of the run's target completes (largest remainder). */
  cap: number;
  completes: number;
  inProgress: number;
}

export const MAX_SUPPLIERS = 10;

/**
 * Caps from shares: each share of `target` rounded down, then the completes left over go one each
 * to the largest remainders (Hamilton's method), ties to the earlier supplier; the caps sum to the
 * target.
 */
export function capsOf(shares: readonly number[], target: number): number[] {
  const hundredths = shares.map((s) => Math.round(s * 100));
  const total = hundredths.reduce((a, b) => a + b, 0);
  const exact = hundredths.map((h) => (h * target) / total);
  const caps = exact.map(Math.floor);
  let left = target - caps.reduce((a, b) => a + b, 0);
  const order = exact.map((e, i) => ({ i, r: e - Math.floor(e) })).sort((a, b) => b.r - a.r || a.i - b.i);
  for (const { i } of order) {
    if (left <= 0) break;
    caps[i]! += 1;
    left--;
  }
  return caps;
}

function checkInput(allocations: readonly AllocationInput[]): void {
  const problems: { path: string; message: string }[] = [];
  if (allocations.length === 0 || allocations.length > MAX_SUPPLIERS) problems.push({ path: "allocations", message: `From 1 to ${MAX_SUPPLIERS} suppliers` });
  allocations.forEach((a, i) => {
    if (allocations.findIndex((b) => b.sampleSupplierId === a.sampleSupplierId) !== i) problems.push({ path: `allocations/${i}/sampleSupplierId`, message: "Named twice" });
    if (!(a.share >= 0.01 && a.share <= 100) || Math.abs(a.share * 100 - Math.round(a.share * 100)) > 1e-9) {
      problems.push({ path: `allocations/${i}/share`, message: "A percent from 0.01 to 100, in hundredths" });
    }
  });
  const sum = allocations.reduce((s, a) => s + Math.round(a.share * 100), 0);
  if (allocations.length > 0 && problems.length === 0 && sum !== 10_000) problems.push({ path: "allocations", message: `The shares sum to ${(sum / 100).toFixed(2)}%, not 100%` });
  if (problems.length) throw new ApiError("ValidationError", `The run's allocations: ${problems.map((p) => `${p.path} ${p.message}`).join("; ")}`, undefined, problems);
}

/** The run's allocations with each supplier's cap and progress, in the order staff gave them. */
export async function allocationsOf(tx: Tx, runId: number): Promise<Allocation[]> {
  const rows = await tx<{ sampleSupplierId: number; supplierName: string; share: number; target: number | null; completes: number; inProgress: number }[]>`
    select a.sample_supplier_id as "sampleSupplierId", p.name as "supplierName", a.share::float8 as share, r.target_completes as target,
           (select count(*)::int from survey_sessions s where s.survey_run_id = a.survey_run_id and s.sample_supplier_id = a.sample_supplier_id and s.status = 'Complete') as completes,
           (select count(*)::int from survey_sessions s where s.survey_run_id = a.survey_run_id and s.sample_supplier_id = a.sample_supplier_id and s.status = 'InProgress') as "inProgress"
    from survey_run_allocations a join sample_suppliers p on p.id = a.sample_supplier_id join survey_runs r on r.id = a.survey_run_id
    where a.survey_run_id = ${runId}
    order by a.position`;
  const caps = capsOf(
    rows.map((r) => r.share),
    rows[0]?.target ?? 0,
  );
  return rows.map(({ target: _t, ...r }, i) => ({ ...r, cap: caps[i]! }));
}

export async function readAllocations(db: Db, runId: number): Promise<Allocation[]> {
  return system(db, async (tx) => {
    const [run] = await tx`select 1 from survey_runs where id = ${runId}`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    return allocationsOf(tx, runId);
  });
}

/**
 * SetSampleAllocations (staff): the run's respondents come from these suppliers, each up to its
 * share of the run's completes. The first is the run's supplier (survey_runs.sample_supplier_id).
 * Refused: a Closed run or one without a number of completes (409); a run with simulated or customer-list respondents (409: its results
 * would mix kinds of sample); dropping a supplier whose respondents are in the run (409); an
 * unknown (404) or simulated (409) supplier; shares that do not sum to 100 (400). Changing shares
 * while the run is in the field is allowed: the caps follow at once.
 */
export async function setAllocations(db: Db, runId: number, allocations: readonly AllocationInput[]): Promise<Allocation[]> {
  checkInput(allocations);
  return system(db, async (tx) => {
    const [run] = await tx<{ status: number; target: number | null; others: number }[]>`
      select survey_status_id as status, target_completes as target,
             (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and (s.sample_supplier_id is null or s.is_simulated)) as others
      from survey_runs r where id = ${runId} for update`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    if (run.status === 90) throw new ApiError("Conflict", `Survey run ${runId} is Closed: its allocations cannot change`);
    // The caps are shares of the run's completes: a run without a number of completes has none.
    if (run.target === null) throw new ApiError("Conflict", `Survey run ${runId} has no number of completes to share: set it first (CreateOrUpdateSamplifyProject)`);
    if (run.others > 0) {
      throw new ApiError(
        "Conflict",
        `Survey run ${runId} has ${run.others} respondent${run.others === 1 ? "" : "s"} of the simulated panel or the team's own list: a supplier's run takes only its suppliers' respondents, or its results would mix kinds of sample`,
      );
    }
    for (const a of allocations) await assertUsableSupplier(tx, a.sampleSupplierId);
    const kept = allocations.map((a) => a.sampleSupplierId);
    const [dropped] = await tx<{ supplier: number; n: number }[]>`
      select sample_supplier_id as supplier, count(*)::int as n from survey_sessions
      where survey_run_id = ${runId} and sample_supplier_id is not null and sample_supplier_id <> all(${kept}::int[])
      group by sample_supplier_id order by sample_supplier_id limit 1`;
    if (dropped) {
      throw new ApiError(
        "Conflict",
        `SampleSuppliers(${dropped.supplier}) has ${dropped.n} respondent${dropped.n === 1 ? "" : "s"} in survey run ${runId}: keep it in the allocations (a share of what it has delivered, at least)`,
      );
    }
    await tx`delete from survey_run_allocations where survey_run_id = ${runId}`;
    await tx`
      insert into survey_run_allocations (survey_run_id, sample_supplier_id, share, position)
      select ${runId}, x.supplier, x.share, x.position
      from unnest(${kept}::int[], ${allocations.map((a) => a.share)}::numeric[], ${allocations.map((_, i) => i)}::int[]) as x(supplier, share, position)`;
    await tx`
      update survey_runs set sample_provider_id = 1, sample_supplier_id = ${kept[0]!},
             definition = case when definition is null then null else jsonb_set(definition, '{isCustomerPanel}', 'false'::jsonb) end,
             updated_at = now()
      where id = ${runId}`;
    return allocationsOf(tx, runId);
  });
}

/** A run's single-supplier setters (SetSampleSupplier, SetSampleSource) replace its allocations. */
export async function clearAllocations(tx: Tx, runId: number): Promise<void> {
  await tx`delete from survey_run_allocations where survey_run_id = ${runId}`;
}

/**
 * At entry: whether `supplierId` may send people to the run (its supplier, or one of its
 * allocations), and whether its cap is met (`full`: the entry goes back over quota).
 */
export async function allocationAtEntry(tx: Tx, run: { id: number; sampleSupplierId: number | null }, supplierId: number): Promise<{ allocated: boolean; full: boolean }> {
  // Every supplier entry passes here: the shares (for the caps) and this supplier's completes only,
  // not allocationsOf's names and counts of every supplier.
  const rows = await tx<{ supplier: number; share: number; target: number | null; completes: number | null }[]>`
    select a.sample_supplier_id as supplier, a.share::float8 as share, r.target_completes as target,
           case when a.sample_supplier_id = ${supplierId} then
             (select count(*)::int from survey_sessions s where s.survey_run_id = a.survey_run_id and s.sample_supplier_id = a.sample_supplier_id and s.status = 'Complete')
           end as completes
    from survey_run_allocations a join survey_runs r on r.id = a.survey_run_id
    where a.survey_run_id = ${run.id}
    order by a.position`;
  if (rows.length === 0) return { allocated: run.sampleSupplierId === supplierId, full: false };
  const mine = rows.findIndex((a) => a.supplier === supplierId);
  if (mine < 0) return { allocated: false, full: false };
  const caps = capsOf(
    rows.map((a) => a.share),
    rows[0]!.target ?? 0,
  );
  return { allocated: true, full: (rows[mine]!.completes ?? 0) >= caps[mine]! };
}
