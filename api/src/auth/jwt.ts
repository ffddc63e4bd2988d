// Access tokens: compact JWS, HS256 only (the algorithm is allow-listed, never read from the
// token to choose a key), issuer and audience checked, short expiry. WebCrypto only, so the same
// code verifies tokens under Bun and Deno.

export const ISSUER = "ideally";
export const AUDIENCE = "ideally-api";
/** Access-token lifetime. The web app refreshes in the background within 10 minutes of expiry. */
export const ACCESS_TOKEN_SECONDS = 15 * 60;

export interface AccessClaims {
  /** User id. */
  sub: string;
  /** Refresh-token family (the login session) the token was issued under. */
  sid: string;
  iss: string;
  aud: string;
  iat: number;
  exp: number;
  /** Provider staff / super admin, fixed for the token's short life. */
  staff?: boolean;
  sa?: boolean;
}

const enc = new TextEncoder();

function b64url(bytes: Uint8Array): string {
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function unb64url(s: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(s)) throw new Error("bad base64url");
  const pad = s.length % 4 === 2 ? "==" : s.length % 4 === 3 ? "=" : "";
  const bin = atob(s.replace(/-/g, "+").replace(/_/g, "/") + pad);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

export async function hmacKey(secret: string): Promise<CryptoKey> {
  return crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
}

const HEADER = b64url(enc.encode(JSON.stringify({ alg: "HS256", typ: "JWT" })));

export async function signAccessToken(key: CryptoKey, claims: Omit<AccessClaims, "iss" | "aud" | "iat" | "exp">, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const payload: AccessClaims = { ...claims, iss: ISSUER, aud: AUDIENCE, iat, exp: iat + ACCESS_TOKEN_SECONDS };
  const body = `${HEADER}.${b64url(enc.encode(JSON.stringify(payload)))}`;
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(body)));
  return `${body}.${b64url(sig)}`;
}

export type VerifyFailure = "malformed" | "algorithm" | "signature" | "expired" | "claims";

export class TokenError extends Error {
  constructor(readonly reason: VerifyFailure) {
    super(`access token rejected: ${reason}`);
  }
}

export async function verifyAccessToken(key: CryptoKey, token: string, now = Date.now(), opts: { allowExpired?: boolean } = {}): Promise<AccessClaims> {
  const parts = token.split(".");
  if (parts.length !== 3) throw new TokenError("malformed");
  const [h, p, s] = parts as [string, string, string];
  let header: { alg?: unknown; typ?: unknown };
  let claims: AccessClaims;
  let sig: Uint8Array;
  try {
    header = JSON.parse(new TextDecoder().decode(unb64url(h)));
    claims = JSON.parse(new TextDecoder().decode(unb64url(p)));
    sig = unb64url(s);
  } catch {
    throw new TokenError("malformed");
  }
  // Allow-list: only HS256. `none` and every asymmetric algorithm are refused before any check.
  if (header.alg !== "HS256") throw new TokenError("algorithm");
  const ok = await crypto.subtle.verify("HMAC", key, sig as BufferSource, enc.encode(`${h}.${p}`));
  if (!ok) throw new TokenError("signature");
  if (claims.iss !== ISSUER || claims.aud !== AUDIENCE || typeof claims.sub !== "string" || typeof claims.exp !== "number") {
    throw new TokenError("claims");
  }
  if (claims.exp * 1000 <= now && !opts.allowExpired) throw new TokenError("expired");
  return claims;
}
