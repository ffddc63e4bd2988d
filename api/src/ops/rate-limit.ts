// An in-memory sliding-window rate limit, per key (a client address), for anonymous routes whose
// every call writes (the public survey). Per process: N API processes allow N times the limit,
// which still bounds one address to a small multiple of a real respondent's pace.

export class WindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    readonly max: number,
    readonly windowMs: number,
  ) {}

  /** Counts a hit; 0 when allowed, else the whole seconds until the key may go again (not counted). */
  take(key: string, now = Date.now()): number {
    const since = now - this.windowMs;
    const list = (this.hits.get(key) ?? []).filter((t) => t > since);
    if (list.length >= this.max) {
      this.hits.set(key, list);
      return Math.max(1, Math.ceil((list[0]! + this.windowMs - now) / 1000));
    }
    list.push(now);
    this.hits.set(key, list);
    if (this.hits.size > 10_000) this.sweep(now);
    return 0;
  }

  private sweep(now: number): void {
    for (const [k, list] of this.hits) if (!list.length || list[list.length - 1]! <= now - this.windowMs) this.hits.delete(k);
  }
}
