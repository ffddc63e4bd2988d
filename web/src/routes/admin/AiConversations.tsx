// admin/ai-conversations and admin/ai-conversations/{conversationId}: users' AI conversations
// across clients (who, which project, status, model, last message) or the signed-in staff member's
// own (MyConversations), a new conversation, and one conversation: its messages (GetMessages, or
// the Markdown of GetChatContents), a question added and answered (AddUserMessage then
// ContinueConversation; the answer streams on the caller's user channel as AiMessageStarted /
// AiMessageDelta / AiMessageCompleted / AiMessageFailed with aiConversationId), an answer's figures
// as CSV (DownloadFile), the conversation as YML (DownloadToYml), the debug view
// (DebugConversation: each round's prompt, tool calls with arguments and results, tokens) and its
// evaluations.
import { useEffect, useRef, useState } from "react";
import { Link, useLocation } from "wouter";
import { useSWRConfig } from "swr";
import { api, selected, type Row, type Schemas } from "../../api/client";
import { useApi } from "../../api/hooks";
import { Badge, Button, Card, EmptyState, Field, Input, PageHeader, Select, Textarea } from "../../components/ui";
import { keyedBy } from "../../lib/keys";
import { useSearchState } from "../../lib/search";
import { onRealtime } from "../../state/realtime";
import { isAiChatEvent } from "@ideally/contracts/events";
import { DataTable, LoadingRows, Pager, Td, act, fmtDate, keyPath, useSet, type Call } from "./shared";

const PAGE = 25;
type Evaluation = Row<"AiConversationEvaluations", "id" | "score" | "passed" | "notes" | "criteria" | "createdAt", { evaluatorUser: Row<"Users", "email"> | null }>;
type ConversationFields = "id" | "title" | "status" | "model" | "projectId" | "clientId" | "lastMessageAt" | "createdAt";
type Expanded = { user: Row<"Users", "email"> | null; client: Row<"Clients", "name"> | null; project: Row<"Projects", "projectName"> | null };
type Conversation = Row<"AiConversations", ConversationFields, Expanded & { "aiConversationEvaluations@odata.count"?: number }>;
type Usage = Schemas["AiUsage"] | null;

const tokens = (u: Usage) => (u ? `${u.totalTokens.toLocaleString()} tokens (${u.promptTokens.toLocaleString()} prompt, ${u.completionTokens.toLocaleString()} completion${u.estimated ? ", estimated" : ""})` : "no tokens recorded");

/** A question into a conversation (new when `conversationId` is absent), then its answer. */
async function askAndAnswer(content: string, conversationId: number | null, projectId: number | null): Promise<number | undefined> {
  const added = await act(api.POST("/api/v1/AiConversations/AddUserMessage", { body: { content, ...(conversationId ? { aiConversationId: conversationId } : {}), ...(projectId ? { projectId } : {}) } }));
  if (!added) return undefined;
  await act(api.POST("/api/v1/AiConversations({key})/ContinueConversation", { params: keyPath(added.aiConversationId) }));
  return added.aiConversationId;
}

/** Saves a text the API answered as a file. */
async function saveText(call: Call<string>, fileName: string, type: string) {
  const text = await act(call);
  if (typeof text !== "string") return;
  const url = URL.createObjectURL(new Blob([text], { type }));
  Object.assign(document.createElement("a"), { href: url, download: fileName }).click();
  URL.revokeObjectURL(url);
}

export default function AiConversations() {
  const [search, setSearch] = useSearchState();
  const mine = search.mine === "1";
  return (
    <div>
      <PageHeader title="AI conversations" subtitle="Conversations users had with the AI, across clients" />
      <fieldset aria-label="Whose conversations" className="mb-4 flex gap-2">
        <Button size="sm" variant={mine ? "secondary" : "primary"} aria-pressed={!mine} onClick={() => setSearch({ mine: null, page: null })}>All users</Button>
        <Button size="sm" variant={mine ? "primary" : "secondary"} aria-pressed={mine} onClick={() => setSearch({ mine: "1", page: null })}>My conversations</Button>
      </fieldset>
      {mine ? <MyConversations /> : <AllConversations />}
    </div>
  );
}

