// `ideally auth status`: where the session is kept and what it is (API, account, client, token
// expiry), and whether the API still accepts it. Exit 3 when not signed in or the session ended.
import { apiBase, configPath, readConfig } from "../../config.ts";
import { authError, CliError } from "../../errors.ts";
import { printJson, summary } from "../../output.ts";
import { ok, signedIn, type GlobalOptions } from "../../session.ts";

/** "in 4 min", "2 h ago". */
function relative(ms: number): string {
  const s = Math.round(Math.abs(ms) / 1000);
  const text = s < 90 ? `${s} s` : s < 90 * 60 ? `${Math.round(s / 60)} min` : s < 48 * 3600 ? `${Math.round(s / 3600)} h` : `${Math.round(s / 86400)} days`;
  return ms >= 0 ? `in ${text}` : `${text} ago`;
}

export async function runAuthStatus(o: GlobalOptions): Promise<void> {
  const path = configPath();
  const cfg = readConfig();
  const s = cfg.session;
  const base = apiBase(o.api, cfg);
  if (!s) {
    if (o.json) printJson({ signedIn: false, api: base, configPath: path });
    throw authError(`not signed in to ${base}; run \`ideally login\` (config: ${path})`);
  }
  // The server's word: Users/Me with the session (refreshed first when near expiry, like every command).
  let server: "valid" | "ended" | "unreachable" = "valid";
  let detail: string | null = null;
  let client: { id: number; name: string; tier: string } | null = null;
  let email = s.email;
  try {
    const api = signedIn(o);
    const me = ok(await api.client.GET("/api/v1/Users/Me"), "reading the account");
    email = me.email;
    if (me.client && me.client.id === api.clientId) client = { id: me.client.id, name: me.client.name, tier: me.client.tier };
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    server = e.exitCode === 3 ? "ended" : "unreachable";
    detail = e.message;
  }
  const now = readConfig().session ?? s;
  const out = {
    signedIn: server !== "ended",
    api: now.api,
    email,
    userId: now.userId,
    clientId: o.client !== undefined ? Number(o.client) : now.clientId,
    clientName: client?.name ?? null,
    accessTokenExpiresAt: new Date(now.expiresAt).toISOString(),
    refreshable: now.refreshToken !== null,
    server,
    ...(detail ? { error: detail } : {}),
    configPath: path,
  };
  if (o.json) printJson(out);
  else
    process.stdout.write(
      `${summary([
        ["api", out.api],
        ["account", `${out.email} (user ${out.userId})`],
        ["client", out.clientId == null ? "none chosen (`ideally clients use`)" : `${out.clientId}${client ? ` ${client.name} (${client.tier})` : ""}`],
        ["access token", `expires ${relative(now.expiresAt - Date.now())} (${out.accessTokenExpiresAt.slice(0, 19).replace("T", " ")} UTC)`],
        ["refresh", out.refreshable ? "automatic" : "not possible: sign in again when it expires"],
        ["session", server === "valid" ? "accepted by the API" : server === "ended" ? "ended: run `ideally login`" : `not checked: ${detail}`],
        ["config", path],
      ])}\n`,
    );
  if (server === "ended") throw new CliError("the session has ended; run `ideally login`", 3);
}
