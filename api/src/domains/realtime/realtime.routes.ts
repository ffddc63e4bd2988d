// The websocket's calls of SPEC.md section 7: Users WebsocketConnection (where to connect) and
// Clients GetChannelInfo (the client channel's name and a token to join it).
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access, enterTenant } from "../../access/policy.ts";
import { addRoute, commonErrors, errors } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { signChannelToken, signTicket } from "../../realtime/tokens.ts";

/** Where the websocket listens (server.ts upgrades requests to this path). */
export const WEBSOCKET_PATH = "/ws";

const WebsocketConnection = z
  .object({ value: z.string().describe("The websocket URL to open, with a connection ticket that works once, within a minute, while the session lasts") })
  .openapi("WebsocketConnection");
const ChannelInfo = z
  .object({
    name: z.string().describe("The client channel, client-{id}"),
    token: z.string().describe("Send with {action:'join', channel, token} on the websocket; valid 10 minutes, and the membership is checked again at the join"),
  })
  .openapi("ChannelInfo");

export function registerRealtimeRoutes(app: App, deps: AppDeps): void {
  const key = deps.auth?.key;

  addRoute(
    app,
    {
      access: access.signedIn,
      method: "get",
      path: "/api/v1/Users/WebsocketConnection",
      tags: ["Users"],
      operationId: "Users_WebsocketConnection",
      summary: "The websocket URL for the signed-in user (joins user-{id} on connect)",
      responses: { 200: { description: "The URL", content: { "application/json": { schema: WebsocketConnection } } }, ...commonErrors },
    },
    async (c) => {
      if (!key) throw new ApiError("ServiceUnavailable", "Realtime is not available on this server");
      const ctx = c.get("ctx");
      // A socket lives as long as the login session it was opened in, so a ticket needs one.
      if (!ctx.sessionId) throw new ApiError("Unauthorized", "A signed-in session is required for the websocket");
      const ticket = await signTicket(key, ctx.principal.userId, ctx.sessionId);
      const base = (deps.publicUrl ?? new URL(c.req.url).origin).replace(/^http/, "ws");
      return c.json({ value: `${base}${WEBSOCKET_PATH}?ticket=${encodeURIComponent(ticket)}` }, 200);
    },
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "get",
      path: "/api/v1/Clients/{key}/GetChannelInfo",
      tags: ["Clients"],
      operationId: "Clients_GetChannelInfo",
      summary: "The client channel and a token to join it on the websocket (members of the client)",
      request: {
        params: z.object({
          key: z
            .string()
            .regex(/^\d+$/)
            .openapi({ param: { name: "key", in: "path" } }),
        }),
      },
      responses: {
        200: { description: "The channel", content: { "application/json": { schema: ChannelInfo } } },
        ...commonErrors,
        404: errors[404],
      },
    },
    async (c) => {
      if (!key) throw new ApiError("ServiceUnavailable", "Realtime is not available on this server");
      const ctx = c.get("ctx");
      const clientId = Number(c.req.valid("param").key);
      if (ctx.clientId !== clientId) throw new ApiError("BadRequest", "Name the same client in the clientId header");
      // Entering the tenant checks the membership (a staff member may join any client's channel).
      await enterTenant(deps.db, ctx, async () => undefined);
      const name = `client-${clientId}`;
      return c.json({ name, token: await signChannelToken(key, name, ctx.principal.userId) }, 200);
    },
  );
}
