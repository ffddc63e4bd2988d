// Recursive-descent parser for OData expressions ($filter, $orderby items, $apply filter and
// groupby paths). It resolves names against the registry and type-checks as it goes, coercing
// each literal to the type of what it is compared with, so that every parameter later carries an
// explicit cast that PostgreSQL accepts for that value.
//
// Precedence, lowest first: or, and, not, comparisons (eq ne gt ge lt le, in), primaries.
// `not` binds looser than a comparison here (`not a eq 1` is `not (a eq 1)`), which is what
// people mean when they write it; OData's grammar would read `(not a) eq 1`.
import type { Registry } from "../entities/registry.ts";
import type { EntitySetDef } from "../entities/types.ts";
import type { CallExpr, CompareOp, Expr, ExprType, FuncName, LambdaExpr, LiteralExpr, LiteralKind, NavStep, PathExpr, CountExpr } from "./ast.ts";
import type { Cursor, Token } from "./lexer.ts";
import { MAX_EXPR_DEPTH, MAX_FILTER_NODES } from "./limits.ts";

const COMPARE_OPS = new Set<string>(["eq", "ne", "gt", "ge", "lt", "le"]);

interface FuncSig {
  args: ("string" | "temporal")[];
  result: ExprType;
}

const FUNCS: Record<FuncName, FuncSig> = {
  contains: { args: ["string", "string"], result: "boolean" },
  startswith: { args: ["string", "string"], result: "boolean" },
  endswith: { args: ["string", "string"], result: "boolean" },
  tolower: { args: ["string"], result: "string" },
  toupper: { args: ["string"], result: "string" },
  trim: { args: ["string"], result: "string" },
  length: { args: ["string"], result: "int" },
  year: { args: ["temporal"], result: "int" },
  month: { args: ["temporal"], result: "int" },
  day: { args: ["temporal"], result: "int" },
};

const INT4_MIN = -(2n ** 31n);
const INT4_MAX = 2n ** 31n - 1n;
const INT8_MIN = -(2n ** 63n);
const INT8_MAX = 2n ** 63n - 1n;

type Family = "numeric" | "string" | "boolean" | "date" | "datetime" | "uuid" | "json" | "null";

export function family(t: ExprType): Family {
  switch (t) {
    case "int":
    case "bigint":
    case "number":
      return "numeric";
    default:
      return t;
  }
}

/** Own-property lookup: registry records are plain objects, and `constructor` must not resolve. */
export function own<T>(rec: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(rec, key) ? rec[key] : undefined;
}

function fitsInt(text: string, min: bigint, max: bigint): boolean {
  const n = BigInt(text);
  return n >= min && n <= max;
}

/** What the registry resolves a lambda variable or `$it` to. */
export interface ExprScope {
  reg: Registry;
  /** The set `$it` and bare property names refer to. */
  it: EntitySetDef;
}

export class ExprParser {
  private nodes = 0;
  private depth = 0;
  private readonly vars = new Map<string, EntitySetDef>();

  constructor(
    private readonly cur: Cursor,
    private readonly scope: ExprScope,
  ) {}

  /** A whole boolean expression (a $filter, a lambda body, an $apply filter). */
  parseBoolean(): Expr {
    const start = this.cur.peek();
    const e = this.parseOr();
    this.requireBoolean(e, start);
    return e;
  }

  /** Any expression whose value can be sorted ($orderby item). */
  parseSortable(): Expr {
    const start = this.cur.peek();
    const e = this.parseOr();
    if (e.type === "json") this.cur.fail("cannot order by a json property", start);
    if (e.type === "null") this.cur.fail("cannot order by null", start);
    return e;
  }

  /** A bare property path (groupby keys, aggregated properties); returns it with its text. */
  parsePropertyPath(): { expr: PathExpr; name: string } {
    const first = this.cur.expectIdent("a property");
    const startIdx = first.pos;
    const e = this.parsePath(first);
    if (e.kind !== "path") this.cur.fail("expected a property path", first);
    const name = this.cur.src.slice(startIdx, this.cur.peek().pos).replace(/\s+/g, "");
    return { expr: e, name };
  }

  // ---- grammar ----

  private count(tok: Token): void {
    if (++this.nodes > MAX_FILTER_NODES) this.cur.fail(`expression has more than ${MAX_FILTER_NODES} nodes`, tok);
  }

