// The prompts both providers get. A published prompt version of the matching type (Prompts and
// PromptVersions, staff's) replaces the built-in text: its systemPrompt the system message, its
// template the user message with {{objective}}, {{scope}}, {{projectName}} and {{facts}} filled. The
// facts (or the chat's context) always travel as a ```json block, appended when a template leaves
// {{facts}} out: the grounding does not depend on a prompt's wording.
import type { Db, Tx } from "../../db/client.ts";
import type { ChatMessage } from "./provider.ts";
import type { ProjectContext, SummaryFacts } from "./facts.ts";

export const SUMMARY_SYSTEM = [
  "You are a consumer-research analyst writing for a research team.",
  "Write only from the FACTS given: never state a number that is not a figure in them.",
  "Each figure has a reference (F1, F2, ...) and a text; when you use a figure, write its text exactly, followed by its reference in brackets, e.g. 62.3% [F4].",
  "Say which test option leads on which measure and by how much, what is significant against the benchmark, which audience skews stand out, price points and reach when given, and the top verbatim themes with a quote.",
  "Markdown, short paragraphs and bullet lists, no preamble.",
].join("\n");

export const SUMMARY_TEMPLATE = "Objective: {{objective}}\nProject: {{projectName}}\nScope: {{scope}}\n\nFACTS:\n{{facts}}";

export const CHAT_SYSTEM = [
  "You answer questions about one project's survey results for a research team.",
  "Get every figure from the tools: qual_results (top-2-box of a measure per test option for an audience), price_sensitivity, market_reach, verbatim_themes, and why_answers (why people like or dislike one test option, or what they say about it: its themes, quoted answers and drivers).",
  "For a why question, or what people say about a test option, call why_answers with that option's id (by name, or by its number in the CONTEXT's order) and quote answers as the tool gives them, each followed by its reference and the respondent's segment, e.g. “Great value” [F2] (Female, 25-34, Australia).",
  "Map the question's audience to the ids in the CONTEXT (demographic options as filterIds, markets as regionIds) and its measure to a standardQuestionId.",
  "Each figure a tool returns has a reference and a text; cite every figure you use as its text followed by its reference in brackets, e.g. 48.2% [F3]. Never state a number that no tool returned.",
  "Answer in two to four sentences.",
].join("\n");

const json = (x: unknown) => `\`\`\`json\n${JSON.stringify(x)}\n\`\`\``;

export interface PromptText {
  promptVersionId: number | null;
  systemPrompt: string;
  template: string;
  model: string | null;
  temperature: number | null;
}

/** The published version of the newest active prompt of a type, or the built-in text. */
export async function promptFor(sql: Db | Tx, promptType: string, fallback: { systemPrompt: string; template: string }): Promise<PromptText> {
  const [v] = await sql<{ id: number; systemPrompt: string | null; template: string; model: string | null; temperature: number | null }[]>`
    select v.id, v.system_prompt as "systemPrompt", v.template, v.model, v.temperature
    from prompts p join prompt_versions v on v.id = p.published_version_id
    where p.prompt_type = ${promptType} and p.is_active order by p.id desc limit 1`;
  if (!v) return { promptVersionId: null, ...fallback, model: null, temperature: null };
  return { promptVersionId: v.id, systemPrompt: v.systemPrompt ?? fallback.systemPrompt, template: v.template, model: v.model, temperature: v.temperature };
}

export function summaryMessages(prompt: PromptText, facts: SummaryFacts): ChatMessage[] {
  const values: Record<string, string> = { objective: facts.objective, projectName: facts.projectName, scope: facts.scope ?? "All respondents", facts: json(facts) };
  let user = prompt.template.replace(/\{\{\s*(\w+)\s*\}\}/g, (m, k: string) => values[k] ?? m);
  if (!/\{\{\s*facts\s*\}\}/.test(prompt.template)) user += `\n\nFACTS:\n${values.facts}`;
  return [
    { role: "system", content: prompt.systemPrompt },
    { role: "user", content: user },
  ];
}

/** The chat's system message: the instructions and the project's context (names and ids, no figures). */
export function chatSystem(prompt: PromptText, pc: ProjectContext): ChatMessage {
  return { role: "system", content: `${prompt.systemPrompt}\n\nCONTEXT:\n${json({ kind: "chatContext", ...pc })}` };
}
