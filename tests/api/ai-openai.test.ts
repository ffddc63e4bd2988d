// The OpenAI-compatible provider against a small OpenAI-API-speaking server on loopback: a whole
// answer with usage, a streamed answer, streamed tool calls run by the exchange loop, an error
// that fails at once, retries with backoff (5xx, 429 Retry-After), and a timeout.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { OpenAiProvider } from "../../api/src/domains/ai/openai.ts";
import { providerFromEnv } from "../../api/src/domains/ai/configured.ts";
import { AiProviderError, runExchange, type Tool } from "../../api/src/domains/ai/provider.ts";

type Handler = (body: any, n: number) => Response | Promise<Response>;
let handler: Handler = () => new Response("no handler", { status: 500 });
let requests: { body: any; auth: string | null }[] = [];
let server: ReturnType<typeof Bun.serve>;

beforeAll(() => {
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      if (new URL(req.url).pathname !== "/v1/chat/completions" || req.method !== "POST") return new Response("not found", { status: 404 });
      const body = await req.json();
      requests.push({ body, auth: req.headers.get("authorization") });
      return handler(body, requests.length);
    },
  });
});
afterAll(() => server.stop(true));

const provider = (o: Partial<ConstructorParameters<typeof OpenAiProvider>[0]> = {}) =>
  new OpenAiProvider({ baseUrl: `http://127.0.0.1:${server.port}/v1/`, apiKey: "sk-test", model: "gpt-test", backoffMs: 10, ...o });

const sse = (chunks: unknown[], opts: { done?: boolean } = {}) =>
  new Response(chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("") + (opts.done === false ? "" : "data: [DONE]\n\n"), { headers: { "content-type": "text/event-stream" } });

const reset = (h: Handler) => {
  handler = h;
  requests = [];
};

test("a whole answer: the request's shape, the text, the endpoint's token usage", async () => {
  reset(() =>
    Response.json({
      model: "gpt-test-0613",
      choices: [{ message: { role: "assistant", content: "Hello." }, finish_reason: "stop" }],
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15 },
    }),
  );
  const r = await provider().complete({
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ],
    temperature: 0.2,
  });
  expect(r.content).toBe("Hello.");
  expect(r.usage).toEqual({ promptTokens: 12, completionTokens: 3, totalTokens: 15 });
  expect(r.model).toBe("gpt-test-0613");
  expect(requests[0]!.auth).toBe("Bearer sk-test");
  expect(requests[0]!.body).toEqual({
    model: "gpt-test",
    messages: [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ],
    temperature: 0.2,
  });
});

test("streaming: deltas arrive in order, usage comes from the last chunk", async () => {
  reset(() =>
    sse([
      { model: "gpt-test", choices: [{ delta: { role: "assistant", content: "" } }] },
      { choices: [{ delta: { content: "Alpha " } }] },
      { choices: [{ delta: { content: "leads." } }] },
      { choices: [{ delta: {}, finish_reason: "stop" }] },
      { choices: [], usage: { prompt_tokens: 20, completion_tokens: 2, total_tokens: 22 } },
    ]),
  );
  const deltas: string[] = [];
  const r = await provider().complete({ messages: [{ role: "user", content: "Who leads?" }], onDelta: (d) => void deltas.push(d) });
  expect(deltas).toEqual(["Alpha ", "leads."]);
  expect(r.content).toBe("Alpha leads.");
  expect(r.usage.totalTokens).toBe(22);
  expect(requests[0]!.body.stream).toBe(true);
  expect(requests[0]!.body.stream_options).toEqual({ include_usage: true });
});

