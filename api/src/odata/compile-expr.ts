// Compiles parsed expressions to SQL fragments. Literals become cast bind parameters; names come
// from the registry only. Every table alias introduced here (navigation-path subqueries, lambda
// and $count subqueries) gets the tenant predicate and the soft-delete test, so a path or lambda
// can never see a row the caller could not list directly.
//
// Null semantics follow OData rather than SQL's three-valued logic: a comparison with null is
// false, `ne` is true against null, and `not` turns "unknown" into true (`not coalesce(x, false)`).
import type { Registry } from "../entities/registry.ts";
import type { EntitySetDef, FieldDef } from "../entities/types.ts";
import { col, ident, join, param, q, raw, type Sql } from "../db/sqltext.ts";
import type { CallExpr, CompareExpr, CountExpr, Expr, InExpr, LambdaExpr, LiteralExpr, NavStep, OrderItem } from "./ast.ts";

export type ScopeFn = (set: EntitySetDef, alias: string) => Sql | null;

/** State shared by one statement's compilation: aliases are unique across the whole statement. */
export interface Ctx {
  reg: Registry;
  scope: ScopeFn;
  next: number;
}

/** Where names resolve: `$it` is a table alias; lambda variables map to their aliases. */
export interface Env {
  it: string;
  vars: ReadonlyMap<string, string>;
}

export function freshAlias(ctx: Ctx): string {
  return `t${ctx.next++}`;
}

export function envFor(alias: string): Env {
  return { it: alias, vars: new Map() };
}

function mustField(set: EntitySetDef, prop: string): FieldDef {
  const f = Object.hasOwn(set.fields, prop) ? set.fields[prop] : undefined;
  if (!f) throw new Error(`registry: ${set.name} has no field ${prop}`);
  return f;
}

/** The column on the navigation's source holding the join value. */
export function localColumn(step: NavStep): string {
  return mustField(step.from, step.nav.localField).column;
}

/** The column on the navigation's target matched against it. */
export function targetColumn(step: NavStep): string {
  return mustField(step.to, step.nav.targetField).column;
}

export function keyColumn(set: EntitySetDef): string {
  return mustField(set, set.key).column;
}

/** The predicates every row of `set` under `alias` must pass: tenant scope and not deleted. */
export function guard(ctx: Ctx, set: EntitySetDef, alias: string): Sql[] {
  const out: Sql[] = [];
  const s = ctx.scope(set, alias);
  if (s && !s.isEmpty) out.push(q`(${s})`);
  if (set.softDelete) {
    const del = Object.hasOwn(set.fields, "deletedAt") ? set.fields.deletedAt!.column : "deleted_at";
    out.push(q`${col(alias, del)} is null`);
  }
  return out;
}

export function and(parts: readonly Sql[]): Sql {
  return parts.length ? join(parts, " and ") : raw("true");
}

/**
 * The value of `column` at the end of a chain of to-one navigations from `base`: the column
 * itself, or a correlated scalar subquery (`limit 1` because a to-one target field need not be
 * unique; a missing or out-of-scope row gives null, as OData's navigation to nothing does).
 */
export function pathValue(ctx: Ctx, base: string, navs: readonly NavStep[], column: string): Sql {
  if (!navs.length) return col(base, column);
  const froms: Sql[] = [];
  const conds: Sql[] = [];
  let prev = base;
  for (const step of navs) {
    const a = freshAlias(ctx);
    froms.push(q`${ident(step.to.table)} ${ident(a)}`);
    conds.push(q`${col(a, targetColumn(step))} = ${col(prev, localColumn(step))}`, ...guard(ctx, step.to, a));
    prev = a;
  }
  return q`(select ${col(prev, column)} from ${join(froms, ", ")} where ${and(conds)} limit 1)`;
}

function baseAlias(env: Env, variable: string | null): string {
  if (variable === null) return env.it;
  const a = env.vars.get(variable);
  if (!a) throw new Error(`unbound lambda variable ${variable}`);
  return a;
}

