// `ideally login --sso` against a server process: the CLI prints the sign-in address and listens on
// 127.0.0.1; the test plays the browser and the identity provider (tests/helpers/saml-idp.ts signs
// the assertion); the ACS sends the code to the CLI's loopback address, and the CLI exchanges it for
// a session that works like a password one.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { inflateRawSync } from "node:zlib";
import { cliHarness, CLI_MAIN, type CliHarness } from "../helpers/cli.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { startServerProcess, type ServerProcess } from "../helpers/live.ts";
import { DOMAIN, IDP_CERT, IDP_ENTITY_ID, IDP_SSO_URL, PUBLIC_URL, response, signedAssertion } from "../helpers/saml-idp.ts";

let tdb: TestDb;
let server: ServerProcess;
let cli: CliHarness;

beforeAll(async () => {
  tdb = await createTestDb();
  await tdb.db`insert into users (id, email, first_name, is_staff, role_id) values (9101, ${`ann@${DOMAIN}`}, 'Ann', false, 1)`;
  await tdb.db`insert into user_and_clients (id, user_id, client_id, role_id) values (9101, 9101, 1003, 2)`;
  // The domain is the enterprise's, verified (SAML routes only owned domains: docs/decisions.md).
  await tdb.db`insert into verified_email_domains (domain, client_id, method) values (${DOMAIN}, 1001, 'staff')`;
  // The assertion's audience and recipient are the public URL's (as behind a proxy).
  server = await startServerProcess(tdb.url, { PUBLIC_URL });
  cli = cliHarness(server.base);
  const admin = await fetch(`${server.base}/auth/Login/PasswordLogin`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ email: "admin@acme.test", password: "Password123!" }),
  });
  const { accessToken } = (await admin.json()) as { accessToken: string };
  const idp = await fetch(`${server.base}/api/v1/CognitoIdps/CreateSaml`, {
    method: "POST",
    headers: { authorization: `Bearer ${accessToken}`, clientId: "1001", "content-type": "application/json" },
    body: JSON.stringify({ providerName: "AcmeTestIdP", entryPoint: IDP_SSO_URL, idpIssuer: IDP_ENTITY_ID, idpCert: IDP_CERT, emailDomains: [DOMAIN] }),
  });
  expect(idp.status, await idp.clone().text()).toBe(201);
}, 120_000);
afterAll(async () => {
  cli?.dispose();
  await server?.stop();
  await tdb?.drop();
}, 30_000);

test("login --sso: browser sign-in through the loopback redirect", async () => {
  const proc = Bun.spawn([process.execPath, "run", CLI_MAIN, "login", "--sso", "--no-browser", "--email", `ann@${DOMAIN}`, "--json", "--timeout", "60"], {
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, XDG_CONFIG_HOME: cli.home, IDEALLY_API_URL: server.base, NO_COLOR: "1" },
  });
  // The address the CLI prints, as a person would open it.
  const reader = (proc.stderr as ReadableStream<Uint8Array>).getReader();
  let err = "";
  while (!/\n {2}(\S+)\n/.test(err)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the CLI ended early: ${err}`);
    err += new TextDecoder().decode(value);
  }
  const start = new URL(/\n {2}(\S+)\n/.exec(err)![1]);
  expect(start.pathname).toBe("/auth/Saml/Login");
  const callback = new URL(start.searchParams.get("redirectUri")!);
  expect(callback.hostname, "a loopback listener").toBe("127.0.0.1");

  // The browser: Login redirects to the IdP with our AuthnRequest ...
  const login = await fetch(start, { redirect: "manual" });
  expect(login.status).toBe(302);
  const atIdp = new URL(login.headers.get("location")!);
  const xml = inflateRawSync(Buffer.from(atIdp.searchParams.get("SAMLRequest")!, "base64")).toString("utf8");
  const id = /ID="([^"]+)"/.exec(xml)![1]!;
  // ... the IdP posts its signed answer to our ACS, which sends the browser to the CLI.
  const acs = await fetch(`${server.base}/auth/Saml/Acs`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ SAMLResponse: response(signedAssertion({ nameId: `ann@${DOMAIN}`, inResponseTo: id }), id), RelayState: atIdp.searchParams.get("RelayState")! }).toString(),
  });
  expect(acs.status).toBe(302);
  const back = new URL(acs.headers.get("location")!);
  expect(`${back.origin}${back.pathname}`).toBe(callback.toString());
  const forged = await fetch(`${callback}?code=made-up&state=another-state-000`);
  expect(forged.status, "a callback with another state is refused").toBe(400);
  const page = await fetch(back);
  expect(await page.text()).toContain("Signed in to the ideally CLI");

  const [out, code] = await Promise.all([new Response(proc.stdout as ReadableStream).text(), proc.exited]);
  expect(code, err).toBe(0);
  expect(JSON.parse(out)).toEqual({ email: `ann@${DOMAIN}`, userId: 9101, api: server.base, clientId: null });
  const s = cli.config().session as { refreshToken: string | null };
  expect(s.refreshToken, "the refresh cookie came with the code exchange").toBeTruthy();
  const me = await cli.json<{ email: string }>(["whoami"]);
  expect(me.email).toBe(`ann@${DOMAIN}`);
  // And it refreshes like any session.
  cli.writeConfig({ ...cli.config(), session: { ...cli.config().session, expiresAt: 0 } });
  expect((await cli.json<{ email: string }>(["whoami"])).email).toBe(`ann@${DOMAIN}`);
}, 60_000);
