// The per-request transaction. Every request enters its tenant with app_enter() (migration 0009):
// it checks the user and their membership of the chosen client, sets the transaction-local
// settings row-level security reads, and returns the caller's role; the request then runs as the
// app role (NOBYPASSRLS). Settings are transaction-local, so a pooled connection (or PgBouncer in
// transaction mode) never carries them into another request.
import type { Db, Tx } from "./client.ts";
import { APP_ROLE } from "./roles.ts";
import { CLIENT_GONE, type UserConnectionGate } from "./gate.ts";
import { onReadDb } from "./replica.ts";

/**
 * What bounds one request's statements (app.ts sets them for every signed-in request): the
 * statement timeout (transaction-local, so a pooled connection never carries it further), the
 * request's signal (the client disconnecting cancels the running statement) and the per-user
 * share of the pool (gate.ts). Absent: no bound (migrations, tests of the engine).
 */
export interface StatementLimits {
  statementTimeoutMs?: number;
  signal?: AbortSignal;
  gate?: UserConnectionGate;
  /** The request's slot of its user's share while it holds connections (set here, per request). */
  slot?: { count: number; taking: Promise<() => void> | null };
}

/**
 * The request's slot of the user's share, taken by its first connection and given back by its
 * last: a request's own nested or parallel transactions never wait for one another (a transaction
 * opened inside another would otherwise wait for a slot its own request holds).
 */
async function takeSlot(l: StatementLimits, userId: number): Promise<() => void> {
  if (!l.gate) return () => {};
  const slot = (l.slot ??= { count: 0, taking: null });
  slot.count++;
  let free: () => void;
  try {
    free = await (slot.taking ??= l.gate.acquire(userId, l.signal));
  } catch (e) {
    if (--slot.count === 0) slot.taking = null;
    throw e;
  }
  let done = false;
  return () => {
    if (done) return;
    done = true;
    if (--slot.count === 0) {
      slot.taking = null;
      free();
    }
  };
}

export interface TenantRequest {
  userId: number;
  /** The client the request names (clientId header), or null. */
  clientId: number | null;
  /** requestscope: descendants — the client and every client beneath it. */
  descendants: boolean;
  /** The login session the access token belongs to; null for system callers (jobs). */
  sessionId?: string | null;
  limits?: StatementLimits;
}

/** The caller's role on the chosen client: 1 Admin, 2 User, 3 Viewer, 0 staff; null without a client. */
export type EffectiveRole = 0 | 1 | 2 | 3 | null;

function uuid(x: string): string {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(x)) throw new Error("bad session id");
  return x;
}

function int(x: number): string {
  if (!Number.isSafeInteger(x)) throw new Error(`bad id ${x}`);
  return String(x);
}

/**
 * A tenant entry's outcome as the database last gave it to this process, with the epoch it was
 * computed under (migration 0042): the next entry of the same user, session, client and scope
 * hands it back, and app_tenant_resume() reuses it only while the epoch is unchanged, i.e. while
 * no session, user, membership or client changed since; otherwise app_enter decides afresh.
 */
interface Entered {
  role: EffectiveRole;
  epoch: string;
  clientIds: string;
  allClients: boolean;
  expires: string | null;
}

/** How many outcomes a process keeps per database (the newest). */
export const ENTRIES_KEPT = 10_000;

/** Per connection pool (a database, or its replica): outcomes by user, session, client and scope. */
const remembered = new WeakMap<Db, Map<string, Entered>>();

const entryKey = (t: TenantRequest) => `${t.userId}/${t.sessionId ?? ""}/${t.clientId ?? ""}/${t.descendants ? 1 : 0}`;

function rememberedOf(db: Db): Map<string, Entered> {
  let m = remembered.get(db);
  if (!m) remembered.set(db, (m = new Map()));
  return m;
}

/** The enter text's results, one per statement: app_tenant_resume's answer is the last. */
type EnterResult = unknown[];

interface Enter {
  text: string;
  /** The remembered outcome the text makes, if any. */
  used: Entered | undefined;
}

const OUTCOME = /^(\d*)\|(-?\d{1,19})\|([0-9,]*)\|(on|off)\|([0-9 :.+\-T]*)$/;

