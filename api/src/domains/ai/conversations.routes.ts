// AiConversations (SPEC 7), staff's: MyConversations, GetMessages, GetChatContents, GetChannelInfo,
// DownloadFile(referenceId); AddUserMessage, ContinueConversation, DebugConversation, DownloadToYml.
import { z, type RouteConfig } from "@hono/zod-openapi";
import type { App, AppDeps } from "../../app-types.ts";
import { access } from "../../access/policy.ts";
import { addRoute, commonErrors, errors, keyOf, keyParams, type TypedHandler } from "../../openapi.ts";
import * as svc from "./conversations.service.ts";

const Key = keyParams("AiConversations");
const json = <T extends z.ZodType>(schema: T, description: string) => ({ description, content: { "application/json": { schema } } });
const Usage = z
  .object({
    promptTokens: z.number().int(),
    completionTokens: z.number().int(),
    totalTokens: z.number().int(),
    estimated: z.boolean().optional().describe("Not reported by the provider: 4 characters a token"),
  })
  .openapi("AiUsage");
const FigureSchema = z
  .object({
    ref: z.string().describe("F1, F2, ...: the answer cites it as `text [ref]`"),
    text: z.string().describe("The figure as written"),
    value: z.number(),
    source: z.record(z.string(), z.unknown()).describe("The results function (fn), its filters and the field the figure is"),
  })
  .openapi("AiFigure");
const ToolCallSchema = z.object({ id: z.string(), name: z.string(), arguments: z.string().describe("As the model wrote them: a JSON text") });
/** One round of an answer: a completion (the prompt sent and what came back) or a tool call. */
const DebugStep = z
  .object({
    kind: z.enum(["completion", "tool"]),
    ms: z.number(),
    prompt: z
      .array(z.object({ role: z.enum(["system", "user", "assistant", "tool"]), content: z.string().nullable(), toolCalls: z.array(ToolCallSchema).optional(), toolCallId: z.string().optional() }))
      .optional(),
    content: z.string().optional(),
    toolCalls: z.array(ToolCallSchema).optional(),
    usage: Usage.nullable().optional(),
    model: z.string().nullable().optional(),
    tool: z.object({ id: z.string(), name: z.string(), arguments: z.unknown(), result: z.unknown().optional(), error: z.string().optional() }).nullable().optional(),
  })
  .openapi("AiDebugStep");
const Message = z
  .object({
    id: z.number().int(),
    role: z.enum(["user", "assistant", "system", "tool"]),
    content: z.string(),
    referenceFiles: z.array(z.object({ referenceId: z.string(), fileName: z.string(), kind: z.string() })).describe("Files to fetch with DownloadFile(referenceId)"),
    provider: z.string().nullable(),
    model: z.string().nullable(),
    usage: Usage.nullable(),
    createdAt: z.string(),
  })
  .openapi("AiConversationMessage");
const Evaluation = z
  .object({
    citedFigures: z.number().int(),
    unknownRefs: z.array(z.string()).describe("Citations naming no figure"),
    misquoted: z.array(z.string()).describe("Citations not following their figure's text"),
    uncitedNumbers: z.array(z.string()).describe("Numbers in the answer that cite nothing"),
    passed: z.boolean(),
  })
  .openapi("AiGroundingCheck");

const withErrors = <P extends RouteConfig["responses"]>(responses: P) => ({ ...responses, ...commonErrors, 404: errors[404] });
type StaffRoute<Q, P extends RouteConfig["responses"]> = {
  method: "get" | "post";
  path: string;
  tags: string[];
  operationId: string;
  summary: string;
  description: string;
  request: Q;
  responses: ReturnType<typeof withErrors<P>>;
};
/**
 * A staff operation on AiConversations, for an app: request Q and responses P (and the common
 * errors and 404), its handler typed by them.
 */
