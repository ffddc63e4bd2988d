// `ideally --version` and `ideally version`: the CLI's version and commit, the API version of the
// contract it was built with, and (`version` only; `--version` needs no network) the version the
// API it talks to says it runs (its OpenAPI document's info.version), so a mismatch is visible
// before it bites.
import { resolve } from "node:path";
import { apiBase, readConfig } from "../../config.ts";
import { printJson, summary, yellow } from "../../output.ts";
import type { GlobalOptions } from "../../session.ts";
import { netFetch, networkError } from "../../net.ts";

/** The CLI's own version (semver); bumped with a change of its commands or output. */
export const CLI_VERSION = "1.1.0";

/** The commit: stamped by scripts/build-cli.ts into the binary, else read from the checkout. */
function commit(): string | null {
  const stamped = process.env.IDEALLY_CLI_COMMIT;
  if (stamped) return stamped;
  try {
    const r = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: resolve(import.meta.dir, "../../.."), stdout: "pipe", stderr: "ignore" });
    const out = r.stdout.toString().trim();
    return r.exitCode === 0 && out ? out : null;
  } catch {
    return null;
  }
}

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
  const contract = (await import("../../../../contracts/openapi.json", { with: { type: "json" } })).default.info.version;
  if (o.offline) {
    const mine = { cli: CLI_VERSION, commit: commit(), contract };
    if (o.json) return printJson(mine);
    process.stdout.write(`ideally ${CLI_VERSION}${mine.commit ? ` (${mine.commit})` : ""}\n${summary([["contract", contract]])}\n`);
    return;
  }
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
