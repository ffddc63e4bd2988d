// The OData parser: every construct of DESIGN.md's contract parses to the expected AST, and every
// rejection is a 400 ODataQueryError naming the option, the offending token and its position.
import { describe, expect, test } from "bun:test";
import { ApiError } from "../../api/src/errors.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import type { CompareExpr, Expr, LambdaExpr, LiteralExpr, ODataQuery, PathExpr } from "../../api/src/odata/ast.ts";
import { DEFAULT_TOP, MAX_EXPAND_DEPTH, MAX_FILTER_NODES, MAX_OPTION_LENGTH, MAX_TOP } from "../../api/src/odata/limits.ts";
import { reg, type Raw } from "./odata-fixture.ts";

function parse(setName: string, raw: Raw): ODataQuery {
  return parseQuery(raw, reg.mustGet(setName), reg);
}

/** Parses expecting a 400 and returns the message. */
function reject(setName: string, raw: Raw): string {
  try {
    parse(setName, raw);
  } catch (e) {
    expect(e, "rejections are ApiErrors").toBeInstanceOf(ApiError);
    const err = e as ApiError;
    expect(err.code, "code").toBe("ODataQueryError");
    expect(err.status, "status").toBe(400);
    return err.message;
  }
  throw new Error(`expected ${JSON.stringify(raw)} on ${setName} to be rejected`);
}

const filter = (setName: string, f: string): Expr => parse(setName, { $filter: f }).filter!;

describe("query options", () => {
  test("defaults: no select, no expand, registry default order, no top", () => {
    const q = parse("Projects", {});
    expect(q.select, "select absent = all fields").toBeUndefined();
    expect(q.expand).toEqual([]);
    expect(q.top).toBeUndefined();
    expect(q.count).toBe(false);
    expect(
      q.orderby.map((o) => o.kind === "expr" && (o.expr as PathExpr).prop),
      "defaultOrder of Projects is projectName",
    ).toEqual(["projectName"]);
  });

  test("$select list, * and de-duplication", () => {
    expect(parse("Projects", { $select: "id, projectName,id" }).select).toEqual(["id", "projectName"]);
    expect(parse("Projects", { $select: "*" }).select).toBeUndefined();
  });

  test("$top, $skip, $count", () => {
    const q = parse("Projects", { $top: "5", $skip: "10", $count: "true" });
    expect([q.top, q.skip, q.count]).toEqual([5, 10, true]);
    expect(parse("Projects", { $count: "false" }).count).toBe(false);
    expect(parse("Projects", { $top: String(MAX_TOP) }).top).toBe(MAX_TOP);
  });

  test("OData 4.01 spellings without $ are the same options; other custom options are ignored", () => {
    expect(parse("Projects", { top: "3", custom: "whatever" }).top).toBe(3);
  });

  test("$orderby: several items, directions, navigation paths and functions", () => {
    const q = parse("ProjectsRegions", { $orderby: "region/regionName desc, id asc, projectId" });
    expect(q.orderby.map((o) => o.desc)).toEqual([true, false, false]);
    const first = q.orderby[0]!;
    expect(first.kind === "expr" && first.expr.kind === "path" && first.expr.navs.map((n) => n.name)).toEqual(["region"]);
    const f = parse("Projects", { $orderby: "tolower(projectName) desc" }).orderby[0]!;
    expect(f.kind === "expr" && f.expr.kind).toBe("call");
  });

  test("limits are exported with the documented values", () => {
    expect([MAX_TOP, DEFAULT_TOP, MAX_EXPAND_DEPTH, MAX_FILTER_NODES, MAX_OPTION_LENGTH]).toEqual([1000, 100, 3, 100, 4000]);
  });
});

