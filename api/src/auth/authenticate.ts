// The request's principal: a bearer access token, the clientId header (the tenant) and the
// requestscope header. Membership, role and session liveness are checked by the database when
// the request enters its tenant (db/tx.ts).
import type { Authenticate } from "../app-types.ts";
import { ApiError } from "../errors.ts";
import { TokenError, verifyAccessToken, type AccessClaims } from "./jwt.ts";

/** How many verified tokens a process remembers (the newest; a token lives 15 minutes). */
export const VERIFIED_TOKENS_KEPT = 10_000;

/**
 * Tokens whose signature this key already verified, with their claims. The signature of a given
 * token string under a given key never changes, so the HMAC is checked once per token, not once
 * per request (a request is a few hundred microseconds; the WebCrypto verify was 30 of them).
 * Expiry is checked on every use; revocation is not the token's business: the login session is
 * checked by the database on every request (app_enter).
 */
export function verifiedTokens(key: CryptoKey, kept = VERIFIED_TOKENS_KEPT) {
  const seen = new Map<string, AccessClaims>();
  return async (token: string, now = Date.now()): Promise<AccessClaims> => {
    const hit = seen.get(token);
    if (hit) {
      if (hit.exp * 1000 > now) return hit;
      seen.delete(token);
    }
    const claims = await verifyAccessToken(key, token, now);
    if (seen.size >= kept) seen.delete(seen.keys().next().value!);
    seen.set(token, claims);
    return claims;
  };
}

export function bearerAuthenticate(key: CryptoKey): Authenticate {
  const verify = verifiedTokens(key);
  return async (c) => {
    const h = c.req.header("authorization");
    if (!h?.startsWith("Bearer ")) throw new ApiError("Unauthorized", "Not signed in");
    let claims: Awaited<ReturnType<typeof verify>>;
    try {
      claims = await verify(h.slice(7).trim());
    } catch (e) {
      throw new ApiError("Unauthorized", "Not signed in", e instanceof TokenError && e.reason === "expired" ? "access token expired" : undefined);
    }
    const userId = Number(claims.sub);
    if (!Number.isSafeInteger(userId)) throw new ApiError("Unauthorized", "Not signed in");
    const header = c.req.header("clientId");
    if (header !== undefined && header !== "" && !/^\d{1,9}$/.test(header)) {
      throw new ApiError("BadRequest", "The clientId header must be a client id (a number)");
    }
    const scope = c.req.header("requestscope") ?? "client";
    if (scope !== "client" && scope !== "descendants") {
      throw new ApiError("BadRequest", "The requestscope header must be 'client' or 'descendants'");
    }
    return {
      principal: { userId, isStaff: claims.staff === true, isSuperAdmin: claims.sa === true },
      clientId: header ? Number(header) : null,
      descendants: scope === "descendants",
      sessionId: claims.sid,
    };
  };
}
