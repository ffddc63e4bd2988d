// The results chat (SPEC 7 ResultsAiThreads, ResultsAiMessages, SendFeedback): a user's question
// is stored and answered by a queued job (`ai.chat`), which runs one exchange (provider.ts) with
// the results tools (tools.ts) on the thread's project under the thread's filters, as the thread's
// owner (row-level security applies), streams the answer's text as AiMessageDelta events on the
// owner's channel user-{id}, and stores the answer with the figures it cites, the provider, model,
// tokens and the whole exchange (prompts, tool calls, results) for DebugConversation.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { Queue } from "../../jobs/queue.ts";
import { publish, publishMany, userChannel, type ChannelEvent } from "../../jobs/channel.ts";
import type { AiChatEvent, WithoutChannel } from "@ideally/contracts/events";
import { defineJob, enqueueJob, type JobContext } from "../../jobs/workers.ts";
import type { ResponseFilter } from "../results/filters.ts";
import { FigureBook, projectContext, simulatedNote, withNote, type Figure } from "./facts.ts";
import { CHAT_SYSTEM, chatSystem, promptFor } from "./messages.ts";
import { runExchange, type ChatMessage, type TranscriptStep, type Usage } from "./provider.ts";
import { resultsTools } from "./tools.ts";
import { currentProvider } from "./summaries.service.ts";
import { jsonParam } from "../../db/params.ts";

/** Earlier turns of a thread a new question is asked with. */
export const HISTORY_TURNS = 20;

export interface Answer {
  content: string;
  /** The figures the answer cites, with their sources. */
  figures: Figure[];
  toolCalls: { name: string; arguments: unknown }[];
  transcript: TranscriptStep[];
  usage: Usage;
  provider: string;
  model: string;
  promptVersionId: number | null;
}

/** One answer to a question about a project's results, as `ctx` (whose rights the tools run with). */
export async function answer(
  db: Db,
  ctx: RequestCtx,
  input: {
    projectId: number;
    filters: ResponseFilter;
    /** The thread's total (QualResults total): markets under All markets; default sample. */
    total?: "sample" | "markets";
    history: { role: "user" | "assistant"; content: string }[];
    question: string;
    onDelta?: (text: string) => void | Promise<void>;
  },
): Promise<Answer> {
  const [provider, pc, prompt] = await Promise.all([currentProvider(), projectContext(db, ctx, input.projectId), promptFor(db, "Chat", { systemPrompt: CHAT_SYSTEM, template: "" })]);
  const book = new FigureBook();
  const messages: ChatMessage[] = [chatSystem(prompt, pc), ...input.history.slice(-HISTORY_TURNS).map((m) => ({ role: m.role, content: m.content })), { role: "user", content: input.question }];
  const ex = await runExchange(provider, messages, resultsTools(db, ctx, pc, book, input.filters, input.total ?? "sample"), {
    onDelta: input.onDelta,
    model: prompt.model,
    temperature: prompt.temperature,
  });
  // An answer that reports results (cites a figure) says once, last, when the thread's view has
  // simulated respondents (issue 36), streamed like the rest; a refusal or a question back does not.
  const reports = /\[F\d+\]/.test(ex.content);
  const content = reports ? withNote(ex.content, await simulatedNote(db, ctx, book, input.projectId, input.filters)) : ex.content;
  if (content !== ex.content) await input.onDelta?.(content.slice(ex.content.length));
  const cited = new Set([...content.matchAll(/\[(F\d+)\]/g)].map((m) => m[1]));
  return {
    content,
    figures: book.figures.filter((f) => cited.has(f.ref)),
    toolCalls: ex.toolResults.map((t) => ({ name: t.name, arguments: t.arguments })),
    transcript: ex.transcript,
    usage: ex.usage,
    provider: provider.name,
    model: ex.model,
    promptVersionId: prompt.promptVersionId,
  };
}

/**
 * Collects text pieces and publishes them at most every `ms` (or when `max` characters wait), so a
 * model streaming a token at a time does not become a NOTIFY per token. `since`: when the first
 * wait starts (default: none, the first piece goes out at once); take() hands over what waits,
 * with its seq, for the caller to send with something else.
 */
