// Builds the JSON of entities in PostgreSQL: json_build_object per row with the registry's
// camelCase names, expanded navigations as correlated subqueries in the same statement (an
// object or null for to-one, an array for to-many, a number for nav/$count).
import type { EntitySetDef, FieldType } from "../entities/types.ts";
import { col, ident, join, jsonKey, param, q, raw, type Sql } from "../db/sqltext.ts";
import type { ExpandItem, ODataQuery } from "./ast.ts";
import { and, compileExpr, envFor, freshAlias, guard, localColumn, orderSql, targetColumn, type Ctx } from "./compile-expr.ts";

/** json_build_object takes at most 100 arguments: 50 key/value pairs. */
const PAIRS_PER_CALL = 50;

/** A column value as it should appear in JSON. */
export function encodeValue(value: Sql, type: FieldType): Sql {
  // to_json(timestamptz) follows the session time zone; the wire format is UTC ISO 8601, the
  // same text JavaScript's toISOString() gives. Dates already encode as YYYY-MM-DD, numbers as
  // JSON numbers and jsonb as itself.
  if (type === "datetime") return q`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return value;
}

export type JsonTree = Map<string, Sql | JsonTree>;

/**
 * A JSON object from name/value pairs. Wide objects are built in chunks merged with jsonb `||`
 * (jsonb then orders keys by length and name instead of declaration order; only objects with
 * more than 50 properties are affected).
 */
export function buildObject(pairs: readonly (readonly [string, Sql])[]): Sql {
  if (!pairs.length) return raw("'{}'::json");
  const call = (fn: string, chunk: readonly (readonly [string, Sql])[]) =>
    q`${raw(fn)}(${join(
      chunk.map(([k, v]) => q`${jsonKey(k)}, ${v}`),
      ", ",
    )})`;
  if (pairs.length <= PAIRS_PER_CALL) return call("json_build_object", pairs);
  const chunks: Sql[] = [];
  for (let i = 0; i < pairs.length; i += PAIRS_PER_CALL) chunks.push(call("jsonb_build_object", pairs.slice(i, i + PAIRS_PER_CALL)));
  return q`(${join(chunks, " || ")})`;
}

/** Nested objects (for grouped navigation paths) from a tree of names. */
export function buildTree(tree: JsonTree): Sql {
  return buildObject([...tree].map(([k, v]) => [k, v instanceof Map ? buildTree(v) : v] as const));
}

/** The JSON object of the row at `alias`: selected (or all) fields, then expanded navigations. */
export function entityObject(ctx: Ctx, set: EntitySetDef, alias: string, query: ODataQuery): Sql {
  const names = query.select ?? Object.keys(set.fields);
  const pairs: (readonly [string, Sql])[] = names.map((name) => {
    const f = set.fields[name]!;
    return [name, encodeValue(col(alias, f.column), f.type)] as const;
  });
  for (const item of query.expand) pairs.push(...expandPairs(ctx, alias, item));
  return buildObject(pairs);
}

function expandPairs(ctx: Ctx, parent: string, item: ExpandItem): (readonly [string, Sql])[] {
  const { step, query } = item;
  const to = step.to;
  const a = freshAlias(ctx);
  const from = q`${ident(to.table)} ${ident(a)}`;
  const conds = [q`${col(a, targetColumn(step))} = ${col(parent, localColumn(step))}`, ...guard(ctx, to, a)];
  if (query.filter) conds.push(compileExpr(ctx, envFor(a), query.filter));
  const where = and(conds);
  // The same FROM/WHERE serves the count subquery: its alias shadows nothing outside it.
  const count = q`(select count(*) from ${from} where ${where})`;
  if (item.countOnly) return [[`${item.name}@odata.count`, count]];

  if (step.nav.kind === "one") {
    return [[item.name, q`(select ${entityObject(ctx, to, a, query)} from ${from} where ${where} limit 1)`]];
  }

  const order = orderSql(ctx, envFor(a), to, query.orderby);
  const obj = entityObject(ctx, to, a, query);
  let rows: Sql;
  if (query.top === undefined && query.skip === undefined) {
    rows = q`(select json_agg(${obj} order by ${order}) from ${from} where ${where})`;
  } else {
    // Page inside the subquery, keep the page's order through row_number.
    const limit = query.top === undefined ? raw("") : q` limit ${param(String(query.top), "int8")}`;
    const offset = query.skip === undefined ? raw("") : q` offset ${param(String(query.skip), "int8")}`;
    const page = q`select ${ident(a)}.*, row_number() over (order by ${order}) as odata_rn from ${from} where ${where} order by ${order}${limit}${offset}`;
    rows = q`(select json_agg(${obj} order by ${col(a, "odata_rn")}) from (${page}) ${ident(a)})`;
  }
  const out: (readonly [string, Sql])[] = [[item.name, q`coalesce(${rows}, '[]'::json)`]];
  if (query.count) out.push([`${item.name}@odata.count`, count]);
  return out;
}
