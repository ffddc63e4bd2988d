// Parses a request's raw OData query options into a registry-resolved ODataQuery. Each option is
// tokenised on its own (errors name the option and a position inside its value); nested $expand
// options are parsed from the $expand token stream by the same rules.
import { odataError } from "../errors.ts";
import type { Registry } from "../entities/registry.ts";
import type { EntitySetDef } from "../entities/types.ts";
import type { AggMethod, AggregateItem, ApplyQuery, ExpandItem, GroupKey, NavStep, ODataQuery, OrderItem } from "./ast.ts";
import { Cursor } from "./lexer.ts";
import { MAX_EXPAND_DEPTH, MAX_OPTION_LENGTH, MAX_SKIP, MAX_TOP } from "./limits.ts";
import { ExprParser, family, own } from "./parse-expr.ts";
import { checkQueryCost } from "./cost.ts";

const OPTIONS = ["$select", "$expand", "$filter", "$orderby", "$top", "$skip", "$count", "$apply"] as const;
type OptionName = (typeof OPTIONS)[number];

const AGG_METHODS: Record<string, AggMethod> = {
  sum: "sum",
  min: "min",
  max: "max",
  average: "average",
  countdistinct: "countdistinct",
};

function emptyQuery(): ODataQuery {
  return { expand: [], orderby: [], count: false };
}

/**
 * Parses and validates the query options of a request on `set`. Options without a `$` are the
 * OData 4.01 spelling of the same options when they name one (`filter=`), otherwise custom
 * options, which are ignored. An unknown `$option` is a 400.
 */
export function parseQuery(raw: Record<string, string | undefined>, set: EntitySetDef, reg: Registry): ODataQuery {
  const opts = new Map<OptionName, string>();
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    let name = key;
    if (!key.startsWith("$")) {
      if (!(OPTIONS as readonly string[]).includes(`$${key}`)) continue;
      name = `$${key}`;
    }
    if (!(OPTIONS as readonly string[]).includes(name)) throw odataError("unknown query option", key.slice(0, 40));
    const opt = name as OptionName;
    if (opts.has(opt)) throw odataError("given twice", opt);
    if (value.length > MAX_OPTION_LENGTH) throw odataError(`longer than ${MAX_OPTION_LENGTH} characters`, opt);
    opts.set(opt, value);
  }

  const query = emptyQuery();
  const apply = opts.get("$apply");
  if (apply !== undefined) query.apply = parseApply(new Cursor(apply, "$apply"), set, reg);
  const grouped = query.apply?.group !== undefined;
  if (grouped) {
    for (const o of ["$select", "$expand", "$filter"] as const) {
      if (opts.has(o)) throw odataError("cannot be combined with $apply groupby/aggregate", o);
    }
  }

  const run = <T>(name: OptionName, fn: (cur: Cursor) => T): T | undefined => {
    const v = opts.get(name);
    if (v === undefined) return undefined;
    const cur = new Cursor(v, name);
    if (cur.peek().kind === "eof") cur.fail("empty value");
    const out = fn(cur);
    cur.expectEnd();
    return out;
  };

  query.select = run("$select", (c) => parseSelect(c, set));
  query.expand = run("$expand", (c) => parseExpand(c, set, reg, 1)) ?? [];
  query.filter = run("$filter", (c) => new ExprParser(c, { reg, it: set }).parseBoolean());
  query.orderby = run("$orderby", (c) => (grouped ? parseOutputOrder(c, query.apply!) : parseOrderBy(c, set, reg))) ?? defaultOrder(set, reg, grouped);
  query.top = run("$top", (c) => parseNonNegative(c, MAX_TOP));
  query.skip = run("$skip", (c) => parseNonNegative(c, MAX_SKIP));
  query.count = run("$count", parseBool) ?? false;
  checkQueryCost(query);
  return query;
}

/** The set's registry default order; empty after a groupby (groups are ordered by their keys). */
function defaultOrder(set: EntitySetDef, reg: Registry, grouped = false): OrderItem[] {
  if (grouped || !set.defaultOrder) return [];
  const cur = new Cursor(set.defaultOrder, `defaultOrder of ${set.name}`);
  const out = parseOrderBy(cur, set, reg);
  cur.expectEnd();
  return out;
}

function parseNonNegative(cur: Cursor, max: number): number {
  const t = cur.next();
  if (t.kind !== "int" || t.value.startsWith("-")) cur.fail("expected a non-negative integer", t);
  const n = Number(t.value);
  if (n > max) cur.fail(`must be at most ${max}`, t);
  return n;
}

function parseBool(cur: Cursor): boolean {
  const t = cur.next();
  if (t.kind === "ident" && (t.value === "true" || t.value === "false")) return t.value === "true";
  return cur.fail("expected true or false", t);
}

