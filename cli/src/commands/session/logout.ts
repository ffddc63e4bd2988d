// `ideally logout`: ends the login session on the server (Logout) and forgets it locally.
import { clearSession, readConfig } from "../../config.ts";
import { printJson } from "../../output.ts";
import { anonymousClient, REFRESH_COOKIE, type GlobalOptions } from "../../session.ts";

export async function runLogout(o: GlobalOptions): Promise<void> {
  const s = readConfig().session;
  let server = false;
  if (s) {
    // Logout accepts an expired access token (it still names its session) and the refresh cookie.
    const headers: Record<string, string> = { Authorization: `Bearer ${s.accessToken}` };
    if (s.refreshToken) headers.cookie = `${REFRESH_COOKIE}=${encodeURIComponent(s.refreshToken)}`;
    try {
      server = (await anonymousClient(s.api).POST("/auth/Login/Logout", { headers })).response.ok;
    } catch {
      // Unreachable server: the local session is still removed; say so below.
    }
    clearSession();
  }
  if (o.json) printJson({ signedOut: Boolean(s), serverSessionEnded: server });
  else if (!s) process.stdout.write("Not signed in\n");
  else process.stdout.write(server ? `Signed out of ${s.api}\n` : `Signed out locally (${s.api} could not be told)\n`);
}
