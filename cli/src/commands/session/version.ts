// `ideally --version` and `ideally version`: the CLI's version and commit, the API version of the
// contract it was built with, and (`version` only; `--version` needs no network) the version the
// API it talks to says it runs (its OpenAPI document's info.version), so a mismatch is visible
// before it bites.
import { apiBase, readConfig } from "../../config.ts";
import { printJson, summary, yellow } from "../../output.ts";
import type { GlobalOptions } from "../../session.ts";
import { netFetch, networkError } from "../../net.ts";
import { CLI_VERSION, commit, contractVersion, printVersion } from "../../version-info.ts";

/** The API's version, from its OpenAPI document (bounded by the request timeout; errors in one line). */
async function serverVersion(base: string): Promise<{ version: string | null; error: string | null }> {
  try {
    const res = await netFetch(base)(`${base}/openapi.json`);
    if (!res.ok) return { version: null, error: `HTTP ${res.status}` };
    const doc = (await res.json()) as { info?: { version?: unknown } };
    return { version: typeof doc.info?.version === "string" ? doc.info.version : null, error: null };
  } catch (e) {
    return { version: null, error: networkError(base, e).message };
  }
}

/**
 * `ideally version` asks the API for its version too; `ideally --version` (`offline`) says only
 * what the CLI knows, with no network (issue 38: it waited on a hung API).
 */
export async function runVersion(o: GlobalOptions & { offline?: boolean }): Promise<void> {
  if (o.offline) return printVersion(o.json === true);
  const contract = await contractVersion();
  const base = apiBase(o.api, readConfig());
  const server = await serverVersion(base);
  const out = { cli: CLI_VERSION, commit: commit(), contract, api: base, apiVersion: server.version, ...(server.error ? { apiError: server.error } : {}) };
  if (o.json) return printJson(out);
  const apiLine = server.version
    ? `${server.version}${server.version !== contract ? yellow(` (the CLI was built for ${contract}: some commands may not match)`) : ""}`
    : `unknown (${server.error ?? "no version"})`;
  process.stdout.write(
    `ideally ${CLI_VERSION}${out.commit ? ` (${out.commit})` : ""}\n${summary([
      ["contract", contract],
      ["api", base],
      ["api version", apiLine],
    ])}\n`,
  );
}
