// The event channel: every realtime event (job progress, project updates, user notifications) is
// one PostgreSQL NOTIFY on IDEALLY_EVENTS, so every API process sees every event, whichever
// process raised it; each process LISTENs once (subscribe) and its websocket layer fans the
// events out to the browsers joined to `user-{userId}`, the client channel and `job-{jobId}`.
//
// Delivery follows NOTIFY: an event published inside a transaction is sent at COMMIT and never on
// ROLLBACK; it reaches only listeners connected at that moment (no replay), so an event is a hint
// to refetch or update a progress bar, never the record itself: the database is.
//
// NOTIFY payloads must stay under 8000 bytes. An event whose JSON is larger is sent with
// `data: null, truncated: true` (same channel and event name), so the receiver still learns that
// something happened and can fetch the details.
import { z } from "@hono/zod-openapi";
import postgres from "postgres";
import { parseLiveEvent, parseSocketControlEvent, type DeclaredEvent, type LiveEvent, type SocketControlEvent } from "@ideally/contracts/events";
import { reconnectBackoff, type Db, type Tx } from "../db/client.ts";

/** The one PostgreSQL NOTIFY channel all API processes share. */
export const EVENTS_CHANNEL = "ideally_events";

/** PostgreSQL refuses payloads of 8000 bytes or more; keep a margin. */
export const MAX_PAYLOAD_BYTES = 7900;

/**
 * Every event, its channel and its data are declared once in contracts/events.ts (issue 34); this
 * module publishes only what those declare and decodes the channel with the same schemas.
 */
export {
  AI_CHAT_EVENTS,
  JOB_EVENTS,
  PROJECT_EVENTS,
  SOCKET_CONTROL_EVENTS,
  USER_NOTIFICATION_EVENTS,
  type BroadcastName,
  type ChannelName,
  type ErrorData,
  type ProgressData,
  type SuccessData,
} from "@ideally/contracts/events";

export const jobChannel = (jobId: string): `job-${string}` => `job-${jobId}`;
export const userChannel = (userId: number): `user-${number}` => `user-${userId}`;
export const clientChannel = (clientId: number): `client-${number}` => `client-${clientId}`;

/**
 * Routing for the websocket layer: the user (and client) the event concerns. Job events carry
 * whoever enqueued the job (a job channel's events reach only that user).
 */
const Routing = z.object({ userId: z.int().nullable().optional(), clientId: z.int().nullable().optional() });
type Routing = z.infer<typeof Routing>;

/** One event as it is published: a declared event and its routing. */
export type ChannelEvent = DeclaredEvent & Routing;
/** One event as it travels through NOTIFY: a declared event (or its truncated form, or a server-only one) and its routing. */
export type NotifiedEvent = (LiveEvent | SocketControlEvent) & Routing;

const encoder = new TextEncoder();

/**
 * The NOTIFY payload for an event, within the payload limit. An event its declaration refuses (a
 * field of the wrong type, an event on a channel it does not go to) throws: nothing undeclared is sent.
 */
export function encodeEvent(ev: ChannelEvent): string {
  const parsed = parseLiveEvent(ev);
  if (!parsed.ok) throw new Error(`undeclared event: ${parsed.error}`);
  const routing = Routing.parse(ev);
  const text = JSON.stringify({ ...parsed.value, ...routing });
  if (encoder.encode(text).length <= MAX_PAYLOAD_BYTES) return text;
  return JSON.stringify({ channel: ev.channel, event: ev.event, data: null, truncated: true, ...routing });
}

/** Parses a payload from the channel: the declared event with its declared fields, or null for anything else (never throws). */
export function decodeEvent(payload: string): NotifiedEvent | null {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return null;
  }
  const routing = Routing.safeParse(raw);
  if (!routing.success) return null;
  const ev = parseLiveEvent(raw);
  if (ev.ok) return { ...ev.value, ...routing.data };
  const control = parseSocketControlEvent(raw);
  return control.ok ? { ...control.value, ...routing.data } : null;
}

/**
 * Publishes an event to every API process. Given a transaction, the event is sent when it commits
 * (and dropped if it rolls back); given the pool, at once.
 */
export async function publish(sql: Db | Tx, ev: ChannelEvent): Promise<void> {
  await sql`select pg_notify(${EVENTS_CHANNEL}, ${encodeEvent(ev)})`;
}

/**
 * Publishes several events in one statement: one transaction, so they arrive together and in
 * this order (PostgreSQL delivers a transaction's notifications in the order they were sent).
 */
export async function publishMany(sql: Db | Tx, evs: ChannelEvent[]): Promise<void> {
  if (!evs.length) return;
  const payloads = evs.map(encodeEvent);
  // Safe: the text is only placeholders; the channel and the payloads are parameters.
  await sql.unsafe(`select ${payloads.map((_, i) => `pg_notify($1, $${i + 2})`).join(", ")}`, [EVENTS_CHANNEL, ...payloads]);
}

export interface SubscribeOptions {
  /** Called after LISTEN is in place, and again after each reconnect (events sent meanwhile are lost). */
  onListen?: () => void;
  /** Called when onEvent throws; the subscription carries on. */
  onError?: (e: unknown) => void;
}

/**
 * LISTENs on the event channel over a connection of its own (postgres.js reconnects it and
 * re-LISTENs after a drop). Resolves once LISTEN is in place, with the function that ends it.
 */
export async function subscribe(url: string, onEvent: (ev: NotifiedEvent) => void, opts: SubscribeOptions = {}): Promise<() => Promise<void>> {
  const sql = postgres(url, { max: 1, onnotice: () => {}, backoff: reconnectBackoff, connection: { application_name: "ideally-events" } });
  let sub: postgres.ListenMeta;
  try {
    sub = await sql.listen(
      EVENTS_CHANNEL,
      (payload) => {
        const ev = decodeEvent(payload);
        if (!ev) return;
        try {
          onEvent(ev);
        } catch (e) {
          opts.onError?.(e);
        }
      },
      opts.onListen,
    );
  } catch (e) {
    await sql.end({ timeout: 1 });
    throw e;
  }
  let ended = false;
  return async () => {
    if (ended) return;
    ended = true;
    await sub.unlisten().catch(() => {});
    await sql.end({ timeout: 1 });
  };
}
