// The built-in local provider (the default): no network, deterministic, grounded. It speaks the
// same chat-completions interface as the OpenAI-compatible provider and gets the same prompts:
//   - a summary request carries the facts (facts.ts) as a ```json block in the user message; it
//     writes the summary from them, citing every figure by its reference;
//   - a results question with tools offered: it reads the question against the project's context
//     (the ```json block of the system message: test options, measures, demographics, markets;
//     question.ts), asks for the matching tool with the matching filter, and, once the tool's
//     figures are back, writes the answer from them, citing each figure it uses.
// It never writes a number that is not a figure it was given.
import { estimateTokens, type AiProvider, type ChatMessage, type CompletionRequest, type CompletionResult } from "./provider.ts";
import { cite, type Figure, type ProjectContext, type SummaryFacts } from "./facts.ts";
import { parseQuestion } from "./question.ts";
import type { ToolFigure, ToolOutput } from "./tools.ts";

export const LOCAL_MODEL = "ideally-local-1";

/** The last ```json block of a text, parsed; null when there is none or it does not parse. */
export function jsonBlock<T>(text: string | null | undefined): T | null {
  if (!text) return null;
  const blocks = [...text.matchAll(/```json\s*\n([\s\S]*?)\n```/g)];
  const last = blocks.at(-1)?.[1];
  if (!last) return null;
  try {
    return JSON.parse(last) as T;
  } catch {
    return null;
  }
}

const c = (f: Pick<Figure, "text" | "ref"> | null | undefined) => (f ? cite(f) : "");

/** The verdict's ranking in words, without numerals (every number in a summary is a cited figure): concepts the tests do not separate together, "then" between ranks. */
function rankWords(ranks: NonNullable<SummaryFacts["verdict"]>["ranks"]): string {
  const groups = [...new Set(ranks.map((r) => r.rank))].map((rank) => ranks.filter((r) => r.rank === rank));
  const names = (xs: string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);
  return groups.map((g) => names(g.map((r) => `${r.name} (${r.decision})`)) + (g.length > 1 ? " together" : "")).join(", then ");
}

/** A project summary from its facts. */
export function writeSummary(f: SummaryFacts): string {
  const out: string[] = [];
  const head = f.measures[0];
  const title = f.scope ? `${f.projectName}: ${f.scope}` : f.projectName;
  out.push(`## ${title}`);
  out.push(`_Objective: ${f.objective}_`);
  if (f.total) out.push(`_Figures: ${f.total}._`);
  const empty = !head?.options.length && !f.themes.length && !f.price.length && !f.reach && !(f.questions ?? []).length;
  if (empty) {
    out.push("There are no completed responses under this selection yet, so there is nothing to summarise.");
    return out.join("\n\n");
  }
  if (f.verdict) out.push(`**Verdict** (action standard: ${f.verdict.standard}): ${f.verdict.headline} In the order the paired tests give: ${rankWords(f.verdict.ranks)}.`);
  if (head?.options.length) writeMeasures(out, f, head);
  for (const q of f.questions ?? []) {
    if (q.answers.length) out.push(`"${q.question}": ${q.answers.map((a) => `${a.option} ${c(a.share)}`).join(", ")}.`);
  }
  for (const pr of f.price) {
    const parts = [pr.opp && `optimal price ${c(pr.opp)}`, pr.ipp && `indifference price ${c(pr.ipp)}`, pr.pmc && pr.pme && `acceptable range ${c(pr.pmc)} to ${c(pr.pme)}`].filter(Boolean);
    if (parts.length) out.push(`Price sensitivity for ${pr.name}: ${parts.join(", ")}.`);
  }
  if (f.reach) out.push(`Market reach: the best combination (${f.reach.items.join(", ")}) reaches ${c(f.reach.reach)} of respondents.`);
  if (f.themes.length) {
    out.push(["What people said:", ...f.themes.map((t) => `- "${t.name}" in ${c(t.share)} of answers to "${t.question}"${t.quote ? `, e.g. “${t.quote}”` : ""}.`)].join("\n"));
  }
  return out.join("\n\n");
}

