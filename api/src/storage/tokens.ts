// Signed, expiring tokens of the local-disk store's URLs (/api/files/upload?token=...,
// /api/files/download?token=...). HMAC-SHA256 over the base64url JSON claims; the purpose ("put"
// or "get") is signed, and the message carries the prefix "file." so a token of another kind made
// with the same key (access tokens, websocket tickets) never passes as one of these.
export interface PutClaims {
  p: "put";
  /** Storage key. */
  k: string;
  /** Content type the body must have. */
  t: string;
  /** Largest body accepted, bytes. */
  m: number;
  /** Expiry, seconds since the epoch. */
  exp: number;
}

export interface GetClaims {
  p: "get";
  k: string;
  t?: string;
  /** The name the browser saves the file as. */
  n?: string;
  exp: number;
}

export type FileClaims = PutClaims | GetClaims;

export type TokenProblem = "invalid" | "expired" | "wrong-purpose";

const enc = new TextEncoder();
const b64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
const unb64 = (s: string) => Uint8Array.from(atob(s.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));

export async function signFileToken(key: CryptoKey, claims: FileClaims): Promise<string> {
  const body = b64(enc.encode(JSON.stringify(claims)));
  const sig = new Uint8Array(await crypto.subtle.sign("HMAC", key, enc.encode(`file.${body}`)));
  return `${body}.${b64(sig)}`;
}

/** The claims of a valid, unexpired token of the purpose, or what is wrong with it. */
export async function verifyFileToken<P extends FileClaims["p"]>(
  key: CryptoKey,
  token: string,
  purpose: P,
  now = Date.now(),
): Promise<{ ok: true; claims: Extract<FileClaims, { p: P }> } | { ok: false; problem: TokenProblem }> {
  const parts = token.split(".");
  if (parts.length !== 2 || !parts[0] || !parts[1] || !/^[A-Za-z0-9_-]+$/.test(parts[0] + parts[1])) return { ok: false, problem: "invalid" };
  try {
    const valid = await crypto.subtle.verify("HMAC", key, unb64(parts[1]) as BufferSource, enc.encode(`file.${parts[0]}`));
    if (!valid) return { ok: false, problem: "invalid" };
    const claims = JSON.parse(new TextDecoder().decode(unb64(parts[0]))) as FileClaims;
    if (claims.p !== purpose) return { ok: false, problem: "wrong-purpose" };
    if (typeof claims.exp !== "number" || claims.exp * 1000 <= now) return { ok: false, problem: "expired" };
    return { ok: true, claims: claims as Extract<FileClaims, { p: P }> };
  } catch {
    return { ok: false, problem: "invalid" };
  }
}
