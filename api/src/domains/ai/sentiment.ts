// Sentiment of open answers by a model (prompt type Sentiment): with the OpenAI-compatible provider
// configured, each answer's sentiment is the model's, asked in batches of BATCH numbered answers;
// the reply is JSON, checked (a known label, a score in [-1, 1], an answer number in range), and an
// answer the reply leaves out keeps the AFINN-165 lexicon's sentiment (analytics/verbatims.ts),
// which stays the local default. A reply that does not parse fails the coding.
import type { Db } from "../../db/client.ts";
import type { SentimentLabel } from "@ideally/analytics/verbatims";
import { promptFor } from "./messages.ts";
import { jsonReplyList, runExchange, type AiProvider } from "./provider.ts";
import { BATCH } from "./translate.ts";

const LABELS = new Set<SentimentLabel>(["Positive", "Negative", "Neutral", "Mixed"]);

export const SENTIMENT_SYSTEM = [
  "Rate the sentiment of each numbered survey answer towards the product or idea it is about.",
  'Reply with JSON only: {"sentiments":[{"n":answer number,"sentiment":"Positive|Negative|Neutral|Mixed","score":number from -1 (very negative) to 1 (very positive)}]}.',
  "Mixed is for answers with both praise and criticism.",
].join("\n");

export type Sentiment = { label: SentimentLabel; score: number };

/** The model's sentiments by answer index (0-based); items that fail the checks are dropped. */
export function parseSentiments(reply: string, n: number): Map<number, Sentiment> {
  const out = new Map<number, Sentiment>();
  for (const s of jsonReplyList(reply, "sentiments") as { n?: unknown; sentiment?: unknown; score?: unknown }[]) {
    const i = s?.n;
    if (!Number.isInteger(i) || (i as number) < 1 || (i as number) > n) continue;
    if (typeof s.sentiment !== "string" || !LABELS.has(s.sentiment as SentimentLabel)) continue;
    if (typeof s.score !== "number" || !Number.isFinite(s.score) || s.score < -1 || s.score > 1) continue;
    out.set((i as number) - 1, { label: s.sentiment as SentimentLabel, score: s.score });
  }
  return out;
}

/** The model's sentiment of each answer it rates, by answer id. */
export async function modelSentiments(db: Db, provider: AiProvider, answers: readonly { id: number; text: string }[]): Promise<Map<number, Sentiment>> {
  // A published Sentiment prompt may reword the instructions; the reply must keep the JSON shape above.
  const prompt = await promptFor(db, "Sentiment", { systemPrompt: SENTIMENT_SYSTEM, template: "" });
  const out = new Map<number, Sentiment>();
  for (let i = 0; i < answers.length; i += BATCH) {
    const batch = answers.slice(i, i + BATCH);
    const user = batch.map((a, k) => `${k + 1}. ${a.text.replace(/\s+/g, " ").slice(0, 300)}`).join("\n");
    const ex = await runExchange(
      provider,
      [
        { role: "system", content: prompt.systemPrompt },
        { role: "user", content: user },
      ],
      {},
      { temperature: 0 },
    );
    for (const [k, s] of parseSentiments(ex.content, batch.length)) out.set(batch[k]!.id, s);
  }
  return out;
}
