// Generated tenant isolation: for every tenant entity set and every verb it allows, a user of Acme
// Team A (client 1003) cannot read, count, expand into, filter on, create in, change or delete any
// other client's rows (Globex, the other Acme team, the tiers above, Initech) nor other users' own
// rows — through the API, and through row-level security alone (the same compiled statements
// with the registry scope switched off).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { registry } from "../../api/src/entities/index.ts";
import type { EntitySetDef } from "../../api/src/entities/types.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection, compileCount } from "../../api/src/odata/compile.ts";
import { readAsTenant, withTenant } from "../../api/src/db/tx.ts";
import { scopeFor } from "../../api/src/entities/service.ts";
import { col, ident, param, q } from "../../api/src/db/sqltext.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, realApp, testApp } from "../helpers/app.ts";
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

const ACME = { who: "acmeUser", userId: 9004, clientId: 1003 };
const GLOBEX_CLIENT = 2001;

const tenantSets = [...registry.sets.values()].filter((s) => s.scope !== "global");

/** Keys of the rows the Acme user must not reach, read as the owner (no RLS). */
async function foreignKeys(set: EntitySetDef): Promise<unknown[]> {
  const key = set.fields[set.key]!.column;
  let where: ReturnType<typeof q>;
  if (set.scope === "user") where = q`${col("t", "user_id")} <> ${param(ACME.userId, "int4")}`;
  else if (set.clientVia) {
    // Users: people with no membership of Acme Team A.
    where = q`${col("t", "id")} <> ${param(ACME.userId, "int4")}
              and ${col("t", "id")} not in (select user_id from user_and_clients where client_id = ${param(ACME.clientId, "int4")})`;
  } else where = q`${col("t", set.clientColumn)} <> ${param(ACME.clientId, "int4")}`;
  const { text, params } = q`select ${col("t", key)} as k from ${ident(set.table)} t where ${where}`.render();
  const rows = (await tdb.db.unsafe(text, params as never[])) as unknown as { k: unknown }[];
  // int8 keys arrive as BigInt; the API sends them as JSON numbers.
  return rows.map((r) => (typeof r.k === "bigint" ? Number(r.k) : r.k)).sort();
}

function literal(set: EntitySetDef, k: unknown): string {
  return set.fields[set.key]!.type === "string" ? `'${String(k).replace(/'/g, "''")}'` : String(k);
}

