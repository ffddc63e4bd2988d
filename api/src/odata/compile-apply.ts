// $apply groupby/aggregate: three layers in one statement.
//   1. rows: the grouped values g0.. and aggregated inputs v0.. per (scoped, filtered) row,
//      navigation paths already resolved to scalar subqueries;
//   2. groups: GROUP BY g0.. with the aggregates a0..;
//   3. the page (compile.ts) over the groups, ordered by output names.
// Output objects use the grouped property names (a navigation path becomes nested objects, as in
// OData: {"systemQuestion":{"questionCode":"AGE"}}) and the aggregate aliases.
import type { EntitySetDef, FieldType } from "../entities/types.ts";
import { col, ident, join, q, raw, type Sql } from "../db/sqltext.ts";
import type { AggregateItem, ApplyQuery, OrderItem } from "./ast.ts";
import { and, compileExpr, envFor, guard, type Ctx } from "./compile-expr.ts";
import { buildTree, encodeValue, type JsonTree } from "./compile-select.ts";

export interface GroupedSource {
  /** SELECT producing one row per group, columns g0.. and a0.. (to be aliased t0). */
  groups: Sql;
  /** JSON object of a group row under alias t0. */
  object: Sql;
  /** ORDER BY over the group columns under alias t0, or null for a single-row aggregate. */
  order: Sql | null;
}

function aggregateSql(a: AggregateItem, input: Sql): Sql {
  switch (a.method) {
    case "count":
      return raw("count(*)");
    case "countdistinct":
      return q`count(distinct ${input})`;
    case "sum":
      return q`sum(${input})`;
    case "average":
      // avg() of integers is numeric with 16 decimals; float8 reads as a plain JSON number.
      return q`avg(${input})::float8`;
    case "min":
      return q`min(${input})`;
    case "max":
      return q`max(${input})`;
  }
}

/** The JSON type of an aggregate's result (only datetimes need re-encoding). */
function aggregateType(a: AggregateItem): FieldType {
  return (a.method === "min" || a.method === "max") && a.expr ? (a.expr.type as FieldType) : "number";
}

export function groupedSource(ctx: Ctx, set: EntitySetDef, apply: ApplyQuery, orderby: readonly OrderItem[]): GroupedSource {
  const group = apply.group!;
  const alias = "t0";
  const env = envFor(alias);
  const cols: Sql[] = [];
  group.keys.forEach((k, i) => {
    cols.push(q`${compileExpr(ctx, env, k.expr)} as ${ident(`g${i}`)}`);
  });
  group.aggregates.forEach((a, i) => {
    if (a.expr) cols.push(q`${compileExpr(ctx, env, a.expr)} as ${ident(`v${i}`)}`);
  });
  if (!cols.length) cols.push(raw("1 as one"));
  const where = and([...guard(ctx, set, alias), ...apply.filters.map((f) => compileExpr(ctx, env, f))]);
  const rows = q`select ${join(cols, ", ")} from ${ident(set.table)} ${ident(alias)} where ${where}`;

  const outCols: Sql[] = group.keys.map((_, i) => col(alias, `g${i}`));
  group.aggregates.forEach((a, i) => {
    outCols.push(q`${aggregateSql(a, col(alias, `v${i}`))} as ${ident(`a${i}`)}`);
  });
  const groupBy = group.keys.length
    ? q` group by ${join(
        group.keys.map((_, i) => col(alias, `g${i}`)),
        ", ",
      )}`
    : raw("");
  const groups = q`select ${join(outCols, ", ")} from (${rows}) ${ident(alias)}${groupBy}`;

  // Output object: grouped names (paths nest) then aliases.
  const tree: JsonTree = new Map();
  group.keys.forEach((k, i) => {
    const segs = k.name.split("/");
    let node = tree;
    for (const s of segs.slice(0, -1)) {
      let child = node.get(s);
      if (!(child instanceof Map)) {
        child = new Map();
        node.set(s, child);
      }
      node = child;
    }
    node.set(segs[segs.length - 1]!, encodeValue(col(alias, `g${i}`), k.expr.type as FieldType));
  });
  group.aggregates.forEach((a, i) => {
    tree.set(a.alias, encodeValue(col(alias, `a${i}`), aggregateType(a)));
  });

  // Order by the requested outputs, then every key (groups are unique by their keys).
  const columnOf = new Map<string, string>();
  group.keys.forEach((k, i) => {
    columnOf.set(k.name, `g${i}`);
  });
  group.aggregates.forEach((a, i) => {
    columnOf.set(a.alias, `a${i}`);
  });
  const order: Sql[] = [];
  const used = new Set<string>();
  for (const it of orderby) {
    if (it.kind !== "output") continue;
    const c = columnOf.get(it.name)!;
    used.add(c);
    order.push(q`${col(alias, c)} ${raw(it.desc ? "desc nulls last" : "asc nulls first")}`);
  }
  group.keys.forEach((_, i) => {
    if (!used.has(`g${i}`)) order.push(q`${col(alias, `g${i}`)} asc nulls first`);
  });
  return { groups, object: buildTree(tree), order: order.length ? join(order, ", ") : null };
}
