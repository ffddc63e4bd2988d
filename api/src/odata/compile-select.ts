// Builds the JSON of entities in PostgreSQL with the registry's camelCase names, expanded
// navigations as correlated subqueries in the same statement (an object or null for to-one, an
// array for to-many, a number for nav/$count).
//
// Objects come from row_to_json over a one-row subselect whose column aliases are the property
// names, and arrays from array_to_json(array_agg(..)): both print compact JSON ({"id":1},[..,..])
// where json_build_object and json_agg put spaces around ':' and after ','. A row also has no
// 100-argument limit, so wide entities need no chunking and keep the declaration order.
import type { EntitySetDef, FieldType } from "../entities/types.ts";
import { col, ident, join, param, q, raw, type Sql } from "../db/sqltext.ts";
import type { ExpandItem, ODataQuery } from "./ast.ts";
import { and, compileExpr, envFor, freshAlias, guard, localColumn, orderSql, targetColumn, type Ctx } from "./compile-expr.ts";

/** A column value as it should appear in JSON. */
export function encodeValue(value: Sql, type: FieldType): Sql {
  // to_json(timestamptz) follows the session time zone; the wire format is UTC ISO 8601, the
  // same text JavaScript's toISOString() gives. Dates already encode as YYYY-MM-DD, numbers as
  // JSON numbers and jsonb as itself.
  if (type === "datetime") return q`to_char(${value} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return value;
}

export type JsonTree = Map<string, Sql | JsonTree>;

const PROPERTY = /^[A-Za-z_][A-Za-z0-9_]*(@odata\.count)?$/;

/**
 * A property name as a quoted column alias (row_to_json takes the JSON keys from the aliases).
 * Only registry names and parser-checked aliases reach here; checked anyway, as ident() checks
 * columns. PostgreSQL truncates identifiers beyond 63 bytes, which would change the key.
 */
function propertyAlias(name: string): Sql {
  if (!PROPERTY.test(name) || name.length > 63) throw new Error(`unsafe property name ${JSON.stringify(name)}`);
  return raw(`"${name}"`);
}

/** A JSON object from name/value pairs, in that order. */
export function buildObject(pairs: readonly (readonly [string, Sql])[]): Sql {
  if (!pairs.length) return raw("'{}'::json");
  const cols = pairs.map(([k, v]) => q`${v} as ${propertyAlias(k)}`);
  return q`(select row_to_json(odata_row) from (select ${join(cols, ", ")}) odata_row)`;
}

/** Aggregate: the JSON array of `item` over the rows of the enclosing query, in `order` (null for none). */
export function jsonArray(item: Sql, order: Sql): Sql {
  return q`array_to_json(array_agg(${item} order by ${order}))`;
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
    rows = q`(select ${jsonArray(obj, order)} from ${from} where ${where})`;
  } else {
    // Page inside the subquery; the order is re-applied to the few rows it keeps (the same
    // expressions: the subquery exposes every column under the same alias).
    const limit = query.top === undefined ? raw("") : q` limit ${param(String(query.top), "int8")}`;
    const offset = query.skip === undefined ? raw("") : q` offset ${param(String(query.skip), "int8")}`;
    const page = q`select ${ident(a)}.* from ${from} where ${where} order by ${order}${limit}${offset}`;
    rows = q`(select ${jsonArray(obj, order)} from (${page}) ${ident(a)})`;
  }
  const out: (readonly [string, Sql])[] = [[item.name, q`coalesce(${rows}, '[]'::json)`]];
  if (query.count) out.push([`${item.name}@odata.count`, count]);
  return out;
}
