// `ideally --version` and `ideally version`: the CLI's version and commit, the API version of the
// contract it was built with, and the version the API it talks to says it runs (its OpenAPI
// document's info.version), so a mismatch is visible before it bites.
import { resolve } from "node:path";
import { apiBase, readConfig } from "../../config.ts";
import { printJson, summary, yellow } from "../../output.ts";
import type { GlobalOptions } from "../../session.ts";

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

async function serverVersion(base: string): Promise<{ version: string | null; error: string | null }> {
  try {
    const res = await fetch(`${base}/openapi.json`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) return { version: null, error: `HTTP ${res.status}` };
    const doc = (await res.json()) as { info?: { version?: unknown } };
    return { version: typeof doc.info?.version === "string" ? doc.info.version : null, error: null };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { version: null, error: code ? `cannot reach it (${code})` : e instanceof Error ? e.message.split("\n")[0] : String(e) };
  }
}

export async function runVersion(o: GlobalOptions): Promise<void> {
  const contract = (await import("../../../../contracts/openapi.json", { with: { type: "json" } })).default.info.version;
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
