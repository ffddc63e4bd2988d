// GET /Logger (SPEC 7 "Other"): the web app reports an error from its error view, or a usage
// event (logout), with eventId, url and message. Sign-in is optional (a broken session must still
// be able to report); the row keeps the user when the bearer token is valid, the trace id, and
// the peer. At most 30 events a minute per user or address: more answer 429.
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { ApiError } from "../../errors.ts";
import { addRoute, errorResponse, errors } from "../../openapi.ts";

const tags = ["Logger"];
export const LOGGER_LIMIT_PER_MINUTE = 30;

export function registerLoggerRoutes(app: App, deps: AppDeps): void {
  const { db } = deps;
  addRoute(
    app,
    {
      access: access.anonymous,
      method: "get",
      path: "/Logger",
      tags,
      operationId: "Logger_Log",
      summary: "Record an event reported by the web app (an error view, a logout)",
      description: `Sign-in optional; the user is recorded when a valid bearer token is sent. At most ${LOGGER_LIMIT_PER_MINUTE} events a minute per user or address.`,
      request: {
        query: z.object({
          eventId: z.string().min(1).max(100).describe("What happened, e.g. error-500 or Logout"),
          url: z.string().max(2000).optional().describe("Where the web app was"),
          message: z.string().max(2000).optional(),
        }),
      },
      responses: { 204: { description: "Recorded" }, 400: errors[400], 429: errorResponse("Too many events; Retry-After says when to try again") },
    },
    async (c) => {
      const q = c.req.valid("query");
      let userId: number | null = null;
      try {
        userId = (await deps.authenticate(c)).principal.userId;
      } catch {
        /* anonymous report */
      }
      const ip = deps.auth?.clientIp(c.req.raw) ?? null; // the peer the server saw, never a header
      const [recent] = await db<{ n: number }[]>`
        select count(*)::int as n from client_events
        where created_at > now() - interval '1 minute'
          and ${userId !== null ? db`user_id = ${userId}` : db`user_id is null and ip is not distinct from ${ip}`}`;
      if (recent.n >= LOGGER_LIMIT_PER_MINUTE) throw new ApiError("TooManyRequests", "Too many events reported. Try again in a minute.", undefined, undefined, 60);
      await db`
        insert into client_events (user_id, event_id, url, message, trace_id, ip, user_agent)
        values (${userId}, ${q.eventId}, ${q.url ?? null}, ${q.message ?? null}, ${c.get("traceId")}, ${ip}, ${(c.req.header("user-agent") ?? "").slice(0, 500) || null})`;
      return c.body(null, 204);
    },
  );
}
