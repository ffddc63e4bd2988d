// A run's sample source, explicit (issue 36; docs/decisions/0122): simulated (the simulated Ideally
// panel), customer (the team's own list at the run's link) or supplier (an outside sample
// supplier's signed respondents). survey_runs.sample_source is generated from the columns that
// decide it (sample_provider_id, sample_supplier_id), so setting the source sets those, and nothing
// can disagree with it. Staff set it before the run has respondents: a source changed under
// respondents would mix two kinds of sample in one run's results.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import type { SampleSource } from "./fielding.sql.ts";
import { clearAllocations } from "./allocations.ts";
import { assertUsableSupplier } from "./schedule-source.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

/**
 * SetSampleSource (staff): the run's respondents come from `source`; a supplier's run names its
 * supplier. Refused (409) once the run has a respondent (unless the source stays as it is) and
 * for a Closed run; 404 for an unknown run or supplier.
 */
export async function setSampleSource(db: Db, runId: number, source: SampleSource, supplierId: number | null): Promise<void> {
  if (source === "supplier" && supplierId === null) {
    throw new ApiError("ValidationError", "A supplier's run names its supplier: sampleSupplierId", undefined, [{ path: "sampleSupplierId", message: "Required when sampleSource is supplier" }]);
  }
  if (source !== "supplier" && supplierId !== null) {
    throw new ApiError("ValidationError", `Only a supplier's run has a supplier: leave sampleSupplierId out for ${source}`, undefined, [
      { path: "sampleSupplierId", message: `Must be null or absent when sampleSource is ${source}` },
    ]);
  }
  await system(db, async (tx) => {
    const [run] = await tx<{ status: number; source: SampleSource; supplierId: number | null; respondents: number }[]>`
      select survey_status_id as status, sample_source as source, sample_supplier_id as "supplierId",
             (select count(*)::int from survey_sessions s where s.survey_run_id = r.id) as respondents
      from survey_runs r where id = ${runId} for update`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    if (run.source === source && run.supplierId === supplierId) return; // no change
    if (run.status === 90) throw new ApiError("Conflict", `Survey run ${runId} is Closed: its sample source cannot change`);
    if (run.respondents > 0) {
      throw new ApiError(
        "Conflict",
        `Survey run ${runId} already has ${run.respondents} respondent${run.respondents === 1 ? "" : "s"} from its ${run.source} source: its sample source cannot change, or its results would mix two kinds of sample. Choose the source on the project's schedules while it awaits approval (PATCH ProjectSchedules: sampleSupplierId or isCustomerPanel), or on the run before it launches (CreateDecipherSurveys, SetSampleSource, LaunchSurvey).`,
      );
    }
    if (supplierId !== null) await assertUsableSupplier(tx, supplierId);
    const provider = source === "customer" ? 2 : 1;
    // The questionnaire snapshot says which panel it asks (a customer panel's survey reads so).
    await tx`
      update survey_runs set sample_provider_id = ${provider}, sample_supplier_id = ${supplierId},
             definition = case when definition is null then null else jsonb_set(definition, '{isCustomerPanel}', to_jsonb(${provider === 2}::boolean)) end,
             updated_at = now()
      where id = ${runId}`;
    await clearAllocations(tx, runId);
  });
}
