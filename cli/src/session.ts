// The signed-in API client for commands: the typed contract client (contracts/client.ts) with the
// session's bearer token and clientId, refreshed automatically (in the last 10 minutes of the
// access token's life, SPEC 9, and once more on a 401), and one way to turn an API answer into data
// or a one-line error with the right exit code.
import { createApiClient, type ApiClient } from "@ideally/contracts";
import { mkdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { apiBase, clearSession, configPath, readConfig, writeConfig, type Config, type Session } from "./config.ts";
import { apiError, authError, usageError } from "./errors.ts";
import { netFetch } from "./net.ts";

/** SPEC 9: a token within 10 minutes of expiry is refreshed first. */
export const NEAR_EXPIRY_MS = 10 * 60 * 1000;
export const REFRESH_COOKIE = "ideally_refresh";

export interface GlobalOptions {
  api?: string;
  client?: string;
  json?: boolean;
}

export interface Api {
  client: ApiClient;
  base: string;
  session: Session;
  /** The client the commands act for: --client, else the one chosen with `clients use`. */
  clientId: number | null;
  /** A fresh access token (refreshing first when near expiry): for the websocket. */
  token(): Promise<string>;
  /** The token is IDEALLY_TOKEN's: the stored login is not used, nothing is refreshed or saved. */
  fromEnv: boolean;
  /**
   * Any request to the API (`ideally api`) with what the typed client sends: the bearer token
   * (refreshed as for every call), the clientId header unless `tenant: false`, requestscope.
   */
  send(req: Request): Promise<Response>;
}

/** The exp claim of a JWT, in ms. */
export function tokenExpiry(jwt: string): number {
  try {
    const payload = JSON.parse(Buffer.from(jwt.split(".")[1], "base64url").toString("utf8")) as { exp?: number };
    return typeof payload.exp === "number" ? payload.exp * 1000 : 0;
  } catch {
    return 0;
  }
}

/** The refresh token from a response's Set-Cookie headers, if it set one. */
export function refreshCookie(res: Response): string | null {
  for (const c of res.headers.getSetCookie()) {
    const m = new RegExp(`^${REFRESH_COOKIE}=([^;]*)`).exec(c);
    if (m && m[1] !== "") return decodeURIComponent(m[1]);
  }
  return null;
}

type Answer<T> = { data?: T; error?: unknown; response: Response };

/** What the API said, in one line: its message, the failing fields, the status. */
export function describeError(error: unknown, res: Response): string {
  const e = (error && typeof error === "object" ? error : {}) as { message?: string; typename?: string; errors?: { path: string; message: string }[] };
  const msg = e.message ?? (typeof error === "string" && error ? error : res.statusText || "request failed");
  const fields = e.errors?.length && !msg.includes(e.errors[0].path) ? `: ${e.errors.map((f) => `${f.path || "(body)"} ${f.message}`).join("; ")}` : "";
  return `${msg}${fields} (HTTP ${res.status}${e.typename ? ` ${e.typename}` : ""})`;
}

/** The data of a successful answer, else a CliError: 401 is an auth error (3), others API errors (2). */
export function ok<T>(r: Answer<T>, what: string): T {
  if (r.error !== undefined || !r.response.ok) {
    if (r.response.status === 401) throw authError(`${what}: not signed in or the session has ended; run \`ideally login\``);
    throw apiError(`${what}: ${describeError(r.error, r.response)}`);
  }
  return r.data as T;
}

/** An anonymous client (login, login methods); requests bounded by the request timeout (net.ts). */
export function anonymousClient(base: string): ApiClient {
  return createApiClient({ baseUrl: base, fetch: netFetch(base) });
}

/** Stores a new session (after login or refresh). */
export function saveSession(s: Session, cfg: Config = readConfig()): void {
  writeConfig({ ...cfg, session: s });
}

/**
 * Refresh tokens are single use, and using one twice ends the whole login session (reuse
 * detection). So one refresh at a time: within a process one promise is shared, and between
 * processes (a `watch` beside other commands) a lock file is held while the config is re-read, so
 * a process that finds a newer session on disk adopts it instead of spending the old token.
 */
let inflight: Promise<Session> | null = null;
function refresh(s: Session): Promise<Session> {
  inflight ??= lockedRefresh(s).finally(() => {
    inflight = null;
  });
  return inflight;
}

async function lockedRefresh(s: Session): Promise<Session> {
  const lock = `${configPath()}.lock`;
  const until = Date.now() + 15_000;
  for (;;) {
    try {
      mkdirSync(dirname(lock), { recursive: true, mode: 0o700 });
      writeFileSync(lock, String(process.pid), { flag: "wx", mode: 0o600 });
      break;
    } catch {
      // Held by another process; a lock older than 15 s is from a process that died.
      try {
        if (Date.now() - statSync(lock).mtimeMs > 15_000) rmSync(lock, { force: true });
      } catch {
        /* gone meanwhile */
      }
      if (Date.now() > until) break;
      await Bun.sleep(50);
    }
  }
  try {
    const disk = readConfig().session;
    if (disk && disk.api === s.api && disk.userId === s.userId && disk.refreshToken !== s.refreshToken && disk.expiresAt - Date.now() >= NEAR_EXPIRY_MS) return disk;
    return await spend(disk && disk.api === s.api && disk.userId === s.userId ? disk : s);
  } finally {
    rmSync(lock, { force: true });
  }
}

async function spend(s: Session): Promise<Session> {
  if (!s.refreshToken) {
    clearSession();
    throw authError("the session has expired and cannot be refreshed; run `ideally login`");
  }
  const anon = anonymousClient(s.api);
  const r = await anon.POST("/auth/Login/Refresh", { headers: { cookie: `${REFRESH_COOKIE}=${encodeURIComponent(s.refreshToken)}` } });
  if (!r.response.ok || !r.data) {
    if (r.response.status === 422 || r.response.status === 401) {
      clearSession();
      throw authError("the session has ended; run `ideally login`");
    }
    throw apiError(`refreshing the session: ${describeError(r.error, r.response)}`);
  }
  const next: Session = {
    ...s,
    accessToken: r.data.accessToken,
    expiresAt: tokenExpiry(r.data.accessToken),
    refreshToken: refreshCookie(r.response) ?? s.refreshToken,
  };
  // Keep what this process chose (clients use) but the tokens are the new ones.
  saveSession(next);
  return next;
}

/** The headers contracts/client.ts sets on every call, on a request built by hand; the caller's own win. */
async function withHeaders(req: Request, token: string, clientId: number | null): Promise<Request> {
  if (!req.headers.has("Authorization")) req.headers.set("Authorization", `Bearer ${token}`);
  if (!req.headers.has("clientId") && clientId !== null) req.headers.set("clientId", String(clientId));
  if (!req.headers.has("requestscope")) req.headers.set("requestscope", "client");
  return req;
}

/** The claims of an access token the CLI reads (user id, expiry); null when it is not a JWT. */
function claimsOf(jwt: string): { sub: string; exp: number } | null {
  try {
    const c = JSON.parse(Buffer.from(jwt.split(".")[1] ?? "", "base64url").toString("utf8")) as { sub?: unknown; exp?: unknown };
    return typeof c.sub === "string" && typeof c.exp === "number" ? { sub: c.sub, exp: c.exp } : null;
  } catch {
    return null;
  }
}

export const TOKEN_REFUSED = "the API refused the token in IDEALLY_TOKEN (expired or ended; an access token lives 15 minutes): set a new one, e.g. from `ideally auth token`";

/**
 * IDEALLY_TOKEN (for CI, like gh's GH_TOKEN): an access token used as it is instead of the stored
 * login, which is neither read for its tokens nor changed; never refreshed. The client is --client,
 * else IDEALLY_CLIENT, else the one chosen with `clients use` for the same API.
 */
export function envToken(): string | null {
  return process.env.IDEALLY_TOKEN?.trim() || null;
}

function clientOf(o: GlobalOptions, stored: number | null): number | null {
  if (o.client !== undefined) return Number(o.client);
  const env = process.env.IDEALLY_CLIENT?.trim();
  if (env) {
    if (!/^\d{1,9}$/.test(env)) throw usageError(`IDEALLY_CLIENT: expected a client id, got '${env}'`);
    return Number(env);
  }
  return stored;
}

/**
 * The signed-in client, or exit 3 when there is no session. `tenant: false` sends no clientId (the
 * list of every client the account reaches, staff calls that are not a tenant's).
 */
export function signedIn(o: GlobalOptions, opts: { tenant?: boolean } = {}): Api {
  // A bad option is a usage error (exit 1) whether or not a session exists.
  if (o.client !== undefined && !/^\d{1,9}$/.test(o.client)) throw usageError(`--client: expected a client id, got '${o.client}'`);
  const cfg = readConfig();
  const fromEnv = envToken();
  if (fromEnv) return tokenClient(o, opts, cfg, fromEnv);
  let s = cfg.session;
  if (!s) throw authError("not signed in; run `ideally login`");
  const base = apiBase(o.api, cfg);
  if (base !== s.api) throw authError(`signed in to ${s.api}, not ${base}; run \`ideally login --api ${base}\``);
  const clientId = clientOf(o, s.clientId);
  const token = async () => {
    if (s!.expiresAt - Date.now() < NEAR_EXPIRY_MS) s = await refresh(s!);
    return s!.accessToken;
  };
  const net = netFetch(base);
  // openapi-fetch hands fetch a Request; on a 401 the token is refreshed once and the request
  // (cloned before the first try, so its body can be sent again) retried.
  const retrying = async (input: Request): Promise<Response> => {
    const again = input.clone();
    const res = await net(input);
    if (res.status !== 401 || !s!.refreshToken) return res;
    s = await refresh(s!);
    again.headers.set("Authorization", `Bearer ${s.accessToken}`);
    return net(again);
  };
  const client = createApiClient({ baseUrl: base, fetch: retrying, getToken: token, getClientId: () => (opts.tenant === false ? null : clientId) });
  return {
    client,
    base,
    get session() {
      return s!;
    },
    clientId,
    fromEnv: false,
    token,
    send: async (req) => retrying(await withHeaders(req, await token(), opts.tenant === false ? null : clientId)),
  };
}

/** The client with IDEALLY_TOKEN: no refresh; a 401 is exit 3 naming the variable. */
function tokenClient(o: GlobalOptions, opts: { tenant?: boolean }, cfg: Config, jwt: string): Api {
  const base = apiBase(o.api, cfg);
  const claims = claimsOf(jwt);
  const stored = cfg.session && cfg.session.api === base ? cfg.session.clientId : null;
  const clientId = clientOf(o, stored);
  const session: Session = {
    api: base,
    email: `user ${claims?.sub ?? "?"} (IDEALLY_TOKEN)`,
    userId: Number(claims?.sub ?? 0),
    accessToken: jwt,
    expiresAt: (claims?.exp ?? 0) * 1000,
    refreshToken: null,
    clientId,
  };
  const net = netFetch(base);
  const refusing = async (input: Request): Promise<Response> => {
    const res = await net(input);
    if (res.status === 401) throw authError(TOKEN_REFUSED);
    return res;
  };
  const client = createApiClient({ baseUrl: base, fetch: refusing, getToken: () => jwt, getClientId: () => (opts.tenant === false ? null : clientId) });
  return { client, base, session, clientId, fromEnv: true, token: async () => jwt, send: async (req) => refusing(await withHeaders(req, jwt, opts.tenant === false ? null : clientId)) };
}

/** The client id a command needs (a project's team, credits), or a usage-style auth error. */
export function needClient(api: Api): number {
  if (api.clientId == null) throw usageError("no client chosen; run `ideally clients use ID` or pass --client ID");
  return api.clientId;
}
