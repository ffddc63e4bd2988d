// A per-user cap on pooled connections: one user holds at most `perUser` of the pool at once, so
// twelve costly requests from one account cannot take the connections every other tenant needs.
// A request over its user's share waits (first come, first served) for one of that user's
// connections to come back, at most `waitMs`; then it is refused (USER_CONNECTIONS_BUSY, answered
// 503 with Retry-After by app.ts). A page's burst of cheap calls queues for a few milliseconds.

/** The error code of a refusal; app.ts maps it to 503 with Retry-After. */
export const USER_CONNECTIONS_BUSY = "USER_CONNECTIONS_BUSY";

export interface GateOptions {
  /** Connections one user may hold at once. */
  perUser: number;
  /** Longest wait for one of them, in milliseconds. */
  waitMs: number;
}

/** The error of a request whose client disconnected: nothing is answered, nothing more runs. */
export const CLIENT_GONE = "CLIENT_GONE";
const clientGone = () => Object.assign(new Error("the client went away"), { code: CLIENT_GONE });

export class UserConnectionGate {
  private readonly held = new Map<number, number>();
  private readonly waiting = new Map<number, (() => void)[]>();

  constructor(readonly opts: GateOptions) {}

  /** Connections the user holds now (tests and metrics). */
  holding(userId: number): number {
    return this.held.get(userId) ?? 0;
  }

  /** Waits for a slot of this user's share; resolves to its release (call once). */
  async acquire(userId: number, signal?: AbortSignal): Promise<() => void> {
    if (signal?.aborted) throw clientGone();
    // A released slot is handed straight to the next waiter (the count stays), so a newcomer
    // cannot slip in between.
    if ((this.held.get(userId) ?? 0) >= this.opts.perUser) await this.wait(userId, signal);
    else this.held.set(userId, (this.held.get(userId) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.waiting.get(userId)?.shift();
      if (next) return next();
      const n = (this.held.get(userId) ?? 1) - 1;
      if (n <= 0) this.held.delete(userId);
      else this.held.set(userId, n);
    };
  }

  private wait(userId: number, signal?: AbortSignal): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const queue = this.waiting.get(userId) ?? [];
      this.waiting.set(userId, queue);
      const leave = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        const i = queue.indexOf(wake);
        if (i >= 0) queue.splice(i, 1);
        if (!queue.length && this.waiting.get(userId) === queue) this.waiting.delete(userId);
      };
      const wake = () => {
        leave();
        resolve();
      };
      const onAbort = () => {
        leave();
        reject(clientGone());
      };
      const timer = setTimeout(() => {
        leave();
        reject(Object.assign(new Error(`this account already runs ${this.opts.perUser} database statements at once`), { code: USER_CONNECTIONS_BUSY }));
      }, this.opts.waitMs);
      signal?.addEventListener("abort", onAbort, { once: true });
      queue.push(wake);
    });
  }
}
