// Walks every entity set of the registry through the generic API: list, by key, $count, $select,
// $orderby, $top/$skip, a $filter per filterable field type, each $expand, and the allowed and
// refused verbs. Fails if the registry's sets and SPEC.md's list differ.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { registry, SPEC_ENTITY_SETS } from "../../api/src/entities/index.ts";
import type { EntitySetDef, FieldDef } from "../../api/src/entities/types.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

// SPEC.md section 3's list, committed as data (tests/fixtures/README.md).
import specSets from "../fixtures/spec-entity-sets.json";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

/**
 * Entity sets beyond SPEC.md's list, each with the decision record that adds it: the registry holds
 * SPEC.md's 66 and these, nothing else.
 */
const EXTENSIONS: Record<string, string> = {
  CrossedQuotaCells: "docs/decisions/0128-crossed-quota-cells.md",
};

test("the registry declares exactly SPEC.md's 66 entity sets and the extensions its decision records add", () => {
  expect(specSets.length).toBe(66);
  expect([...SPEC_ENTITY_SETS].sort(), "SPEC_ENTITY_SETS equals SPEC.md").toEqual([...specSets].sort());
  expect([...registry.sets.keys()].sort(), "registry equals SPEC.md and the extensions").toEqual([...specSets, ...Object.keys(EXTENSIONS)].sort());
  for (const [set, record] of Object.entries(EXTENSIONS)) expect(readFileSync(new URL(`../../${record}`, import.meta.url), "utf8"), `${record} names ${set}`).toContain(set);
});

const get = (path: string) => call(app, "staff", null, "GET", path);

/** A literal for $filter from a sample value of the field. */
function literal(fd: FieldDef, v: unknown): string | null {
  if (v === null || v === undefined) return null;
  switch (fd.type) {
    case "int":
    case "bigint":
    case "number":
      return String(v);
    case "boolean":
      return v ? "true" : "false";
    case "string":
      return `'${String(v).replace(/'/g, "''")}'`;
    case "uuid":
      return String(v);
    case "datetime":
      return String(v); // as sent: microseconds and offset intact
    case "date":
      return String(v);
    case "json":
      return null;
  }
}

function keyPath(set: EntitySetDef, key: unknown): string {
  const kf = set.fields[set.key]!;
  return kf.type === "string" ? `/api/v1/${set.name}('${key}')` : `/api/v1/${set.name}(${key})`;
}

describe.each([...registry.sets.values()].map((s) => [s.name, s] as const))("%s", (_name, set) => {
  const base = `/api/v1/${set.name}`;

  test("list, key, $count, $select, $orderby, paging", async () => {
    const list = await get(`${base}?$count=true`);
    expect(list.status, JSON.stringify(list.body)).toBe(200);
    expect(list.body.value.length, `${set.name} has fixture rows`).toBeGreaterThan(0);
    expect(list.body["@odata.count"]).toBeGreaterThanOrEqual(list.body.value.length);

    const first = list.body.value[0];
    const one = await get(keyPath(set, first[set.key]));
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body[set.key]).toEqual(first[set.key]);

    const count = await get(`${base}/$count`);
    expect(count.status).toBe(200);
    expect(count.body, "$count equals @odata.count").toBe(list.body["@odata.count"]);

    const sel = await get(`${base}?$select=${set.key}&$top=1`);
    expect(Object.keys(sel.body.value[0]), "$select keeps only the key").toEqual([set.key]);

    const desc = await get(`${base}?$orderby=${set.key} desc&$select=${set.key}`);
    const keys = desc.body.value.map((r: Record<string, unknown>) => r[set.key]);
    const sorted = [...keys].sort((a, b) => (a < b ? 1 : a > b ? -1 : 0));
    expect(keys, "$orderby key desc").toEqual(sorted);

    if (list.body["@odata.count"] >= 2) {
      const page = await get(`${base}?$orderby=${set.key} desc&$select=${set.key}&$top=1&$skip=1`);
      expect(page.body.value.map((r: Record<string, unknown>) => r[set.key])).toEqual([keys[1]]);
    }
  });

  test("$filter on each filterable field type", async () => {
    const list = await get(`${base}?$top=5`);
    const seenTypes = new Set<string>();
    for (const [name, fd] of Object.entries(set.fields)) {
      if (!fd.filterable || seenTypes.has(fd.type)) continue;
      const row = list.body.value.find((r: Record<string, unknown>) => r[name] !== null && r[name] !== undefined);
      if (!row) continue;
      const lit = literal(fd, row[name]);
      if (lit === null) continue;
      seenTypes.add(fd.type);
      const res = await get(`${base}?$filter=${encodeURIComponent(`${name} eq ${lit}`)}&$select=${set.key}`);
      expect(res.status, `${name} eq ${lit}: ${JSON.stringify(res.body)}`).toBe(200);
      expect(
        res.body.value.map((r: Record<string, unknown>) => r[set.key]),
        `${set.name}?$filter=${name} eq ${lit} finds the row it came from`,
      ).toContain(row[set.key]);
    }
  });

  // A set without navigations has nothing to expand (and a test with no assertion fails).
  if (Object.keys(set.nav).length)
    test("each $expand", async () => {
      for (const [name, nd] of Object.entries(set.nav)) {
        const res = await get(`${base}?$top=3&$expand=${name}`);
        expect(res.status, `$expand=${name}: ${JSON.stringify(res.body)}`).toBe(200);
        for (const r of res.body.value) {
          if (nd.kind === "many") expect(Array.isArray(r[name]), `${name} is an array`).toBe(true);
          else expect(r[name] === null || typeof r[name] === "object", `${name} is an object or null`).toBe(true);
        }
        if (nd.kind === "many") {
          const c = await get(`${base}?$top=3&$expand=${name}/$count`);
          expect(c.status, `$expand=${name}/$count`).toBe(200);
          for (const r of c.body.value) expect(typeof r[`${name}@odata.count`]).toBe("number");
        }
      }
    });

  test("allowed and refused verbs", async () => {
    const missingKey = set.fields[set.key]!.type === "string" ? "'no-such-key'" : "-1";
    const keyUrl = `${base}(${missingKey})`;
    const post = await call(app, "staff", 1003, "POST", base, { noSuchField: 1 });
    const patch = await call(app, "staff", 1003, "PATCH", keyUrl, { noSuchField: 1 });
    const del = await call(app, "staff", 1003, "DELETE", keyUrl);
    const put = await call(app, "staff", 1003, "PUT", keyUrl, {});
    expect(put.status, "PUT is never allowed").toBe(405);
    if (set.verbs.includes("post")) expect(post.status, "POST allowed: body is validated").toBe(400);
    else expect(post.status, "POST refused").toBe(405);
    if (set.verbs.includes("patch")) expect(patch.status, "PATCH allowed: body is validated").toBe(400);
    else expect(patch.status, "PATCH refused").toBe(405);
    if (set.verbs.includes("delete")) expect(del.status, "DELETE allowed: missing row is 404").toBe(404);
    else expect(del.status, "DELETE refused").toBe(405);
    for (const r of [post, patch, del, put]) expect(r.headers.get("x-error-trace-id")).toBeTruthy();
  });
});
