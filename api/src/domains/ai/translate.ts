// Translation of verbatims by a model (prompt type Translation): a project's open answers given in
// another language (language_code not English) and not yet translated get `translated_text`, in
// batches of BATCH numbered answers; the reply is JSON and only answers it names with a text are
// written. The themes and the verbatim pages read the translation when there is one. The local
// provider has no model to translate with: its answers stay as given.
import type { Db } from "../../db/client.ts";
import { promptFor } from "./messages.ts";
import { jsonReplyList, runExchange, type AiProvider } from "./provider.ts";

export const BATCH = 50;

export const TRANSLATION_SYSTEM = [
  "Translate each numbered survey answer into plain English, keeping its meaning and tone.",
  'Reply with JSON only: {"translations":[{"n":answer number,"text":"English translation"}]}.',
].join("\n");

export function parseTranslations(reply: string, n: number): Map<number, string> {
  const out = new Map<number, string>();
  for (const t of jsonReplyList(reply, "translations") as { n?: unknown; text?: unknown }[]) {
    if (Number.isInteger(t?.n) && (t.n as number) >= 1 && (t.n as number) <= n && typeof t.text === "string" && t.text.trim()) out.set((t.n as number) - 1, t.text.trim().slice(0, 5000));
  }
  return out;
}

export async function translateVerbatims(db: Db, provider: AiProvider, projectId: number): Promise<{ translated: number; pending: number }> {
  const prompt = await promptFor(db, "Translation", { systemPrompt: TRANSLATION_SYSTEM, template: "" });
  const rows = await db<{ id: number; text: string; lang: string }[]>`
    select id::int, response_text as text, language_code as lang from text_responses
    where project_id = ${projectId} and translated_text is null and language_code is not null and lower(language_code) not like 'en%'
    order by id`;
  let translated = 0;
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    const user = batch.map((r, k) => `${k + 1}. [${r.lang}] ${r.text.replace(/\s+/g, " ")}`).join("\n");
    const ex = await runExchange(
      provider,
      [
        { role: "system", content: prompt.systemPrompt },
        { role: "user", content: user },
      ],
      {},
      { temperature: 0 },
    );
    const t = parseTranslations(ex.content, batch.length);
    const ids = [...t.keys()].map((k) => batch[k]!.id);
    if (ids.length) {
      await db`
        update text_responses x set translated_text = u.text, updated_at = now()
        from unnest(${ids}::bigint[], ${[...t.values()]}::text[]) as u(id, text) where x.id = u.id and x.translated_text is null`;
    }
    translated += ids.length;
  }
  return { translated, pending: rows.length - translated };
}
