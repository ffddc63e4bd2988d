// The remembered tenant entry (db/tx.ts, migration 0042): a process hands the outcome of a
// request's tenant entry back to the database on the next request of the same token and client,
// and app_tenant_resume() keeps it only while the epoch is unchanged. Every change app_enter reads
// moves the epoch, so a sign-out, a disabled user, a removed or lowered membership, a moved client
// or an ended session is refused or seen on the very next request, with an outcome remembered.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { readManyAsTenant } from "../../api/src/db/tx.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
const texts: string[] = [];
beforeAll(async () => {
  // An entry's app_tenant_resume arguments as text: written into the simple entry, or the prepared
  // entry's parameters (readAsTenant's single-Sync pipeline, db/tx.ts) shown the same way.
  tdb = await createTestDb({
    onQuery: (t, p) => {
      if (!t.startsWith("select app_tenant_resume($1")) return void texts.push(t);
      const lit = (v: unknown) => (v === null ? "null" : v === "t" || v === "f" ? String(v === "t") : typeof v === "string" && !/^-?\d+$/.test(v) ? `'${v}'` : String(v));
      const [epoch, user, client, desc, session, expires, ids, all] = p;
      texts.push(`app_tenant_resume(${[epoch, user, client, desc, session, expires].map(lit).join(", ")}, ${ids === null ? "null" : `'${String(ids)}'`}, ${lit(all)}) as outcome`);
    },
  });
  ({ app } = await realApp(tdb.db));
});
afterAll(async () => {
  await tdb.drop();
});

const get = (token: string, client: number, scope = "client") =>
  app.request("/api/v1/Projects?$select=id,clientId", { headers: { authorization: `Bearer ${token}`, clientId: String(client), requestscope: scope } });

const epoch = async () => (await tdb.db<{ v: string }[]>`select value::text as v from app_auth_epoch`)[0]!.v;

/** The session id inside an access token (its `sid` claim). */
function sid(token: string): string {
  const p = token.split(".")[1]!;
  return (JSON.parse(atob(p.replace(/-/g, "+").replace(/_/g, "/"))) as { sid: string }).sid;
}

