// Configuration in one place (issue 34): the listening address, the port options of the server and
// the worker, and the AI provider's settings are read and checked by readConfig (api/src/config.ts),
// each bad value named on a line of its own; no other API module reads process.env for them.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { readConfig } from "../../api/src/config.ts";
import { providerFromEnv } from "../../api/src/domains/ai/configured.ts";

const problems = (env: Record<string, string>): string[] => {
  try {
    readConfig(env);
    return [];
  } catch (e) {
    return (e as Error).message
      .split("\n")
      .slice(1)
      .map((l) => l.trim());
  }
};

describe("readConfig", () => {
  test("listens on 127.0.0.1 unless HOST says otherwise (issue 38: a fresh start is not reachable from the network)", () => {
    expect(readConfig({}).host).toBe("127.0.0.1");
    expect(readConfig({ HOST: "0.0.0.0" }).host).toBe("0.0.0.0");
    expect(readConfig({ HOST: "::" }).host).toBe("::");
    expect(problems({ HOST: "local host" })).toEqual(["HOST must be an address or a host name to listen on, got 'local host'"]);
  });

  test("REUSE_PORT and WEB_DEV are 0 or 1; METRICS_PORT a port", () => {
    expect(readConfig({}).reusePort).toBe(false);
    expect(readConfig({ REUSE_PORT: "1" }).reusePort).toBe(true);
    expect(readConfig({ WEB_DEV: "1" }).webDev).toBe(true);
    expect(readConfig({ WEB_DEV: "1", NODE_ENV: "production" }).webDev).toBe(false);
    expect(readConfig({}).metricsPort).toBeUndefined();
    expect(readConfig({ METRICS_PORT: "9464" }).metricsPort).toBe(9464);
    expect(problems({ REUSE_PORT: "yes", WEB_DEV: "2", METRICS_PORT: "70000" })).toEqual([
      "METRICS_PORT must be a port number, got '70000'",
      "REUSE_PORT must be 0 or 1, got 'yes'",
      "WEB_DEV must be 0 or 1, got '2'",
    ]);
  });

  test("the AI provider: all three of AI_BASE_URL, AI_API_KEY and AI_MODEL or none; its timeout and retries whole numbers in range", () => {
    expect(readConfig({}).ai).toBeNull();
    const all = { AI_BASE_URL: "https://ai.example/v1", AI_API_KEY: "k", AI_MODEL: "m" };
    expect(readConfig(all).ai).toEqual({ baseUrl: "https://ai.example/v1", apiKey: "k", model: "m", timeoutMs: undefined, maxRetries: undefined });
    expect(readConfig({ ...all, AI_TIMEOUT_MS: "600000", AI_MAX_RETRIES: "0" }).ai).toMatchObject({ timeoutMs: 600_000, maxRetries: 0 });
    expect(readConfig({ ...all, AI_TIMEOUT_MS: "1000", AI_MAX_RETRIES: "10" }).ai).toMatchObject({ timeoutMs: 1000, maxRetries: 10 });
    // Number("") is 0, Number("1e3") 1000 and Number(" 5 ") 5: each was taken as is before.
    expect(problems({ ...all, AI_TIMEOUT_MS: "999", AI_MAX_RETRIES: "11" })).toEqual([
      "AI_TIMEOUT_MS must be a whole number from 1000 to 600000, got '999'",
      "AI_MAX_RETRIES must be a whole number from 0 to 10, got '11'",
    ]);
    expect(problems({ ...all, AI_TIMEOUT_MS: "600001", AI_MAX_RETRIES: "-1" })).toHaveLength(2);
    expect(problems({ ...all, AI_TIMEOUT_MS: "1e4", AI_MAX_RETRIES: "two" })).toHaveLength(2);
    expect(problems({ AI_BASE_URL: "https://ai.example/v1" })).toEqual(["AI_BASE_URL, AI_API_KEY and AI_MODEL: set all three (the OpenAI-compatible provider) or none (the local provider)"]);
    expect(problems({ ...all, AI_BASE_URL: "ai.example" })).toEqual(["AI_BASE_URL must be an http(s) URL"]);
  });

  test("the provider is chosen from the same settings", async () => {
    expect((await providerFromEnv({})).name).toBe("local");
    expect((await providerFromEnv({ AI_BASE_URL: "http://x", AI_API_KEY: "k", AI_MODEL: "m" })).name).toBe("openai");
    await expect(providerFromEnv({ AI_BASE_URL: "http://x", AI_API_KEY: "k", AI_MODEL: "m", AI_MAX_RETRIES: "many" })).rejects.toThrow("AI_MAX_RETRIES must be a whole number");
  });
});

test("only config.ts and the process entry points read process.env in api/src (and the log's redaction of configured secrets)", () => {
  const src = resolve(import.meta.dir, "../../api/src");
  const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []));
  const readers = files(src)
    .filter((f) => /process\.env|Bun\.env/.test(readFileSync(f, "utf8").replace(/\/\/.*$/gm, "")))
    .map((f) => relative(src, f))
    .sort();
  // server.ts and worker.ts hand process.env to readConfig and to the file store's and the
  // integrations' own parsers; log.ts redacts every configured secret it finds there.
  expect(readers).toEqual(["config.ts", "hubspot/client.ts", "ops/log.ts", "samplify/client.ts", "server.ts", "worker.ts"]);
});
