// The bound on synchronous exports in flight (issue 38, record 0127): ExportCsv and ExportExcel
// answer the file in the request while their user has fewer than `perUser` and their tenant fewer
// than `perTenant` such exports in flight in this process; beyond either bound the export is
// queued as a job (exports.jobs.ts) and answered 202, never refused. An export is in flight from
// its handler's start until its file is built (or it failed): the statements, which the gate's
// costly lane already bounds, and the work on the JavaScript thread, which only this bounds.

export interface ExportBoundOptions {
  /** Synchronous exports of one user in flight at once. */
  perUser: number;
  /** Synchronous exports of one tenant, all its users together, in flight at once. */
  perTenant: number;
}

/** Who exports: the user, and the tenant it counts against (db/gate.ts tenantKey). */
export interface Exporter {
  userId: number;
  tenant: string;
}

const bump = <K>(m: Map<K, number>, k: K, by: number) => {
  const n = (m.get(k) ?? 0) + by;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
};

export class ExportBound {
  private readonly users = new Map<number, number>();
  private readonly tenants = new Map<string, number>();

  constructor(readonly opts: ExportBoundOptions) {
    for (const [k, v] of Object.entries(opts)) if (!Number.isInteger(v) || v < 1) throw new Error(`export bound: ${k} must be a whole number from 1, got ${v}`);
  }

  /** Synchronous exports in flight now: the user's, and its tenant's. */
  inFlight(who: Exporter): { user: number; tenant: number } {
    return { user: this.users.get(who.userId) ?? 0, tenant: this.tenants.get(who.tenant) ?? 0 };
  }

  /**
   * A place for one synchronous export, if both bounds allow it: its release (call once; later
   * calls do nothing). Null when the user or the tenant is at its bound: queue the export instead.
   */
  enter(who: Exporter): (() => void) | null {
    const now = this.inFlight(who);
    if (now.user >= this.opts.perUser || now.tenant >= this.opts.perTenant) return null;
    bump(this.users, who.userId, 1);
    bump(this.tenants, who.tenant, 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      bump(this.users, who.userId, -1);
      bump(this.tenants, who.tenant, -1);
    };
  }
}
