// Fair shares of the request pool (issue 38). Every request that reads or writes takes one slot
// here before it takes a pooled connection, and gives it back with its last connection (db/tx.ts).
// A slot is given only within four bounds at once:
// - the pool: no more slots than connections, so a request over it waits here, where the order is
//   fair, and never in the driver's first-come queue behind another tenant's requests;
// - the user's share (`perUser`, 8 of 16): one account cannot take the pool;
// - the tenant's share (`perTenant`, 12 of 16): however many of one client's users together cannot
//   take it either; the rest stays for the other tenants;
// - the costly lane (`costly` slots in all, `costlyPerTenant` of them for one tenant): requests
//   weighed as costly before they run (a large export, a cross-tab, an OData read that may produce
//   many rows or answered a large text before: app.ts and entities/service.ts weigh them) also need
//   a slot of this small lane. They wait for it without holding a connection, so a cheap call never
//   queues behind them, and the few that run bound the cores and the JavaScript thread they take.
// When a slot comes back, the waiting request of the tenant holding the fewest slots goes first
// (first come, first served among equals): a tenant under its share is never left behind one over
// it. A wait is bounded (`waitMs`); past it the request is refused with a code app.ts answers 503
// with Retry-After, having held no connection. A page's burst of cheap calls queues for a few
// milliseconds at most.

/** Refused: the user already holds its share. */
export const USER_CONNECTIONS_BUSY = "USER_CONNECTIONS_BUSY";
/** Refused: the user's tenant already holds its share. */
export const TENANT_CONNECTIONS_BUSY = "TENANT_CONNECTIONS_BUSY";
/** Refused: the costly lane stayed full (for this tenant, or in all). */
export const COSTLY_LANE_BUSY = "COSTLY_LANE_BUSY";
/** Refused: every connection of the pool stayed in use. */
export const POOL_BUSY = "POOL_BUSY";
/** The codes of the gate's refusals; app.ts maps each to 503 with Retry-After. */
export const GATE_REFUSALS: ReadonlySet<string> = new Set([USER_CONNECTIONS_BUSY, TENANT_CONNECTIONS_BUSY, COSTLY_LANE_BUSY, POOL_BUSY]);

export interface GateOptions {
  /** Slots in all: the connections of the pool the requests run on. */
  capacity: number;
  /** Slots one user may hold at once. */
  perUser: number;
  /** Slots one tenant (the client a request names) may hold at once. */
  perTenant: number;
  /** Costly requests that may hold slots at once, in all. */
  costly: number;
  /** Costly requests of one tenant that may hold slots at once. */
  costlyPerTenant: number;
  /** Longest wait for a slot, in milliseconds. */
  waitMs: number;
}

/** Who asks for a slot, and whether the request was weighed as costly. */
export interface Asker {
  userId: number;
  /** The tenant the request counts against: its client, or its user when it names none (staff). */
  tenant: string;
  costly?: boolean;
}

/** The tenant a request counts against (`tenantKey(null, 9001)` for a staff call naming no client). */
export const tenantKey = (clientId: number | null, userId: number): string => (clientId === null ? `user ${userId}` : `client ${clientId}`);

/** The error of a request whose client disconnected: nothing is answered, nothing more runs. */
export const CLIENT_GONE = "CLIENT_GONE";
const clientGone = () => Object.assign(new Error("the client went away"), { code: CLIENT_GONE });

interface Waiter {
  who: Asker;
  seq: number;
  admit(): void;
}

const bump = <K>(m: Map<K, number>, k: K, by: number) => {
  const n = (m.get(k) ?? 0) + by;
  if (n <= 0) m.delete(k);
  else m.set(k, n);
};

export class ConnectionGate {
  private total = 0;
  private costlyTotal = 0;
  private readonly users = new Map<number, number>();
  private readonly tenants = new Map<string, number>();
  private readonly costlyTenants = new Map<string, number>();
  private readonly waiting: Waiter[] = [];
  private seq = 0;

