// The per-request transaction: runs as the app role (subject to row-level security) with the
// tenant settings transaction-local, so a pooled connection never carries them to another request.
import type { Db, Tx } from "./client.ts";
import { APP_ROLE } from "./roles.ts";

export interface TenantSettings {
  userId: number;
  /** Comma-free list of client ids, or "all" for staff. */
  clientIds: readonly number[] | "all";
}

export async function withTenant<T>(db: Db, t: TenantSettings, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (await db.begin(async (tx) => {
    await tx`select set_config('role', ${APP_ROLE}, true),
      set_config('app.user_id', ${String(t.userId)}, true),
      set_config('app.client_ids', ${t.clientIds === "all" ? "" : t.clientIds.join(",")}, true),
      set_config('app.all_clients', ${t.clientIds === "all" ? "on" : "off"}, true)`;
    return fn(tx);
  })) as T;
}
