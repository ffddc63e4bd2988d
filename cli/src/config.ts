// Where the CLI keeps its session: one JSON file in the user's config directory
// ($XDG_CONFIG_HOME/ideally/config.json, else ~/.config/ideally/config.json), written with mode
// 0600 in a 0700 folder because it holds the access token and the refresh-token cookie.
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { checkApiUrl } from "./net.ts";

export interface Session {
  /** The API's base URL (no trailing slash). */
  api: string;
  email: string;
  userId: number;
  accessToken: string;
  /** The access token's expiry (ms since epoch), read from its exp claim. */
  expiresAt: number;
  /** The `ideally_refresh` cookie value PasswordLogin and Refresh set (single use, rotated). */
  refreshToken: string | null;
  /** The client chosen with `clients use`; sent as the clientId header. */
  clientId: number | null;
}

export interface Config {
  /** The API used when neither --api nor IDEALLY_API_URL is given, and no session names one. */
  api?: string;
  session?: Session;
}

export const DEFAULT_API = "http://localhost:3000";

export function configPath(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME?.startsWith("/") ? env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base, "ideally", "config.json");
}

/** Damaged config files already reported by this process (each is said once, not per read). */
const reported = new Set<string>();

export function readConfig(path = configPath()): Config {
  if (!existsSync(path)) return {};
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    return damaged(path, (e as NodeJS.ErrnoException).code ?? String(e));
  }
  try {
    const cfg: unknown = JSON.parse(text);
    if (cfg === null || typeof cfg !== "object" || Array.isArray(cfg)) return damaged(path, "not a JSON object", text);
    return cfg as Config;
  } catch (e) {
    return damaged(path, e instanceof Error ? e.message : String(e), text);
  }
}

/** The API address a damaged file still names (its first "api": "http..." value), if any. */
function salvageApi(text: string): string | undefined {
  const m = /"api"\s*:\s*"(https?:\/\/[^"\\\s]+)"/.exec(text);
  return m?.[1];
}

/**
 * A damaged file is treated as signed out, said once on stderr with its path, but the API address
 * it remembered is kept (issue 38: a damaged file sent the next login to localhost). The next write
 * keeps the damaged file beside the new one as config.json.damaged.
 */
function damaged(path: string, why: string, text = ""): Config {
  const api = salvageApi(text);
  if (!reported.has(path)) {
    reported.add(path);
    process.stderr.write(`ideally: warning: ignoring the damaged config file ${path} (${why.split("\n")[0]})${api ? `; kept its API address ${api}` : ""}; \`ideally login\` writes a new one\n`);
  }
  return api ? { api } : {};
}

export function writeConfig(cfg: Config, path = configPath()): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  // A damaged file read by this process is kept aside (it may hold tokens: 0600), not lost.
  if (reported.has(path) && existsSync(path)) {
    copyFileSync(path, `${path}.damaged`);
    chmodSync(`${path}.damaged`, 0o600);
    reported.delete(path);
  }
  // Write then rename, so a crash never leaves half a file; the mode is set before the token lands.
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(cfg, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

export function clearSession(path = configPath()): void {
  const cfg = readConfig(path);
  if (!cfg.session) return;
  delete cfg.session;
  if (Object.keys(cfg).length === 0) rmSync(path, { force: true });
  else writeConfig(cfg, path);
}

/**
 * --api, then IDEALLY_API_URL, then the session's, then the config's, then localhost:3000; one
 * that is not an http(s) address is a usage error naming where it came from.
 */
export function apiBase(flag: string | undefined, cfg: Config = readConfig()): string {
  const env = process.env.IDEALLY_API_URL || undefined;
  const [v, from] =
    flag !== undefined
      ? [flag, "--api"]
      : env !== undefined
        ? [env, "IDEALLY_API_URL"]
        : cfg.session?.api
          ? [cfg.session.api, configPath()]
          : cfg.api
            ? [cfg.api, configPath()]
            : [DEFAULT_API, "the default"];
  return checkApiUrl(v, from);
}