/** `a,b,c` or `*`; undefined means every field. */
function parseSelect(cur: Cursor, set: EntitySetDef): string[] | undefined {
  if (cur.eatPunct("*")) return undefined;
  const out: string[] = [];
  do {
    const t = cur.expectIdent("a property");
    if (!own(set.fields, t.value)) {
      if (own(set.nav, t.value)) cur.fail(`'${t.value}' is a navigation property of ${set.name}: use $expand`, t);
      cur.fail(`unknown property '${t.value}' on ${set.name}`, t);
    }
    if (!out.includes(t.value)) out.push(t.value);
  } while (cur.eatPunct(","));
  return out;
}

function parseOrderBy(cur: Cursor, set: EntitySetDef, reg: Registry): OrderItem[] {
  const out: OrderItem[] = [];
  const exprs = new ExprParser(cur, { reg, it: set });
  do {
    const expr = exprs.parseSortable();
    out.push({ kind: "expr", expr, desc: parseDirection(cur) });
  } while (cur.eatPunct(","));
  return out;
}

function parseDirection(cur: Cursor): boolean {
  if (cur.eatWord("desc")) return true;
  cur.eatWord("asc");
  return false;
}

/** After a groupby, $orderby names outputs: grouped property paths and aggregate aliases. */
function parseOutputOrder(cur: Cursor, apply: ApplyQuery): OrderItem[] {
  const group = apply.group!;
  const names = new Set<string>([...group.keys.map((k) => k.name), ...group.aggregates.map((a) => a.alias)]);
  const out: OrderItem[] = [];
  do {
    const first = cur.expectIdent("a grouped property or aggregate alias");
    let name = first.value;
    while (cur.eatPunct("/")) name += `/${cur.expectIdent("a property").value}`;
    if (!names.has(name)) cur.fail(`'${name}' is not a grouped property or aggregate alias`, first);
    out.push({ kind: "output", name, desc: parseDirection(cur) });
  } while (cur.eatPunct(","));
  return out;
}

// ---- $expand ----

function parseExpand(cur: Cursor, set: EntitySetDef, reg: Registry, depth: number): ExpandItem[] {
  const items: ExpandItem[] = [];
  const keys = new Set<string>();
  do {
    const t = cur.expectIdent("a navigation property");
    const nav = own(set.nav, t.value);
    if (!nav) {
      if (own(set.fields, t.value)) cur.fail(`'${t.value}' is not a navigation property of ${set.name}`, t);
      cur.fail(`unknown navigation property '${t.value}' on ${set.name}`, t);
    }
    const to = reg.get(nav.target);
    if (!to) cur.fail(`navigation '${t.value}' targets an unknown set`, t);
    if (depth > MAX_EXPAND_DEPTH) cur.fail(`$expand nested deeper than ${MAX_EXPAND_DEPTH}`, t);
    const step: NavStep = { name: t.value, nav, from: set, to };
    let countOnly = false;
    if (cur.eatPunct("/")) {
      const c = cur.expectIdent("$count");
      if (c.value !== "$count") cur.fail("only /$count may follow an expanded navigation", c);
      if (nav.kind !== "many") cur.fail(`'${t.value}' is a to-one navigation: /$count needs a to-many one`, c);
      countOnly = true;
    }
    const query = emptyQuery();
    if (cur.eatPunct("(")) parseNestedOptions(cur, step, countOnly, query, reg, depth);
    if (nav.kind === "many" && !countOnly && !query.orderby.length) query.orderby = defaultOrder(to, reg);
    // The JSON keys each item produces must be unique on the object.
    const produced = countOnly ? [`${t.value}@odata.count`] : query.count ? [t.value, `${t.value}@odata.count`] : [t.value];
    for (const k of produced) {
      if (keys.has(k)) cur.fail(`'${t.value}' is expanded twice`, t);
      keys.add(k);
    }
    items.push({ name: t.value, step, countOnly, query });
  } while (cur.eatPunct(","));
  return items;
}

