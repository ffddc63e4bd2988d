// The results chat with the local provider on the fielded demo projects: questions generated from
// each project's own data (its measures, demographics and markets) over different filters,
// measures, directions and projects; each answer names the test option the results functions rank
// first (or last) under the matching filter, and every figure it cites equals what they answer.
// Also: threads (create, rename), the answer streamed as events on the owner's channel, feedback,
// and who may write where.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { aiWorld, type AiWorld } from "../helpers/ai.ts";
import { expectGrounded } from "../helpers/grounding.ts";
import { chatJob } from "../../api/src/domains/ai/chat.service.ts";
import { useProvider } from "../../api/src/domains/ai/summaries.service.ts";
import { LocalProvider } from "../../api/src/domains/ai/local.ts";
import { projectContext, type Figure, type ProjectContext } from "../../api/src/domains/ai/facts.ts";
import { qualResults, demographicsResults } from "../../api/src/domains/results/results.service.ts";
import type { ResponseFilter } from "../../api/src/domains/results/filters.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";
import type { RequestCtx } from "../../api/src/access/principal.ts";
import { DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let w: AiWorld;
const USER = "user@acme.test";
const GLOBEX = "admin@globex.test";
let clients: Record<string, number>;
const events: NotifiedEvent[] = [];
let unsubscribe: () => Promise<void>;

beforeAll(async () => {
  useProvider(new LocalProvider());
  w = await aiWorld([chatJob]);
  const rows = await w.tdb.db<{ name: string; id: number }[]>`select name, id from clients where name in ('Acme Team A', 'Globex')`;
  clients = Object.fromEntries(rows.map((r) => [r.name, r.id]));
  unsubscribe = await subscribe(w.tdb.url, (ev) => void events.push(ev));
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  useProvider(null);
  await unsubscribe();
  await w.stop();
}, 30_000);

async function projectNamed(name: string): Promise<number> {
  const [p] = await w.tdb.db<{ id: number }[]>`select id from projects where project_name = ${name}`;
  return p!.id;
}

interface AnswerRow {
  id: number;
  content: string;
  referencesData: { figures: Figure[]; toolCalls: { name: string; arguments: { filterIds?: number[]; regionIds?: number[]; standardQuestionId?: number | null } }[] };
  provider: string;
  usage: { totalTokens: number };
  debug: { transcript: { kind: string }[] };
}

async function answerTo(messageId: number): Promise<AnswerRow> {
  for (let i = 0; i < 300; i++) {
    const [r] = await w.tdb.db<AnswerRow[]>`
      select id, content, references_data as "referencesData", provider, usage, debug from results_ai_messages where reply_to_message_id = ${messageId}`;
    if (r) return r;
    await Bun.sleep(100);
  }
  throw new Error(`no answer to message ${messageId}`);
}

async function ask(email: string, clientId: number, projectId: number, question: string): Promise<{ messageId: number; threadId: number; answer: AnswerRow }> {
  const t = await w.call(email, clientId, "POST", "/api/v1/ResultsAiThreads", { projectId });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  const m = await w.call(email, clientId, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: t.body.id, content: question });
  expect(m.status, JSON.stringify(m.body)).toBe(201);
  expect(m.body.role).toBe("user");
  return { messageId: m.body.id, threadId: t.body.id, answer: await answerTo(m.body.id) };
}

const labelsOf = (pc: ProjectContext) => [
  pc.projectName,
  ...pc.testOptions.map((o) => o.name),
  ...pc.measures.map((m) => m.title),
  ...pc.demographics.flatMap((d) => [d.label, ...d.options.map((o) => o.label)]),
  ...pc.regions.map((r) => r.name),
];
const optionIdsOf = (pc: ProjectContext, sq: number, labels: string[]) =>
  pc.demographics.filter((d) => d.systemQuestionId === sq).flatMap((d) => d.options.filter((o) => labels.includes(o.label)).map((o) => o.id));

