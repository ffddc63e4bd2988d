// SQL of SAML single sign-on. Two kinds: the security page's writes (CreateSaml, UpdateSaml), which
// run in the admin's tenant transaction (row-level security binds), and the sign-in flow's reads
// and writes, which run as the table owner outside any tenant: nobody is signed in yet.
import type { Db, Tx } from "../db/client.ts";

type Sql = Db | Tx;

export interface IdpRow {
  id: number;
  clientId: number;
  providerName: string;
  providerType: string;
  metadataUrl: string | null;
  entryPoint: string | null;
  idpIssuer: string | null;
  idpCerts: string[];
  wantAuthnRequestsSigned: boolean;
  emailDomains: string[];
  /** The claimed domains the IdP's client (or a client above it) owns: the ones sign-in routes by. */
  verifiedEmailDomains: string[];
  isEnabled: boolean;
  createdAt: Date;
  updatedAt: Date | null;
}

const columns = (sql: Sql) => sql`
  id, client_id as "clientId", provider_name as "providerName", provider_type as "providerType",
  metadata_url as "metadataUrl", entry_point as "entryPoint", idp_issuer as "idpIssuer", idp_certs as "idpCerts",
  want_authn_requests_signed as "wantAuthnRequestsSigned", email_domains as "emailDomains",
  idp_verified_domains(client_id, email_domains) as "verifiedEmailDomains",
  is_enabled as "isEnabled", created_at as "createdAt", updated_at as "updatedAt"`;

// ---- the security page (tenant transaction) ----

export interface IdpWrite {
  providerName: string;
  metadataXml: string | null;
  entryPoint: string;
  idpIssuer: string;
  idpCerts: string[];
  wantAuthnRequestsSigned: boolean;
  emailDomains: string[];
  isEnabled: boolean;
}

export async function insertIdp(tx: Tx, clientId: number, w: IdpWrite): Promise<IdpRow> {
  const [r] = await tx<IdpRow[]>`
    insert into cognito_idps (client_id, provider_name, provider_type, metadata_xml, entry_point, idp_issuer, idp_certs,
                              want_authn_requests_signed, email_domains, is_enabled)
    values (${clientId}, ${w.providerName}, 'SAML', ${w.metadataXml}, ${w.entryPoint}, ${w.idpIssuer}, ${tx.json(w.idpCerts)},
            ${w.wantAuthnRequestsSigned}, ${tx.json(w.emailDomains)}, ${w.isEnabled})
    returning ${columns(tx)}`;
  return r!;
}

export type IdpPatch = Partial<Omit<IdpWrite, "providerName">>;

/** Updates a SAML IdP of the request's clients; undefined when there is none with that id. */
export async function updateIdp(tx: Tx, id: number, p: IdpPatch): Promise<IdpRow | undefined> {
  const set: Record<string, unknown> = {};
  if (p.metadataXml !== undefined) set.metadata_xml = p.metadataXml;
  if (p.entryPoint !== undefined) set.entry_point = p.entryPoint;
  if (p.idpIssuer !== undefined) set.idp_issuer = p.idpIssuer;
  if (p.idpCerts !== undefined) set.idp_certs = tx.json(p.idpCerts);
  if (p.wantAuthnRequestsSigned !== undefined) set.want_authn_requests_signed = p.wantAuthnRequestsSigned;
  if (p.emailDomains !== undefined) set.email_domains = tx.json(p.emailDomains);
  if (p.isEnabled !== undefined) set.is_enabled = p.isEnabled;
  // The tenant scope is written out as well as enforced by row-level security (decisions.md).
  const scope = tx`(app_all_clients() or client_id = any(app_client_ids())) and provider_type = 'SAML'`;
  const [r] = Object.keys(set).length
    ? await tx<IdpRow[]>`update cognito_idps set ${tx(set)} where id = ${id} and ${scope} returning ${columns(tx)}`
    : await tx<IdpRow[]>`select ${columns(tx)} from cognito_idps where id = ${id} and ${scope}`;
  return r;
}

// ---- the sign-in flow (table owner) ----

/**
 * The IdP whose claim on an email domain is verified (at most one: a trigger keeps verified claims
 * unique), enabled or not. A pending claim never routes (migration 0035).
 */
