// Staff send a supplier's server-to-server callback again (SurveyRuns({key})/SupplierCallbacks/
// {callbackId}/Resend; docs/suppliers.md, decision record 0141). A failed callback, or a pending
// one waiting out its backoff, goes back to pending, due now, for a fresh series of attempts
// (CALLBACK_MAX_ATTEMPTS more, the backoff from its start); the attempts made so far are kept and
// listed, each with its series. A delivered callback is not sent again (409). The supplier hears a
// rid's story in order: a reversal is never sent before its outcome's callback has stopped being
// pending (deliverDueCallbacks), and re-sending an outcome whose complete was reversed sends the
// reversal again after it, so the supplier's last word stays the reversal. Audited as staff's own
// action (DataEventsLog, entity SurveyRun, event SupplierCallbackResent).
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { jsonParam } from "../../db/params.ts";
import { ApiError } from "../../errors.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { supplierCallbacks, type RecordKind, type SupplierCallback } from "./suppliers.ts";

interface Held {
  id: number;
  rid: string;
  kind: RecordKind;
  outcome: string;
  state: "none" | "pending" | "delivered" | "failed";
  attempts: number;
  series: number;
  deliveredAt: string | null;
  /** A claimed attempt not yet recorded, its lease still running: the call is under way. */
  inFlight: boolean;
  /** The supplier (not removed) has where this kind of callback goes. */
  hasTemplate: boolean;
  supplierId: number;
}

/** The callback's row, locked, with what decides whether it may be sent again. */
async function held(tx: Tx, id: number): Promise<Held | undefined> {
  const [h] = await tx<Held[]>`
    select o.id::int as id, o.rid, o.kind, o.outcome, o.callback_state as state, o.callback_attempts as attempts, o.callback_series as series,
           to_json(o.delivered_at)#>>'{}' as "deliveredAt", o.sample_supplier_id as "supplierId",
           (o.callback_state = 'pending' and o.next_attempt_at > now()
             and o.callback_attempts > coalesce((select max(a.attempt) from supplier_callback_attempts a where a.supplier_outcome_id = o.id), 0)) as "inFlight",
           (p.deleted_at is null and (case when o.kind = 'reversal' then coalesce(p.reversal_url, p.callback_url) else p.callback_url end) is not null) as "hasTemplate"
    from supplier_outcomes o join sample_suppliers p on p.id = o.sample_supplier_id
    where o.id = ${id}
    for update of o`;
  return h;
}

/** The reversal of an outcome's rid, locked, if the complete was reversed. */
async function reversalOf(tx: Tx, runId: number, c: Held): Promise<Held | undefined> {
  const [r] = await tx<{ id: number }[]>`
    select id::int as id from supplier_outcomes
    where survey_run_id = ${runId} and sample_supplier_id = ${c.supplierId} and rid = ${c.rid} and kind = 'reversal' and callback_state <> 'none'`;
  return r ? held(tx, r.id) : undefined;
}

/** Pending again, due now, a fresh series (the attempts so far stay, numbered on). */
async function restart(tx: Tx, id: number): Promise<void> {
  await tx`
    update supplier_outcomes
    set callback_state = 'pending', next_attempt_at = now(), delivered_at = null,
        callback_series = callback_series + 1, callback_series_from = callback_attempts
    where id = ${id}`;
}

/**
 * Resend: the run's callback `callbackId` sent again. 404 when the run does not exist or the
 * callback is not one of its callbacks; 409 when it was delivered, is being sent at this moment,
 * or its supplier has no URL for it any more. Answers the callback as SupplierCallbacks lists it.
 */
export async function resendCallback(db: Db, ctx: RequestCtx, runId: number, callbackId: number): Promise<SupplierCallback> {
  await enterTenant(db, systemCtx(), async (tx) => {
    const [run] = await tx<{ clientId: number }[]>`select client_id as "clientId" from survey_runs where id = ${runId}`;
    if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
    const [mine] = await tx`select 1 from supplier_outcomes where id = ${callbackId} and survey_run_id = ${runId} and callback_state <> 'none'`;
    if (!mine) throw new ApiError("NotFound", `Survey run ${runId} has no supplier callback ${callbackId}`);
    const c = (await held(tx, callbackId))!;
    if (c.state === "delivered") throw new ApiError("Conflict", `Supplier callback ${callbackId} (rid ${c.rid}) was delivered at ${new Date(c.deliveredAt!).toISOString()}: it is not sent again`);
    if (c.inFlight) throw new ApiError("Conflict", `Supplier callback ${callbackId} (rid ${c.rid}) is being sent now: read its attempts again in a moment`);
    if (!c.hasTemplate) throw new ApiError("Conflict", `Supplier callback ${callbackId} (rid ${c.rid}): its supplier has no ${c.kind === "reversal" ? "reversal or callback" : "callback"} URL now`);
    await restart(tx, c.id);
    // An outcome whose complete was reversed: the reversal goes again after it (it waits while the
    // outcome is pending), so the supplier's last word stays the reversal. A reversal still pending
    // waits anyway; one being sent now would arrive before the outcome: refused, try again.
    let reversal: Held | undefined;
    if (c.kind === "outcome") {
      reversal = await reversalOf(tx, runId, c);
      if (reversal?.inFlight) throw new ApiError("Conflict", `The reversal of rid ${c.rid} is being sent now: send its complete again in a moment, so that the reversal follows it`);
      if (reversal && (reversal.state === "delivered" || reversal.state === "failed") && reversal.hasTemplate) await restart(tx, reversal.id);
      else reversal = undefined;
    }
    const data = {
      callbackId: c.id,
      rid: c.rid,
      kind: c.kind,
      outcome: c.outcome,
      from: c.state,
      attemptsBefore: c.attempts,
      series: c.series + 1,
      ...(reversal ? { reversalResent: { callbackId: reversal.id, from: reversal.state, series: reversal.series + 1 } } : {}),
    };
    await tx`insert into data_events_log (client_id, user_id, entity_type, entity_id, event, data)
             values (${run.clientId}, ${ctx.principal.userId}, 'SurveyRun', ${runId}, 'SupplierCallbackResent', ${jsonParam(tx, data)})`;
  });
  return (await supplierCallbacks(db, runId)).find((x) => x.id === callbackId)!;
}
