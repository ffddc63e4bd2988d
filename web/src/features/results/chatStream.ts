// The results chat's answers as their websocket events tell them (AiMessageStarted, AiMessageDelta
// in seq order, AiMessageCompleted with the stored text, AiMessageFailed), kept by the question
// they reply to, whether or not the page already knows that question's id.

export interface StreamEvent {
  resultsAiThreadId: number;
  replyToMessageId: number;
  seq?: number;
  delta?: string;
  content?: string;
  message?: string;
}

export interface Streamed {
  chunks: Map<number, string>;
  /** The stored answer's text (AiMessageCompleted). */
  content?: string;
  failed?: string;
  done?: boolean;
}

/** How many answers are kept (the newest); a page waits for one at a time. */
export const KEPT_ANSWERS = 20;

export function recordEvent(answers: Map<number, Streamed>, event: string, d: StreamEvent): void {
  let a = answers.get(d.replyToMessageId);
  if (!a) {
    a = { chunks: new Map() };
    answers.set(d.replyToMessageId, a);
    for (const k of answers.keys()) {
      if (answers.size <= KEPT_ANSWERS) break;
      answers.delete(k);
    }
  }
  if (event === "AiMessageDelta" && typeof d.seq === "number") a.chunks.set(d.seq, d.delta ?? "");
  if (event === "AiMessageCompleted") {
    a.done = true;
    a.failed = undefined;
    if (typeof d.content === "string") a.content = d.content;
  }
  if (event === "AiMessageFailed") a.failed = d.message ?? "The answer failed";
  if (event === "AiMessageStarted" && a.failed) {
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
