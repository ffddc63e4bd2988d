// Issue 19, finding 7 and the 431 of finding 14: hostile bytes are refused in one place
// (api/src/ops/input.ts) with the spec's 400 error shape, for every operation of the contract:
// generated sweeps put a NUL character in each string field and 2^31 in each integer field of
// every write operation (the anonymous public survey's start and answers included), and check that
// every operation's error response carries x-error-trace-id, the 431 of a very long URL included.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { jsonDepth, MAX_JSON_DEPTH, MAX_URL_LENGTH } from "../../api/src/ops/input.ts";

type Schema = Record<string, any>;
const contract = JSON.parse(readFileSync(resolve(import.meta.dir, "../../contracts/openapi.json"), "utf8")) as {
  paths: Record<string, Record<string, Schema>>;
  components: { schemas: Record<string, Schema>; parameters?: Record<string, Schema> };
};

const deref = (s: Schema | undefined): Schema | undefined => {
  let out = s;
  for (let i = 0; out?.$ref && i < 10; i++) out = contract.components.schemas[String(out.$ref).split("/").pop()!];
  return out;
};
/** The first non-null branch of an anyOf/oneOf (nullable fields are anyOf [T, null]). */
const branch = (s: Schema | undefined): Schema | undefined => {
  const d = deref(s);
  const alts = (d?.anyOf ?? d?.oneOf) as Schema[] | undefined;
  if (alts) return branch(alts.find((a) => deref(a)?.type !== "null") ?? alts[0]);
  return d;
};
const typeOf = (s: Schema | undefined): string | undefined => {
  const t = s?.type;
  return Array.isArray(t) ? t.find((x: string) => x !== "null") : t;
};

/** A plausible value of a schema (enum's first, a valid email, 1, true, one-item arrays). */
function sample(s: Schema | undefined, depth = 0): unknown {
  const d = branch(s);
  if (!d || depth > 5) return null;
  if (d.enum) return d.enum[0];
  if (d.const !== undefined) return d.const;
  switch (typeOf(d)) {
    case "string":
      return d.format === "email" ? "someone@example.test" : d.format === "uuid" ? "00000000-0000-4000-a000-000000000001" : d.format?.startsWith("date") ? "2025-01-01" : "text";
    case "integer":
      return 1;
    case "number":
      return 1;
    case "boolean":
      return true;
    case "array":
      return [sample(d.items, depth + 1)];
    default:
      if (!d.properties) return {};
      return Object.fromEntries(Object.entries(d.properties as Record<string, Schema>).map(([k, v]) => [k, sample(v, depth + 1)]));
  }
}

/** Every leaf of a schema with its path (array items as index 0) and type. */
function leaves(s: Schema | undefined, path: (string | number)[] = [], out: { path: (string | number)[]; type: string; format?: string }[] = [], depth = 0) {
  const d = branch(s);
  if (!d || depth > 5) return out;
  const t = typeOf(d);
  if (t === "array") leaves(d.items, [...path, 0], out, depth + 1);
  else if (d.properties) for (const [k, v] of Object.entries(d.properties as Record<string, Schema>)) leaves(v, [...path, k], out, depth + 1);
  else if (t) out.push({ path, type: t, format: d.format });
  return out;
}

function setAt(body: unknown, path: (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  const copy = structuredClone(body ?? (typeof path[0] === "number" ? [] : {})) as Record<string | number, unknown>;
  copy[path[0]!] = setAt(copy[path[0]!], path.slice(1), value);
  return copy;
}

interface Op {
  method: string;
  path: string;
  op: Schema;
}
const ops: Op[] = Object.entries(contract.paths).flatMap(([path, item]) =>
  Object.entries(item)
    .filter(([m]) => ["get", "post", "put", "patch", "delete"].includes(m))
    .map(([method, op]) => ({ method, path, op })),
);
const writes = ops.filter((o) => o.method !== "get");
const bodySchema = (o: Op) => o.op.requestBody?.content?.["application/json"]?.schema as Schema | undefined;
const urlOf = (o: Op) =>
  o.path
    .replace(/\{key\}/g, "1003")
    .replace(/\{link\}/g, "00000000-0000-4000-a000-000000000001")
    .replace(/\{[^}]+\}/g, "1");

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
}, 60_000);
afterAll(async () => {
  await tdb.drop();
});

