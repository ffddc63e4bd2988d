// Which role wins when a user holds different roles on a team, its org and its enterprise.
// docs/decisions.md ("Tenant entry in the database"): a membership on an org or enterprise applies
// to every client beneath it, and the most privileged applicable one wins (1 Admin < 2 User <
// 3 Viewer, so the smallest id). Fixture users (tests/helpers/fixtures.sql), Initech's tree
// 3001 Enterprise > 3002 Org > 3003 Team:
//   initechMixed  (9007): Admin of 3003, Viewer of 3002, User of 3001.
//   initechLifted (9008): Viewer of 3003, Admin of 3001.
// The expected roles below are worked out by hand from that rule, not read from the code.
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

const EXPECTED: { who: "initechMixed" | "initechLifted"; clientId: number; roleId: number; why: string }[] = [
  { who: "initechMixed", clientId: 3003, roleId: 1, why: "its own Admin beats the User inherited from the enterprise" },
  { who: "initechMixed", clientId: 3002, roleId: 2, why: "the User inherited from the enterprise beats its own Viewer" },
  { who: "initechMixed", clientId: 3001, roleId: 2, why: "its own User; nothing above" },
  { who: "initechLifted", clientId: 3003, roleId: 1, why: "the Admin inherited from the enterprise beats its own Viewer" },
  { who: "initechLifted", clientId: 3002, roleId: 1, why: "inherited from the enterprise" },
  { who: "initechLifted", clientId: 3001, roleId: 1, why: "its own Admin" },
];
const NAMES: Record<number, string> = { 1: "Admin", 2: "User", 3: "Viewer" };

describe("the most privileged applicable membership wins", () => {
  test.each(EXPECTED)("$who on $clientId is role $roleId: $why", async ({ who, clientId, roleId }) => {
    // The request's tenant entry (app_enter) resolves this role.
    const mine = await call(app, who, clientId, "GET", "/api/v1/Users/MyPermissions");
    expect(mine.status).toBe(200);
    expect(mine.body.role).toEqual({ id: roleId, roleName: NAMES[roleId] });
  });

  test.each(["initechMixed", "initechLifted"] as const)("MyPolicies gives %s the same roles across the tree", async (who) => {
    const res = await call(app, who, null, "GET", "/api/v1/Users/MyPolicies");
    expect(res.status).toBe(200);
    const byClient = Object.fromEntries((res.body.value as { clientId: number; role: { id: number } | null }[]).map((r) => [r.clientId, r.role?.id]));
    for (const e of EXPECTED.filter((x) => x.who === who)) expect(byClient[e.clientId], `${who} on ${e.clientId}`).toBe(e.roleId);
  });

  test("the winning role decides what the user may do: a team Viewer lifted to Admin by the enterprise invites; an org Viewer lifted to User does not", async () => {
    // Inviting a member needs Admin on the client (docs/permissions.md).
    const lifted = await call(app, "initechLifted", 3003, "POST", "/api/v1/Users", { email: "new.one@initech.test", firstName: "New", roleId: 3 });
    expect(lifted.status).toBe(201);
    const mixed = await call(app, "initechMixed", 3002, "POST", "/api/v1/Users", { email: "new.two@initech.test", firstName: "Two", roleId: 3 });
    expect(mixed.status).toBe(403);
  });

  test("app_user_client_role (watchers, owners, notifications) agrees", async () => {
    // As a system caller in the all-clients scope (the function checks the caller may touch the client).
    const rows = await tdb.db.begin(async (tx) => {
      await tx`select set_config('app.all_clients', 'on', true)`;
      return tx<{ r: number }[]>`
        select app_user_client_role(u, c) as r from (values (1, 9007, 3003), (2, 9007, 3002), (3, 9007, 3001), (4, 9008, 3003), (5, 9008, 3002), (6, 9008, 3001)) v(i, u, c) order by i`;
    });
    expect(rows.map((x) => x.r)).toEqual(EXPECTED.map((e) => e.roleId));
  });
});

describe("app_enter's tenant scope and its login session (migration 0009), called as the entry calls it", () => {
  /** app_enter in a transaction: its answer and the client ids it leaves for row-level security. */
  const enter = (user: number, client: number | null, descendants: boolean, session: string | null = null) =>
    tdb.db.begin(async (tx) => {
      const [r] = await tx<{ role: number | null }[]>`select app_enter(${user}, ${client}, ${descendants}, ${session}::uuid) as role`;
      const [s] = await tx<{ ids: string }[]>`select current_setting('app.client_ids') as ids`;
      return {
        role: r!.role,
        ids: s!.ids
          .split(",")
          .filter(Boolean)
          .map(Number)
          .sort((a, b) => a - b),
      };
    });

  test("an enterprise's descendants reach its grandchildren (the teams under its org)", async () => {
    // By hand from tests/helpers/fixtures.sql: Acme Enterprise 1001 > Acme Org 1002 > Teams 1003 and 1004;
    // admin@acme.test (9003) is Admin of 1001 and of 1003.
    expect(await enter(9003, 1001, true), "requestscope descendants on the enterprise").toEqual({ role: 1, ids: [1001, 1002, 1003, 1004] });
    expect(await enter(9003, 1002, true), "on the org: its teams, not its parent").toEqual({ role: 1, ids: [1002, 1003, 1004] });
    expect(await enter(9003, 1001, false), "without descendants: the client alone").toEqual({ role: 1, ids: [1001] });
    // No client chosen: every client the memberships reach, with their descendants (1003 is among them twice).
    expect(await enter(9003, null, false)).toEqual({ role: null, ids: [1001, 1002, 1003, 1004] });
  });

  test("an expired login session ends its tokens; a live one enters; a revoked one does not", async () => {
    const live = crypto.randomUUID();
    const expired = crypto.randomUUID();
    const revoked = crypto.randomUUID();
    await tdb.db`insert into auth_sessions (id, user_id, method, expires_at, revoked_at) values
      (${live}, 9004, 'password', now() + interval '1 hour', null),
      (${expired}, 9004, 'password', now() - interval '1 second', null),
      (${revoked}, 9004, 'password', now() + interval '1 hour', now())`;
    // user@acme.test (9004) is User (2) of Acme Team A (1003).
    expect(await enter(9004, 1003, false, live)).toEqual({ role: 2, ids: [1003] });
    await expect(enter(9004, 1003, false, expired), "expired a second ago").rejects.toThrow("session ended");
    await expect(enter(9004, 1003, false, revoked), "signed out").rejects.toThrow("session ended");
    // Another user's live session does not carry this user in.
    await expect(enter(9003, 1003, false, live), "someone else's session").rejects.toThrow("session ended");
  });
});