describe("$expand", () => {
  test("nested options with ; and nested $expand", () => {
    const q = parse("Projects", { $expand: "projectsRegions($expand=region($select=regionName);$orderby=id desc;$top=2;$skip=1;$count=true;$filter=regionId ne 3),segments($select=id,name)" });
    expect(q.expand.map((e) => e.name)).toEqual(["projectsRegions", "segments"]);
    const pr = q.expand[0]!;
    expect(pr.query.top).toBe(2);
    expect(pr.query.skip).toBe(1);
    expect(pr.query.count).toBe(true);
    expect(pr.query.filter?.kind).toBe("compare");
    expect(pr.query.orderby[0]!.desc).toBe(true);
    expect(pr.query.expand[0]!.name).toBe("region");
    expect(pr.query.expand[0]!.query.select).toEqual(["regionName"]);
    expect(q.expand[1]!.query.select).toEqual(["id", "name"]);
  });

  test("nav/$count, with and without a nested $filter", () => {
    const q = parse("Segments", { $expand: "aiProjectSummaries/$count" });
    expect(q.expand[0]!.countOnly).toBe(true);
    const f = parse("Projects", { $expand: "segments/$count($filter=name eq 'Young')" });
    expect(f.expand[0]!.query.filter?.kind).toBe("compare");
  });

  test("depth 3 is fine, depth 4 is a 400", () => {
    parse("Projects", { $expand: "segments($expand=project($expand=projectsRegions))" });
    const msg = reject("Projects", { $expand: "segments($expand=project($expand=projectsRegions($expand=region)))" });
    expect(msg).toContain("deeper than 3");
    expect(msg).toContain("$expand");
  });

  test("bad expands name the problem", () => {
    expect(reject("Projects", { $expand: "nope" })).toBe("$expand: unknown navigation property 'nope' on Projects at position 0 near 'nope'");
    expect(reject("Projects", { $expand: "projectName" })).toContain("not a navigation property");
    expect(reject("ProjectsRegions", { $expand: "region/$count" })).toContain("to-one");
    expect(reject("ProjectsRegions", { $expand: "region($top=1)" })).toContain("$top is not supported on a to-one navigation");
    expect(reject("Projects", { $expand: "segments/$count($top=1)" })).toContain("after /$count");
    expect(reject("Projects", { $expand: "segments($bogus=1)" })).toContain("$bogus");
    expect(reject("Projects", { $expand: "segments,segments" })).toContain("expanded twice");
    expect(reject("Projects", { $expand: "segments($select=nope)" })).toContain("in $select of expanded 'segments': unknown property 'nope' on Segments");
    expect(reject("Projects", { $expand: "segments($filter=id eq 'x')" })).toContain("cannot compare int with string");
    expect(reject("Projects", { $expand: "segments(" })).toContain("end of input");
  });
});

