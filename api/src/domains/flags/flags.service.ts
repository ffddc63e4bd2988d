// Feature flags: staff switch a flag on for everyone (Enable/Disable) or for provider staff only
// (EnableIdeally/DisableIdeally); clients override the global switch with ClientFeatures rows. The
// resolved set answers "is this flag on for me, here" (docs/decisions.md "Feature flags").
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import * as q from "./flags.sql.ts";

export type FlagSource = "global" | "client" | "ideally";

export interface ResolvedFlag {
  id: number;
  ff: string;
  isEnabled: boolean;
  /** Which layer decided: the global switch, the client's override, or the Ideally (staff) switch. */
  source: FlagSource;
}

/**
 * One flag for one caller on one client: the client's ClientFeatures row when it has one (on or
 * off), else the global switch; and for provider staff, the Ideally switch turns on what the
 * other layers leave off (staff try features before clients get them).
 */
export function resolveFlag(l: q.FlagLayers, isStaff: boolean): ResolvedFlag {
  let isEnabled = l.global;
  let source: FlagSource = "global";
  if (l.client !== null) {
    isEnabled = l.client;
    source = "client";
  }
  if (!isEnabled && isStaff && l.staff) {
    isEnabled = true;
    source = "ideally";
  }
  return { id: l.id, ff: l.ff, isEnabled, source };
}

/** The resolved flag set inside a caller's transaction (used by Users/Me as well). */
export async function resolvedFlagsIn(tx: Tx, clientId: number | null, isStaff: boolean): Promise<ResolvedFlag[]> {
  return (await q.flagLayers(tx, clientId)).map((l) => resolveFlag(l, isStaff));
}

/** GET FeatureFlags/Resolved: the request's client (clientId header), or no client. */
export async function resolved(db: Db, ctx: RequestCtx): Promise<{ clientId: number | null; value: ResolvedFlag[] }> {
  // Entering the request's client checks the caller may use it (403 otherwise).
  const value = await enterTenant(db, { ...ctx, descendants: false }, (tx) => resolvedFlagsIn(tx, ctx.clientId, ctx.principal.isStaff));
  return { clientId: ctx.clientId, value };
}

/** Enable / Disable (global) and EnableIdeally / DisableIdeally (staff only): staff actions. */
export async function setSwitch(db: Db, ctx: RequestCtx, input: { id: number; which: q.FlagSwitch; on: boolean }): Promise<q.FeatureFlagRow> {
  // Flags are global rows: no client needed, whatever the header says.
  return enterTenant(db, { ...ctx, clientId: null, descendants: false }, async (tx) => {
    const row = await q.setSwitch(tx, input.id, input.which, input.on);
    if (!row) throw new ApiError("NotFound", `FeatureFlags(${input.id}) not found`);
    return row;
  });
}
