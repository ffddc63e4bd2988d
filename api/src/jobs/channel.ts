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
import postgres from "postgres";
import { reconnectBackoff, type Db, type Tx } from "../db/client.ts";

/** The one PostgreSQL NOTIFY channel all API processes share. */
export const EVENTS_CHANNEL = "ideally_events";

/** PostgreSQL refuses payloads of 8000 bytes or more; keep a margin. */
export const MAX_PAYLOAD_BYTES = 7900;

/** The event names SPEC.md section 4 lists ("Real-time events"). */
export const JOB_EVENTS = ["Progress", "Success", "Error"] as const;
export const PROJECT_EVENTS = ["ProjectUpdated", "IncidenceEstimateUpdated"] as const;
export const USER_NOTIFICATION_EVENTS = [
  "SurveySubmittedForApproval",
  "SurveyApproved",
  "SurveyApprovalDeclined",
  "ProjectSentOutForSurvey",
  "ProjectReady",
  "PasswordReset",
  "UserAddedToTeam",
  "CustomPanelProjectReadyForSurvey",
  // Not in SPEC 4's list: a scheduled wave that cannot start (its notification type, migration 0017).
  "ScheduleBlocked",
  // Not in SPEC 4: a project shared with an existing account (docs/decisions.md, sharing).
  "ProjectShared",
  // Not in SPEC 4: field periods (migration 0036; docs/decisions.md "Field periods").
  "SurveyStalled",
  "SurveyClosedShort",
] as const;
/**
 * The results chat's answer as it is written (user-{id} of the thread's owner; docs/decisions.md
 * "AI"): Started, Delta (text pieces in order, `seq` from 0), then Completed or Failed.
 */
export const AI_CHAT_EVENTS = ["AiMessageStarted", "AiMessageDelta", "AiMessageCompleted", "AiMessageFailed"] as const;
/**
 * Server-only events that end sockets (realtime/hub.ts acts on them and never forwards them): raised
 * by database triggers (migration 0034) when a login session ends or a membership is removed.
 * Clients cannot send them: a client's broadcast must be named client:<name>.
 */
export const SOCKET_CONTROL_EVENTS = ["SessionEnded", "MembershipRemoved"] as const;
export type JobEventName = (typeof JOB_EVENTS)[number];
/** Events a websocket client broadcasts to its peers on a joined channel (realtime/hub.ts). */
export type ClientEventName = `client:${string}`;
export type EventName =
  | JobEventName
  | (typeof PROJECT_EVENTS)[number]
  | (typeof USER_NOTIFICATION_EVENTS)[number]
  | (typeof AI_CHAT_EVENTS)[number]
  | (typeof SOCKET_CONTROL_EVENTS)[number]
  | ClientEventName;
const EVENT_NAMES: ReadonlySet<string> = new Set<string>([...JOB_EVENTS, ...PROJECT_EVENTS, ...USER_NOTIFICATION_EVENTS, ...AI_CHAT_EVENTS, ...SOCKET_CONTROL_EVENTS]);
const CLIENT_EVENT = /^client:[A-Za-z0-9_.-]{1,40}$/;
const knownEvent = (name: string) => EVENT_NAMES.has(name) || CLIENT_EVENT.test(name);

/** `job-{uuid}`, `user-{id}` or `client-{id}`. */
export type ChannelName = `job-${string}` | `user-${number}` | `client-${number}`;
const CHANNEL_NAME = /^(job-[0-9a-f-]{36}|user-\d+|client-\d+)$/;

export const jobChannel = (jobId: string): ChannelName => `job-${jobId}`;
export const userChannel = (userId: number): ChannelName => `user-${userId}`;
export const clientChannel = (clientId: number): ChannelName => `client-${clientId}`;

/** One event as it travels through NOTIFY. */
export interface ChannelEvent<D = unknown> {
  channel: ChannelName;
  event: EventName;
  data: D;
  /**
   * Routing for the websocket layer: the user (and client) the event concerns. Job events carry
   * whoever enqueued the job, so they can also be sent to `user-{userId}` and the client channel.
   */
  userId?: number | null;
  clientId?: number | null;
  /** Set when `data` was dropped because the event was over NOTIFY's payload limit. */
  truncated?: true;
}

/** Data of the job channel's events. */
export interface ProgressData {
  jobId: string;
  name: string;
  /** 0 to 100, whole numbers. */
  pct: number;
  message?: string;
}
export interface SuccessData {
  jobId: string;
  name: string;
  /** The handler's (small, JSON) result; null when it returned nothing. */
  result: unknown;
  /** Set when the result was too large for an event (the job's output in pg-boss keeps it). */
  resultOmitted?: true;
}
export interface ErrorData {
  jobId: string;
  name: string;
  /** The error's message only: never a stack. */
  message: string;
  /** 1 for the first run. */
  attempt: number;
  /** True when the queue will run the job again after its backoff delay. */
  willRetry: boolean;
}

const encoder = new TextEncoder();

/** The NOTIFY payload for an event, within the payload limit. */
export function encodeEvent(ev: ChannelEvent): string {
  if (!CHANNEL_NAME.test(ev.channel)) throw new Error(`bad event channel ${JSON.stringify(ev.channel)}`);
  if (!knownEvent(ev.event)) throw new Error(`unknown event ${JSON.stringify(ev.event)}`);
  const text = JSON.stringify(ev);
  if (encoder.encode(text).length <= MAX_PAYLOAD_BYTES) return text;
  return JSON.stringify({ ...ev, data: null, truncated: true });
}

/** Parses a payload from the channel; null for anything that is not an event (never throws). */
export function decodeEvent(payload: string): ChannelEvent | null {
  try {
    const ev = JSON.parse(payload) as ChannelEvent;
    if (!ev || typeof ev !== "object" || typeof ev.channel !== "string" || !CHANNEL_NAME.test(ev.channel)) return null;
    if (typeof ev.event !== "string" || !knownEvent(ev.event)) return null;
    return ev;
  } catch {
    return null;
  }
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
export async function subscribe(
  url: string,
  onEvent: (ev: ChannelEvent) => void,
  opts: SubscribeOptions = {},
): Promise<() => Promise<void>> {
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