function AllConversations() {
  const [search, setSearch] = useSearchState();
  const status = String(search.status ?? "");
  const page = Math.max(0, Number(search.page ?? 0) || 0);
  const { data, isLoading } = useSet<Conversation>("AiConversations", {
    $select: "id,title,status,model,projectId,clientId,lastMessageAt,createdAt",
    $expand: "user($select=email),client($select=name),project($select=projectName),aiConversationEvaluations/$count",
    $orderby: "id desc",
    $count: true,
    $top: PAGE,
    $skip: page * PAGE,
    ...(status === "Active" || status === "Closed" ? { $filter: `status eq '${status}'` } : {}),
  });
  return (
    <>
      <div className="mb-4 max-w-48">
        <label htmlFor="conv-status" className="sr-only">Status</label>
        <Select id="conv-status" value={status} onChange={(e) => setSearch({ status: e.target.value, page: null })}>
          <option value="">All statuses</option>
          <option value="Active">Active</option>
          <option value="Closed">Closed</option>
        </Select>
      </div>
      <DataTable
        caption="AI conversations"
        head={["Conversation", "User", "Project", "Status", "Evaluations", "Last message"]}
        rows={data?.value}
        isLoading={isLoading}
        empty="No AI conversations yet"
        render={(c) => (
          <tr key={c.id}>
            <Td className="min-w-48"><Link href={`/ai-conversations/${c.id}`} className="font-medium text-ink-900 hover:text-brand-700 hover:underline">{c.title ?? `Conversation ${c.id}`}</Link><p className="text-xs text-ink-500">{c.model ?? "default model"}</p></Td>
            <Td>{c.user?.email}<p className="text-xs text-ink-500">{c.client?.name}</p></Td>
            <Td>{c.project?.projectName ?? "—"}</Td>
            <Td><Badge tone={c.status === "Active" ? "blue" : "neutral"}>{c.status}</Badge></Td>
            <Td>{c["aiConversationEvaluations@odata.count"] ?? 0}</Td>
            <Td className="whitespace-nowrap">{fmtDate(c.lastMessageAt)}</Td>
          </tr>
        )}
      />
      <Pager page={page} pageSize={PAGE} total={data?.["@odata.count"] ?? 0} onPage={(p) => setSearch({ page: p || null })} />
    </>
  );
}

function MyConversations() {
  const [, navigate] = useLocation();
  const { data, isLoading, mutate } = useApi(["AiConversations", "mine"], () => api.GET("/api/v1/AiConversations/MyConversations"));
  const [question, setQuestion] = useState("");
  const [projectId, setProjectId] = useState("");
  const [busy, setBusy] = useState(false);
  async function start() {
    setBusy(true);
    const id = await askAndAnswer(question.trim(), null, Number(projectId) || null);
    setBusy(false);
    if (id) {
      void mutate();
      navigate(`/ai-conversations/${id}`);
    }
  }
  return (
    <>
      <Card title="New conversation" className="mb-6">
        <form className="grid gap-4 sm:grid-cols-[1fr_10rem_auto] sm:items-end" onSubmit={(e) => { e.preventDefault(); if (question.trim()) void start(); }}>
          <Field id="new-conv-question" label="Question"><Input id="new-conv-question" value={question} maxLength={4000} onChange={(e) => setQuestion(e.target.value)} /></Field>
          <Field id="new-conv-project" label="Project id (optional)"><Input id="new-conv-project" inputMode="numeric" value={projectId} onChange={(e) => setProjectId(e.target.value.replace(/\D/g, ""))} /></Field>
          <Button type="submit" busy={busy} disabled={!question.trim()}>Ask</Button>
        </form>
      </Card>
      <DataTable
        caption="My AI conversations"
        head={["Conversation", "Project", "Status", "Messages", "Last message"]}
        rows={data?.value}
        isLoading={isLoading}
        empty="You have no AI conversations yet"
        render={(c) => (
          <tr key={c.id}>
            <Td className="min-w-48"><Link href={`/ai-conversations/${c.id}`} className="font-medium text-ink-900 hover:text-brand-700 hover:underline">{c.title ?? `Conversation ${c.id}`}</Link></Td>
            <Td>{c.projectId ? `Project ${c.projectId}` : "—"}</Td>
            <Td><Badge tone={c.status === "Active" ? "blue" : "neutral"}>{c.status}</Badge></Td>
            <Td>{c.messageCount} message{c.messageCount === 1 ? "" : "s"}</Td>
            <Td className="whitespace-nowrap">{fmtDate(c.lastMessageAt)}</Td>
          </tr>
        )}
      />
    </>
  );
}