  constructor(readonly opts: GateOptions) {
    for (const [k, v] of Object.entries(opts))
      if (!Number.isInteger(v) || v < (k === "waitMs" ? 0 : 1)) throw new Error(`gate: ${k} must be a whole number${k === "waitMs" ? "" : " from 1"}, got ${v}`);
  }

  /** Slots the user holds now (tests and metrics). */
  holding(userId: number): number {
    return this.users.get(userId) ?? 0;
  }

  /** Slots the tenant holds now, and of them costly ones. */
  tenantHolding(tenant: string): { all: number; costly: number } {
    return { all: this.tenants.get(tenant) ?? 0, costly: this.costlyTenants.get(tenant) ?? 0 };
  }

  /** Requests waiting now. */
  get queued(): number {
    return this.waiting.length;
  }

  /** Waits for a slot; resolves to its release (call once). */
  acquire(who: Asker, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) return Promise.reject(clientGone());
    return new Promise<() => void>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const leave = () => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const i = this.waiting.indexOf(w);
        if (i >= 0) this.waiting.splice(i, 1);
      };
      const w: Waiter = {
        who,
        seq: this.seq++,
        admit: () => {
          leave();
          this.take(who, 1);
          let done = false;
          resolve(() => {
            if (done) return;
            done = true;
            this.take(who, -1);
            this.pump();
          });
        },
      };
      const onAbort = () => {
        leave();
        reject(clientGone());
      };
      this.waiting.push(w);
      this.pump();
      if (!this.waiting.includes(w)) return;
      timer = setTimeout(() => {
        leave();
        reject(this.refusal(who));
      }, this.opts.waitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
    });
  }

  /** Whether a slot may be given to `who` now. */
  private admissible(who: Asker): boolean {
    return this.blocker(who) === null;
  }

  /** What keeps `who` waiting (the first bound it is at), or null. */
  private blocker(who: Asker): string | null {
    const o = this.opts;
    if ((this.users.get(who.userId) ?? 0) >= o.perUser) return USER_CONNECTIONS_BUSY;
    if ((this.tenants.get(who.tenant) ?? 0) >= o.perTenant) return TENANT_CONNECTIONS_BUSY;
    if (who.costly && (this.costlyTotal >= o.costly || (this.costlyTenants.get(who.tenant) ?? 0) >= o.costlyPerTenant)) return COSTLY_LANE_BUSY;
    if (this.total >= o.capacity) return POOL_BUSY;
    return null;
  }

  private refusal(who: Asker): Error {
    const o = this.opts;
    const code = this.blocker(who) ?? POOL_BUSY;
    const message = {
      [USER_CONNECTIONS_BUSY]: `this account already runs ${o.perUser} database statements at once`,
      [TENANT_CONNECTIONS_BUSY]: `this client's users already run ${o.perTenant} database statements at once`,
      [COSTLY_LANE_BUSY]: `costly requests (large reads, exports, cross-tabs) run ${o.costlyPerTenant} at a time per client and ${o.costly} at a time in all`,
      [POOL_BUSY]: `all ${o.capacity} database connections stayed in use`,
    }[code]!;
    return Object.assign(new Error(message), { code });
  }

  private take(who: Asker, by: 1 | -1): void {
    this.total += by;
    bump(this.users, who.userId, by);
    bump(this.tenants, who.tenant, by);
    if (who.costly) {
      this.costlyTotal += by;
      bump(this.costlyTenants, who.tenant, by);
    }
  }

  /**
   * Gives slots to waiting requests while any may have one: each time the admissible waiter whose
   * tenant holds the fewest slots, the earliest among equals. A waiter held by its own bound (its
   * user's share, the costly lane) never holds back one that is not.
   */
  private pump(): void {
    for (;;) {
      let best: Waiter | undefined;
      let bestHeld = 0;
      for (const w of this.waiting) {
        if (!this.admissible(w.who)) continue;
        const held = this.tenants.get(w.who.tenant) ?? 0;
        if (!best || held < bestHeld || (held === bestHeld && w.seq < best.seq)) {
          best = w;
          bestHeld = held;
        }
      }
      if (!best) return;
      best.admit();
    }
  }
}