/** Keeps what the database said; returns the role the transaction entered with. */
function entered(db: Db, t: TenantRequest, e: Enter, result: EnterResult): EffectiveRole {
  const out = (result.at(-1) as { outcome?: string | null }[] | undefined)?.[0]?.outcome;
  if (out === null && e.used) return e.used.role;
  const m = out ? OUTCOME.exec(out) : null;
  if (!m) throw new Error("the tenant entry answered unexpectedly");
  const role = (m[1] ? Number(m[1]) : null) as EffectiveRole;
  const map = rememberedOf(db);
  const key = entryKey(t);
  if (!map.has(key) && map.size >= ENTRIES_KEPT) map.delete(map.keys().next().value!);
  map.set(key, { role, epoch: m[2]!, clientIds: m[3]!, allClients: m[4] === "on", expires: m[5] || null });
  return role;
}

/** The entry failed (a revoked session, no membership): nothing of it is reused. */
function forget(db: Db, t: TenantRequest): void {
  remembered.get(db)?.delete(entryKey(t));
}

/**
 * BEGIN and the tenant entry as one simple-protocol message (one round trip, no prepared
 * statement): the app role and the statement timeout (SET LOCAL: utility statements, which
 * PostgreSQL runs without the function lookup and planning a `select set_config(...)` costs on
 * every request), then app_tenant_resume() with the remembered settings, which makes them while
 * nothing they came from has changed and otherwise makes them anew with app_enter (migrations
 * 0042, 0043). The values are integers of the authenticated principal, checked here, never request
 * text, and what the database answered before (checked again here), so formatting them into the
 * text is safe.
 */
function enterText(db: Db, t: TenantRequest): Enter {
  const client = t.clientId === null ? "null" : int(t.clientId);
  const session = t.sessionId ? `'${uuid(t.sessionId)}'` : "null";
  const ms = t.limits?.statementTimeoutMs;
  const timeout = ms ? ` set local statement_timeout = ${int(ms)};` : "";
  const e = remembered.get(db)?.get(entryKey(t));
  const used = e && /^-?\d{1,19}$/.test(e.epoch) && /^[0-9,]*$/.test(e.clientIds) && (e.expires === null || /^[0-9 :.+\-T]+$/.test(e.expires)) ? e : undefined;
  const settings = used ? `'${used.clientIds}', ${used.allClients}` : "null, null";
  const known = used ? `${used.epoch}` : "null";
  const expires = used?.expires ? `'${used.expires}'` : "null";
  return {
    text: `begin; set local role ${APP_ROLE};${timeout} select app_tenant_resume(${known}, ${int(t.userId)}, ${client}, ${t.descendants}, ${session}, ${expires}, ${settings}) as outcome`,
    used,
  };
}

type Reserved = Awaited<ReturnType<Db["reserve"]>>;

interface Held {
  c: Reserved;
  /** The first statement on the connection: cancelling it cancels whatever the backend runs then. */
  cancelWith(q: unknown): void;
  release(): Promise<void>;
}

/**
 * A reserved connection within the user's share of the pool. When the request's client goes
 * away, the statement running on it is cancelled (PostgreSQL's cancel request, on a socket of its
 * own, not a pooled connection); the connection goes back only once the cancel has reached the
 * server, so it can never cancel the next request's statement.
 */
async function hold(db: Db, t: TenantRequest): Promise<Held> {
  const l = t.limits;
  if (l?.signal?.aborted) throw Object.assign(new Error("the client went away"), { code: CLIENT_GONE });
  const free = l ? await takeSlot(l, t.userId) : () => {};
  let c: Reserved;
  try {
    c = await db.reserve();
  } catch (e) {
    free();
    throw e;
  }
  // The connection's first statement carries the backend's cancel key (its `state`). postgres.js
  // sends a cancel request only for a query it marks active, and clears the mark once the query
  // has answered; set again, cancel() cancels whatever that backend runs now: this request's
  // statement, the connection being reserved for it until release() (which waits for the cancel).
  let first: { cancel(): unknown; state?: unknown; active?: boolean } | null = null;
  let cancelling: Promise<unknown> | null = null;
  const onAbort = () => {
    if (!first || cancelling) return;
    if (first.state) first.active = true;
    cancelling = Promise.resolve(first.cancel()).catch(() => {});
  };
  l?.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    c,
    cancelWith(q) {
      first = q as typeof first;
      if (l?.signal?.aborted) onAbort();
    },
    async release() {
      l?.signal?.removeEventListener("abort", onAbort);
      if (cancelling) await cancelling;
      c.release();
      free();
    },
  };
}

