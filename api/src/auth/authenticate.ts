// The request's principal: a bearer access token, the clientId header (the tenant) and the
// requestscope header. Membership, role and session liveness are checked by the database when
// the request enters its tenant (db/tx.ts).
import type { Authenticate } from "../app-types.ts";
import { ApiError } from "../errors.ts";
import { TokenError, verifyAccessToken } from "./jwt.ts";

export function bearerAuthenticate(key: CryptoKey): Authenticate {
  return async (c) => {
    const h = c.req.header("authorization");
    if (!h || !h.startsWith("Bearer ")) throw new ApiError("Unauthorized", "Not signed in");
    let claims;
    try {
      claims = await verifyAccessToken(key, h.slice(7).trim());
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
