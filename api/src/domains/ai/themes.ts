// Themes of open answers written by a model (the OpenAI-compatible provider): per open question,
// the answers (numbered, at most MAX_ANSWERS, each cut to 300 characters) go to the model with the
// Themes prompt, which answers JSON naming at most eight themes, each with its sentiment and the
// numbers of its answers. The reply is checked (names, sentiment labels, answer numbers in range);
// anything else is dropped, and a reply that does not parse fails the coding (the local coding
// stays). Answers' own sentiment is the model's too (sentiment.ts), the AFINN-165 lexicon's for an
// answer it does not rate. With the local provider, themes are the key-phrase clustering and
// sentiment the lexicon of analytics/verbatims.ts.
import type { Db } from "../../db/client.ts";
import type { Theme } from "@ideally/analytics/verbatims";
import { enterTenant } from "../../access/policy.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { codeThemes, openAnswers } from "../results/themes.service.ts";
import { promptFor } from "./messages.ts";
import { translateVerbatims } from "./translate.ts";
import { modelSentiments } from "./sentiment.ts";
import { jsonReplyList, runExchange, type AiProvider } from "./provider.ts";

export const MAX_ANSWERS = 400;
const SENTIMENTS = new Set(["Positive", "Negative", "Neutral", "Mixed"]);

export const THEMES_SYSTEM = [
  "You code open-ended survey answers into themes for a research team.",
  'Reply with JSON only: {"themes":[{"name":"short theme name","sentiment":"Positive|Negative|Neutral|Mixed","answers":[answer numbers]}]}.',
  "At most 8 themes, most common first; a theme needs at least two answers; an answer may belong to several themes or none.",
].join("\n");

/** The model's themes of one question's answers (indices into `texts`). */
export async function modelThemes(provider: AiProvider, question: string, texts: readonly string[], systemPrompt = THEMES_SYSTEM): Promise<Theme[]> {
  const used = texts.slice(0, MAX_ANSWERS);
  const user = `Question: ${question}\n\nAnswers:\n${used.map((t, i) => `${i + 1}. ${t.replace(/\s+/g, " ").slice(0, 300)}`).join("\n")}`;
  const ex = await runExchange(
    provider,
    [
      { role: "system", content: systemPrompt },
      { role: "user", content: user },
    ],
    {},
    { temperature: 0 },
  );
  return parseThemes(ex.content, used.length);
}

export function parseThemes(reply: string, n: number): Theme[] {
  const out: Theme[] = [];
  for (const t of jsonReplyList(reply, "themes") as { name?: unknown; sentiment?: unknown; answers?: unknown }[]) {
    const name = typeof t?.name === "string" ? t.name.trim().slice(0, 200) : "";
    const members = [...new Set(Array.isArray(t?.answers) ? t.answers.filter((x): x is number => Number.isInteger(x) && x >= 1 && x <= n).map((x) => x - 1) : [])].sort((a, b) => a - b);
    if (!name || members.length < 2 || out.some((o) => o.name.toLowerCase() === name.toLowerCase())) continue;
    const sentiment = typeof t.sentiment === "string" && SENTIMENTS.has(t.sentiment) ? t.sentiment : "Neutral";
    out.push({ name, phrase: name.toLowerCase(), members, sentiment: sentiment as Theme["sentiment"] });
    if (out.length === 8) break;
  }
  return out;
}

/** Codes a project's open answers with the model's themes (the model is called outside any transaction). */
export async function codeThemesWithModel(db: Db, provider: AiProvider, projectId: number) {
  // Answers in other languages are translated first, so the themes read them in English.
  await translateVerbatims(db, provider, projectId);
  // A published Themes prompt may reword the instructions; the reply must keep the JSON shape above.
  const prompt = await promptFor(db, "Themes", { systemPrompt: THEMES_SYSTEM, template: "" });
  const { byQ } = await openAnswers(db, projectId);
  const found = new Map<number, Theme[]>();
  for (const [pq, answers] of byQ)
    found.set(
      pq,
      await modelThemes(
        provider,
        answers[0]!.question,
        answers.map((a) => a.text),
        prompt.systemPrompt,
      ),
    );
  const sentiments = await modelSentiments(db, provider, [...byQ.values()].flat());
  return enterTenant(db, systemCtx(), (tx) => codeThemes(tx, projectId, found, sentiments));
}
