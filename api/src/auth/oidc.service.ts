// LinkedIn sign-in through OpenID Connect: the authorization-code flow with state, nonce and PKCE
// (S256), the id_token verified against the provider's discovery document and JWKS (RS256 only),
// and the same hand-over to the web app as SAML (a single-use code, codes.service.ts). Accounts
// are matched by the provider's verified email; none are created here.
import { createRemoteJWKSet, customFetch, jwtVerify, type JWTPayload } from "jose";
import type { Db } from "../db/client.ts";
import { userByEmail } from "./auth.sql.ts";
import { issueCode } from "./codes.service.ts";
import * as q from "./oidc.sql.ts";
import { SsoRefusal, b64url, codeRedirect, randomToken, sha256Bytes, sha256Hex, type OidcClientConfig, type SsoDeps, type SsoReason } from "./sso.ts";

/** How long a user may take at the provider before the sign-in lapses. */
export const REQUEST_SECONDS = 10 * 60;
/** Clock difference tolerated between the provider and us (exp, iat, nbf). */
const CLOCK_TOLERANCE_SECONDS = 60;
/** Provider calls are on the sign-in's critical path: fail fast rather than hang the browser. */
const FETCH_TIMEOUT_MS = 10_000;

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  jwks_uri: string;
}

/** One OpenID provider with its discovery document and key set, fetched at first use and cached. */
export interface OidcProvider {
  name: "linkedin";
  config: OidcClientConfig;
  fetch: typeof fetch;
  discovery(): Promise<Discovery>;
  keys(): Promise<ReturnType<typeof createRemoteJWKSet>>;
}

function httpUrl(v: unknown): v is string {
  return typeof v === "string" && /^https?:\/\/[^/]/.test(v);
}

async function fetchDiscovery(config: OidcClientConfig, fetchImpl: typeof fetch): Promise<Discovery> {
  const res = await fetchImpl(`${config.issuer}/.well-known/openid-configuration`, {
    headers: { accept: "application/json" },
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (!res.ok) throw new SsoRefusal("provider_error", `discovery document answered ${res.status}`);
  const d = (await res.json()) as Partial<Discovery>;
  // OpenID Connect Discovery 1.0 §4.3: the document must name the issuer it was fetched for.
  if (d.issuer !== config.issuer) throw new SsoRefusal("provider_error", `discovery names issuer ${d.issuer}, expected ${config.issuer}`);
  if (!httpUrl(d.authorization_endpoint) || !httpUrl(d.token_endpoint) || !httpUrl(d.jwks_uri)) {
    throw new SsoRefusal("provider_error", "discovery document lacks an authorization, token or jwks endpoint");
  }
  return d as Discovery;
}

export function oidcProvider(name: "linkedin", config: OidcClientConfig, fetchImpl: typeof fetch = fetch): OidcProvider {
  let discovered: Promise<Discovery> | undefined;
  let keys: ReturnType<typeof createRemoteJWKSet> | undefined;
  const provider: OidcProvider = {
    name,
    config,
    fetch: fetchImpl,
    discovery() {
      // A failed fetch is not cached: the next sign-in tries again.
      discovered ??= fetchDiscovery(config, fetchImpl).catch((e) => {
        discovered = undefined;
        throw e;
      });
      return discovered;
    },
    async keys() {
      // jose caches the set and refetches it (rate-limited) when a token names an unknown key id.
      keys ??= createRemoteJWKSet(new URL((await provider.discovery()).jwks_uri), {
        timeoutDuration: FETCH_TIMEOUT_MS,
        [customFetch]: (url, opts) => fetchImpl(url, opts as RequestInit),
      });
      return keys;
    },
  };
  return provider;
}

async function discoveryOf(provider: OidcProvider): Promise<Discovery> {
  try {
    return await provider.discovery();
  } catch (e) {
    throw e instanceof SsoRefusal ? e : new SsoRefusal("provider_error", `discovery: ${(e as Error).message}`);
  }
}

export function callbackUrl(deps: SsoDeps): string {
  return `${deps.publicUrl}/auth/LinkedIn/Callback`;
}

/** Starts a sign-in: the provider's authorization URL with our state, nonce and PKCE challenge. */
export async function oidcLogin(db: Db, deps: SsoDeps, provider: OidcProvider | null, input: { state: string }): Promise<string> {
  if (!provider) throw new SsoRefusal("linkedin_disabled", "LinkedIn sign-in is not configured or is switched off");
  const d = await discoveryOf(provider);
  // Our own state towards the provider (the web app's state never leaves our hands): it finds
  // the sign-in again at the callback, and only its hash is stored.
  const state = randomToken();
  const nonce = randomToken();
  const codeVerifier = randomToken(32); // 43 characters, RFC 7636 §4.1
  await q.saveRequest(db, await sha256Hex(state), { provider: provider.name, webState: input.state, nonce, codeVerifier }, REQUEST_SECONDS);
  const url = new URL(d.authorization_endpoint);
  url.searchParams.set("response_type", "code");
  url.searchParams.set("client_id", provider.config.clientId);
  url.searchParams.set("redirect_uri", callbackUrl(deps));
  url.searchParams.set("scope", "openid profile email");
  url.searchParams.set("state", state);
  url.searchParams.set("nonce", nonce);
  url.searchParams.set("code_challenge", b64url(await sha256Bytes(codeVerifier)));
  url.searchParams.set("code_challenge_method", "S256");
  return url.toString();
}

/** jose's refusals as reason codes. */
function reasonOf(e: unknown): SsoReason {
  const err = e as { code?: string; claim?: string };
  switch (err.code) {
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JOSE_ALG_NOT_ALLOWED":
      return "invalid_signature";
    case "ERR_JWT_EXPIRED":
      return "expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      return err.claim === "aud" ? "wrong_audience" : err.claim === "iss" ? "wrong_issuer" : err.claim === "nbf" || err.claim === "iat" ? "expired" : "invalid_response";
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JOSE_GENERIC":
      return "provider_error";
  }
  return "invalid_response";
}

async function redeem(provider: OidcProvider, d: Discovery, deps: SsoDeps, code: string, codeVerifier: string): Promise<string> {
  let res: Response;
  try {
    res = await provider.fetch(d.token_endpoint, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
      // client_secret_post: how LinkedIn takes the client's credentials.
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: callbackUrl(deps),
        client_id: provider.config.clientId,
        client_secret: provider.config.clientSecret,
        code_verifier: codeVerifier,
      }),
      signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    });
  } catch (e) {
    throw new SsoRefusal("provider_error", `token endpoint: ${(e as Error).message}`);
  }
  if (!res.ok) throw new SsoRefusal("provider_error", `token endpoint answered ${res.status}: ${(await res.text()).slice(0, 200)}`);
  const body = (await res.json().catch(() => ({}))) as { id_token?: unknown };
  if (typeof body.id_token !== "string") throw new SsoRefusal("provider_error", "token response without an id_token");
  return body.id_token;
}

