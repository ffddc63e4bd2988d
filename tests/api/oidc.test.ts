// LinkedIn sign-in (OpenID Connect) end to end, against a small OpenID provider the test runs on
// loopback (Bun.serve: discovery, authorize, token, JWKS; an RSA key made with WebCrypto). The
// app is configured as production configures it (readConfig with LINKEDIN_* and PUBLIC_URL).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { SignJWT, exportJWK } from "jose";
import { newApp, type App } from "../../api/src/app.ts";
import { readConfig } from "../../api/src/config.ts";
import { registry } from "../../api/src/entities/index.ts";
import { loadSigningKey } from "../../api/src/auth/keys.ts";
import { bearerAuthenticate } from "../../api/src/auth/authenticate.ts";
import { ssoFromConfig } from "../../api/src/auth/sso.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { refreshCookie, testPasswords } from "../helpers/app.ts";

const PUBLIC_URL = "https://ideally.example";
const CLIENT_ID = "ideally-linkedin-client";
const CLIENT_SECRET = "linkedin-client-secret";
const WEB_STATE = "web-state-0123456789";

type Mode = "ok" | "badSignature" | "wrongAudience" | "wrongNonce" | "expired" | "unverified";

/** The test's OpenID provider: what it was asked, and how it misbehaves next. */
const op = {
  base: "",
  mode: "ok" as Mode,
  email: "user@acme.test",
  discoveryHits: 0,
  authorize: [] as URLSearchParams[],
  tokenRequests: [] as URLSearchParams[],
  codes: new Map<string, { nonce: string; challenge: string; redirectUri: string }>(),
};
let server: ReturnType<typeof Bun.serve>;
let key: CryptoKeyPair;
let otherKey: CryptoKeyPair;

const rsa = () =>
  crypto.subtle.generateKey({ name: "RSASSA-PKCS1-v1_5", modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: "SHA-256" }, true, ["sign", "verify"]) as Promise<CryptoKeyPair>;

async function s256(verifier: string): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  return btoa(String.fromCharCode(...d))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
}

async function startProvider(): Promise<void> {
  key = await rsa();
  otherKey = await rsa();
  const jwk = { ...(await exportJWK(key.publicKey)), kid: "k1", alg: "RS256", use: "sig" };
  server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const url = new URL(req.url);
      switch (url.pathname) {
        case "/oauth/.well-known/openid-configuration":
          op.discoveryHits++;
          return Response.json({
            issuer: op.base,
            authorization_endpoint: `${op.base}/authorize`,
            token_endpoint: `${op.base}/token`,
            jwks_uri: `${op.base}/jwks`,
            response_types_supported: ["code"],
            subject_types_supported: ["public"],
            id_token_signing_alg_values_supported: ["RS256"],
            code_challenge_methods_supported: ["S256"],
          });
        case "/oauth/authorize": {
          const p = url.searchParams;
          op.authorize.push(p);
          const code = crypto.randomUUID();
          op.codes.set(code, { nonce: p.get("nonce")!, challenge: p.get("code_challenge")!, redirectUri: p.get("redirect_uri")! });
          return Response.redirect(`${p.get("redirect_uri")}?code=${code}&state=${encodeURIComponent(p.get("state")!)}`, 302);
        }
        case "/oauth/token": {
          const p = new URLSearchParams(await req.text());
          op.tokenRequests.push(p);
          const grant = op.codes.get(p.get("code") ?? "");
          op.codes.delete(p.get("code") ?? "");
          const bad =
            !grant ||
            p.get("client_id") !== CLIENT_ID ||
            p.get("client_secret") !== CLIENT_SECRET ||
            p.get("redirect_uri") !== grant.redirectUri ||
            (await s256(p.get("code_verifier") ?? "")) !== grant.challenge;
          if (bad) return Response.json({ error: "invalid_grant" }, { status: 400 });
          const now = Math.floor(Date.now() / 1000);
          const idToken = await new SignJWT({
            email: op.email,
            email_verified: op.mode !== "unverified",
            nonce: op.mode === "wrongNonce" ? "someone-elses-nonce" : grant.nonce,
          })
            .setProtectedHeader({ alg: "RS256", kid: "k1" })
            .setIssuer(op.base)
            .setAudience(op.mode === "wrongAudience" ? "another-client" : CLIENT_ID)
            .setSubject("linkedin-member-42")
            .setIssuedAt(op.mode === "expired" ? now - 7200 : now)
            .setExpirationTime(op.mode === "expired" ? now - 3600 : now + 3600)
            .sign(op.mode === "badSignature" ? otherKey.privateKey : key.privateKey);
          return Response.json({ access_token: "at", token_type: "Bearer", expires_in: 3600, id_token: idToken });
        }
        case "/oauth/jwks":
          return Response.json({ keys: [jwk] });
      }
      return new Response("not found", { status: 404 });
    },
  });
  op.base = `http://127.0.0.1:${server.port}/oauth`;
}