interface Case {
  project: string;
  email: string;
  client: string;
  /** Builds the question from the project's data, with the filter and measure it must be answered under. */
  make(pc: ProjectContext, ctx: RequestCtx): Promise<{ question: string; filters: ResponseFilter; standardQuestionId: number; direction: "best" | "worst" }>;
}

const CASES: Case[] = [
  {
    project: "Plant-based snacks idea screen",
    email: USER,
    client: "Acme Team A",
    async make(pc) {
      return { question: "Which concept did best with women under 35?", filters: { filterIds: [...optionIdsOf(pc, 45, ["Female"]), ...optionIdsOf(pc, 51, ["18-24", "25-34"])] }, standardQuestionId: pc.measures[0]!.standardQuestionId, direction: "best" };
    },
  },
  {
    project: "Plant-based snacks idea screen",
    email: USER,
    client: "Acme Team A",
    async make(pc) {
      const m = pc.measures.find((x) => x.standardQuestionId === 3)!;
      return { question: "Which concept had the highest purchase intent among men?", filters: { filterIds: optionIdsOf(pc, 45, ["Male"]) }, standardQuestionId: m.standardQuestionId, direction: "best" };
    },
  },
  {
    project: "Plant-based snacks idea screen",
    email: USER,
    client: "Acme Team A",
    async make(pc) {
      const m = pc.measures[2]!;
      const market = pc.regions.find((r) => r.id === 2)!;
      return { question: `Which concept did best on ${m.title.toLowerCase()} in ${market.name}?`, filters: { regionIds: [market.id] }, standardQuestionId: m.standardQuestionId, direction: "best" };
    },
  },
  {
    project: "Protein bar pricing",
    email: USER,
    client: "Acme Team A",
    async make(pc) {
      const m = pc.measures[1]!;
      return { question: `Which concept did worst on ${m.title} among people over 55?`, filters: { filterIds: optionIdsOf(pc, 51, ["55-64", "65+"]) }, standardQuestionId: m.standardQuestionId, direction: "worst" };
    },
  },
  {
    project: "Brand message tracker",
    email: USER,
    client: "Acme Team A",
    async make(pc) {
      const m = pc.measures.at(-1)!;
      return { question: `Which message scored best on ${m.title.toLowerCase()} with people aged 25-34?`, filters: { filterIds: optionIdsOf(pc, 51, ["25-34"]) }, standardQuestionId: m.standardQuestionId, direction: "best" };
    },
  },
  {
    project: "Unlimited mobile plan concepts",
    email: GLOBEX,
    client: "Globex",
    async make(pc, ctx) {
      // The region of the market with the most respondents, as the data has it.
      const demo = await demographicsResults(w.tdb.db, ctx, pc.projectId, {});
      const region = demo.questions.find((q) => q.systemQuestionId === 42)!.options.sort((a, b) => b.count - a.count)[0]!;
      const m = pc.measures[0]!;
      return { question: `Which plan did best on ${m.title} in the ${region.answerLabel} region?`, filters: { filterIds: [region.systemQuestionOptionId] }, standardQuestionId: m.standardQuestionId, direction: "best" };
    },
  },
];