export async function idpForDomain(db: Sql, domain: string): Promise<IdpRow | undefined> {
  const [r] = await db<IdpRow[]>`
    select ${columns(db)} from cognito_idps
    where provider_type = 'SAML' and email_domains @> ${db.json([domain.toLowerCase()])}
      and idp_domain_verified(client_id, ${domain.toLowerCase()})
    order by id limit 1`;
  return r;
}

/** The SAML IdPs of one client, as its tenant transaction sees them (row-level security binds). */
export async function idpsOfClient(tx: Tx, clientId: number): Promise<IdpRow[]> {
  return tx<IdpRow[]>`select ${columns(tx)} from cognito_idps where client_id = ${clientId} order by provider_name, id`;
}

export async function idpById(db: Sql, id: number): Promise<IdpRow | undefined> {
  const [r] = await db<IdpRow[]>`select ${columns(db)} from cognito_idps where id = ${id}`;
  return r;
}

export async function saveRequest(db: Sql, r: { id: string; idpId: number; state: string; redirectUri?: string | null; seconds: number }): Promise<Date> {
  // Expired requests go with each new one: the table holds only sign-ins in flight.
  await db`delete from saml_requests where expires_at < now()`;
  const [row] = await db<{ createdAt: Date }[]>`
    insert into saml_requests (id, idp_id, state, redirect_uri, expires_at)
    values (${r.id}, ${r.idpId}, ${r.state}, ${r.redirectUri ?? null}, now() + make_interval(secs => ${r.seconds}))
    returning created_at as "createdAt"`;
  return row!.createdAt;
}

export async function pendingRequest(db: Sql, id: string): Promise<{ id: string; idpId: number; state: string; redirectUri: string | null; createdAt: Date } | undefined> {
  const [r] = await db<{ id: string; idpId: number; state: string; redirectUri: string | null; createdAt: Date }[]>`
    select id, idp_id as "idpId", state, redirect_uri as "redirectUri", created_at as "createdAt" from saml_requests
    where id = ${id} and expires_at > now()`;
  return r;
}

export async function removeRequest(db: Sql, id: string): Promise<boolean> {
  const rows = await db`delete from saml_requests where id = ${id} returning id`;
  return rows.length > 0;
}

/** Records an assertion as used; false when it was used before (a replay). */
export async function useAssertion(db: Sql, idpId: number, assertionId: string, keepSeconds: number): Promise<boolean> {
  await db`delete from saml_assertions where expires_at < now()`;
  const rows = await db`
    insert into saml_assertions (idp_id, assertion_id, expires_at)
    values (${idpId}, ${assertionId}, now() + make_interval(secs => ${keepSeconds}))
    on conflict do nothing
    returning assertion_id`;
  return rows.length > 0;
}

/**
 * Where a user's memberships lie relative to an IdP's client: how many are on the client or
 * beneath it, and how many elsewhere (above it, or in other client trees).
 */
export async function membershipsAround(db: Sql, userId: number, clientId: number): Promise<{ inside: number; outside: number }> {
  const [r] = await db<{ inside: number; outside: number }[]>`
    select count(*) filter (where uc.client_id = any(d.ids))::int as inside,
           count(*) filter (where not (uc.client_id = any(d.ids)))::int as outside
    from user_and_clients uc, (select client_descendants(${clientId}) as ids) d
    where uc.user_id = ${userId}`;
  return r ?? { inside: 0, outside: 0 };
}

/** Links (or refreshes) the user's identity at this IdP: cognito_users, status EXTERNAL_PROVIDER. */
export async function linkIdentity(db: Sql, l: { userId: number; idpId: number; username: string; subject: string }): Promise<void> {
  const updated = await db`
    update cognito_users set external_subject = ${l.subject}, status = 'EXTERNAL_PROVIDER', last_login_at = now()
    where user_id = ${l.userId} and cognito_idp_id = ${l.idpId}
    returning id`;
  if (updated.length) return;
  await db`
    insert into cognito_users (user_id, cognito_idp_id, username, status, external_subject, last_login_at)
    values (${l.userId}, ${l.idpId}, ${l.username}, 'EXTERNAL_PROVIDER', ${l.subject}, now())
    on conflict (username) do nothing`;
}
