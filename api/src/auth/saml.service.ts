// SAML 2.0 single sign-on, one identity provider per client (the spec's CognitoIdps; we are the
// service provider ourselves). The security page configures an IdP (createSaml, updateSaml); a
// sign-in starts at samlLogin (AuthnRequest by HTTP-Redirect) and ends at samlAcs (the IdP's
// form-posted Response), which hands over to the web app with a single-use code (codes.service.ts).
// XML signatures, timestamps, audience and InResponseTo are checked by node-saml; the issuer, the
// one-time use of an assertion and who may be signed in are checked here.
import { SAML, SamlStatusError, ValidateInResponseTo, generateServiceProviderMetadata, type CacheProvider, type Profile } from "@node-saml/node-saml";
import { DOMParser } from "@xmldom/xmldom";
import type { Db } from "../db/client.ts";
import type { RequestCtx } from "../access/principal.ts";
import { enterTenant } from "../access/policy.ts";
import { ApiError } from "../errors.ts";
import { userByEmail } from "./auth.sql.ts";
import { issueCode } from "./codes.service.ts";
import { certInfo, invalid, parseCertificate, parseEntryPoint, parseIdpMetadata, type CertInfo, type IdpSettings } from "./saml.metadata.ts";
import * as q from "./saml.sql.ts";
import { SsoRefusal, codeRedirect, type SsoDeps, type SsoReason } from "./sso.ts";

/** How long a user may take at the identity provider before the AuthnRequest lapses. */
export const REQUEST_SECONDS = 10 * 60;
/** Clock difference tolerated between the IdP and us (NotBefore, NotOnOrAfter). */
export const CLOCK_SKEW_MS = 60_000;
/** An assertion is accepted at most this long after its IssueInstant, whatever its NotOnOrAfter. */
export const MAX_ASSERTION_AGE_MS = 5 * 60_000;
/** Used assertion ids are kept longer than any assertion can be accepted (age + skew). */
const ASSERTION_KEEP_SECONDS = 30 * 60;
/** A SAML Response is a few kilobytes; this bounds what we parse from an anonymous POST. */
const MAX_RESPONSE_BASE64 = 512 * 1024;

// ---- the security page: CreateSaml / UpdateSaml ----

export interface SamlIdpInput {
  metadataXml?: string;
  entryPoint?: string;
  idpCert?: string;
  idpIssuer?: string;
  emailDomains?: string[];
  isEnabled?: boolean;
}

export interface SamlIdpView {
  id: number;
  clientId: number;
  providerName: string;
  providerType: string;
  entryPoint: string | null;
  idpIssuer: string | null;
  certificates: CertInfo[];
  wantAuthnRequestsSigned: boolean;
  emailDomains: string[];
  verifiedEmailDomains: string[];
  isEnabled: boolean;
  createdAt: string;
  updatedAt: string | null;
}

function view(r: q.IdpRow): SamlIdpView {
  return {
    id: r.id,
    clientId: r.clientId,
    providerName: r.providerName,
    providerType: r.providerType,
    entryPoint: r.entryPoint,
    idpIssuer: r.idpIssuer,
    certificates: r.idpCerts.map(certInfo).filter((c): c is CertInfo => c !== null),
    wantAuthnRequestsSigned: r.wantAuthnRequestsSigned,
    emailDomains: r.emailDomains,
    verifiedEmailDomains: r.verifiedEmailDomains,
    isEnabled: r.isEnabled,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt ? r.updatedAt.toISOString() : null,
  };
}

const PARTS = ["entryPoint", "idpCert", "idpIssuer"] as const;

