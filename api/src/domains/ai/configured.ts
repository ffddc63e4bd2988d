// The provider the configuration names. Its own module: provider.ts is what every provider imports
// (the interface, the tool-call loop), so the choice among them cannot live there without an
// import circle (provider.ts -> openai.ts -> provider.ts).
import { readAiSettings, type AiSettings } from "../../config.ts";
import type { AiProvider } from "./provider.ts";

/** The provider the settings name: OpenAI-compatible when given (config.ts checks them), else the built-in one. */
export async function providerFor(ai: AiSettings | null): Promise<AiProvider> {
  if (ai) {
    const { OpenAiProvider } = await import("./openai.ts");
    return new OpenAiProvider({ baseUrl: ai.baseUrl, apiKey: ai.apiKey, model: ai.model, timeoutMs: ai.timeoutMs, maxRetries: ai.maxRetries });
  }
  const { LocalProvider } = await import("./local.ts");
  return new LocalProvider();
}

/** The provider these environment variables configure (readAiSettings: refused with readConfig's message when they are wrong). */
export async function providerFromEnv(env: Record<string, string | undefined>): Promise<AiProvider> {
  return providerFor(readAiSettings(env));
}
