// The parsed and registry-resolved form of a request's OData query options. Every property and
// navigation in here has been looked up in the registry and every literal type-checked against
// what it is compared with, so the compiler only translates and never has to reject anything.
import type { EntitySetDef, FieldDef, FieldType, NavDef } from "../entities/types.ts";

/** The type of an expression: a registry field type, or the untyped `null` literal. */
export type ExprType = FieldType | "null";

/** One hop along a navigation property. */
export interface NavStep {
  name: string;
  nav: NavDef;
  from: EntitySetDef;
  to: EntitySetDef;
}

/** The kinds of literal the lexer recognises (before they meet the type they are compared with). */
export type LiteralKind = "null" | "string" | "int" | "decimal" | "boolean" | "date" | "datetime" | "guid";

export interface LiteralExpr {
  kind: "literal";
  lit: LiteralKind;
  /** The type the literal was coerced to (its own type when it met no field). */
  type: ExprType;
  /** Bind-parameter value (already normalised, e.g. a date widened to a UTC midnight datetime). */
  value: string | boolean | null;
  /** PostgreSQL type the parameter is cast to; null only for the null literal. */
  cast: string | null;
  pos: number;
}

/**
 * A property reached from a range variable: `$it` (variable null: the instance being filtered)
 * or a lambda variable, through zero or more to-one navigations.
 */
export interface PathExpr {
  kind: "path";
  variable: string | null;
  navs: NavStep[];
  /** The set owning the property (the last nav's target, or the variable's set). */
  set: EntitySetDef;
  prop: string;
  field: FieldDef;
  type: ExprType;
  pos: number;
}

/** `nav/$count` inside an expression: the number of related rows, a bigint. */
export interface CountExpr {
  kind: "count";
  variable: string | null;
  navs: NavStep[];
  many: NavStep;
  type: "bigint";
  pos: number;
}

export type FuncName = "contains" | "startswith" | "endswith" | "tolower" | "toupper" | "length" | "trim" | "year" | "month" | "day";

export interface CallExpr {
  kind: "call";
  fn: FuncName;
  args: Expr[];
  type: ExprType;
  pos: number;
}

export type CompareOp = "eq" | "ne" | "gt" | "ge" | "lt" | "le";

export interface CompareExpr {
  kind: "compare";
  op: CompareOp;
  left: Expr;
  right: Expr;
  type: "boolean";
  pos: number;
}

export interface InExpr {
  kind: "in";
  operand: Expr;
  /** Coerced to the operand's type; may contain null literals. */
  items: LiteralExpr[];
  type: "boolean";
  pos: number;
}

export interface LogicalExpr {
  kind: "and" | "or";
  left: Expr;
  right: Expr;
  type: "boolean";
  pos: number;
}

export interface NotExpr {
  kind: "not";
  operand: Expr;
  type: "boolean";
  pos: number;
}

/** `nav/any(x: body)` / `nav/all(x: body)`; `any()` without a body means "has related rows". */
export interface LambdaExpr {
  kind: "lambda";
  op: "any" | "all";
  variable: string | null;
  navs: NavStep[];
  many: NavStep;
  param: string | null;
  body: Expr | null;
  type: "boolean";
  pos: number;
}

export type Expr = LiteralExpr | PathExpr | CountExpr | CallExpr | CompareExpr | InExpr | LogicalExpr | NotExpr | LambdaExpr;

/** An $orderby item: an expression over the entity, or (after $apply groupby) an output name. */
export type OrderItem = { kind: "expr"; expr: Expr; desc: boolean } | { kind: "output"; name: string; desc: boolean };

export type AggMethod = "sum" | "min" | "max" | "average" | "countdistinct" | "count";

export interface AggregateItem {
  alias: string;
  method: AggMethod;
  /** The aggregated property; null for `$count as alias`. */
  expr: PathExpr | null;
}

export interface GroupKey {
  /** The output name as written: `projectId`, `systemQuestion/questionCode`. */
  name: string;
  expr: PathExpr;
}

export interface ApplyQuery {
  /** `filter(...)` steps, all before the aggregation. */
  filters: Expr[];
  /** The final `groupby(...)` or `aggregate(...)`; absent when $apply only filters. */
  group?: { keys: GroupKey[]; aggregates: AggregateItem[] };
}

export interface ExpandItem {
  name: string;
  step: NavStep;
  /** `nav/$count`: the item is a count, not rows. */
  countOnly: boolean;
  query: ODataQuery;
}

export interface ODataQuery {
  /** Selected properties; undefined = every field. */
  select?: string[];
  expand: ExpandItem[];
  filter?: Expr;
  /** Explicit $orderby, or the set's default order; the compiler appends the key as tiebreaker. */
  orderby: OrderItem[];
  top?: number;
  skip?: number;
  count: boolean;
  apply?: ApplyQuery;
}
