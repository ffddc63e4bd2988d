// The account flows as a person meets them, through the real routes and real tokens: an Admin
// invites a new person, the invite arrives (read from the dev mailbox as staff), the person accepts
// it, signs in, refreshes, logs out, forgets the password, resets it from the emailed link, signs in
// again, and signs in through the client's SAML identity provider.
// Then the edges: no account enumeration, rate limits, used / replaced / expired tokens,
// temporary passwords (NewPasswordRequired) and GetInvite.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp, refreshCookie, TEST_PUBLIC_URL, testPasswords } from "../helpers/app.ts";
import { newApp, type App } from "../../api/src/app.ts";
import { registry } from "../../api/src/entities/index.ts";
import { bearerAuthenticate } from "../../api/src/auth/authenticate.ts";
import { settled } from "../../api/src/auth/after-response.ts";
import { outboxMailer } from "../../api/src/email/mailer.ts";
import { IDP_CERT, IDP_ENTITY_ID, IDP_SSO_URL, PUBLIC_URL, SP_ENTITY_ID, samlSignIn } from "../helpers/saml-idp.ts";

let tdb: TestDb;
let app: App;
let key: CryptoKey;
let staffToken: string;
beforeAll(async () => {
  tdb = await createTestDb();
  ({ app, key } = await realApp(tdb.db));
  staffToken = (await login(app, "staff@ideally.test")).token;
});
afterAll(async () => {
  await tdb.drop();
});

type Res = { status: number; body: any; headers: Headers; cookie: string };

async function req(a: App, method: string, path: string, opts: { body?: unknown; token?: string; clientId?: number; cookie?: string } = {}): Promise<Res> {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.clientId !== undefined) headers.clientId = String(opts.clientId);
  if (opts.cookie) headers.cookie = opts.cookie;
  const res = await a.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body, headers: res.headers, cookie: refreshCookie(res) };
}

const post = (path: string, body?: unknown, opts: { token?: string; clientId?: number; cookie?: string } = {}) => req(app, "POST", path, { ...opts, body });

/** The emails to an address, newest first, read as staff through the API. */
async function mailbox(to: string): Promise<{ subject: string; template: string; links: string[]; text: string }[]> {
  await settled(); // emails that depend on the account are sent after the answer
  const res = await req(app, "GET", `/api/v1/DevMailbox?to=${encodeURIComponent(to)}`, { token: staffToken });
  expect(res.status, "staff read the dev mailbox").toBe(200);
  return res.body.value;
}

const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;

