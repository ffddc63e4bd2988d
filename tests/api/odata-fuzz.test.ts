// Property-based test of the OData engine: query options from a grammar of valid fragments, the
// same with random mutations, and arbitrary unicode are parsed, compiled and executed. Every
// outcome must be success or a 400 ApiError: never another exception, never a PostgreSQL error.
// String literals carry a marker that must never appear in the statement text (values travel
// only as bind parameters). fc.assert prints the seed and the shrunk counterexample on failure.
import { afterAll, beforeAll, expect, test } from "bun:test";
import fc from "fast-check";
import { ApiError } from "../../api/src/errors.ts";
import type { EntitySetDef, FieldType } from "../../api/src/entities/types.ts";
import type { Sql } from "../../api/src/db/sqltext.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection, compileCount, compileEntity } from "../../api/src/odata/compile.ts";
import { clientScope, reg, scratchDb, type Raw, type ScratchDb } from "./odata-fixture.ts";

const MARK = "QZXMARK";
const RUNS = Number(process.env.ODATA_FUZZ_RUNS ?? 250);

let db: ScratchDb;
beforeAll(async () => {
  db = await scratchDb();
});
afterAll(async () => {
  await db?.drop();
});

const SETS = [...reg.sets.values()];
const tally = { ok: 0, rejected: 0 };

type Mode = "collection" | "count" | "entity";

/** Parse, compile, check the text, execute. Resolves when the outcome is acceptable. */
async function attempt(set: EntitySetDef, raw: Raw, mode: Mode): Promise<void> {
  let stmt: Sql;
  try {
    const query = parseQuery(raw, set, reg);
    const opts = { scope: clientScope(1) };
    stmt = mode === "collection" ? compileCollection(reg, set, query, opts) : mode === "count" ? compileCount(reg, set, query, opts) : compileEntity(reg, set, 1, query, opts);
  } catch (e) {
    if (e instanceof ApiError && e.status === 400 && e.code === "ODataQueryError") {
      tally.rejected++;
      if (process.env.ODATA_FUZZ_DEBUG) console.log("REJECT", e.message.slice(0, 160));
      return;
    }
    throw e;
  }
  const { text, params } = stmt.render();
  if (text.includes(MARK)) throw new Error(`input reached the SQL text: ${text}`);
  const rows = (await db.sql.unsafe(text, params as never[])) as unknown as Record<string, unknown>[];
  if (mode === "collection") {
    const value = JSON.parse(String(rows[0]!.value));
    if (!Array.isArray(value)) throw new Error("value is not a JSON array");
    if (typeof rows[0]!.more !== "boolean") throw new Error("more is not a boolean");
  } else if (mode === "count") {
    if (typeof rows[0]!.count !== "number") throw new Error("count is not a number");
  } else if (rows.length) JSON.parse(String(rows[0]!.value));
  tally.ok++;
}

// ---- literals ----

const nasty = fc.constantFrom("'", "''", "%", "_", "!", "\\", '"', "\u0000", "\u00e9", "\ud83d\ude00", "\ud800", "$1", "--", "/*", ";", ")", "(", ",");
const stringLit = fc.array(fc.oneof(fc.string({ unit: "binary", maxLength: 6 }), nasty), { maxLength: 4 }).map((parts) => `'${(MARK + parts.join("")).replace(/'/g, "''")}'`);
const intLit = fc.oneof(fc.integer({ min: -5, max: 10 }).map(String), fc.integer().map(String), fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String));
const decimalLit = fc.tuple(fc.integer({ min: -1000, max: 1000 }), fc.nat({ max: 99999 })).map(([a, b]) => `${a}.${b}`);
const dateVal = fc.date({ min: new Date("0001-01-01T00:00:00Z"), max: new Date("9999-12-31T23:59:59Z"), noInvalidDate: true });
const dateLit = dateVal.map((d) => d.toISOString().slice(0, 10));
const datetimeLit = fc.oneof(
  dateVal.map((d) => d.toISOString()),
  dateVal.map((d) => `${d.toISOString().slice(0, 19)}+05:30`),
  dateVal.map((d) => `${d.toISOString().slice(0, 16)}Z`),
  fc.constantFrom("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59.999999-14:00", "2026-01-01T00:00:00.123456789Z"),
);

