// Themes by a model: the OpenAI-compatible provider (against a loopback server) codes a fixture
// project's open answers; its reply is checked (bad themes dropped) and written as the project's
// generated themes; a reply that is not JSON fails and leaves the themes as they were; answers in
// another language are translated first; each answer's sentiment is the model's (checked), the
// lexicon's where the model gives none.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { OpenAiProvider } from "../../api/src/domains/ai/openai.ts";
import { codeThemesWithModel, parseThemes } from "../../api/src/domains/ai/themes.ts";
import { translateVerbatims } from "../../api/src/domains/ai/translate.ts";
import { parseSentiments } from "../../api/src/domains/ai/sentiment.ts";
import { sentimentOf } from "@ideally/analytics/verbatims";

let tdb: TestDb;
let server: ReturnType<typeof Bun.serve>;
let reply = "";
let translation = "";
let sentimentReply = '{"sentiments":[]}';
const prompts: string[] = [];

beforeAll(async () => {
  tdb = await createTestDb();
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as { messages: { content: string }[] };
      prompts.push(body.messages.at(-1)!.content);
      const system = body.messages[0]!.content;
      const content = system.startsWith("Translate") ? translation : system.startsWith("Rate the sentiment") ? sentimentReply : reply;
      return Response.json({ choices: [{ message: { content } }], usage: { prompt_tokens: 40, completion_tokens: 20, total_tokens: 60 } });
    },
  });
});
afterAll(async () => {
  server.stop(true);
  await tdb.drop();
});

const provider = () => new OpenAiProvider({ baseUrl: `http://127.0.0.1:${server.port}/v1`, apiKey: "k", model: "m", maxRetries: 0 });

test("the model's themes replace the generated ones; themes it names badly are dropped", async () => {
  reply =
    'Here you go: {"themes":[{"name":"Taste and texture","sentiment":"Mixed","answers":[1,2]},{"name":"Lonely","answers":[1]},{"name":"Out of range","answers":[3,4]},{"name":"taste and texture","answers":[1,2]}]}';
  const r = await codeThemesWithModel(tdb.db, provider(), 1001);
  expect(r).toEqual({ questions: 1, themes: 1, answers: 2 });
  expect(prompts.at(-1)).toContain("1. Love the crunch\n2. Too sweet for me");
  const rows = await tdb.db<{ name: string; sentiment: string; members: number[] }[]>`
    select th.name, th.sentiment, array_agg(x.text_response_id::int order by x.text_response_id) as members
    from themes th join text_responses_themes x on x.theme_id = th.id where th.project_id = 1001 and th.is_ai_generated group by th.id`;
  expect([...rows]).toEqual([{ name: "Taste and texture", sentiment: "Mixed", members: [1001, 1002] }]);
  const other = await tdb.db`select 1 from themes where project_id = 2001`;
  expect(other.length, "another project's themes are untouched").toBe(2);
});

test("a reply that is not JSON fails and changes nothing", async () => {
  reply = "I cannot do that.";
  await expect(codeThemesWithModel(tdb.db, provider(), 1001)).rejects.toThrow("The model's themes are not JSON");
  const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from themes where project_id = 1001`;
  expect(n).toBe(1);
  expect(() => parseThemes('{"nothemes":1}', 3)).toThrow("no themes list");
  expect(parseThemes('{"themes":[{"name":"A","sentiment":"Joyful","answers":[1,2,2]}]}', 2)).toEqual([{ name: "A", phrase: "a", members: [0, 1], sentiment: "Neutral" }]);
});

test("answers in another language are translated (in batches, JSON checked) before the themes read them", async () => {
  await tdb.db`
    insert into text_responses (id, client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, project_question_id, question_id,
                                standard_question_id, test_option_id, response_text, language_code)
    select 1003, client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, project_question_id, question_id,
           standard_question_id, test_option_id, 'Schön knusprig', 'de' from text_responses where id = 1001`;
  translation = '{"translations":[{"n":1,"text":"Nicely crunchy"},{"n":7,"text":"nobody"}]}';
  reply = '{"themes":[{"name":"Crunch","sentiment":"Positive","answers":[1,3]}]}';
  prompts.length = 0;
  const r = await codeThemesWithModel(tdb.db, provider(), 1001);
  expect(prompts[0]).toBe("1. [de] Schön knusprig");
  expect(prompts[1]).toContain("3. Nicely crunchy");
  const [t] = await tdb.db<{ translated: string }[]>`select translated_text as translated from text_responses where id = 1003`;
  expect(t!.translated).toBe("Nicely crunchy");
  expect(r.themes).toBe(1);
  const again = await translateVerbatims(tdb.db, provider(), 1001);
  expect(again, "translated once").toEqual({ translated: 0, pending: 0 });
});

test("each answer's sentiment is the model's; an answer it rates badly or leaves out keeps the lexicon's", async () => {
  reply = '{"themes":[{"name":"Crunch","sentiment":"Positive","answers":[1,3]}]}';
  sentimentReply = '{"sentiments":[{"n":1,"sentiment":"Negative","score":-0.4},{"n":2,"sentiment":"Joyful","score":0.5},{"n":3,"sentiment":"Positive","score":3}]}';
  prompts.length = 0;
  await codeThemesWithModel(tdb.db, provider(), 1001);
  expect(prompts.at(-1)).toBe("1. Love the crunch\n2. Too sweet for me\n3. Nicely crunchy");
  const rows = await tdb.db<{ id: number; text: string; sentiment: string; score: number }[]>`
    select id::int, coalesce(translated_text, response_text) as text, sentiment, sentiment_score as score from text_responses where project_id = 1001 order by id`;
  expect(sentimentOf(rows[0]!.text).label, "the lexicon would say otherwise").toBe("Positive");
  expect([rows[0]!.sentiment, rows[0]!.score]).toEqual(["Negative", -0.4]);
  for (const r of rows.slice(1)) expect([r.sentiment, r.score], r.text).toEqual([sentimentOf(r.text).label, sentimentOf(r.text).score]);

  sentimentReply = "Sorry.";
  await expect(codeThemesWithModel(tdb.db, provider(), 1001)).rejects.toThrow("The model's sentiments are not JSON");
  const [kept] = await tdb.db<{ sentiment: string }[]>`select sentiment from text_responses where id = 1001`;
  expect(kept!.sentiment, "a failed coding changes nothing").toBe("Negative");
  expect(() => parseSentiments('{"nosentiments":1}', 2)).toThrow("no sentiments list");
  expect(parseSentiments('{"sentiments":[{"n":2,"sentiment":"Mixed","score":0},{"n":9,"sentiment":"Mixed","score":0}]}', 2)).toEqual(new Map([[1, { label: "Mixed", score: 0 }]]));
});
