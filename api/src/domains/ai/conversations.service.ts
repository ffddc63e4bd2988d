// AiConversations (SPEC 7, the admin area's ai-conversations): staff's conversations with the
// assistant, optionally about one project (then the results tools answer, as in the results chat).
// AddUserMessage adds a question (starting a conversation when none is named); ContinueConversation
// answers what is unanswered, streaming on the caller's channel; GetMessages, GetChatContents,
// DebugConversation (prompts, tool calls, tokens), DownloadToYml and DownloadFile (an answer's
// figures as CSV) read it back. Every answer gets an automatic grounding evaluation
// (AiConversationEvaluations, no evaluator): its citations resolve, and no number goes uncited.
import { stringify } from "yaml";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { publish, userChannel } from "../../jobs/channel.ts";
import type { AiChatEvent, WithoutChannel } from "@ideally/contracts/events";
import { answer, deltaPublisher } from "./chat.service.ts";
import { currentProvider } from "./summaries.service.ts";
import { runExchange, type TranscriptStep, type Usage } from "./provider.ts";
import type { Figure, ProjectContext } from "./facts.ts";
import { projectContext } from "./facts.ts";
import { jsonParam } from "../../db/params.ts";

/** Staff work across clients: every call runs without a client (row-level security: all clients). */
const staff = (ctx: RequestCtx): RequestCtx => ({ ...ctx, clientId: null });

export interface ConversationMessage {
  id: number;
  role: "user" | "assistant" | "system" | "tool";
  content: string;
  referenceFiles: { referenceId: string; fileName: string; kind: string }[];
  provider: string | null;
  model: string | null;
  usage: Usage | null;
  createdAt: string;
}

async function conversation(tx: Tx, id: number, lock = false) {
  const [c] = await tx<{ id: number; userId: number; projectId: number | null; title: string | null; status: string; model: string | null }[]>`
    select id, user_id as "userId", project_id as "projectId", title, status, model from ai_conversations where id = ${id} ${lock ? tx`for update` : tx``}`;
  if (!c) throw new ApiError("NotFound", `No conversation ${id}`);
  return c;
}

async function messages(
  tx: Tx | Db,
  id: number,
): Promise<(ConversationMessage & { referencesData: { figures: Figure[] } | null; debug: { transcript: TranscriptStep[]; promptVersionId: number | null } | null })[]> {
  return tx`
    select id, role, content, reference_files as "referenceFiles", provider, model, usage, references_data as "referencesData", debug,
           to_json(created_at)#>>'{}' as "createdAt"
    from ai_conversation_messages where ai_conversation_id = ${id} order by id`;
}

export async function myConversations(db: Db, ctx: RequestCtx) {
  return enterTenant(db, staff(ctx), async (tx) => ({
    value: await tx<{ id: number; projectId: number | null; title: string | null; status: string; lastMessageAt: string | null; messageCount: number }[]>`
      select c.id, c.project_id as "projectId", c.title, c.status, to_json(c.last_message_at)#>>'{}' as "lastMessageAt",
             (select count(*)::int from ai_conversation_messages m where m.ai_conversation_id = c.id) as "messageCount"
      from ai_conversations c where c.user_id = ${ctx.principal.userId} order by coalesce(c.last_message_at, c.created_at) desc, c.id desc`,
  }));
}