  private enter(tok: Token): void {
    if (++this.depth > MAX_EXPR_DEPTH) this.cur.fail(`expression nested deeper than ${MAX_EXPR_DEPTH}`, tok);
  }

  private requireBoolean(e: Expr, tok: Token): void {
    if (e.type !== "boolean") this.cur.fail("expected a boolean expression", tok);
  }

  private parseOr(): Expr {
    let left = this.parseAnd();
    while (this.cur.isWord("or")) {
      const op = this.cur.next();
      this.count(op);
      this.requireBoolean(left, op);
      const start = this.cur.peek();
      const right = this.parseAnd();
      this.requireBoolean(right, start);
      left = { kind: "or", left, right, type: "boolean", pos: op.pos };
    }
    return left;
  }

  private parseAnd(): Expr {
    let left = this.parseNot();
    while (this.cur.isWord("and")) {
      const op = this.cur.next();
      this.count(op);
      this.requireBoolean(left, op);
      const start = this.cur.peek();
      const right = this.parseNot();
      this.requireBoolean(right, start);
      left = { kind: "and", left, right, type: "boolean", pos: op.pos };
    }
    return left;
  }

  private parseNot(): Expr {
    if (this.cur.isWord("not")) {
      const op = this.cur.next();
      this.count(op);
      this.enter(op);
      const start = this.cur.peek();
      const operand = this.parseNot();
      this.depth--;
      this.requireBoolean(operand, start);
      return { kind: "not", operand, type: "boolean", pos: op.pos };
    }
    return this.parseComparison();
  }

  private parseComparison(): Expr {
    let left = this.parsePrimary();
    for (;;) {
      const t = this.cur.peek();
      if (t.kind === "ident" && COMPARE_OPS.has(t.value)) {
        this.cur.next();
        this.count(t);
        const right = this.parsePrimary();
        left = this.compare(t.value as CompareOp, left, right, t);
      } else if (t.kind === "ident" && t.value === "in") {
        this.cur.next();
        this.count(t);
        left = this.parseIn(left, t);
      } else return left;
    }
  }

  private parsePrimary(): Expr {
    const t = this.cur.next();
    this.count(t);
    switch (t.kind) {
      case "punct":
        if (t.value === "(") {
          this.enter(t);
          const e = this.parseOr();
          this.cur.expectPunct(")");
          this.depth--;
          return e;
        }
        return this.cur.fail("expected an expression", t);
      case "string":
      case "int":
      case "decimal":
      case "date":
      case "datetime":
      case "guid":
        return literal(t.kind, t.value, t.pos);
      case "ident":
        if (t.value === "true" || t.value === "false") return literal("boolean", t.value, t.pos);
        if (t.value === "null") return literal("null", "", t.pos);
        if (this.cur.isPunct("(")) return this.parseCall(t);
        return this.parsePath(t);
      case "eof":
        return this.cur.fail("expected an expression", t);
    }
  }

  private parseCall(name: Token): CallExpr {
    const fn = name.value as FuncName;
    const sig = own(FUNCS, fn);
    if (!sig) return this.cur.fail(`unknown function '${name.value}'`, name);
    this.enter(name);
    this.cur.expectPunct("(");
    const args: Expr[] = [];
    if (!this.cur.isPunct(")")) {
      do {
        const start = this.cur.peek();
        const arg = this.parseOr();
        const want = sig.args[args.length];
        if (want === undefined) this.cur.fail(`${fn}() takes ${sig.args.length} argument(s)`, start);
        const fam = family(arg.type);
        const ok = want === "string" ? fam === "string" : fam === "date" || fam === "datetime";
        if (!ok) this.cur.fail(`${fn}() needs a ${want === "string" ? "string" : "date or datetime"} argument, got ${arg.type}`, start);
        args.push(arg);
      } while (this.cur.eatPunct(","));
    }
    if (args.length !== sig.args.length) this.cur.fail(`${fn}() takes ${sig.args.length} argument(s)`);
    this.cur.expectPunct(")");
    this.depth--;
    return { kind: "call", fn, args, type: sig.result, pos: name.pos };
  }

