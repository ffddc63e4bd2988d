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

/**
 * BEGIN and the tenant settings as one simple-protocol message. The values are integers of our
 * own principal (checked here), never request text, so formatting them into the text is safe.
 */
function beginAsTenant(t: TenantSettings): string {
  const ints = (xs: readonly number[]) => xs.map((x) => {
    if (!Number.isSafeInteger(x)) throw new Error(`bad id ${x}`);
    return String(x);
  });
  const [user] = ints([t.userId]);
  const clients = t.clientIds === "all" ? "" : ints(t.clientIds).join(",");
  return `begin; select set_config('role', '${APP_ROLE}', true), set_config('app.user_id', '${user}', true), ` +
    `set_config('app.client_ids', '${clients}', true), set_config('app.all_clients', '${t.clientIds === "all" ? "on" : "off"}', true)`;
}

/**
 * One read statement in a tenant transaction, in a single round trip: BEGIN, the settings, the
 * statement and COMMIT are pipelined on a reserved connection. If any step fails the transaction
 * is aborted, so the statement never runs without its settings (and the registry scope in its
 * text is the first wall regardless).
 */
export async function readAsTenant<T>(db: Db, t: TenantSettings, text: string, params: unknown[]): Promise<T[]> {
  const c = await db.reserve();
  try {
    const steps = [
      c.unsafe(beginAsTenant(t)),
      // Safe: `text` is compiled from registry names only (db/sqltext.ts); values are parameters.
      c.unsafe(text, params as never[], { prepare: true }),
      c.unsafe("commit"),
    ];
    const settled = await Promise.allSettled(steps);
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return (settled[1] as PromiseFulfilledResult<unknown>).value as T[];
  } finally {
    c.release();
  }
}
