// Single-use tokens sent by email (password reset, team invite, share-link registration). The
// token is 256 random bits; the database keeps only its SHA-256, so a copy of the database (or
// of the outbox, which redacts them when SMTP delivers) never yields a working link.
import type { Db, Tx } from "../db/client.ts";
import { ApiError } from "../errors.ts";
import * as q from "./account.sql.ts";
import type { TokenPurpose } from "./account.sql.ts";

export type { TokenPurpose };

/** How long each kind of token lives, in seconds. */
export const TOKEN_TTL: Record<TokenPurpose, number> = {
  PasswordReset: 60 * 60,
  TeamInvite: 7 * 24 * 3600,
  RegistrationEmail: 24 * 3600,
};

export function newToken(): string {
  const b = crypto.getRandomValues(new Uint8Array(32));
  return btoa(String.fromCharCode(...b))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

export async function hashToken(token: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(token)));
  return Array.from(d, (b) => b.toString(16).padStart(2, "0")).join("");
}

export interface NewToken {
  purpose: TokenPurpose;
  userId: number | null;
  email: string;
  clientId?: number | null;
  linkInviteId?: number | null;
  createdByUserId?: number | null;
}

/**
 * Stores a fresh token (its hash) and returns the token itself, which only the email carries.
 * Runs as the owner for the signed-out flows, or in an Admin's tenant transaction for team
 * invites (row-level security lets it write its own client's invite tokens only).
 */
export async function issueToken(sql: Db | Tx, t: NewToken): Promise<string> {
  const token = newToken();
  await q.insertToken(sql, {
    hash: await hashToken(token),
    purpose: t.purpose,
    userId: t.userId,
    email: t.email,
    clientId: t.clientId ?? null,
    linkInviteId: t.linkInviteId ?? null,
    createdByUserId: t.createdByUserId ?? null,
    ttlSeconds: TOKEN_TTL[t.purpose],
  });
  return token;
}

export { revokeTokens } from "./account.sql.ts";

export type TokenProblem = "invalid" | "used" | "replaced" | "expired";

/** Why a token cannot be used, or null when it can. */
export function tokenProblem(row: q.TokenRow | undefined, purposes: readonly TokenPurpose[]): TokenProblem | null {
  if (!row || !purposes.includes(row.purpose)) return "invalid";
  if (row.usedAt) return "used";
  if (row.revokedAt) return "replaced";
  if (row.expired) return "expired";
  return null;
}

/**
 * 400 with a message the page can show. Telling used from expired from replaced helps the person
 * (ask for a new link, or use the latest email) and tells nothing to someone without the token.
 */
export function tokenError(p: TokenProblem): ApiError {
  switch (p) {
    case "used":
      return new ApiError("BadRequest", "This link has already been used.", "token_used");
    case "replaced":
      return new ApiError("BadRequest", "This link was replaced by a newer one: use the link in the latest email.", "token_replaced");
    case "expired":
      return new ApiError("BadRequest", "This link has expired. Ask for a new one.", "token_expired");
    default:
      return new ApiError("BadRequest", "This link is not valid. Ask for a new one.", "token_invalid");
  }
}
