// A test SAML identity provider, played by the tests themselves: it reads our AuthnRequest out of
// the Login redirect and answers with a SAML Response whose Assertion it signs with xml-crypto and
// its own key (tests/fixtures/saml), as a real IdP does.
import { expect } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { inflateRawSync } from "node:zlib";
import { SignedXml } from "xml-crypto";
import type { App } from "../../api/src/app.ts";

export const FIX = resolve(import.meta.dir, "../fixtures/saml");
export const pem = (name: string) => readFileSync(resolve(FIX, name), "utf8");
export const IDP_KEY = pem("idp-key.pem");
export const IDP_CERT = pem("idp-cert.pem");
export const OTHER_KEY = pem("other-key.pem");

export const PUBLIC_URL = "https://ideally.example";
export const SP_ENTITY_ID = `${PUBLIC_URL}/auth/Saml/Metadata`;
export const ACS = `${PUBLIC_URL}/auth/Saml/Acs`;
export const IDP_ENTITY_ID = "https://idp.acme-sso.test/entity";
export const IDP_SSO_URL = "https://idp.acme-sso.test/sso";
export const DOMAIN = "acme-sso.test";

export interface AuthnRequest {
  id: string;
  relayState: string;
  xml: string;
}

/** Starts a sign-in at our Login and reads the AuthnRequest out of the redirect, as the IdP would. */
export async function startLogin(app: App, email = `ann@${DOMAIN}`, state = "state-0123456789"): Promise<AuthnRequest> {
  const res = await app.request(`/auth/Saml/Login?email=${encodeURIComponent(email)}&state=${state}`);
  expect(res.status, "Login redirects").toBe(302);
  const loc = new URL(res.headers.get("location")!);
  expect(`${loc.origin}${loc.pathname}`, `to the IdP (got ${loc})`).toBe(IDP_SSO_URL);
  const xml = inflateRawSync(Buffer.from(loc.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
  const id = /ID="([^"]+)"/.exec(xml)![1]!;
  return { id, relayState: loc.searchParams.get("RelayState")!, xml };
}

export interface AssertionOpts {
  nameId?: string;
  email?: string;
  audience?: string;
  issuer?: string;
  inResponseTo?: string | null;
  notBefore?: Date;
  notOnOrAfter?: Date;
  issueInstant?: Date;
  id?: string;
}

export const iso = (d: Date) => d.toISOString().replace(/\.\d{3}Z$/, "Z");
export const minutes = (n: number) => new Date(Date.now() + n * 60_000);

/** An Assertion, signed (enveloped signature after its Issuer) with the given key. */
export function signedAssertion(o: AssertionOpts = {}, key = IDP_KEY): string {
  const id = o.id ?? `_a${crypto.randomUUID().replace(/-/g, "")}`;
  const nameId = o.nameId ?? `ann@${DOMAIN}`;
  const confirm = o.inResponseTo === null ? "" : ` InResponseTo="${o.inResponseTo}"`;
  const xml =
    `<saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="${id}" Version="2.0" IssueInstant="${iso(o.issueInstant ?? new Date())}">` +
    `<saml:Issuer>${o.issuer ?? IDP_ENTITY_ID}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${nameId}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">` +
    `<saml:SubjectConfirmationData${confirm} NotOnOrAfter="${iso(o.notOnOrAfter ?? minutes(5))}" Recipient="${ACS}"/>` +
    `</saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(o.notBefore ?? minutes(-1))}" NotOnOrAfter="${iso(o.notOnOrAfter ?? minutes(5))}">` +
    `<saml:AudienceRestriction><saml:Audience>${o.audience ?? SP_ENTITY_ID}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${iso(new Date())}" SessionIndex="_s1"><saml:AuthnContext>` +
    `<saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>` +
    `</saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${o.email ?? nameId}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    `</saml:Assertion>`;
  const sig = new SignedXml({
    privateKey: key,
    signatureAlgorithm: "http://www.w3.org/2001/04/xmldsig-more#rsa-sha256",
    canonicalizationAlgorithm: "http://www.w3.org/2001/10/xml-exc-c14n#",
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    digestAlgorithm: "http://www.w3.org/2001/04/xmlenc#sha256",
    transforms: ["http://www.w3.org/2000/09/xmldsig#enveloped-signature", "http://www.w3.org/2001/10/xml-exc-c14n#"],
  });
  sig.computeSignature(xml, { location: { reference: "//*[local-name(.)='Issuer']", action: "after" } });
  return sig.getSignedXml();
}

/** A Response carrying an assertion, base64 as the HTTP-POST binding sends it. */
export function response(assertion: string, inResponseTo: string | null): string {
  const irt = inResponseTo === null ? "" : ` InResponseTo="${inResponseTo}"`;
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ` +
    `ID="_r${crypto.randomUUID().replace(/-/g, "")}" Version="2.0" IssueInstant="${iso(new Date())}" Destination="${ACS}"${irt}>` +
    `<saml:Issuer>${IDP_ENTITY_ID}</saml:Issuer>` +
    `<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>` +
    assertion +
    `</samlp:Response>`;
  return Buffer.from(xml).toString("base64");
}

export async function postAcs(app: App, samlResponse: string, relayState: string): Promise<URL> {
  const res = await app.request("/auth/Saml/Acs", {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: samlResponse, RelayState: relayState }).toString(),
  });
  expect(res.status, "the ACS always redirects the browser").toBe(302);
  return new URL(res.headers.get("location")!);
}

/** A whole SAML sign-in (Login -> IdP -> ACS -> Code): the access token, or the error page URL. */
export async function samlSignIn(app: App, email: string, state = "state-0123456789"): Promise<{ token?: string; loc: URL }> {
  const req = await startLogin(app, email, state);
  const loc = await postAcs(app, response(signedAssertion({ nameId: email, inResponseTo: req.id }), req.id), req.relayState);
  const code = loc.searchParams.get("code");
  if (!code) return { loc };
  const res = await app.request(`/auth/Saml/Code?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`);
  expect(res.status, "the code is exchanged for a token").toBe(200);
  return { token: ((await res.json()) as { accessToken: string }).accessToken, loc };
}
