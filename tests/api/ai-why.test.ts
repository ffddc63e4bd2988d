// The chat answers why (issue 23): "why do people like concept 2?", "what do people dislike about
// Veggie crisps trio?", "what do women say about ...?" are answered from the named test option's
// open answers (themes of the answers of that sentiment, each with a quoted answer and its
// respondent's segment) and its drivers. Each quote is checked against the raw rows (the answer's
// test option, sentiment, and its respondent's gender, age group and market, read in SQL here);
// every figure recomputes from its source (expectGrounded).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { aiWorld, type AiWorld } from "../helpers/ai.ts";
import { expectGrounded } from "../helpers/grounding.ts";
import { chatJob } from "../../api/src/domains/ai/chat.service.ts";
import { useProvider } from "../../api/src/domains/ai/summaries.service.ts";
import { LocalProvider } from "../../api/src/domains/ai/local.ts";
import { projectContext, type Figure, type ProjectContext } from "../../api/src/domains/ai/facts.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let w: AiWorld;
const USER = "user@acme.test";
let client: number;
let projectId: number;
let pc: ProjectContext;
let ctx: RequestCtx;

beforeAll(async () => {
  useProvider(new LocalProvider());
  w = await aiWorld([chatJob]);
  [{ id: client }] = await w.tdb.db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  [{ id: projectId }] = await w.tdb.db<{ id: number }[]>`select id from projects where project_name = 'Plant-based snacks idea screen'`;
  ctx = await w.ctxOf(USER, client);
  pc = await projectContext(w.tdb.db, ctx, projectId);
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  useProvider(null);
  await w.stop();
}, 30_000);

interface AnswerRow {
  content: string;
  referencesData: { figures: Figure[]; toolCalls: { name: string; arguments: { testOptionId?: number; stance?: string | null; filterIds?: number[] } }[] };
}

async function ask(question: string): Promise<AnswerRow> {
  const t = await w.call(USER, client, "POST", "/api/v1/ResultsAiThreads", { projectId });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  const m = await w.call(USER, client, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: t.body.id, content: question });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  for (let i = 0; i < 300; i++) {
    const [r] = await w.tdb.db<AnswerRow[]>`select content, references_data as "referencesData" from results_ai_messages where reply_to_message_id = ${m.body.id}`;
    if (r) return r;
    await Bun.sleep(100);
  }
  throw new Error(`no answer to "${question}"`);
}

const labels = () => [
  pc.projectName,
  ...pc.testOptions.map((o) => o.name),
  ...pc.measures.map((m) => m.title),
  ...pc.demographics.flatMap((d) => [d.label, ...d.options.map((o) => o.label)]),
  ...pc.regions.map((r) => r.name),
  ...pc.textQuestions.map((q) => q.text),
  "Purchase intent",
];

/** The quotes of an answer: each quoted answer's row and the segment written after it, checked against SQL. */
async function expectQuotes(a: AnswerRow, testOptionId: number, sentiment: string | null, gender: string | null = null): Promise<number> {
  const quotes = [...a.content.matchAll(/\[(F\d+)\] \(([^)]*)\)/g)];
  expect(quotes.length, a.content).toBeGreaterThan(0);
  for (const [, ref, segment] of quotes) {
    const f = a.referencesData.figures.find((x) => x.ref === ref)!;
    expect(f.source.fn).toBe("Verbatim");
    const [row] = await w.tdb.db<{ text: string; testOptionId: number; sentiment: string; parts: string[] }[]>`
      select t.response_text as text, t.test_option_id as "testOptionId", t.sentiment,
             array[(select o.answer_label from responses r join system_question_option o on o.id = r.system_question_option_id
                     where r.project_id = t.project_id and r.survey_session_id = t.survey_session_id and o.system_question_id = 45),
                   (select o.answer_label from responses r join system_question_option o on o.id = r.system_question_option_id
                     where r.project_id = t.project_id and r.survey_session_id = t.survey_session_id and o.system_question_id = 51),
                   (select region_name from regions where id = t.region_id)] as parts
      from text_responses t where t.id = ${f.value} and t.project_id = ${projectId}`;
    expect(row, `${ref} is an answer of the project`).toBeDefined();
    expect(f.text).toBe(`“${row!.text}”`);
    expect(row!.testOptionId, `${ref} is about the named test option`).toBe(testOptionId);
    if (sentiment) expect(row!.sentiment, `${ref}: ${row!.text}`).toBe(sentiment);
    expect(segment).toBe(row!.parts.filter(Boolean).join(", "));
    if (gender) expect(row!.parts[0]).toBe(gender);
  }
  return quotes.length;
}