describe.each(tenantSets.map((s) => [s.name, s] as const))("%s", (_n, set) => {
  test("the other tenant's rows: not read, counted, filtered on, expanded into, changed or deleted", async () => {
    const keys = await foreignKeys(set);
    expect(keys.length, `${set.name} has rows of the other tenant to attack`).toBeGreaterThan(0);
    const inList = keys.map((k) => literal(set, k)).join(",");
    const base = `/api/v1/${set.name}`;
    const as = (method: string, path: string, body?: unknown, clientId = ACME.clientId) => call(app, ACME.who as never, clientId, method, path, body);

    const list = await as("GET", `${base}?$filter=${encodeURIComponent(`${set.key} in (${inList})`)}&$select=${set.key}`);
    expect(list.status).toBe(200);
    expect(list.body.value, "list").toEqual([]);
    const count = await as("GET", `${base}/$count?$filter=${encodeURIComponent(`${set.key} in (${inList})`)}`);
    expect(count.body, "$count").toBe(0);
    for (const k of keys.slice(0, 3)) {
      const one = await as("GET", `${base}(${literal(set, k)})`);
      expect(one.status, `by key ${String(k)}`).toBe(404);
    }

    // Expanding or filtering through every navigation into this set reveals none of its foreign rows.
    for (const other of registry.sets.values()) {
      for (const [navName, nav] of Object.entries(other.nav)) {
        if (nav.target !== set.name) continue;
        const path = nav.kind === "many" ? `/api/v1/${other.name}?$top=50&$expand=${navName}($select=${set.key})` : `/api/v1/${other.name}?$top=50&$expand=${navName}($select=${set.key})`;
        const res = await as("GET", path);
        expect(res.status, `${other.name} $expand=${navName}: ${JSON.stringify(res.body).slice(0, 200)}`).toBe(200);
        const seen = res.body.value.flatMap((r: Record<string, unknown>) => {
          const v = r[navName] as Record<string, unknown> | Record<string, unknown>[] | null;
          return (Array.isArray(v) ? v : v ? [v] : []).map((x) => x[set.key]);
        });
        const leaked = seen.filter((k: unknown) => keys.includes(k));
        expect(leaked, `${other.name} $expand=${navName} leaks ${set.name} rows`).toEqual([]);
        if (nav.kind === "many") {
          const probe = await as("GET", `/api/v1/${other.name}/$count?$filter=${encodeURIComponent(`${navName}/any(x: x/${set.key} in (${inList}))`)}`);
          expect(probe.body, `${other.name} filtered on ${navName} finds foreign rows`).toBe(0);
        }
      }
    }

    const k = keys[0];
    if (set.verbs.includes("patch")) {
      const res = await as("PATCH", `${base}(${literal(set, k)})`, { [firstUpdatable(set)]: null });
      // 403 where only Admins or staff may write the set at all (docs/permissions.md).
      expect([400, 403, 404], `PATCH another tenant's row: ${res.status}`).toContain(res.status);
    }
    if (set.verbs.includes("delete")) {
      const res = await as("DELETE", `${base}(${literal(set, k)})`);
      expect([403, 404], `DELETE another tenant's row: ${res.status}`).toContain(res.status);
    }
    if (set.verbs.includes("post") && set.scope !== "user") {
      const res = await as("POST", base, {}, GLOBEX_CLIENT);
      expect(res.status, "POST into another tenant").toBe(403);
    }
    const after = await foreignKeys(set);
    expect(after, "the other tenant's rows are all still there").toEqual(keys);
  });

  // User rows and Users are kept apart by the registry's scope, not by row-level security
  // (docs/decisions.md "Entity-set scopes"): for them, the scope alone is what is tested.
  const byRegistry = set.scope === "user" || !!set.clientVia;
  if (byRegistry)
    test("the registry scope alone (row-level security off) hides the other users' rows", async () => {
      const keys = await foreignKeys(set);
      expect(keys.length, `${set.name} has other users' rows to find`).toBeGreaterThan(0);
      const ctx = { principal: { userId: ACME.userId, isStaff: false, isSuperAdmin: false }, clientId: ACME.clientId, descendants: false };
      const query = parseQuery({ $filter: `${set.key} in (${keys.map((k) => literal(set, k)).join(",")})`, $select: set.key }, set, registry);
      // As the table owner, so no policy applies: only the scope's predicate stands between.
      const list = compileCollection(registry, set, query, { scope: scopeFor(ctx, registry) }).render();
      const [row] = (await tdb.db.unsafe(list.text, list.params as never[])) as unknown as { value: string }[];
      expect(JSON.parse(row!.value), "registry scope: list").toEqual([]);
      const cnt = compileCount(registry, set, query, { scope: scopeFor(ctx, registry) }).render();
      const [c] = (await tdb.db.unsafe(cnt.text, cnt.params as never[])) as unknown as { count: number }[];
      expect(Number(c!.count), "registry scope: count").toBe(0);
    });
  else
    test("row-level security alone hides and protects the other tenant's rows", async () => {
      const keys = await foreignKeys(set);
      const tenant = { userId: ACME.userId, clientId: ACME.clientId, descendants: false };
      const noScope = { scope: () => null };
      const query = parseQuery({ $filter: `${set.key} in (${keys.map((k) => literal(set, k)).join(",")})`, $select: set.key }, set, registry);
      const list = compileCollection(registry, set, query, noScope).render();
      const [row] = await readAsTenant<{ value: string }>(tdb.db, tenant, list.text, list.params);
      expect(JSON.parse(row!.value), "RLS: list").toEqual([]);
      const cnt = compileCount(registry, set, query, noScope).render();
      const [c] = await readAsTenant<{ count: number }>(tdb.db, tenant, cnt.text, cnt.params);
      expect(c!.count, "RLS: count").toBe(0);
      if (set.view) return;
      const key = set.fields[set.key]!.column;
      const keyText = param(keys.map(String), "text[]");
      const upd = q`update ${ident(set.table)} set ${ident(key)} = ${ident(key)} where ${ident(key)}::text = any(${keyText}) returning 1`.render();
      const changed = await withTenant(tdb.db, tenant, (tx) => tx.unsafe(upd.text, upd.params as never[]));
      expect(changed.length, "RLS: update").toBe(0);
      const del = q`delete from ${ident(set.table)} where ${ident(key)}::text = any(${keyText}) returning 1`.render();
      const deleted = await withTenant(tdb.db, tenant, (tx) => tx.unsafe(del.text, del.params as never[]));
      expect(deleted.length, "RLS: delete").toBe(0);
    });
});

function firstUpdatable(set: EntitySetDef): string {
  return Object.entries(set.fields).find(([, f]) => f.updatable && !f.readOnly)?.[0] ?? "noSuchField";
}

// Two tenancy rules were each caught by one test only (issue 35's audit made each change by hand):
// client_descendants reaching grandchildren, and app_enter ending an expired login session's tokens.
// Both held here too, through the API.
describe("tenancy rules, held through the API as well", () => {
  test("an enterprise's admin asking for its descendants reaches the teams two levels down, and no other tree", async () => {
    const read = async (scope: string) => {
      const res = await app.request("/api/v1/Projects?$select=id,clientId&$top=1000", { headers: { authorization: "Bearer acmeAdmin", clientId: "1001", requestscope: scope } });
      expect(res.status).toBe(200);
      return [...new Set(((await res.json()) as { value: { clientId: number }[] }).value.map((p) => p.clientId))].sort();
    };
    // Acme Enterprise 1001 > Acme Org 1002 > Teams 1003 and 1004 (fixtures.sql): both teams are grandchildren.
    expect(await read("descendants")).toEqual([1003, 1004]);
    expect(await read("client"), "the enterprise's own rows only: it has no projects").toEqual([]);
  });

  test("a token whose login session has expired reads nothing, at once", async () => {
    const { app: real } = await realApp(tdb.db);
    const login = await real.request("/auth/Login/PasswordLogin", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "viewer@acme.test", password: "Password123!" }),
    });
    expect(login.status).toBe(200);
    const { accessToken } = (await login.json()) as { accessToken: string };
    const get = () => real.request("/api/v1/Projects?$select=id", { headers: { authorization: `Bearer ${accessToken}`, clientId: "1003" } });
    expect((await get()).status).toBe(200);
    await tdb.db`update auth_sessions set expires_at = now() - interval '1 second' where user_id = 9005 and revoked_at is null`;
    const after = await get();
    expect(after.status, "the access token itself has not expired; its session has").toBe(401);
  });
});
