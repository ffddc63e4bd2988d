// A wave's sample supplier, chosen before its run exists (issue 36, docs/decisions/0145). The
// fielding tick makes and launches the runs of approved projects on its own, so staff choose a
// market's supplier on the project's schedules (PATCH ProjectSchedules sampleSupplierId) while the
// project awaits approval, and the run made from them carries it (fielding.sql.ts readyGroups).
// Once the run exists its source is the run's (SurveyRuns SetSampleSource, sample-source.ts).
import type { Tx } from "../../db/client.ts";
import type { WriteGuard } from "../../entities/types.ts";
import { ApiError } from "../../errors.ts";

/**
 * A supplier a run (or a wave) may name: it exists, is not removed, and is not the simulated panel
 * (which answers the simulated runs only). 404 / 409 otherwise.
 */
export async function assertUsableSupplier(tx: Tx, supplierId: number): Promise<void> {
  const [s] = await tx<{ simulated: boolean }[]>`select is_simulated as simulated from sample_suppliers where id = ${supplierId} and deleted_at is null`;
  if (!s) throw new ApiError("NotFound", `SampleSuppliers(${supplierId}) not found`);
  if (s.simulated) {
    throw new ApiError("Conflict", `SampleSuppliers(${supplierId}) is the simulated panel: it answers the runs whose sample source is simulated (SetSampleSource simulated), never a supplier's run`);
  }
}

const given = (body: Record<string, unknown>, field: string) => Object.hasOwn(body, field) && body[field] !== undefined;

/** The rules of a schedule's sample: one source (the team's list or a supplier), fixed once its run exists. */
async function check(tx: Tx, body: Record<string, unknown>, current: { surveyRunId: number | null; isCustomerPanel: boolean; sampleSupplierId: number | null } | null, key?: string | number) {
  const asked = body.sampleSupplierId;
  const supplier = given(body, "sampleSupplierId") ? (typeof asked === "number" ? asked : null) : (current?.sampleSupplierId ?? null);
  const customer = given(body, "isCustomerPanel") ? body.isCustomerPanel === true : (current?.isCustomerPanel ?? false);
  if (current?.surveyRunId != null && given(body, "sampleSupplierId") && supplier !== current.sampleSupplierId) {
    throw new ApiError(
      "Conflict",
      `ProjectSchedules(${key}) already has survey run ${current.surveyRunId}: its sample source is the run's now (SurveyRuns(${current.surveyRunId})/SetSampleSource, while it has no respondent)`,
    );
  }
  if (supplier !== null && customer) {
    throw new ApiError("ValidationError", "A wave is fielded on the team's own list or by a sample supplier, not both", undefined, [
      { path: given(body, "sampleSupplierId") ? "sampleSupplierId" : "isCustomerPanel", message: "Must be null (or false) when the other is set" },
    ]);
  }
  if (supplier !== null && given(body, "sampleSupplierId")) await assertUsableSupplier(tx, supplier);
}

/** ProjectSchedules' rules on the generic writes (staff only: the set's writeAccess). */
export const scheduleSourceGuard: WriteGuard = {
  async create(tx, _ctx, body) {
    await check(tx, body, null);
  },
  async update(tx, _ctx, key, body) {
    if (!given(body, "sampleSupplierId") && !given(body, "isCustomerPanel")) return;
    const [row] = await tx<{ surveyRunId: number | null; isCustomerPanel: boolean; sampleSupplierId: number | null }[]>`
      select survey_run_id as "surveyRunId", is_customer_panel as "isCustomerPanel", sample_supplier_id as "sampleSupplierId"
      from project_schedules where id = ${Number(key)} for update`;
    if (!row) return; // the write answers 404
    await check(tx, body, row, key);
  },
};
