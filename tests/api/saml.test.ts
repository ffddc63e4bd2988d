// SAML single sign-on end to end, against a test identity provider the test plays itself: it
// reads our AuthnRequest from the redirect, and answers with a SAML Response whose Assertion it
// signs with xml-crypto and its own key (tests/fixtures/saml), as a real IdP does. Covers the
// security page's CreateSaml / UpdateSaml, the sign-in (Login -> ACS -> Code -> API), and the
// refusals: tampering, a foreign key, expiry, audience, replay, InResponseTo, membership, a
// disabled IdP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createVerify } from "node:crypto";
import { inflateRawSync } from "node:zlib";
import { newApp, type App } from "../../api/src/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { loadSigningKey } from "../../api/src/auth/keys.ts";
import { bearerAuthenticate } from "../../api/src/auth/authenticate.ts";
import type { SsoDeps } from "../../api/src/auth/sso.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, refreshCookie, testPasswords } from "../helpers/app.ts";
import {
  ACS,
  DOMAIN,
  IDP_CERT,
  IDP_ENTITY_ID,
  IDP_KEY,
  IDP_SSO_URL,
  OTHER_KEY,
  PUBLIC_URL,
  SP_ENTITY_ID,
  pem,
  minutes,
  postAcs as idpPostAcs,
  response,
  signedAssertion,
  startLogin as idpStartLogin,
  type AssertionOpts,
  type AuthnRequest,
} from "../helpers/saml-idp.ts";

let tdb: TestDb;
let app: App;
let adminToken: string;
let staffToken: string;
let idpId: number;
const logged: string[] = [];

/** DNS TXT records the tests publish (Clients ValidateDomainRecord's lookup). */
const txt = new Map<string, string[][]>();

function appWith(db: TestDb["db"], key: CryptoKey, sso: SsoDeps): App {
  return newApp({
    checkAnswers: true,
    db,
    registry,
    resolveTxt: async (name) => txt.get(name) ?? [],
    authenticate: bearerAuthenticate(key),
    auth: { db, key, passwords: testPasswords, linkedInEnabled: false, clientIp: () => "127.0.0.1", secureCookies: false, sso },
  });
}

beforeAll(async () => {
  tdb = await createTestDb();
  const key = await loadSigningKey(tdb.db, undefined);
  app = appWith(tdb.db, key, { publicUrl: PUBLIC_URL, saml: { entityId: SP_ENTITY_ID }, linkedIn: null, log: (l) => logged.push(l) });
  // People of the IdP's domain: Ann (User of Acme Team A, inside the enterprise the IdP is for),
  // Bob (Globex only), Cat (Acme Team A and Globex), Dan (provider staff), Eve (disabled).
  await tdb.db`
    insert into users (id, email, first_name, is_staff, role_id, disabled_at) values
      (9101, 'ann@acme-sso.test', 'Ann', false, 1, null),
      (9102, 'bob@acme-sso.test', 'Bob', false, 1, null),
      (9103, 'cat@acme-sso.test', 'Cat', false, 1, null),
      (9104, 'dan@acme-sso.test', 'Dan', true, 2, null),
      (9105, 'eve@acme-sso.test', 'Eve', false, 1, now())`;
  await tdb.db`
    insert into user_and_clients (id, user_id, client_id, role_id) values
      (9101, 9101, 1003, 2), (9102, 9102, 2001, 2), (9103, 9103, 1003, 2), (9104, 9103, 2001, 3), (9105, 9105, 1003, 2)`;
  ({ token: adminToken } = await login(app, "admin@acme.test"));
  // Acme's enterprise owns the test IdP's domain (staff approval; DNS is tested below).
  staffToken = (await login(app, "staff@ideally.test")).token;
  const owned = await api(staffToken, "POST", "/api/v1/Clients(1001)/ValidateDomainRecord", null, { domain: DOMAIN, approve: true });
  expect(owned.status).toBe(200);
});
afterAll(async () => {
  await tdb.drop();
});

