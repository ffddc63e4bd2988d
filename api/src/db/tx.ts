// The per-request transaction. Every request enters its tenant with app_enter() (migration 0009):
// it checks the user and their membership of the chosen client, sets the transaction-local
// settings row-level security reads, and returns the caller's role; the request then runs as the
// app role (NOBYPASSRLS). Settings are transaction-local, so a pooled connection (or PgBouncer in
// transaction mode) never carries them into another request.
import type postgres from "postgres";
import type { Db, SqlParams, Tx } from "./client.ts";
import { cancelBackend, type CancelKey } from "./cancel.ts";
import { APP_ROLE } from "./roles.ts";
import { CLIENT_GONE, tenantKey, type ConnectionGate } from "./gate.ts";
import { onReadDb } from "./replica.ts";

/**
 * What bounds one request's statements (app.ts sets them for every signed-in request): the
 * statement timeout (transaction-local, so a pooled connection never carries it further), the
 * request's signal (the client disconnecting cancels the running statement) and the fair shares
 * of the pool (gate.ts: the user's, the tenant's, the costly lane). Absent: no bound (migrations,
 * tests of the engine).
 */
export interface StatementLimits {
  statementTimeoutMs?: number;
  signal?: AbortSignal;
  gate?: ConnectionGate;
  /** The request was weighed as costly before it ran (app.ts, entities/service.ts): it also needs a slot of the gate's costly lane. */
  costly?: boolean;
  /** The request's slot of its user's share while it holds connections (set here, per request). */
  slot?: { count: number; taking: Promise<() => void> | null };
}

/**
 * The request's slot of the gate, taken by its first connection and given back by its last: a
 * request's own nested or parallel transactions never wait for one another (a transaction opened
 * inside another would otherwise wait for a slot its own request holds).
 */
