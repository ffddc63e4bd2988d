// The bound on synchronous exports in flight (issue 38, record 0134): ExportCsv and ExportExcel
// answer the file in the request while their user has fewer than `perUser` and their tenant fewer
// than `perTenant` such exports in flight in this process; beyond either bound the export is
// queued as a job (exports.jobs.ts) and answered 202, never refused. An export is in flight from
// its handler's start until its file is built (or it failed): the statements, which the gate's
// costly lane already bounds, and the work on the JavaScript thread, which only this bounds.

import { CLIENT_GONE } from "../../db/gate.ts";

const clientGone = () => Object.assign(new Error("the client went away"), { code: CLIENT_GONE });

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

/**
 * Turns at building an export, one tenant at a time per process (record 0134): the synchronous
 * exports within the bound and the queued jobs run in this process take their tenant's turn before
 * they build, and give it back when the file is built. An export's work on the JavaScript thread
 * comes in slices of tens of milliseconds (reading and shaping the respondents, the workbook's
 * sheets, its zip); one tenant's exports building side by side would leave another tenant's cheap
 * calls behind more of them. Waiting for a turn holds nothing; a tenant waiting goes first in
 * the order it came.
 */
export class ExportTurns {
  private readonly running = new Set<string>();
  private readonly queues = new Map<string, (() => void)[]>();

  /** Exports of the tenant building now (0 or 1) and waiting for their turn. */
  of(tenant: string): { building: number; waiting: number } {
    return { building: this.running.has(tenant) ? 1 : 0, waiting: this.queues.get(tenant)?.length ?? 0 };
  }

  /** Waits for the tenant's turn; resolves to its release (call once). Rejects when `signal` aborts first. */
  take(tenant: string, signal?: AbortSignal): Promise<() => void> {
    const release = () => {
      let done = false;
      return () => {
        if (done) return;
        done = true;
        const next = this.queues.get(tenant)?.shift();
        if (this.queues.get(tenant)?.length === 0) this.queues.delete(tenant);
        if (next) next();
        else this.running.delete(tenant);
      };
    };
    if (signal?.aborted) return Promise.reject(clientGone());
    if (!this.running.has(tenant)) {
      this.running.add(tenant);
      return Promise.resolve(release());
    }
    return new Promise((resolve, reject) => {
      const go = () => {
        signal?.removeEventListener("abort", gone);
        resolve(release());
      };
      const gone = () => {
        const q = this.queues.get(tenant);
        const i = q?.indexOf(go) ?? -1;
        if (q && i >= 0) q.splice(i, 1);
        if (q?.length === 0) this.queues.delete(tenant);
        reject(clientGone());
      };
      const q = this.queues.get(tenant) ?? [];
      q.push(go);
      this.queues.set(tenant, q);
      signal?.addEventListener("abort", gone, { once: true });
    });
  }
}

/** The process's turns: shared by the export routes and the export jobs this process runs. */
export const exportTurns = new ExportTurns();