const api = (token: string, method: string, path: string, clientId: number | null, body?: unknown) =>
  app.request(path, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(clientId === null ? {} : { clientId: String(clientId) }),
      ...(body === undefined ? {} : { "content-type": "application/json" }),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

// ---- the test identity provider (tests/helpers/saml-idp.ts), bound to this file's app ----

const startLogin = (email?: string, state?: string) => idpStartLogin(app, email, state);
const postAcs = (samlResponse: string, relayState: string) => idpPostAcs(app, samlResponse, relayState);

function expectRefused(loc: URL, reason: string) {
  expect(`${loc.origin}${loc.pathname}`, `to the error page (got ${loc})`).toBe(`${PUBLIC_URL}/auth/saml/error`);
  expect(loc.searchParams.get("reason"), `refused because ${reason}; log: ${logged.at(-1)}`).toBe(reason);
}

/** One full sign-in through the IdP, with the assertion shaped by `o`. */
async function signIn(o: AssertionOpts = {}, key = IDP_KEY, email?: string): Promise<{ loc: URL; req: AuthnRequest }> {
  const req = await startLogin(email ?? o.nameId);
  const loc = await postAcs(response(signedAssertion({ inResponseTo: req.id, ...o }, key), req.id), req.relayState);
  return { loc, req };
}

const exchange = (code: string, state: string) => app.request(`/auth/Saml/Code?code=${encodeURIComponent(code)}&state=${encodeURIComponent(state)}`);

// ---- the security page ----

describe("CreateSaml and UpdateSaml", () => {
  test("an Admin of the enterprise adds an IdP by parts; the certificate is read back", async () => {
    const res = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, {
      providerName: "AcmeTestIdP",
      entryPoint: IDP_SSO_URL,
      idpIssuer: IDP_ENTITY_ID,
      idpCert: IDP_CERT,
      emailDomains: ["Acme-SSO.test"],
    });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(201);
    idpId = body.id;
    expect(body).toMatchObject({ clientId: 1001, providerName: "AcmeTestIdP", providerType: "SAML", entryPoint: IDP_SSO_URL, idpIssuer: IDP_ENTITY_ID, emailDomains: [DOMAIN], isEnabled: true });
    expect(body.certificates[0].subject, "the certificate was parsed").toContain("ideally-test-idp");
    const methods = (await (await app.request(`/auth/Login/GetLoginMethods/ann@${DOMAIN}`)).json()) as any;
    expect(methods.saml, "the domain now signs in through the IdP").toEqual({ providerName: "AcmeTestIdP" });
  });

  test("an IdP from a metadata document: entry point, issuer and certificate are read from it", async () => {
    const b64 = IDP_CERT.replace(/-----[^-]+-----|\s/g, "");
    const metadataXml =
      `<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" xmlns:ds="http://www.w3.org/2000/09/xmldsig#" entityID="https://meta.test/idp">` +
      `<md:IDPSSODescriptor WantAuthnRequestsSigned="true" protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">` +
      `<md:KeyDescriptor use="signing"><ds:KeyInfo><ds:X509Data><ds:X509Certificate>${b64}</ds:X509Certificate></ds:X509Data></ds:KeyInfo></md:KeyDescriptor>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://meta.test/post"/>` +
      `<md:SingleSignOnService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-Redirect" Location="https://meta.test/redirect"/>` +
      `</md:IDPSSODescriptor></md:EntityDescriptor>`;
    const res = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1003, { providerName: "MetaIdP", metadataXml, emailDomains: ["meta.test"] });
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body).toMatchObject({ entryPoint: "https://meta.test/redirect", idpIssuer: "https://meta.test/idp", wantAuthnRequestsSigned: true, clientId: 1003 });
    expect(body.certificates).toHaveLength(1);
  });

  test("bad input is a 400 naming the field", async () => {
    const base = { providerName: "BadIdP", entryPoint: IDP_SSO_URL, idpIssuer: "x", emailDomains: ["bad.test"] };
    const cases: [string, Record<string, unknown>, string][] = [
      ["garbage certificate", { ...base, idpCert: "-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----" }, "idpCert"],
      ["base64 that is no certificate", { ...base, idpCert: btoa("hello world, not DER") }, "idpCert"],
      ["expired certificate", { ...base, idpCert: pem("expired-cert.pem") }, "idpCert"],
      ["a private key instead", { ...base, idpCert: IDP_KEY }, "idpCert"],
      ["metadata that is not XML", { providerName: "BadIdP", metadataXml: "<md:EntityDescriptor", emailDomains: ["bad.test"] }, "metadataXml"],
      ["metadata with a DOCTYPE", { providerName: "BadIdP", metadataXml: '<!DOCTYPE x [<!ENTITY a "b">]><x/>', emailDomains: ["bad.test"] }, "metadataXml"],
      ["metadata and parts", { ...base, idpCert: IDP_CERT, metadataXml: "<x/>" }, "metadataXml"],
      ["neither metadata nor a certificate", base, "idpCert"],
      ["not a URL", { ...base, idpCert: IDP_CERT, entryPoint: "idp.test/sso" }, "entryPoint"],
      ["not a domain", { ...base, idpCert: IDP_CERT, emailDomains: ["not a domain"] }, "emailDomains.0"],
      ["a bad provider name", { ...base, idpCert: IDP_CERT, providerName: "no spaces allowed" }, "providerName"],
    ];
    for (const [name, body, field] of cases) {
      const res = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, body);
      const out = (await res.json()) as { errors?: { path: string }[] };
      expect(res.status, `${name}: ${JSON.stringify(out)}`).toBe(400);
      expect(
        out.errors?.map((e) => e.path),
        name,
      ).toContain(field);
    }
  });

  test("a domain belongs to one IdP, and a name to one IdP: 409", async () => {
    const globex = (await login(app, "admin@globex.test")).token;
    const res = await api(globex, "POST", "/api/v1/CognitoIdps/CreateSaml", 2001, {
      providerName: "GlobexGrab",
      entryPoint: "https://evil.test/sso",
      idpIssuer: "https://evil.test",
      idpCert: pem("other-cert.pem"),
      emailDomains: ["globex-new.test", DOMAIN],
    });
    const body = (await res.json()) as any;
    expect(res.status, "another client cannot capture Acme's SSO domain").toBe(409);
    expect(body.errors[0].path).toBe("emailDomains");
    const same = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, {
      providerName: "AcmeTestIdP",
      entryPoint: IDP_SSO_URL,
      idpIssuer: IDP_ENTITY_ID,
      idpCert: IDP_CERT,
      emailDomains: ["unused.test"],
    });
    expect(same.status).toBe(409);
  });

  test("Users, Viewers and other clients' admins cannot configure an IdP", async () => {
    const user = (await login(app, "user@acme.test")).token;
    const viewer = (await login(app, "viewer@acme.test")).token;
    const globex = (await login(app, "admin@globex.test")).token;
    const body = { providerName: "Nope", entryPoint: IDP_SSO_URL, idpIssuer: "x", idpCert: IDP_CERT, emailDomains: ["nope.test"] };
    expect((await api(user, "POST", "/api/v1/CognitoIdps/CreateSaml", 1003, body)).status).toBe(403);
    expect((await api(viewer, "POST", "/api/v1/CognitoIdps/CreateSaml", 1003, body)).status).toBe(403);
    expect((await api(user, "POST", `/api/v1/CognitoIdps(${idpId})/UpdateSaml`, 1003, { isEnabled: false })).status).toBe(403);
    expect((await api(globex, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, body)).status, "not a member of Acme").toBe(403);
    const other = await api(globex, "POST", `/api/v1/CognitoIdps(${idpId})/UpdateSaml`, 2001, { isEnabled: false });
    expect(other.status, "Acme's IdP is not visible from Globex").toBe(404);
    expect((await api(user, "GET", "/api/v1/CognitoIdps/SamlProviders", 1003)).status, "a User does not list IdPs").toBe(403);
    expect((await api(globex, "GET", "/api/v1/CognitoIdps/SamlProviders", 1001)).status, "nor another client's admin").toBe(403);
  });

  test("UpdateSaml changes the certificate and domains; a bad certificate names the field", async () => {
    const bad = await api(adminToken, "POST", `/api/v1/CognitoIdps(${idpId})/UpdateSaml`, 1001, { idpCert: "nope" });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).errors[0].path).toBe("idpCert");
    const unknown = await api(adminToken, "POST", "/api/v1/CognitoIdps(-1)/UpdateSaml", 1001, { isEnabled: true });
    expect(unknown.status).toBe(404);
    const ok = await api(adminToken, "POST", `/api/v1/CognitoIdps(${idpId})/UpdateSaml`, 1001, { emailDomains: [DOMAIN, "acme-sso2.test"], idpCert: IDP_CERT });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as any).emailDomains).toEqual([DOMAIN, "acme-sso2.test"]);
  });
});