export function AiConversationDetail({ id }: { id: number }) {
  const { data: c, isLoading, error, mutate: reload } = useApi(["AiConversations", id], () =>
    selected<Row<"AiConversations", ConversationFields, Expanded & { aiConversationEvaluations: Evaluation[] }>>(
      api.GET("/api/v1/AiConversations({key})", {
        params: { ...keyPath(id), query: { $expand: "user($select=email),client($select=name),project($select=projectName),aiConversationEvaluations($orderby=id desc;$expand=evaluatorUser($select=email))" } },
      }),
    ),
  );
  const [search, setSearch] = useSearchState();
  const view = search.view === "debug" || search.view === "markdown" ? search.view : "messages";
  const setView = (v: string) => setSearch({ view: v === "messages" ? null : v });
  return (
    <div>
      <p className="mb-2 text-sm"><Link href="/ai-conversations" className="text-brand-700 hover:underline">← AI conversations</Link></p>
      {error ? <EmptyState title="Conversation not found">It may have been deleted, or the id is wrong.</EmptyState> : isLoading || !c ? <LoadingRows label="Loading conversation" /> : (
        <>
          <PageHeader
            title={c.title ?? `Conversation ${c.id}`}
            subtitle={`${c.user?.email ?? "—"} · ${c.client?.name ?? "no client"}`}
            actions={<Button variant="secondary" onClick={() => void saveText(api.POST("/api/v1/AiConversations({key})/DownloadToYml", { params: keyPath(id), parseAs: "text" }), `conversation-${id}.yml`, "application/yaml")}>Download YML</Button>}
          />
          <Card title="Conversation">
            <dl className="grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[10rem_1fr]">
              <dt className="text-ink-500">Status</dt><dd><Badge tone={c.status === "Active" ? "blue" : "neutral"}>{c.status}</Badge></dd>
              <dt className="text-ink-500">Project</dt><dd>{c.project?.projectName ?? "—"}</dd>
              <dt className="text-ink-500">Model</dt><dd>{c.model ?? "default"}</dd>
              <dt className="text-ink-500">Started</dt><dd>{fmtDate(c.createdAt)}</dd>
              <dt className="text-ink-500">Last message</dt><dd>{fmtDate(c.lastMessageAt)}</dd>
            </dl>
          </Card>
          <fieldset aria-label="View" className="mt-6 mb-4 flex flex-wrap gap-2">
            {([["messages", "Messages"], ["markdown", "Chat contents"], ["debug", "Debug view"]] as const).map(([v, label]) => (
              <Button key={v} size="sm" variant={view === v ? "primary" : "secondary"} aria-pressed={view === v} onClick={() => setView(v)}>{label}</Button>
            ))}
          </fieldset>
          {view === "messages" ? <Messages id={id} onAnswered={() => void reload()} /> : view === "markdown" ? <ChatContents id={id} /> : <DebugView id={id} />}
          <Card title="Evaluations" className="mt-6">
            {!c.aiConversationEvaluations?.length ? <p className="text-sm text-ink-600">Not evaluated yet.</p> : (
              <ul className="divide-y divide-ink-100 text-sm">
                {c.aiConversationEvaluations.map((e) => (
                  <li key={e.id} className="py-2.5">
                    <div className="flex flex-wrap items-center gap-3">
                      {e.passed === null ? null : <Badge tone={e.passed ? "green" : "red"}>{e.passed ? "Passed" : "Failed"}</Badge>}
                      {e.score !== null ? <span className="font-medium">Score {e.score}</span> : null}
                      <span className="text-ink-500">{e.evaluatorUser?.email ?? "automatic"} · {fmtDate(e.createdAt)}</span>
                    </div>
                    {e.notes ? <p className="mt-1 text-ink-700">{e.notes}</p> : null}
                    {e.criteria ? <code className="mt-1 block text-xs break-all text-ink-600">{JSON.stringify(e.criteria)}</code> : null}
                  </li>
                ))}
              </ul>
            )}
          </Card>
        </>
      )}
    </div>
  );
}