async function send(o: Op, url: string, body: unknown, who = "staff") {
  const res = await app.request(url, {
    method: o.method.toUpperCase(),
    headers: { authorization: `Bearer ${who}`, clientId: "1003", ...(body !== undefined ? { "content-type": "application/json" } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: Schema | null = null;
  try {
    parsed = JSON.parse(text) as Schema;
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed, text, trace: res.headers.get("x-error-trace-id") };
}

describe("the premise", () => {
  test("no write body of the contract has an int64 integer: every integer field is an int4 column", () => {
    const wide: string[] = [];
    for (const o of writes) for (const l of leaves(bodySchema(o))) if (l.type === "integer" && l.format === "int64") wide.push(`${o.method} ${o.path} ${l.path.join(".")}`);
    expect(wide).toEqual([]);
    expect(writes.length, "the contract's write operations").toBeGreaterThan(150);
  });
});

describe("sweeps over every write operation of the contract", () => {
  test("a NUL character in each string field, and 2^31 / -2^31-1 in each integer field, is a 400 naming the field", async () => {
    const failures: string[] = [];
    let sent = 0;
    let fields = 0;
    for (const o of writes) {
      const schema = bodySchema(o);
      if (!schema) continue;
      const base = sample(schema);
      for (const leaf of leaves(schema)) {
        const cases: unknown[] = leaf.type === "string" ? ["a\u0000b"] : leaf.type === "integer" ? [2 ** 31, -(2 ** 31) - 1] : [];
        if (cases.length) fields++;
        for (const bad of cases) {
          const r = await send(o, urlOf(o), setAt(base, leaf.path, bad));
          sent++;
          const where = `${o.method.toUpperCase()} ${o.path} ${leaf.path.join(".")}=${JSON.stringify(bad)}`;
          if (r.status !== 400) failures.push(`${where}: ${r.status} ${r.text.slice(0, 120)}`);
          else if (r.body?.typename !== "ValidationError" || !r.body.errors?.some((e: Schema) => e.path === leaf.path.join(".")))
            failures.push(`${where}: not the error shape naming the field: ${r.text.slice(0, 160)}`);
          if (!r.trace) failures.push(`${where}: no x-error-trace-id`);
        }
      }
    }
    expect(failures, failures.slice(0, 15).join("\n")).toEqual([]);
    expect(fields, "string and integer fields swept").toBeGreaterThan(300);
    expect(sent).toBeGreaterThan(400);
  }, 300_000);

  test("just inside the edges passes the check: 2^31-1 and -2^31 are not refused as out of range", async () => {
    const failures: string[] = [];
    for (const o of writes) {
      const schema = bodySchema(o);
      if (!schema) continue;
      const base = sample(schema);
      for (const leaf of leaves(schema).filter((l) => l.type === "integer")) {
        for (const edge of [2 ** 31 - 1, -(2 ** 31)]) {
          const r = await send(o, urlOf(o), setAt(base, leaf.path, edge));
          // 503: a service this test app has no configuration for (the job queue, password emails).
          if (r.status >= 500 && r.status !== 503) failures.push(`${o.method} ${o.path} ${leaf.path.join(".")}=${edge}: ${r.status} ${r.text.slice(0, 120)}`);
          if (r.body?.errors?.some((e: Schema) => String(e.message).startsWith("must be an integer from"))) failures.push(`${o.method} ${o.path} ${leaf.path.join(".")}=${edge}: refused at the edge`);
        }
      }
    }
    expect(failures, failures.slice(0, 15).join("\n")).toEqual([]);
  }, 300_000);

  test("a NUL character in every query parameter, and 2^31 in every id-like one, is a 400; never a 5xx", async () => {
    const params = contract.components.parameters ?? {};
    const failures: string[] = [];
    let sent = 0;
    for (const o of ops) {
      const names = ((o.op.parameters ?? []) as Schema[])
        .map((p) => (p.$ref ? params[String(p.$ref).split("/").pop()!] : p))
        .filter((p) => p?.in === "query")
        .map((p) => String(p.name));
      for (const name of names) {
        const bad = [`a%00b`, ...(/(^id|Ids?|top|skip|page|pageSize|fileSize|questionPosition)$/.test(name) ? ["2147483648"] : [])];
        for (const v of bad) {
          const r = await send(o, `${urlOf(o)}?${encodeURIComponent(name)}=${v}`, o.method === "get" ? undefined : sample(bodySchema(o)));
          sent++;
          if (r.status !== 400 || r.body?.typename !== "ValidationError") failures.push(`${o.method} ${o.path}?${name}=${v}: ${r.status} ${r.text.slice(0, 120)}`);
          if (!r.trace) failures.push(`${o.method} ${o.path}?${name}=${v}: no x-error-trace-id`);
        }
      }
    }
    expect(failures, failures.slice(0, 15).join("\n")).toEqual([]);
    expect(sent).toBeGreaterThan(100);
  }, 300_000);

  test("2^31 as the key of every keyed operation: a 400 or 404, never a 5xx", async () => {
    const failures: string[] = [];
    let sent = 0;
    for (const o of ops.filter((x) => x.path.includes("{key}"))) {
      const url = o.path
        .replace(/\{key\}/g, "2147483648")
        .replace(/\{link\}/g, "00000000-0000-4000-a000-000000000001")
        .replace(/\{[^}]+\}/g, "1");
      const r = await send(o, url, o.method === "get" || o.method === "delete" ? undefined : sample(bodySchema(o)));
      sent++;
      if (r.status >= 500 && r.status !== 503) failures.push(`${o.method} ${o.path}: ${r.status} ${r.text.slice(0, 120)}`);
      if (r.status >= 400 && !r.trace) failures.push(`${o.method} ${o.path}: no x-error-trace-id`);
    }
    expect(failures, failures.slice(0, 15).join("\n")).toEqual([]);
    expect(sent).toBeGreaterThan(50);
  }, 300_000);

  test("the anonymous public survey: start and answers refuse a NUL character", async () => {
    const link = "00000000-0000-4000-a000-000000000001";
    const start = await app.request(`/s/api/${link}/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ panelRespondentId: "p\u0000" }) });
    expect(start.status).toBe(400);
    expect(((await start.json()) as Schema).errors).toEqual([{ path: "panelRespondentId", message: "must not contain a NUL character (\\u0000)" }]);
    const answers = await app.request(`/s/api/${link}/1/answers`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pageId: "p1", answers: { q1: "x\u0000", q2: [2 ** 31] } }),
    });
    expect(answers.status).toBe(400);
    expect(((await answers.clone().json()) as Schema).errors).toEqual([
      { path: "answers.q1", message: "must not contain a NUL character (\\u0000)" },
      { path: "answers.q2.0", message: "must be an integer from -2147483648 to 2147483647" },
    ]);
    expect(answers.headers.get("x-error-trace-id")).toBeTruthy();
    // A key with a NUL character is named with it escaped.
    const key = await app.request(`/s/api/${link}/start`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ "a\u0000": 1 }) });
    expect(((await key.json()) as Schema).errors[0]).toEqual({ path: "a\\u0000", message: "name must not contain a NUL character (\\u0000)" });
  });
});

describe("every error response carries x-error-trace-id", () => {
  test("every operation of the contract, called without signing in or with a bad body, answers its error with a trace id", async () => {
    const missing: string[] = [];
    for (const o of ops) {
      for (const who of [null, "acmeViewer"] as const) {
        const res = await app.request(urlOf(o), {
          method: o.method.toUpperCase(),
          headers: { ...(who ? { authorization: `Bearer ${who}`, clientId: "1003" } : {}), "content-type": "application/json" },
          body: o.method === "get" ? undefined : "{not json",
        });
        await res.arrayBuffer();
        if (res.status >= 400 && !res.headers.get("x-error-trace-id")) missing.push(`${o.method} ${o.path} as ${who}: ${res.status}`);
        if (res.status >= 500 && res.status !== 503) missing.push(`${o.method} ${o.path} as ${who}: ${res.status}`);
      }
    }
    expect(missing, missing.slice(0, 15).join("\n")).toEqual([]);
  }, 300_000);

  test("a URL over the limit is a 431 with the error shape and a trace id; at the limit it is served", async () => {
    const base = "/api/v1/Regions?$select=id&x=";
    const at = base + "a".repeat(MAX_URL_LENGTH - base.length);
    const over = `${at}a`;
    const long = await app.request(over, { headers: { authorization: "Bearer acmeViewer", clientId: "1003" } });
    expect(long.status).toBe(431);
    expect(long.headers.get("x-error-trace-id")).toBeTruthy();
    const body = (await long.json()) as Schema;
    expect(body.typename).toBe("RequestHeaderFieldsTooLarge");
    expect(body.message).toContain(`longer than ${MAX_URL_LENGTH} characters`);
    const ok = await call(app, "acmeViewer", 1003, "GET", at);
    expect(ok.status, "exactly at the limit: served (the custom option is ignored)").toBe(200);
  });
});

describe("JSON nested beyond MAX_JSON_DEPTH is refused before any walk (issue 38)", () => {
  test("jsonDepth counts brackets outside strings, hand-checked", () => {
    expect(jsonDepth("1")).toBe(0);
    expect(jsonDepth("[]")).toBe(1);
    expect(jsonDepth('{"a":[{"b":[]}]}')).toBe(4);
    expect(jsonDepth('["[[[[", "\\"[[[", {"k}}": "]]"}]')).toBe(2);
    expect(jsonDepth("[".repeat(1000), 64), "stops one level past the limit").toBe(65);
  });

  const nested = (depth: number, kind: "array" | "object" | "mixed") => {
    let s = "1";
    for (let i = 0; i < depth; i++) s = kind === "array" || (kind === "mixed" && i % 2) ? `[${s}]` : `{"a":${s}}`;
    return s;
  };

  test("any depth answers 400 past the limit and never 500, on a signed-in route and the anonymous survey", async () => {
    const link = "00000000-0000-4000-a000-000000000001";
    const seen: string[] = [];
    for (const depth of [MAX_JSON_DEPTH, MAX_JSON_DEPTH + 1, 100, 1000, 7000, 10_000, 50_000]) {
      for (const kind of ["array", "object", "mixed"] as const) {
        const body = kind === "object" ? `{"panelRespondentId":"p","x":${nested(depth - 1, kind)}}` : `{"x":${nested(depth - 1, kind)}}`;
        for (const url of [`/s/api/${link}/start`, "/api/v1/Projects"]) {
          const res = await app.request(url, { method: "POST", headers: { "content-type": "application/json", authorization: "Bearer acmeUser", clientId: "1003" }, body });
          const b = (await res.json()) as Schema & { message: string };
          if (depth > MAX_JSON_DEPTH) {
            if (res.status !== 400 || b.message !== `The JSON body is nested more than ${MAX_JSON_DEPTH} levels deep`) seen.push(`${url} ${kind} ${depth}: ${res.status} ${b.message}`);
          } else if (res.status >= 500 || b.message?.includes("nested")) seen.push(`${url} ${kind} at the limit: ${res.status} ${b.message}`);
        }
      }
    }
    expect(seen).toEqual([]);
  });
});