test("questions generated from the data are answered with the right test option and grounded figures", async () => {
  const seen = { projects: new Set<number>(), measures: new Set<number>(), filters: new Set<string>() };
  for (const c of CASES) {
    const projectId = await projectNamed(c.project);
    const ctx = await w.ctxOf(c.email, clients[c.client]!);
    const pc = await projectContext(w.tdb.db, ctx, projectId);
    const k = await c.make(pc, ctx);
    const { answer } = await ask(c.email, clients[c.client]!, projectId, k.question);
    if (process.env.SHOW_ANSWERS) console.log(`Q: ${k.question}\nA: ${answer.content}\n`);
    // What the results functions say under that filter.
    const q = await qualResults(w.tdb.db, ctx, { projectId, filters: k.filters, standardQuestionIds: [k.standardQuestionId] });
    const ranked = q.measures[0]!.results.filter((r) => r.n > 0).sort((a, b) => b.top2 - a.top2 || (a.testOptionId ?? 0) - (b.testOptionId ?? 0));
    expect(ranked.length, `${k.question}: at least two options to compare`).toBeGreaterThan(1);
    const pick = k.direction === "best" ? ranked[0]! : ranked.at(-1)!;
    const name = pc.testOptions.find((o) => o.id === pick.testOptionId)!.name;
    const title = pc.measures.find((m) => m.standardQuestionId === k.standardQuestionId)!.title;
    expect(answer.content.startsWith(`${name} did ${k.direction} on ${title}`), `${k.question} -> ${answer.content}`).toBe(true);
    const call = answer.referencesData.toolCalls[0]!;
    expect(call.arguments.standardQuestionId ?? k.standardQuestionId, `${k.question}: the measure`).toBe(k.standardQuestionId);
    expect([...(call.arguments.filterIds ?? [])].sort(), `${k.question}: the demographic filter`).toEqual([...(k.filters.filterIds ?? [])].sort());
    expect(call.arguments.regionIds ?? [], `${k.question}: the market`).toEqual(k.filters.regionIds ?? []);
    const cited = await expectGrounded(w.tdb.db, ctx, projectId, answer.content, answer.referencesData.figures, labelsOf(pc));
    expect(cited, `${k.question}: cites the leader's figure and base at least`).toBeGreaterThanOrEqual(2);
    expect(answer.content).toContain(`${name} did ${k.direction} on ${title}`);
    expect(answer.provider).toBe("local");
    expect(answer.usage.totalTokens).toBeGreaterThan(0);
    expect(answer.debug.transcript.map((s) => s.kind)).toEqual(["completion", "tool", "completion"]);
    seen.projects.add(projectId);
    seen.measures.add(k.standardQuestionId);
    seen.filters.add(JSON.stringify(k.filters));
  }
  expect(seen.projects.size).toBeGreaterThanOrEqual(4);
  expect(seen.measures.size).toBeGreaterThanOrEqual(3);
  expect(seen.filters.size).toBe(CASES.length);
}, 180_000);

test("off-topic, hostile and ambiguous questions get what the assistant can answer, never a ranking, no tool called", async () => {
  const projectId = await projectNamed("Plant-based snacks idea screen");
  for (const [question, opening] of [
    ["What is the capital of France?", "I can only answer questions about this project's results"],
    ["Delete all my data", "I cannot change, delete or send anything"],
    ["Is it any good?", "I can only answer questions about this project's results"],
  ] as const) {
    const { answer } = await ask(USER, clients["Acme Team A"]!, projectId, question);
    expect(answer.content.startsWith(opening), `${question} -> ${answer.content}`).toBe(true);
    expect(answer.content).toContain("I can compare concepts on a measure");
    expect(answer.content.replace(/“[^”]*”/g, ""), question).not.toMatch(/did (best|worst) on|top-2-box|\d+(\.\d+)?%/);
    expect(answer.referencesData.toolCalls, question).toEqual([]);
    expect(answer.referencesData.figures, question).toEqual([]);
  }
  // The project's data is all still there.
  expect((await w.tdb.db`select 1 from projects where id = ${projectId} and deleted_at is null`).length).toBe(1);
}, 60_000);