function writeMeasures(out: string[], f: SummaryFacts, head: SummaryFacts["measures"][number]): void {
  const lead = head.options[0]!;
  const second = head.options[1];
  let p = `**${lead.name}** leads on ${head.title} with ${c(lead.top2)} top-2-box (${c(lead.n)})`;
  if (second && head.lead) {
    p += `, ${c(head.lead.diff)} ahead of ${second.name} at ${c(second.top2)} (${c(second.n)}); the lead is ${head.lead.lowBase ? "not tested (a base below 30 effective respondents)" : head.lead.significant ? "statistically significant" : "within the margin of error"}.`;
  } else p += ".";
  if (lead.smallBase) p += " The base is small: read it with care.";
  out.push(p);
  if (f.benchmarkName) {
    const lines = head.options
      .filter((o) => o.vsBenchmark)
      .map((o) => {
        const b = o.vsBenchmark!;
        return `${o.name} is ${c(b.diff)} ${b.above ? "above" : "below"} the norm of ${c(b.norm)}${b.lowBase ? " (not tested: a base below 30 effective respondents)" : b.significant ? " (significant)" : b.indicative ? " (indicative: the norm has too few projects to test)" : " (not significant)"}`;
      });
    if (lines.length) out.push(`Against the benchmark (${f.benchmarkName}) on ${head.title}: ${lines.join("; ")}.`);
  }
  const rest = f.measures.slice(1).filter((m) => m.options.length);
  if (rest.length) {
    out.push(
      [
        "On the other measures:",
        ...rest.map((m) => {
          const l = m.options[0]!;
          const gap = m.lead ? `, ${c(m.lead.diff)} ahead of ${m.options[1]!.name}${m.lead.significant ? " (significant)" : ""}` : "";
          return `- ${m.title}: ${l.name} leads with ${c(l.top2)} (${c(l.n)})${gap}.`;
        }),
      ].join("\n"),
    );
  }
  if (f.skews.length) {
    out.push(
      [
        `Audience skews on ${head.title}:`,
        ...f.skews.map(
          (s) =>
            `- ${s.group} (${s.demographic}) rate ${s.testOption} ${s.diff.value >= 0 ? "higher" : "lower"}: ${c(s.group2)} against ${c(s.rest)} among the rest of the sample, a difference of ${c(s.diff)}.`,
        ),
      ].join("\n"),
    );
  } else out.push(`No age group or gender differs significantly from the rest of the sample on ${head.title}.`);
}

const figureText = (f: ToolFigure | null | undefined) => (f ? `${f.text} [${f.ref}]` : "");

/** The answer to a results question from the figures the tools returned. */
export function writeAnswer(outputs: ToolOutput[], direction: "best" | "worst"): string {
  const parts: string[] = [];
  for (const o of outputs) {
    const who = `among ${o.audienceText}`;
    if (o.tool === "qual_results") {
      const m = o.measure;
      if (!m?.options.length) {
        parts.push(`No respondents ${who.replace(/^among /, "in ")} answered${m ? ` ${m.title}` : ""} in this project, so there is nothing to compare.`);
        continue;
      }
      const ranked = direction === "worst" ? [...m.options].reverse() : m.options;
      const top = ranked[0]!;
      const next = ranked[1];
      let s = `${top.name} did ${direction} on ${m.title} ${who}: ${figureText(top.top2)} top-2-box (${figureText(top.n)})`;
      if (next) {
        s +=
          direction === "best" && m.lead
            ? `, ${figureText(m.lead.diff)} ahead of ${next.name} at ${figureText(next.top2)} (${figureText(next.n)}).`
            : `, against ${next.name} at ${figureText(next.top2)} (${figureText(next.n)}).`;
        if (direction === "best" && m.lead)
          s += m.lead.lowBase
            ? " The lead was not tested: a base is below 30 effective respondents."
            : m.lead.significant
              ? " The lead is statistically significant."
              : " The lead is within the margin of error (not statistically significant).";
      } else s += ".";
      if (top.smallBase) s += " The base is small: read it with care.";
      const others = ranked.slice(2);
      if (others.length) s += ` Then: ${others.map((x) => `${x.name} ${figureText(x.top2)}`).join(", ")}.`;
      parts.push(s);
    } else if (o.tool === "price_sensitivity") {
      if (!o.price.length) parts.push(`There are no complete price answers ${who}.`);
      for (const p of o.price) {
        const bits = [
          p.opp && `optimal price ${figureText(p.opp)}`,
          p.ipp && `indifference price ${figureText(p.ipp)}`,
          p.pmc && p.pme && `acceptable range ${figureText(p.pmc)} to ${figureText(p.pme)}`,
        ].filter(Boolean);
        parts.push(`${p.name} ${who}: ${bits.join(", ")}.`);
      }
    } else if (o.tool === "market_reach") {
      parts.push(o.reach ? `The best combination ${who} (${o.reach.items.join(", ")}) reaches ${figureText(o.reach.reach)} of respondents.` : "This project has no market reach results.");
    } else if (o.tool === "why_answers") {
      parts.push(writeWhy(o));
    } else if (o.tool === "verbatim_themes") {
      parts.push(
        o.themes.length
          ? [`What people said ${who}:`, ...o.themes.map((t) => `- "${t.name}" in ${figureText(t.share)} of answers to "${t.question}"${t.quote ? `, e.g. “${t.quote}”` : ""}`)].join("\n")
          : `There are no coded open answers ${who}.`,
      );
    }
  }
  return parts.join("\n\n") || "I could not find results for that question.";
}

