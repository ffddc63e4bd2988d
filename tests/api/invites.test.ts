// Team invites (POST /Users, ResendInvite) and share links (registration through a link, and
// LinkInvites GetDemoProjectByIdentifier / AcceptShare): happy paths, errors and who may.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, login, realApp, refreshCookie, testApp, TEST_PUBLIC_URL } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App; // fixture principals as bearer tokens (tenant operations)
let real: App; // real sign-in (the /auth calls)
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  ({ app: real } = await realApp(tdb.db));
});
afterAll(async () => {
  await tdb.drop();
});

async function req(method: string, path: string, opts: { body?: unknown; token?: string; clientId?: number } = {}) {
  const headers: Record<string, string> = {};
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.clientId !== undefined) headers.clientId = String(opts.clientId);
  const res = await real.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null, cookie: refreshCookie(res) };
}

async function mailbox(to: string): Promise<{ template: string; subject: string; links: string[]; text: string; html: string }[]> {
  const res = await call(app, "ops", null, "GET", `/api/v1/DevMailbox?to=${encodeURIComponent(to)}`);
  expect(res.status).toBe(200);
  return res.body.value;
}
const tokenOf = (link: string) => new URL(link).searchParams.get("token")!;
const DEMO_LINK = "00000000-0000-4000-8000-000000002001"; // fixtures: Globex's Demo link to project 2001
const TEAM_INVITE_LINK = "00000000-0000-4000-8000-000000001001"; // fixtures: a TeamInvite (not a registration link)