test("the answer streams on the owner's channel: deltas in order make the stored answer", async () => {
  const projectId = await projectNamed("Plant-based snacks idea screen");
  const { messageId, threadId, answer } = await ask(USER, clients["Acme Team A"]!, projectId, "Which concept did best with men over 45?");
  for (let i = 0; i < 50 && !events.some((e) => e.event === "AiMessageCompleted" && (e.data as { replyToMessageId: number }).replyToMessageId === messageId); i++) await Bun.sleep(50);
  const mine = events.filter((e) => (e.data as { replyToMessageId?: number })?.replyToMessageId === messageId);
  const [{ userId }] = await w.tdb.db<{ userId: number }[]>`select user_id as "userId" from results_ai_threads where id = ${threadId}`;
  expect(mine.every((e) => e.channel === `user-${userId}`)).toBe(true);
  expect(mine[0]!.event).toBe("AiMessageStarted");
  const deltas = mine.filter((e) => e.event === "AiMessageDelta").map((e) => e.data as { seq: number; delta: string });
  expect(deltas.map((d) => d.seq)).toEqual(deltas.map((_, i) => i));
  expect(deltas.map((d) => d.delta).join("")).toBe(answer.content);
  // The built-in provider's answer is whole at once, not a simulated stream of its sentences: it comes
  // as one piece, and the simulated-respondents note (the demo's respondents are simulated, issue 36)
  // as a second. The publisher joins pieces that arrive within 100 ms of the last delta, so the two
  // are one delta on a quiet machine and two when the note's query lands later (a side-by-side run):
  // at most two, whatever the load, and fewer than the answer's sentences.
  const sentences = answer.content.match(/[.!?](\s|$)/g)!.length;
  expect(sentences, "an answer of several sentences").toBeGreaterThan(2);
  expect(deltas.length).toBeGreaterThanOrEqual(1);
  expect(deltas.length).toBeLessThanOrEqual(2);
  const done = mine.at(-1)!;
  expect(done.event).toBe("AiMessageCompleted");
  expect((done.data as { messageId: number }).messageId).toBe(answer.id);
}, 60_000);

test("a question is answered with the thread's last 20 turns, oldest first, before it", async () => {
  const projectId = await projectNamed("Plant-based snacks idea screen");
  const acme = clients["Acme Team A"]!;
  const t = await w.call(USER, acme, "POST", "/api/v1/ResultsAiThreads", { projectId });
  expect(t.status).toBe(201);
  const [{ userId }] = await w.tdb.db<{ userId: number }[]>`select user_id as "userId" from results_ai_threads where id = ${t.body.id}`;
  // 25 earlier turns, stored as the chat stores them (the thread's trigger fills client and project).
  const earlier = Array.from({ length: 25 }, (_, i) => ({ role: i % 2 ? "assistant" : "user", content: `turn ${i + 1}` }));
  for (const m of earlier) {
    await w.tdb.db`insert into results_ai_messages (results_ai_thread_id, user_id, role, content, client_id, project_id) values (${t.body.id}, ${userId}, ${m.role}, ${m.content}, 0, 0)`;
  }
  const q = await w.call(USER, acme, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: t.body.id, content: "Which concept did best?" });
  expect(q.status).toBe(201);
  const a = await answerTo(q.body.id);
  const [{ debug }] = await w.tdb.db<{ debug: { transcript: { kind: string; request?: { role: string; content: string }[] }[] } }[]>`
    select debug from results_ai_messages where id = ${a.id}`;
  const sent = debug.transcript[0]!.request!;
  expect(sent[0]!.role).toBe("system");
  expect(sent.slice(1).map((m) => ({ role: m.role, content: m.content }))).toEqual([...earlier.slice(-20), { role: "user", content: "Which concept did best?" }]);
}, 60_000);

