// Domain rules on every write path (issue 19, finding 2): the generic DELETE and PATCH of Users
// follow the rules of the users domain actions (Disable, RemoveFromAccount, SuperAdminUserUpdate):
// only a super admin deletes or alters a staff account, nobody deletes their own account, and no
// client loses its last Admin. Generic LinkInvites creates never make team invites (POST Users does).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

const exists = async (id: number) => (await tdb.db`select 1 from users where id = ${id}`).length === 1;

describe("PATCH Users({key})", () => {
  test("staff who are not super admin cannot alter a staff account; a super admin can", async () => {
    await tdb.db`insert into users (id, email, is_staff, role_id) values (9090, 'helper@ideally.test', true, 2)`;
    const r = await call(app, "ops", null, "PATCH", "/api/v1/Users(9001)", { firstName: "Mallory" });
    expect(r.status).toBe(403);
    expect(r.body.message).toBe("Only a super admin can delete or change staff accounts");
    const [u] = await tdb.db`select first_name from users where id = 9001`;
    expect(u?.first_name).toBe("Sam");
    const ok = await call(app, "staff", null, "PATCH", "/api/v1/Users(9090)", { firstName: "Helga" });
    expect(ok.status).toBe(200);
    expect(ok.body.firstName).toBe("Helga");
  });

  test("a member's own fields are still patched by staff", async () => {
    const r = await call(app, "staff", null, "PATCH", "/api/v1/Users(9004)", { jobTitle: "Researcher" });
    expect(r.status).toBe(200);
    expect(r.body.jobTitle).toBe("Researcher");
  });
});

describe("DELETE Users({key})", () => {
  test("staff who are not super admin cannot delete a staff account (the super admin included)", async () => {
    const r = await call(app, "ops", null, "DELETE", "/api/v1/Users(9001)");
    expect(r.status).toBe(403);
    expect(r.body.message).toBe("Only a super admin can delete or change staff accounts");
    expect(await exists(9001)).toBe(true);
  });

  test("nobody deletes their own account", async () => {
    const r = await call(app, "staff", null, "DELETE", "/api/v1/Users(9001)");
    expect(r.status).toBe(409);
    expect(await exists(9001)).toBe(true);
  });

  test("a client's last Admin is not deleted (Globex has one Admin)", async () => {
    const r = await call(app, "ops", null, "DELETE", "/api/v1/Users(9006)");
    expect(r.status).toBe(409);
    expect(r.body.message).toContain("last Admin");
    expect(await exists(9006)).toBe(true);
    const [m] = await tdb.db`select role_id from user_and_clients where user_id = 9006 and client_id = 2001`;
    expect(m?.role_id, "the membership is untouched").toBe(1);
  });

  test("clients' members are still deleted by staff when no rule is broken; a super admin deletes other staff", async () => {
    const r = await call(app, "ops", null, "DELETE", "/api/v1/Users(9005)");
    expect(r.status).toBe(204);
    expect(await exists(9005)).toBe(false);
    const s = await call(app, "staff", null, "DELETE", "/api/v1/Users(9090)");
    expect(s.status).toBe(204);
    expect(await exists(9090)).toBe(false);
    expect((await call(app, "staff", null, "DELETE", "/api/v1/Users(424242)")).status).toBe(404);
  });

  test("clients' Admins cannot use the generic delete at all", async () => {
    expect((await call(app, "acmeAdmin", 1003, "DELETE", "/api/v1/Users(9004)")).status).toBe(403);
    expect(await exists(9004)).toBe(true);
  });
});

describe("POST LinkInvites", () => {
  test("a generic create never makes a team invite (only POST Users, an Admin's invite, does)", async () => {
    const r = await call(app, "acmeUser", 1003, "POST", "/api/v1/LinkInvites", { inviteType: "TeamInvite", email: "friend@elsewhere.test", roleId: 1 });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("Team invites are made by inviting the person (POST /api/v1/Users)");
    const rows = await tdb.db`select 1 from link_invites where lower(email) = 'friend@elsewhere.test'`;
    expect(rows.length).toBe(0);
  });
});