let tdb: TestDb;
let signingKey: CryptoKey;
let app: App;

/** The app as server.ts builds it from the environment. */
function appFromEnv(env: Record<string, string>): App {
  const cfg = readConfig({ PUBLIC_URL, ...env });
  const db = tdb.db;
  return newApp({
    checkAnswers: true,
    db,
    registry,
    authenticate: bearerAuthenticate(signingKey),
    auth: { db, key: signingKey, passwords: testPasswords, linkedInEnabled: cfg.linkedInEnabled, clientIp: () => "127.0.0.1", secureCookies: false, sso: ssoFromConfig(cfg) },
  });
}

const LINKEDIN_ENV = () => ({ LINKEDIN_CLIENT_ID: CLIENT_ID, LINKEDIN_CLIENT_SECRET: CLIENT_SECRET, LINKEDIN_ISSUER: op.base });

beforeAll(async () => {
  await startProvider();
  tdb = await createTestDb();
  signingKey = await loadSigningKey(tdb.db, undefined);
  app = appFromEnv(LINKEDIN_ENV());
});
afterAll(async () => {
  server.stop(true);
  await tdb.drop();
});

/** Starts at our Login, lets the provider authorize, and follows its redirect into our callback. */
async function linkedInSignIn(state = WEB_STATE, a: App = app): Promise<URL> {
  const start = await a.request(`/auth/LinkedIn/Login?state=${state}`);
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get("location")!);
  expect(`${authorize.origin}${authorize.pathname}`, `to the provider (got ${authorize})`).toBe(`${op.base}/authorize`);
  const back = await fetch(authorize, { redirect: "manual" });
  const callback = new URL(back.headers.get("location")!);
  expect(`${callback.origin}${callback.pathname}`).toBe(`${PUBLIC_URL}/auth/LinkedIn/Callback`);
  const res = await a.request(callback.pathname + callback.search);
  expect(res.status, "the callback always redirects the browser").toBe(302);
  return new URL(res.headers.get("location")!);
}

function expectRefused(loc: URL, reason: string) {
  expect(`${loc.origin}${loc.pathname}`, `to the error page (got ${loc})`).toBe(`${PUBLIC_URL}/auth/saml/error`);
  expect(loc.searchParams.get("reason")).toBe(reason);
}

async function withMode<T>(mode: Mode, fn: () => Promise<T>, email = "user@acme.test"): Promise<T> {
  op.mode = mode;
  op.email = email;
  try {
    return await fn();
  } finally {
    op.mode = "ok";
    op.email = "user@acme.test";
  }
}

