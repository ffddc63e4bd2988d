// Notifications (SPEC 7): GET Notifications/All (the caller's, newest first, with the unread
// count), POST Notifications/MarkAsRead, and POST Notifications (staff send one to a person; it
// replaces the generic create, which would let anyone write rows). Thin: validate, call, answer.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errorResponse, errors } from "../../openapi.ts";
import * as svc from "./notifications.service.ts";

const tags = ["Notifications"];

export const NotificationItem = z
  .object({
    id: z.number().int(),
    userId: z.number().int(),
    clientId: z.number().int().nullable().describe("The client the notification is about, if any"),
    notificationTypeId: z.number().int(),
    type: z.string().describe("The notification type's name (SurveyApproved, ...), also the realtime event's name"),
    title: z.string(),
    body: z.string().nullable(),
    projectId: z.number().int().nullable(),
    url: z.string().nullable().describe("Where /common/notification-redirect sends the user"),
    data: z.record(z.string(), z.unknown()),
    isRead: z.boolean(),
    readAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("NotificationItem");

const AllResult = z
  .object({
    value: z.array(NotificationItem),
    count: z.number().int().describe("All the caller's notifications"),
    unreadCount: z.number().int(),
  })
  .openapi("NotificationsAll");

const AllQuery = z.object({
  top: z.coerce.number().int().min(1).max(200).default(50).optional().describe("Page size (default 50, at most 200)"),
  skip: z.coerce.number().int().min(0).max(1_000_000).default(0).optional(),
  unreadOnly: z.enum(["true", "false"]).optional().describe("Only the unread ones"),
  sinceId: z.coerce
    .number()
    .int()
    .min(0)
    .max(2_147_483_647)
    .optional()
    .describe("Catch-up after a websocket reconnect: only notifications with a larger id than this (the largest notificationId the client has seen). Events are hints; this list is the record"),
});

const MarkAsRead = z
  .union([
    z.strictObject({ ids: z.array(z.number().int()).min(1).max(1000).describe("Notifications ids (others' are ignored)") }),
    z.strictObject({ all: z.literal(true).describe("Every unread notification of the caller") }),
  ])
  .openapi("MarkNotificationsAsRead");
const MarkAsReadResult = z.object({ markedIds: z.array(z.number().int()).describe("The notifications this call marked read"), unreadCount: z.number().int() }).openapi("MarkNotificationsAsReadResult");

const Send = z
  .strictObject({
    userId: z.number().int().positive().describe("The recipient"),
    notificationTypeId: z.number().int().positive(),
    title: z.string().trim().min(1).max(200).optional().describe("Default: the type's default title"),
    body: z.string().max(2000).nullable().optional(),
    url: z.string().max(2000).nullable().optional(),
    clientId: z.number().int().positive().nullable().optional(),
    projectId: z.number().int().positive().nullable().optional(),
    data: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi("SendNotification");

export function registerNotificationRoutes(app: App, deps: AppDeps): void {
  const db = deps.db;

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "get",
      path: "/api/v1/Notifications/All",
      tags,
      operationId: "Notifications_All",
      summary: "The caller's notifications, newest first, with the unread count",
      description: "Every client's: a person's notifications are theirs whichever client they concern. Paged with top and skip.",
      request: { query: AllQuery },
      responses: { 200: { description: "A page", content: { "application/json": { schema: AllResult } } }, ...commonErrors },
    },
    async (c) => {
      const qy = c.req.valid("query");
      return c.json(await svc.all(db, c.get("ctx"), { top: qy.top ?? 50, skip: qy.skip ?? 0, unreadOnly: qy.unreadOnly === "true", sinceId: qy.sinceId ?? null }), 200);
    },
  );

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "post",
      path: "/api/v1/Notifications/MarkAsRead",
      tags,
      operationId: "Notifications_MarkAsRead",
      summary: "Mark some or all of the caller's notifications read",
      description: "`{ids}` or `{all: true}`. Only the caller's own: ids of others' notifications change nothing.",
      request: { body: { required: true, content: { "application/json": { schema: MarkAsRead } } } },
      responses: { 200: { description: "Marked", content: { "application/json": { schema: MarkAsReadResult } } }, ...commonErrors },
    },
    async (c) => c.json(await svc.markAsRead(db, c.get("ctx"), c.req.valid("json")), 200),
  );

  addRoute(
    app,
    {
      access: access.staff,
      method: "post",
      path: "/api/v1/Notifications",
      tags,
      operationId: "Notifications_create",
      summary: "Send a notification to a person (staff)",
      description: "Writes the notification and sends its realtime event on user-{userId}. Replaces the generic create.",
      request: { body: { required: true, content: { "application/json": { schema: Send } } } },
      responses: {
        201: { description: "Sent", content: { "application/json": { schema: NotificationItem } } },
        ...commonErrors,
        404: errors[404],
        409: errorResponse("The client or project does not exist"),
      },
    },
    async (c) => c.json(await svc.send(db, c.get("ctx"), c.req.valid("json")), 201),
  );
}