/** Runs fn in the request's tenant transaction; fn learns the caller's effective role. */
export async function withTenant<T>(db: Db, t: TenantRequest, fn: (tx: Tx, role: EffectiveRole) => Promise<T>): Promise<T> {
  return onReadDb(db, (d) => withTenantOn(d, t, fn));
}

async function withTenantOn<T>(db: Db, t: TenantRequest, fn: (tx: Tx, role: EffectiveRole) => Promise<T>): Promise<T> {
  const h = await hold(db, t);
  const c = h.c;
  try {
    const e = enterText(db, t);
    const enter = c.unsafe(e.text);
    h.cancelWith(enter);
    const result = (await enter.catch((err: unknown) => {
      forget(db, t);
      throw err;
    })) as unknown as EnterResult;
    const role = entered(db, t, e, result);
    try {
      const out = await fn(c as unknown as Tx, role);
      await c.unsafe("commit");
      return out;
    } catch (e) {
      await c.unsafe("rollback").catch(() => {});
      throw e;
    }
  } catch (e) {
    // A failed enter leaves an aborted transaction behind: end it before the connection returns.
    await c.unsafe("rollback").catch(() => {});
    throw e;
  } finally {
    await h.release();
  }
}

/**
 * One read statement in a tenant transaction, in a single round trip: once prepared on the
 * reserved connection, the settings, the entry and the statement go out as one query (before the
 * first use, BEGIN, the three and COMMIT, pipelined). If the entry fails (no membership, disabled
 * user) the transaction is aborted, so the statement never runs without its settings.
 */
export async function readAsTenant<T>(db: Db, t: TenantRequest, text: string, params: unknown[]): Promise<T[]> {
  return onReadDb(db, (d) => readAsTenantOn<T>(d, t, text, params));
}

/**
 * The tenant entry as two prepared statements (run before the read's statement, one Sync): the app role and
 * the statement timeout by set_config(..., true), which is transaction-local in any transaction,
 * the implicit one of an extended-protocol pipeline included (`SET LOCAL` would only warn there
 * and do nothing); then app_tenant_resume (0043) with the remembered settings, as a statement of
 * its own so that the timeout bounds it too (PostgreSQL arms the timeout when a statement starts).
 * Every value is a parameter; without a timeout the session's own is kept. The parameters are all text or numbers
 * (booleans as 't'/'f', cast in the text): postgres.js keys a prepared statement by its text and
 * the types it infers from the values (a JavaScript boolean is bool, anything else unknown), so
 * the entry stays one prepared statement whether or not an outcome is remembered.
 */
const LIMITS = `select set_config('role', '${APP_ROLE}', true) as r, set_config('statement_timeout', coalesce($1::text, pg_catalog.current_setting('statement_timeout')), true) as s`;
const ENTRY = `select app_tenant_resume($1::text::bigint, $2::int, $3::int, $4::text::boolean, $5::text::uuid, $6::text::timestamptz, $7::text, $8::text::boolean) as outcome`;

const limitsParams = (t: TenantRequest): unknown[] => [t.limits?.statementTimeoutMs ? int(t.limits.statementTimeoutMs) : null];

function entryParams(db: Db, t: TenantRequest): { params: unknown[]; used: Entered | undefined } {
  const e = remembered.get(db)?.get(entryKey(t));
  const used = e && /^-?\d{1,19}$/.test(e.epoch) && /^[0-9,]*$/.test(e.clientIds) && (e.expires === null || /^[0-9 :.+\-T]+$/.test(e.expires)) ? e : undefined;
  return {
    params: [
      used ? used.epoch : null,
      t.userId,
      t.clientId,
      t.descendants ? "t" : "f",
      t.sessionId ? uuid(t.sessionId) : null,
      used?.expires ?? null,
      used ? used.clientIds : null,
      used ? (used.allClients ? "t" : "f") : null,
    ],
    used,
  };
}

/** The reserved connection as the patched postgres.js gives it (patches/postgres@3.4.9.patch). */
type Pipelining = { isPrepared?(q: unknown): boolean };