async function takeSlot(l: StatementLimits, t: TenantRequest): Promise<() => void> {
  if (!l.gate) return () => {};
  l.slot ??= { count: 0, taking: null };
  const slot = l.slot;
  slot.count++;
  let free: () => void;
  try {
    slot.taking ??= l.gate.acquire({ userId: t.userId, tenant: tenantKey(t.clientId, t.userId), costly: l.costly }, l.signal);
    free = await slot.taking;
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
  if (!m) {
    m = new Map();
    remembered.set(db, m);
  }
  return m;
}

/**
 * The enter text's results (a simple query of several statements: postgres.js answers one result
 * per statement from the first that returns rows): app_tenant_resume's answer is the last. Each
 * carries the backend's cancel key (`state`).
 */
type EnterResult = postgres.RowList<{ outcome?: string | null }[]>[];

interface Enter {
  text: string;
  /** The remembered outcome the text makes, if any. */
  used: Entered | undefined;
}

const OUTCOME = /^(\d*)\|(-?\d{1,19})\|([0-9,]*)\|(on|off)\|([0-9 :.+\-T]*)$/;

/** Keeps what the database said; returns the role the transaction entered with. */
function entered(db: Db, t: TenantRequest, e: Enter, result: EnterResult): EffectiveRole {
  const out = result.at(-1)?.[0]?.outcome;
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

const gone = () => Object.assign(new Error("the client went away"), { code: CLIENT_GONE });

interface Held {
  c: Reserved;
  /** Learns the backend's cancel key from the entry's answer (the first on the connection). */
  keyFrom(result: EnterResult): void;
  release(): Promise<void>;
}

/**
 * A reserved connection within the request's fair share of the pool (gate.ts). When the request's client goes
 * away, whatever the connection's backend runs is cancelled: PostgreSQL's cancel request with the
 * backend's key (db/cancel.ts), on a socket of its own, once the entry has answered (its result
 * carries the key; a client gone before that is cancelled as soon as it does, and the entry itself
 * runs under the statement timeout). The connection goes back only once the cancel request's socket
 * has closed (the server signals the backend before closing it), so it can never cancel the next
 * request's statement. Only held connections are ever cancelled: on the pool the backend's next
 * statement could be another caller's.
 */
async function hold(db: Db, t: TenantRequest): Promise<Held> {
  const l = t.limits;
  if (l?.signal?.aborted) throw gone();
  const free = l ? await takeSlot(l, t) : () => {};
  let c: Reserved;
  try {
    c = await db.reserve();
  } catch (e) {
    free();
    throw e;
  }
  if (l?.signal?.aborted) {
    c.release();
    free();
    throw gone();
  }
  let key: CancelKey | null = null;
  let wanted = false;
  let cancelling: Promise<void> | null = null;
  const cancel = () => {
    if (key && !cancelling) cancelling = cancelBackend(db, key);
  };
  const onAbort = () => {
    wanted = true;
    cancel();
  };
  l?.signal?.addEventListener("abort", onAbort, { once: true });
  return {
    c,
    keyFrom(result) {
      const s = result.at(-1)?.state;
      if (s && !key) key = { pid: s.pid, secret: s.secret };
      if (wanted) cancel();
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
    const result = await c.unsafe<EnterResult>(e.text).catch((err: unknown) => {
      forget(db, t);
      throw err;
    });
    h.keyFrom(result);
    const role = entered(db, t, e, result);
    // Gone while the entry ran: fn's statements are not started.
    if (t.limits?.signal?.aborted) throw gone();
    try {
      const out = await fn(c, role);
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
 * A read's answers count only if its transaction committed. COMMIT answers ROLLBACK when a
 * statement in the transaction failed; one that failed and still answered was retried by
 * postgres.js on its own (a prepared statement whose cached plan went stale), after the pipelined
 * COMMIT, outside the transaction and its role: its rows are the connection owner's, never given.
 */
function mustHaveCommitted(commit: { command: string }): void {
  if (commit.command !== "COMMIT") {
    throw new Error(`the read's transaction ended in ${commit.command}: a statement answered outside it (retried by the driver) and was not used`);
  }
}

/**
 * One read statement in a tenant transaction, in a single round trip: the entry (BEGIN, the app
 * role, the statement timeout and app_tenant_resume, one simple query), the statement and COMMIT
 * are pipelined on a reserved connection. If the entry fails (no membership, disabled user) the
 * transaction is aborted, so the statement never runs without its settings.
 */
export async function readAsTenant<T>(db: Db, t: TenantRequest, text: string, params: SqlParams): Promise<T[]> {
  return onReadDb(db, (d) => readAsTenantOn<T>(d, t, text, params));
}

async function readAsTenantOn<T>(db: Db, t: TenantRequest, text: string, params: SqlParams): Promise<T[]> {
  const h = await hold(db, t);
  const c = h.c;
  try {
    const e = enterText(db, t);
    const enter = c.unsafe<EnterResult>(e.text).then((r) => {
      h.keyFrom(r);
      return r;
    });
    const [en, st, k] = await Promise.allSettled([
      enter,
      // Safe: `text` is compiled from registry names only (db/sqltext.ts); values are parameters.
      c.unsafe<T[]>(text, params, { prepare: true }),
      c.unsafe("commit"),
    ]);
    if (en.status === "rejected") {
      forget(db, t);
      throw en.reason;
    }
    entered(db, t, e, en.value);
    if (st.status === "rejected") throw st.reason;
    if (k.status === "rejected") throw k.reason;
    mustHaveCommitted(k.value);
    return st.value;
  } catch (err) {
    // The COMMIT itself may have failed (a disconnect's cancel landing on it): the transaction is
    // then still open, and the connection must not go back to the pool inside it (issue 38: the
    // next caller of the pool, a sign-in, ran in it and answered 500, 25P02).
    await c.unsafe("rollback").catch(() => {});
    throw err;
  } finally {
    await h.release();
  }
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
    const enter = c
      .unsafe<EnterResult>(entry.text)
      .execute()
      .then((r) => {
        h.keyFrom(r);
        return r;
      });
    let open = true;
    const closed = () => new Error("readManyAsTenant: a statement was started after an awaited result, outside the transaction");
    const guarded = new Proxy(c, {
      apply(target, self, args) {
        if (!open) throw closed();
        return Reflect.apply(target, self, args);
      },
      get(target, prop) {
        const v: unknown = Reflect.get(target, prop);
        if (typeof v !== "function") return v;
        return (...args: unknown[]) => {
          if (!open) throw closed();
          return v.apply(target, args);
        };
      },
    });
    const work = fn(guarded);
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
    mustHaveCommitted(k.value);
    return { value: w.value, role };
  } catch (err) {
    await c.unsafe("rollback").catch(() => {});
    throw err;
  } finally {
    await h.release();
  }
}
