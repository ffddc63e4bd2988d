// SQL of OpenID Connect sign-ins under way (oidc_requests). Runs as the table owner: nobody is
// signed in yet.
import type { Db, Tx } from "../db/client.ts";

type Sql = Db | Tx;

export interface OidcRequest {
  provider: "linkedin";
  webState: string;
  nonce: string;
  codeVerifier: string;
}

export async function saveRequest(db: Sql, stateHash: string, r: OidcRequest, seconds: number): Promise<void> {
  // Expired sign-ins go with each new one: the table holds only sign-ins in flight.
  await db`delete from oidc_requests where expires_at < now()`;
  await db`
    insert into oidc_requests (state_hash, provider, web_state, nonce, code_verifier, expires_at)
    values (${stateHash}, ${r.provider}, ${r.webState}, ${r.nonce}, ${r.codeVerifier}, now() + make_interval(secs => ${seconds}))`;
}

/** Takes a sign-in by its state: once only (deleted as it is read), and only before it expires. */
export async function takeRequest(db: Sql, stateHash: string): Promise<OidcRequest | undefined> {
  const [r] = await db<(OidcRequest & { expired: boolean })[]>`
    delete from oidc_requests where state_hash = ${stateHash}
    returning provider, web_state as "webState", nonce, code_verifier as "codeVerifier", (expires_at <= now()) as expired`;
  if (!r || r.expired) return undefined;
  const { expired: _expired, ...req } = r;
  return req;
}
