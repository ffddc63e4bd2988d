// The OpenAI-compatible provider: POST {AI_BASE_URL}/chat/completions (OpenAI, Azure OpenAI's
// compatible endpoint, vLLM, Ollama, LiteLLM, ...), Web-standard fetch only.
// - streaming: server-sent events (`data: {chunk}` lines, `data: [DONE]`), text deltas passed on as
//   they come, tool-call fragments joined by their index; `stream_options.include_usage` asks for
//   the usage chunk at the end.
// - timeouts: each attempt is aborted after timeoutMs (AI_TIMEOUT_MS, default 60 s).
// - retries: network errors, timeouts, 408, 409, 429 and 5xx are retried up to maxRetries times with
//   exponential backoff and full jitter (backoffMs * 2^attempt, at most 20 s), honouring a 429's
//   Retry-After; other 4xx fail at once. A stream that already passed text on is never retried (the
//   reader would see it twice).
// - token accounting: the endpoint's `usage`, else an estimate (4 characters a token) marked so.
import { AiProviderError, estimateTokens, type AiProvider, type ChatMessage, type CompletionRequest, type CompletionResult, type ToolCall, type Usage } from "./provider.ts";

export interface OpenAiConfig {
  baseUrl: string;
  apiKey: string;
  model: string;
  timeoutMs?: number;
  maxRetries?: number;
  backoffMs?: number;
  fetch?: typeof fetch;
}

const RETRY_STATUS = new Set([408, 409, 429, 500, 502, 503, 504]);
const MAX_BACKOFF_MS = 20_000;

function wireMessage(m: ChatMessage): Record<string, unknown> {
  const out: Record<string, unknown> = { role: m.role, content: m.content };
  if (m.toolCalls?.length) out.tool_calls = m.toolCalls.map((t) => ({ id: t.id, type: "function", function: { name: t.name, arguments: t.arguments } }));
  if (m.toolCallId) out.tool_call_id = m.toolCallId;
  return out;
}

interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  total_tokens?: number;
}