function Messages({ id, onAnswered }: { id: number; onAnswered: () => void }) {
  const { data, isLoading, mutate } = useApi(["AiConversations", id, "GetMessages"], () => api.GET("/api/v1/AiConversations({key})/GetMessages", { params: keyPath(id) }));
  const { mutate: mutateAny } = useSWRConfig();
  const [question, setQuestion] = useState("");
  const [busy, setBusy] = useState(false);
  const [stream, setStream] = useState<{ text: string; failed?: string } | null>(null);
  const chunks = useRef(new Map<number, string>());
  const waiting = useRef(false);
  useEffect(
    () =>
      onRealtime((ev) => {
        if (!isAiChatEvent(ev) || !waiting.current || ev.data.aiConversationId !== id) return;
        if (ev.event === "AiMessageStarted") chunks.current.clear();
        if (ev.event === "AiMessageDelta") {
          chunks.current.set(ev.data.seq, ev.data.delta);
          setStream({ text: [...chunks.current.entries()].sort((a, b) => a[0] - b[0]).map((x) => x[1]).join("") });
        }
        if (ev.event === "AiMessageFailed") {
          const failed = ev.data.message || "The answer failed";
          setStream((s) => ({ text: s?.text ?? "", failed }));
        }
      }),
    [id],
  );
  async function ask() {
    setBusy(true);
    waiting.current = true;
    setStream({ text: "" });
    const done = await askAndAnswer(question.trim(), id, null);
    waiting.current = false;
    setBusy(false);
    await mutate();
    setStream((s) => (s?.failed ? s : null));
    if (done) {
      setQuestion("");
      onAnswered();
      void mutateAny(["AiConversations", id, "DebugConversation"]);
      void mutateAny(["AiConversations", id, "GetChatContents"]);
    }
  }
  return (
    <Card title="Messages">
      {isLoading ? <LoadingRows label="Loading messages" rows={3} /> : !data?.value.length ? <p className="text-sm text-ink-600">No messages yet.</p> : (
        <ol className="space-y-3">
          {data.value.map((m) => (
            <li key={m.id} className={`rounded-lg border p-3 text-sm ${m.role === "user" ? "border-brand-200 bg-brand-50" : "border-ink-200 bg-white"}`}>
              <p className="mb-1 text-xs text-ink-500">
                <span className="font-medium text-ink-700">{m.role === "user" ? "Question" : m.role === "assistant" ? "Answer" : m.role}</span> · {fmtDate(m.createdAt)}
                {m.role === "assistant" ? ` · ${m.provider ?? "?"} ${m.model ?? ""} · ${tokens(m.usage)}` : ""}
              </p>
              <p className="whitespace-pre-wrap text-ink-900">{m.content}</p>
              {m.referenceFiles.length ? (
                <div className="mt-2 flex flex-wrap gap-2">
                  {m.referenceFiles.map((f) => (
                    <Button key={f.referenceId} size="sm" variant="secondary" aria-label={`Download ${f.fileName}`}
                      onClick={() => void saveText(api.GET("/api/v1/AiConversations({key})/DownloadFile", { params: { ...keyPath(id), query: { referenceId: f.referenceId } }, parseAs: "text" }), f.fileName, "text/csv")}>
                      {f.fileName}
                    </Button>
                  ))}
                </div>
              ) : null}
            </li>
          ))}
        </ol>
      )}
      {stream ? (
        <div aria-live="polite" className="mt-3 rounded-lg border border-dashed border-ink-300 p-3 text-sm">
          <p className="mb-1 text-xs text-ink-500">{stream.failed ? `The answer failed: ${stream.failed}` : "Answering…"}</p>
          <p className="whitespace-pre-wrap text-ink-900">{stream.text}</p>
        </div>
      ) : null}
      <form className="mt-4 flex flex-col gap-2 sm:flex-row sm:items-end" onSubmit={(e) => { e.preventDefault(); if (question.trim()) void ask(); }}>
        <div className="flex-1"><Field id="conv-question" label="Add a question"><Textarea id="conv-question" rows={2} maxLength={4000} value={question} onChange={(e) => setQuestion(e.target.value)} /></Field></div>
        <Button type="submit" busy={busy} disabled={!question.trim()}>Ask and answer</Button>
      </form>
    </Card>
  );
}

function ChatContents({ id }: { id: number }) {
  const { data, isLoading } = useApi(["AiConversations", id, "GetChatContents"], () => api.GET("/api/v1/AiConversations({key})/GetChatContents", { params: keyPath(id) }));
  return (
    <Card title="Chat contents (Markdown)">
      {isLoading || !data ? <LoadingRows label="Loading chat contents" rows={3} /> : <pre tabIndex={0} className="max-h-[36rem] overflow-auto rounded-lg bg-ink-50 p-3 text-xs whitespace-pre-wrap text-ink-800">{data.contents}</pre>}
    </Card>
  );
}

