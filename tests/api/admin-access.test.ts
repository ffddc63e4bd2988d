// The admin area's wall, generated from the OpenAPI document: every staff-only operation called
// as a team Admin, and every super-admin-only one as provider staff who are not super admins
// (ops@ideally.test), is refused with 403. Callers sign in for real (password login, bearer
// token) and each operation is aimed at a real row of its entity set, so a refusal cannot come
// from a missing row or a made-up principal.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { generate } from "../../scripts/generate-contract.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

type Op = { method: string; path: string; label: string };
let ops: Op[] = [];
let tdb: TestDb;
let app: App;
const tokens: Record<string, string> = {};

beforeAll(async () => {
  const { json } = await generate();
  const doc = JSON.parse(json) as { paths: Record<string, Record<string, { "x-access"?: string }>> };
  ops = Object.entries(doc.paths).flatMap(([path, item]) => Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, label: op["x-access"] ?? "" })));
  tdb = await createTestDb();
  ({ app } = await realApp(tdb.db));
  for (const email of ["staff@ideally.test", "ops@ideally.test", "admin@acme.test"]) tokens[email] = (await login(app, email)).token;
}, 120_000);
afterAll(async () => {
  await tdb.drop();
});

async function send(email: string, method: string, path: string, body?: unknown) {
  const headers: Record<string, string> = { authorization: `Bearer ${tokens[email]}`, clientId: "1003" };
  if (body !== undefined) headers["content-type"] = "application/json";
  const res = await app.request(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: res.status, body: await res.text() };
}

/** A real key of the path's entity set (the first row staff can read), else 1. */
const keys = new Map<string, string>();
async function realKey(path: string): Promise<string> {
  const set = /^\/api\/v1\/(\w+)\(\{key\}\)/.exec(path)?.[1];
  if (!set) return "1";
  if (!keys.has(set)) {
    const r = await send("staff@ideally.test", "GET", `/api/v1/${set}?$top=1&$orderby=id`);
    const first = r.status === 200 ? (JSON.parse(r.body) as { value: { id?: number | string }[] }).value[0]?.id : undefined;
    keys.set(set, first === undefined ? "1" : String(first));
  }
  return keys.get(set)!;
}

async function concrete(op: Op): Promise<string> {
  const key = await realKey(op.path);
  return op.path
    .replace(/\(\{key\}\)/g, `(${key})`)
    .replace(/\{key\}/g, key)
    .replace(/\{exportId\}/g, "00000000-0000-4000-8000-000000000000");
}

async function refusals(label: string, email: string) {
  const chosen = ops.filter((o) => o.label === label);
  const wrong: string[] = [];
  for (const op of chosen) {
    const body = op.method === "GET" || op.method === "DELETE" ? undefined : {};
    const r = await send(email, op.method, await concrete(op), body);
    if (r.status !== 403) wrong.push(`${op.method} ${op.path}: ${r.status} ${r.body.slice(0, 120)}`);
  }
  return { chosen, wrong };
}

test("every staff-only operation answers 403 to a team Admin", async () => {
  const { chosen, wrong } = await refusals("staff", "admin@acme.test");
  expect(chosen.length, "the document has staff-only operations (command runner, prompts, fielding...)").toBeGreaterThan(60);
  expect(
    chosen.some((o) => o.path.startsWith("/api/CommandRunner/")),
    "the command runner is among them",
  ).toBe(true);
  expect(wrong, "staff-only operations a team Admin was not refused").toEqual([]);
}, 120_000);

test("every super-admin-only operation answers 403 to staff who are not super admins", async () => {
  const { chosen, wrong } = await refusals("superAdmin", "ops@ideally.test");
  expect(chosen.map((o) => `${o.method} ${o.path}`).sort(), "SPEC 6's super-admin-only actions").toEqual(
    [
      "POST /api/v1/Projects({key})/SuperApprove",
      "POST /api/v1/Questions({key})/SuperAdminUpdate",
      "POST /api/v1/TestOptions({key})/SuperAdminUpdate",
      "POST /api/v1/Users({key})/SuperAdminUserUpdate",
      "POST /api/v1/Users/SuperAdminUserCreate",
    ].sort(),
  );
  expect(wrong, "super-admin-only operations ops@ideally.test was not refused").toEqual([]);
}, 60_000);

test("the same calls are not refused to a super admin (the 403s above are about the caller)", async () => {
  const chosen = ops.filter((o) => o.label === "superAdmin" || o.label === "staff");
  const refused: string[] = [];
  for (const op of chosen) {
    // Reads only, plus bodies the schema rejects: nothing changes, but the role check has passed.
    const body = op.method === "GET" || op.method === "DELETE" ? undefined : { __invalid: true };
    if (op.method === "DELETE") continue;
    const r = await send("staff@ideally.test", op.method, await concrete(op), body);
    if (r.status === 403) refused.push(`${op.method} ${op.path}: ${r.body.slice(0, 120)}`);
  }
  expect(refused, "staff-only or super-admin-only operations refused to the super admin").toEqual([]);
}, 120_000);