/** FROM/WHERE for the rows of a to-many navigation related to the row at `base` + `navs`. */
function relatedRows(ctx: Ctx, env: Env, variable: string | null, navs: readonly NavStep[], many: NavStep) {
  const a = freshAlias(ctx);
  const source = pathValue(ctx, baseAlias(env, variable), navs, localColumn(many));
  const conds = [q`${col(a, targetColumn(many))} = ${source}`, ...guard(ctx, many.to, a)];
  return { alias: a, from: q`${ident(many.to.table)} ${ident(a)}`, conds };
}

export function compileExpr(ctx: Ctx, env: Env, e: Expr): Sql {
  switch (e.kind) {
    case "literal":
      return literalSql(e);
    case "path":
      return pathValue(ctx, baseAlias(env, e.variable), e.navs, e.field.column);
    case "count":
      return countSql(ctx, env, e);
    case "call":
      return callSql(ctx, env, e);
    case "compare":
      return compareSql(ctx, env, e);
    case "in":
      return inSql(ctx, env, e);
    case "and":
      return q`(${compileExpr(ctx, env, e.left)} and ${compileExpr(ctx, env, e.right)})`;
    case "or":
      return q`(${compileExpr(ctx, env, e.left)} or ${compileExpr(ctx, env, e.right)})`;
    case "not":
      return q`(not coalesce(${compileExpr(ctx, env, e.operand)}, false))`;
    case "lambda":
      return lambdaSql(ctx, env, e);
  }
}

/**
 * postgres.js serialises date and timestamp parameters through a JS Date, which drops
 * microseconds and turns years outside 1..9999 into text PostgreSQL rejects. Those values
 * therefore travel as text and the server casts them (ISO 8601 input is unambiguous whatever the
 * DateStyle; every datetime literal carries its offset).
 */
const VIA_TEXT = new Set(["date", "timestamptz"]);

/** A bind parameter of the literal's type. */
export function bind(value: unknown, cast: string): Sql {
  if (VIA_TEXT.has(cast)) return q`${param(value, "text")}::${raw(cast)}`;
  return param(value, cast);
}

function bindArray(values: unknown[], cast: string): Sql {
  if (VIA_TEXT.has(cast)) return q`${param(values, "text[]")}::${raw(`${cast}[]`)}`;
  return param(values, `${cast}[]`);
}

function literalSql(e: LiteralExpr): Sql {
  if (e.cast === null) return raw("null");
  return bind(e.value, e.cast);
}

function countSql(ctx: Ctx, env: Env, e: CountExpr): Sql {
  const r = relatedRows(ctx, env, e.variable, e.navs, e.many);
  return q`(select count(*) from ${r.from} where ${and(r.conds)})`;
}

function lambdaSql(ctx: Ctx, env: Env, e: LambdaExpr): Sql {
  const r = relatedRows(ctx, env, e.variable, e.navs, e.many);
  let body: Sql | null = null;
  if (e.body && e.param) {
    const vars = new Map(env.vars).set(e.param, r.alias);
    body = compileExpr(ctx, { it: env.it, vars }, e.body);
  }
  if (e.op === "any") {
    const conds = body ? [...r.conds, body] : r.conds;
    return q`exists (select 1 from ${r.from} where ${and(conds)})`;
  }
  // all: no related row fails the predicate (a null predicate counts as failing).
  return q`(not exists (select 1 from ${r.from} where ${and([...r.conds, q`not coalesce(${body ?? raw("true")}, false)`])}))`;
}

/** LIKE pattern escape: `!` is the escape character, so no backslash rules apply. */
function likeEscape(s: string): string {
  return s.replace(/[!%_]/g, (m) => `!${m}`);
}