describe("$filter", () => {
  test("comparison operators and literal coercion to the field's type", () => {
    for (const op of ["eq", "ne", "gt", "ge", "lt", "le"]) {
      const e = filter("Projects", `statusCode ${op} 100`) as CompareExpr;
      expect(e.op).toBe(op as never);
      expect((e.right as LiteralExpr).cast, "int literal vs int field binds int4").toBe("int4");
    }
    const big = filter("Projects", "statusCode eq 99999999999") as CompareExpr;
    expect((big.right as LiteralExpr).cast, "out of int4 range widens").toBe("int8");
    const dec = filter("Projects", "budget gt 1.5") as CompareExpr;
    expect((dec.right as LiteralExpr).cast).toBe("numeric");
    const d = filter("Projects", "createdAt ge 2026-01-02") as CompareExpr;
    expect((d.right as LiteralExpr).value, "a date against a datetime is UTC midnight").toBe("2026-01-02T00:00:00Z");
    const dt = filter("Projects", "createdAt lt 2026-01-02T03:04:05.5+01:00") as CompareExpr;
    expect((dt.right as LiteralExpr).cast).toBe("timestamptz");
    const u = filter("Projects", "publicId eq 00000000-0000-4000-8000-000000000001") as CompareExpr;
    expect((u.right as LiteralExpr).cast).toBe("uuid");
    const us = filter("Projects", "publicId eq '00000000-0000-4000-8000-00000000000A'") as CompareExpr;
    expect((us.right as LiteralExpr).value, "quoted guid against a uuid field").toBe("00000000-0000-4000-8000-00000000000a");
  });

  test("strings with '' escapes", () => {
    const e = filter("Projects", "projectName eq 'it''s'") as CompareExpr;
    expect((e.right as LiteralExpr).value).toBe("it's");
  });

  test("and / or / not / parentheses: or binds loosest", () => {
    const e = filter("Projects", "id eq 1 or id eq 2 and not (isBranded eq true)");
    expect(e.kind).toBe("or");
    const right = (e as { right: Expr }).right;
    expect(right.kind).toBe("and");
    expect((right as { right: Expr }).right.kind).toBe("not");
  });

  test("null, booleans, bare boolean properties", () => {
    expect(filter("Projects", "launchDate eq null").kind).toBe("compare");
    expect(filter("Projects", "isBranded").kind).toBe("path");
    expect(filter("Projects", "isBranded eq false").kind).toBe("compare");
  });

  test("in lists coerce every item", () => {
    const e = filter("Projects", "statusCode in (0, 100, null)");
    expect(e.kind === "in" && e.items.map((i) => i.cast)).toEqual(["int4", "int4", null]);
    expect(reject("Projects", { $filter: "statusCode in (1, 'a')" })).toContain("cannot compare int with string");
  });

  test("functions", () => {
    for (const f of [
      "contains(projectName, 'a')",
      "startswith(projectName, 'A')",
      "endswith(projectName, 'a')",
      "tolower(projectName) eq 'alpha'",
      "toupper(projectName) eq 'ALPHA'",
      "length(projectName) gt 3",
      "trim(projectName) eq 'Alpha'",
      "year(createdAt) eq 2026",
      "month(launchDate) eq 1",
      "day(createdAt) eq 1",
      "contains(tolower(researchNote), tolower(projectName))",
    ]) {
      expect(filter("Projects", f).type, f).toBe("boolean");
    }
  });

  test("navigation paths through to-one navs, several levels", () => {
    const e = filter("SystemQuestionOption", "systemQuestion/isFilterable eq true") as CompareExpr;
    expect((e.left as PathExpr).navs.map((n) => n.name)).toEqual(["systemQuestion"]);
    const deep = filter("AiProjectSummaries", "segment/project/projectName eq 'Alpha'") as CompareExpr;
    expect((deep.left as PathExpr).navs.map((n) => n.name)).toEqual(["segment", "project"]);
  });

  test("lambdas: any/all, nested, outer variables, any() without predicate, nav/$count", () => {
    const e = filter("Projects", "projectsRegions/any(r: r/regionId eq 1)") as LambdaExpr;
    expect([e.kind, e.op, e.param]).toEqual(["lambda", "any", "r"]);
    const nested = filter("Projects", "segments/any(s: s/aiProjectSummaries/all(a: a/projectId eq s/projectId and a/summary ne 'x'))") as LambdaExpr;
    expect((nested.body as LambdaExpr).op).toBe("all");
    expect((filter("Projects", "segments/any()") as LambdaExpr).body).toBeNull();
    expect(filter("Projects", "segments/$count gt 1").kind).toBe("compare");
    expect(filter("ProjectsRegions", "project/segments/any(s: s/name eq 'Young')").kind).toBe("lambda");
  });

  test("type mismatches are 400s naming the operator", () => {
    expect(reject("Projects", { $filter: "id eq 'x'" })).toBe("$filter: cannot compare int with string at position 3 near 'eq'");
    expect(reject("Projects", { $filter: "settings eq null" })).toContain("json");
    expect(reject("Projects", { $filter: "projectName gt 5" })).toContain("cannot compare string with number");
    expect(reject("Projects", { $filter: "launchDate eq 2026-01-01T00:00:00Z" })).toContain("cannot compare date with datetime");
    expect(reject("Projects", { $filter: "isBranded eq 1" })).toContain("cannot compare boolean");
    expect(reject("Projects", { $filter: "publicId eq 'nope'" })).toContain("cannot compare uuid");
    expect(reject("Projects", { $filter: "launchDate gt null" })).toContain("cannot compare with null");
    expect(reject("Projects", { $filter: "contains(id, '1')" })).toContain("contains() needs a string");
    expect(reject("Projects", { $filter: "year(projectName) eq 1" })).toContain("date or datetime");
    expect(reject("Projects", { $filter: "projectName" })).toContain("expected a boolean expression");
    expect(reject("Projects", { $filter: "id eq 1 and 5" })).toContain("expected a boolean expression");
  });

  test("unknown names, non-filterable fields and misuse of navigations", () => {
    expect(reject("Projects", { $filter: "nope eq 1" })).toBe("$filter: unknown property 'nope' on Projects at position 0 near 'nope'");
    expect(reject("Projects", { $filter: "constructor eq 1" }), "prototype names are not properties").toContain("unknown property 'constructor'");
    expect(reject("Projects", { $filter: "frobnicate(projectName)" })).toContain("unknown function 'frobnicate'");
    expect(reject("Projects", { $filter: "secretNote eq 'a'" })).toContain("cannot be filtered");
    expect(reject("Projects", { $orderby: "secretNote" })).toContain("cannot be filtered");
    expect(reject("Projects", { $filter: "segments/name eq 'a'" })).toContain("can only be followed by /any(), /all() or /$count");
    expect(reject("Projects", { $filter: "projectName/x eq 'a'" })).toContain("not a navigation property");
    expect(reject("Projects", { $filter: "segments/all()" })).toContain("all() needs a predicate");
    expect(reject("Projects", { $filter: "segments/any(s: s/name eq 'a' and segments/any(s: true))" })).toContain("already in use");
    expect(reject("Projects", { $filter: "segments/any(s: x/name eq 'a')" })).toContain("unknown property 'x'");
  });

  test("syntax errors carry the position and token", () => {
    expect(reject("Projects", { $filter: "id eq" })).toBe("$filter: expected an expression at position 5 near 'end of input'");
    expect(reject("Projects", { $filter: "(id eq 1" })).toBe("$filter: expected ')' at position 8 near 'end of input'");
    expect(reject("Projects", { $filter: "id eq 1 1" })).toBe("$filter: unexpected token at position 8 near '1'");
    expect(reject("Projects", { $filter: "projectName eq 'abc" })).toBe("$filter: unterminated string literal at position 15 near ''abc'");
    expect(reject("Projects", { $filter: "id eq 1 # 2" })).toBe(`$filter: unexpected character "#" at position 8 near '#'`);
    expect(reject("Projects", { $filter: "launchDate eq 2026-02-30" })).toContain("invalid date value");
    expect(reject("Projects", { $filter: "launchDate eq 2023-02-29" })).toContain("invalid date value");
    expect(reject("Projects", { $filter: "launchDate eq 1900-02-29" })).toContain("invalid date value");
    expect(reject("Projects", { $filter: "launchDate eq 0000-01-01" })).toContain("invalid date value");
    expect(filter("Projects", "launchDate eq 2000-02-29 or launchDate eq 2024-02-29 or launchDate eq 0004-02-29").kind).toBe("or");
    expect(reject("Projects", { $filter: "launchDate eq 2026-01-01T" })).toContain("malformed date/time");
    expect(reject("Projects", { $filter: "createdAt eq 2026-01-01T25:00:00Z" })).toContain("invalid date/time value");
    expect(reject("Projects", { $filter: "projectName eq 'a\u0000b'" })).toContain("NUL");
    expect(reject("Projects", { $filter: "id eq 5abc" })).toContain("malformed number");
    expect(reject("Projects", { $filter: `id eq ${"9".repeat(40)}` })).toContain("longer than 38 digits");
  });

  test("limits: node count, nesting depth, option length", () => {
    const many = Array.from({ length: 40 }, (_, i) => `id eq ${i}`).join(" or ");
    expect(reject("Projects", { $filter: many })).toContain(`more than ${MAX_FILTER_NODES} nodes`);
    expect(reject("Projects", { $filter: `${"(".repeat(40)}isBranded${")".repeat(40)}` })).toContain("nested deeper");
    expect(reject("Projects", { $filter: `${"isBranded or ".repeat(400)}isBranded` })).toContain(`longer than ${MAX_OPTION_LENGTH}`);
  });
});