describe("team invites (POST /Users)", () => {
  test("a new email: an invited account, a membership, a 7-day token, a notification and the invite email", async () => {
    const res = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: " Vera.Viewer@acme.test ", firstName: "Vera", roleId: 3 });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ email: "Vera.Viewer@acme.test", firstName: "Vera", lastName: null, isStaff: false });
    expect(res.body.invitedAt).toBeString();
    const id = res.body.id as number;

    const [u] = await tdb.db`select password_hash, default_client_id from users where id = ${id}`;
    expect(u!.password_hash, "no password until accepted").toBeNull();
    expect(u!.default_client_id).toBe(1003);
    const [m] = await tdb.db`select role_id from user_and_clients where user_id = ${id} and client_id = 1003`;
    expect(m!.role_id).toBe(3);
    const [li] = await tdb.db`select invite_type, role_id, invited_by_user_id, extract(epoch from expires_at - created_at)::int as ttl
                               from link_invites where lower(email) = 'vera.viewer@acme.test'`;
    expect(li).toMatchObject({ invite_type: "TeamInvite", role_id: 3, invited_by_user_id: 9003 });
    expect(li!.ttl).toBe(7 * 24 * 3600);
    const [t] = await tdb.db`select client_id, extract(epoch from expires_at - created_at)::int as ttl from account_tokens where purpose = 'TeamInvite' and user_id = ${id}`;
    expect(t).toMatchObject({ client_id: 1003, ttl: 7 * 24 * 3600 });
    const [cu] = await tdb.db`select status from cognito_users where user_id = ${id}`;
    expect(cu!.status).toBe("UNCONFIRMED");
    const [n] = await tdb.db`select n.client_id, n.title, n.url, t.name from notifications n join notification_types t on t.id = n.notification_type_id where n.user_id = ${id}`;
    expect(n).toMatchObject({ name: "UserAddedToTeam", client_id: 1003, title: "You were added to Acme Team A", url: "/1003/home" });

    const [mail] = await mailbox("vera.viewer@acme.test");
    expect(mail!.template).toBe("teamInvite");
    expect(mail!.text).toContain("Ada Admin has invited you to join Acme Team A");
    expect(mail!.links[0]!.startsWith(`${TEST_PUBLIC_URL}/auth/accept-invite?token=`)).toBe(true);

    // The team sees the pending person among its users.
    const list = await call(app, "acmeAdmin", 1003, "GET", `/api/v1/Users?$filter=id eq ${id}&$select=id,invitedAt`);
    expect(list.body.value.length).toBe(1);
  });

  test("an existing account is invited, not added: a pending membership, and nothing of the person shown", async () => {
    const res = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "admin@globex.test", roleId: 2 });
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    // Only what the Admin typed and the invitation itself: no names, last sign-in, home client or staff flag.
    expect(res.body).toEqual({ email: "admin@globex.test", pending: true, clientId: 1003, roleId: 2, expiresAt: expect.any(String) });
    const none = await tdb.db`select 1 from user_and_clients where user_id = 9006 and client_id = 1003`;
    expect(none.length, "not a member before accepting").toBe(0);
    expect((await call(app, "acmeAdmin", 1003, "GET", "/api/v1/Users(9006)")).status, "the Admin cannot read the person").toBe(404);
    const [mail] = await mailbox("admin@globex.test");
    expect(mail!.template).toBe("teamInviteExisting");
    expect(mail!.text).toContain("Ada Admin has invited you to join Acme Team A");
    expect(mail!.links).toEqual([`${TEST_PUBLIC_URL}/auth/login`]);
    const tokens = await tdb.db`select 1 from account_tokens where user_id = 9006 and purpose = 'TeamInvite'`;
    expect(tokens.length, "an active account needs no link").toBe(0);

    // The person sees the invitation and accepts it.
    const mine = await call(app, "globexAdmin", null, "GET", "/api/v1/Users/MyInvitations");
    expect(mine.status).toBe(200);
    expect(mine.body.value).toEqual([{ clientId: 1003, clientName: "Acme Team A", roleId: 2, invitedBy: "Ada Admin", expiresAt: expect.any(String) }]);
    expect((await call(app, "acmeUser", null, "GET", "/api/v1/Users/MyInvitations")).body.value, "nobody else's").toEqual([]);
    expect((await call(app, "acmeUser", null, "POST", "/api/v1/Users/AcceptMembership", { clientId: 1003 })).status, "not invited").toBe(404);
    const accepted = await call(app, "globexAdmin", null, "POST", "/api/v1/Users/AcceptMembership", { clientId: 1003 });
    expect(accepted.status).toBe(200);
    expect(accepted.body).toEqual({ clientId: 1003, roleId: 2 });
    const [m] = await tdb.db`select role_id from user_and_clients where user_id = 9006 and client_id = 1003`;
    expect(m!.role_id).toBe(2);
    expect((await call(app, "acmeAdmin", 1003, "GET", "/api/v1/Users(9006)")).status, "a member now").toBe(200);
    expect((await call(app, "globexAdmin", null, "POST", "/api/v1/Users/AcceptMembership", { clientId: 1003 })).status, "once").toBe(404);
    await tdb.db`delete from user_and_clients where user_id = 9006 and client_id = 1003`;
  });

  test("provider staff are invited like anyone: the answer does not say they are staff", async () => {
    const res = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "ops@ideally.test", roleId: 3 });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(["clientId", "email", "expiresAt", "pending", "roleId"]);
    expect((await tdb.db`select 1 from user_and_clients where user_id = 9002`).length).toBe(0);
  });

  test("an expired invitation cannot be accepted", async () => {
    expect((await call(app, "acmeAdmin", 1004, "POST", "/api/v1/Users", { email: "admin@globex.test", roleId: 3 })).status).toBe(202);
    await tdb.db`update pending_memberships set expires_at = now() - interval '1 second' where user_id = 9006 and client_id = 1004`;
    expect((await call(app, "globexAdmin", null, "GET", "/api/v1/Users/MyInvitations")).body.value).toEqual([]);
    expect((await call(app, "globexAdmin", null, "POST", "/api/v1/Users/AcceptMembership", { clientId: 1004 })).status).toBe(404);
  });

  test("an invitation can be declined: gone from MyInvitations, no membership, and not accepted afterwards", async () => {
    expect((await call(app, "acmeAdmin", 1004, "POST", "/api/v1/Users", { email: "admin@globex.test", roleId: 2 })).status).toBe(202);
    expect((await call(app, "acmeUser", null, "POST", "/api/v1/Users/DeclineMembership", { clientId: 1004 })).status, "not invited").toBe(404);
    const declined = await call(app, "globexAdmin", null, "POST", "/api/v1/Users/DeclineMembership", { clientId: 1004 });
    expect(declined.status, JSON.stringify(declined.body)).toBe(204);
    expect((await call(app, "globexAdmin", null, "GET", "/api/v1/Users/MyInvitations")).body.value).toEqual([]);
    expect((await tdb.db`select 1 from pending_memberships where user_id = 9006 and client_id = 1004`).length).toBe(0);
    expect((await tdb.db`select 1 from user_and_clients where user_id = 9006 and client_id = 1004`).length, "not a member").toBe(0);
    expect((await call(app, "globexAdmin", null, "POST", "/api/v1/Users/AcceptMembership", { clientId: 1004 })).status, "nothing left to accept").toBe(404);
    expect((await call(app, "globexAdmin", null, "POST", "/api/v1/Users/DeclineMembership", { clientId: 1004 })).status, "once").toBe(404);
    expect((await call(app, "globexAdmin", null, "POST", "/api/v1/Users/DeclineMembership", { clientId: "x" })).status, "bad input").toBe(400);
  });

  test("an account never activated accepts through its invite link", async () => {
    // Invited by Acme (a new email: added, with a link), then by Globex before activating.
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "twice@acme.test", roleId: 2 })).status).toBe(201);
    const second = await call(app, "globexAdmin", 2001, "POST", "/api/v1/Users", { email: "twice@acme.test", roleId: 3 });
    expect(second.status).toBe(202);
    expect(second.body).not.toHaveProperty("firstName");
    const [mail] = await mailbox("twice@acme.test");
    expect(mail!.template).toBe("teamInvite");
    const res = await req("POST", "/auth/Login/AcceptInvitation", { body: { token: tokenOf(mail!.links[0]!), password: "twice-Password-1" } });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const [m] = await tdb.db`select role_id from user_and_clients where client_id = 2001 and user_id = (select id from users where email = 'twice@acme.test')`;
    expect(m!.role_id, "a Globex Viewer once accepted").toBe(3);
  });

  test("conflicts and bad input", async () => {
    const member = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "USER@acme.test", roleId: 2 });
    expect(member.status, "already a member").toBe(409);
    expect(member.body.message).toContain("already a member of Acme Team A");
    const empty = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", {});
    expect(empty.status).toBe(400);
    expect(empty.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["email", "roleId"]);
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "x@acme.test", roleId: 4 })).status).toBe(400);
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "x@acme.test", roleId: 2, isStaff: true })).status, "no other fields").toBe(400);
    expect((await call(app, "ops", null, "POST", "/api/v1/Users", { email: "x@acme.test", roleId: 2 })).status, "staff must name the client").toBe(400);
    await tdb.db`update users set disabled_at = now() where id = 9006`;
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "admin@globex.test", roleId: 2 })).status, "a disabled account").toBe(409);
    await tdb.db`update users set disabled_at = null where id = 9006`;
  });

  test("who may invite: Admins (inherited down the tree) and staff; not Users, Viewers or other tenants", async () => {
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Users", { email: "u1@acme.test", roleId: 3 })).status).toBe(403);
    expect((await call(app, "acmeViewer", 1003, "POST", "/api/v1/Users", { email: "u1@acme.test", roleId: 3 })).status).toBe(403);
    expect((await call(app, "globexAdmin", 1003, "POST", "/api/v1/Users", { email: "u1@acme.test", roleId: 3 })).status).toBe(403);
    expect((await call(app, null, 1003, "POST", "/api/v1/Users", { email: "u1@acme.test", roleId: 3 })).status).toBe(401);
    const teamB = await call(app, "acmeAdmin", 1004, "POST", "/api/v1/Users", { email: "teamb@acme.test", roleId: 2 });
    expect(teamB.status, "an enterprise Admin administers Team B").toBe(201);
    const staff = await call(app, "ops", 2001, "POST", "/api/v1/Users", { email: "globex.new@globex.test", roleId: 1 });
    expect(staff.status).toBe(201);
    const nobody = await tdb.db`select 1 from users where email = 'u1@acme.test'`;
    expect(nobody.length, "refused calls create nothing").toBe(0);
  });

  test("accepting activates the account; a person removed from the team meanwhile cannot accept", async () => {
    await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "removed@acme.test", roleId: 2 });
    const token = tokenOf((await mailbox("removed@acme.test"))[0]!.links[0]!);
    await tdb.db`delete from user_and_clients where client_id = 1003 and user_id = (select id from users where email = 'removed@acme.test')`;
    const res = await req("POST", "/auth/Login/AcceptInvitation", { body: { token, password: "removed-Password-1" } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("token_invalid");
  });

  test("an expired invite is refused", async () => {
    await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "late@acme.test", roleId: 2 });
    const token = tokenOf((await mailbox("late@acme.test"))[0]!.links[0]!);
    await tdb.db`update account_tokens set expires_at = now() - interval '1 minute' where email = 'late@acme.test'`;
    const res = await req("POST", "/auth/Login/AcceptInvitation", { body: { token, password: "late-Password-1" } });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe("token_expired");
  });
});

