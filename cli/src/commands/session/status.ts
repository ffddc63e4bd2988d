// `ideally auth status`: where the session is kept and what it is (API, account, client, token
// expiry), and whether the API still accepts it; with IDEALLY_TOKEN, that token instead of the stored
// login. Exit 3 when not signed in or the session ended, and the API's own code (2 unreachable, 7 no
// answer) when it could not be asked. `ideally auth token`: the current access token, for scripts.
import { apiBase, configPath, readConfig } from "../../config.ts";
import { authError, CliError } from "../../errors.ts";
import { printJson, summary } from "../../output.ts";
import { envToken, ok, signedIn, type GlobalOptions } from "../../session.ts";

/** "in 4 min", "2 h ago". */
function relative(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 90 ? `${s} s` : s < 90 * 60 ? `${Math.round(s / 60)} min` : s < 48 * 3600 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} days`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

export async function runAuthStatus(o: GlobalOptions): Promise<void> {
  const path = configPath();
  const cfg = readConfig();
  const fromEnv = envToken() !== null;
  const s = cfg.session;
  const base = apiBase(o.api, cfg);
  if (!s && !fromEnv) {
    if (o.json) printJson({ signedIn: false, api: base, configPath: path });
    throw authError(`not signed in to ${base}; run \`ideally login\` (config: ${path})`);
  }
  // The server's word: Users/Me with the session (refreshed first when near expiry, like every command).
  let server: "valid" | "ended" | "unreachable" = "valid";
  let failure: CliError | null = null;
  let client: { id: number; name: string; tier: string } | null = null;
  const api = signedIn(o);
  let email = api.session.email;
  let userId = api.session.userId;
  try {
    const me = ok(await api.client.GET("/api/v1/Users/Me"), "reading the account");
    email = me.email;
    userId = me.id;
    if (me.client && me.client.id === api.clientId) client = { id: me.client.id, name: me.client.name, tier: me.client.tier };
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    server = e.exitCode === 3 ? "ended" : "unreachable";
    failure = e;
  }
  const now = fromEnv ? api.session : (readConfig().session ?? api.session);
  const out = {
    signedIn: server !== "ended",
    token: fromEnv ? "IDEALLY_TOKEN" : "stored login",
    api: now.api,
    email,
    userId,
    clientId: api.clientId,
    clientName: client?.name ?? null,
    accessTokenExpiresAt: new Date(now.expiresAt).toISOString(),
    refreshable: now.refreshToken !== null,
    server,
    ...(failure ? { error: failure.message } : {}),
    configPath: path,
  };
  if (o.json) printJson(out);
  else
    process.stdout.write(
      `${summary([
        ["api", out.api],
        ["account", `${out.email} (user ${out.userId})`],
        ["token", fromEnv ? "IDEALLY_TOKEN (the stored login is not used)" : "the stored login"],
        ["client", out.clientId == null ? "none chosen (`ideally clients use`)" : `${out.clientId}${client ? ` ${client.name} (${client.tier})` : ""}`],
        ["access token", `expires ${relative(now.expiresAt - Date.now())} (${out.accessTokenExpiresAt.slice(0, 19).replace("T", " ")} UTC)`],
        ["refresh", out.refreshable ? "automatic" : fromEnv ? "none: IDEALLY_TOKEN is used as it is" : "not possible: sign in again when it expires"],
        [
          "session",
          server === "valid"
            ? "accepted by the API"
            : server === "ended"
              ? fromEnv
                ? "refused: set a new IDEALLY_TOKEN"
                : "ended: run `ideally login`"
              : "not checked: the API could not be asked (below)",
        ],
        ["config", path],
      ])}\n`,
    );
  if (server === "ended") throw new CliError(fromEnv ? (failure?.message ?? "IDEALLY_TOKEN was refused") : "the session has ended; run `ideally login`", 3);
  // The API down is not a healthy status: its own code (2 unreachable, 7 no answer) and line.
  if (failure) throw failure;
}

/** `ideally auth token`: the access token commands send (refreshed first when near expiry), for `curl` or IDEALLY_TOKEN. */
export async function runAuthToken(o: GlobalOptions): Promise<void> {
  const api = signedIn(o);
  const token = await api.token();
  if (o.json) printJson({ token, expiresAt: new Date(api.session.expiresAt).toISOString(), from: api.fromEnv ? "IDEALLY_TOKEN" : "stored login" });
  else process.stdout.write(`${token}\n`);
}
