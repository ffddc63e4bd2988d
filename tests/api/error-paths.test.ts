// Error paths written for operations whose refusals had their status checked elsewhere but never
// their message, or not at all (issue 27: "an error-path test for every operation that has a
// domain rule (403, 404, 409 and 400 with its message)"). The messages are the API's documented
// texts (the error shape of SPEC: { code, message, ... }); each refusal also leaves nothing behind.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { MANUAL_TYPES } from "../../api/src/domains/credits/ledger.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

const logCount = async () => (await tdb.db<{ n: number }[]>`select count(*)::int as n from credit_logs`)[0]!.n;

describe("CreditLogs/MakeCreditTransfer", () => {
  const transfer = (who: "acmeAdmin" | "staff" | "acmeUser", clientId: number | null, body: unknown) => call(app, who, clientId, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", body);

  test("400: one client on both sides", async () => {
    const before = await logCount();
    const r = await transfer("acmeAdmin", 1001, { fromClientId: 1003, toClientId: 1003, amount: 5 });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("A transfer needs two different clients");
    expect(await logCount()).toBe(before);
  });

  test("409: clients of two enterprises, named (staff, who see both)", async () => {
    const before = await logCount();
    const r = await transfer("staff", null, { fromClientId: 1003, toClientId: 2001, amount: 5 });
    expect(r.status).toBe(409);
    expect(r.body.message).toMatch(/^Credits move only between clients of one enterprise: Acme Team A \(1003\) and .+ \(2001\) are not$/);
    expect(await logCount()).toBe(before);
  });

  test("403: a User (transfers are an Admin's)", async () => {
    expect((await transfer("acmeUser", 1003, { fromClientId: 1003, toClientId: 1004, amount: 1 })).status).toBe(403);
  });

  test("404: a client outside the caller's scope", async () => {
    const r = await transfer("acmeAdmin", 1001, { fromClientId: 1003, toClientId: 999999, amount: 1 });
    expect(r.status).toBe(404);
  });
});

describe("CreditLogs PATCH and DELETE of a row the system wrote", () => {
  test("409 with the reason and what to do instead; the row unchanged", async () => {
    const [row] = await tdb.db<{ id: number; type: number; amount: number }[]>`
      select id, type, credit_amount::float8 as amount from credit_logs where type <> all(${[...MANUAL_TYPES]}::int[]) order by id limit 1`;
    expect(row, "the fixtures hold a system-written credit log").toBeDefined();
    const patch = await call(app, "ops", null, "PATCH", `/api/v1/CreditLogs(${row!.id})`, { creditAmount: row!.amount - 1 });
    expect(patch.status).toBe(409);
    expect(patch.body.message).toBe(`Credit log ${row!.id} is of type ${row!.type}, written by the system: only its description and hubspotDealId can change`);
    const del = await call(app, "ops", null, "DELETE", `/api/v1/CreditLogs(${row!.id})`);
    expect(del.status).toBe(409);
    expect(del.body.message).toBe(`Credit log ${row!.id} is of type ${row!.type}, written by the system: it cannot be deleted (add an adjustment instead)`);
    const [after] = await tdb.db<{ amount: number }[]>`select credit_amount::float8 as amount from credit_logs where id = ${row!.id}`;
    expect(after!.amount).toBe(row!.amount);
  });
});

describe("Users: one's own account", () => {
  test("DELETE Users(self): 409 for staff (who may delete users), 403 for a team Admin (who may not); the account kept", async () => {
    const r = await call(app, "staff", null, "DELETE", "/api/v1/Users(9001)");
    expect(r.status).toBe(409);
    expect(r.body.message).toBe("You cannot delete your own account");
    expect((await call(app, "acmeAdmin", 1003, "DELETE", "/api/v1/Users(9003)")).status).toBe(403);
    const [u] = await tdb.db<{ n: number }[]>`select count(*)::int as n from users where id in (9001, 9003)`;
    expect(u!.n).toBe(2);
  });

  test("Disable self: 409, still enabled", async () => {
    const r = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(9003)/Disable");
    expect(r.status).toBe(409);
    expect(r.body.message).toBe("You cannot disable your own account");
    const [u] = await tdb.db<{ disabledAt: Date | null }[]>`select disabled_at as "disabledAt" from users where id = 9003`;
    expect(u!.disabledAt).toBeNull();
  });
});

describe("ProjectObjectives DELETE", () => {
  test("409 on the project's default objective, with what to do instead; 404 for another team's", async () => {
    const p = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: "Objectives error paths", projectTypeId: 1, frameworkId: 1000 });
    expect(p.status, JSON.stringify(p.body)).toBe(201);
    const objective = p.body.activeProjectObjectiveId as number;
    const r = await call(app, "acmeUser", 1003, "DELETE", `/api/v1/ProjectObjectives(${objective})`);
    expect(r.status).toBe(409);
    expect(r.body.message).toBe("The default objective cannot be deleted; save a custom objective instead");
    const other = await call(app, "globexAdmin", 2001, "DELETE", `/api/v1/ProjectObjectives(${objective})`);
    expect(other.status).toBe(404);
    expect(other.body.message).toBe(`ProjectObjectives(${objective}) not found`);
    const viewer = await call(app, "acmeViewer", 1003, "DELETE", `/api/v1/ProjectObjectives(${objective})`);
    expect(viewer.status).toBe(403);
    const [o] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_objectives where id = ${objective}`;
    expect(o!.n, "the default objective is still there").toBe(1);
  });
});