export function deltaPublisher(send: (seq: number, text: string) => Promise<void>, ms = 100, max = 400, since = 0) {
  let buf = "";
  let seq = 0;
  let last = since;
  const flush = async () => {
    if (!buf) return;
    const text = buf;
    buf = "";
    last = Date.now();
    await send(seq++, text);
  };
  return {
    async push(text: string) {
      buf += text;
      if (buf.length >= max || Date.now() - last >= ms) await flush();
    },
    flush,
    take(): { seq: number; text: string } | null {
      if (!buf) return null;
      const text = buf;
      buf = "";
      return { seq: seq++, text };
    },
  };
}

export interface ChatJob {
  messageId: number;
}

export const chatJob = defineJob<ChatJob>("ai.chat", (job) => runChat(job), { retryLimit: 1, retryDelay: 2, expireInSeconds: 300, concurrency: 2, pollingIntervalSeconds: 1, drainBacklog: true });

/**
 * POST ResultsAiMessages: stores the user's question in their thread and queues its answer.
 * `read`: what the caller answers with (the stored message), read in the same transaction, as the
 * caller (the role is back once the job is queued), so the POST is one transaction, not two.
 */
export async function sendMessage<R = null>(
  db: Db,
  queue: Queue,
  ctx: RequestCtx,
  input: { resultsAiThreadId: number; content: string },
  read?: (tx: Tx, id: number) => Promise<R>,
): Promise<{ id: number; jobId: string; read: R | null }> {
  return enterTenant(db, ctx, async (tx) => {
    // The question stored in the caller's own thread (row-level security, then its owner) in one
    // statement; nothing is written for another's or an unknown thread.
    const [m] = await tx<{ id: number }[]>`
      with t as (select id from results_ai_threads where id = ${input.resultsAiThreadId} and user_id = ${ctx.principal.userId})
      insert into results_ai_messages (results_ai_thread_id, user_id, role, content, client_id, project_id)
      select t.id, ${ctx.principal.userId}, 'user', ${input.content}, 0, 0 from t returning id`;
    if (!m) throw new ApiError("NotFound", `No chat ${input.resultsAiThreadId}`);
    const jobId = await enqueueJob(queue, tx, chatJob, { messageId: m.id }, { userId: ctx.principal.userId, clientId: ctx.clientId });
    // The thread touched last, beside the read (one round trip): its row stays locked only from
    // here to the commit, so questions posted to one thread at once wait for each other that long.
    const [out] = await Promise.all([
      read ? read(tx, m.id) : null,
      tx`update results_ai_threads set updated_at = now(), title = coalesce(title, ${input.content.slice(0, 80)}) where id = ${input.resultsAiThreadId}`,
    ]);
    return { id: m.id, jobId: jobId!, read: out };
  });
}

