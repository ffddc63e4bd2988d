// Notifications (SPEC 4 and 7): a person's list (Notifications All), MarkAsRead, and the one
// helper that raises a notification: its row and its realtime event on user-{id}, in the caller's
// transaction (the event goes out at COMMIT, never for a rolled-back change). Every domain raises
// its notifications through it; watchers' status notifications are raised by the database
// (migration 0018) and published from there.
import type { Db, Tx } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { publish, userChannel, USER_NOTIFICATION_EVENTS } from "../../jobs/channel.ts";
import * as q from "./notifications.sql.ts";

export type NotificationEvent = (typeof USER_NOTIFICATION_EVENTS)[number];
const isEvent = (name: string): name is NotificationEvent => (USER_NOTIFICATION_EVENTS as readonly string[]).includes(name);

export interface RaiseInput {
  userId: number;
  clientId: number | null;
  /** A notification_types name, which is also the realtime event's name. */
  type: NotificationEvent;
  title?: string;
  body?: string | null;
  projectId?: number | null;
  url?: string | null;
  data?: Record<string, unknown>;
}

/** Inserts a notification for a user and publishes it on user-{id}; answers its id. */
export async function raise(tx: Db | Tx, n: RaiseInput): Promise<number> {
  const t = await q.typeByName(tx, n.type);
  if (!t) throw new Error(`unknown notification type ${n.type}`);
  const title = n.title ?? t.defaultTitle;
  const data = { ...(n.projectId ? { projectId: n.projectId } : {}), ...(n.clientId ? { clientId: n.clientId } : {}), ...n.data };
  const id = await q.insert(tx, {
    userId: n.userId,
    clientId: n.clientId,
    typeId: t.id,
    title,
    body: n.body ?? null,
    projectId: n.projectId ?? null,
    url: n.url ?? null,
    data,
  });
  await publish(tx, {
    channel: userChannel(n.userId),
    event: n.type,
    data: { notificationId: id, notificationTypeId: t.id, title, body: n.body ?? null, url: n.url ?? null, ...data },
    userId: n.userId,
    clientId: n.clientId,
  });
  return id;
}

/**
 * raise() at most once per job: a job run again (its worker died after the commit, before pg-boss
 * recorded the completion) finds the notification of its earlier run and returns that one. The
 * advisory lock serialises two deliveries of the same job.
 */
export async function raiseOncePerJob(tx: Tx, jobId: string, n: RaiseInput): Promise<number> {
  await tx`select pg_advisory_xact_lock(hashtextextended(${`notification-job-${jobId}`}, 0))`;
  const done = await q.idByJob(tx, n.userId, jobId);
  return done ?? raise(tx, { ...n, data: { ...n.data, jobId } });
}

/** The person's own transaction: no client (their notifications span clients; migration 0018). */
function asSelf<T>(db: Db, ctx: RequestCtx, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return enterTenant(db, { ...ctx, clientId: null, descendants: false }, (tx) => fn(tx));
}

export interface Page {
  top: number;
  skip: number;
  unreadOnly: boolean;
  /** Only notifications with a larger id (catch-up after a reconnect); null: all. */
  sinceId?: number | null;
}

export async function all(db: Db, ctx: RequestCtx, page: Page) {
  const me = ctx.principal.userId;
  return asSelf(db, ctx, async (tx) => {
    const value = await q.listOwn(tx, me, page);
    const c = await q.counts(tx, me);
    return { value, count: c.total, unreadCount: c.unread };
  });
}

export async function markAsRead(db: Db, ctx: RequestCtx, input: { ids?: number[]; all?: boolean }) {
  const me = ctx.principal.userId;
  return asSelf(db, ctx, async (tx) => {
    const ids = await q.markRead(tx, me, input.all ? "all" : (input.ids ?? []));
    const c = await q.counts(tx, me);
    return { markedIds: ids, unreadCount: c.unread };
  });
}

export interface SendInput {
  userId: number;
  notificationTypeId: number;
  title?: string;
  body?: string | null;
  url?: string | null;
  clientId?: number | null;
  projectId?: number | null;
  data?: Record<string, unknown>;
}

/** Staff send a notification to a person (the generic POST, like CommandRunner TestNotification). */
export async function send(db: Db, ctx: RequestCtx, input: SendInput): Promise<q.NotificationRow> {
  return enterTenant(db, { ...ctx, clientId: null, descendants: false }, async (tx) => {
    if (!(await q.userExists(tx, input.userId))) throw new ApiError("NotFound", `Users(${input.userId}) not found`);
    const t = await q.typeById(tx, input.notificationTypeId);
    if (!t || !isEvent(t.name)) {
      throw new ApiError("ValidationError", `No notification type ${input.notificationTypeId}`, undefined, [{ path: "notificationTypeId", message: "Not a NotificationTypes id" }]);
    }
    const id = await raise(tx, {
      userId: input.userId,
      clientId: input.clientId ?? null,
      type: t.name,
      title: input.title,
      body: input.body ?? null,
      projectId: input.projectId ?? null,
      url: input.url ?? null,
      data: { ...input.data, sentByUserId: ctx.principal.userId },
    }).catch((e: unknown) => {
      if ((e as { code?: string }).code === "23503") throw new ApiError("Conflict", "The client or project does not exist", (e as { detail?: string }).detail);
      throw e;
    });
    return (await q.byId(tx, id))!;
  });
}
