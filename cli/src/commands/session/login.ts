// `ideally login`: password sign-in (PasswordLogin) or SAML single sign-on in the browser (--sso);
// the session stored in the config file.
import type { ApiClient, Schemas } from "@ideally/contracts";
import { apiBase, readConfig } from "../../config.ts";
import { authError, usageError } from "../../errors.ts";
import { printJson } from "../../output.ts";
import { setRequestTimeout } from "../../net.ts";
import { ask, readStdin } from "../../prompt.ts";
import { anonymousClient, describeError, ok, refreshCookie, saveSession, signedIn, tokenExpiry, type GlobalOptions } from "../../session.ts";

export interface LoginOptions extends GlobalOptions {
  email?: string;
  passwordStdin?: boolean;
  sso?: boolean;
  browser?: boolean;
  timeout?: string;
}

export async function runLogin(o: LoginOptions): Promise<void> {
  // Without --sso, --timeout is the request timeout, as on the other commands.
  if (!o.sso) setRequestTimeout(o.timeout);
  const cfg = readConfig();
  const base = apiBase(o.api, { ...cfg, session: undefined });
  const email = o.email ?? process.env.IDEALLY_EMAIL ?? (await ask("Email: "));
  if (!email.includes("@")) throw usageError(`'${email}' is not an email address`);
  const anon = anonymousClient(base);
  const signed = o.sso ? await ssoSignIn(anon, base, email, o) : await passwordSignIn(anon, email, o);
  const accessToken = signed.accessToken;
  // Who we are, and the client to act for: the one chosen before on this API, else the default.
  const me: Schemas["UserMe"] = ok(await anon.GET("/api/v1/Users/Me", { headers: { Authorization: `Bearer ${accessToken}` } }), "reading the account");
  const kept = cfg.session && cfg.session.api === base && cfg.session.email === email ? cfg.session.clientId : null;
  saveSession(
    {
      api: base,
      email: me.email,
      userId: me.id,
      accessToken,
      expiresAt: tokenExpiry(accessToken),
      refreshToken: refreshCookie(signed.response),
      clientId: kept ?? me.defaultClientId ?? null,
    },
    { ...cfg, api: base },
  );
  const s = signedIn({ api: base });
  if (o.json) printJson({ email: me.email, userId: me.id, api: base, clientId: s.clientId });
  else process.stdout.write(`Signed in to ${base} as ${me.email}${s.clientId != null ? ` (client ${s.clientId})` : ""}\n`);
}

type Signed = { accessToken: string; response: Response };

async function passwordSignIn(anon: ApiClient, email: string, o: LoginOptions): Promise<Signed> {
  const password = o.passwordStdin ? await readStdin() : process.env.IDEALLY_PASSWORD || (await ask("Password: ", true));
  if (password === "") throw usageError("the password is empty");
  const r = await anon.POST("/auth/Login/PasswordLogin", { body: { email, password } });
  if (!r.response.ok || !r.data) {
    const status = r.response.status;
    if (status === 401) throw authError("email or password is incorrect");
    if (status === 403) throw authError(`this account must choose a new password first (sign in on the web once): ${describeError(r.error, r.response)}`);
    if (status === 429) throw authError(`too many attempts; try again in ${r.response.headers.get("retry-after") ?? "a few"} seconds`);
    throw authError(`signing in: ${describeError(r.error, r.response)}`);
  }
  return { accessToken: r.data.accessToken, response: r.response };
}

/**
 * SAML single sign-on in the browser (RFC 8252's loopback redirect): a one-shot server on
 * 127.0.0.1 receives the code the API's ACS sends there, which is exchanged (Saml Code) for the
 * access token and the refresh cookie, as the web app does.
 */
async function ssoSignIn(anon: ApiClient, base: string, email: string, o: LoginOptions): Promise<Signed> {
  const seconds = Number(o.timeout ?? 300);
  if (!Number.isFinite(seconds) || seconds <= 0) throw usageError(`--timeout: expected seconds, got '${o.timeout}'`);
  const state = Buffer.from(crypto.getRandomValues(new Uint8Array(24))).toString("base64url");
  let got: (v: { code: string }) => void = () => {};
  const arrived = new Promise<{ code: string }>((resolve) => (got = resolve));
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const u = new URL(req.url);
      if (u.pathname !== "/callback") return new Response("Not found", { status: 404 });
      const code = u.searchParams.get("code");
      // Only the sign-in this process started: its state, unguessable.
      if (!code || u.searchParams.get("state") !== state) return new Response("This sign-in is not the one the ideally CLI is waiting for.", { status: 400 });
      got({ code });
      return new Response("<!doctype html><title>Signed in</title><p>Signed in to the ideally CLI. You can close this tab.</p>", { headers: { "content-type": "text/html; charset=utf-8" } });
    },
  });
  try {
    const url = new URL("/auth/Saml/Login", `${base}/`);
    url.search = new URLSearchParams({ email, state, redirectUri: `http://127.0.0.1:${server.port}/callback` }).toString();
    process.stderr.write(`Sign in with your organisation in the browser:\n  ${url}\n`);
    if (o.browser !== false) openBrowser(url.toString());
    let timeout: ReturnType<typeof setTimeout> | undefined;
    const timer = new Promise<never>((_, reject) => {
      timeout = setTimeout(() => reject(authError(`no sign-in arrived within ${seconds} s (a refused sign-in ends on the web app's error page)`)), seconds * 1000);
    });
    const { code } = await Promise.race([arrived, timer]).finally(() => clearTimeout(timeout));
    const r = await anon.GET("/auth/Saml/Code", { params: { query: { code, state } } });
    if (!r.response.ok || !r.data) throw authError(`single sign-on: ${describeError(r.error, r.response)}`);
    return { accessToken: r.data.accessToken, response: r.response };
  } finally {
    server.stop(true);
  }
}

/** The desktop's browser, when there is one (xdg-open, open); otherwise the printed URL serves. */
function openBrowser(url: string): void {
  const cmd = process.env.BROWSER || (process.platform === "darwin" ? "open" : "xdg-open");
  if (!Bun.which(cmd)) return;
  try {
    Bun.spawn([cmd, url], { stdout: "ignore", stderr: "ignore", stdin: "ignore" }).unref();
  } catch {
    /* the URL is printed */
  }
}