function literalFor(type: FieldType): fc.Arbitrary<string> {
  switch (type) {
    case "int":
    case "bigint":
      return fc.oneof(intLit, intLit, decimalLit);
    case "number":
      return fc.oneof(decimalLit, intLit);
    case "string":
      return stringLit;
    case "boolean":
      return fc.constantFrom("true", "false");
    case "date":
      return dateLit;
    case "datetime":
      return fc.oneof(datetimeLit, dateLit);
    case "uuid":
      return fc.oneof(
        fc.uuid(),
        fc.uuid().map((u) => `'${u}'`),
      );
    case "json":
      return fc.constant("null");
  }
}

// ---- expressions, from the registry ----

const filterable = (set: EntitySetDef) => Object.entries(set.fields).filter(([, f]) => f.filterable && f.type !== "json");
const navsOf = (set: EntitySetDef, kind: "one" | "many") => Object.entries(set.nav).filter(([, n]) => n.kind === kind && reg.get(n.target));
const OPS = ["eq", "ne", "gt", "ge", "lt", "le"];

function leafArb(set: EntitySetDef, prefix: string): fc.Arbitrary<string> {
  const fields = filterable(set);
  const out: fc.Arbitrary<string>[] = [];
  if (fields.length) {
    const field = fc.constantFrom(...fields);
    out.push(
      field.chain(([name, f]) => fc.tuple(fc.constantFrom(...OPS), literalFor(f.type)).map(([op, v]) => `${prefix}${name} ${op} ${v}`)),
      field.chain(([name]) => fc.constantFrom(`${prefix}${name} eq null`, `${prefix}${name} ne null`, `null eq ${prefix}${name}`)),
      field.chain(([name, f]) => fc.array(fc.oneof(literalFor(f.type), fc.constant("null")), { minLength: 1, maxLength: 4 }).map((vs) => `${prefix}${name} in (${vs.join(", ")})`)),
    );
    const strings = fields.filter(([, f]) => f.type === "string");
    if (strings.length) {
      const s = fc.constantFrom(...strings.map(([n]) => prefix + n));
      out.push(
        fc.tuple(fc.constantFrom("contains", "startswith", "endswith"), s, stringLit).map(([fn, a, b]) => `${fn}(${a}, ${b})`),
        fc.tuple(fc.constantFrom("tolower", "toupper", "trim"), s, stringLit).map(([fn, a, b]) => `${fn}(${a}) eq ${b}`),
        fc.tuple(s, intLit).map(([a, n]) => `length(${a}) gt ${n}`),
      );
    }
    const temporal = fields.filter(([, f]) => f.type === "date" || f.type === "datetime");
    if (temporal.length) {
      out.push(fc.tuple(fc.constantFrom("year", "month", "day"), fc.constantFrom(...temporal.map(([n]) => prefix + n)), intLit).map(([fn, a, n]) => `${fn}(${a}) le ${n}`));
    }
    const bools = fields.filter(([, f]) => f.type === "boolean");
    if (bools.length) out.push(fc.constantFrom(...bools.map(([n]) => prefix + n)));
  }
  // Through a to-one navigation (one level; the leaf of the target recurses no further).
  const ones = navsOf(set, "one");
  if (ones.length) {
    out.push(
      fc.constantFrom(...ones).chain(([name, n]) => {
        const target = reg.mustGet(n.target);
        const tf = filterable(target);
        if (!tf.length) return fc.constant(`${prefix}${name}/${n.targetField} eq 1`);
        return fc.constantFrom(...tf).chain(([fname, f]) => literalFor(f.type).map((v) => `${prefix}${name}/${fname} eq ${v}`));
      }),
    );
  }
  const manys = navsOf(set, "many");
  if (manys.length) out.push(fc.tuple(fc.constantFrom(...manys), intLit).map(([[name], v]) => `${prefix}${name}/$count ge ${v}`));
  return fc.oneof(...out);
}