test("threads: create and rename; feedback on answers; nobody writes into another's thread", async () => {
  const projectId = await projectNamed("Plant-based snacks idea screen");
  const acme = clients["Acme Team A"]!;
  const { threadId, answer, messageId } = await ask(USER, acme, projectId, "What did people say?");
  // The first question names an untitled thread and touches it; a later one keeps the title.
  const threadRow = async () =>
    (await w.tdb.db<{ title: string | null; updatedAt: Date | null }[]>`select title, updated_at as "updatedAt" from results_ai_threads where id = ${threadId}`)[0]!;
  const first = await threadRow();
  expect(first.title).toBe("What did people say?");
  expect(first.updatedAt, "touched by the question").not.toBeNull();
  const second = await w.call(USER, acme, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: threadId, content: "And about the price?" });
  expect(second.status).toBe(201);
  // The POST answers with the stored message, as a GET reads it.
  const stored = await w.call(USER, acme, "GET", `/api/v1/ResultsAiMessages(${second.body.id})`);
  expect(second.body).toEqual(stored.body);
  expect([second.body.role, second.body.content, second.body.resultsAiThreadId]).toEqual(["user", "And about the price?", threadId]);
  const afterSecond = await threadRow();
  expect(afterSecond.title, "a later question keeps the title").toBe("What did people say?");
  expect(afterSecond.updatedAt!.getTime()).toBeGreaterThanOrEqual(first.updatedAt!.getTime());
  await answerTo(second.body.id);
  const renamed = await w.call(USER, acme, "PATCH", `/api/v1/ResultsAiThreads(${threadId})`, { title: "Snack verbatims" });
  expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
  expect(renamed.body.title).toBe("Snack verbatims");
  const fb = await w.call(USER, acme, "POST", `/api/v1/ResultsAiMessages(${answer.id})/SendFeedback`, { feedback: "Positive", comment: "Useful" });
  expect(fb.status, JSON.stringify(fb.body)).toBe(200);
  expect([fb.body.feedback, fb.body.feedbackComment]).toEqual(["Positive", "Useful"]);
  const onQuestion = await w.call(USER, acme, "POST", `/api/v1/ResultsAiMessages(${messageId})/SendFeedback`, { feedback: "Negative" });
  expect(onQuestion.status, "feedback is on answers").toBe(400);
  expect(onQuestion.body.message).toBe("Feedback is on the assistant's answers");
  expect((await w.call(USER, acme, "POST", `/api/v1/ResultsAiMessages(${answer.id})/SendFeedback`, { feedback: "Meh" })).status).toBe(400);
  const beforeRefused = await threadRow();
  expect((await w.call("admin@acme.test", acme, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: threadId, content: "Mine now?" })).status, "another member's thread").toBe(404);
  expect(await threadRow(), "a refused question does not touch the thread").toEqual(beforeRefused);
  expect((await w.call("admin@acme.test", acme, "POST", `/api/v1/ResultsAiMessages(${answer.id})/SendFeedback`, { feedback: "Negative" })).status).toBe(404);
  const threadsBefore = await w.tdb.db<{ n: number }[]>`select count(*)::int as n from results_ai_threads`;
  const foreign = await w.call(GLOBEX, clients.Globex!, "POST", "/api/v1/ResultsAiThreads", { projectId });
  expect([foreign.status, foreign.body], "another client's project: row-level security refuses the row").toEqual([403, { typename: "Forbidden", message: "ResultsAiThreads: not allowed for this client" }]);
  expect(await w.tdb.db<{ n: number }[]>`select count(*)::int as n from results_ai_threads`, "no thread made").toEqual(threadsBefore);
  const list = await w.call(USER, acme, "GET", `/api/v1/ResultsAiMessages?$filter=resultsAiThreadId eq ${threadId}&$orderby=id`);
  expect(list.body.value.map((m: { role: string }) => m.role)).toEqual(["user", "assistant", "user", "assistant"]);
}, 60_000);