const staffRouteFor =
  (app: App) =>
  <Q extends NonNullable<RouteConfig["request"]>, P extends RouteConfig["responses"]>(
    method: "get" | "post",
    path: string,
    operationId: string,
    summary: string,
    description: string,
    request: Q,
    responses: P,
    handler: TypedHandler<StaffRoute<Q, P>>,
  ) =>
    addRoute<StaffRoute<Q, P>>(app, { access: access.staff, method, path, tags: ["AiConversations"], operationId, summary, description, request, responses: withErrors(responses) }, handler);

export function registerConversationRoutes(app: App, deps: AppDeps): void {
  registerConversationMessages(app, deps);
  registerConversationReads(app, deps);
  registerConversationDebug(app, deps);
}

/** MyConversations, AddUserMessage, ContinueConversation and GetMessages. */
function registerConversationMessages(app: App, deps: AppDeps): void {
  const db = deps.db;
  const route = staffRouteFor(app);
  route(
    "get",
    "/api/v1/AiConversations/MyConversations",
    "AiConversations_MyConversations",
    "The caller's conversations",
    "Newest activity first, with their message counts.",
    {},
    {
      200: json(
        z
          .object({
            value: z.array(
              z.object({
                id: z.number().int(),
                projectId: z.number().int().nullable(),
                title: z.string().nullable(),
                status: z.string(),
                lastMessageAt: z.string().nullable(),
                messageCount: z.number().int(),
              }),
            ),
          })
          .openapi("MyConversations"),
        "The conversations",
      ),
    },
    async (c) => c.json(await svc.myConversations(db, c.get("ctx")), 200),
  );
  route(
    "post",
    "/api/v1/AiConversations/AddUserMessage",
    "AiConversations_AddUserMessage",
    "Add a question to a conversation",
    "Into the named conversation, or a new one (about the project given: its answers then use the results tools). Answer it with ContinueConversation.",
    {
      body: {
        required: true,
        content: {
          "application/json": {
            schema: z
              .strictObject({
                aiConversationId: z.number().int().positive().nullable().optional().describe("Absent: a new conversation"),
                projectId: z.number().int().positive().nullable().optional().describe("A new conversation's project"),
                content: z.string().trim().min(1).max(4000),
              })
              .openapi("AiConversationAddUserMessage"),
          },
        },
      },
    },
    { 201: json(z.object({ aiConversationId: z.number().int(), messageId: z.number().int() }).openapi("AiConversationMessageAdded"), "Added"), 409: errors[409] },
    async (c) => c.json(await svc.addUserMessage(db, c.get("ctx"), c.req.valid("json")), 201),
  );
  route(
    "post",
    "/api/v1/AiConversations/{key}/ContinueConversation",
    "AiConversations_ContinueConversation",
    "Answer the conversation's waiting question",
    "The assistant answers (streamed on the caller's channel user-{id} as AiMessageStarted / AiMessageDelta / AiMessageCompleted with aiConversationId), the answer is stored, and an automatic grounding check is recorded in AiConversationEvaluations. 409 when no question waits.",
    { params: Key },
    { 200: json(z.object({ aiConversationId: z.number().int(), message: Message, evaluation: Evaluation }).openapi("AiConversationContinued"), "The answer"), 409: errors[409] },
    async (c) => c.json(await svc.continueConversation(db, c.get("ctx"), keyOf(c)), 200),
  );
  route(
    "get",
    "/api/v1/AiConversations/{key}/GetMessages",
    "AiConversations_GetMessages",
    "A conversation's messages",
    "Oldest first.",
    { params: Key },
    { 200: json(z.object({ aiConversationId: z.number().int(), value: z.array(Message) }).openapi("AiConversationMessages"), "The messages") },
    async (c) => c.json(await svc.getMessages(db, c.get("ctx"), keyOf(c)), 200),
  );
}