/** The IdP settings an input gives: from its metadata document, or from whichever parts it has. */
function settingsOf(input: SamlIdpInput, requireAll: boolean): Partial<IdpSettings> & { metadataXml?: string | null } {
  const parts = PARTS.filter((p) => input[p] !== undefined);
  if (input.metadataXml !== undefined) {
    if (parts.length) throw invalid("metadataXml", `give metadataXml or ${PARTS.join(", ")}, not both (also given: ${parts.join(", ")})`);
    return { ...parseIdpMetadata(input.metadataXml), metadataXml: input.metadataXml };
  }
  if (requireAll && parts.length < PARTS.length) {
    const missing = PARTS.filter((p) => input[p] === undefined);
    throw new ApiError(
      "ValidationError",
      "Invalid body",
      undefined,
      missing.map((path) => ({ path, message: "is required without metadataXml" })),
    );
  }
  const out: Partial<IdpSettings> & { metadataXml?: string | null } = {};
  if (input.entryPoint !== undefined) out.entryPoint = parseEntryPoint(input.entryPoint, "entryPoint");
  if (input.idpCert !== undefined) out.certs = [parseCertificate(input.idpCert, "idpCert")];
  if (input.idpIssuer !== undefined) out.idpIssuer = input.idpIssuer;
  // Configured by parts: a metadata document given earlier no longer describes the IdP.
  if (parts.length) out.metadataXml = null;
  return out;
}

function normaliseDomains(domains: string[]): string[] {
  return [...new Set(domains.map((d) => d.trim().toLowerCase()))];
}

/** A unique-violation from the insert or the domain trigger, as a 409 naming the field. */
function conflict(e: unknown): never {
  const err = e as { code?: string; constraint_name?: string; message?: string };
  if (err.code === "23505" && err.constraint_name === "cognito_idps_provider_name_key") {
    throw new ApiError("Conflict", "An identity provider with this name exists already", undefined, [{ path: "providerName", message: "is taken; choose another name" }]);
  }
  if (err.code === "23505" && err.constraint_name === "cognito_idps_email_domain_owner") {
    throw new ApiError("Conflict", "An email domain is owned by someone else", err.message, [{ path: "emailDomains", message: err.message ?? "a domain is owned by someone else" }]);
  }
  if (err.code === "23505" && err.constraint_name === "cognito_idps_email_domain_key") {
    throw new ApiError("Conflict", "An email domain belongs to another identity provider", err.message, [{ path: "emailDomains", message: err.message ?? "a domain is taken" }]);
  }
  throw e;
}

/** Adds a SAML identity provider to the request's client (the org or enterprise security page). */
/** The request's client's SAML IdPs, each with its claimed domains and the verified ones. */
export async function listSaml(db: Db, ctx: RequestCtx): Promise<{ value: SamlIdpView[] }> {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required: the client whose identity providers to list");
  const rows = await enterTenant(db, ctx, (tx) => q.idpsOfClient(tx, ctx.clientId!));
  return { value: rows.map(view) };
}

export async function createSaml(db: Db, ctx: RequestCtx, input: SamlIdpInput & { providerName: string; emailDomains: string[] }): Promise<SamlIdpView> {
  if (ctx.clientId === null) throw new ApiError("BadRequest", "A clientId header is required: the client the identity provider is for");
  const s = settingsOf(input, true);
  const row = await enterTenant(db, ctx, (tx) =>
    q.insertIdp(tx, ctx.clientId!, {
      providerName: input.providerName,
      metadataXml: s.metadataXml ?? null,
      entryPoint: s.entryPoint!,
      idpIssuer: s.idpIssuer!,
      idpCerts: s.certs!,
      wantAuthnRequestsSigned: s.wantAuthnRequestsSigned ?? false,
      emailDomains: normaliseDomains(input.emailDomains),
      isEnabled: input.isEnabled ?? true,
    }),
  ).catch(conflict);
  return view(row);
}

