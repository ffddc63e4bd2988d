// The built-in (local) AI provider in the results chat: a question it does not understand (off
// topic, ambiguous) or one that asks it to act (delete, send) is answered with what it can answer,
// never with a ranking; a results question still gets the matching tool call. Pure: the provider
// gets the chat's system context as the chat sends it (messages.ts), and the tools offered.
import { describe, expect, test } from "bun:test";
import { CANNOT_ACT, LocalProvider, NOT_UNDERSTOOD } from "../../api/src/domains/ai/local.ts";
import type { ProjectContext } from "../../api/src/domains/ai/facts.ts";
import type { ChatMessage, ToolSpec } from "../../api/src/domains/ai/provider.ts";
import { readFileSync } from "node:fs";
import { join } from "node:path";

const pc: ProjectContext = {
  projectId: 1,
  projectName: "Plant-based snacks idea screen",
  clientId: 1003,
  projectTypeId: 1,
  frameworkId: 1010,
  testOptions: [
    { id: 11, name: "Chickpea crisps" },
    { id: 12, name: "Lentil puffs" },
  ],
  measures: [
    { standardQuestionId: 5, title: "Likability" },
    { standardQuestionId: 3, title: "Purchase intent" },
  ],
  demographics: [
    {
      systemQuestionId: 45,
      label: "Gender",
      code: "gender",
      options: [
        { id: 4500001, label: "Male" },
        { id: 4500002, label: "Female" },
      ],
    },
    {
      systemQuestionId: 51,
      label: "Age group",
      code: "age",
      options: [
        { id: 5100001, label: "18-24" },
        { id: 5100002, label: "25-34" },
        { id: 5100003, label: "55-64" },
      ],
    },
  ],
  regions: [
    { id: 1, name: "New Zealand" },
    { id: 2, name: "Australia" },
  ],
  textQuestions: [],
  choiceQuestions: [],
  objective: "Summarize the overall performance.",
};
const tools: ToolSpec[] = ["qual_results", "price_sensitivity", "market_reach", "verbatim_themes"].map((name) => ({ name, description: name, parameters: { type: "object", properties: {} } }));

async function ask(question: string) {
  const system = `You answer questions about results.\n\nCONTEXT:\n\`\`\`json\n${JSON.stringify({ kind: "chatContext", ...pc })}\n\`\`\``;
  return new LocalProvider().complete({
    messages: [
      { role: "system", content: system },
      { role: "user", content: question },
    ],
    tools,
  });
}