const exprCache = new Map<string, fc.Arbitrary<string>>();

/** A boolean expression over `set` (fields referenced through `prefix`, e.g. a lambda variable). */
function exprArb(set: EntitySetDef, prefix: string, depth: number): fc.Arbitrary<string> {
  const key = `${set.name}|${prefix}|${depth}`;
  const hit = exprCache.get(key);
  if (hit) return hit;
  const leaf = leafArb(set, prefix);
  let arb: fc.Arbitrary<string> = leaf;
  if (depth > 0) {
    const sub = fc.constant(null).chain(() => exprArb(set, prefix, depth - 1));
    const parts: fc.Arbitrary<string>[] = [leaf, leaf, fc.tuple(sub, fc.constantFrom("and", "or"), sub).map(([a, op, b]) => `${a} ${op} ${b}`), sub.map((a) => `not (${a})`), sub.map((a) => `(${a})`)];
    const manys = navsOf(set, "many");
    if (manys.length) {
      const v = `x${depth}`;
      parts.push(
        fc.constantFrom(...manys).chain(([name, n]) =>
          fc.oneof(
            fc
              .constant(null)
              .chain(() => exprArb(reg.mustGet(n.target), `${v}/`, depth - 1))
              .map((body) => `${prefix}${name}/${depthOp(depth)}(${v}: ${body})`),
            fc.constant(`${prefix}${name}/any()`),
          ),
        ),
      );
    }
    arb = fc.oneof(...parts);
  }
  exprCache.set(key, arb);
  return arb;
}

const depthOp = (d: number) => (d % 2 ? "any" : "all");

function selectArb(set: EntitySetDef): fc.Arbitrary<string> {
  return fc.subarray(Object.keys(set.fields), { minLength: 1 }).map((xs) => xs.join(","));
}

function orderbyArb(set: EntitySetDef): fc.Arbitrary<string> {
  const fields = filterable(set).map(([n]) => n);
  const ones = navsOf(set, "one").flatMap(([name, n]) => filterable(reg.mustGet(n.target)).map(([f]) => `${name}/${f}`));
  return fc.array(fc.tuple(fc.constantFrom(...fields, ...ones), fc.constantFrom("", " asc", " desc")), { minLength: 1, maxLength: 3 }).map((items) => items.map(([p, d]) => p + d).join(", "));
}

const hasNavs = (set: EntitySetDef) => Object.values(set.nav).some((n) => reg.get(n.target));