test("AiConversations for staff: add, continue (grounded, evaluated), messages, contents, debug, YAML, the figures file", async () => {
  const STAFF = "staff@ideally.test";
  const projectId = await projectNamed("Plant-based snacks idea screen");
  const added = await w.call(STAFF, null, "POST", "/api/v1/AiConversations/AddUserMessage", { projectId, content: "Which concept did best with women under 35?" });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  const id = added.body.aiConversationId as number;
  const r = await w.call(STAFF, null, "POST", `/api/v1/AiConversations(${id})/ContinueConversation`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.message.content, "answered like the results chat").toMatch(/^.+ did best on Likability among Female respondents aged 18-24 or 25-34: \d+\.\d% \[F1\] top-2-box/);
  expect(r.body.evaluation).toMatchObject({ passed: true, unknownRefs: [], misquoted: [], uncitedNumbers: [] });
  expect(r.body.evaluation.citedFigures).toBeGreaterThanOrEqual(2);
  const nothing = await w.call(STAFF, null, "POST", `/api/v1/AiConversations(${id})/ContinueConversation`);
  expect(nothing.status, "nothing waits for an answer").toBe(409);
  expect(nothing.body.message).toBe(`Conversation ${id} has no question waiting for an answer: AddUserMessage first`);
  // A closed conversation takes no new question: 409, and no message is added.
  await w.tdb.db`update ai_conversations set status = 'Closed' where id = ${id}`;
  const closed = await w.call(STAFF, null, "POST", "/api/v1/AiConversations/AddUserMessage", { aiConversationId: id, content: "And with men?" });
  expect(closed.status).toBe(409);
  expect(closed.body.message).toBe(`Conversation ${id} is closed`);
  expect((await w.tdb.db`select 1 from ai_conversation_messages where ai_conversation_id = ${id}`).length, "the question and its answer only").toBe(2);
  await w.tdb.db`update ai_conversations set status = 'Active' where id = ${id}`;

  const msgs = await w.call(STAFF, null, "GET", `/api/v1/AiConversations(${id})/GetMessages`);
  expect(msgs.body.value.map((m: { role: string }) => m.role)).toEqual(["user", "assistant"]);
  const contents = await w.call(STAFF, null, "GET", `/api/v1/AiConversations(${id})/GetChatContents`);
  expect(contents.body.contents).toContain("**Assistant**");
  expect(contents.body.contents).toContain("[F1] ");
  const debug = await w.call(STAFF, null, "POST", `/api/v1/AiConversations(${id})/DebugConversation`);
  expect(debug.status, JSON.stringify(debug.body)).toBe(200);
  const steps = debug.body.answers[0].steps;
  expect(steps.map((s: { kind: string }) => s.kind)).toEqual(["completion", "tool", "completion"]);
  expect(steps[0].prompt[0].role).toBe("system");
  expect(steps[0].prompt[0].content).toContain("CONTEXT:");
  expect(steps[0].toolCalls[0].name).toBe("qual_results");
  expect(steps[1].tool.result.measure.options.length).toBeGreaterThan(1);
  expect(debug.body.usage.totalTokens).toBe(steps[0].usage.totalTokens + steps[2].usage.totalTokens);
  const yml = await w.app.request(`/api/v1/AiConversations(${id})/DownloadToYml`, { method: "POST", headers: { authorization: `Bearer ${STAFF}` } });
  expect(await yml.text()).toContain("figures:");
  const ref = r.body.message.referenceFiles[0].referenceId;
  const file = await w.app.request(`/api/v1/AiConversations(${id})/DownloadFile?referenceId=${ref}`, { headers: { authorization: `Bearer ${STAFF}` } });
  const lines = (await file.text()).trim().split("\r\n");
  expect(lines[0]).toBe("ref,text,value,function,source");
  expect(lines.length - 1).toBe(r.body.evaluation.citedFigures);
  expect((await w.app.request(`/api/v1/AiConversations(${id})/DownloadFile?referenceId=nope`, { headers: { authorization: `Bearer ${STAFF}` } })).status).toBe(404);
  const channel = await w.call(STAFF, null, "GET", `/api/v1/AiConversations(${id})/GetChannelInfo`);
  const [{ staffId }] = await w.tdb.db<{ staffId: number }[]>`select id as "staffId" from users where email = ${STAFF}`;
  expect(channel.body.name).toBe(`user-${staffId}`);
  const mine = await w.call(STAFF, null, "GET", "/api/v1/AiConversations/MyConversations");
  expect(mine.body.value[0]).toMatchObject({ id, projectId, messageCount: 2 });
  const evals = await w.call(STAFF, null, "GET", `/api/v1/AiConversationEvaluations?$filter=aiConversationId eq ${id}`);
  expect(evals.body.value.map((e: { passed: boolean; evaluatorUserId: number | null }) => [e.passed, e.evaluatorUserId])).toEqual([[true, null]]);

  // Without a project there are no results to quote.
  const general = await w.call(STAFF, null, "POST", "/api/v1/AiConversations/AddUserMessage", { content: "Hello" });
  const g = await w.call(STAFF, null, "POST", `/api/v1/AiConversations(${general.body.aiConversationId})/ContinueConversation`);
  expect(g.status, JSON.stringify(g.body)).toBe(200);
  expect(g.body.evaluation.passed).toBe(true);
  expect((await w.call(USER, clients["Acme Team A"]!, "GET", "/api/v1/AiConversations/MyConversations")).status, "staff only").toBe(403);
}, 60_000);

