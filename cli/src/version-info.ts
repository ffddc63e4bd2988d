// What `ideally --version` says, with nothing else loaded (issue 38: start-up within 2x of a
// compiled hello-world; commander, the command tree and the 734 KB OpenAPI document are not read).
// The binary has the commit and the contract's version stamped in by scripts/build-cli.ts; from
// the checkout they are read from git and contracts/openapi.json.
import { resolve } from "node:path";

/** The CLI's own version (semver); bumped with a change of its commands or output. */
export const CLI_VERSION = "1.1.0";

/** The commit: stamped into the binary, else read from the checkout. */
export function commit(): string | null {
  const stamped = process.env.IDEALLY_CLI_COMMIT;
  if (stamped) return stamped;
  try {
    const r = Bun.spawnSync(["git", "rev-parse", "--short=12", "HEAD"], { cwd: resolve(import.meta.dir, "../.."), stdout: "pipe", stderr: "ignore" });
    const out = r.stdout.toString().trim();
    return r.exitCode === 0 && out ? out : null;
  } catch {
    return null;
  }
}

/** The API version of the contract the CLI was built with (its OpenAPI document's info.version). */
export async function contractVersion(): Promise<string> {
  const stamped = process.env.IDEALLY_CONTRACT_VERSION;
  if (stamped) return stamped;
  return (await import("@ideally/contracts/openapi.json", { with: { type: "json" } })).default.info.version;
}

/** `ideally --version`: the CLI's version, commit and contract, with no network. */
export async function printVersion(json: boolean): Promise<void> {
  const mine = { cli: CLI_VERSION, commit: commit(), contract: await contractVersion() };
  // console.log, not process.stdout, and no colour (whose check needs node:tty): Bun builds either on
  // first use, and each costs more than the rest of --version (docs/performance.md).
  if (json) {
    console.log(JSON.stringify(mine, null, 2));
    return;
  }
  console.log(`ideally ${CLI_VERSION}${mine.commit ? ` (${mine.commit})` : ""}\ncontract  ${mine.contract}`);
}