describe("a new person's way in, start to finish", () => {
  test("invite, accept, sign in, refresh, log out, forgot password, reset, sign in with the new password", async () => {
    const email = "nina.new@acme.test";
    // An Admin invites a new person to Acme Team A as a User.
    const admin = await login(app, "admin@acme.test");
    const invited = await post("/api/v1/Users", { email, firstName: "Nina", lastName: "New", roleId: 2 }, { token: admin.token, clientId: 1003 });
    expect(invited.status, JSON.stringify(invited.body)).toBe(201);
    expect(invited.body.email).toBe(email);
    expect(invited.body.invitedAt, "an invited account").not.toBeNull();
    expect(invited.body).not.toHaveProperty("passwordHash");

    // The invite arrives.
    const [invite] = await mailbox(email);
    expect(invite!.template).toBe("teamInvite");
    expect(invite!.subject).toBe("You're invited to join Acme Team A on Ideally");
    expect(invite!.links[0]!.startsWith(`${TEST_PUBLIC_URL}/auth/accept-invite?token=`)).toBe(true);
    const inviteToken = tokenOf(invite!.links[0]!);

    // The accept-invite page greets them: with the link's token, the client that invited them.
    const pending = await req(app, "GET", `/auth/Login/GetInvite/${email}?token=${encodeURIComponent(inviteToken)}`);
    expect(pending.status).toBe(200);
    expect(pending.body).toEqual({ email, pending: true, clientName: "Acme Team A", expiresAt: expect.any(String) });
    const anonymous = await req(app, "GET", `/auth/Login/GetInvite/${email}`);
    expect(anonymous.body, "without the token nothing is said about the address").toEqual({ email, pending: false, clientName: null, expiresAt: null });

    // No password yet: nothing signs in.
    expect((await post("/auth/Login/PasswordLogin", { email, password: "anything-at-all" })).status).toBe(401);

    // Accepting needs a password that meets the policy.
    const weak = await post("/auth/Login/AcceptInvitation", { token: inviteToken, password: "short" });
    expect(weak.status).toBe(400);
    expect(weak.body.errors.map((e: { path: string }) => e.path)).toEqual(["password"]);

    const firstPassword = "first-Password-1";
    const accepted = await post("/auth/Login/AcceptInvitation", { token: inviteToken, password: firstPassword });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.accessToken).toBeString();
    expect(accepted.cookie, "signed in like PasswordLogin: the refresh cookie").toStartWith("ideally_refresh=");
    const projects = await req(app, "GET", "/api/v1/Projects?$select=id", { token: accepted.body.accessToken, clientId: 1003 });
    expect(projects.status, "a member of Acme Team A now").toBe(200);

    const again = await post("/auth/Login/AcceptInvitation", { token: inviteToken, password: "another-Password-2" });
    expect(again.status, "the invite link works once").toBe(400);
    expect(again.body.detail).toBe("token_used");
    expect((await req(app, "GET", `/auth/Login/GetInvite/${email}?token=${encodeURIComponent(inviteToken)}`)).body.pending, "no longer pending").toBe(false);
    const [identity] = await tdb.db`select status from cognito_users where username = ${email}`;
    expect(identity!.status).toBe("CONFIRMED");

    // Sign in, refresh, log out.
    const signIn = await post("/auth/Login/PasswordLogin", { email, password: firstPassword });
    expect(signIn.status).toBe(200);
    const refreshed = await post("/auth/Login/Refresh", undefined, { cookie: signIn.cookie });
    expect(refreshed.status).toBe(200);
    expect(refreshed.cookie).not.toBe(signIn.cookie);
    const out = await post("/auth/Login/Logout", undefined, { cookie: refreshed.cookie, token: refreshed.body.accessToken });
    expect(out.status).toBe(204);
    const dead = await post("/auth/Login/Refresh", undefined, { cookie: refreshed.cookie });
    expect(dead.status, "the refresh token died with the session").toBe(422);
    expect(dead.body.typename).toBe("AuthFailureDto");

    // Forgot password: the reset link arrives and a PasswordReset notification is raised.
    const before = await post("/auth/Login/PasswordLogin", { email, password: firstPassword });
    expect(before.status).toBe(200);
    expect((await post("/auth/Login/ForgotPassword", { email })).status).toBe(204);
    const [reset] = await mailbox(email);
    expect(reset!.template).toBe("passwordReset");
    expect(reset!.links[0]!.startsWith(`${TEST_PUBLIC_URL}/auth/reset-password?token=`)).toBe(true);
    const notes = await req(app, "GET", "/api/v1/Notifications?$expand=notificationType&$orderby=id desc", { token: before.body.accessToken });
    expect(notes.status).toBe(200);
    expect(
      notes.body.value.map((n: { notificationType: { name: string }; clientId: number | null }) => [n.notificationType.name, n.clientId]),
      "the person sees both notifications, the client-less PasswordReset too",
    ).toEqual([
      ["PasswordReset", null],
      ["UserAddedToTeam", 1003],
    ]);

    // Reset from the link: the old password fails, the new one signs in, every session ended.
    const newPassword = "second-Password-2";
    const done = await post("/auth/Login/ResetPassword", { token: tokenOf(reset!.links[0]!), password: newPassword });
    expect(done.status, JSON.stringify(done.body)).toBe(204);
    expect((await post("/auth/Login/PasswordLogin", { email, password: firstPassword })).status, "the old password fails").toBe(401);
    const after = await post("/auth/Login/PasswordLogin", { email, password: newPassword });
    expect(after.status, "the new one signs in").toBe(200);
    expect((await req(app, "GET", "/api/v1/Projects?$select=id", { token: before.body.accessToken, clientId: 1003 })).status, "sessions from before the reset are over").toBe(401);
    expect((await post("/auth/Login/Refresh", undefined, { cookie: before.cookie })).status).toBe(422);
    expect((await req(app, "GET", "/api/v1/Projects?$select=id", { token: after.body.accessToken, clientId: 1003 })).status).toBe(200);
    const reused = await post("/auth/Login/ResetPassword", { token: tokenOf(reset!.links[0]!), password: "third-Password-3" });
    expect(reused.status, "the reset link works once").toBe(400);
    expect(reused.body.detail).toBe("token_used");

    // Single sign-on: the Admin configures Acme Team A's identity provider on the security page
    // (the fixture's AcmeSSO, for @acme.test), and the person signs in through it.
    const sso = await post("/api/v1/CognitoIdps(1001)/UpdateSaml", { entryPoint: IDP_SSO_URL, idpIssuer: IDP_ENTITY_ID, idpCert: IDP_CERT }, { token: admin.token, clientId: 1003 });
    expect(sso.status, JSON.stringify(sso.body)).toBe(200);
    const methods = await req(app, "GET", `/auth/Login/GetLoginMethods/${email}`);
    expect(methods.body.saml, "the login page offers single sign-on").toEqual({ providerName: "AcmeSSO" });
    const { token: samlToken, loc } = await samlSignIn(ssoApp(), email);
    expect(samlToken, `signed in through SAML (${loc})`).toBeString();
    expect((await req(app, "GET", "/api/v1/Projects?$select=id", { token: samlToken, clientId: 1003 })).status).toBe(200);
  });
});

