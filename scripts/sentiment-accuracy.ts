// Accuracy of sentiment coding on the labelled open answers (tests/fixtures/sentiment/labelled.csv):
// the local coder (analytics/verbatims.ts sentimentOf) always; the configured model too when
// AI_BASE_URL, AI_API_KEY and AI_MODEL are set (the Sentiment prompt of DATABASE_URL's database
// when given, else the built-in one). Prints accuracy overall, on the development half (odd ids)
// and the held-out half (even ids), and the confusion matrix.
//   bun run scripts/sentiment-accuracy.ts
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parseCsvObjects } from "@ideally/analytics/csv";
import { sentimentOf, type SentimentLabel } from "@ideally/analytics/verbatims";
import { providerFromEnv } from "../api/src/domains/ai/configured.ts";
import { runExchange } from "../api/src/domains/ai/provider.ts";
import { parseSentiments, SENTIMENT_SYSTEM } from "../api/src/domains/ai/sentiment.ts";
import { BATCH } from "../api/src/domains/ai/translate.ts";

const LABELS: SentimentLabel[] = ["Positive", "Negative", "Mixed", "Neutral"];
const rows = parseCsvObjects(readFileSync(join(import.meta.dir, "../tests/fixtures/sentiment/labelled.csv"), "utf8")).rows.map((r) => ({
  id: Number(r.id),
  text: r.text!,
  label: r.label as SentimentLabel,
}));

function report(name: string, coded: Map<number, SentimentLabel>) {
  const acc = (keep: (id: number) => boolean) => {
    const set = rows.filter((r) => keep(r.id));
    return `${((set.filter((r) => coded.get(r.id) === r.label).length / set.length) * 100).toFixed(1)}%`;
  };
  console.log(`${name}: all ${acc(() => true)}, development ${acc((id) => id % 2 === 1)}, held-out ${acc((id) => id % 2 === 0)} (n=${rows.length})`);
  for (const l of LABELS) console.log(`  ${l.padEnd(8)} -> ${LABELS.map((m) => `${m} ${rows.filter((r) => r.label === l && coded.get(r.id) === m).length}`).join(", ")}`);
}

report("local", new Map(rows.map((r) => [r.id, sentimentOf(r.text).label])));

if (process.env.AI_BASE_URL && process.env.AI_API_KEY && process.env.AI_MODEL) {
  const provider = await providerFromEnv(process.env);
  let system = SENTIMENT_SYSTEM;
  if (process.env.DATABASE_URL) {
    const { connect } = await import("../api/src/db/client.ts");
    const { promptFor } = await import("../api/src/domains/ai/messages.ts");
    const db = connect(process.env.DATABASE_URL, { max: 1 });
    system = (await promptFor(db, "Sentiment", { systemPrompt: SENTIMENT_SYSTEM, template: "" })).systemPrompt;
    await db.end();
  }
  const coded = new Map<number, SentimentLabel>();
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    const ex = await runExchange(
      provider,
      [
        { role: "system", content: system },
        { role: "user", content: batch.map((r, k) => `${k + 1}. ${r.text}`).join("\n") },
      ],
      {},
      { temperature: 0 },
    );
    for (const [k, s] of parseSentiments(ex.content, batch.length)) coded.set(batch[k]!.id, s.label);
  }
  report(`model ${provider.model}`, coded);
} else console.log("model: not configured (set AI_BASE_URL, AI_API_KEY and AI_MODEL to measure it)");