function callSql(ctx: Ctx, env: Env, e: CallExpr): Sql {
  const arg = (i: number) => compileExpr(ctx, env, e.args[i]!);
  switch (e.fn) {
    case "contains":
    case "startswith":
    case "endswith": {
      const needle = e.args[1]!;
      if (needle.kind === "literal" && typeof needle.value === "string") {
        const v = likeEscape(needle.value);
        const pattern = e.fn === "contains" ? `%${v}%` : e.fn === "startswith" ? `${v}%` : `%${v}`;
        return q`(${arg(0)} like ${param(pattern, "text")} escape '!')`;
      }
      // A computed needle: no pattern to escape, so use plain string functions.
      if (e.fn === "contains") return q`(strpos(${arg(0)}, ${arg(1)}) > 0)`;
      if (e.fn === "startswith") return q`starts_with(${arg(0)}, ${arg(1)})`;
      return q`(right(${arg(0)}, length(${arg(1)})) = ${arg(1)})`;
    }
    case "tolower":
      return q`lower(${arg(0)})`;
    case "toupper":
      return q`upper(${arg(0)})`;
    case "trim":
      return q`btrim(${arg(0)})`;
    case "length":
      return q`length(${arg(0)})`;
    case "year":
    case "month":
    case "day": {
      // Datetimes are read in UTC so the answer does not depend on the session time zone.
      const a = e.args[0]!.type === "datetime" ? q`(${arg(0)} at time zone 'UTC')` : arg(0);
      return q`extract(${raw(e.fn)} from ${a})::int4`;
    }
  }
}

const SQL_OPS = { eq: "=", ne: "<>", gt: ">", ge: ">=", lt: "<", le: "<=" } as const;

function compareSql(ctx: Ctx, env: Env, e: CompareExpr): Sql {
  const isNull = (x: Expr) => x.kind === "literal" && x.lit === "null";
  const ln = isNull(e.left);
  const rn = isNull(e.right);
  if (ln && rn) return raw(e.op === "eq" ? "true" : "false");
  if (ln || rn) {
    const other = compileExpr(ctx, env, ln ? e.right : e.left);
    return e.op === "eq" ? q`(${other} is null)` : q`(${other} is not null)`;
  }
  const l = compileExpr(ctx, env, e.left);
  const r = compileExpr(ctx, env, e.right);
  const literal = e.left.kind === "literal" || e.right.kind === "literal";
  // eq against a value stays `=` (index-friendly, and null never equals a value); between two
  // expressions both may be null, and OData says null eq null.
  if (e.op === "eq") return literal ? q`(${l} = ${r})` : q`(${l} is not distinct from ${r})`;
  if (e.op === "ne") return q`(${l} is distinct from ${r})`;
  return q`(${l} ${raw(SQL_OPS[e.op])} ${r})`;
}

function inSql(ctx: Ctx, env: Env, e: InExpr): Sql {
  const x = compileExpr(ctx, env, e.operand);
  const values = e.items.filter((i) => i.cast !== null);
  const hasNull = values.length < e.items.length;
  if (!values.length) return q`(${x} is null)`;
  const casts = new Set(values.map((v) => v.cast!));
  // Integer literals of different widths widen to numeric; other families share one cast.
  const cast = casts.size === 1 ? values[0]!.cast! : "numeric";
  // postgres.js types a JS boolean array as bool, which cannot be cast to bool[]: list them.
  const list =
    cast === "bool"
      ? q`array[${join(
          values.map((v) => param(v.value, "bool")),
          ", ",
        )}]`
      : bindArray(
          values.map((v) => v.value),
          cast,
        );
  const any = q`${x} = any(${list})`;
  return hasNull ? q`(${any} or ${x} is null)` : q`(${any})`;
}

/** Could the expression be null (decides where nulls sort: first ascending, as OData says)? */
function nullable(e: Expr): boolean {
  switch (e.kind) {
    case "path":
      return e.field.nullable || e.navs.length > 0;
    case "count":
      return false;
    case "literal":
      return e.cast === null;
    case "call":
      return e.args.some(nullable);
    default:
      return true;
  }
}

/** ORDER BY items for $orderby plus the key as the final tiebreaker (stable paging). */
export function orderSql(ctx: Ctx, env: Env, set: EntitySetDef, items: readonly OrderItem[]): Sql {
  const out: Sql[] = [];
  let hasKey = false;
  for (const it of items) {
    if (it.kind !== "expr") continue;
    const e = it.expr;
    if (e.kind === "path" && e.variable === null && !e.navs.length && e.prop === set.key) hasKey = true;
    const dir = it.desc ? "desc" : "asc";
    const nulls = nullable(e) ? (it.desc ? " nulls last" : " nulls first") : "";
    out.push(q`${compileExpr(ctx, env, e)} ${raw(dir + nulls)}`);
  }
  if (!hasKey) out.push(q`${col(env.it, keyColumn(set))} asc`);
  return join(out, ", ");
}