/** The same server with its single sign-on settings (public URL and service-provider entity id). */
function ssoApp(): App {
  return newApp({
    checkAnswers: true,
    db: tdb.db,
    registry,
    authenticate: bearerAuthenticate(key),
    auth: {
      db: tdb.db,
      key,
      passwords: testPasswords,
      linkedInEnabled: false,
      clientIp: () => "127.0.0.1",
      secureCookies: false,
      sso: { publicUrl: PUBLIC_URL, saml: { entityId: SP_ENTITY_ID }, linkedIn: null },
    },
  });
}

describe("forgot password", () => {
  test("the request does the same work for an existing and an unknown email: the account's part runs after the answer", async () => {
    await tdb.db`delete from auth_attempts`;
    const tasks: (() => Promise<void>)[] = [];
    const captured = newApp({
      checkAnswers: true,
      db: tdb.db,
      registry,
      mailer: outboxMailer(tdb.db, { publicUrl: TEST_PUBLIC_URL }),
      authenticate: bearerAuthenticate(key),
      auth: { db: tdb.db, key, passwords: testPasswords, linkedInEnabled: false, clientIp: () => "127.0.0.1", secureCookies: false, defer: (t) => void tasks.push(t) },
    });
    const written = async () => {
      const [r] = await tdb.db`select (select count(*) from email_outbox)::int as mails, (select count(*) from account_tokens)::int as tokens,
                                      (select count(*) from notifications)::int as notes, (select count(*) from auth_attempts)::int as attempts`;
      return r!;
    };
    const start = await written();
    const known = await req(captured, "POST", "/auth/Login/ForgotPassword", { body: { email: "admin@acme.test" } });
    const afterKnown = await written();
    const unknown = await req(captured, "POST", "/auth/Login/ForgotPassword", { body: { email: "no-such-person@acme.test" } });
    const afterUnknown = await written();
    expect([known.status, unknown.status]).toEqual([204, 204]);
    expect(known.body).toEqual(unknown.body);
    // Each request wrote only its two rate-limit counts (email and IP) and handed over one task.
    expect(afterKnown).toEqual({ ...start, attempts: start.attempts + 2 });
    expect(afterUnknown).toEqual({ ...afterKnown, attempts: afterKnown.attempts + 2 });
    expect(tasks.length).toBe(2);
    // Run later, only the existing account gets a link.
    for (const t of tasks) await t();
    expect((await mailbox("admin@acme.test"))[0]!.template).toBe("passwordReset");
    expect(await mailbox("no-such-person@acme.test")).toEqual([]);
    await tdb.db`delete from auth_attempts`;
  });

  test("answers 204 alike for known and unknown emails; only a real account gets an email", async () => {
    const known = await post("/auth/Login/ForgotPassword", { email: "USER@acme.test" });
    const unknown = await post("/auth/Login/ForgotPassword", { email: "nobody-here@acme.test" });
    expect(known.status).toBe(204);
    expect(unknown.status).toBe(204);
    expect(known.body).toEqual(unknown.body);
    expect((await mailbox("user@acme.test"))[0]!.template).toBe("passwordReset");
    expect(await mailbox("nobody-here@acme.test")).toEqual([]);
  });

  test("a disabled account gets nothing", async () => {
    await tdb.db`update users set disabled_at = now() where email = 'admin@globex.test'`;
    try {
      expect((await post("/auth/Login/ForgotPassword", { email: "admin@globex.test" })).status).toBe(204);
      expect(await mailbox("admin@globex.test")).toEqual([]);
    } finally {
      await tdb.db`update users set disabled_at = null where email = 'admin@globex.test'`;
    }
  });

  test("limited per email (3 an hour) with Retry-After, whether or not the account exists", async () => {
    await tdb.db`delete from auth_attempts`;
    for (const email of ["viewer@acme.test", "ghost@acme.test"]) {
      for (let i = 0; i < 3; i++) expect((await post("/auth/Login/ForgotPassword", { email })).status, `${email} #${i + 1}`).toBe(204);
      const blocked = await post("/auth/Login/ForgotPassword", { email: email.toUpperCase() });
      expect(blocked.status, `${email}: the 4th in the hour`).toBe(429);
      expect(blocked.body.typename).toBe("TooManyRequests");
      expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(3000);
    }
    expect((await mailbox("viewer@acme.test")).length, "blocked requests send nothing").toBe(3);
    await tdb.db`delete from auth_attempts`;
  });

  test("limited per IP address (20 an hour)", async () => {
    const { app: other } = await realApp(tdb.db, { ip: "203.0.113.7" });
    for (let i = 0; i < 20; i++) {
      expect((await req(other, "POST", "/auth/Login/ForgotPassword", { body: { email: `spray${i}@example.org` } })).status).toBe(204);
    }
    const blocked = await req(other, "POST", "/auth/Login/ForgotPassword", { body: { email: "spray-last@example.org" } });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBeTruthy();
    expect((await post("/auth/Login/ForgotPassword", { email: "spray-last@example.org" })).status, "another address is not blocked").toBe(204);
    await tdb.db`delete from auth_attempts`;
  });
});