describe("the remembered tenant entry", () => {
  test("the second request hands the outcome back and the database keeps it", async () => {
    const { token } = await login(app, "viewer@acme.test");
    texts.length = 0;
    expect((await get(token, 1003)).status).toBe(200);
    expect((await get(token, 1003)).status).toBe(200);
    const entries = texts.filter((t) => t.includes("app_tenant_resume("));
    expect(entries.length).toBe(2);
    expect(entries[0], "nothing remembered: app_enter decides").toContain("app_tenant_resume(null, 9005, 1003, false,");
    expect(entries[1], "the outcome and its epoch handed back").toContain(`app_tenant_resume(${await epoch()}, 9005, 1003, false,`);
    expect(entries[1], "with the remembered settings (client ids, all clients)").toContain(", '1003', false) as outcome");
    expect(entries[0], "nothing remembered, no settings").toContain(", null, null) as outcome");
  });

  test("a sign-out is refused on the next request", async () => {
    const { token, cookie } = await login(app, "viewer@acme.test");
    expect((await get(token, 1003)).status).toBe(200);
    expect((await get(token, 1003)).status).toBe(200);
    const out = await app.request("/auth/Login/Logout", { method: "POST", headers: { cookie, authorization: `Bearer ${token}` } });
    expect(out.status).toBe(204);
    expect((await get(token, 1003)).status).toBe(401);
  });

  test("a session revoked in the database, and a disabled user, are refused on the next request", async () => {
    const a = await login(app, "viewer@acme.test");
    expect((await get(a.token, 1003)).status).toBe(200);
    await tdb.db`update auth_sessions set revoked_at = now() where id = ${sid(a.token)}`;
    expect((await get(a.token, 1003)).status).toBe(401);

    const b = await login(app, "viewer@acme.test");
    expect((await get(b.token, 1003)).status).toBe(200);
    await tdb.db`update users set disabled_at = now() where id = 9005`;
    try {
      expect((await get(b.token, 1003)).status).toBe(401);
    } finally {
      await tdb.db`update users set disabled_at = null where id = 9005`;
    }
    expect((await get(b.token, 1003)).status, "enabled again").toBe(200);
  });

  test("a removed membership is refused on the next request", async () => {
    const { token } = await login(app, "viewer@acme.test");
    expect((await get(token, 1003)).status).toBe(200);
    expect((await get(token, 1003)).status).toBe(200);
    await tdb.db`delete from user_and_clients where user_id = 9005 and client_id = 1003`;
    try {
      expect((await get(token, 1003)).status).toBe(403);
    } finally {
      await tdb.db`insert into user_and_clients (user_id, client_id, role_id) values (9005, 1003, 3)`;
    }
    expect((await get(token, 1003)).status, "a member again").toBe(200);
  });

  test("a changed role is the role of the next transaction", async () => {
    const t = { userId: 9005, clientId: 1003, descendants: false };
    const role = async () => (await readManyAsTenant(tdb.db, t, (tx) => tx`select 1`)).role;
    expect(await role()).toBe(3);
    expect(await role(), "remembered").toBe(3);
    await tdb.db`update user_and_clients set role_id = 2 where user_id = 9005 and client_id = 1003`;
    try {
      expect(await role()).toBe(2);
    } finally {
      await tdb.db`update user_and_clients set role_id = 3 where user_id = 9005 and client_id = 1003`;
    }
    expect(await role()).toBe(3);
  });

  test("a client added beneath the chosen one is in the next request's reach (requestscope descendants)", async () => {
    const t = { userId: 9003, clientId: 1002, descendants: true };
    const ids = async () => (await readManyAsTenant(tdb.db, t, (tx) => tx<{ ids: string }[]>`select current_setting('app.client_ids') as ids`)).value[0]!.ids;
    expect(await ids()).toBe("1002,1003,1004");
    expect(await ids(), "remembered").toBe("1002,1003,1004");
    const [c] = await tdb.db<{ id: number }[]>`insert into clients (name, tier, parent_id) values ('Acme Team C', 'Team', 1002) returning id`;
    try {
      expect(await ids()).toBe(`1002,1003,1004,${c!.id}`);
    } finally {
      await tdb.db`delete from clients where id = ${c!.id}`;
    }
    expect(await ids()).toBe("1002,1003,1004");
  });

  test("every change the entry reads moves the epoch; a session's last use does not", async () => {
    const { token } = await login(app, "viewer@acme.test");
    const s = sid(token);
    const changes: [string, () => Promise<unknown>, boolean][] = [
      ["users.disabled_at", () => tdb.db`update users set disabled_at = null where id = 9005`, true],
      ["users.is_staff", () => tdb.db`update users set is_staff = false where id = 9005`, true],
      ["users.first_name", () => tdb.db`update users set first_name = 'Vera' where id = 9005`, false],
      ["auth_sessions.revoked_at", () => tdb.db`update auth_sessions set revoked_at = null where id = ${s}`, true],
      ["auth_sessions.expires_at", () => tdb.db`update auth_sessions set expires_at = expires_at where id = ${s}`, true],
      ["auth_sessions.last_used_at", () => tdb.db`update auth_sessions set last_used_at = now() where id = ${s}`, false],
      ["user_and_clients insert", () => tdb.db`insert into user_and_clients (user_id, client_id, role_id) values (9005, 1004, 3)`, true],
      ["user_and_clients update", () => tdb.db`update user_and_clients set role_id = 3 where user_id = 9005 and client_id = 1004`, true],
      ["user_and_clients delete", () => tdb.db`delete from user_and_clients where user_id = 9005 and client_id = 1004`, true],
      ["clients.parent_id", () => tdb.db`update clients set parent_id = 1002 where id = 1004`, true],
      ["clients.name", () => tdb.db`update clients set name = 'Acme Team B' where id = 1004`, false],
    ];
    for (const [name, change, moves] of changes) {
      const before = await epoch();
      await change();
      const after = await epoch();
      expect(after !== before, name).toBe(moves);
    }
  });

  test("app_tenant_resume keeps the settings only for the same epoch and a session not yet expired", async () => {
    const { token } = await login(app, "viewer@acme.test");
    const s = sid(token);
    const e = await epoch();
    const resume = (ep: string | null, expires: string) =>
      tdb.db<{ outcome: string | null }[]>`select app_tenant_resume(${ep}::bigint, 9005, 1003, false, ${s}::uuid, ${expires}::timestamptz) as outcome`;
    const future = new Date(Date.now() + 3600_000).toISOString();
    const past = new Date(Date.now() - 1000).toISOString();
    expect((await resume(e, future))[0]!.outcome, "same epoch: kept").toBeNull();
    expect((await resume(String(BigInt(e) - 1n), future))[0]!.outcome, "another epoch: decided anew").toMatch(new RegExp(`^3\\|${e}\\|1003\\|off\\|`));
    expect((await resume(null, future))[0]!.outcome, "nothing remembered").toMatch(/^3\|/);
    expect((await resume(e, past))[0]!.outcome, "a remembered expiry passed: decided anew (the real session is valid)").toMatch(/^3\|/);
    await tdb.db`update auth_sessions set expires_at = now() - interval '1 second' where id = ${s}`;
    await expect(resume(e, future), "the session ended meanwhile: the epoch moved, app_enter refuses").rejects.toThrow(/session ended/);
  });

  test("app_tenant_resume with the remembered settings makes them only while it keeps the outcome (0043)", async () => {
    const { token } = await login(app, "viewer@acme.test");
    const s = sid(token);
    const e = await epoch();
    const future = new Date(Date.now() + 3600_000).toISOString();
    // In one transaction, as the entry runs it: the outcome and the settings the request's statements then read.
    const enter = (ep: string | null, ids: string | null, all: boolean | null) =>
      tdb.db.begin(async (tx) => {
        const [r] = await tx<{ outcome: string | null }[]>`
          select app_tenant_resume(${ep}::bigint, 9005, 1003, false, ${s}::uuid, ${future}::timestamptz, ${ids}::text, ${all}::boolean) as outcome`;
        const [st] = await tx<{ user: string; ids: string; all: string }[]>`
          select current_setting('app.user_id', true) as user, current_setting('app.client_ids', true) as ids, current_setting('app.all_clients', true) as all`;
        return { outcome: r!.outcome, ...st! };
      });
    // Settings app_enter would never make for this viewer, so where they come from shows.
    expect(await enter(e, "1003,1004", true), "same epoch: kept, the remembered settings made").toEqual({ outcome: null, user: "9005", ids: "1003,1004", all: "on" });
    const fresh = { user: "9005", ids: "1003", all: "off" };
    const anew = await enter(String(BigInt(e) - 1n), "1003,1004", true);
    expect(anew.outcome, "another epoch: decided anew").toMatch(new RegExp(`^3\\|${e}\\|1003\\|off\\|`));
    expect(anew, "app_enter's settings, not the remembered ones").toMatchObject(fresh);
    expect(await enter(e, null, null), "the same epoch without settings: decided anew").toMatchObject({ ...fresh, outcome: expect.stringMatching(/^3\|/) });
    expect(await enter(e, "1003,1004", null), "one setting missing: decided anew").toMatchObject({ ...fresh, outcome: expect.stringMatching(/^3\|/) });
    expect(await enter(null, "1003,1004", true), "nothing remembered: decided anew").toMatchObject({ ...fresh, outcome: expect.stringMatching(/^3\|/) });
  });

  test("the app role can neither read nor move the epoch", async () => {
    await expect(tdb.db.begin((tx) => tx`set local role ideally_app`.then(() => tx`select value from app_auth_epoch`))).rejects.toThrow(/permission denied/);
    await expect(tdb.db.begin((tx) => tx`set local role ideally_app`.then(() => tx`update app_auth_epoch set value = 0`))).rejects.toThrow(/permission denied/);
  });
});