/** Changes an identity provider of the request's clients: its settings, domains or the on/off switch. */
export async function updateSaml(db: Db, ctx: RequestCtx, id: number, input: SamlIdpInput): Promise<SamlIdpView> {
  const s = settingsOf(input, false);
  const patch: q.IdpPatch = {
    metadataXml: s.metadataXml,
    entryPoint: s.entryPoint,
    idpIssuer: s.idpIssuer,
    idpCerts: s.certs,
    wantAuthnRequestsSigned: s.wantAuthnRequestsSigned ?? (s.metadataXml === null ? false : undefined),
    emailDomains: input.emailDomains && normaliseDomains(input.emailDomains),
    isEnabled: input.isEnabled,
  };
  const row = await enterTenant(db, ctx, (tx) => q.updateIdp(tx, id, patch)).catch(conflict);
  if (!row) throw new ApiError("NotFound", `No SAML identity provider ${id} on this client`);
  return view(row);
}

// ---- the sign-in flow ----

export function acsUrl(deps: SsoDeps): string {
  return `${deps.publicUrl}/auth/Saml/Acs`;
}

/**
 * node-saml's store of AuthnRequest ids, in the database so that every API process accepts the
 * response to a request any of them sent. Saving binds the request to its IdP and web state.
 */
function requestStore(db: Db, bind?: { idpId: number; state: string; redirectUri: string | null }): CacheProvider {
  return {
    async saveAsync(key) {
      if (!bind) throw new Error("an AuthnRequest can only be stored for a sign-in");
      const createdAt = await q.saveRequest(db, { id: key, ...bind, seconds: REQUEST_SECONDS });
      return { value: createdAt.toISOString(), createdAt: createdAt.getTime() };
    },
    async getAsync(key) {
      const r = await q.pendingRequest(db, key);
      return r ? r.createdAt.toISOString() : null;
    },
    async removeAsync(key) {
      if (!key) return null;
      return (await q.removeRequest(db, key)) ? key : null;
    },
  };
}

function samlFor(deps: SsoDeps, idp: q.IdpRow, store: CacheProvider): SAML {
  return new SAML({
    callbackUrl: acsUrl(deps),
    entryPoint: idp.entryPoint!,
    issuer: deps.saml.entityId,
    audience: deps.saml.entityId,
    idpCert: idp.idpCerts,
    // The assertion must be signed; a signature on the Response around it is optional (many
    // IdPs sign only the assertion, which is what carries the identity).
    wantAssertionsSigned: true,
    wantAuthnResponseSigned: false,
    acceptedClockSkewMs: CLOCK_SKEW_MS,
    maxAssertionAgeMs: MAX_ASSERTION_AGE_MS,
    validateInResponseTo: ValidateInResponseTo.always,
    requestIdExpirationPeriodMs: REQUEST_SECONDS * 1000,
    cacheProvider: store,
    // No NameIDPolicy and no RequestedAuthnContext: asking for a NameID format or "password over
    // TLS" makes some IdPs (ADFS, Entra ID with MFA or Kerberos) refuse; we read the email from
    // the attributes or the NameID, whatever its format.
    identifierFormat: null,
    disableRequestedAuthnContext: true,
    signatureAlgorithm: "sha256",
    ...(deps.saml.privateKey ? { privateKey: deps.saml.privateKey } : {}),
  });
}

/** Our service-provider metadata, for the IdP admin (entity id, ACS URL, signing certificate). */
export function spMetadata(deps: SsoDeps): string {
  return generateServiceProviderMetadata({
    issuer: deps.saml.entityId,
    callbackUrl: acsUrl(deps),
    identifierFormat: "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress",
    wantAssertionsSigned: true,
    ...(deps.saml.privateKey && deps.saml.cert ? { privateKey: deps.saml.privateKey, publicCerts: deps.saml.cert, signatureAlgorithm: "sha256" as const } : {}),
  });
}

