// Bun adapter for the websocket: upgrades GET /ws?ticket=... (a ticket from Users
// WebsocketConnection) and feeds the hub. Bun-only, wired by server.ts.
import type { Server, ServerWebSocket } from "bun";
import type { Conn, Hub } from "./hub.ts";
import { verifyTicket } from "./tokens.ts";

export interface WsData {
  userId: number;
  sessionId: string;
  conn?: Conn;
}

/**
 * Answers the upgrade, or a Response when the request cannot become a websocket: the ticket must be
 * signed, unexpired, unused (it is used up here, on any process) and of a login session still live.
 */
export async function upgrade(req: Request, server: Server<WsData>, key: CryptoKey, hub: Hub): Promise<Response | undefined> {
  const ticket = new URL(req.url).searchParams.get("ticket");
  const t = ticket ? await verifyTicket(key, ticket) : null;
  if (!t || !(await hub.redeem(t))) {
    return new Response(JSON.stringify({ typename: "Unauthorized", message: "A valid, unused websocket ticket of a live session is required" }), {
      status: 401,
      headers: { "content-type": "application/json" },
    });
  }
  if (server.upgrade(req, { data: { userId: t.userId, sessionId: t.sessionId } })) return undefined;
  return new Response(JSON.stringify({ typename: "BadRequest", message: "Expected a websocket upgrade" }), { status: 400, headers: { "content-type": "application/json" } });
}

export function websocketHandlers(hub: Hub) {
  return {
    open(ws: ServerWebSocket<WsData>) {
      ws.data.conn = hub.open({ send: (t) => ws.send(t), close: (code, reason) => ws.close(code, reason) }, ws.data.userId, ws.data.sessionId);
    },
    async message(ws: ServerWebSocket<WsData>, message: string | Buffer) {
      if (ws.data.conn) await hub.message(ws.data.conn, typeof message === "string" ? message : message.toString("utf8"));
    },
    close(ws: ServerWebSocket<WsData>) {
      if (ws.data.conn) hub.close(ws.data.conn);
    },
  };
}