describe("email domains route sign-ins only once the client owns them", () => {
  const idp = (providerName: string, emailDomains: string[]) => ({ providerName, entryPoint: IDP_SSO_URL, idpIssuer: IDP_ENTITY_ID, idpCert: IDP_CERT, emailDomains });
  const methods = async (email: string) => (await (await app.request(`/auth/Login/GetLoginMethods/${email}`)).json()) as any;
  const samlLogin = async (email: string) => new URL((await app.request(`/auth/Saml/Login?email=${email}&state=state-0123456789`)).headers.get("location")!);

  test("a claim on a domain the client does not own is pending and routes nothing, until its DNS record proves it", async () => {
    const res = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, idp("PendingIdP", ["pending-acme.test"]));
    const body = (await res.json()) as any;
    expect(res.status, JSON.stringify(body)).toBe(201);
    expect(body.emailDomains).toEqual(["pending-acme.test"]);
    expect(body.verifiedEmailDomains, "pending").toEqual([]);
    // The security page lists the client's IdPs with the state of each claimed domain.
    const listed = async () => {
      const r = await api(adminToken, "GET", "/api/v1/CognitoIdps/SamlProviders", 1001);
      expect(r.status).toBe(200);
      return ((await r.json()) as { value: { id: number; emailDomains: string[]; verifiedEmailDomains: string[] }[] }).value.find((x) => x.id === body.id);
    };
    expect(await listed()).toMatchObject({ emailDomains: ["pending-acme.test"], verifiedEmailDomains: [] });
    expect((await api(adminToken, "GET", "/api/v1/CognitoIdps/SamlProviders", null)).status, "names the client").toBe(400);
    expect((await methods("ann@pending-acme.test")).saml).toBeNull();
    expect((await methods("ann@pending-acme.test")).password).toBe(true);
    expectRefused(await samlLogin("ann@pending-acme.test"), "unknown_domain");

    // The enterprise publishes its TXT record; staff validate it.
    const [c] = await tdb.db`select domain_verification_token::text as token from clients where id = 1001`;
    txt.set("pending-acme.test", [[`ideally-verification=${c!.token}`]]);
    const v = await api(staffToken, "POST", "/api/v1/Clients(1001)/ValidateDomainRecord", null, { domain: "pending-acme.test" });
    expect(((await v.json()) as any).verified).toBe(true);
    expect((await methods("ann@pending-acme.test")).saml).toEqual({ providerName: "PendingIdP" });
    const after = await api(adminToken, "POST", `/api/v1/CognitoIdps(${body.id})/UpdateSaml`, 1001, { isEnabled: true });
    expect(((await after.json()) as any).verifiedEmailDomains).toEqual(["pending-acme.test"]);
    expect(await listed()).toMatchObject({ emailDomains: ["pending-acme.test"], verifiedEmailDomains: ["pending-acme.test"] });
  });

  test("an unverified claim never blocks the real owner, and never routes its users", async () => {
    const globex = (await login(app, "admin@globex.test")).token;
    const squat = await api(globex, "POST", "/api/v1/CognitoIdps/CreateSaml", 2001, idp("Squatter", ["victim-corp.test"]));
    expect(squat.status, "a pending claim is allowed").toBe(201);
    expect((await methods("boss@victim-corp.test")).saml, "but routes nobody").toBeNull();
    const owner = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, idp("VictimOwner", ["victim-corp.test"]));
    expect(owner.status, "the real owner is not refused").toBe(201);
    const approved = await api(staffToken, "POST", "/api/v1/Clients(1001)/ValidateDomainRecord", null, { domain: "victim-corp.test", approve: true });
    expect(((await approved.json()) as any).verified).toBe(true);
    expect((await methods("boss@victim-corp.test")).saml).toEqual({ providerName: "VictimOwner" });
    const again = await api(globex, "POST", "/api/v1/CognitoIdps/CreateSaml", 2001, idp("Squatter2", ["victim-corp.test"]));
    expect(again.status, "now owned by Acme").toBe(409);
  });

  test("another client's verified domain and the provider's own cannot be claimed", async () => {
    const globex = (await login(app, "admin@globex.test")).token;
    const taken = await api(globex, "POST", "/api/v1/CognitoIdps/CreateSaml", 2001, idp("GrabAcme", ["acme.test"]));
    expect(taken.status).toBe(409);
    expect(((await taken.json()) as any).errors[0].path).toBe("emailDomains");
    const provider = await api(adminToken, "POST", "/api/v1/CognitoIdps/CreateSaml", 1001, idp("GrabIdeally", ["ideally.test"]));
    expect(provider.status).toBe(409);
    expect((await methods("ops@ideally.test")).saml).toBeNull();
  });
});