describe("ResendInvite", () => {
  test("a new link; the old one stops working; the new one signs in", async () => {
    const created = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users", { email: "resend@acme.test", lastName: "Again", roleId: 2 });
    const id = created.body.id as number;
    const first = tokenOf((await mailbox("resend@acme.test"))[0]!.links[0]!);
    const res = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Users(${id})/ResendInvite`);
    expect(res.status, JSON.stringify(res.body)).toBe(204);
    const mails = await mailbox("resend@acme.test");
    expect(mails.length).toBe(2);
    const second = tokenOf(mails[0]!.links[0]!);
    expect(second).not.toBe(first);

    const old = await req("POST", "/auth/Login/AcceptInvitation", { body: { token: first, password: "resend-Password-1" } });
    expect(old.status).toBe(400);
    expect(old.body.detail).toBe("token_replaced");
    const ok = await req("POST", "/auth/Login/AcceptInvitation", { body: { token: second, password: "resend-Password-1", firstName: "Rita" } });
    expect(ok.status).toBe(200);
    const [u] = await tdb.db`select first_name, last_name from users where id = ${id}`;
    expect(u).toEqual({ first_name: "Rita", last_name: "Again" });
    const links = await tdb.db`select accepted_at, accepted_by_user_id from link_invites where lower(email) = 'resend@acme.test'`;
    expect(links.length, "one invite record, renewed rather than duplicated").toBe(1);
    expect(links[0]!.accepted_by_user_id).toBe(id);

    const done = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Users(${id})/ResendInvite`);
    expect(done.status, "nothing to resend once activated").toBe(409);
  });

  test("only for members of the request's client, only by Admins", async () => {
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(9004)/ResendInvite")).status, "an active member").toBe(409);
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(9006)/ResendInvite")).status, "not a member of 1003").toBe(404);
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(-1)/ResendInvite")).status).toBe(404);
    expect((await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(abc)/ResendInvite")).status).toBe(400);
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/Users(9004)/ResendInvite")).status).toBe(403);
    expect((await call(app, "globexAdmin", 2001, "POST", "/api/v1/Users(9004)/ResendInvite")).status).toBe(404);
  });
});

describe("registration through a share link", () => {
  test("the landing data, for anyone holding the link; team invites and unknown links are 404", async () => {
    const res = await req("GET", `/auth/Login/GetRegistrationInvite/${DEMO_LINK}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      identifier: DEMO_LINK,
      inviteType: "Demo",
      clientName: "Globex",
      invitedByName: "Gil Globex",
      projectId: 2001,
      projectName: "Mobile plan ideas",
      projectType: "Idea",
      projectTypeId: 1,
      expired: false,
      expiresAt: null,
      forOneEmail: false,
    });
    expect((await req("GET", `/auth/Login/GetRegistrationInvite/${TEAM_INVITE_LINK}`)).status).toBe(404);
    expect((await req("GET", "/auth/Login/GetRegistrationInvite/00000000-0000-4000-8000-999999999999")).status).toBe(404);
    expect((await req("GET", "/auth/Login/GetRegistrationInvite/not-a-uuid")).status).toBe(404);
  });

  test("login methods: an existing account signs in, a new email registers", async () => {
    const q = (email: string, id = DEMO_LINK) => req("GET", `/auth/Login/GetRegistrationLoginMethods?inviteIdentifier=${id}&email=${encodeURIComponent(email)}`);
    const existing = await q("user@acme.test");
    expect(existing.status).toBe(200);
    expect(existing.body).toEqual({ accountExists: true, register: false, password: true, saml: { providerName: "AcmeSSO" }, linkedIn: false });
    const fresh = await q("fresh@example.org");
    expect(fresh.body).toEqual({ accountExists: false, register: true, password: false, saml: null, linkedIn: false });
    expect((await q("user@acme.test", "00000000-0000-4000-8000-999999999999")).status, "only for a real link").toBe(404);
    expect((await req("GET", `/auth/Login/GetRegistrationLoginMethods?inviteIdentifier=${DEMO_LINK}`)).status).toBe(400);
  });

  test("verify the email, then AcceptInvitation creates the account, shares the project and signs in", async () => {
    const email = "Reg.Person@example.org";
    const sent = await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: DEMO_LINK, email } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(204);
    const [mail] = await mailbox(email);
    expect(mail!.template).toBe("registrationVerify");
    expect(mail!.text).toContain('Globex shared the project "Mobile plan ideas" with you');
    const url = new URL(mail!.links[0]!);
    expect(`${url.origin}${url.pathname}`).toBe(`${TEST_PUBLIC_URL}/invites/demo`);
    expect(url.searchParams.get("identifier")).toBe(DEMO_LINK);
    expect((await tdb.db`select 1 from users where lower(email) = lower(${email})`).length, "no account before the address is proven").toBe(0);

    const ok = await req("POST", "/auth/Login/AcceptInvitation", {
      body: { token: url.searchParams.get("token"), password: "register-Password-1", firstName: "Reg", lastName: "Person" },
    });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.cookie).toStartWith("ideally_refresh=");
    const [u] = await tdb.db`select id, first_name, last_name from users where lower(email) = lower(${email})`;
    expect(u).toMatchObject({ first_name: "Reg", last_name: "Person" });
    const [share] = await tdb.db`select client_id, project_id, accepted_at, link_invite_id from project_shares where user_id = ${u!.id}`;
    expect(share).toMatchObject({ client_id: 2001, project_id: 2001, link_invite_id: 2001 });
    expect(share!.accepted_at).not.toBeNull();
    const memberships = await tdb.db`select 1 from user_and_clients where user_id = ${u!.id}`;
    expect(memberships.length, "a share is not a membership").toBe(0);
    const project = await req("GET", "/api/v1/Projects(2001)?$select=id,projectName", { token: ok.body.accessToken });
    expect(project.status, "the shared project is readable without a clientId").toBe(200);
    expect(project.body.projectName).toBe("Mobile plan ideas");
    const again = await req("POST", "/auth/Login/AcceptInvitation", { body: { token: url.searchParams.get("token"), password: "register-Password-2" } });
    expect(again.status).toBe(400);
    expect(again.body.detail).toBe("token_used");
  });

  test("an existing account is told to sign in instead (no token); 204 either way", async () => {
    const res = await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: DEMO_LINK, email: "viewer@acme.test" } });
    expect(res.status).toBe(204);
    const [mail] = await mailbox("viewer@acme.test");
    expect(mail!.template).toBe("registrationExistingAccount");
    expect(mail!.links).toEqual([`${TEST_PUBLIC_URL}/invites/demo?identifier=${DEMO_LINK}`]);
  });

  test("limited per email address (3 an hour)", async () => {
    for (let i = 0; i < 3; i++) {
      expect((await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: DEMO_LINK, email: "often@example.org" } })).status).toBe(204);
    }
    const blocked = await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: DEMO_LINK, email: "often@example.org" } });
    expect(blocked.status).toBe(429);
    const tokens = await tdb.db`select used_at, revoked_at from account_tokens where email = 'often@example.org' order by created_at`;
    expect(
      tokens.map((t) => t.revoked_at === null),
      "each email replaces the previous link",
    ).toEqual([false, false, true]);
    await tdb.db`delete from auth_attempts`;
  });
});

describe("share links for signed-in people (LinkInvites)", () => {
  let userToken: string;
  beforeAll(async () => {
    userToken = (await login(real, "user@acme.test")).token;
  });

  test("GetDemoProjectByIdentifier: the landing data; 404 unknown; 400 without identifier; 401 signed out", async () => {
    const res = await req("GET", `/api/v1/LinkInvites/GetDemoProjectByIdentifier?identifier=${DEMO_LINK}`, { token: userToken });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ projectId: 2001, projectName: "Mobile plan ideas", projectType: "Idea", clientName: "Globex", expired: false });
    expect((await req("GET", `/api/v1/LinkInvites/GetDemoProjectByIdentifier?identifier=${TEAM_INVITE_LINK}`, { token: userToken })).status).toBe(404);
    expect((await req("GET", "/api/v1/LinkInvites/GetDemoProjectByIdentifier", { token: userToken })).status).toBe(400);
    expect((await req("GET", `/api/v1/LinkInvites/GetDemoProjectByIdentifier?identifier=${DEMO_LINK}`)).status).toBe(401);
  });

  test("AcceptShare makes the project readable to the person; using the link again changes nothing", async () => {
    expect((await req("GET", "/api/v1/Projects(2001)?$select=id", { token: userToken })).status, "not shared yet").toBe(404);
    const res = await req("POST", "/api/v1/LinkInvites/AcceptShare", { body: { identifier: DEMO_LINK }, token: userToken });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ projectId: 2001, clientId: 2001 });
    const [row] = await tdb.db`select user_id, email, shared_by_user_id, link_invite_id from project_shares where id = ${res.body.projectShareId}`;
    expect(row).toEqual({ user_id: 9004, email: "user@acme.test", shared_by_user_id: 9006, link_invite_id: 2001 });
    expect((await req("GET", "/api/v1/Projects(2001)?$select=id,projectName", { token: userToken })).status, "readable now, without a clientId").toBe(200);
    const again = await req("POST", "/api/v1/LinkInvites/AcceptShare", { body: { identifier: DEMO_LINK }, token: userToken });
    expect(again.body.projectShareId).toBe(res.body.projectShareId);
    const write = await req("PATCH", "/api/v1/Projects(2001)", { body: { projectName: "Mine now" }, token: userToken, clientId: 2001 });
    expect(write.status, "a share is read-only: no membership of Globex").toBe(403);
  });

  test("expired links, links for another email, unknown links", async () => {
    const [expired] = await tdb.db`insert into link_invites (client_id, invite_type, project_id, invited_by_user_id, expires_at)
                                   values (2001, 'ProjectShare', 2002, 9006, now() - interval '1 day') returning identifier::text`;
    const [targeted] = await tdb.db`insert into link_invites (client_id, invite_type, project_id, email, invited_by_user_id)
                                    values (2001, 'ProjectShare', 2004, 'Partner@Example.org', 9006) returning id, identifier::text`;
    const accept = (identifier: string, token = userToken) => req("POST", "/api/v1/LinkInvites/AcceptShare", { body: { identifier }, token });

    const exp = await accept(expired!.identifier);
    expect(exp.status).toBe(400);
    expect(exp.body.detail).toBe("link_expired");
    const landing = await req("GET", `/auth/Login/GetRegistrationInvite/${expired!.identifier}`);
    expect(landing.body.expired, "the landing says so").toBe(true);
    expect((await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: expired!.identifier, email: "a@example.org" } })).status).toBe(400);

    expect((await accept(targeted!.identifier)).status, "made for another email").toBe(403);
    expect((await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: targeted!.identifier, email: "other@example.org" } })).status).toBe(403);
    expect((await accept("00000000-0000-4000-8000-999999999999")).status).toBe(404);
    expect((await accept("junk")).status).toBe(404);
    expect((await req("POST", "/api/v1/LinkInvites/AcceptShare", { body: {}, token: userToken })).status).toBe(400);

    // The person it was made for registers through it; the link then records who accepted it.
    expect((await req("POST", "/auth/Login/VerifyRegistrationEmail", { body: { inviteIdentifier: targeted!.identifier, email: "partner@example.org" } })).status).toBe(204);
    const token = tokenOf((await mailbox("partner@example.org"))[0]!.links[0]!);
    const ok = await req("POST", "/auth/Login/AcceptInvitation", { body: { token, password: "partner-Password-1" } });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const [l] = await tdb.db`select accepted_at, accepted_by_user_id from link_invites where id = ${targeted!.id}`;
    expect(l!.accepted_at).not.toBeNull();
    expect((await req("GET", "/api/v1/Projects(2004)?$select=id", { token: ok.body.accessToken })).status).toBe(200);
  });

  test("a signed-out session cannot accept", async () => {
    const s = await login(real, "admin@acme.test");
    const out = await real.request("/auth/Login/Logout", { method: "POST", headers: { cookie: s.cookie, authorization: `Bearer ${s.token}` } });
    expect(out.status).toBe(204);
    expect((await req("POST", "/api/v1/LinkInvites/AcceptShare", { body: { identifier: DEMO_LINK }, token: s.token })).status).toBe(401);
    const rows = await tdb.db`select 1 from project_shares where user_id = 9003 and project_id = 2001`;
    expect(rows.length).toBe(0);
  });
});