test("a thread's own filters apply to every answer in it", async () => {
  const projectId = await projectNamed("Plant-based snacks idea screen");
  const acme = clients["Acme Team A"]!;
  const t = await w.call(USER, acme, "POST", "/api/v1/ResultsAiThreads", { projectId, title: "Australia only", filters: { regionIds: [2] } });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  const m = await w.call(USER, acme, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: t.body.id, content: "Which concept did best with men?" });
  const answer = await answerTo(m.body.id);
  const f = answer.referencesData.figures[0]!.source as { filters: ResponseFilter };
  expect(f.filters.regionIds, "the thread's market").toEqual([2]);
  expect(f.filters.filterIds, "and the question's audience").toEqual(optionIdsOf(await projectContext(w.tdb.db, await w.ctxOf(USER, acme), projectId), 45, ["Male"]));
  await expectGrounded(w.tdb.db, await w.ctxOf(USER, acme), projectId, answer.content, answer.referencesData.figures, labelsOf(await projectContext(w.tdb.db, await w.ctxOf(USER, acme), projectId)));
}, 60_000);

test("a thread opened under All markets answers with the all-markets total (markets weighted by population)", async () => {
  const projectId = await projectNamed("Plant-based snacks idea screen");
  const acme = clients["Acme Team A"]!;
  const ctx = await w.ctxOf(USER, acme);
  const pc = await projectContext(w.tdb.db, ctx, projectId);
  const all = { regionIds: pc.regions.map((r) => r.id) };
  expect(all.regionIds.length, "the demo project has two markets").toBe(2);
  const t = await w.call(USER, acme, "POST", "/api/v1/ResultsAiThreads", { projectId, title: "All markets", filters: all, total: "markets" });
  expect(t.status, JSON.stringify(t.body)).toBe(201);
  expect(t.body.total).toBe("markets");
  const m = await w.call(USER, acme, "POST", "/api/v1/ResultsAiMessages", { resultsAiThreadId: t.body.id, content: "Which concept did best with women?" });
  const answer = await answerTo(m.body.id);
  const women = { ...all, filterIds: optionIdsOf(pc, 45, ["Female"]) };
  // What QualResults answers for All markets (total=markets) under the question's audience, and what the pooled sample would say.
  const head = pc.measures[0]!.standardQuestionId;
  const byMarkets = (await qualResults(w.tdb.db, ctx, { projectId, filters: women, standardQuestionIds: [head], total: "markets" })).measures[0]!.results;
  const pooled = (await qualResults(w.tdb.db, ctx, { projectId, filters: women, standardQuestionIds: [head] })).measures[0]!.results;
  const top = answer.referencesData.figures.find((f) => f.source.fn === "QualResults" && f.source.field === "top2")!;
  const src = top.source as Extract<Figure["source"], { fn: "QualResults" }>;
  expect(src.total, "the figure says which total it is").toBe("markets");
  const want = byMarkets.find((r) => r.testOptionId === src.testOptionId)!.top2;
  expect(top.text, "the all-markets total's top-2-box").toBe(`${(want * 100).toFixed(1)}%`);
  expect(Math.abs(want - pooled.find((r) => r.testOptionId === src.testOptionId)!.top2), "the two totals differ, so the check can tell them apart").toBeGreaterThan(0.0005);
  await expectGrounded(w.tdb.db, ctx, projectId, answer.content, answer.referencesData.figures, labelsOf(pc));
}, 60_000);
