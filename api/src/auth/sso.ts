// What the external sign-ins (SAML single sign-on, LinkedIn) share: their configuration, the
// redirects back to the web app, and small crypto helpers. Both end the same way: the API issues
// a single-use code (codes.service.ts) and sends the browser to the web app's /auth/saml/login,
// which exchanges it through GET /auth/Saml/Code for an access token and the refresh cookie.
import type { Config } from "../config.ts";

export interface SamlSpConfig {
  /** Our entity id: the Issuer of our AuthnRequests and the Audience assertions must name. */
  entityId: string;
  /** PEM key and certificate to sign AuthnRequests with; unset sends them unsigned. */
  privateKey?: string;
  cert?: string;
}

export interface OidcClientConfig {
  clientId: string;
  clientSecret: string;
  /** The provider's issuer; its discovery document is at {issuer}/.well-known/openid-configuration. */
  issuer: string;
}

export interface SsoDeps {
  /**
   * Where users reach the product: the web app's /auth/saml/* pages, and (one origin, DESIGN.md)
   * the API's /auth/Saml/Acs and /auth/LinkedIn/Callback that identity providers return to.
   */
  publicUrl: string;
  saml: SamlSpConfig;
  /** LinkedIn's OpenID Connect client; null when not configured or switched off (LINKEDIN_DISABLED). */
  linkedIn: OidcClientConfig | null;
  /** For calls to the OpenID provider (discovery, token, JWKS); the global fetch by default. */
  fetch?: typeof fetch;
  /** Why a sign-in was refused, for the operator (the browser only gets a short reason code). */
  log?: (line: string) => void;
}

/** The SSO settings of a configuration (server.ts). */
export function ssoFromConfig(cfg: Config, log?: (line: string) => void): SsoDeps {
  return {
    publicUrl: cfg.publicUrl,
    saml: { entityId: cfg.samlSp.entityId, privateKey: cfg.samlSp.privateKey, cert: cfg.samlSp.cert },
    linkedIn: cfg.linkedIn,
    log,
  };
}

/** Defaults for apps wired without SSO settings (tests of other areas, contract generation). */
export function defaultSso(): SsoDeps {
  const publicUrl = "http://localhost:3000";
  return { publicUrl, saml: { entityId: `${publicUrl}/auth/Saml/Metadata` }, linkedIn: null };
}

/**
 * Why an external sign-in was refused: the `reason` of the web app's /auth/saml/error page.
 * Short and stable, so the page can word them; the details go to the operator's log only.
 */
export const SSO_REASONS = [
  "bad_request", // the request or response was missing or malformed
  "unknown_domain", // no identity provider for the email's domain
  "idp_disabled", // the client's identity provider is switched off
  "idp_not_configured", // the identity provider has no entry point or certificate yet
  "unsolicited", // a response we did not ask for (IdP-initiated sign-in is not supported)
  "unknown_request", // not in response to a sign-in we started, or that sign-in expired or was used
  "state_mismatch", // RelayState differs from the sign-in's state
  "invalid_signature", // not signed by the identity provider's key, or changed after signing
  "invalid_response", // not a usable SAML response or id_token
  "expired", // outside its validity window
  "wrong_audience", // addressed to another service provider or client
  "wrong_issuer", // issued by another identity provider
  "nonce_mismatch", // the id_token belongs to another sign-in
  "replayed", // this assertion was used already
  "idp_refused", // the identity provider answered with an error status
  "denied", // the user cancelled at the provider
  "provider_error", // the provider's endpoints failed
  "no_email", // the identity carries no (verified) email address
  "unknown_user", // no Ideally account with that email
  "user_disabled", // the account is disabled
  "domain_mismatch", // the email is outside the identity provider's domains
  "not_member", // the account is not a member of the identity provider's client
  "outside_client", // the account also belongs to clients the identity provider does not govern
  "staff_account", // provider staff sign in with their password only
  "linkedin_disabled", // LinkedIn sign-in is not configured or switched off
] as const;
export type SsoReason = (typeof SSO_REASONS)[number];

/** A refused external sign-in: the reason for the browser, the detail for the log. */
export class SsoRefusal extends Error {
  constructor(
    readonly reason: SsoReason,
    detail: string,
  ) {
    super(detail);
  }
}

export function errorRedirect(deps: SsoDeps, reason: SsoReason): string {
  return `${deps.publicUrl}/auth/saml/error?reason=${reason}`;
}

export function codeRedirect(deps: SsoDeps, code: string, state: string, redirectUri?: string | null): string {
  return `${redirectUri ?? `${deps.publicUrl}/auth/saml/login`}?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`;
}

/**
 * A native app's redirect: a loopback address with a port and a plain path (RFC 8252 7.3), never a
 * host name, so the code can only reach the machine the sign-in started on.
 */
export const LOOPBACK_REDIRECT = /^http:\/\/(127\.0\.0\.1|\[::1\]):\d{1,5}\/[A-Za-z0-9/_-]*$/;

/** Runs a flow step; a refusal (or any failure) becomes the error page's URL, logged with its detail. */
export async function redirectOnFailure(deps: SsoDeps, what: string, step: () => Promise<string>): Promise<string> {
  try {
    return await step();
  } catch (e) {
    const r = e instanceof SsoRefusal ? e : new SsoRefusal("provider_error", (e as Error).message);
    if (!(e instanceof SsoRefusal)) console.error(`[sso] ${what} failed`, e);
    deps.log?.(`[sso] ${what} refused (${r.reason}): ${r.message}`);
    return errorRedirect(deps, r.reason);
  }
}

/**
 * The web app's state, carried through the sign-in and back on the final redirect (it checks it
 * against what it stored, against login CSRF). URL-safe characters only, so it travels unchanged
 * as RelayState and in query strings.
 */
export const STATE_PATTERN = /^[A-Za-z0-9._~-]{8,200}$/;

export function randomToken(bytes = 32): string {
  return b64url(crypto.getRandomValues(new Uint8Array(bytes)));
}

export function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

export async function sha256Bytes(text: string): Promise<Uint8Array> {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
}

export async function sha256Hex(text: string): Promise<string> {
  return Array.from(await sha256Bytes(text), (b) => b.toString(16).padStart(2, "0")).join("");
}
