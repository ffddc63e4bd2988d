// The permission matrix is complete and enforced: every operation of the API has an access rule
// and a row in docs/permissions.md, and calling each operation as each kind of caller is refused
// (403) exactly where the matrix says no.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { generate } from "../../scripts/generate-contract.ts";
import { MATRIX_ROLES, matrixRow, parseAccessLabel } from "../../api/src/access/policy.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

type Op = { method: string; path: string; label: string };
let ops: Op[] = [];
let tdb: TestDb;
let app: App;

beforeAll(async () => {
  const { json } = await generate();
  const doc = JSON.parse(json) as { paths: Record<string, Record<string, { "x-access"?: string }>> };
  ops = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, label: op["x-access"] ?? "" })),
  );
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
  expect(missing.map((o) => `${o.method} ${o.path}`), "operations without a rule or a row").toEqual([]);
});

// Fixture callers (tests/helpers/fixtures.sql) for each column of the matrix, on client 1003.
const CALLERS: Record<(typeof MATRIX_ROLES)[number], { who: string; clientId: number | null }> = {
  Admin: { who: "acmeAdmin", clientId: 1003 },
  User: { who: "acmeUser", clientId: 1003 },
  Viewer: { who: "acmeViewer", clientId: 1003 },
  staff: { who: "ops", clientId: 1003 },
  "super admin": { who: "staff", clientId: 1003 },
};

test("each caller is refused exactly where the matrix says no", async () => {
  const wrong: string[] = [];
  for (const op of ops) {
    const row = matrixRow(parseAccessLabel(op.label)!);
    // A key that matches nothing: allowed callers get 404/400, never a change to fixture rows.
    const path = op.path.replace(/\(\{key\}\)/g, "(-1)").replace(/\{key\}/g, "-1").replace(/\{email\}/g, "nobody@example.org");
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