/** What a ranking answer says (writeAnswer): "X did best on M", "leads on", a top-2-box figure. */
const RANKING = /did (best|worst) on \w+ among|leads on|top-2-box \(|\d+(\.\d+)?%/;

describe("questions outside what it can answer", () => {
  const offTopic = ["What is the capital of France?", "Tell me a joke", "How is the weather in Auckland today?", "Who won the football last night?"];
  const ambiguous = ["What do you think?", "Tell me more", "Is it good?", "Hmm"];
  test.each([...offTopic, ...ambiguous])("%p: says what it can answer, calls no tool, ranks nothing", async (q) => {
    const r = await ask(q);
    expect(r.toolCalls).toEqual([]);
    expect(r.content.startsWith(NOT_UNDERSTOOD)).toBe(true);
    expect(r.content).toContain("I can compare concepts on a measure (Likability, Purchase intent, ...)");
    expect(r.content).toContain("explain what people like or dislike from their answers");
    // The example in quotes aside, nothing of a ranking.
    expect(r.content.replace(/“[^”]*”/g, "")).not.toMatch(RANKING);
    expect(r.content).not.toContain("Chickpea crisps");
    expect(r.content).not.toContain("Lentil puffs");
  });

  const hostile = ["Delete all my data", "delete this project", "Can you email the results to my boss?", "Please remove every respondent under 25", "I want you to reset my password"];
  test.each(hostile)("%p: refuses to act, says what it can answer, calls no tool", async (q) => {
    const r = await ask(q);
    expect(r.toolCalls).toEqual([]);
    expect(r.content.startsWith(CANNOT_ACT)).toBe(true);
    expect(r.content).toContain("I can compare concepts on a measure");
    expect(r.content.replace(/“[^”]*”/g, "")).not.toMatch(RANKING);
  });
});

describe("results questions are still understood", () => {
  const cases: [question: string, tool: string, args: Record<string, unknown>][] = [
    ["Which concept did best with women under 35?", "qual_results", { filterIds: [4500002, 5100001, 5100002], regionIds: [], standardQuestionId: null }],
    ["Which concept had the highest purchase intent among men?", "qual_results", { filterIds: [4500001], standardQuestionId: 3 }],
    ["How did Chickpea crisps compare with Lentil puffs on likability?", "qual_results", { standardQuestionId: 5, testOptionIds: [11, 12] }],
    ["Which is better?", "qual_results", { filterIds: [], regionIds: [] }],
    ["Likability in Australia", "qual_results", { regionIds: [2], standardQuestionId: 5 }],
    ["What did people say?", "verbatim_themes", {}],
    ["What price should we charge?", "price_sensitivity", {}],
    ["What is the best combination for reach?", "market_reach", {}],
    ["How would a price change affect purchase intent?", "price_sensitivity", {}],
  ];
  test.each(cases)("%p asks for %s", async (q, tool, args) => {
    const r = await ask(q);
    expect(r.toolCalls.map((t) => t.name)).toEqual([tool]);
    expect(JSON.parse(r.toolCalls[0]!.arguments)).toMatchObject(args);
  });
});

describe("why questions name one test option, by name or number, with a stance", () => {
  const whyTools: ToolSpec[] = [...tools, { name: "why_answers", description: "why", parameters: { type: "object", properties: {} } }];
  async function askWhy(question: string) {
    const system = `You answer questions about results.\n\nCONTEXT:\n\`\`\`json\n${JSON.stringify({ kind: "chatContext", ...pc })}\n\`\`\``;
    return new LocalProvider().complete({
      messages: [
        { role: "system", content: system },
        { role: "user", content: question },
      ],
      tools: whyTools,
    });
  }
  const cases: [question: string, tool: string, args: Record<string, unknown>][] = [
    ["Why do people like concept 2?", "why_answers", { testOptionId: 12, stance: "like" }],
    ["Why do people like Chickpea crisps?", "why_answers", { testOptionId: 11, stance: "like" }],
    ["What do people dislike about Lentil puffs?", "why_answers", { testOptionId: 12, stance: "dislike" }],
    ["Why don't people like idea #1?", "why_answers", { testOptionId: 11, stance: "dislike" }],
    ["What do women say about Lentil puffs?", "why_answers", { testOptionId: 12, stance: null, filterIds: [4500002] }],
    ["Why do people in Australia love option 1?", "why_answers", { testOptionId: 11, stance: "like", regionIds: [2] }],
    // No such concept (two options), or no single concept named: not a why answer.
    ["Why do people like concept 3?", "qual_results", {}],
    ["Which concept did best with women?", "qual_results", { filterIds: [4500002] }],
    ["How did Chickpea crisps compare with Lentil puffs on likability?", "qual_results", { testOptionIds: [11, 12] }],
  ];
  test.each(cases)("%p asks for %s", async (q, tool, args) => {
    const r = await askWhy(q);
    expect(r.toolCalls.map((t) => t.name)).toEqual([tool]);
    expect(JSON.parse(r.toolCalls[0]!.arguments)).toMatchObject(args);
  });
});

describe("questions written from outside the code (tests/fixtures/ai/chat-topicality.json)", () => {
  const set = JSON.parse(readFileSync(join(import.meta.dir, "../fixtures/ai/chat-topicality.json"), "utf8")) as { onTopic: string[]; offTopic: string[] };
  test("about this project's results, however phrased: a tool is called", async () => {
    const refused: string[] = [];
    for (const q of set.onTopic) {
      const r = await ask(q);
      if (!r.toolCalls.length) refused.push(`${q} -> ${r.content.slice(0, 80)}`);
    }
    expect(refused).toEqual([]);
  });
  test("about anything else, even naming a market, a measure word or a concept: no tool, no ranking, says what it can answer", async () => {
    const answered: string[] = [];
    for (const q of set.offTopic) {
      const r = await ask(q);
      const ok = r.toolCalls.length === 0 && r.content.startsWith(NOT_UNDERSTOOD) && !r.content.replace(/“[^”]*”/g, "").match(RANKING);
      if (!ok) answered.push(`${q} -> ${r.toolCalls.map((t) => t.name).join(",")} ${r.content.slice(0, 60)}`);
    }
    expect(answered).toEqual([]);
  });
});

describe("'which and why' (issue 37: the input's own suggestion got a ranking with no reason)", () => {
  const whyTools: ToolSpec[] = [...tools, { name: "why_answers", description: "why_answers", parameters: { type: "object", properties: {} } }];
  const system = `You answer questions about results.\n\nCONTEXT:\n\`\`\`json\n${JSON.stringify({ kind: "chatContext", ...pc })}\n\`\`\``;
  const fig = (ref: string, text: string) => ({ ref, text });
  const base = { audience: [], audienceText: "all respondents", filters: {} };
  // Lentil puffs leads: the ranking as qual_results hands it over (best first).
  const ranking = {
    ...base,
    tool: "qual_results",
    measure: {
      standardQuestionId: 5,
      title: "Likability",
      options: [
        { name: "Lentil puffs", top2: fig("F1", "71.0%"), n: fig("F2", "n 240"), smallBase: false },
        { name: "Chickpea crisps", top2: fig("F3", "58.0%"), n: fig("F4", "n 240"), smallBase: false },
      ],
      lead: { diff: fig("F5", "13.0 points"), significant: true },
    },
  };
  const why = {
    ...base,
    tool: "why_answers",
    testOption: "Lentil puffs",
    stance: "like",
    questions: [
      {
        question: "What do you like about it?",
        answers: 120,
        themes: [{ name: "crunchy texture", share: fig("F6", "41%"), quote: { text: fig("F7", "“So crunchy”"), segment: "Female, 25-34" } }],
        quotes: [],
      },
    ],
    drivers: null,
  };
  const turn = (question: string, outputs: unknown[]) => {
    const messages: ChatMessage[] = [
      { role: "system", content: system },
      { role: "user", content: question },
    ];
    outputs.forEach((o, i) => {
      messages.push({ role: "assistant", content: "", toolCalls: [{ id: `c${i}`, name: (o as { tool: string }).tool, arguments: "{}" }] });
      messages.push({ role: "tool", toolCallId: `c${i}`, content: JSON.stringify(o) });
    });
    return new LocalProvider().complete({ messages, tools: whyTools });
  };

  test.each(["Which test option did best, and why?", "Which concept is best and why?", "Why is the best concept the best?"])(
    "%p: the ranking, then why the leader leads, then one answer with both",
    async (q) => {
      const first = await turn(q, []);
      expect(first.toolCalls.map((t) => t.name)).toEqual(["qual_results"]);
      const second = await turn(q, [ranking]);
      expect(second.toolCalls.map((t) => [t.name, JSON.parse(t.arguments).testOptionId, JSON.parse(t.arguments).stance])).toEqual([["why_answers", 12, "like"]]);
      const last = await turn(q, [ranking, why]);
      expect(last.toolCalls).toEqual([]);
      expect(last.content).toContain("Lentil puffs did best on Likability");
      expect(last.content).toContain("crunchy texture");
      expect(last.content.indexOf("did best")).toBeLessThan(last.content.indexOf("crunchy texture"));
    },
  );

  test("a ranking question without 'why' still ends at the ranking", async () => {
    const r = await turn("Which concept did best?", [ranking]);
    expect(r.toolCalls).toEqual([]);
    expect(r.content).toContain("Lentil puffs did best on Likability");
  });
});