// ---- signing in ----

describe("SAML sign-in", () => {
  test("Login -> IdP -> ACS -> Code -> a token that opens the API", async () => {
    const req = await startLogin();
    expect(req.relayState, "the web app's state travels as RelayState").toBe("state-0123456789");
    expect(req.xml).toContain(`AssertionConsumerServiceURL="${ACS}"`);
    expect(req.xml).toContain(`>${SP_ENTITY_ID}</saml:Issuer>`);

    const loc = await postAcs(response(signedAssertion({ inResponseTo: req.id }), req.id), req.relayState);
    expect(`${loc.origin}${loc.pathname}`, `to the web app's SAML page (got ${loc})`).toBe(`${PUBLIC_URL}/auth/saml/login`);
    expect(loc.searchParams.get("state")).toBe("state-0123456789");
    const code = loc.searchParams.get("code")!;

    const res = await exchange(code, "state-0123456789");
    expect(res.status).toBe(200);
    const { accessToken } = (await res.json()) as { accessToken: string };
    const cookie = refreshCookie(res);
    expect(cookie, "the refresh cookie is set as for a password sign-in").toStartWith("ideally_refresh=");
    expect((await api(accessToken, "GET", "/api/v1/Projects?$select=id", 1003)).status, "Ann reads her team's projects").toBe(200);
    expect((await api(accessToken, "GET", "/api/v1/Projects?$select=id", 2001)).status, "and nothing else").toBe(403);
    expect((await app.request("/auth/Login/Refresh", { method: "POST", headers: { cookie } })).status, "the session refreshes").toBe(200);

    const [session] = await tdb.db`select method from auth_sessions where user_id = 9101`;
    expect(session?.method).toBe("saml");
    const [identity] = await tdb.db`select username, status, external_subject from cognito_users where user_id = 9101 and cognito_idp_id = ${idpId}`;
    expect(identity, "the SAML identity is linked").toMatchObject({ username: `AcmeTestIdP_ann@${DOMAIN}`, status: "EXTERNAL_PROVIDER", external_subject: `ann@${DOMAIN}` });

    const again = await exchange(code, "state-0123456789");
    expect(again.status, "a code is single-use").toBe(422);
    expect(((await again.json()) as any).typename).toBe("AuthFailureDto");
  });

  test("a native app's loopback redirect (the CLI) gets the code; any other address is refused", async () => {
    const state = "cli-state-0123456789";
    const back = "http://127.0.0.1:43210/callback";
    const res = await app.request(`/auth/Saml/Login?email=ann@${DOMAIN}&state=${state}&redirectUri=${encodeURIComponent(back)}`);
    expect(res.status).toBe(302);
    const idp = new URL(res.headers.get("location")!);
    const xml = inflateRawSync(Buffer.from(idp.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
    const id = /ID="([^"]+)"/.exec(xml)![1]!;
    const loc = await postAcs(response(signedAssertion({ inResponseTo: id }), id), state);
    expect(`${loc.origin}${loc.pathname}`, `to the app's loopback address (got ${loc})`).toBe(back);
    expect(loc.searchParams.get("state")).toBe(state);
    expect((await exchange(loc.searchParams.get("code")!, state)).status, "and exchanged like the web app's").toBe(200);
    for (const bad of ["http://evil.example:43210/callback", "https://127.0.0.1:43210/callback", "http://127.0.0.1/callback", "http://localhost:43210/callback", "http://127.0.0.1:43210/cb?x=1"]) {
      const r = await app.request(`/auth/Saml/Login?email=ann@${DOMAIN}&state=${state}&redirectUri=${encodeURIComponent(bad)}`);
      expect(r.status, `${bad} is refused`).toBe(400);
    }
  });

  test("a code needs its own state, and dies after a minute", async () => {
    const { loc } = await signIn();
    const code = loc.searchParams.get("code")!;
    expect((await exchange(code, "another-state-123")).status, "another state").toBe(422);
    await tdb.db`update sso_codes set expires_at = now() - interval '1 second'`;
    expect((await exchange(code, "state-0123456789")).status, "expired").toBe(422);
    expect((await exchange("made-up-code", "state-0123456789")).status, "unknown").toBe(422);
  });

  test("a tampered assertion is refused (NameID or an attribute changed after signing)", async () => {
    let req = await startLogin();
    let signed = signedAssertion({ inResponseTo: req.id });
    expectRefused(await postAcs(response(signed.replace(`>ann@${DOMAIN}</saml:NameID>`, `>cat@${DOMAIN}</saml:NameID>`), req.id), req.relayState), "invalid_signature");
    req = await startLogin();
    signed = signedAssertion({ inResponseTo: req.id });
    expectRefused(await postAcs(response(signed.replace(`<saml:AttributeValue>ann@`, `<saml:AttributeValue>cat@`), req.id), req.relayState), "invalid_signature");
  });

  test("an assertion signed by another key is refused", async () => {
    expectRefused((await signIn({}, OTHER_KEY)).loc, "invalid_signature");
  });

  test("an unsigned assertion is refused", async () => {
    const req = await startLogin();
    const unsigned = signedAssertion({ inResponseTo: req.id }).replace(/<Signature[\s\S]*<\/Signature>/, "");
    expect(unsigned).not.toContain("SignatureValue");
    expectRefused(await postAcs(response(unsigned, req.id), req.relayState), "invalid_signature");
  });

  test("an expired assertion is refused", async () => {
    expectRefused((await signIn({ issueInstant: minutes(-20), notBefore: minutes(-20), notOnOrAfter: minutes(-10) })).loc, "expired");
  });

  test("an assertion that is not valid yet is refused", async () => {
    expectRefused((await signIn({ notBefore: minutes(10), notOnOrAfter: minutes(15) })).loc, "expired");
  });

  test("an assertion for another audience is refused", async () => {
    expectRefused((await signIn({ audience: "https://other-sp.example/saml" })).loc, "wrong_audience");
  });

  test("an assertion from another issuer is refused", async () => {
    expectRefused((await signIn({ issuer: "https://someone-else.test/idp" })).loc, "wrong_issuer");
  });

  test("a replayed response is refused, and so is its assertion in a new response", async () => {
    const req = await startLogin();
    // No InResponseTo inside the assertion, so it could be wrapped into another Response.
    const assertion = signedAssertion({ inResponseTo: null });
    const first = await postAcs(response(assertion, req.id), req.relayState);
    expect(first.pathname, `signed in (got ${first})`).toBe("/auth/saml/login");
    expectRefused(await postAcs(response(assertion, req.id), req.relayState), "unknown_request");
    const req2 = await startLogin();
    expectRefused(await postAcs(response(assertion, req2.id), req2.relayState), "replayed");
  });

  test("an unknown InResponseTo, a missing one and a wrong RelayState are refused", async () => {
    expectRefused(await postAcs(response(signedAssertion({ inResponseTo: "_never-sent" }), "_never-sent"), "state-0123456789"), "unknown_request");
    expectRefused(await postAcs(response(signedAssertion({ inResponseTo: null }), null), "state-0123456789"), "unsolicited");
    const req = await startLogin();
    expectRefused(await postAcs(response(signedAssertion({ inResponseTo: req.id }), req.id), "state-someone-else"), "state_mismatch");
    expectRefused(await postAcs(response(signedAssertion({ inResponseTo: req.id }), req.id), req.relayState), "unknown_request");
  });

  test("who may be signed in: members of the IdP's client tree only, no staff, no strangers", async () => {
    expectRefused((await signIn({ nameId: `bob@${DOMAIN}` })).loc, "not_member");
    expectRefused((await signIn({ nameId: `cat@${DOMAIN}` })).loc, "outside_client");
    expectRefused((await signIn({ nameId: `dan@${DOMAIN}` })).loc, "staff_account");
    expectRefused((await signIn({ nameId: `eve@${DOMAIN}` })).loc, "user_disabled");
    expectRefused((await signIn({ nameId: `zed@${DOMAIN}` })).loc, "unknown_user");
    // An IdP vouches only for its own domains, whatever the email it asserts.
    expectRefused((await signIn({ email: "user@acme.test" }, IDP_KEY, `ann@${DOMAIN}`)).loc, "domain_mismatch");
  });

  test("a malformed post, an unknown domain and an unconfigured IdP go to the error page", async () => {
    const post = (body: string) => app.request("/auth/Saml/Acs", { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body });
    let res = await post("");
    expect(res.status).toBe(302);
    expectRefused(new URL(res.headers.get("location")!), "bad_request");
    res = await post(new URLSearchParams({ SAMLResponse: btoa("<not-saml/>") }).toString());
    expectRefused(new URL(res.headers.get("location")!), "invalid_response");
    res = await app.request("/auth/Saml/Login?email=someone@nowhere.test&state=state-0123456789");
    expectRefused(new URL(res.headers.get("location")!), "unknown_domain");
    // The fixture's AcmeSSO (acme.test) has only a metadata URL: nothing to send a request to.
    res = await app.request("/auth/Saml/Login?email=user@acme.test&state=state-0123456789");
    expectRefused(new URL(res.headers.get("location")!), "idp_not_configured");
    res = await app.request("/auth/Saml/Login?email=user@acme.test&state=short");
    expect(res.status, "a state that is not 8+ URL-safe characters is a bad request").toBe(400);
  });

  test("a disabled IdP signs nobody in, not even a sign-in already under way", async () => {
    const req = await startLogin();
    const off = await api(adminToken, "POST", `/api/v1/CognitoIdps(${idpId})/UpdateSaml`, 1001, { isEnabled: false });
    expect(off.status).toBe(200);
    expectRefused(await postAcs(response(signedAssertion({ inResponseTo: req.id }), req.id), req.relayState), "idp_disabled");
    const res = await app.request(`/auth/Saml/Login?email=ann@${DOMAIN}&state=state-0123456789`);
    expectRefused(new URL(res.headers.get("location")!), "idp_disabled");
    const methods = (await (await app.request(`/auth/Login/GetLoginMethods/ann@${DOMAIN}`)).json()) as any;
    expect(methods.saml, "GetLoginMethods no longer offers it").toBeNull();
    await api(adminToken, "POST", `/api/v1/CognitoIdps(${idpId})/UpdateSaml`, 1001, { isEnabled: true });
  });
});