async function runChat(job: JobContext<ChatJob>) {
  const { db } = job;
  // The question with its thread, whether it has an answer already, its owner and the thread's
  // earlier turns (the last HISTORY_TURNS, oldest first), in one statement.
  const [q] = await db<
    {
      id: number;
      threadId: number;
      userId: number;
      clientId: number;
      projectId: number;
      content: string;
      filters: ResponseFilter | null;
      total: "sample" | "markets" | null;
      answeredBy: number | null;
      isStaff: boolean;
      roleId: number;
      history: { role: "user" | "assistant"; content: string }[];
    }[]
  >`
    select m.id, m.results_ai_thread_id as "threadId", m.user_id as "userId", m.client_id as "clientId", m.project_id as "projectId", m.content, t.filters, t.total,
           (select a.id from results_ai_messages a where a.reply_to_message_id = m.id) as "answeredBy", u.is_staff as "isStaff", u.role_id as "roleId",
           coalesce((select json_agg(json_build_object('role', h.role, 'content', h.content) order by h.id)
                     from (select id, role, content from results_ai_messages where results_ai_thread_id = m.results_ai_thread_id and id < m.id order by id desc limit ${HISTORY_TURNS}) h), '[]') as history
    from results_ai_messages m join results_ai_threads t on t.id = m.results_ai_thread_id join users u on u.id = m.user_id
    where m.id = ${job.data.messageId} and m.role = 'user'`;
  if (!q) return { skipped: "no such question" };
  if (q.answeredBy !== null) return { messageId: q.answeredBy, skipped: "answered" };
  const channel = userChannel(q.userId);
  const ref = { resultsAiThreadId: q.threadId, replyToMessageId: q.id, jobId: job.jobId };
  const event = (ev: WithoutChannel<AiChatEvent>): ChannelEvent => ({ ...ev, channel, userId: q.userId, clientId: q.clientId });
  const emit = (ev: WithoutChannel<AiChatEvent>) => publish(db, event(ev)).catch(() => {});
  // Started goes out while the answer is being written; every later event waits for it (in order on the channel).
  const started = emit({ event: "AiMessageStarted", data: ref });
  // The text in pieces at most every 100 ms from the start: an answer written sooner (the built-in
  // provider's, whole at once) goes out as one delta with Completed, in one statement.
  const deltas = deltaPublisher(
    async (seq, delta) => {
      await started;
      await emit({ event: "AiMessageDelta", data: { ...ref, seq, delta } });
    },
    100,
    400,
    Date.now(),
  );
  try {
    const ctx: RequestCtx = { principal: { userId: q.userId, isStaff: q.isStaff, isSuperAdmin: q.roleId === 3 }, clientId: q.clientId, descendants: false, sessionId: null };
    const a = await answer(db, ctx, { projectId: q.projectId, filters: q.filters ?? {}, total: q.total ?? "sample", history: q.history, question: q.content, onDelta: (t) => deltas.push(t) });
    const tail = deltas.take();
    const [row] = await db<{ id: number }[]>`
      insert into results_ai_messages (results_ai_thread_id, user_id, role, content, client_id, project_id, reply_to_message_id, references_data, provider, model, usage, debug)
      values (${q.threadId}, ${q.userId}, 'assistant', ${a.content.slice(0, 20000) || "(no answer)"}, 0, 0, ${q.id},
              ${jsonParam(db, { figures: a.figures, toolCalls: a.toolCalls })}, ${a.provider}, ${a.model}, ${jsonParam(db, a.usage)},
              ${jsonParam(db, { promptVersionId: a.promptVersionId, transcript: a.transcript })})
      on conflict (reply_to_message_id) where reply_to_message_id is not null do nothing
      returning id`;
    await started;
    await publishMany(db, [
      ...(tail ? [event({ event: "AiMessageDelta", data: { ...ref, seq: tail.seq, delta: tail.text } })] : []),
      event({ event: "AiMessageCompleted", data: { ...ref, messageId: row?.id ?? null, content: a.content } }),
    ]).catch(() => {});
    return { messageId: row?.id ?? null, usage: a.usage };
  } catch (e) {
    await started;
    await emit({ event: "AiMessageFailed", data: { ...ref, message: (e as Error).message.slice(0, 300), willRetry: job.attempt <= 1 } });
    throw e;
  }
}

/** ResultsAiMessages({key})/SendFeedback: the owner rates an answer. */
export async function sendFeedback(db: Db, ctx: RequestCtx, id: number, input: { feedback: "Positive" | "Negative"; comment?: string | null }): Promise<void> {
  await enterTenant(db, ctx, async (tx) => {
    const [m] = await tx<{ role: string; userId: number }[]>`select role, user_id as "userId" from results_ai_messages where id = ${id}`;
    if (!m || m.userId !== ctx.principal.userId) throw new ApiError("NotFound", `No message ${id}`);
    if (m.role !== "assistant") throw new ApiError("BadRequest", "Feedback is on the assistant's answers");
    await tx`update results_ai_messages set feedback = ${input.feedback}, feedback_comment = ${input.comment ?? null}, updated_at = now() where id = ${id}`;
  });
}