/** The conversation's chat, changes and file downloads. */
function registerConversationReads(app: App, deps: AppDeps): void {
  const db = deps.db;
  const route = staffRouteFor(app);
  route(
    "get",
    "/api/v1/AiConversations/{key}/GetChatContents",
    "AiConversations_GetChatContents",
    "A conversation as one text",
    "Markdown: each message with its role and time, and under each answer the figures it cites with their results function.",
    { params: Key },
    {
      200: json(z.object({ aiConversationId: z.number().int(), title: z.string().nullable(), projectId: z.number().int().nullable(), contents: z.string() }).openapi("AiChatContents"), "The contents"),
    },
    async (c) => c.json(await svc.getChatContents(db, c.get("ctx"), keyOf(c)), 200),
  );
  route(
    "get",
    "/api/v1/AiConversations/{key}/GetChannelInfo",
    "AiConversations_GetChannelInfo",
    "Where a conversation's answers stream",
    "The caller's own channel (joined on connect) and the event names ContinueConversation sends on it.",
    { params: Key },
    { 200: json(z.object({ aiConversationId: z.number().int(), name: z.string(), events: z.array(z.string()) }).openapi("AiConversationChannel"), "The channel") },
    async (c) => c.json(svc.channelInfo(c.get("ctx"), keyOf(c)), 200),
  );
  route(
    "get",
    "/api/v1/AiConversations/{key}/DownloadFile",
    "AiConversations_DownloadFile",
    "A file an answer refers to",
    "By the referenceId of a message's referenceFiles: an answer's figures as CSV (ref, text, value, function, source).",
    {
      params: Key,
      query: z.object({
        referenceId: z
          .string()
          .min(1)
          .max(100)
          .openapi({ param: { name: "referenceId", in: "query" }, description: "From referenceFiles" }),
      }),
    },
    { 200: { description: "The file", content: { "text/csv": { schema: z.string() } } } },
    async (c) => {
      const f = await svc.downloadFile(db, c.get("ctx"), keyOf(c), c.req.valid("query").referenceId);
      return c.body(f.csv, 200, { "content-type": "text/csv; charset=utf-8", "content-disposition": `attachment; filename="${f.fileName}"` });
    },
  );
}

/** DebugConversation and the last download. */
function registerConversationDebug(app: App, deps: AppDeps): void {
  const db = deps.db;
  const route = staffRouteFor(app);
  route(
    "post",
    "/api/v1/AiConversations/{key}/DebugConversation",
    "AiConversations_DebugConversation",
    "How each answer was made",
    "For each answer: the prompts sent in each round, the tool calls with their arguments and results, the tokens of each round, the figures cited; and the conversation's total tokens.",
    { params: Key },
    {
      200: json(
        z
          .object({
            aiConversationId: z.number().int(),
            projectId: z.number().int().nullable(),
            usage: Usage,
            answers: z.array(
              z.object({
                messageId: z.number().int(),
                provider: z.string().nullable(),
                model: z.string().nullable(),
                usage: Usage.nullable(),
                promptVersionId: z.number().int().nullable(),
                steps: z.array(DebugStep).describe("completion: prompt (the messages sent), content, toolCalls, usage, model; tool: tool {id, name, arguments, result | error}; each with ms"),
                figures: z.array(FigureSchema),
              }),
            ),
          })
          .openapi("AiConversationDebug"),
        "The exchange",
      ),
    },
    async (c) => c.json(await svc.debugConversation(db, c.get("ctx"), keyOf(c)), 200),
  );
  route(
    "post",
    "/api/v1/AiConversations/{key}/DownloadToYml",
    "AiConversations_DownloadToYml",
    "A conversation as YAML",
    "The messages with, for answers, provider, model, tokens and the figures with their sources.",
    { params: Key },
    { 200: { description: "The YAML file", content: { "application/yaml": { schema: z.string() } } } },
    async (c) => {
      const r = await svc.downloadToYml(db, c.get("ctx"), keyOf(c));
      return c.body(r.yml, 200, { "content-type": "application/yaml; charset=utf-8", "content-disposition": `attachment; filename="${r.fileName}"` });
    },
  );
}
