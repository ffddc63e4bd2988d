// The permission matrix is complete and enforced: every operation of the API has an access rule
// and a row in docs/permissions.md, and calling each operation as each kind of caller is refused
// (403) exactly where the matrix says no. Who each rule admits, and the rule of the operations the
// docs name, come from tests/fixtures/permissions.json (written by hand from SPEC 6 and
// docs/decisions.md), not from the code's matrixRow (which permissions-matrix.test.ts checks).
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { generate } from "../../scripts/generate-contract.ts";
import { MATRIX_ROLES, parseAccessLabel } from "../../api/src/access/policy.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

type Op = { method: string; path: string; label: string };
const FIXTURE = JSON.parse(readFileSync(resolve(import.meta.dir, "../fixtures/permissions.json"), "utf8")) as {
  callers: string[];
  rules: Record<string, boolean[]>;
  operations: [method: string, path: string, rule: string, source: string][];
};
/** May each kind of caller use an operation of this rule (the fixture's row, by caller name)? */
const expectedRow = (label: string): Record<string, boolean> | undefined => {
  const r = FIXTURE.rules[label];
  return r && Object.fromEntries(FIXTURE.callers.map((c, i) => [c, r[i]!]));
};
let ops: Op[] = [];
let tdb: TestDb;
let app: App;

beforeAll(async () => {
  const { json } = await generate();
  const doc = JSON.parse(json) as { paths: Record<string, Record<string, { "x-access"?: string }>> };
  ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, label: op["x-access"] ?? "" })));
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

test("every operation has an access rule and a row in docs/permissions.md", () => {
  const md = readFileSync(resolve(import.meta.dir, "../../docs/permissions.md"), "utf8");
  expect(ops.length).toBeGreaterThan(200);
  const missing = ops.filter((o) => !parseAccessLabel(o.label) || !md.includes(`| ${o.method} | \`${o.path}\` | ${o.label} |`));
  expect(
    missing.map((o) => `${o.method} ${o.path}`),
    "operations without a rule or a row",
  ).toEqual([]);
});

// Fixture callers (tests/helpers/fixtures.sql) for each column of the matrix, on client 1003.
const CALLERS: Record<(typeof MATRIX_ROLES)[number], { who: string; clientId: number | null }> = {
  Admin: { who: "acmeAdmin", clientId: 1003 },
  User: { who: "acmeUser", clientId: 1003 },
  Viewer: { who: "acmeViewer", clientId: 1003 },
  staff: { who: "ops", clientId: 1003 },
  "super admin": { who: "staff", clientId: 1003 },
};

test("the operations the docs name carry the rule the docs state", async () => {
  const wrong: string[] = [];
  for (const [method, path, rule, source] of FIXTURE.operations) {
    const op = ops.find((o) => o.method === method && o.path === path);
    if (!op) {
      wrong.push(`${method} ${path}: not in the contract`);
      continue;
    }
    if (op.label !== rule) wrong.push(`${method} ${path}: ${op.label}, expected ${rule} (${source})`);
    // And as called: a key that matches nothing, so allowed callers get 404/400 and nothing changes.
    const row = expectedRow(rule)!;
    const p = path.replace(/\(\{key\}\)/g, "(-1)").replace(/\{email\}/g, "nobody@example.org");
    for (const role of MATRIX_ROLES) {
      const { who, clientId } = CALLERS[role];
      const res = await call(app, who, clientId, method, p, method === "GET" ? undefined : {});
      if ((res.status === 403) === row[role]) wrong.push(`${role} ${method} ${path}: ${res.status}, expected ${row[role] ? "allowed" : "403"} (${source})`);
    }
  }
  expect(wrong).toEqual([]);
}, 60_000);

test("each caller is refused exactly where the matrix says no", async () => {
  const wrong: string[] = [];
  for (const op of ops) {
    const row = expectedRow(op.label);
    if (!row) {
      wrong.push(`${op.method} ${op.path}: rule ${op.label} is not in the fixture`);
      continue;
    }
    // A key that matches nothing: allowed callers get 404/400, never a change to fixture rows.
    const path = op.path
      .replace(/\(\{key\}\)/g, "(-1)")
      .replace(/\{key\}/g, "-1")
      .replace(/\{email\}/g, "nobody@example.org");
    const body = op.method === "GET" || op.method === "DELETE" ? undefined : {};
    for (const role of MATRIX_ROLES) {
      const { who, clientId } = CALLERS[role];
      const res = await call(app, who, clientId, op.method, path, body);
      const refused = res.status === 403;
      if (refused === row[role]) wrong.push(`${role} ${op.method} ${op.path} (${op.label}): ${res.status}`);
      if (res.status === 401) wrong.push(`${role} ${op.method} ${op.path}: 401`);
    }
  }
  expect(wrong, "calls whose outcome differs from the matrix").toEqual([]);
}, 120_000);