/** Starts a sign-in: the URL of the email domain's IdP carrying our AuthnRequest and the state. */
export async function samlLogin(db: Db, deps: SsoDeps, input: { email: string; state: string; redirectUri?: string }): Promise<string> {
  const domain = input.email.split("@").pop()!.toLowerCase();
  const idp = await q.idpForDomain(db, domain);
  if (!idp) throw new SsoRefusal("unknown_domain", `no identity provider for ${domain}`);
  if (!idp.isEnabled) throw new SsoRefusal("idp_disabled", `${idp.providerName} is disabled`);
  if (!idp.entryPoint || !idp.idpCerts.length) throw new SsoRefusal("idp_not_configured", `${idp.providerName} has no entry point or certificate`);
  if (idp.wantAuthnRequestsSigned && !deps.saml.privateKey) {
    deps.log?.(`[sso] ${idp.providerName} wants signed AuthnRequests; set SAML_SP_PRIVATE_KEY and SAML_SP_CERT`);
  }
  // RelayState is the web app's state: the IdP posts it back, and we check it against the request.
  return samlFor(deps, idp, requestStore(db, { idpId: idp.id, state: input.state, redirectUri: input.redirectUri ?? null })).getAuthorizeUrlAsync(input.state, undefined, {});
}

/** The Response's InResponseTo, read before anything is trusted: it names the sign-in (and IdP). */
function inResponseToOf(xml: string): string | null {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SsoRefusal("invalid_response", "DOCTYPE in a SAML response");
  const problems: string[] = [];
  const doc = new DOMParser({ errorHandler: { warning: () => {}, error: (m) => problems.push(m), fatalError: (m) => problems.push(m) } }).parseFromString(xml, "text/xml");
  const root = doc?.documentElement;
  if (problems.length || !root || root.localName !== "Response") throw new SsoRefusal("invalid_response", "not a SAML Response");
  return root.getAttribute("InResponseTo") || null;
}

/** node-saml's refusals, by their messages, as reason codes. */
function reasonOf(e: unknown): SsoReason {
  if (e instanceof SamlStatusError) return "idp_refused";
  const m = (e as Error).message ?? "";
  if (/signature/i.test(m)) return "invalid_signature";
  if (/audience/i.test(m)) return "wrong_audience";
  if (/expired|not yet valid|NotBefore|NotOnOrAfter|subject confirmation/i.test(m)) return "expired";
  if (/InResponseTo/i.test(m)) return "unknown_request";
  return "invalid_response";
}

const EMAIL_ATTRIBUTES = ["email", "mail", "http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress", "urn:oid:0.9.2342.19200300.100.1.3", "emailAddress", "Email"];
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The email the assertion vouches for: an email attribute, else a NameID that is an email. */
function emailOf(profile: Profile): string | null {
  for (const name of EMAIL_ATTRIBUTES) {
    const v = profile[name];
    const s = Array.isArray(v) ? v[0] : v;
    if (typeof s === "string" && EMAIL.test(s.trim())) return s.trim().toLowerCase();
  }
  return profile.nameID && EMAIL.test(profile.nameID) ? profile.nameID.toLowerCase() : null;
}

/**
 * The IdP's form post: validates the Response, decides who it signs in, and answers the web app's
 * URL with a single-use code. Throws SsoRefusal with the reason otherwise.
 */
