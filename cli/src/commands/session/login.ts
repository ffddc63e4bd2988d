// `ideally login`: password sign-in (PasswordLogin), the session stored in the config file.
import type { Schemas } from "../../../../contracts/client.ts";
import { apiBase, readConfig } from "../../config.ts";
import { authError, usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { ask, readStdin } from "../../prompt.ts";
import { anonymousClient, describeError, ok, refreshCookie, saveSession, signedIn, tokenExpiry, type GlobalOptions } from "../../session.ts";

export interface LoginOptions extends GlobalOptions {
  email?: string;
  passwordStdin?: boolean;
}

export async function runLogin(o: LoginOptions): Promise<void> {
  const cfg = readConfig();
  const base = apiBase(o.api, { ...cfg, session: undefined });
  const email = o.email ?? process.env.IDEALLY_EMAIL ?? (await ask("Email: "));
  if (!email.includes("@")) throw usageError(`'${email}' is not an email address`);
  const password = o.passwordStdin ? await readStdin() : (process.env.IDEALLY_PASSWORD ?? (await ask("Password: ", true)));
  if (password === "") throw usageError("the password is empty");

  const anon = anonymousClient(base);
  const r = await anon.POST("/auth/Login/PasswordLogin", { body: { email, password } });
  if (!r.response.ok || !r.data) {
    const status = r.response.status;
    if (status === 401) throw authError("email or password is incorrect");
    if (status === 403) throw authError(`this account must choose a new password first (sign in on the web once): ${describeError(r.error, r.response)}`);
    if (status === 429) throw authError(`too many attempts; try again in ${r.response.headers.get("retry-after") ?? "a few"} seconds`);
    throw authError(`signing in: ${describeError(r.error, r.response)}`);
  }
  const accessToken = r.data.accessToken;
  // Who we are, and the client to act for: the one chosen before on this API, else the default.
  const me: Schemas["UserMe"] = ok(
    await anon.GET("/api/v1/Users/Me", { headers: { Authorization: `Bearer ${accessToken}` } }),
    "reading the account",
  );
  const kept = cfg.session && cfg.session.api === base && cfg.session.email === email ? cfg.session.clientId : null;
  saveSession(
    {
      api: base,
      email: me.email,
      userId: me.id,
      accessToken,
      expiresAt: tokenExpiry(accessToken),
      refreshToken: refreshCookie(r.response),
      clientId: kept ?? me.defaultClientId ?? null,
    },
    { ...cfg, api: base },
  );
  const s = signedIn({ api: base });
  if (o.json) printJson({ email: me.email, userId: me.id, api: base, clientId: s.clientId });
  else process.stdout.write(`Signed in to ${base} as ${me.email}${s.clientId != null ? ` (client ${s.clientId})` : ""}\n`);
}
