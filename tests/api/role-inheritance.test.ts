// Which role wins when a user holds different roles on a team, its org and its enterprise.
// docs/decisions.md ("Membership, inherited roles"): a membership on an org or enterprise applies
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