function parseNestedOptions(cur: Cursor, step: NavStep, countOnly: boolean, query: ODataQuery, reg: Registry, depth: number): void {
  const seen = new Set<string>();
  const many = step.nav.kind === "many";
  const outer = cur.context;
  do {
    const opt = cur.expectIdent("a query option");
    if (seen.has(opt.value)) cur.fail(`${opt.value} given twice for '${step.name}'`, opt);
    seen.add(opt.value);
    cur.expectPunct("=");
    cur.context = `${outer}in ${opt.value} of expanded '${step.name}': `;
    const allowed = countOnly ? ["$filter"] : many ? ["$select", "$filter", "$orderby", "$top", "$skip", "$expand", "$count"] : ["$select", "$expand"];
    if (!allowed.includes(opt.value)) {
      cur.context = outer;
      const why = countOnly ? "after /$count" : many ? "inside $expand" : "on a to-one navigation";
      cur.fail(`${opt.value.startsWith("$") ? "" : "unknown option "}${opt.value} is not supported ${why}`, opt);
    }
    switch (opt.value) {
      case "$select":
        query.select = parseSelect(cur, step.to);
        break;
      case "$filter":
        query.filter = new ExprParser(cur, { reg, it: step.to }).parseBoolean();
        break;
      case "$orderby":
        query.orderby = parseOrderBy(cur, step.to, reg);
        break;
      case "$top":
        query.top = parseNonNegative(cur, MAX_TOP);
        break;
      case "$skip":
        query.skip = parseNonNegative(cur, MAX_SKIP);
        break;
      case "$count":
        query.count = parseBool(cur);
        break;
      case "$expand":
        query.expand = parseExpand(cur, step.to, reg, depth + 1);
        break;
    }
    cur.context = outer;
  } while (cur.eatPunct(";"));
  cur.expectPunct(")");
}

// ---- $apply ----

function parseApply(cur: Cursor, set: EntitySetDef, reg: Registry): ApplyQuery {
  const apply: ApplyQuery = { filters: [] };
  if (cur.peek().kind === "eof") cur.fail("empty value");
  do {
    const t = cur.expectIdent("a transformation");
    if (apply.group) cur.fail("nothing may follow groupby/aggregate", t);
    switch (t.value) {
      case "filter": {
        cur.expectPunct("(");
        apply.filters.push(new ExprParser(cur, { reg, it: set }).parseBoolean());
        cur.expectPunct(")");
        break;
      }
      case "groupby": {
        cur.expectPunct("(");
        cur.expectPunct("(");
        const keys: GroupKey[] = [];
        const exprs = new ExprParser(cur, { reg, it: set });
        do {
          const at = cur.peek();
          const { expr, name } = exprs.parsePropertyPath();
          if (expr.type === "json") cur.fail("cannot group by a json property", at);
          if (keys.some((k) => k.name === name)) cur.fail(`'${name}' is grouped twice`, at);
          keys.push({ name, expr });
        } while (cur.eatPunct(","));
        cur.expectPunct(")");
        let aggregates: AggregateItem[] = [];
        if (cur.eatPunct(",")) {
          const a = cur.expectIdent("aggregate(...)");
          if (a.value !== "aggregate") cur.fail("expected aggregate(...)", a);
          aggregates = parseAggregates(cur, set, reg, keys);
        }
        cur.expectPunct(")");
        apply.group = { keys, aggregates };
        break;
      }
      case "aggregate":
        apply.group = { keys: [], aggregates: parseAggregates(cur, set, reg, []) };
        break;
      default:
        cur.fail(`unknown transformation '${t.value}' (supported: filter, groupby, aggregate)`, t);
    }
  } while (cur.eatPunct("/"));
  cur.expectEnd();
  return apply;
}

/** `(x with sum as total, $count as n)`; aliases must not clash with grouped names. */
function parseAggregates(cur: Cursor, set: EntitySetDef, reg: Registry, keys: GroupKey[]): AggregateItem[] {
  cur.expectPunct("(");
  const out: AggregateItem[] = [];
  const taken = new Set(keys.map((k) => k.name.split("/")[0]!));
  const exprs = new ExprParser(cur, { reg, it: set });
  do {
    let item: Omit<AggregateItem, "alias">;
    if (cur.isWord("$count")) {
      cur.next();
      item = { method: "count", expr: null };
    } else {
      const at = cur.peek();
      const { expr } = exprs.parsePropertyPath();
      if (!cur.eatWord("with")) cur.fail("expected 'with'");
      const m = cur.expectIdent("an aggregation method");
      const method = own(AGG_METHODS, m.value);
      if (!method) cur.fail(`unknown aggregation method '${m.value}' (supported: sum, min, max, average, countdistinct)`, m);
      const fam = family(expr.type);
      const ok =
        method === "sum" || method === "average"
          ? fam === "numeric"
          : method === "min" || method === "max"
            ? fam === "numeric" || fam === "string" || fam === "date" || fam === "datetime"
            : fam !== "json";
      if (!ok) cur.fail(`cannot ${method} a ${expr.type} property`, at);
      item = { method, expr };
    }
    if (!cur.eatWord("as")) cur.fail("expected 'as alias'");
    const alias = cur.expectIdent("an alias");
    if (alias.value.startsWith("$")) cur.fail("an alias cannot start with $", alias);
    if (taken.has(alias.value)) cur.fail(`alias '${alias.value}' is already used`, alias);
    taken.add(alias.value);
    out.push({ ...item, alias: alias.value });
  } while (cur.eatPunct(","));
  cur.expectPunct(")");
  return out;
}