/** Only for sets with navigations (see hasNavs). */
function expandArb(set: EntitySetDef, depth: number): fc.Arbitrary<string> {
  const navs = Object.entries(set.nav).filter(([, n]) => reg.get(n.target));
  const item = fc.constantFrom(...navs).chain(([name, n]) => {
    const target = reg.mustGet(n.target);
    if (n.kind === "many" && depth === 1) {
      return fc.oneof(fc.constant(`${name}/$count`), nestedArb(name, target, "many", depth));
    }
    return nestedArb(name, target, n.kind, depth);
  });
  return fc.uniqueArray(item, { minLength: 1, maxLength: 2, selector: (s) => s.split(/[(/]/)[0] }).map((xs) => xs.join(","));
}

function nestedArb(name: string, target: EntitySetDef, kind: "one" | "many", depth: number): fc.Arbitrary<string> {
  const opts: fc.Arbitrary<string>[] = [selectArb(target).map((s) => `$select=${s}`)];
  if (depth < 3 && hasNavs(target))
    opts.push(
      fc
        .constant(null)
        .chain(() => expandArb(target, depth + 1))
        .map((e) => `$expand=${e}`),
    );
  if (kind === "many") {
    opts.push(
      exprArb(target, "", 1).map((f) => `$filter=${f}`),
      orderbyArb(target).map((o) => `$orderby=${o}`),
      fc.nat({ max: 5 }).map((n) => `$top=${n}`),
      fc.nat({ max: 3 }).map((n) => `$skip=${n}`),
      fc.constantFrom("$count=true", "$count=false"),
    );
  }
  return fc.oneof(
    fc.constant(name),
    fc.uniqueArray(fc.oneof(...opts), { minLength: 1, maxLength: 3, selector: (s) => s.split("=")[0] }).map((xs) => `${name}(${xs.join(";")})`),
  );
}

function methodsFor(type: FieldType): string[] {
  if (type === "int" || type === "bigint" || type === "number") return ["sum", "min", "max", "average", "countdistinct"];
  if (type === "string" || type === "date" || type === "datetime") return ["min", "max", "countdistinct"];
  return ["countdistinct"];
}

const filterSteps = (set: EntitySetDef) =>
  fc
    .array(
      exprArb(set, "", 1).map((f) => `filter(${f})`),
      { minLength: 1, maxLength: 2 },
    )
    .map((xs) => xs.join("/"));

/** `[filter(..)/]groupby(..)` or `aggregate(..)`. */
function groupedApplyArb(set: EntitySetDef): fc.Arbitrary<string> {
  const fields = filterable(set);
  const keys = fields
    .map(([n]) => n)
    .concat(
      navsOf(set, "one").flatMap(([name, n]) =>
        filterable(reg.mustGet(n.target))
          .slice(0, 2)
          .map(([f]) => `${name}/${f}`),
      ),
    );
  const agg = fc.oneof(
    fc.constant("$count as n"),
    fc.constantFrom(...fields).chain(([f, def]) => fc.constantFrom(...methodsFor(def.type)).map((m) => `${f} with ${m} as a_${m}`)),
  );
  const aggs = fc.uniqueArray(agg, { minLength: 1, maxLength: 3, selector: (s) => s.split(" as ")[1] }).map((xs) => xs.join(", "));
  const group = fc.oneof(
    fc.tuple(fc.uniqueArray(fc.constantFrom(...keys), { minLength: 1, maxLength: 2 }), fc.option(aggs)).map(([ks, a]) => `groupby((${ks.join(",")})${a ? `,aggregate(${a})` : ""})`),
    aggs.map((a) => `aggregate(${a})`),
  );
  return fc.tuple(fc.option(filterSteps(set)), group).map(([f, g]) => (f ? `${f}/${g}` : g));
}

/** Valid-by-construction options for `set` and the kind of request (a few still rejected, e.g. $top over 1000). */
function queryArb(set: EntitySetDef, mode: Mode): fc.Arbitrary<Raw> {
  const paging = {
    $top: fc.oneof(fc.nat({ max: 20 }), fc.nat({ max: 1100 })).map(String),
    $skip: fc.nat({ max: 10 }).map(String),
    $count: fc.constantFrom("true", "false"),
  };
  const shape = {
    $select: selectArb(set),
    ...(hasNavs(set) ? { $expand: expandArb(set, 1) } : {}),
  };
  if (mode === "entity") return fc.record(shape, { requiredKeys: [] });
  if (mode === "count") return fc.record({ $filter: exprArb(set, "", 3), $apply: fc.oneof(filterSteps(set), groupedApplyArb(set)) }, { requiredKeys: [] });
  return fc.oneof(
    fc.record({ ...shape, ...paging, $filter: exprArb(set, "", 3), $orderby: orderbyArb(set), $apply: filterSteps(set) }, { requiredKeys: [] }),
    fc.record({ ...paging, $apply: groupedApplyArb(set) }, { requiredKeys: ["$apply"] }),
  );
}

const setArb = fc.constantFrom(...SETS);
const modeArb = fc.constantFrom<Mode>("collection", "collection", "count", "entity");

// ---- mutations ----

const mutationText = fc.oneof(
  fc.string({ unit: "binary", maxLength: 4 }),
  nasty,
  fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)),
  fc.constantFrom(" eq ", " and ", " or ", "not ", "/any(", "/$count", "$filter=", "9999999999999999999999999", "2026-13-45", "(", "))", "x/", ",", ";"),
);