describe("LinkedIn sign-in", () => {
  test("signs in an existing user by verified email; the code is exchanged like SAML's", async () => {
    const loc = await linkedInSignIn();
    expect(`${loc.origin}${loc.pathname}`, `to the web app's page (got ${loc})`).toBe(`${PUBLIC_URL}/auth/saml/login`);
    expect(loc.searchParams.get("state"), "the web app's state comes back").toBe(WEB_STATE);

    const asked = op.authorize.at(-1)!;
    expect(asked.get("client_id")).toBe(CLIENT_ID);
    expect(asked.get("redirect_uri")).toBe(`${PUBLIC_URL}/auth/LinkedIn/Callback`);
    expect(asked.get("scope")).toBe("openid profile email");
    expect(asked.get("code_challenge_method")).toBe("S256");
    expect(asked.get("nonce")?.length).toBeGreaterThan(20);
    expect(asked.get("state"), "our own state towards the provider, not the web app's").not.toBe(WEB_STATE);
    expect(op.tokenRequests.at(-1)?.get("code_verifier")?.length, "PKCE verifier sent with the code").toBe(43);

    const res = await app.request(`/auth/Saml/Code?code=${loc.searchParams.get("code")}&state=${WEB_STATE}`);
    expect(res.status).toBe(200);
    const { accessToken } = (await res.json()) as { accessToken: string };
    expect(refreshCookie(res)).toStartWith("ideally_refresh=");
    const projects = await app.request("/api/v1/Projects?$select=id", { headers: { authorization: `Bearer ${accessToken}`, clientId: "1003" } });
    expect(projects.status, "the token opens the API").toBe(200);
    const [s] = await tdb.db`select method from auth_sessions where user_id = 9004 order by created_at desc limit 1`;
    expect(s?.method).toBe("oidc");
  });

  test("the discovery document is fetched once and cached", async () => {
    const before = op.discoveryHits;
    await linkedInSignIn();
    await linkedInSignIn();
    expect(op.discoveryHits, "no refetch per sign-in").toBe(before);
    expect(before).toBe(1);
  });

  test("an id_token signed by another key is refused", async () => {
    expectRefused(await withMode("badSignature", () => linkedInSignIn()), "invalid_signature");
  });

  test("an id_token for another client is refused", async () => {
    expectRefused(await withMode("wrongAudience", () => linkedInSignIn()), "wrong_audience");
  });

  test("an id_token with another sign-in's nonce is refused", async () => {
    expectRefused(await withMode("wrongNonce", () => linkedInSignIn()), "nonce_mismatch");
  });

  test("an expired id_token is refused", async () => {
    expectRefused(await withMode("expired", () => linkedInSignIn()), "expired");
  });

  test("an unknown, forged or reused state is refused", async () => {
    let res = await app.request("/auth/LinkedIn/Callback?code=whatever&state=forged-state");
    expectRefused(new URL(res.headers.get("location")!), "unknown_request");
    res = await app.request("/auth/LinkedIn/Callback?code=whatever");
    expectRefused(new URL(res.headers.get("location")!), "bad_request");
    // A callback URL used once cannot be used again.
    const start = await app.request(`/auth/LinkedIn/Login?state=${WEB_STATE}`);
    const back = await fetch(start.headers.get("location")!, { redirect: "manual" });
    const callback = new URL(back.headers.get("location")!);
    const first = await app.request(callback.pathname + callback.search);
    expect(new URL(first.headers.get("location")!).pathname).toBe("/auth/saml/login");
    const again = await app.request(callback.pathname + callback.search);
    expectRefused(new URL(again.headers.get("location")!), "unknown_request");
  });

  test("a user who cancels at LinkedIn lands on the error page", async () => {
    const start = await app.request(`/auth/LinkedIn/Login?state=${WEB_STATE}`);
    const state = new URL(start.headers.get("location")!).searchParams.get("state")!;
    const res = await app.request(`/auth/LinkedIn/Callback?error=access_denied&state=${encodeURIComponent(state)}`);
    expectRefused(new URL(res.headers.get("location")!), "denied");
  });

  test("unknown and unverified emails and staff accounts are refused", async () => {
    expectRefused(await withMode("ok", () => linkedInSignIn(), "stranger@nowhere.test"), "unknown_user");
    expectRefused(await withMode("unverified", () => linkedInSignIn()), "no_email");
    expectRefused(await withMode("ok", () => linkedInSignIn(), "staff@ideally.test"), "staff_account");
  });
});

describe("configuration", () => {
  const methods = async (a: App) => ((await (await a.request("/auth/Login/GetLoginMethods/user@acme.test")).json()) as { linkedIn: boolean }).linkedIn;

  test("GetLoginMethods offers LinkedIn only when configured and not switched off", async () => {
    expect(await methods(app), "configured").toBe(true);
    expect(await methods(appFromEnv({})), "not configured").toBe(false);
    const disabled = appFromEnv({ ...LINKEDIN_ENV(), LINKEDIN_DISABLED: "1" });
    expect(await methods(disabled), "LINKEDIN_DISABLED=1").toBe(false);
    const res = await disabled.request(`/auth/LinkedIn/Login?state=${WEB_STATE}`);
    expect(res.status).toBe(302);
    expectRefused(new URL(res.headers.get("location")!), "linkedin_disabled");
  });

  test("a client id without its secret is a configuration error", () => {
    expect(() => readConfig({ LINKEDIN_CLIENT_ID: CLIENT_ID })).toThrow(/LINKEDIN_CLIENT_SECRET/);
    expect(readConfig({}).linkedIn).toBeNull();
    expect(readConfig(LINKEDIN_ENV()).linkedIn?.issuer).toBe(op.base);
    expect(readConfig({ LINKEDIN_CLIENT_ID: "x", LINKEDIN_CLIENT_SECRET: "y" }).linkedIn?.issuer).toBe("https://www.linkedin.com/oauth");
  });

  test("a provider that cannot be reached fails the sign-in cleanly", async () => {
    const down = appFromEnv({ ...LINKEDIN_ENV(), LINKEDIN_ISSUER: "http://127.0.0.1:9/oauth" });
    const res = await down.request(`/auth/LinkedIn/Login?state=${WEB_STATE}`);
    expect(res.status).toBe(302);
    expectRefused(new URL(res.headers.get("location")!), "provider_error");
  });
});
