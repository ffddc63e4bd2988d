// The provider the configuration names. Its own module: provider.ts is what every provider imports
// (the interface, the tool-call loop), so the choice among them cannot live there without an
// import circle (provider.ts -> openai.ts -> provider.ts).
import type { AiProvider } from "./provider.ts";

/** The configured provider: OpenAI-compatible when AI_BASE_URL, AI_API_KEY and AI_MODEL are all set, else local. */
export async function providerFromEnv(env: Record<string, string | undefined> = process.env): Promise<AiProvider> {
  const set = [env.AI_BASE_URL, env.AI_API_KEY, env.AI_MODEL].filter((v) => v && v.trim()).length;
  if (set === 3) {
    const { OpenAiProvider } = await import("./openai.ts");
    return new OpenAiProvider({
      baseUrl: env.AI_BASE_URL!,
      apiKey: env.AI_API_KEY!,
      model: env.AI_MODEL!,
      timeoutMs: env.AI_TIMEOUT_MS ? Number(env.AI_TIMEOUT_MS) : undefined,
      maxRetries: env.AI_MAX_RETRIES ? Number(env.AI_MAX_RETRIES) : undefined,
    });
  }
  if (set > 0) throw new Error("AI_BASE_URL, AI_API_KEY and AI_MODEL: set all three (the OpenAI-compatible provider) or none (the local provider)");
  const { LocalProvider } = await import("./local.ts");
  return new LocalProvider();
}