/** Why an audience likes or dislikes a test option, from its open answers (quoted, with segments) and drivers. */
export function writeWhy(o: Extract<ToolOutput, { tool: "why_answers" }>): string {
  const who = o.audienceText === "all respondents" ? "respondents" : o.audienceText;
  const kind = o.stance === "like" ? "positive answers" : o.stance === "dislike" ? "negative answers" : "answers";
  const head = o.stance === "like" ? `Why ${who} like ${o.testOption}` : o.stance === "dislike" ? `What ${who} dislike about ${o.testOption}` : `What ${who} say about ${o.testOption}`;
  const out: string[] = [`${head}, in their own words:`];
  const quote = (q: { text: ToolFigure; segment: string }) => `${figureText(q.text)} (${q.segment})`;
  if (!o.questions.length) out.push(`No open question in this project asks about ${o.testOption}.`);
  for (const q of o.questions) {
    if (!q.answers) {
      out.push(`No ${kind.replace(/s$/, "")} from ${who} about ${o.testOption} to "${q.question}".`);
      continue;
    }
    if (q.themes.length) {
      out.push(
        [`To "${q.question}", the ${kind} about ${o.testOption} mention:`, ...q.themes.map((t) => `- "${t.name}" in ${figureText(t.share)} of them${t.quote ? `, e.g. ${quote(t.quote)}` : ""}`)].join(
          "\n",
        ),
      );
    } else if (q.quotes.length) {
      out.push([`To "${q.question}", no theme comes up in the ${kind} about ${o.testOption}; for example:`, ...q.quotes.map((x) => `- ${quote(x)}`)].join("\n"));
    }
  }
  const d = o.drivers;
  if (d?.top.length) {
    out.push(`What drives ${d.outcome} for ${o.testOption}: ${d.top.map((t) => `${t.title} ${figureText(t.importance)}`).join(" and ")} of the explained variance.${d.note ? ` ${d.note}` : ""}`);
  } else if (d?.note) out.push(d.note);
  return out.join("\n\n");
}

export const NOT_UNDERSTOOD = "I can only answer questions about this project's results, and I did not find one in that.";
export const CANNOT_ACT = "I cannot change, delete or send anything: I only read this project's results.";

/** What the local provider can answer, in the project's own words when it has them. */
export function capabilities(pc: ProjectContext | null): string {
  const measures = pc?.measures.length
    ? pc.measures
        .slice(0, 3)
        .map((m) => m.title)
        .join(", ")
    : "likability, purchase intent";
  const example = pc?.measures[0] ? `“Which concept did best on ${pc.measures[0].title} among women?”` : "“Which concept did best on likability among women?”";
  return (
    `I can compare concepts on a measure (${measures}, ...) for everyone or an audience (women, men, age groups, regions, markets), ` +
    `explain what people like or dislike from their answers, and give price points and market reach where the project has them. For example: ${example}`
  );
}

function lastOf(messages: ChatMessage[], role: ChatMessage["role"]): ChatMessage | undefined {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === role) return messages[i];
  return undefined;
}