interface Mutation {
  at: number;
  len: number;
  kind: "insert" | "delete" | "replace" | "duplicate";
  text: string;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  at: fc.nat(),
  len: fc.nat({ max: 6 }),
  kind: fc.constantFrom("insert", "delete", "replace", "duplicate"),
  text: mutationText,
});

function mutate(s: string, m: Mutation): string {
  const at = m.at % (s.length + 1);
  switch (m.kind) {
    case "insert":
      return s.slice(0, at) + m.text + s.slice(at);
    case "delete":
      return s.slice(0, at) + s.slice(at + m.len);
    case "replace":
      return s.slice(0, at) + m.text + s.slice(at + m.len);
    case "duplicate":
      return s.slice(0, at) + s.slice(at, at + m.len) + s.slice(at);
  }
}

const OPTION_NAMES = ["$filter", "$select", "$orderby", "$expand", "$top", "$skip", "$count", "$apply"];

test("grammar-built queries: success or 400, never a database error, never input in the SQL text", async () => {
  await fc.assert(
    fc.asyncProperty(
      fc.tuple(setArb, modeArb).chain(([set, mode]) => fc.tuple(fc.constant(set), queryArb(set, mode), fc.constant(mode))),
      async ([set, raw, mode]) => attempt(set, raw, mode),
    ),
    { numRuns: RUNS },
  );
  // The grammar must mostly produce queries that run, or the property proves little.
  expect(tally.ok, `executed ${tally.ok}, rejected ${tally.rejected}`).toBeGreaterThan(RUNS * 0.3);
}, 60_000);

test("mutated queries: success or 400", async () => {
  const before = tally.ok + tally.rejected;
  await fc.assert(
    fc.asyncProperty(
      fc
        .tuple(setArb, modeArb)
        .chain(([set, mode]) => fc.tuple(fc.constant(set), queryArb(set, mode), fc.array(fc.tuple(fc.constantFrom(...OPTION_NAMES), mutationArb), { minLength: 1, maxLength: 4 }), fc.constant(mode))),
      async ([set, raw, mutations, mode]) => {
        const out: Raw = { ...raw };
        for (const [name, m] of mutations) out[name] = mutate(out[name] ?? "", m);
        await attempt(set, out, mode);
      },
    ),
    { numRuns: RUNS },
  );
  // fc.assert throws on a counterexample; this says the property did run on every generated query.
  expect(tally.ok + tally.rejected - before, "queries tried").toBeGreaterThanOrEqual(RUNS);
}, 60_000);

test("arbitrary unicode options and option names: success or 400", async () => {
  const key = fc.oneof(
    fc.constantFrom(...OPTION_NAMES, "filter", "top", "custom"),
    fc.string({ unit: "binary", maxLength: 8 }).map((s) => `$${s}`),
  );
  const before = tally.ok + tally.rejected;
  await fc.assert(
    fc.asyncProperty(setArb, fc.dictionary(key, fc.string({ unit: "binary", maxLength: 60 }), { maxKeys: 4 }), modeArb, async (set, raw, mode) => attempt(set, raw, mode)),
    { numRuns: RUNS },
  );
  expect(tally.ok + tally.rejected - before, "queries tried").toBeGreaterThanOrEqual(RUNS);
}, 60_000);