test("'Why do people like concept 2?' quotes the positive answers about the second concept, with themes and drivers", async () => {
  const second = pc.testOptions[1]!;
  const a = await ask("Why do people like concept 2?");
  expect(a.referencesData.toolCalls.map((t) => [t.name, t.arguments.testOptionId, t.arguments.stance])).toEqual([["why_answers", second.id, "like"]]);
  expect(a.content).toContain(`Why respondents like ${second.name}`);
  expect(a.content).not.toContain("did best");
  expect(await expectQuotes(a, second.id, "Positive")).toBeGreaterThan(0);
  // The second concept's driver model does not fit (R² 0.017, F-test p 0.47 on the demo: docs/statistics.md
  // 'Key drivers'), so the answer ranks no driver and says why; the first concept's does (the next test).
  const drivers = await w.call(USER, client, "GET", `/api/v1/Responses/DriverResults?projectId=${projectId}`);
  const group = drivers.body.groups.find((g: { testOptionId: number }) => g.testOptionId === second.id);
  expect(group.fits).toBe(false);
  expect(a.content).not.toMatch(/What drives Purchase intent for /);
  expect(a.content).toContain(`The measures explain too little of Purchase intent for ${second.name} to say what drives it`);
  expect(await expectGrounded(w.tdb.db, ctx, projectId, a.content, a.referencesData.figures, labels())).toBeGreaterThan(2);
}, 60_000);

test("'What do people dislike about Veggie crisps trio?' quotes its negative answers; by name, not by rank", async () => {
  const veggie = pc.testOptions.find((o) => o.name === "Veggie crisps trio")!;
  const a = await ask("What do people dislike about Veggie crisps trio?");
  expect(a.referencesData.toolCalls.map((t) => [t.name, t.arguments.testOptionId, t.arguments.stance])).toEqual([["why_answers", veggie.id, "dislike"]]);
  expect(a.content).toContain("What respondents dislike about Veggie crisps trio");
  expect(await expectQuotes(a, veggie.id, "Negative")).toBeGreaterThan(0);
  await expectGrounded(w.tdb.db, ctx, projectId, a.content, a.referencesData.figures, labels());
  const b = await ask("Why do people like Crunchy chickpea puffs?");
  const chickpea = pc.testOptions.find((o) => o.name === "Crunchy chickpea puffs")!;
  expect(await expectQuotes(b, chickpea.id, "Positive")).toBeGreaterThan(0);
  expect(b.content).not.toBe(a.content);
  // Its driver model fits (R² 0.121, F-test p < 0.001 on the demo), so the drivers behind it are named, cited.
  expect(b.content).toMatch(/What drives Purchase intent for Crunchy chickpea puffs: .+ of the explained variance\./);
  await expectGrounded(w.tdb.db, ctx, projectId, b.content, b.referencesData.figures, labels());
}, 60_000);

test("'What do women say about Veggie crisps trio?' quotes women's answers, and its figures carry the filter", async () => {
  const veggie = pc.testOptions.find((o) => o.name === "Veggie crisps trio")!;
  const female = pc.demographics.find((d) => d.systemQuestionId === 45)!.options.find((o) => o.label === "Female")!;
  const a = await ask("What do women say about Veggie crisps trio?");
  expect(a.referencesData.toolCalls[0]!.name).toBe("why_answers");
  expect(a.referencesData.toolCalls[0]!.arguments.filterIds).toEqual([female.id]);
  expect(a.content).toContain("What Female respondents say about Veggie crisps trio");
  expect(await expectQuotes(a, veggie.id, null, "Female")).toBeGreaterThan(0);
  // The answer's figures are the women's; the closing note on simulated respondents counts the thread's whole view (issue 36).
  for (const f of a.referencesData.figures) if ("filters" in f.source && f.source.fn !== "SimulatedRespondents") expect(f.source.filters.filterIds).toEqual([female.id]);
  await expectGrounded(w.tdb.db, ctx, projectId, a.content, a.referencesData.figures, labels());
}, 60_000);

test("a ranking question is still answered with a ranking", async () => {
  const a = await ask("Which concept did best with women?");
  expect(a.referencesData.toolCalls[0]!.name).toBe("qual_results");
  expect(a.content).toContain("did best");
}, 60_000);