/** AddUserMessage: a question, into the named conversation or a new one (about a project, when given). */
export async function addUserMessage(db: Db, ctx: RequestCtx, input: { aiConversationId?: number | null; projectId?: number | null; content: string }) {
  return enterTenant(db, staff(ctx), async (tx) => {
    let id = input.aiConversationId ?? null;
    if (id === null) {
      let clientId: number | null = null;
      if (input.projectId) {
        const [p] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${input.projectId} and deleted_at is null`;
        if (!p) throw new ApiError("NotFound", `No project ${input.projectId}`);
        clientId = p.clientId;
      }
      const [c] = await tx<{ id: number }[]>`
        insert into ai_conversations (user_id, client_id, project_id, title) values (${ctx.principal.userId}, ${clientId}, ${input.projectId ?? null}, ${input.content.slice(0, 80)}) returning id`;
      id = c!.id;
    } else {
      const c = await conversation(tx, id, true);
      if (c.status === "Closed") throw new ApiError("Conflict", `Conversation ${id} is closed`);
    }
    const c = await conversation(tx, id);
    const [m] = await tx<{ id: number }[]>`
      insert into ai_conversation_messages (ai_conversation_id, user_id, role, content) values (${id}, ${c.userId}, 'user', ${input.content}) returning id`;
    await tx`update ai_conversations set last_message_at = now(), updated_at = now() where id = ${id}`;
    return { aiConversationId: id, messageId: m!.id };
  });
}

const GENERAL_SYSTEM = "You are the Ideally assistant for the provider's staff. Answer briefly. Without a project you have no results to quote: never state figures; say which project to open.";

/** ContinueConversation: the assistant answers the conversation's latest question (streamed on the caller's channel). */
export async function continueConversation(db: Db, ctx: RequestCtx, id: number) {
  const sctx = staff(ctx);
  const { c, history } = await enterTenant(db, sctx, async (tx) => ({ c: await conversation(tx, id), history: await messages(tx, id) }));
  const last = history.at(-1);
  if (last?.role !== "user") throw new ApiError("Conflict", `Conversation ${id} has no question waiting for an answer: AddUserMessage first`);
  const turns = history
    .filter((m) => m.role === "user" || m.role === "assistant")
    .slice(0, -1)
    .map((m) => ({ role: m.role as "user" | "assistant", content: m.content }));
  const ref = { aiConversationId: id, replyToMessageId: last.id };
  const emit = (ev: WithoutChannel<AiChatEvent>) => publish(db, { ...ev, channel: userChannel(ctx.principal.userId), userId: ctx.principal.userId }).catch(() => {});
  await emit({ event: "AiMessageStarted", data: ref });
  const deltas = deltaPublisher((seq, delta) => emit({ event: "AiMessageDelta", data: { ...ref, seq, delta } }));
  let out: { content: string; figures: Figure[]; transcript: TranscriptStep[]; usage: Usage; provider: string; model: string; promptVersionId: number | null };
  let pc: ProjectContext | null = null;
  try {
    if (c.projectId) {
      pc = await projectContext(db, sctx, c.projectId);
      out = await answer(db, sctx, { projectId: c.projectId, filters: {}, history: turns, question: last.content, onDelta: (t) => deltas.push(t) });
    } else {
      const provider = await currentProvider();
      const ex = await runExchange(provider, [{ role: "system", content: GENERAL_SYSTEM }, ...turns, { role: "user", content: last.content }], {}, { onDelta: (t) => deltas.push(t) });
      out = { content: ex.content, figures: [], transcript: ex.transcript, usage: ex.usage, provider: provider.name, model: ex.model, promptVersionId: null };
    }
    await deltas.flush();
  } catch (e) {
    await emit({ event: "AiMessageFailed", data: { ...ref, message: (e as Error).message.slice(0, 300) } });
    throw e;
  }
  const evaluation = groundingCheck(out.content, out.figures, pc ? contextLabels(pc) : []);
  const m = await enterTenant(db, sctx, async (tx) => {
    const [row] = await tx<{ id: number }[]>`
      insert into ai_conversation_messages (ai_conversation_id, user_id, role, content, provider, model, usage, references_data, debug)
      values (${id}, ${c.userId}, 'assistant', ${out.content || "(no answer)"}, ${out.provider}, ${out.model}, ${jsonParam(tx, out.usage)},
              ${jsonParam(tx, { figures: out.figures })}, ${jsonParam(tx, { transcript: out.transcript, promptVersionId: out.promptVersionId })})
      returning id`;
    if (out.figures.length) {
      await tx`update ai_conversation_messages set reference_files = ${tx.json([{ referenceId: `figures-${row!.id}`, fileName: `figures-${row!.id}.csv`, kind: "figures" }])} where id = ${row!.id}`;
    }
    await tx`update ai_conversations set last_message_at = now(), updated_at = now(), model = ${out.model} where id = ${id}`;
    await tx`
      insert into ai_conversation_evaluations (ai_conversation_id, user_id, evaluator_user_id, score, passed, notes, criteria)
      values (${id}, ${c.userId}, null, ${evaluation.passed ? 5 : 2}, ${evaluation.passed}, ${`Automatic grounding check of message ${row!.id}`},
              ${tx.json({ messageId: row!.id, ...evaluation })})`;
    return (await messages(tx, id)).find((x) => x.id === row!.id)!;
  });
  await emit({ event: "AiMessageCompleted", data: { ...ref, messageId: m.id, content: out.content } });
  const { referencesData: _r, debug: _d, ...message } = m;
  return { aiConversationId: id, message, evaluation };
}

/** Names the data supplies (a number inside one is not a figure). */
function contextLabels(pc: ProjectContext): string[] {
  return [
    pc.projectName,
    ...pc.testOptions.map((o) => o.name),
    ...pc.measures.map((m) => m.title),
    ...pc.demographics.flatMap((d) => [d.label, ...d.options.map((o) => o.label)]),
    ...pc.regions.map((r) => r.name),
    ...pc.textQuestions.map((q) => q.text),
  ];
}

/** An answer's grounding: every [Fn] names a figure and follows its text; no number is left uncited. */
export function groundingCheck(text: string, figures: Figure[], labels: string[]) {
  const refs = [...text.matchAll(/\[(F\d+)\]/g)];
  const unknownRefs: string[] = [];
  const misquoted: string[] = [];
  for (const m of refs) {
    const f = figures.find((x) => x.ref === m[1]);
    if (!f) unknownRefs.push(m[1]!);
    else if (!text.slice(0, m.index).endsWith(`${f.text} `)) misquoted.push(m[1]!);
  }
  let rest = text;
  for (const f of figures) rest = rest.split(`${f.text} [${f.ref}]`).join(" ");
  rest = rest
    .replace(/“[^”]*”/g, " ")
    .replace(/"[^"]*"/g, " ")
    .replace(/top-2-box/g, " ");
  for (const l of [...labels].sort((a, b) => b.length - a.length)) if (l) rest = rest.split(l).join(" ");
  const uncitedNumbers = [...rest.matchAll(/\d+(?:[.,]\d+)?%?/g)].map((m) => m[0]);
  return { citedFigures: refs.length, unknownRefs, misquoted, uncitedNumbers, passed: !unknownRefs.length && !misquoted.length && !uncitedNumbers.length };
}

export async function getMessages(db: Db, ctx: RequestCtx, id: number) {
  return enterTenant(db, staff(ctx), async (tx) => {
    await conversation(tx, id);
    return { aiConversationId: id, value: (await messages(tx, id)).map(({ referencesData: _r, debug: _d, ...m }) => m) };
  });
}

/** GetChatContents: the conversation as one readable text (markdown), with its figures listed. */
export async function getChatContents(db: Db, ctx: RequestCtx, id: number) {
  return enterTenant(db, staff(ctx), async (tx) => {
    const c = await conversation(tx, id);
    const ms = await messages(tx, id);
    const parts = ms.map((m) => {
      const figs = m.referencesData?.figures ?? [];
      const list = figs.length ? `\n\n${figs.map((f) => `- [${f.ref}] ${f.text}: ${f.source.fn}`).join("\n")}` : "";
      return `**${m.role === "user" ? "User" : "Assistant"}** (${m.createdAt}):\n\n${m.content}${list}`;
    });
    return { aiConversationId: id, title: c.title, projectId: c.projectId, contents: parts.join("\n\n---\n\n") };
  });
}

/** DebugConversation: for each answer, the prompts sent, the tool calls with results, tokens per round and in total. */
export async function debugConversation(db: Db, ctx: RequestCtx, id: number) {
  return enterTenant(db, staff(ctx), async (tx) => {
    const c = await conversation(tx, id);
    const ms = await messages(tx, id);
    const answers = ms
      .filter((m) => m.role === "assistant")
      .map((m) => ({
        messageId: m.id,
        provider: m.provider,
        model: m.model,
        usage: m.usage,
        promptVersionId: m.debug?.promptVersionId ?? null,
        steps: (m.debug?.transcript ?? []).map((s) => ({
          kind: s.kind,
          ms: s.ms,
          ...(s.kind === "completion" ? { prompt: s.request ?? [], content: s.content ?? "", toolCalls: s.toolCalls ?? [], usage: s.usage ?? null, model: s.model ?? null } : { tool: s.tool ?? null }),
        })),
        figures: m.referencesData?.figures ?? [],
      }));
    const total = answers.reduce(
      (a, x) => ({
        promptTokens: a.promptTokens + (x.usage?.promptTokens ?? 0),
        completionTokens: a.completionTokens + (x.usage?.completionTokens ?? 0),
        totalTokens: a.totalTokens + (x.usage?.totalTokens ?? 0),
      }),
      {
        promptTokens: 0,
        completionTokens: 0,
        totalTokens: 0,
      },
    );
    return { aiConversationId: id, projectId: c.projectId, answers, usage: total };
  });
}

/** DownloadToYml: the conversation (messages, models, tokens) as a YAML document, e.g. for evaluation sets. */
export async function downloadToYml(db: Db, ctx: RequestCtx, id: number) {
  return enterTenant(db, staff(ctx), async (tx) => {
    const c = await conversation(tx, id);
    const ms = await messages(tx, id);
    const doc = {
      conversation: { id: c.id, title: c.title, projectId: c.projectId, status: c.status },
      messages: ms.map((m) => ({
        role: m.role,
        content: m.content,
        at: m.createdAt,
        ...(m.role === "assistant"
          ? { provider: m.provider, model: m.model, usage: m.usage, figures: (m.referencesData?.figures ?? []).map((f) => ({ ref: f.ref, text: f.text, value: f.value, source: f.source })) }
          : {}),
      })),
    };
    return { fileName: `conversation-${c.id}.yml`, yml: stringify(doc, { lineWidth: 0 }) };
  });
}

export const csvCell = (v: unknown) => {
  let s = typeof v === "string" ? v : JSON.stringify(v);
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`; // formula-safe, as the exports
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** DownloadFile(referenceId): a file an answer refers to: its figures as CSV (ref, text, value, source). */
export async function downloadFile(db: Db, ctx: RequestCtx, id: number, referenceId: string) {
  return enterTenant(db, staff(ctx), async (tx) => {
    await conversation(tx, id);
    const [m] = await tx<{ id: number; files: { referenceId: string; fileName: string }[]; refs: { figures: Figure[] } | null }[]>`
      select id, reference_files as files, references_data as refs from ai_conversation_messages
      where ai_conversation_id = ${id} and reference_files @> ${tx.json([{ referenceId }])}`;
    if (!m) throw new ApiError("NotFound", `No file ${referenceId} in conversation ${id}`);
    const file = m.files.find((f) => f.referenceId === referenceId)!;
    const rows = (m.refs?.figures ?? []).map((f) => [f.ref, f.text, f.value, f.source.fn, f.source].map(csvCell).join(","));
    return { fileName: file.fileName, csv: `${["ref,text,value,function,source", ...rows].join("\r\n")}\r\n` };
  });
}

/** GetChannelInfo: where a conversation's answers stream (the caller's own channel) and the events. */
export function channelInfo(ctx: RequestCtx, id: number) {
  return { aiConversationId: id, name: userChannel(ctx.principal.userId), events: ["AiMessageStarted", "AiMessageDelta", "AiMessageCompleted", "AiMessageFailed"] };
}