function usageOf(u: WireUsage | undefined, req: CompletionRequest, content: string, calls: ToolCall[]): Usage {
  if (u && typeof u.prompt_tokens === "number") {
    const completion = u.completion_tokens ?? 0;
    return { promptTokens: u.prompt_tokens, completionTokens: completion, totalTokens: u.total_tokens ?? u.prompt_tokens + completion };
  }
  const promptTokens = estimateTokens(req.messages.map((m) => (m.content ?? "") + (m.toolCalls ?? []).map((t) => t.arguments).join("")).join("\n"));
  const completionTokens = estimateTokens(content + calls.map((c) => c.name + c.arguments).join(""));
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

export class OpenAiProvider implements AiProvider {
  readonly name = "openai" as const;
  readonly model: string;
  private readonly url: string;
  private readonly timeoutMs: number;
  private readonly maxRetries: number;
  private readonly backoffMs: number;
  private readonly fetch: typeof fetch;

  constructor(private readonly cfg: OpenAiConfig) {
    this.model = cfg.model;
    this.url = `${cfg.baseUrl.replace(/\/+$/, "")}/chat/completions`;
    this.timeoutMs = cfg.timeoutMs && cfg.timeoutMs > 0 ? cfg.timeoutMs : 60_000;
    this.maxRetries = cfg.maxRetries !== undefined && cfg.maxRetries >= 0 ? cfg.maxRetries : 3;
    this.backoffMs = cfg.backoffMs ?? 500;
    this.fetch = cfg.fetch ?? fetch;
  }

  async complete(req: CompletionRequest): Promise<CompletionResult> {
    let last: AiProviderError | null = null;
    for (let attempt = 0; attempt <= this.maxRetries; attempt++) {
      if (attempt > 0) await this.wait(attempt, last, req.signal);
      const streamed = { any: false };
      try {
        return await this.once(req, streamed);
      } catch (e) {
        const err = e instanceof AiProviderError ? e : new AiProviderError(`AI endpoint unreachable: ${(e as Error).message}`, null, true);
        if (req.signal?.aborted) throw new AiProviderError("Cancelled", null, false);
        if (!err.retryable || streamed.any) throw err;
        last = err;
      }
    }
    throw new AiProviderError(`${last!.message} (after ${this.maxRetries + 1} attempts)`, last!.status, false);
  }

  private async wait(attempt: number, last: AiProviderError | null, signal?: AbortSignal): Promise<void> {
    const retryAfter = (last as AiProviderError & { retryAfterMs?: number })?.retryAfterMs;
    const ms = retryAfter ?? Math.random() * Math.min(MAX_BACKOFF_MS, this.backoffMs * 2 ** (attempt - 1));
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, ms);
      signal?.addEventListener(
        "abort",
        () => {
          clearTimeout(t);
          resolve();
        },
        { once: true },
      );
    });
  }

  private async once(req: CompletionRequest, streamed: { any: boolean }): Promise<CompletionResult> {
    const stream = !!req.onDelta;
    const body: Record<string, unknown> = {
      model: req.model || this.model,
      messages: req.messages.map(wireMessage),
      ...(req.tools?.length ? { tools: req.tools.map((t) => ({ type: "function", function: { name: t.name, description: t.description, parameters: t.parameters } })) } : {}),
      ...(req.temperature !== null && req.temperature !== undefined ? { temperature: req.temperature } : {}),
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    };
    const timeout = AbortSignal.timeout(this.timeoutMs);
    const signal = req.signal ? AbortSignal.any([req.signal, timeout]) : timeout;
    const timedOut = () => new AiProviderError(`AI endpoint timed out after ${this.timeoutMs} ms`, null, true);
    let res: Response;
    try {
      res = await this.fetch(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.cfg.apiKey}`, accept: stream ? "text/event-stream" : "application/json" },
        body: JSON.stringify(body),
        signal,
      });
    } catch (e) {
      if (timeout.aborted) throw timedOut();
      throw e;
    }
    if (!res.ok) {
      const text = await res.text().catch(() => "");
      let message = text.slice(0, 300);
      try {
        message = (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? message;
      } catch {
        /* not JSON: the text itself */
      }
      const err = new AiProviderError(`AI endpoint answered ${res.status}: ${message || res.statusText}`, res.status, RETRY_STATUS.has(res.status));
      const ra = Number(res.headers.get("retry-after"));
      if (res.status === 429 && Number.isFinite(ra) && ra >= 0) Object.assign(err, { retryAfterMs: Math.min(ra * 1000, MAX_BACKOFF_MS) });
      throw err;
    }
    try {
      return stream ? await this.readStream(res, req, streamed) : await this.readWhole(res, req);
    } catch (e) {
      if (timeout.aborted) throw timedOut();
      throw e;
    }
  }

  private async readWhole(res: Response, req: CompletionRequest): Promise<CompletionResult> {
    const json = (await res.json()) as {
      model?: string;
      choices?: { message?: { content?: string | null; tool_calls?: { id: string; function: { name: string; arguments: string } }[] }; finish_reason?: string }[];
      usage?: WireUsage;
    };
    const choice = json.choices?.[0];
    if (!choice?.message) throw new AiProviderError("AI endpoint answered without a message", 502, true);
    const content = choice.message.content ?? "";
    const toolCalls = (choice.message.tool_calls ?? []).map((t) => ({ id: t.id, name: t.function.name, arguments: t.function.arguments ?? "" }));
    return { content, toolCalls, usage: usageOf(json.usage, req, content, toolCalls), model: json.model ?? this.model, finishReason: choice.finish_reason ?? "stop" };
  }

  private async readStream(res: Response, req: CompletionRequest, streamed: { any: boolean }): Promise<CompletionResult> {
    if (!res.body) throw new AiProviderError("AI endpoint sent no stream", 502, true);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    let content = "";
    let model = this.model;
    let finishReason = "stop";
    let usage: WireUsage | undefined;
    const calls: { id: string; name: string; arguments: string }[] = [];
    const handle = async (data: string): Promise<boolean> => {
      if (data === "[DONE]") return true;
      let chunk: {
        model?: string;
        choices?: { delta?: { content?: string | null; tool_calls?: { index: number; id?: string; function?: { name?: string; arguments?: string } }[] }; finish_reason?: string | null }[];
        usage?: WireUsage | null;
        error?: { message?: string };
      };
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new AiProviderError("AI endpoint sent a malformed stream chunk", 502, true);
      }
      if (chunk.error) throw new AiProviderError(`AI endpoint stream error: ${chunk.error.message ?? "unknown"}`, 502, false);
      if (chunk.model) model = chunk.model;
      if (chunk.usage) usage = chunk.usage;
      for (const choice of chunk.choices ?? []) {
        const d = choice.delta;
        if (d?.content) {
          content += d.content;
          streamed.any = true;
          await req.onDelta!(d.content);
        }
        for (const t of d?.tool_calls ?? []) {
          calls[t.index] ??= { id: "", name: "", arguments: "" };
          const c = calls[t.index];
          if (t.id) c.id = t.id;
          if (t.function?.name) c.name += t.function.name;
          if (t.function?.arguments) c.arguments += t.function.arguments;
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      return false;
    };
    for (;;) {
      const { value, done } = await reader.read();
      if (value) buffer += value;
      for (let nl = buffer.indexOf("\n"); nl >= 0; nl = buffer.indexOf("\n")) {
        const line = buffer.slice(0, nl).replace(/\r$/, "");
        buffer = buffer.slice(nl + 1);
        if (!line.startsWith("data:")) continue; // comments (": keep-alive"), event names, blank separators
        if (await handle(line.slice(5).trim())) {
          await reader.cancel().catch(() => {});
          return this.result(content, calls, usage, req, model, finishReason);
        }
      }
      if (done) break;
    }
    if (buffer.startsWith("data:")) await handle(buffer.slice(5).trim());
    return this.result(content, calls, usage, req, model, finishReason);
  }

  private result(
    content: string,
    calls: { id: string; name: string; arguments: string }[],
    usage: WireUsage | undefined,
    req: CompletionRequest,
    model: string,
    finishReason: string,
  ): CompletionResult {
    const toolCalls = calls.filter(Boolean).map((c, i) => ({ id: c.id || `call_${i}`, name: c.name, arguments: c.arguments }));
    return { content, toolCalls, usage: usageOf(usage, req, content, toolCalls), model, finishReason };
  }
}