const pretty = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v, null, 2));

function DebugView({ id }: { id: number }) {
  const { data, isLoading } = useApi(["AiConversations", id, "DebugConversation"], () => api.POST("/api/v1/AiConversations({key})/DebugConversation", { params: keyPath(id) }));
  if (isLoading || !data) return <Card title="Debug view"><LoadingRows label="Loading the debug view" rows={3} /></Card>;
  return (
    <Card title="Debug view">
      <p className="mb-3 text-sm text-ink-700">Conversation total: {tokens(data.usage)}</p>
      {!data.answers.length ? <p className="text-sm text-ink-600">No answers yet.</p> : data.answers.map((a, i) => (
        <section key={a.messageId} aria-label={`Answer ${i + 1}`} className="mb-4 rounded-lg border border-ink-200 p-3 text-sm">
          <h3 className="font-semibold text-ink-900">Answer {i + 1} <span className="font-normal text-ink-500">(message {a.messageId})</span></h3>
          <p className="text-xs text-ink-600">{a.provider ?? "?"} · {a.model ?? "?"} · {tokens(a.usage)}{a.promptVersionId ? ` · prompt version ${a.promptVersionId}` : ""}</p>
          <ol className="mt-2 space-y-2">
            {keyedBy(a.steps, (s) => `${s.kind} ${s.tool?.name ?? ""} ${s.ms}`).map(([key, s], j) => (
              <li key={key} className="rounded border border-ink-100 bg-ink-50 p-2">
                {s.kind === "completion" ? (
                  <>
                    <p className="text-xs font-medium text-ink-800">Round {a.steps.slice(0, j + 1).filter((x) => x.kind === "completion").length}: completion · {tokens(s.usage ?? null)} · {s.ms} ms</p>
                    <details className="mt-1">
                      <summary className="cursor-pointer text-xs text-brand-700">Prompt ({s.prompt?.length ?? 0} messages)</summary>
                      <ol className="mt-1 space-y-1">
                        {keyedBy(s.prompt ?? [], (m) => `${m.role} ${m.toolCallId ?? ""} ${(m.content ?? "").slice(0, 80)}`).map(([k, m]) => (
                          <li key={k}><span className="text-xs font-medium text-ink-700">{m.role}{m.toolCallId ? ` (${m.toolCallId})` : ""}</span><pre className="max-h-60 overflow-auto text-xs whitespace-pre-wrap text-ink-700">{m.content ?? ""}</pre></li>
                        ))}
                      </ol>
                    </details>
                    {s.toolCalls?.length ? <p className="mt-1 text-xs text-ink-700">Asks for: {s.toolCalls.map((t) => t.name).join(", ")}</p> : null}
                    {s.content ? <pre className="mt-1 text-xs whitespace-pre-wrap text-ink-800">{s.content}</pre> : null}
                  </>
                ) : (
                  <>
                    <p className="text-xs font-medium text-ink-800">Tool call: {s.tool?.name} · {s.ms} ms</p>
                    <pre className="mt-1 text-xs whitespace-pre-wrap text-ink-700">Arguments: {pretty(s.tool?.arguments)}</pre>
                    <details className="mt-1">
                      <summary className="cursor-pointer text-xs text-brand-700">{s.tool?.error ? "Error" : "Result"}</summary>
                      <pre className="max-h-60 overflow-auto text-xs whitespace-pre-wrap text-ink-700">{s.tool?.error ?? pretty(s.tool?.result)}</pre>
                    </details>
                  </>
                )}
              </li>
            ))}
          </ol>
          {a.figures.length ? (
            <section className="relative mt-2 overflow-x-auto" tabIndex={0} aria-label={`Figures cited by answer ${i + 1}`}>
            <table className="w-full min-w-[36rem] text-left text-xs">
              <caption className="text-left font-medium text-ink-800">Figures cited</caption>
              <thead><tr><th className="pr-2">Ref</th><th className="pr-2">Text</th><th className="pr-2">Value</th><th>Source</th></tr></thead>
              <tbody>{a.figures.map((f) => <tr key={f.ref}><td className="pr-2">{f.ref}</td><td className="pr-2">{f.text}</td><td className="pr-2">{f.value}</td><td className="break-all">{JSON.stringify(f.source)}</td></tr>)}</tbody>
            </table>
            </section>
          ) : null}
        </section>
      ))}
    </Card>
  );
}