  /**
   * A path starting at `first`: `$it/...`, `lambdaVar/...` or a property of `$it`, through to-one
   * navigations, ending in a property, `toMany/$count` or `toMany/any(...)`/`all(...)`.
   */
  private parsePath(first: Token): PathExpr | CountExpr | LambdaExpr {
    const reg = this.scope.reg;
    let variable: string | null = null;
    let set = this.scope.it;
    let tok = first;
    const varSet = this.vars.get(first.value);
    if (first.value === "$it" || varSet) {
      if (varSet) {
        variable = first.value;
        set = varSet;
      }
      if (!this.cur.eatPunct("/")) this.cur.fail(`'${first.value}' must be followed by /property`);
      tok = this.cur.expectIdent("a property");
    }
    const navs: NavStep[] = [];
    for (;;) {
      const name = tok.value;
      const field = own(set.fields, name);
      if (field) {
        if (this.cur.isPunct("/")) this.cur.fail(`'${name}' is not a navigation property of ${set.name}`);
        if (!field.filterable) this.cur.fail(`property '${name}' of ${set.name} cannot be filtered, sorted or grouped`, tok);
        return { kind: "path", variable, navs, set, prop: name, field, type: field.type, pos: first.pos };
      }
      const nav = own(set.nav, name);
      if (!nav) this.cur.fail(`unknown property '${name}' on ${set.name}`, tok);
      const to = reg.get(nav.target);
      if (!to) this.cur.fail(`navigation '${name}' targets an unknown set`, tok);
      const step: NavStep = { name, nav, from: set, to };
      if (!this.cur.eatPunct("/")) this.cur.fail(`navigation '${name}' must be followed by /property`);
      const seg = this.cur.expectIdent("a property");
      if (nav.kind === "one") {
        navs.push(step);
        set = to;
        tok = seg;
        continue;
      }
      if (seg.value === "$count") {
        return { kind: "count", variable, navs, many: step, type: "bigint", pos: first.pos };
      }
      if (seg.value === "any" || seg.value === "all") return this.parseLambda(seg, variable, navs, step, first.pos);
      return this.cur.fail(`to-many navigation '${name}' can only be followed by /any(), /all() or /$count`, seg);
    }
  }

  private parseLambda(opTok: Token, variable: string | null, navs: NavStep[], many: NavStep, pos: number): LambdaExpr {
    const op = opTok.value as "any" | "all";
    this.enter(opTok);
    this.cur.expectPunct("(");
    let param: string | null = null;
    let body: Expr | null = null;
    if (!this.cur.isPunct(")")) {
      const v = this.cur.expectIdent("a lambda variable");
      if (v.value.startsWith("$")) this.cur.fail("a lambda variable cannot start with $", v);
      if (this.vars.has(v.value)) this.cur.fail(`lambda variable '${v.value}' is already in use`, v);
      this.cur.expectPunct(":");
      param = v.value;
      this.vars.set(param, many.to);
      body = this.parseBoolean();
      this.vars.delete(param);
    } else if (op === "all") {
      this.cur.fail("all() needs a predicate");
    }
    this.cur.expectPunct(")");
    this.depth--;
    return { kind: "lambda", op, variable, navs, many, param, body, type: "boolean", pos };
  }

  private parseIn(operand: Expr, opTok: Token): Expr {
    if (operand.type === "json") this.cur.fail("cannot compare a json property", opTok);
    if (operand.type === "null") this.cur.fail("null cannot be the left side of 'in'", opTok);
    this.cur.expectPunct("(");
    const items: LiteralExpr[] = [];
    do {
      const t = this.cur.next();
      this.count(t);
      let lit: LiteralExpr;
      if (t.kind === "ident" && (t.value === "true" || t.value === "false")) lit = literal("boolean", t.value, t.pos);
      else if (t.kind === "ident" && t.value === "null") lit = literal("null", "", t.pos);
      else if (t.kind === "string" || t.kind === "int" || t.kind === "decimal" || t.kind === "date" || t.kind === "datetime" || t.kind === "guid") lit = literal(t.kind, t.value, t.pos);
      else return this.cur.fail("'in' takes a list of literals", t);
      items.push(lit.lit === "null" ? lit : this.coerce(lit, operand.type, t));
    } while (this.cur.eatPunct(","));
    this.cur.expectPunct(")");
    return { kind: "in", operand, items, type: "boolean", pos: opTok.pos };
  }

