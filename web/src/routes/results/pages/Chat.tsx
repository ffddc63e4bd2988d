// chat/{chatId?}: the AI chat side panel of the results page. Threads are the user's own
// (ResultsAiThreads, with the filters they were opened under); a question is POSTed to
// ResultsAiMessages and its answer streams on the user's channel (AiMessageStarted, AiMessageDelta
// in seq order, AiMessageCompleted or AiMessageFailed). Answers cite figures as "62.3% [F4]"; each
// citation links to the results page the figure comes from. Answers can be rated.
import { Fragment, useEffect, useMemo, useRef, useState, type ReactNode } from "react";
import { useSWRConfig } from "swr";
import { Link, useLocation } from "wouter";
import { api, selected, unwrap, type Page, type Row } from "../../../api/client";
import { figureSearch, figureTarget, type Figure } from "../../../features/results/figures";
import { useSystemOptions } from "../FilterSidebar";
import { useApi } from "../../../api/hooks";
import { handleError } from "../../../api/errors";
import { AiEye } from "../../../components/toast";
import { Button, EmptyState, Skeleton, Textarea, cx } from "../../../components/ui";
import { resultsLink } from "../../../lib/projectLinks";
import { useResults } from "../../../features/results/context";
import { onRealtime, onRealtimeOpen } from "../../../state/realtime";
import { recordEvent, streamedText, type Streamed } from "../../../features/results/chatStream";
import { isAiChatEvent } from "@ideally/contracts/events";

type Thread = Row<"ResultsAiThreads", "id" | "title" | "createdAt" | "updatedAt">;
type Message = Row<"ResultsAiMessages", "id" | "role" | "content" | "referencesData" | "feedback" | "createdAt">;

function Cited({ text, figures }: { text: string; figures: Figure[] }) {
  const { clientId, projectId, regionId, questions } = useResults();
  const { data: sysOpts } = useSystemOptions(regionId);
  const codeOf = useMemo(() => new Map((sysOpts?.value ?? []).map((o) => [o.id, o.systemQuestion?.questionCode])), [sysOpts]);
  const questionOf = useMemo(() => new Map(questions.flatMap((q) => (q.question?.questionOptions ?? []).map((o) => [o.id, q.id] as const))), [questions]);
  const href = (f: Figure) => {
    const t = figureTarget(f, figures);
    return `~${resultsLink(
      clientId,
      projectId,
      t.path,
      figureSearch(
        location.search,
        t,
        (i) => codeOf.get(i),
        (i) => questionOf.get(i),
      ),
    )}`;
  };
  const parts: ReactNode[] = [];
  let last = 0;
  for (const m of text.matchAll(/\[(F\d+)\]/g)) {
    parts.push(text.slice(last, m.index));
    const f = figures.find((x) => x.ref === m[1]);
    parts.push(
      f ? (
        <Link
          key={m.index}
          href={href(f)}
          className="mx-0.5 rounded bg-brand-100 px-1 text-xs font-semibold text-brand-800 hover:bg-brand-200"
          title={`${f.text}: open the chart it comes from`}
          aria-label={`Source ${m[1]}: ${f.text}`}
        >
          {m[1]}
        </Link>
      ) : (
        <Fragment key={m.index}>{m[0]}</Fragment>
      ),
    );
    last = (m.index ?? 0) + m[0].length;
  }
  parts.push(text.slice(last));
  return <p className="whitespace-pre-wrap">{parts}</p>;
}

function Feedback({ m, onDone }: { m: Message; onDone: () => void }) {
  const send = async (feedback: "Positive" | "Negative") => {
    try {
      await unwrap(api.POST("/api/v1/ResultsAiMessages({key})/SendFeedback", { params: { path: { key: String(m.id) } }, body: { feedback } }));
      onDone();
    } catch (e) {
      handleError(e);
    }
  };
  return (
    <div className="mt-2 flex gap-1">
      {(["Positive", "Negative"] as const).map((f) => (
        <button
          key={f}
          type="button"
          onClick={() => void send(f)}
          aria-pressed={m.feedback === f}
          className={cx("rounded-md px-2 py-0.5 text-xs font-medium ring-1 ring-ink-200", m.feedback === f ? "bg-brand-100 text-brand-800" : "text-ink-500 hover:bg-ink-100")}
        >
          {f === "Positive" ? "Helpful" : "Not helpful"}
        </button>
      ))}
    </div>
  );
}