export async function samlAcs(db: Db, deps: SsoDeps, form: { SAMLResponse?: string; RelayState?: string }): Promise<string> {
  const encoded = form.SAMLResponse?.replace(/\s+/g, "");
  if (!encoded || encoded.length > MAX_RESPONSE_BASE64 || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) {
    throw new SsoRefusal("bad_request", "missing, oversized or non-base64 SAMLResponse");
  }
  const xml = new TextDecoder().decode(Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0)));
  const inResponseTo = inResponseToOf(xml);
  if (!inResponseTo) throw new SsoRefusal("unsolicited", "a Response without InResponseTo (IdP-initiated sign-in is not supported)");
  const request = await q.pendingRequest(db, inResponseTo);
  if (!request) throw new SsoRefusal("unknown_request", `no pending AuthnRequest ${inResponseTo}`);
  if (form.RelayState !== request.state) {
    await q.removeRequest(db, request.id);
    throw new SsoRefusal("state_mismatch", "RelayState differs from the sign-in's state");
  }
  const idp = await q.idpById(db, request.idpId);
  if (!idp?.isEnabled || !idp.entryPoint) {
    await q.removeRequest(db, request.id);
    throw new SsoRefusal("idp_disabled", `identity provider ${request.idpId} was disabled or removed during the sign-in`);
  }

  let profile: Profile | null;
  try {
    // node-saml removes the request id on failure (and on success when the assertion names it).
    ({ profile } = await samlFor(deps, idp, requestStore(db)).validatePostResponseAsync({ SAMLResponse: encoded, RelayState: form.RelayState ?? "" }));
  } catch (e) {
    throw new SsoRefusal(reasonOf(e), `${idp.providerName}: ${(e as Error).message}`);
  }
  // node-saml leaves the request id in place when the assertion's SubjectConfirmationData has no
  // InResponseTo: use it up here, so a request is answered once whatever the assertion says.
  await q.removeRequest(db, request.id);
  if (!profile) throw new SsoRefusal("invalid_response", "no assertion in the response");
  // node-saml checks the issuer of logout messages only; sign-ins are checked here.
  if (idp.idpIssuer && profile.issuer !== idp.idpIssuer) {
    throw new SsoRefusal("wrong_issuer", `assertion issued by ${profile.issuer}, expected ${idp.idpIssuer}`);
  }
  const assertion = profile.getAssertion?.() as { Assertion?: { $?: { ID?: string } } } | undefined;
  const assertionId = assertion?.Assertion?.$?.ID;
  if (!assertionId) throw new SsoRefusal("invalid_response", "assertion without an ID");
  if (!(await q.useAssertion(db, idp.id, assertionId, ASSERTION_KEEP_SECONDS))) {
    throw new SsoRefusal("replayed", `assertion ${assertionId} was used before`);
  }

  const userId = await whoMaySignIn(db, idp, profile);
  await q.linkIdentity(db, { userId, idpId: idp.id, username: `${idp.providerName}_${profile.nameID}`, subject: profile.nameID });
  const code = await issueCode(db, { userId, method: "saml", state: request.state, idpId: idp.id });
  return codeRedirect(deps, code, request.state, request.redirectUri);
}

/**
 * Whom a valid assertion signs in: an existing account (no accounts are made here) whose email is
 * in the IdP's domains, that is not provider staff, and whose memberships all lie on the IdP's
 * client or beneath it. An IdP is administered by that client's admins, so it may only vouch for
 * people whose access that client governs: a team's IdP must not sign in the enterprise's admin.
 */
async function whoMaySignIn(db: Db, idp: q.IdpRow, profile: Profile): Promise<number> {
  const email = emailOf(profile);
  if (!email) throw new SsoRefusal("no_email", `no email attribute and NameID '${profile.nameID}' is not an email`);
  const domain = email.split("@").pop()!.toLowerCase();
  // Only a verified claim vouches: a domain the IdP's client does not own signs nobody in.
  if (!idp.verifiedEmailDomains.includes(domain)) throw new SsoRefusal("domain_mismatch", `${email} is outside ${idp.verifiedEmailDomains.join(", ") || "the IdP's verified domains"}`);
  const user = await userByEmail(db, email);
  if (!user) throw new SsoRefusal("unknown_user", `no account for ${email}`);
  if (user.disabled) throw new SsoRefusal("user_disabled", `${email} is disabled`);
  if (user.isStaff) throw new SsoRefusal("staff_account", `${email} is provider staff`);
  const m = await q.membershipsAround(db, user.id, idp.clientId);
  if (!m.inside) throw new SsoRefusal("not_member", `${email} is not a member of client ${idp.clientId} or beneath it`);
  if (m.outside) throw new SsoRefusal("outside_client", `${email} also belongs to ${m.outside} client(s) outside client ${idp.clientId}`);
  return user.id;
}