async function readAsTenantOn<T>(db: Db, t: TenantRequest, text: string, params: unknown[]): Promise<T[]> {
  if (db.options.prepare) {
    const rows = await readPooled<T>(db, t, text, params);
    if (rows) return rows;
  }
  return readReserved<T>(db, t, text, params);
}

/**
 * The read as one query on the pool, with no reservation: the settings, the entry and the
 * statement, Bind/Execute each and one Sync (postgres.js patched: `before`), so PostgreSQL runs
 * them in one implicit transaction that ends at the Sync; nothing of it stays on the connection
 * for the pool's next query. It counts in the user's share like any request's work. The client
 * going away cancels it (patched: a pooled query is cancelled only while it runs alone on its
 * connection, which takes no other query until the cancel has landed; with another query
 * pipelined behind it, it runs to its end under the statement timeout). Null when no idle
 * connection had the three statements prepared (refused before anything is sent): the reserved
 * path prepares them.
 */
async function readPooled<T>(db: Db, t: TenantRequest, text: string, params: unknown[]): Promise<T[] | null> {
  const l = t.limits;
  if (l?.signal?.aborted) throw Object.assign(new Error("the client went away"), { code: CLIENT_GONE });
  const free = l ? await takeSlot(l, t.userId) : () => {};
  const read = readWithEntry<T>(db, db, t, text, params);
  const onAbort = () => void read.query.cancel();
  l?.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return await read.rows();
  } catch (err) {
    if ((err as { code?: unknown }).code === "BEFORE_UNPREPARED") return null;
    throw err;
  } finally {
    l?.signal?.removeEventListener("abort", onAbort);
    free();
  }
}

/**
 * The read as one query of postgres.js on `sql` (the pool, or a reserved connection) with the
 * settings and the entry before it (patched: `before`): Bind/Execute of each and of the statement,
 * then one Sync. PostgreSQL runs them in one implicit transaction, committed at the Sync; after an
 * error it skips to the Sync, and the query rejects with that error, its `step` telling which
 * statement failed (0 the settings, 1 the entry, 2 the statement). `rows()` awaits it and keeps
 * (or forgets) the entry's outcome.
 */
function readWithEntry<T>(db: Db, sql: Db | Reserved, t: TenantRequest, text: string, params: unknown[]) {
  const ep = entryParams(db, t);
  const before = [
    { text: LIMITS, params: limitsParams(t) },
    { text: ENTRY, params: ep.params },
  ];
  // Safe: `text` is compiled from registry names only (db/sqltext.ts); values are parameters.
  const query = sql.unsafe(text, params as never[], { prepare: true, before } as { prepare: boolean });
  return {
    query,
    async rows(): Promise<T[]> {
      let rows: T[] & { before?: { outcome: string | null }[][] };
      try {
        rows = (await query) as unknown as typeof rows;
      } catch (err) {
        if ((err as { step?: unknown }).step === 1) forget(db, t);
        throw err;
      }
      entered(db, t, { text: "", used: ep.used }, [rows.before![1]]);
      return rows;
    },
  };
}

/** The read on a reserved connection: one query once its statements are prepared there, else BEGIN, the three, COMMIT. */
async function readReserved<T>(db: Db, t: TenantRequest, text: string, params: unknown[]): Promise<T[]> {
  const h = await hold(db, t);
  const c = h.c;
  try {
    // Safe: `text` is compiled from registry names only (db/sqltext.ts); values are parameters.
    if (db.options.prepare) {
      const read = readWithEntry<T>(db, c, t, text, params);
      if ((c as unknown as Pipelining).isPrepared?.(read.query)) {
        h.cancelWith(read.query);
        return await read.rows();
      }
      const ep = entryParams(db, t);
      // First use on this connection: BEGIN, and the statements are described and prepared in
      // the transaction, so the next read on this connection is one round trip.
      const statement = c.unsafe(text, params as never[], { prepare: true });
      const begin = c.unsafe("begin");
      h.cancelWith(begin);
      const settled = await Promise.allSettled([
        begin,
        c.unsafe(LIMITS, limitsParams(t) as never[], { prepare: true }),
        c.unsafe(ENTRY, ep.params as never[], { prepare: true }),
        statement,
        c.unsafe("commit"),
      ]);
      if (settled.some((s) => s.status === "rejected")) await c.unsafe("rollback").catch(() => {});
      const [b, l, en, st, k] = settled;
      if (b.status === "rejected") throw b.reason;
      if (l.status === "rejected") throw l.reason;
      return readSettled<T>(db, t, { text: "", used: ep.used }, [en, st, k], [null, null]);
    }
    const e = enterText(db, t);
    const enter = c.unsafe(e.text);
    h.cancelWith(enter);
    const settled = await Promise.allSettled([
      enter,
      // Safe: `text` is compiled from registry names only (db/sqltext.ts); values are parameters.
      c.unsafe(text, params as never[], { prepare: true }),
      c.unsafe("commit"),
    ]);
    if (settled[0].status === "rejected") forget(db, t);
    else entered(db, t, e, settled[0].value as unknown as EnterResult);
    const failed = settled.find((s) => s.status === "rejected");
    if (failed) throw (failed as PromiseRejectedResult).reason;
    return (settled[1] as PromiseFulfilledResult<unknown>).value as T[];
  } finally {
    await h.release();
  }
}

