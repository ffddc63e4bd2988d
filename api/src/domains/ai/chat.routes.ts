// The results chat's calls (SPEC 7): POST ResultsAiMessages (the question; the answer streams on
// the websocket and is stored) and ResultsAiMessages SendFeedback. Threads are the generic
// POST / PATCH of ResultsAiThreads. The stream's events are described in docs/decisions.md "AI".
import { z } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access, enterTenant } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams } from "../../openapi.ts";
import { ApiError } from "../../errors.ts";
import { schemasFor } from "../../entities/schemas.ts";
import { rawJson, readEntity } from "../projects/common.ts";
import * as svc from "./chat.service.ts";

export function registerChatRoutes(app: App, deps: AppDeps): void {
  const { db, registry: reg } = deps;
  const entity = schemasFor(reg, reg.mustGet("ResultsAiMessages")).entity;
  const one = (description: string) => ({ description, content: { "application/json": { schema: entity } } });

  addRoute(
    app,
    {
      access: access.viewer,
      method: "post",
      path: "/api/v1/ResultsAiMessages",
      tags: ["ResultsAiMessages"],
      operationId: "ResultsAiMessages_create",
      summary: "Ask the results chat a question",
      description:
        "Stores the question in the caller's thread and queues the answer. The answer is written with tools that compute the project's results " +
        "under the thread's filters, and streams on the websocket channel user-{userId}: AiMessageStarted, AiMessageDelta (text pieces in seq order), " +
        "then AiMessageCompleted (with the stored answer's messageId) or AiMessageFailed; each carries resultsAiThreadId and replyToMessageId (this " +
        "message's id). The stored answer (role assistant) cites its figures as `text [F1]` and lists them in referencesData.figures.",
      request: {
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z
                .strictObject({
                  resultsAiThreadId: z.number().int().positive().describe("The caller's own thread (POST ResultsAiThreads)"),
                  content: z.string().trim().min(1).max(4000).describe("The question"),
                })
                .openapi("ResultsAiQuestion"),
            },
          },
        },
      },
      responses: { 201: one("The stored question"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      if (!deps.queue) throw new ApiError("ServiceUnavailable", "The job queue is not running");
      const ctx = c.get("ctx");
      // The stored question is read in the transaction that stores it (one transaction per POST).
      const r = await svc.sendMessage(db, deps.queue, ctx, c.req.valid("json"), (tx, id) => readEntity(tx, reg, ctx, "ResultsAiMessages", id));
      return rawJson(r.read!, 201);
    },
  );

  addRoute(
    app,
    {
      access: access.viewer,
      method: "post",
      path: "/api/v1/ResultsAiMessages/{key}/SendFeedback",
      tags: ["ResultsAiMessages"],
      operationId: "ResultsAiMessages_SendFeedback",
      summary: "Rate an answer of the results chat",
      description: "The thread's owner marks an assistant answer Positive or Negative, with an optional comment (staff read them with the conversations).",
      request: {
        params: keyParams("ResultsAiMessages"),
        body: {
          required: true,
          content: {
            "application/json": {
              schema: z.strictObject({ feedback: z.enum(["Positive", "Negative"]), comment: z.string().max(2000).nullable().optional() }).openapi("ResultsAiFeedback"),
            },
          },
        },
      },
      responses: { 200: one("The rated answer"), ...commonErrors, 404: errors[404] },
    },
    async (c) => {
      const ctx = c.get("ctx");
      const id = keyOf(c);
      await svc.sendFeedback(db, ctx, id, c.req.valid("json"));
      return rawJson(await enterTenant(db, ctx, (tx) => readEntity(tx, reg, ctx, "ResultsAiMessages", id)), 200);
    },
  );
}