describe("service provider", () => {
  test("metadata names our entity id and ACS", async () => {
    const res = await app.request("/auth/Saml/Metadata");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/samlmetadata+xml");
    const xml = await res.text();
    expect(xml).toContain(`entityID="${SP_ENTITY_ID}"`);
    expect(xml).toContain(`Location="${ACS}"`);
  });

  test("with a key, AuthnRequests are signed (HTTP-Redirect binding signature)", async () => {
    const key = await loadSigningKey(tdb.db, undefined);
    const spCert = pem("sp-cert.pem");
    const signing = appWith(tdb.db, key, { publicUrl: PUBLIC_URL, saml: { entityId: SP_ENTITY_ID, privateKey: pem("sp-key.pem"), cert: spCert }, linkedIn: null });
    const res = await signing.request(`/auth/Saml/Login?email=ann@${DOMAIN}&state=state-0123456789`);
    const loc = new URL(res.headers.get("location")!);
    expect(loc.searchParams.get("SigAlg")).toBe("http://www.w3.org/2001/04/xmldsig-more#rsa-sha256");
    // The signature covers SAMLRequest, RelayState and SigAlg exactly as they appear in the query.
    const raw = loc.search.slice(1).split("&");
    const signedPart = ["SAMLRequest", "RelayState", "SigAlg"].map((n) => raw.find((p) => p.startsWith(`${n}=`))!).join("&");
    const ok = createVerify("RSA-SHA256").update(signedPart).verify(spCert, loc.searchParams.get("Signature")!, "base64");
    expect(ok, "the IdP can verify our request with our certificate").toBe(true);
    expect(await (await signing.request("/auth/Saml/Metadata")).text()).toContain('AuthnRequestsSigned="true"');
  });
});
