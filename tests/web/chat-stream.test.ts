// The chat's answers assembled from their websocket events (web/src/features/results/chatStream.ts),
// whatever order they come in and whether or not the page knows the question yet.
import { describe, expect, test } from "bun:test";
import { isAiChatEvent, parseLiveEvent } from "@ideally/contracts/events";
import { KEPT_ANSWERS, recordEvent as record, streamedText, type Streamed } from "../../web/src/features/results/chatStream";

const ev = (replyToMessageId: number, extra: object = {}) => ({ resultsAiThreadId: 7, replyToMessageId, jobId: "j", ...extra });
/** Each event as the page gets it: parsed with its declaration (contracts/events.ts) first. */
function recordEvent(m: Map<number, Streamed>, event: string, data: object): void {
  const parsed = parseLiveEvent({ channel: "user-1", event, data });
  if (!parsed.ok) throw new Error(parsed.error);
  if (!isAiChatEvent(parsed.value)) throw new Error(`${event} is not an AI chat event`);
  record(m, parsed.value);
}

describe("chat stream", () => {
  test("pieces out of order are joined in seq order; the completed event's stored text wins", () => {
    const m = new Map<number, Streamed>();
    recordEvent(m, "AiMessageStarted", ev(5));
    recordEvent(m, "AiMessageDelta", ev(5, { seq: 1, delta: "did best" }));
    recordEvent(m, "AiMessageDelta", ev(5, { seq: 0, delta: "Concept A " }));
    expect(streamedText(m.get(5)!)).toBe("Concept A did best");
    expect(m.get(5)!.done).toBeUndefined();
    recordEvent(m, "AiMessageCompleted", ev(5, { messageId: 6, content: "Concept A did best [F1]." }));
    expect(streamedText(m.get(5)!)).toBe("Concept A did best [F1].");
    expect(m.get(5)!.done).toBe(true);
  });

  test("answers to different questions stay apart", () => {
    const m = new Map<number, Streamed>();
    recordEvent(m, "AiMessageDelta", ev(5, { seq: 0, delta: "five" }));
    recordEvent(m, "AiMessageDelta", ev(9, { seq: 0, delta: "nine" }));
    expect(streamedText(m.get(5)!)).toBe("five");
    expect(streamedText(m.get(9)!)).toBe("nine");
  });

  test("a failure is shown; a retry starts over and clears it", () => {
    const m = new Map<number, Streamed>();
    recordEvent(m, "AiMessageDelta", ev(5, { seq: 0, delta: "half" }));
    recordEvent(m, "AiMessageFailed", ev(5, { message: "provider down" }));
    expect(m.get(5)!.failed).toBe("provider down");
    recordEvent(m, "AiMessageStarted", ev(5));
    expect(m.get(5)!.failed).toBeUndefined();
    expect(streamedText(m.get(5)!)).toBe("");
    // The API always sends a message; an empty one still reads as a failure.
    recordEvent(m, "AiMessageFailed", ev(5, { message: "" }));
    expect(m.get(5)!.failed).toBe("The answer failed");
    expect(() => recordEvent(m, "AiMessageFailed", ev(5, {})), "a Failed without its message is refused by its declaration").toThrow("data.message");
  });

  test(`the newest ${KEPT_ANSWERS} answers are kept, the oldest dropped beyond`, () => {
    const m = new Map<number, Streamed>();
    for (let i = 1; i <= KEPT_ANSWERS; i++) recordEvent(m, "AiMessageStarted", ev(i));
    expect(m.size).toBe(KEPT_ANSWERS);
    expect(m.has(1)).toBe(true);
    recordEvent(m, "AiMessageStarted", ev(KEPT_ANSWERS + 1));
    expect(m.size).toBe(KEPT_ANSWERS);
    expect(m.has(1)).toBe(false);
    expect(m.has(2)).toBe(true);
    expect(m.has(KEPT_ANSWERS + 1)).toBe(true);
  });
});