test("tool calls: fragments joined by index, the tool run, its result sent back, tokens summed", async () => {
  reset((body, n) => {
    if (n === 1) {
      expect(body.tools[0]).toEqual({ type: "function", function: { name: "qual_results", description: "T2B", parameters: { type: "object", properties: { filterIds: { type: "array" } } } } });
      return sse([
        { choices: [{ delta: { tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "qual_", arguments: "" } }] } }] },
        { choices: [{ delta: { tool_calls: [{ index: 0, function: { name: "results", arguments: '{"filterIds":' } }] } }] },
        { choices: [{ delta: { tool_calls: [{ index: 0, function: { arguments: "[4500002]}" } }] }, finish_reason: "tool_calls" }] },
        { choices: [], usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 } },
      ]);
    }
    const tool = body.messages.at(-1);
    expect(tool.role).toBe("tool");
    expect(tool.tool_call_id).toBe("call_1");
    expect(body.messages.at(-2).tool_calls[0].function).toEqual({ name: "qual_results", arguments: '{"filterIds":[4500002]}' });
    return sse([{ choices: [{ delta: { content: `Beta: ${JSON.parse(tool.content).top2} [F1]` } }] }, { choices: [], usage: { prompt_tokens: 80, completion_tokens: 8, total_tokens: 88 } }]);
  });
  const seen: unknown[] = [];
  const tools: Record<string, Tool> = {
    qual_results: {
      spec: { name: "qual_results", description: "T2B", parameters: { type: "object", properties: { filterIds: { type: "array" } } } },
      run: async (args) => {
        seen.push(args);
        return { top2: "61.0%" };
      },
    },
  };
  const deltas: string[] = [];
  const r = await runExchange(provider(), [{ role: "user", content: "Women?" }], tools, { onDelta: (d) => void deltas.push(d) });
  expect(seen).toEqual([{ filterIds: [4500002] }]);
  expect(r.content).toBe("Beta: 61.0% [F1]");
  expect(deltas.join("")).toBe(r.content);
  expect(r.usage).toEqual({ promptTokens: 130, completionTokens: 18, totalTokens: 148 });
  expect(r.transcript.map((s) => s.kind)).toEqual(["completion", "tool", "completion"]);
  expect(r.toolResults).toEqual([{ name: "qual_results", arguments: { filterIds: [4500002] }, result: { top2: "61.0%" } }]);
});

test("an error the endpoint gives fails at once, with its message", async () => {
  reset(() => Response.json({ error: { message: "model not found" } }, { status: 400 }));
  const e = await provider()
    .complete({ messages: [{ role: "user", content: "x" }] })
    .catch((x) => x);
  expect(e).toBeInstanceOf(AiProviderError);
  expect(e.message).toBe("AI endpoint answered 400: model not found");
  expect(requests.length, "a 400 is not retried").toBe(1);
});

test("5xx and 429 are retried with backoff, honouring Retry-After", async () => {
  reset((_b, n) =>
    n === 1
      ? new Response("busy", { status: 503 })
      : n === 2
        ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } })
        : Response.json({ choices: [{ message: { content: "ok" } }] }),
  );
  const r = await provider().complete({ messages: [{ role: "user", content: "x" }] });
  expect(r.content).toBe("ok");
  expect(requests.length).toBe(3);
  expect(r.usage.estimated, "no usage from the endpoint: estimated").toBe(true);
  reset(() => new Response("down", { status: 502 }));
  const e = await provider({ maxRetries: 2 })
    .complete({ messages: [{ role: "user", content: "x" }] })
    .catch((x) => x);
  expect(e.message).toBe("AI endpoint answered 502: down (after 3 attempts)");
  expect(requests.length).toBe(3);
});

test("a timeout: each attempt is cut off, then the call fails", async () => {
  reset(async () => {
    await Bun.sleep(1000);
    return Response.json({ choices: [{ message: { content: "late" } }] });
  });
  const t0 = performance.now();
  const e = await provider({ timeoutMs: 150, maxRetries: 1 })
    .complete({ messages: [{ role: "user", content: "x" }] })
    .catch((x) => x);
  expect(e).toBeInstanceOf(AiProviderError);
  expect(e.message).toBe("AI endpoint timed out after 150 ms (after 2 attempts)");
  expect(requests.length).toBe(2);
  expect(performance.now() - t0).toBeLessThan(900);
});

test("a stream cut off after text is not retried (the reader saw it)", async () => {
  reset(() => new Response(`data: ${JSON.stringify({ choices: [{ delta: { content: "Half" } }] })}\n\ndata: {broken`, { headers: { "content-type": "text/event-stream" } }));
  const e = await provider()
    .complete({ messages: [{ role: "user", content: "x" }], onDelta: () => {} })
    .catch((x) => x);
  expect(e.message).toBe("AI endpoint sent a malformed stream chunk");
  expect(requests.length).toBe(1);
});

test("the environment chooses the provider: all three variables or none", async () => {
  expect((await providerFromEnv({})).name).toBe("local");
  expect((await providerFromEnv({ AI_BASE_URL: "http://x", AI_API_KEY: "k", AI_MODEL: "m" })).name).toBe("openai");
  await expect(providerFromEnv({ AI_BASE_URL: "http://x" })).rejects.toThrow("set all three");
});