describe("$apply", () => {
  test("filter then groupby with aggregates", () => {
    const q = parse("CreditLogs", { $apply: "filter(projectId eq 5)/groupby((projectId),aggregate(creditAmount with sum as total))" });
    expect(q.apply!.filters.length).toBe(1);
    expect(q.apply!.group!.keys.map((k) => k.name)).toEqual(["projectId"]);
    expect(q.apply!.group!.aggregates).toMatchObject([{ alias: "total", method: "sum" }]);
    expect(q.orderby, "grouped results have no entity default order").toEqual([]);
  });

  test("every aggregation method, $count, nav paths, groupby without aggregate, aggregate alone", () => {
    const q = parse("Responses", {
      $apply:
        "groupby((projectId, project/projectName),aggregate(value with sum as s, value with min as mn, value with max as mx, weight with average as avg, surveySessionId with countdistinct as sessions, $count as n))",
      $orderby: "n desc, project/projectName",
    });
    expect(q.apply!.group!.aggregates.map((a) => a.method)).toEqual(["sum", "min", "max", "average", "countdistinct", "count"]);
    expect(q.orderby).toEqual([
      { kind: "output", name: "n", desc: true },
      { kind: "output", name: "project/projectName", desc: false },
    ]);
    expect(parse("Responses", { $apply: "groupby((projectId))" }).apply!.group!.aggregates).toEqual([]);
    expect(parse("Responses", { $apply: "aggregate($count as n)" }).apply!.group!.keys).toEqual([]);
    expect(parse("Responses", { $apply: "filter(value gt 1)/filter(weight lt 2)" }).apply!.group).toBeUndefined();
  });

  test("bad $apply is a 400", () => {
    expect(reject("Responses", { $apply: "groupby((projectId))/filter(projectId eq 1)" })).toContain("nothing may follow");
    expect(reject("Responses", { $apply: "compute(x)" })).toContain("unknown transformation 'compute'");
    expect(reject("Responses", { $apply: "aggregate(value with median as m)" })).toContain("unknown aggregation method 'median'");
    expect(reject("Projects", { $apply: "aggregate(projectName with sum as s)" })).toContain("cannot sum a string");
    expect(reject("Projects", { $apply: "groupby((settings))" })).toContain("json");
    expect(reject("Responses", { $apply: "aggregate($count as n, value with sum as n)" })).toContain("already used");
    expect(reject("Responses", { $apply: "groupby((projectId),aggregate($count as projectId))" })).toContain("already used");
    expect(reject("Responses", { $apply: "groupby((projectId))", $orderby: "value" })).toContain("not a grouped property");
    expect(reject("Responses", { $apply: "groupby((projectId))", $select: "projectId" })).toBe("$select: cannot be combined with $apply groupby/aggregate");
  });
});

describe("option-level errors", () => {
  test("unknown $options, bad values, empty values", () => {
    expect(reject("Projects", { $search: "x" })).toBe("$search: unknown query option");
    expect(reject("Projects", { $top: "-1" })).toContain("non-negative integer");
    expect(reject("Projects", { $top: "1001" })).toBe("$top: must be at most 1000 at position 0 near '1001'");
    expect(reject("Projects", { $top: "abc" })).toContain("$top");
    expect(reject("Projects", { $count: "yes" })).toContain("expected true or false");
    expect(reject("Projects", { $filter: "" })).toContain("empty value");
    expect(reject("Projects", { $select: "segments" })).toContain("use $expand");
    expect(reject("Projects", { $select: "id," })).toContain("expected a property");
  });
});
