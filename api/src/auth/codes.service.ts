// The hand-over of a finished external sign-in (SAML, LinkedIn) to the web app: a random code,
// stored only as a hash, valid for a minute and once, bound to the web app's state. The browser
// carries it in a URL (the redirect to /auth/saml/login), so it must be worthless once used or
// late; the access token and refresh cookie come only from exchanging it (GET /auth/Saml/Code).
import { ApiError } from "../errors.ts";
import { startSession, type AuthDeps, type Issued } from "./auth.service.ts";
import { userById } from "./auth.sql.ts";
import * as q from "./codes.sql.ts";
import { randomToken, sha256Hex } from "./sso.ts";
import type { Db } from "../db/client.ts";

/** How long a code waits for the web app to exchange it. */
export const CODE_SECONDS = 60;

export async function issueCode(db: Db, c: { userId: number; method: "saml" | "oidc"; state: string; idpId: number | null }): Promise<string> {
  const code = randomToken();
  await q.insertCode(db, { codeHash: await sha256Hex(code), ...c, seconds: CODE_SECONDS });
  return code;
}

/** Exchanges a code for a login session, like a password sign-in. Failure is 422 AuthFailureDto. */
export async function exchangeCode(deps: AuthDeps, input: { code: string; state: string }, meta: { ip: string | null; userAgent: string | null }): Promise<Issued> {
  const fail = (why: string) => new ApiError("AuthFailureDto", "This sign-in has expired or was already used. Please sign in again.", why);
  const row = await q.takeCode(deps.db, await sha256Hex(input.code), input.state);
  if (!row) throw fail("unknown, expired or used code, or another state");
  // The account may have been disabled in the seconds since the identity provider vouched for it.
  const user = await userById(deps.db, row.userId);
  if (!user || user.disabled) throw fail("user disabled");
  return startSession(deps, user, row.method, meta);
}