export class LocalProvider implements AiProvider {
  readonly name = "local" as const;
  readonly model = LOCAL_MODEL;

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    const { content, toolCalls } = this.think(req);
    // The answer is whole at once: it goes out as one delta through the same path as a model's
    // stream (issue 26: streaming is kept for real models, not simulated for an instant one, whose
    // sentence-at-a-time pieces cost a NOTIFY each and drew nothing sooner).
    if (req.onDelta && content) await req.onDelta(content);
    const promptTokens = estimateTokens(req.messages.map((m) => m.content ?? "").join("\n"));
    const completionTokens = estimateTokens(content + toolCalls.map((t) => t.name + t.arguments).join(""));
    return {
      content,
      toolCalls,
      usage: { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true },
      model: LOCAL_MODEL,
      finishReason: toolCalls.length ? "tool_calls" : "stop",
    };
  }

  private think(req: CompletionRequest): { content: string; toolCalls: { id: string; name: string; arguments: string }[] } {
    const msgs = req.messages;
    const user = lastOf(msgs, "user");
    const context = jsonBlock<ProjectContext & { kind?: string }>(lastOf(msgs, "system")?.content);
    const question = user?.content ?? "";
    const parsed = context?.kind === "chatContext" ? parseQuestion(question, context) : null;
    // Tool results after the question: answer from them.
    const lastIndex = msgs.lastIndexOf(user!);
    const outputs = msgs
      .slice(lastIndex + 1)
      .filter((m) => m.role === "tool")
      .map((m) => {
        try {
          return JSON.parse(m.content ?? "") as ToolOutput;
        } catch {
          return null;
        }
      })
      .filter((o): o is ToolOutput => !!o && typeof o === "object" && "tool" in o);
    if (outputs.length) {
      // "Which did best, and why?": once the ranking is back, the leader's reasons (what people
      // like about it; about the last, what they dislike), then one answer with both.
      const ranking = outputs.find((o): o is Extract<ToolOutput, { tool: "qual_results" }> => o.tool === "qual_results");
      const ranked = ranking?.measure?.options ?? [];
      const pick = parsed?.direction === "worst" ? ranked.at(-1) : ranked[0];
      const pickId = pick && context ? context.testOptions.find((t) => t.name === pick.name)?.id : undefined;
      const offered = new Set((req.tools ?? []).map((t) => t.name));
      if (parsed?.alsoWhy && pickId !== undefined && offered.has("why_answers") && !outputs.some((o) => o.tool === "why_answers")) {
        const args = { filterIds: parsed.filterIds, regionIds: parsed.regionIds, testOptionId: pickId, stance: parsed.direction === "worst" ? "dislike" : "like" };
        return { content: "", toolCalls: [{ id: "call_why_answers_2", name: "why_answers", arguments: JSON.stringify(args) }] };
      }
      return { content: writeAnswer(outputs, parsed?.direction ?? "best"), toolCalls: [] };
    }
    const facts = jsonBlock<SummaryFacts>(question);
    if (facts?.kind === "summary") return { content: writeSummary(facts), toolCalls: [] };
    if (parsed?.kind === "action") return { content: `${CANNOT_ACT} ${capabilities(context)}`, toolCalls: [] };
    if (parsed?.kind === "unknown") return { content: `${NOT_UNDERSTOOD} ${capabilities(context)}`, toolCalls: [] };
    if (parsed && req.tools?.length) {
      const filters = { filterIds: parsed.filterIds, regionIds: parsed.regionIds };
      const call = (name: string, args: Record<string, unknown>) => ({ content: "", toolCalls: [{ id: `call_${name}_1`, name, arguments: JSON.stringify(args) }] });
      const offered = new Set(req.tools.map((t) => t.name));
      if (parsed.kind === "price" && offered.has("price_sensitivity")) return call("price_sensitivity", filters);
      if (parsed.kind === "reach" && offered.has("market_reach")) return call("market_reach", filters);
      if (parsed.kind === "why" && offered.has("why_answers")) return call("why_answers", { ...filters, testOptionId: parsed.testOptionIds[0], stance: parsed.stance });
      if (parsed.kind === "themes" && offered.has("verbatim_themes")) return call("verbatim_themes", filters);
      return call("qual_results", { ...filters, standardQuestionId: parsed.standardQuestionId, testOptionIds: parsed.testOptionIds.length > 1 ? parsed.testOptionIds : [] });
    }
    return {
      content: `${capabilities(context?.kind === "chatContext" ? context : null)} Open a project to ask about its results.`,
      toolCalls: [],
    };
  }
}
