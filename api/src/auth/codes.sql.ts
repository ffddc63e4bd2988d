// SQL of the single-use sign-in codes (sso_codes). Runs as the table owner: nobody is signed in yet.
import type { Db, Tx } from "../db/client.ts";

type Sql = Db | Tx;

export async function insertCode(db: Sql, c: { codeHash: string; userId: number; method: "saml" | "oidc"; state: string; idpId: number | null; seconds: number }): Promise<void> {
  // Expired codes go with each new one: the table stays as small as the codes in flight.
  await db`delete from sso_codes where expires_at < now() - interval '1 hour'`;
  await db`
    insert into sso_codes (code_hash, user_id, method, state, idp_id, expires_at)
    values (${c.codeHash}, ${c.userId}, ${c.method}, ${c.state}, ${c.idpId}, now() + make_interval(secs => ${c.seconds}))`;
}

/**
 * Uses a code: one statement, so of two concurrent exchanges only one gets the row. A code is
 * found only with the state it was issued for, unused and unexpired.
 */
export async function takeCode(db: Sql, codeHash: string, state: string): Promise<{ userId: number; method: "saml" | "oidc" } | undefined> {
  const [r] = await db<{ userId: number; method: "saml" | "oidc" }[]>`
    update sso_codes set used_at = now()
    where code_hash = ${codeHash} and state = ${state} and used_at is null and expires_at > now()
    returning user_id as "userId", method`;
  return r;
}