async function verifyIdToken(provider: OidcProvider, d: Discovery, idToken: string, nonce: string): Promise<JWTPayload> {
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, await provider.keys(), {
      issuer: d.issuer,
      audience: provider.config.clientId,
      // Allow-listed: never the algorithm the token names for itself (no `none`, no HS256 keyed
      // with the public key).
      algorithms: ["RS256"],
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
      requiredClaims: ["sub", "iat", "exp"],
    }));
  } catch (e) {
    if (e instanceof SsoRefusal) throw e;
    throw new SsoRefusal(reasonOf(e), `id_token: ${(e as Error).message}`);
  }
  // OpenID Connect Core §3.1.3.7: with several audiences, azp must name us.
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== provider.config.clientId) {
    throw new SsoRefusal("wrong_audience", `id_token azp ${String(payload.azp)}`);
  }
  if (payload.nonce !== nonce) throw new SsoRefusal("nonce_mismatch", "id_token nonce differs from the sign-in's");
  return payload;
}

/**
 * The provider's redirect back: takes the sign-in by its state (once), redeems the code with the
 * PKCE verifier, verifies the id_token, and answers the web app's URL with a single-use code.
 */
export async function oidcCallback(db: Db, deps: SsoDeps, provider: OidcProvider | null, query: { code?: string; state?: string; error?: string }): Promise<string> {
  if (!provider) throw new SsoRefusal("linkedin_disabled", "LinkedIn sign-in is not configured or is switched off");
  if (!query.state) throw new SsoRefusal("bad_request", "callback without state");
  const req = await q.takeRequest(db, await sha256Hex(query.state));
  if (!req || req.provider !== provider.name) throw new SsoRefusal("unknown_request", "unknown, used or expired state");
  if (query.error) throw new SsoRefusal(query.error === "access_denied" ? "denied" : "provider_error", `provider error ${query.error}`);
  if (!query.code) throw new SsoRefusal("bad_request", "callback without code");

  const d = await discoveryOf(provider);
  const idToken = await redeem(provider, d, deps, query.code, req.codeVerifier);
  const claims = await verifyIdToken(provider, d, idToken, req.nonce);

  // Only an address the provider says it verified identifies an account.
  const verified = claims.email_verified === true || claims.email_verified === "true";
  if (typeof claims.email !== "string" || !verified) throw new SsoRefusal("no_email", "id_token without a verified email");
  const user = await userByEmail(db, claims.email);
  if (!user) throw new SsoRefusal("unknown_user", `no account for ${claims.email}`);
  if (user.disabled) throw new SsoRefusal("user_disabled", `${claims.email} is disabled`);
  if (user.isStaff) throw new SsoRefusal("staff_account", `${claims.email} is provider staff`);
  const code = await issueCode(db, { userId: user.id, method: "oidc", state: req.webState, idpId: null });
  return codeRedirect(deps, code, req.webState);
}