export default function Chat({ chatId }: { chatId?: number }) {
  const { projectId, clientId, responseFilter, allMarkets } = useResults();
  const [, navigate] = useLocation();
  const threads = useApi(["ResultsAiThreads", projectId], () =>
    selected<Page<Thread>>(
      api.GET("/api/v1/ResultsAiThreads", { params: { query: { $filter: `projectId eq ${projectId}`, $orderby: "updatedAt desc,createdAt desc", $select: "id,title,createdAt,updatedAt" } } }),
    ),
  );
  const messages = useApi(chatId ? ["ResultsAiMessages", chatId] : null, () =>
    selected<Page<Message>>(
      api.GET("/api/v1/ResultsAiMessages", {
        params: { query: { $filter: `resultsAiThreadId eq ${chatId}`, $orderby: "id", $select: "id,role,content,referencesData,feedback,createdAt", $top: 200 } },
      }),
    ),
  );
  const [question, setQuestion] = useState("");
  const [busy, setBusy] = useState(false);
  const [stream, setStream] = useState<{ replyTo: number; text: string; failed?: string } | null>(null);
  const { mutate } = useSWRConfig();
  const mutateThreads = threads.mutate;
  const showPending = useRef(() => {});
  // The question waiting for its answer (its thread and id): refs, so events that arrive while the
  // page moves to a new thread's URL are not lost.
  const pending = useRef<{ thread: number; id: number } | null>(null);
  // Every answer's events as they come, by the question they reply to: an instant answer's events
  // can all arrive before the question's POST returns (before the page knows its id).
  const answers = useRef(new Map<number, Streamed>());
  const end = useRef<HTMLDivElement>(null);

  useEffect(() => {
    const show = (p: { thread: number; id: number }) => {
      const a = answers.current.get(p.id);
      if (!a) return;
      setStream({ replyTo: p.id, text: streamedText(a), failed: a.failed });
      if (a.done) {
        pending.current = null;
        void mutate(["ResultsAiMessages", p.thread]);
        void mutateThreads();
      }
    };
    showPending.current = () => {
      if (pending.current) show(pending.current);
    };
    const offEvents = onRealtime((ev) => {
      // The results chat's answers carry their thread (the staff conversations' do not).
      if (!isAiChatEvent(ev) || ev.data.resultsAiThreadId === undefined) return;
      recordEvent(answers.current, ev);
      const p = pending.current;
      if (p && ev.data.resultsAiThreadId === p.thread && ev.data.replyToMessageId === p.id) show(p);
    });
    // Events sent while the page had no socket never come again: on (re)opening, the thread is read.
    const offOpen = onRealtimeOpen(() => {
      const p = pending.current;
      if (p) void mutate(["ResultsAiMessages", p.thread]);
    });
    return () => {
      offEvents();
      offOpen();
    };
  }, [mutate, mutateThreads]);
  useEffect(() => {
    // Chromium 156 returns a promise from scrollIntoView; an effect must return nothing or a cleanup.
    void end.current?.scrollIntoView({ block: "end" });
  }, [messages.data, stream]);

  const ask = async () => {
    const content = question.trim();
    if (!content) return;
    setBusy(true);
    try {
      let thread = chatId;
      if (!thread) {
        const t = (await unwrap(api.POST("/api/v1/ResultsAiThreads", { body: { projectId, filters: responseFilter, total: allMarkets ? "markets" : "sample" } }))) as { id: number };
        thread = t.id;
      }
      const m = (await unwrap(api.POST("/api/v1/ResultsAiMessages", { body: { resultsAiThreadId: thread, content } }))) as { id: number };
      pending.current = { thread, id: m.id };
      setStream({ replyTo: m.id, text: "" });
      showPending.current(); // what already came for it
      setQuestion("");
      if (thread !== chatId) navigate(`~${resultsLink(clientId, projectId, `chat/${thread}`)}`);
      else void mutate(["ResultsAiMessages", thread]);
      void threads.mutate();
    } catch (e) {
      handleError(e);
    } finally {
      setBusy(false);
    }
  };

  const list = messages.data?.value ?? [];
  const waiting = useMemo(() => stream && !list.some((m) => m.role === "assistant" && m.id > stream.replyTo), [stream, list]);
  return (
    // One column on a phone that never grows past the screen: a long chat title is cut with an
    // ellipsis instead of widening the page (a grid column sized by its nowrap text did, by 182 px).
    <div className="grid grid-cols-[minmax(0,1fr)] gap-4 md:grid-cols-[12rem_minmax(0,1fr)]">
      <nav aria-label="Chats" className="min-w-0 space-y-1">
        <Button size="sm" variant="secondary" className="w-full" onClick={() => navigate(`~${resultsLink(clientId, projectId, "chat")}`)}>
          New chat
        </Button>
        {!threads.data ? (
          <Skeleton className="h-20" />
        ) : (
          threads.data.value.map((t) => (
            <Link
              key={t.id}
              href={`~${resultsLink(clientId, projectId, `chat/${t.id}`)}`}
              aria-current={t.id === chatId ? "page" : undefined}
              className={cx("block truncate rounded-md px-2 py-1.5 text-sm", t.id === chatId ? "bg-brand-50 font-medium text-brand-800" : "text-ink-700 hover:bg-ink-100")}
            >
              {t.title ?? `Chat ${t.id}`}
            </Link>
          ))
        )}
      </nav>
      <section aria-label="Conversation" className="flex min-h-[28rem] flex-col rounded-xl border border-ink-200 bg-white shadow-sm">
        <div className="flex items-center gap-2 border-b border-ink-100 px-4 py-3">
          <AiEye size="small" loop={!!waiting} />
          <h2 className="text-sm font-semibold text-ink-900">Ask about these results</h2>
        </div>
        <div className="flex-1 space-y-3 overflow-y-auto p-4" aria-live="polite">
          {!chatId && !stream ? <EmptyState title="Ask a question">The answer is computed from this project's results under your current filters, with its sources.</EmptyState> : null}
          {chatId && !messages.data ? <Skeleton className="h-24" /> : null}
          {list.map((m) => (
            <div key={m.id} className={cx("max-w-[90%] rounded-xl px-3 py-2 text-sm", m.role === "user" ? "ml-auto bg-brand-600 text-white" : "bg-ink-50 text-ink-900")} data-role={m.role}>
              {m.role === "assistant" ? <Cited text={m.content} figures={m.referencesData?.figures ?? []} /> : <p className="whitespace-pre-wrap">{m.content}</p>}
              {m.role === "assistant" ? <Feedback m={m} onDone={() => void messages.mutate()} /> : null}
            </div>
          ))}
          {stream && waiting ? (
            <div className="max-w-[90%] rounded-xl bg-ink-50 px-3 py-2 text-sm text-ink-900" data-role="streaming">
              {stream.text ? <p className="whitespace-pre-wrap">{stream.text.replace(/\[(F\d+)\]/g, "[$1]")}</p> : <p className="text-ink-500">Thinking…</p>}
              {stream.failed ? (
                <p className="mt-1 text-rose-700" role="alert">
                  {stream.failed}
                </p>
              ) : null}
            </div>
          ) : null}
          <div ref={end} />
        </div>
        <form
          className="flex gap-2 border-t border-ink-100 p-3"
          onSubmit={(e) => {
            e.preventDefault();
            void ask();
          }}
        >
          <label htmlFor="chat-question" className="sr-only">
            Your question
          </label>
          <Textarea
            id="chat-question"
            rows={2}
            className="flex-1"
            placeholder="Which test option did best, and why?"
            value={question}
            maxLength={4000}
            onChange={(e) => setQuestion(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter" && !e.shiftKey) {
                e.preventDefault();
                void ask();
              }
            }}
          />
          <Button type="submit" busy={busy} disabled={!question.trim()}>
            Ask
          </Button>
        </form>
      </section>
    </div>
  );
}
