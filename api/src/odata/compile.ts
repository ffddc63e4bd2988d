// Compiles a parsed OData query to ONE SQL statement (sqltext.ts): the page of rows, whether more
// rows follow, and the optional total, with the JSON built by PostgreSQL so the server passes the
// text through without parsing it. Expansions, navigation paths and lambdas are correlated
// subqueries of that statement: one round trip however deep the $expand.
import { odataError } from "../errors.ts";
import type { Registry } from "../entities/registry.ts";
import type { EntitySetDef } from "../entities/types.ts";
import { col, ident, param, q, raw, type Sql } from "../db/sqltext.ts";
import type { ODataQuery } from "./ast.ts";
import { and, compileExpr, envFor, guard, keyColumn, orderSql, type Ctx, type ScopeFn } from "./compile-expr.ts";
import { groupedSource } from "./compile-apply.ts";
import { entityObject } from "./compile-select.ts";
import { DEFAULT_TOP, MAX_TOP } from "./limits.ts";

export type { ScopeFn } from "./compile-expr.ts";

export interface CompileOptions {
  /** Tenant predicate for a table alias (null = none); applied to every alias in the statement. */
  scope: ScopeFn;
  /** Server page-size ceiling (default MAX_TOP); a larger $top is cut to it and `more` is set. */
  maxTop?: number;
  /** Page size without $top (default DEFAULT_TOP). */
  defaultTop?: number;
}

const ROOT = "t0";

function newCtx(reg: Registry, opts: CompileOptions): Ctx {
  return { reg, scope: opts.scope, next: 1 };
}

/** The root rows' WHERE: scope, soft delete, $filter and $apply filter(...) steps. */
function rootWhere(ctx: Ctx, set: EntitySetDef, query: ODataQuery): Sql[] {
  const env = envFor(ROOT);
  const out = guard(ctx, set, ROOT);
  if (query.filter) out.push(compileExpr(ctx, env, query.filter));
  if (query.apply && !query.apply.group) for (const f of query.apply.filters) out.push(compileExpr(ctx, env, f));
  return out;
}

/**
 * `select value, more, count`: value is the JSON array text of the page, more whether rows
 * follow it, count the total ignoring $top/$skip when $count=true (else null).
 *
 * The lookahead row is left out by the aggregate's FILTER, which is evaluated before the
 * aggregate's argument, so that row's JSON (and its expansions) is never built.
 */
export function compileCollection(reg: Registry, set: EntitySetDef, query: ODataQuery, opts: CompileOptions): Sql {
  const ctx = newCtx(reg, opts);
  const maxTop = opts.maxTop ?? MAX_TOP;
  const top = Math.min(query.top ?? opts.defaultTop ?? DEFAULT_TOP, maxTop);
  const skip = query.skip ?? 0;
  const limit = param(String(top + 1), "int8");
  const offset = param(String(skip), "int8");
  const topParam = param(String(top), "int8");

  let source: Sql;
  let order: Sql | null;
  let object: Sql;
  let countOf: Sql;
  if (query.apply?.group) {
    const g = groupedSource(ctx, set, query.apply, query.orderby);
    source = q`(${g.groups}) ${ident(ROOT)}`;
    order = g.order;
    object = g.object;
    countOf = q`(select count(*) from (${g.groups}) ${ident(ROOT)})`;
  } else {
    const where = and(rootWhere(ctx, set, query));
    source = q`${ident(set.table)} ${ident(ROOT)} where ${where}`;
    order = orderSql(ctx, envFor(ROOT), set, query.orderby);
    object = entityObject(ctx, set, ROOT, query);
    // Same FROM/WHERE in its own scope: alias t0 there shadows the page's t0.
    countOf = q`(select count(*) from ${source})`;
  }
  // Innermost: the page plus one lookahead row (a top-N sort, not a sort of every match).
  // Middle: number those few rows in the same order (the key ends it, so the order is total).
  // Outer: JSON of the numbered rows up to $top; a row numbered beyond it means `more`.
  const orderBy = order ? q` order by ${order}` : raw("");
  const window = order ? q`row_number() over (order by ${order})` : raw("row_number() over ()");
  const page = q`select ${ident(ROOT)}.* from ${source}${orderBy} limit ${limit} offset ${offset}`;
  const numbered = q`select ${ident(ROOT)}.*, ${window} as odata_rn from (${page}) ${ident(ROOT)}`;
  const rn = col(ROOT, "odata_rn");
  const count = query.count ? q`${countOf}::float8` : raw("null::float8");
  return q`select coalesce(array_to_json(array_agg(${object} order by ${rn}) filter (where ${rn} <= ${topParam})), '[]'::json)::text as value, coalesce(bool_or(${rn} > ${topParam}), false) as more, ${count} as count from (${numbered}) ${ident(ROOT)}`;
}

/** Only $select and $expand apply to a single entity. */
function rejectCollectionOptions(query: ODataQuery, what: string): void {
  const bad: [string, boolean][] = [
    ["$filter", query.filter !== undefined],
    ["$top", query.top !== undefined],
    ["$skip", query.skip !== undefined],
    ["$count", query.count],
    ["$apply", query.apply !== undefined],
  ];
  for (const [name, present] of bad) if (present) throw odataError(`not supported ${what}`, name);
}

/** A key as a parameter of the key field's type; a malformed key is a 400. */
function keyParam(set: EntitySetDef, key: string | number): Sql {
  const f = set.fields[set.key]!;
  const text = String(key);
  const bad = (): never => {
    throw odataError(`invalid key for ${set.name}`, "key", 0, text);
  };
  switch (f.type) {
    case "int":
    case "bigint": {
      if (!/^-?\d{1,19}$/.test(text)) bad();
      const n = BigInt(text);
      if (n < -(2n ** 63n) || n >= 2n ** 63n) bad();
      return param(text, "int8");
    }
    case "uuid":
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text)) bad();
      return param(text.toLowerCase(), "uuid");
    case "string":
      if (text.includes("\u0000")) bad();
      return param(text, "text");
    default:
      return bad();
  }
}

/** `select value` for the entity with `key` (no row when absent or out of scope). */
export function compileEntity(reg: Registry, set: EntitySetDef, key: string | number, query: ODataQuery, opts: CompileOptions): Sql {
  rejectCollectionOptions(query, "when reading one entity");
  const ctx = newCtx(reg, opts);
  const where = and([q`${col(ROOT, keyColumn(set))} = ${keyParam(set, key)}`, ...guard(ctx, set, ROOT)]);
  return q`select ${entityObject(ctx, set, ROOT, query)}::text as value from ${ident(set.table)} ${ident(ROOT)} where ${where} limit 1`;
}

/** `select count` of the rows (or groups, after $apply groupby) matching $filter/$apply. */
export function compileCount(reg: Registry, set: EntitySetDef, query: ODataQuery, opts: CompileOptions): Sql {
  const ctx = newCtx(reg, opts);
  if (query.apply?.group) {
    const g = groupedSource(ctx, set, query.apply, []);
    return q`select count(*)::float8 as count from (${g.groups}) ${ident(ROOT)}`;
  }
  return q`select count(*)::float8 as count from ${ident(set.table)} ${ident(ROOT)} where ${and(rootWhere(ctx, set, query))}`;
}
