// The AI provider interface (DESIGN.md "AI has a provider interface"): one chat-completions shape
// that both providers speak, the OpenAI-compatible client (openai.ts, when AI_BASE_URL, AI_API_KEY
// and AI_MODEL are set) and the built-in local provider (local.ts, the default: no network,
// deterministic). Prompts, tools and grounding are the same for both: the figures a model sees come
// from the results functions (tools.ts, facts.ts), and the answer cites them.

/** One chat message, OpenAI's shape in camelCase. */
export interface ChatMessage {
  role: "system" | "user" | "assistant" | "tool";
  content: string | null;
  /** assistant: the tools it asked for. */
  toolCalls?: ToolCall[];
  /** tool: which call this answers. */
  toolCallId?: string;
}

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as the model wrote them: a JSON text. */
  arguments: string;
}

/** A tool the model may call: JSON Schema parameters, as chat-completions' `function` tools. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Usage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** True when the provider did not report usage and the figures are estimated (4 characters a token). */
  estimated?: boolean;
}

export interface CompletionRequest {
  messages: ChatMessage[];
  tools?: ToolSpec[];
  model?: string | null;
  temperature?: number | null;
  /** Streams the answer's text as it comes; absent, the answer comes whole. */
  onDelta?: (text: string) => void | Promise<void>;
  signal?: AbortSignal;
}

export interface CompletionResult {
  content: string;
  toolCalls: ToolCall[];
  usage: Usage;
  model: string;
  finishReason: string;
}

export interface AiProvider {
  readonly name: "local" | "openai";
  readonly model: string;
  complete(req: CompletionRequest): Promise<CompletionResult>;
}

/** A provider failure (the endpoint's error, a timeout, a malformed answer); never a stack to users. */
export class AiProviderError extends Error {
  constructor(
    message: string,
    readonly status: number | null = null,
    readonly retryable = false,
  ) {
    super(message);
    this.name = "AiProviderError";
  }
}

/**
 * The list `key` of a model's JSON reply (the outermost braces of the reply, so text around the
 * JSON is ignored): "The model's {key} are not JSON" or "The model's reply has no {key} list" else.
 */
export function jsonReplyList(reply: string, key: string): unknown[] {
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(reply.slice(reply.indexOf("{"), reply.lastIndexOf("}") + 1));
  } catch {
    throw new AiProviderError(`The model's ${key} are not JSON`);
  }
  const list = doc?.[key];
  if (!Array.isArray(list)) throw new AiProviderError(`The model's reply has no ${key} list`);
  return list;
}

export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    promptTokens: a.promptTokens + b.promptTokens,
    completionTokens: a.completionTokens + b.completionTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(a.estimated || b.estimated ? { estimated: true } : {}),
  };
}

export const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };

/** A tool the server runs for the model: its spec and the function behind it. */
export interface Tool {
  spec: ToolSpec;
  run(args: Record<string, unknown>): Promise<unknown>;
}

/** What one exchange did: every prompt, tool call and answer, with tokens (DebugConversation). */
export interface TranscriptStep {
  kind: "completion" | "tool";
  /** completion: the messages sent. */
  request?: ChatMessage[];
  /** completion: what came back. */
  content?: string;
  toolCalls?: ToolCall[];
  usage?: Usage;
  model?: string;
  /** tool: the call and its result (or error). */
  tool?: { id: string; name: string; arguments: unknown; result?: unknown; error?: string };
  ms: number;
}

export interface ExchangeResult {
  content: string;
  usage: Usage;
  model: string;
  transcript: TranscriptStep[];
  /** The tool calls and their results, in order: the figures the answer may cite. */
  toolResults: { name: string; arguments: unknown; result: unknown }[];
}

/** At most this many completion rounds in one exchange (tool calls then an answer). */
export const MAX_ROUNDS = 5;

/**
 * One exchange: completions until the model answers without asking for tools, running each tool
 * it asks for and giving it the result. Only the final round streams (a round that calls tools has
 * no text worth showing). A tool's error goes back to the model as the tool's answer.
 */
export async function runExchange(
  provider: AiProvider,
  messages: ChatMessage[],
  tools: Record<string, Tool>,
  opts: { onDelta?: CompletionRequest["onDelta"]; model?: string | null; temperature?: number | null; signal?: AbortSignal } = {},
): Promise<ExchangeResult> {
  const msgs = [...messages];
  const transcript: TranscriptStep[] = [];
  const toolResults: ExchangeResult["toolResults"] = [];
  let usage = NO_USAGE;
  const specs = Object.values(tools).map((t) => t.spec);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const lastRound = round === MAX_ROUNDS - 1;
    const t0 = performance.now();
    const res = await provider.complete({
      messages: msgs,
      tools: lastRound || !specs.length ? undefined : specs,
      model: opts.model,
      temperature: opts.temperature,
      onDelta: opts.onDelta,
      signal: opts.signal,
    });
    usage = addUsage(usage, res.usage);
    // The messages as sent: a copy of the list (later rounds append to it); the messages themselves are never changed once added.
    transcript.push({ kind: "completion", request: [...msgs], content: res.content, toolCalls: res.toolCalls, usage: res.usage, model: res.model, ms: Math.round(performance.now() - t0) });
    if (!res.toolCalls.length) return { content: res.content, usage, model: res.model, transcript, toolResults };
    msgs.push({ role: "assistant", content: res.content || null, toolCalls: res.toolCalls });
    for (const call of res.toolCalls) {
      const t1 = performance.now();
      let args: Record<string, unknown> = {};
      let result: unknown;
      let error: string | undefined;
      try {
        args = call.arguments.trim() ? (JSON.parse(call.arguments) as Record<string, unknown>) : {};
        const tool = tools[call.name];
        if (!tool) throw new Error(`No tool named ${call.name}`);
        result = await tool.run(args);
        toolResults.push({ name: call.name, arguments: args, result });
      } catch (e) {
        error = (e as Error).message;
      }
      transcript.push({ kind: "tool", tool: { id: call.id, name: call.name, arguments: args, ...(error ? { error } : { result }) }, ms: Math.round(performance.now() - t1) });
      msgs.push({ role: "tool", toolCallId: call.id, content: JSON.stringify(error ? { error } : result) });
    }
  }
  throw new AiProviderError(`No answer after ${MAX_ROUNDS} rounds of tool calls`);
}
