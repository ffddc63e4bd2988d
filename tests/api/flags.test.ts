// Feature flags: the staff switches (Enable, Disable, EnableIdeally, DisableIdeally) and the
// resolved set per user and client, each layer on its own: the global switch, the client's
// ClientFeatures override (on and off), and the Ideally switch for staff.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { resolveFlag } from "../../api/src/domains/flags/flags.service.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

async function as(who: string, method: string, path: string, clientId?: number): Promise<{ status: number; body: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${who}` };
  if (clientId !== undefined) headers.clientId = String(clientId);
  const res = await app.request(path, { method, headers });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
const sql = () => tdb.db;

/** The resolved flag `ff` for a caller on a client. */
async function flag(who: string, clientId: number | undefined, ff: string): Promise<{ isEnabled: boolean; source: string }> {
  const r = await as(who, "GET", "/api/v1/FeatureFlags/Resolved", clientId);
  expect(r.status).toBe(200);
  const f = r.body.value.find((x: any) => x.ff === ff);
  return { isEnabled: f.isEnabled, source: f.source };
}

// Flag ids from reference-data.sql: 1 beta-enabled, 2 CanChooseUsStateMarkets, 3 MarketReach.

describe("the resolution rule", () => {
  const l = (global: boolean, staff: boolean, client: boolean | null) => ({ id: 1, ff: "f", global, staff, client });
  test("the global switch decides when the client has no override", () => {
    expect(resolveFlag(l(true, false, null), false)).toMatchObject({ isEnabled: true, source: "global" });
    expect(resolveFlag(l(false, false, null), false)).toMatchObject({ isEnabled: false, source: "global" });
  });
  test("a client's override wins, on or off", () => {
    expect(resolveFlag(l(false, false, true), false)).toMatchObject({ isEnabled: true, source: "client" });
    expect(resolveFlag(l(true, false, false), false)).toMatchObject({ isEnabled: false, source: "client" });
  });
  test("the Ideally switch turns a flag on for staff only, whatever else says off", () => {
    expect(resolveFlag(l(false, true, null), true)).toMatchObject({ isEnabled: true, source: "ideally" });
    expect(resolveFlag(l(true, true, false), true)).toMatchObject({ isEnabled: true, source: "ideally" });
    expect(resolveFlag(l(false, true, null), false)).toMatchObject({ isEnabled: false, source: "global" });
  });
});

describe("FeatureFlags/Resolved", () => {
  test("the seeds: beta-enabled is kept, every flag off globally; the fixtures' client overrides apply", async () => {
    const r = await as("acmeUser", "GET", "/api/v1/FeatureFlags/Resolved", 1003);
    expect(r.body).toEqual({
      clientId: 1003,
      value: [
        { id: 1, ff: "beta-enabled", isEnabled: false, source: "global" },
        { id: 2, ff: "CanChooseUsStateMarkets", isEnabled: false, source: "global" },
        { id: 3, ff: "MarketReach", isEnabled: true, source: "client" },
      ],
    });
    expect(await flag("globexAdmin", 2001, "CanChooseUsStateMarkets")).toEqual({ isEnabled: true, source: "client" });
    expect(await flag("globexAdmin", 2001, "MarketReach")).toEqual({ isEnabled: false, source: "global" });
  });

  test("without a client: the global layer only", async () => {
    expect(await flag("acmeUser", undefined, "MarketReach")).toEqual({ isEnabled: false, source: "global" });
  });

  test("another tenant's client is refused", async () => {
    expect((await as("acmeUser", "GET", "/api/v1/FeatureFlags/Resolved", 2001)).status).toBe(403);
  });
});

describe("FeatureFlags Enable and Disable (the global switch)", () => {
  test("staff switch a flag on for everyone and off again", async () => {
    const on = await as("ops", "POST", "/api/v1/FeatureFlags(1)/Enable");
    expect(on.status).toBe(200);
    expect(on.body).toMatchObject({ id: 1, ff: "beta-enabled", isEnabled: true, isEnabledForStaff: false });
    expect(await flag("acmeViewer", 1003, "beta-enabled")).toEqual({ isEnabled: true, source: "global" });
    expect(await flag("globexAdmin", 2001, "beta-enabled")).toEqual({ isEnabled: true, source: "global" });
    const generic = await as("acmeUser", "GET", "/api/v1/FeatureFlags(1)");
    expect(generic.body.isEnabled).toBe(true);
    expect((await as("ops", "POST", "/api/v1/FeatureFlags(1)/Disable")).body.isEnabled).toBe(false);
    expect(await flag("acmeViewer", 1003, "beta-enabled")).toEqual({ isEnabled: false, source: "global" });
  });

  test("a client that switched a flag off keeps it off when it goes on globally", async () => {
    await sql()`insert into client_features (client_id, feature_flag_id, is_enabled) values (1003, 2, false)`;
    await as("staff", "POST", "/api/v1/FeatureFlags(2)/Enable");
    expect(await flag("acmeUser", 1003, "CanChooseUsStateMarkets")).toEqual({ isEnabled: false, source: "client" });
    expect(await flag("acmeAdmin", 1004, "CanChooseUsStateMarkets"), "Team B has no override").toEqual({ isEnabled: true, source: "global" });
    await as("staff", "POST", "/api/v1/FeatureFlags(2)/Disable");
  });

  test("client members cannot switch flags; a missing flag is 404", async () => {
    expect((await as("acmeAdmin", "POST", "/api/v1/FeatureFlags(1)/Enable", 1003)).status).toBe(403);
    expect((await as("acmeUser", "POST", "/api/v1/FeatureFlags(1)/EnableIdeally", 1003)).status).toBe(403);
    expect((await as("ops", "POST", "/api/v1/FeatureFlags(424242)/Enable")).status).toBe(404);
    const [f] = await sql()`select is_enabled, is_enabled_for_staff from feature_flags where id = 1`;
    expect(f).toEqual({ is_enabled: false, is_enabled_for_staff: false });
  });
});

describe("FeatureFlags EnableIdeally and DisableIdeally (staff only)", () => {
  test("on for provider staff, on any client, and nobody else", async () => {
    const r = await as("ops", "POST", "/api/v1/FeatureFlags(1)/EnableIdeally");
    expect(r.body).toMatchObject({ isEnabled: false, isEnabledForStaff: true });
    expect(await flag("ops", 1003, "beta-enabled")).toEqual({ isEnabled: true, source: "ideally" });
    expect(await flag("staff", undefined, "beta-enabled")).toEqual({ isEnabled: true, source: "ideally" });
    expect(await flag("acmeAdmin", 1003, "beta-enabled"), "client members do not see staff-only flags").toEqual({ isEnabled: false, source: "global" });
    await as("ops", "POST", "/api/v1/FeatureFlags(1)/DisableIdeally");
    expect(await flag("ops", 1003, "beta-enabled")).toEqual({ isEnabled: false, source: "global" });
  });

  test("staff see a staff-only flag even where the client switched it off", async () => {
    await as("staff", "POST", "/api/v1/FeatureFlags(2)/EnableIdeally");
    expect(await flag("staff", 1003, "CanChooseUsStateMarkets")).toEqual({ isEnabled: true, source: "ideally" });
    expect(await flag("acmeUser", 1003, "CanChooseUsStateMarkets")).toEqual({ isEnabled: false, source: "client" });
    await as("staff", "POST", "/api/v1/FeatureFlags(2)/DisableIdeally");
  });
});

test("Users/Me carries the same resolved set as FeatureFlags/Resolved", async () => {
  await as("ops", "POST", "/api/v1/FeatureFlags(1)/Enable");
  const me = await as("acmeUser", "GET", "/api/v1/Users/Me", 1003);
  const resolved = await as("acmeUser", "GET", "/api/v1/FeatureFlags/Resolved", 1003);
  expect(me.body.featureFlags).toEqual(resolved.body.value);
  expect(me.body.featureFlags.find((f: any) => f.ff === "beta-enabled").isEnabled).toBe(true);
  await as("ops", "POST", "/api/v1/FeatureFlags(1)/Disable");
});