/** The pipelined entry's and statement's outcomes (and COMMIT's, if sent): the rows, or the first error. */
function readSettled<T>(db: Db, t: TenantRequest, e: Enter, settled: PromiseSettledResult<unknown>[], before: [unknown, unknown]): T[] {
  const [en, st] = settled;
  if (en!.status === "rejected") {
    forget(db, t);
    throw en.reason;
  }
  entered(db, t, e, [...before, en!.value as { outcome: string | null }[]]);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return (st as PromiseFulfilledResult<unknown>).value as T[];
}

/**
 * Several read statements in one tenant transaction, in a single round trip: the entry, every
 * statement `fn` starts before it first awaits a result, and COMMIT are pipelined on a reserved
 * connection. postgres.js hands a statement to the connection a few microtasks after it is
 * awaited, so the entry is started first, and COMMIT only after a macrotask turn, when every
 * statement fn started is queued. A statement started later (after an awaited result) would queue
 * behind COMMIT, outside the transaction and its role: the handle fn gets refuses any use from
 * then on. A failed entry aborts the transaction, so no statement runs without its settings; its
 * error is the one thrown.
 */
export async function readManyAsTenant<T>(db: Db, t: TenantRequest, fn: (tx: Tx) => Promise<T>): Promise<{ value: T; role: EffectiveRole }> {
  return onReadDb(db, (d) => readManyAsTenantOn(d, t, fn));
}

async function readManyAsTenantOn<T>(db: Db, t: TenantRequest, fn: (tx: Tx) => Promise<T>): Promise<{ value: T; role: EffectiveRole }> {
  const h = await hold(db, t);
  const c = h.c;
  try {
    const entry = enterText(db, t);
    const enterQuery = c.unsafe(entry.text);
    h.cancelWith(enterQuery);
    const enter = (enterQuery as unknown as { execute(): Promise<EnterResult> }).execute();
    let open = true;
    const closed = () => new Error("readManyAsTenant: a statement was started after an awaited result, outside the transaction");
    const guarded = new Proxy(c, {
      apply(target, self, args) {
        if (!open) throw closed();
        return Reflect.apply(target as unknown as (...a: unknown[]) => unknown, self, args);
      },
      get(target, prop) {
        const v = Reflect.get(target, prop) as unknown;
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          if (!open) throw closed();
          return (v as (...a: unknown[]) => unknown).apply(target, args);
        };
      },
    });
    const work = fn(guarded as unknown as Tx);
    // Settled below; until then an early failure must not count as unhandled.
    work.catch(() => {});
    enter.catch(() => {});
    await new Promise((r) => (globalThis.setImmediate ?? setTimeout)(r));
    open = false;
    const commit = c.unsafe("commit");
    const [e, w, k] = await Promise.allSettled([enter, work, commit]);
    if (e.status === "rejected") {
      forget(db, t);
      throw e.reason;
    }
    const role = entered(db, t, entry, e.value);
    if (w.status === "rejected") throw w.reason;
    if (k.status === "rejected") throw k.reason;
    return { value: w.value, role };
  } catch (err) {
    await c.unsafe("rollback").catch(() => {});
    throw err;
  } finally {
    await h.release();
  }
}