  private compare(op: CompareOp, left: Expr, right: Expr, opTok: Token): Expr {
    if (left.type === "json" || right.type === "json") this.cur.fail("cannot compare a json property", opTok);
    const isNull = (e: Expr) => e.kind === "literal" && e.lit === "null";
    if (isNull(left) || isNull(right)) {
      if (op !== "eq" && op !== "ne") this.cur.fail(`'${op}' cannot compare with null`, opTok);
      return { kind: "compare", op, left, right, type: "boolean", pos: opTok.pos };
    }
    if (right.kind === "literal" && left.kind !== "literal") right = this.coerce(right, left.type, opTok);
    else if (left.kind === "literal" && right.kind !== "literal") left = this.coerce(left, right.type, opTok);
    else if (left.kind === "literal" && right.kind === "literal") right = this.coerce(right, left.type, opTok);
    else {
      const lf = family(left.type);
      if (lf !== family(right.type)) this.cur.fail(`cannot compare ${left.type} with ${right.type}`, opTok);
    }
    return { kind: "compare", op, left, right, type: "boolean", pos: opTok.pos };
  }

  /** Gives a literal the type (and parameter cast) of what it meets, or rejects the pair. */
  private coerce(lit: LiteralExpr, target: ExprType, at: Token): LiteralExpr {
    const mismatch = (): never => this.cur.fail(`cannot compare ${target} with ${describe(lit)}`, at);
    const v = lit.value as string;
    switch (family(target)) {
      case "numeric": {
        if (lit.lit === "int") {
          if (target === "int" && fitsInt(v, INT4_MIN, INT4_MAX)) return { ...lit, type: "int", cast: "int4" };
          if (target !== "number" && fitsInt(v, INT8_MIN, INT8_MAX)) return { ...lit, type: "bigint", cast: "int8" };
          return { ...lit, type: "number", cast: "numeric" };
        }
        if (lit.lit === "decimal") return { ...lit, type: "number", cast: "numeric" };
        return mismatch();
      }
      case "string":
        return lit.lit === "string" ? lit : mismatch();
      case "boolean":
        return lit.lit === "boolean" ? lit : mismatch();
      case "uuid":
        if (lit.lit === "guid") return lit;
        if (lit.lit === "string" && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(v)) return { ...lit, type: "uuid", value: v.toLowerCase(), cast: "uuid" };
        return mismatch();
      case "date":
        return lit.lit === "date" ? lit : mismatch();
      case "datetime":
        if (lit.lit === "datetime") return lit;
        // A date against a datetime means that day's UTC midnight, not the server's.
        if (lit.lit === "date") return { ...lit, type: "datetime", value: `${v}T00:00:00Z`, cast: "timestamptz" };
        return mismatch();
      default:
        return mismatch();
    }
  }
}

function describe(lit: LiteralExpr): string {
  return lit.lit === "guid" ? "guid" : lit.lit === "int" || lit.lit === "decimal" ? "number" : lit.lit;
}

/** A literal with its own type, before it meets anything. */
export function literal(kind: LiteralKind, text: string, pos: number): LiteralExpr {
  switch (kind) {
    case "null":
      return { kind: "literal", lit: kind, type: "null", value: null, cast: null, pos };
    case "string":
      return { kind: "literal", lit: kind, type: "string", value: text, cast: "text", pos };
    case "int":
      if (fitsInt(text, INT4_MIN, INT4_MAX)) return { kind: "literal", lit: kind, type: "int", value: text, cast: "int4", pos };
      if (fitsInt(text, INT8_MIN, INT8_MAX)) return { kind: "literal", lit: kind, type: "bigint", value: text, cast: "int8", pos };
      return { kind: "literal", lit: kind, type: "number", value: text, cast: "numeric", pos };
    case "decimal":
      return { kind: "literal", lit: kind, type: "number", value: text, cast: "numeric", pos };
    case "boolean":
      // postgres.js serialises bool parameters from JS booleans only.
      return { kind: "literal", lit: kind, type: "boolean", value: text === "true", cast: "bool", pos };
    case "date":
      return { kind: "literal", lit: kind, type: "date", value: text, cast: "date", pos };
    case "datetime":
      return { kind: "literal", lit: kind, type: "datetime", value: text, cast: "timestamptz", pos };
    case "guid":
      return { kind: "literal", lit: kind, type: "uuid", value: text.toLowerCase(), cast: "uuid", pos };
  }
}