describe("reset tokens", () => {
  async function resetLink(email: string): Promise<string> {
    expect((await post("/auth/Login/ForgotPassword", { email })).status).toBe(204);
    return tokenOf((await mailbox(email))[0]!.links[0]!);
  }

  test("a newer request replaces the older link", async () => {
    const first = await resetLink("user@acme.test");
    const second = await resetLink("user@acme.test");
    const old = await post("/auth/Login/ResetPassword", { token: first, password: "replaced-Password-1" });
    expect(old.status).toBe(400);
    expect(old.body.detail).toBe("token_replaced");
    expect((await post("/auth/Login/ResetPassword", { token: second, password: "replaced-Password-1" })).status).toBe(204);
    expect((await post("/auth/Login/PasswordLogin", { email: "user@acme.test", password: "replaced-Password-1" })).status).toBe(200);
    await tdb.db`delete from auth_attempts`;
  });

  test("an expired link (older than an hour) is refused and changes nothing", async () => {
    const token = await resetLink("admin@globex.test");
    await tdb.db`update account_tokens set expires_at = now() - interval '1 second' where purpose = 'PasswordReset' and email = 'admin@globex.test' and used_at is null and revoked_at is null`;
    const res = await post("/auth/Login/ResetPassword", { token, password: "expired-Password-1" });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("token_expired");
    expect((await post("/auth/Login/PasswordLogin", { email: "admin@globex.test", password: "Password123!" })).status, "the password is unchanged").toBe(200);
  });

  test("links live one hour and are stored only as hashes", async () => {
    await resetLink("staff@ideally.test");
    const [row] = await tdb.db`
      select token_hash, extract(epoch from expires_at - created_at)::int as ttl from account_tokens
      where purpose = 'PasswordReset' and email = 'staff@ideally.test' order by created_at desc limit 1`;
    expect(row!.ttl).toBe(3600);
    const token = tokenOf((await mailbox("staff@ideally.test"))[0]!.links[0]!);
    expect(row!.token_hash).not.toBe(token);
    expect(row!.token_hash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("a made-up token is refused; repeated failures from one address are throttled", async () => {
    const { app: other } = await realApp(tdb.db, { ip: "198.51.100.4" });
    const bad = await req(other, "POST", "/auth/Login/ResetPassword", { body: { token: "not-a-real-token", password: "whatever-Password-1" } });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toBe("token_invalid");
    for (let i = 1; i < 20; i++) await req(other, "POST", "/auth/Login/AcceptInvitation", { body: { token: `guess-${i}`, password: "whatever-Password-1" } });
    const blocked = await req(other, "POST", "/auth/Login/ResetPassword", { body: { token: "guess-final", password: "whatever-Password-1" } });
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBeTruthy();
    await tdb.db`delete from auth_attempts`;
  });

  test("empty and malformed bodies are 400s naming the fields", async () => {
    const empty = await post("/auth/Login/ResetPassword", {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["password", "token"]);
    expect((await post("/auth/Login/ForgotPassword", { email: "not-an-email" })).status).toBe(400);
    expect((await post("/auth/Login/AcceptInvitation", { token: "x", password: "long-enough-1", extra: 1 })).status, "unknown fields").toBe(400);
  });
});

describe("temporary passwords (NewPasswordRequired)", () => {
  test("the temporary password is proven, the new one set, and the person signed in", async () => {
    // viewer@acme.test gets a temporary password (as SuperAdminUserCreate gives one).
    await tdb.db`delete from auth_attempts`;
    await tdb.db`update cognito_users set status = 'FORCE_CHANGE_PASSWORD' where user_id = 9005 and cognito_idp_id is null`;
    const plain = await post("/auth/Login/PasswordLogin", { email: "viewer@acme.test", password: "Password123!" });
    expect(plain.status, "a temporary password does not sign in by itself").toBe(403);
    expect(plain.body.typename, "the login page learns to ask for a new password").toBe("NewPasswordRequired");
    const [{ hash }] = (await tdb.db`select password_hash as hash from users where email = 'viewer@acme.test'`) as unknown as [{ hash: string }];
    try {
      const wrong = await post("/auth/Login/NewPasswordRequired", { email: "viewer@acme.test", password: "not-the-temp", newPassword: "brand-New-Password-1" });
      const unknown = await post("/auth/Login/NewPasswordRequired", { email: "nobody@acme.test", password: "not-the-temp", newPassword: "brand-New-Password-1" });
      expect(wrong.status).toBe(401);
      expect(unknown.status).toBe(401);
      expect(wrong.body, "a wrong password and an unknown email answer alike").toEqual(unknown.body);
      const same = await post("/auth/Login/NewPasswordRequired", { email: "viewer@acme.test", password: "Password123!", newPassword: "Password123!" });
      expect(same.status).toBe(400);
      expect(same.body.errors[0].path).toBe("newPassword");

      const ok = await post("/auth/Login/NewPasswordRequired", { email: "viewer@acme.test", password: "Password123!", newPassword: "brand-New-Password-1" });
      expect(ok.status, JSON.stringify(ok.body)).toBe(200);
      expect(ok.body.accessToken).toBeString();
      expect(ok.cookie).toStartWith("ideally_refresh=");
      const [identity] = await tdb.db`select status from cognito_users where user_id = 9005 and cognito_idp_id is null`;
      expect(identity!.status).toBe("CONFIRMED");
      expect((await post("/auth/Login/PasswordLogin", { email: "viewer@acme.test", password: "brand-New-Password-1" })).status).toBe(200);

      const notNeeded = await post("/auth/Login/NewPasswordRequired", { email: "viewer@acme.test", password: "brand-New-Password-1", newPassword: "another-Password-2" });
      expect(notNeeded.status, "only for a temporary password").toBe(400);
      expect(notNeeded.body.detail).toBe("not_required");
    } finally {
      await tdb.db`update users set password_hash = ${hash} where id = 9005`;
      await tdb.db`delete from auth_attempts`;
    }
  });

  test("counts towards the sign-in limit of the account", async () => {
    for (let i = 0; i < 5; i++) {
      expect((await post("/auth/Login/NewPasswordRequired", { email: "user@acme.test", password: "wrong-password", newPassword: "brand-New-Password-1" })).status).toBe(401);
    }
    const blocked = await post("/auth/Login/PasswordLogin", { email: "user@acme.test", password: "wrong-password" });
    expect(blocked.status).toBe(429);
    await tdb.db`delete from auth_attempts`;
  });
});

describe("GetInvite", () => {
  test("without the invite's token, the same answer for any email: nobody learns which client invited an address", async () => {
    const empty = (email: string) => ({ email, pending: false, clientName: null, expiresAt: null });
    const none = await req(app, "GET", "/auth/Login/GetInvite/stranger@example.org");
    expect(none.status).toBe(200);
    expect(none.body).toEqual(empty("stranger@example.org"));
    expect((await req(app, "GET", "/auth/Login/GetInvite/user@acme.test")).body).toEqual(empty("user@acme.test"));
    // The fixtures hold a pending team invite of Acme Team A for newbie@acme.test.
    expect((await req(app, "GET", "/auth/Login/GetInvite/newbie@acme.test")).body).toEqual(empty("newbie@acme.test"));
    expect((await req(app, "GET", "/auth/Login/GetInvite/newbie@acme.test?token=made-up")).body).toEqual(empty("newbie@acme.test"));
    expect((await req(app, "GET", "/auth/Login/GetInvite/not-an-email")).status).toBe(400);
  });

  test("another address's invite token names nothing for this address", async () => {
    const admin = await login(app, "admin@acme.test");
    expect((await post("/api/v1/Users", { email: "tok.holder@acme.test", roleId: 3 }, { token: admin.token, clientId: 1003 })).status).toBe(201);
    const [invite] = await mailbox("tok.holder@acme.test");
    const token = tokenOf(invite!.links[0]!);
    const own = await req(app, "GET", `/auth/Login/GetInvite/tok.holder@acme.test?token=${encodeURIComponent(token)}`);
    expect(own.body).toMatchObject({ pending: true, clientName: "Acme Team A" });
    const other = await req(app, "GET", `/auth/Login/GetInvite/newbie@acme.test?token=${encodeURIComponent(token)}`);
    expect(other.body).toEqual({ email: "newbie@acme.test", pending: false, clientName: null, expiresAt: null });
  });

  test("limited per IP address (60 lookups in 15 minutes)", async () => {
    const { app: other } = await realApp(tdb.db, { ip: "192.0.2.55" });
    for (let i = 0; i < 60; i++) expect((await req(other, "GET", `/auth/Login/GetInvite/p${i}@example.org`)).status).toBe(200);
    const blocked = await req(other, "GET", "/auth/Login/GetInvite/p60@example.org");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toBeTruthy();
    await tdb.db`delete from auth_attempts`;
  });
});
