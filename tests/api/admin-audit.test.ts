// Staff changes to the rows the admin area edits leave an audit row (migration 0033): who, what
// (the changed fields, never a password hash) and when, written in the change's own transaction;
// the same change by a client's Admin, or one that is rolled back, leaves none.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
}, 120_000);
afterAll(async () => {
  await tdb.drop();
});

type Row = { userId: number | null; clientId: number | null; entityType: string; entityId: number | null; event: string; data: any };
async function rowsAfter(id: number): Promise<Row[]> {
  return tdb.db<Row[]>`select user_id as "userId", client_id as "clientId", entity_type as "entityType", entity_id as "entityId", event, data
                         from data_events_log where id > ${id} order by id`;
}
async function lastId(): Promise<number> {
  const [r] = await tdb.db<{ id: number }[]>`select coalesce(max(id), 0)::int as id from data_events_log`;
  return r!.id;
}

test("staff disabling and enabling a user are audited with the changed field", async () => {
  const from = await lastId();
  const off = await call(app, "ops", 1003, "POST", "/api/v1/Users(9005)/Disable", {});
  expect(off.status, JSON.stringify(off.body)).toBe(200);
  const rows = (await rowsAfter(from)).filter((r) => r.entityType === "User" && r.entityId === 9005);
  expect(rows.length, "one audit row for the user").toBe(1);
  expect(rows[0]).toMatchObject({ userId: 9002, event: "Updated" });
  expect(Object.keys(rows[0]!.data.changes), "only the disabled flag changed").toEqual(["disabled_at"]);
  expect(rows[0]!.data.changes.disabled_at.from).toBeNull();
  const on = await call(app, "ops", 1003, "POST", "/api/v1/Users(9005)/Enable", {});
  expect(on.status).toBe(200);
  const back = (await rowsAfter(from)).filter((r) => r.entityType === "User" && r.entityId === 9005);
  expect(back.length).toBe(2);
  expect(back[1]!.data.changes.disabled_at.to, "enabled again").toBeNull();
});

test("a client's Admin doing the same leaves no staff audit row", async () => {
  const from = await lastId();
  const off = await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(9005)/Disable", {});
  expect(off.status, JSON.stringify(off.body)).toBe(200);
  expect(
    (await rowsAfter(from)).filter((r) => r.entityType === "User"),
    "not an admin-area action",
  ).toEqual([]);
  await call(app, "acmeAdmin", 1003, "POST", "/api/v1/Users(9005)/Enable", {});
});

test("flag switches and a client's flag rows are audited; the row's client is named", async () => {
  const from = await lastId();
  expect((await call(app, "ops", null, "POST", "/api/v1/FeatureFlags(3)/Enable", {})).status).toBe(200);
  const created = await call(app, "ops", 2001, "POST", "/api/v1/ClientFeatures", { featureFlagId: 3, isEnabled: true });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect((await call(app, "ops", 2001, "DELETE", `/api/v1/ClientFeatures(${created.body.id})`)).status).toBe(204);
  const rows = await rowsAfter(from);
  expect(rows.map((r) => `${r.entityType} ${r.event}`)).toEqual(["FeatureFlag Updated", "ClientFeature Created", "ClientFeature Deleted"]);
  expect(rows[0]!.data.changes.is_enabled, "the global switch").toEqual({ from: false, to: true });
  expect(rows[1]).toMatchObject({ clientId: 2001, entityId: created.body.id, userId: 9002 });
  expect(rows[1]!.data.row.is_enabled).toBe(true);
});

test("a super admin's user update is audited with its membership changes, never a password hash", async () => {
  const from = await lastId();
  const r = await call(app, "staff", null, "POST", "/api/v1/Users(9005)/SuperAdminUserUpdate", { firstName: "Victor", memberships: [{ clientId: 1003, roleId: 2 }] });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  const rows = (await rowsAfter(from)).filter((x) => x.entityType === "User" && x.entityId === 9005);
  expect(
    rows.every((x) => x.userId === 9001),
    "the super admin is the actor",
  ).toBe(true);
  const names = rows.find((x) => x.event === "Updated");
  expect(names?.data.changes.first_name, "the name change").toEqual({ from: "Vic", to: "Victor" });
  expect(
    rows.some((x) => x.event.startsWith("Membership")),
    "the membership change",
  ).toBe(true);
  expect(JSON.stringify(rows), "no password hash in the log").not.toMatch(/argon2|password_hash/);
});

test("an audited change that fails leaves no audit row", async () => {
  const from = await lastId();
  // A second row for the same client and flag breaks the unique key: the insert and its audit roll back.
  const first = await call(app, "ops", 2001, "POST", "/api/v1/ClientFeatures", { featureFlagId: 1, isEnabled: true });
  expect(first.status).toBe(201);
  const again = await call(app, "ops", 2001, "POST", "/api/v1/ClientFeatures", { featureFlagId: 1, isEnabled: false });
  expect([again.status, again.body], "the unique key's conflict, in the error shape").toEqual([409, { typename: "Conflict", message: "ClientFeatures: a row with the same unique values exists" }]);
  const rows = (await rowsAfter(from)).filter((r) => r.entityType === "ClientFeature");
  expect(rows.length, "only the first insert is in the log").toBe(1);
});
