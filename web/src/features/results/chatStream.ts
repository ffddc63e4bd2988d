// The results chat's answers as their websocket events tell them (AiMessageStarted, AiMessageDelta
// in seq order, AiMessageCompleted with the stored text, AiMessageFailed), kept by the question
// they reply to, whether or not the page already knows that question's id. The events are
// contracts/events.ts's, parsed by web/src/state/realtime.ts.
import type { AiChatEvent } from "@ideally/contracts/events";

export interface Streamed {
  chunks: Map<number, string>;
  /** The stored answer's text (AiMessageCompleted). */
  content?: string;
  failed?: string;
  done?: boolean;
}

/** How many answers are kept (the newest); a page waits for one at a time. */
export const KEPT_ANSWERS = 20;

export function recordEvent(answers: Map<number, Streamed>, ev: AiChatEvent): void {
  let a = answers.get(ev.data.replyToMessageId);
  if (!a) {
    a = { chunks: new Map() };
    answers.set(ev.data.replyToMessageId, a);
    for (const k of answers.keys()) {
      if (answers.size <= KEPT_ANSWERS) break;
      answers.delete(k);
    }
  }
  if (ev.event === "AiMessageDelta") a.chunks.set(ev.data.seq, ev.data.delta);
  if (ev.event === "AiMessageCompleted") {
    a.done = true;
    a.failed = undefined;
    a.content = ev.data.content;
  }
  if (ev.event === "AiMessageFailed") a.failed = ev.data.message || "The answer failed";
  if (ev.event === "AiMessageStarted" && a.failed) {
    // a retry starts over
    a.failed = undefined;
    a.chunks.clear();
  }
}

/** The text so far: the stored answer once completed, else the pieces in seq order. */
export function streamedText(a: Streamed): string {
  if (a.content !== undefined) return a.content;
  return [...a.chunks.entries()]
    .sort((x, y) => x[0] - y[0])
    .map((x) => x[1])
    .join("");
}
