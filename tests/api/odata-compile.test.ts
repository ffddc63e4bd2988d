// The OData compiler against a real PostgreSQL: each construct is compiled, executed, and its
// JSON compared with the rows it must return, including the results-page queries of SPEC.md §7
// and the tenant scope inside expands, lambdas and navigation paths.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ApiError } from "../../api/src/errors.ts";
import { parseQuery } from "../../api/src/odata/parser.ts";
import { compileCollection, compileEntity } from "../../api/src/odata/compile.ts";
import { clientScope, count, getOne, list, reg, scratchDb, type Raw, type ScratchDb } from "./odata-fixture.ts";

let db: ScratchDb;
beforeAll(async () => {
  db = await scratchDb();
});
afterAll(async () => {
  await db?.drop();
});

type Row = Record<string, unknown>;
const ids = (rows: Row[]) => rows.map((r) => r.id);
const rows = async (set: string, raw: Raw) => (await list(db.sql, set, raw)).value;

describe("results-page queries (SPEC.md §7)", () => {
  test("system question options of a region or no region, filterable question, visible", async () => {
    const v = await rows("SystemQuestionOption", {
      $filter: "(regionId eq 1 or regionId eq null) and systemQuestion/isFilterable eq true and isVisible eq true",
      $expand: "systemQuestion($select=questionLabel,questionCode,isFilterable)",
      $select: "id,answerLabel,filterSubtext,regionId,isVisible",
    });
    // 5 is invisible, 6 belongs to the non-filterable Region question, 3 is region 2.
    expect(ids(v), "options 1, 2, 4, 7").toEqual([1, 2, 4, 7]);
    expect(v[1]).toEqual({
      id: 2,
      answerLabel: "25-34",
      filterSubtext: "young adults",
      regionId: 1,
      isVisible: true,
      systemQuestion: { questionLabel: "Age", questionCode: "AGE", isFilterable: true },
    });
  });

  test("segments of a project with the count of their AI summaries", async () => {
    const v = await rows("Segments", { $filter: "projectId eq 1", $expand: "aiProjectSummaries/$count", $select: "id,name" });
    // Segment 4 is soft-deleted, 5 is client 2's; summary 4 (client 2) is not counted.
    expect(v).toEqual([
      { id: 1, name: "Young", "aiProjectSummaries@odata.count": 2 },
      { id: 2, name: "Old", "aiProjectSummaries@odata.count": 1 },
    ]);
  });

  test("project by key with its regions and each region expanded", async () => {
    const p = (await getOne(db.sql, "Projects", 1, { $select: "id,projectName", $expand: "projectsRegions($expand=region)" })) as Row;
    expect(p).toEqual({
      id: 1,
      projectName: "Alpha",
      projectsRegions: [
        { id: 1, clientId: 1, projectId: 1, regionId: 1, region: { id: 1, regionName: "United States", currencyCode: "USD", currencySymbol: "$" } },
        { id: 2, clientId: 1, projectId: 1, regionId: 2, region: { id: 2, regionName: "United Kingdom", currencyCode: "GBP", currencySymbol: "£" } },
      ],
    });
  });

  test("projects with projectsRegions($expand=region) as a collection", async () => {
    const v = await rows("Projects", { $expand: "projectsRegions($expand=region($select=regionName))", $select: "id" });
    expect(v).toEqual([
      {
        id: 1,
        projectsRegions: [
          { id: 1, clientId: 1, projectId: 1, regionId: 1, region: { regionName: "United States" } },
          { id: 2, clientId: 1, projectId: 1, regionId: 2, region: { regionName: "United Kingdom" } },
        ],
      },
      { id: 2, projectsRegions: [{ id: 3, clientId: 1, projectId: 2, regionId: 1, region: { regionName: "United States" } }] },
      { id: 5, projectsRegions: [{ id: 4, clientId: 1, projectId: 5, regionId: 3, region: { regionName: "Australia" } }] },
      { id: 3, projectsRegions: [] },
    ]);
  });

  test("credit logs of a project summed", async () => {
    const v = await rows("CreditLogs", { $apply: "filter(projectId eq 5)/groupby((projectId),aggregate(creditAmount with sum as total))" });
    // 10 + 20.5 - 5; client 2's 100 is out of scope.
    expect(v).toEqual([{ projectId: 5, total: 25.5 }]);
  });

  test("responses grouped by project counting distinct survey sessions", async () => {
    const v = await rows("Responses", { $apply: "groupby((projectId),aggregate(surveySessionId with countdistinct as count))" });
    expect(v).toEqual([
      { projectId: 1, count: 3 },
      { projectId: 2, count: 1 },
    ]);
  });

  test("project questions-style ordering: several orderby items", async () => {
    const v = await rows("SystemQuestionOption", { $orderby: "systemQuestionId desc, regionId desc", $select: "id,systemQuestionId,regionId" });
    // desc puts nulls last (OData: null sorts first ascending).
    expect(ids(v)).toEqual([3, 2, 1, 4, 5, 7, 6]);
  });
});

describe("collections: paging, count, ordering", () => {
  test("$count=true gives the total ignoring $top/$skip; more flags a cut page", async () => {
    const p = await list(db.sql, "Projects", { $top: "2", $count: "true", $select: "id" });
    expect(p.value.length).toBe(2);
    expect(p.count, "4 live client-1 projects").toBe(4);
    expect(p.more).toBe(true);
    const last = await list(db.sql, "Projects", { $top: "2", $skip: "2", $select: "id" });
    expect(ids(last.value)).toEqual([5, 3]);
    expect(last.more, "the last page has nothing beyond it").toBe(false);
    expect(last.count, "no $count, no count").toBeNull();
    const exact = await list(db.sql, "Projects", { $top: "4", $select: "id" });
    expect(exact.more, "a page exactly as long as the rest").toBe(false);
    const zero = await list(db.sql, "Projects", { $top: "0", $select: "id" });
    expect([zero.value, zero.more]).toEqual([[], true]);
  });

  test("the server page size and ceiling apply when the request gives none or too much", async () => {
    const set = reg.mustGet("Projects");
    const run = async (raw: Raw, maxTop?: number, defaultTop?: number) => {
      const { text, params } = compileCollection(reg, set, parseQuery(raw, set, reg), { scope: clientScope(1), maxTop, defaultTop }).render();
      const [r] = (await db.sql.unsafe(text, params as never[])) as unknown as { value: string; more: boolean }[];
      return { n: (JSON.parse(r!.value) as unknown[]).length, more: r!.more };
    };
    expect(await run({}, undefined, 3)).toEqual({ n: 3, more: true });
    expect(await run({ $top: "10" }, 2)).toEqual({ n: 2, more: true });
  });

  test("paging is stable: the key breaks ties", async () => {
    // Every option of question 51 has isVisible true: the order within them is by id.
    const a = await rows("SystemQuestionOption", { $orderby: "isVisible", $top: "3", $select: "id" });
    const b = await rows("SystemQuestionOption", { $orderby: "isVisible", $top: "3", $skip: "3", $select: "id" });
    expect([...ids(a), ...ids(b)]).toEqual([5, 1, 2, 3, 4, 6]);
  });

  test("orderby through a to-one navigation and a function", async () => {
    const v = await rows("ProjectsRegions", { $orderby: "region/regionName desc", $select: "id" });
    // Row 7 points at client 2's project but its region is global; 5 and 6 are client 2's.
    expect(ids(v)).toEqual([1, 3, 2, 7, 4]);
    const f = await rows("Projects", { $orderby: "length(projectName) desc, projectName", $select: "projectName" });
    expect(f.map((r) => r.projectName)).toEqual(["Epsilon", "Alpha", "Gamma", "Beta"]);
  });

  test("$count endpoint", async () => {
    expect(await count(db.sql, "Projects", {})).toBe(4);
    expect(await count(db.sql, "Projects", { $filter: "statusCode lt 500" })).toBe(2);
    expect(await count(db.sql, "Responses", { $apply: "groupby((projectId))" }), "groups").toBe(2);
    expect(await count(db.sql, "Responses", { $apply: "filter(projectId eq 1)" })).toBe(4);
  });
});

describe("filters execute with the right rows", () => {
  const cases: [string, string, unknown[]][] = [
    ["statusCode eq 0", "eq", [1]],
    ["statusCode ne 0", "ne", [2, 5, 3]],
    ["statusCode gt 100", "gt", [5, 3]],
    ["statusCode ge 100", "ge", [2, 5, 3]],
    ["statusCode lt 100", "lt", [1]],
    ["statusCode le 100", "le", [1, 2]],
    ["researchNote ne 'GAMMA note'", "ne includes nulls (OData)", [1, 2, 5]],
    ["not (researchNote eq 'GAMMA note')", "not of a null comparison is true", [1, 2, 5]],
    ["launchDate eq null", "null", [2]],
    ["launchDate ne null and launchDate lt 2026-01-02", "date", [3]],
    ["createdAt ge 2026-01-01T10:00:00Z and createdAt lt 2026-02-01", "datetime and date-as-UTC-midnight", [1]],
    ["createdAt ge 2025-06-15T23:30:00.123001Z", "microseconds are kept (no JS Date round trip)", [1, 2, 5]],
    ["createdAt gt 0001-01-01T00:00:00+14:00 and createdAt lt 9999-12-31T23:59:59-14:00", "extreme offsets", [1, 2, 5, 3]],
    ["budget gt 50.25", "decimal", [1]],
    ["budget eq 0", "zero numeric", [5]],
    ["isBranded", "bare boolean", [1, 3]],
    ["isBranded eq false", "boolean", [2, 5]],
    ["id in (1, 3, 99999999999)", "in with a wide number", [1, 3]],
    ["launchDate in (2026-01-02, null)", "in with null", [1, 2]],
    ["projectName in ('Alpha', 'it''s')", "in strings", [1]],
    ["contains(researchNote, '50%')", "% is literal", [1]],
    ["contains(researchNote, '_x')", "_ is literal", [1]],
    ["contains(researchNote, '5_%')", "no wildcard match", []],
    ["startswith(projectName, 'Ep')", "startswith", [5]],
    ["endswith(projectName, 'ta')", "endswith", [2]],
    ["contains(tolower(researchNote), tolower(projectName))", "computed needle", [3]],
    ["toupper(projectName) eq 'BETA'", "toupper", [2]],
    ["length(projectName) eq 7", "length", [5]],
    ["trim(' Beta ') eq projectName", "trim on a literal", [2]],
    ["year(createdAt) eq 2025", "year of datetime (UTC)", [3]],
    ["month(launchDate) eq 3", "month of date", [5]],
    ["day(createdAt) eq 15", "day in UTC", [3]],
    ["publicId eq 00000000-0000-4000-8000-000000000002", "guid", [2]],
    ["projectsRegions/any(r: r/regionId eq 3)", "any; client 2's region-3 row on project 1 is invisible", [5]],
    ["projectsRegions/any()", "any() = non-empty", [1, 2, 5]],
    ["projectsRegions/all(r: r/region/currencyCode eq 'USD')", "all, vacuously true for none", [2, 3]],
    ["segments/any(s: s/aiProjectSummaries/any(a: a/summary eq 'three' and a/projectId eq s/projectId))", "nested lambdas", [1]],
    ["segments/any(s: s/name eq 'Hidden')", "lambda rows are scoped", []],
    ["segments/any(s: s/name eq 'Gone')", "lambda rows hide soft-deleted", []],
    ["aiProjectSummaries/$count ge 4", "nav $count is scoped", [1]],
    ["not isBranded and statusCode ne 100", "not with and", [5]],
    ["1 eq 1 and null eq null", "literals only", [1, 2, 5, 3]],
  ];
  for (const [f, why, want] of cases) {
    test(`${f}  (${why})`, async () => {
      expect(ids(await rows("Projects", { $filter: f, $select: "id" })), why).toEqual(want);
    });
  }

  test("navigation paths are scoped: a path to another client's row reads as null", async () => {
    expect(ids(await rows("ProjectsRegions", { $filter: "project/projectName eq 'Other'", $select: "id" }))).toEqual([]);
    expect(ids(await rows("ProjectsRegions", { $filter: "project/projectName eq null", $select: "id" })), "row 7's project is hidden").toEqual([7]);
    expect(ids(await rows("AiProjectSummaries", { $filter: "segment/project/projectName eq 'Alpha'", $select: "id" })), "two levels").toEqual([1, 2, 3]);
  });

  test("navigation paths in $orderby and $apply are scoped too", async () => {
    const v = await rows("ProjectsRegions", { $orderby: "project/projectName", $select: "id" });
    expect(ids(v), "row 7's hidden project sorts as null, first").toEqual([7, 1, 2, 3, 4]);
    const g = await rows("ProjectsRegions", { $apply: "groupby((project/projectName),aggregate($count as n))" });
    expect(g).toEqual([
      { project: { projectName: null }, n: 1 },
      { project: { projectName: "Alpha" }, n: 2 },
      { project: { projectName: "Beta" }, n: 1 },
      { project: { projectName: "Epsilon" }, n: 1 },
    ]);
  });
});

describe("expand", () => {
  test("to-many honours nested $filter/$orderby/$top/$skip/$select/$count", async () => {
    const v = await rows("Projects", {
      $filter: "id eq 1",
      $select: "id",
      $expand: "aiProjectSummaries($filter=summary ne 'two';$orderby=summary desc;$top=2;$skip=1;$select=id,summary;$count=true)",
    });
    // Scoped and filtered: five, one, three -> desc: three, one, five -> skip 1, top 2.
    expect(v).toEqual([
      {
        id: 1,
        aiProjectSummaries: [
          { id: 1, summary: "one" },
          { id: 5, summary: "five" },
        ],
        "aiProjectSummaries@odata.count": 3,
      },
    ]);
  });

  test("to-one is an object or null; a hidden target is null", async () => {
    const v = await rows("ProjectsRegions", { $select: "id", $expand: "project($select=projectName)", $filter: "id in (1, 7)" });
    expect(v).toEqual([
      { id: 1, project: { projectName: "Alpha" } },
      { id: 7, project: null },
    ]);
  });

  test("to-many with no rows is [] and nested three levels deep", async () => {
    const v = await rows("Projects", { $filter: "id eq 3", $select: "id", $expand: "segments($expand=aiProjectSummaries($expand=segment))" });
    expect(v).toEqual([{ id: 3, segments: [] }]);
    const deep = await rows("Projects", { $filter: "id eq 1", $select: "id", $expand: "segments($select=id;$expand=aiProjectSummaries($select=id;$expand=segment($select=name)))" });
    expect(deep[0]).toEqual({
      id: 1,
      segments: [
        {
          id: 1,
          aiProjectSummaries: [
            { id: 1, segment: { name: "Young" } },
            { id: 2, segment: { name: "Young" } },
          ],
        },
        { id: 2, aiProjectSummaries: [{ id: 3, segment: { name: "Old" } }] },
      ],
    });
  });

  test("a scope that hides client 2 hides it inside expands; client 2 sees only its own", async () => {
    const mine = await rows("Projects", { $filter: "id eq 1", $select: "id", $expand: "segments($select=name),projectsRegions($select=regionId),aiProjectSummaries/$count" });
    expect(mine[0]).toEqual({ id: 1, segments: [{ name: "Young" }, { name: "Old" }], projectsRegions: [{ regionId: 1 }, { regionId: 2 }], "aiProjectSummaries@odata.count": 4 });
    const theirs = await list(db.sql, "Projects", { $select: "id", $expand: "segments($select=name)" }, clientScope(2));
    expect(theirs.value).toEqual([{ id: 6, segments: [] }]);
    expect(await getOne(db.sql, "Projects", 1, {}, clientScope(2)), "another client's entity is absent").toBeUndefined();
  });
});

describe("values and shapes", () => {
  test("types on the wire: numbers, ISO datetimes in UTC, dates, json, uuid, null", async () => {
    const p = (await getOne(db.sql, "Projects", 3)) as Row;
    expect(p).toEqual({
      id: 3,
      clientId: 1,
      projectName: "Gamma",
      statusCode: 800,
      projectTypeId: 3,
      launchDate: "2025-12-31",
      createdAt: "2025-06-15T23:30:00.123Z",
      isBranded: true,
      researchNote: "GAMMA note",
      budget: 7,
      settings: [],
      publicId: "00000000-0000-4000-8000-000000000003",
      secretNote: null,
      deletedAt: null,
    });
    const r = await rows("Responses", { $top: "1", $select: "id,weight" });
    expect(r[0], "bigint and float8 as JSON numbers").toEqual({ id: 1, weight: 1 });
  });

  test("$select gives exactly the listed properties, the key is not added", async () => {
    expect(await rows("Regions", { $select: "regionName", $top: "1" })).toEqual([{ regionName: "United States" }]);
  });

  test("entities wider than json_build_object's 100 arguments, in declaration order", async () => {
    const [w] = await rows("WideThings", {});
    expect(Object.keys(w!)).toEqual(["id", ...Array.from({ length: 60 }, (_, i) => `c${i + 1}`)]);
    expect(w!.c60).toBe(60);
  });

  test("the JSON text is compact (no spaces around ':' or after ',')", async () => {
    const p = await list(db.sql, "Regions", { $select: "id,regionName", $expand: "systemQuestionOptions/$count", $top: "2" });
    const set = reg.mustGet("Regions");
    const { text, params } = compileCollection(reg, set, parseQuery({ $select: "id,regionName", $expand: "systemQuestionOptions($select=id;$top=2)", $top: "2" }, set, reg), {
      scope: clientScope(1),
    }).render();
    const [r] = (await db.sql.unsafe(text, params as never[])) as unknown as { value: string }[];
    expect(r!.value).toBe('[{"id":1,"regionName":"United States","systemQuestionOptions":[{"id":2},{"id":4}]},{"id":2,"regionName":"United Kingdom","systemQuestionOptions":[{"id":3}]}]');
    expect(p.value[0]).toEqual({ id: 1, regionName: "United States", "systemQuestionOptions@odata.count": 4 });
  });

  test("soft-deleted rows are absent, by key too", async () => {
    expect(await getOne(db.sql, "Projects", 4)).toBeUndefined();
  });

  test("$apply: nested names for navigation paths, every aggregation, ordering by alias, $count and paging", async () => {
    const p = await list(db.sql, "Responses", {
      $apply: "groupby((project/projectName),aggregate(value with sum as s, value with min as mn, value with max as mx, weight with average as avg, $count as n))",
      $orderby: "n desc",
      $count: "true",
      $top: "1",
    });
    expect(p.value).toEqual([{ project: { projectName: "Alpha" }, s: 4, mn: 1, mx: 2, avg: 1.125, n: 4 }]);
    expect([p.count, p.more]).toEqual([2, true]);
    const agg = await rows("CreditLogs", { $apply: "aggregate(creditAmount with sum as total, createdAt with max as last, $count as n)" });
    expect(agg).toEqual([{ total: 82.5, last: "2026-01-06T00:00:00.000Z", n: 5 }]);
    const distinct = await rows("SystemQuestionOption", { $apply: "filter(isVisible)/groupby((systemQuestion/questionCode,regionId))", $orderby: "systemQuestion/questionCode desc" });
    expect(distinct).toEqual([
      { systemQuestion: { questionCode: "REGION" }, regionId: 1 },
      { systemQuestion: { questionCode: "GENDER" }, regionId: null },
      { systemQuestion: { questionCode: "GENDER" }, regionId: 1 },
      { systemQuestion: { questionCode: "AGE" }, regionId: null },
      { systemQuestion: { questionCode: "AGE" }, regionId: 1 },
      { systemQuestion: { questionCode: "AGE" }, regionId: 2 },
    ]);
    const empty = await rows("CreditLogs", { $apply: "filter(projectId eq 404)/aggregate(creditAmount with sum as total, $count as n)" });
    expect(empty, "aggregate over nothing is one row").toEqual([{ total: null, n: 0 }]);
  });

  test("$apply filter-only keeps entities and combines with $filter/$select/$expand", async () => {
    const v = await rows("Projects", { $apply: "filter(statusCode lt 500)", $filter: "isBranded", $select: "id", $expand: "segments/$count" });
    expect(v).toEqual([{ id: 1, "segments@odata.count": 2 }]);
  });
});

describe("the statement", () => {
  test("one statement, every value a parameter with an explicit cast", () => {
    const set = reg.mustGet("Projects");
    const q = parseQuery({ $filter: "projectName eq 'Alpha' and statusCode in (0, 1) and createdAt gt 2020-01-01T00:00:00Z and isBranded eq true", $expand: "segments($top=1)" }, set, reg);
    const { text, params } = compileCollection(reg, set, q, { scope: clientScope(1) }).render();
    expect(text).not.toContain("Alpha");
    expect(params).toContain("Alpha");
    expect(text).toContain("= any($");
    expect(text).toMatch(/\$\d+::int4\[\]/);
    expect(text, "dates travel as text, cast by the server").toMatch(/\$\d+::text::timestamptz/);
    expect(text).toMatch(/\$\d+::bool/);
    for (const m of text.matchAll(/\$\d+(::[a-z0-9[\]]+)?/g)) expect(m[1], `parameter ${m[0]} is cast`).toBeDefined();
    // Every alias in the statement carries the scope predicate.
    const aliases = new Set([...text.matchAll(/"(t\d+)"\."/g)].map((m) => m[1]));
    for (const a of aliases) expect(text, `alias ${a} is scoped`).toContain(`"${a}"."client_id" = $`);
  });

  test("$filter and friends on a single entity are rejected", () => {
    const set = reg.mustGet("Projects");
    expect(() => compileEntity(reg, set, 1, parseQuery({ $filter: "id eq 1" }, set, reg), { scope: clientScope(1) })).toThrow(ApiError);
    expect(() => compileEntity(reg, set, "abc", parseQuery({}, set, reg), { scope: clientScope(1) })).toThrow("invalid key");
  });
});

describe("a single entity: the options it refuses and the keys it takes", () => {
  const set = reg.mustGet("Projects");
  const entity = (key: string | number, raw: Raw = {}, s = set) => compileEntity(reg, s, key, parseQuery(raw, s, reg), { scope: clientScope(1) }).render();
  const messageOf = (fn: () => unknown): string => {
    try {
      fn();
    } catch (e) {
      if (e instanceof ApiError) return `${e.status} ${e.message}`;
      throw e;
    }
    return "no error";
  };

  test.each([
    ["$filter", { $filter: "id eq 1" }],
    ["$top", { $top: "1" }],
    ["$skip", { $skip: "1" }],
    ["$count", { $count: "true" }],
    ["$apply", { $apply: "filter(id eq 1)" }],
  ] as const)("%s is a 400 naming the option", (name, raw) => {
    expect(messageOf(() => entity(1, raw))).toBe(`400 ${name}: not supported when reading one entity`);
  });
  test("$select and $expand are what a single entity takes", () => {
    expect(messageOf(() => entity(1, { $select: "id", $expand: "projectsRegions" }))).toBe("no error");
  });

  test("integer keys: digits with an optional minus, within 64 bits, sent as an int8 parameter", () => {
    for (const ok of ["12", "-5", "0", "9223372036854775807", "-9223372036854775808", 7]) {
      const r = entity(ok);
      expect(r.params, String(ok)).toContain(String(ok));
      expect(r.text).toContain("::int8");
    }
    for (const bad of ["1.5", "abc", "", " 1", "1e3", "12345678901234567890", "9223372036854775808", "-9223372036854775809"]) {
      expect(
        messageOf(() => entity(bad)),
        JSON.stringify(bad),
      ).toBe(`400 key: invalid key for Projects at position 0 near '${bad}'`);
    }
  });

  test("uuid keys are checked and lower-cased; string keys refuse a NUL; other key types are refused", () => {
    const keyed = (type: string) => ({ ...set, fields: { ...set.fields, [set.key]: { ...set.fields[set.key]!, type } } }) as typeof set;
    const uuid = "0F8FAD5B-D9CB-469F-A165-70867728950E";
    const r = entity(uuid, {}, keyed("uuid"));
    expect(r.params).toContain(uuid.toLowerCase());
    expect(r.text).toContain("::uuid");
    for (const bad of ["0f8fad5b-d9cb-469f-a165-70867728950", "0f8fad5bd9cb469fa16570867728950e", "x0f8fad5b-d9cb-469f-a165-70867728950e", "0f8fad5b-d9cb-469f-a165-70867728950e0"]) {
      expect(
        messageOf(() => entity(bad, {}, keyed("uuid"))),
        bad,
      ).toMatch(/^400 key: invalid key for Projects/);
    }
    const s = entity("a b", {}, keyed("string"));
    expect(s.params).toContain("a b");
    expect(s.text).toContain("::text");
    expect(messageOf(() => entity("a\u0000b", {}, keyed("string")))).toMatch(/^400 key: invalid key for Projects/);
    expect(messageOf(() => entity("1", {}, keyed("boolean")))).toBe("400 key: invalid key for Projects at position 0 near '1'");
    // bigint keys (Responses, TextResponses, DataEventsLog) take the integer rules.
    expect(entity("9223372036854775807", {}, keyed("bigint")).text).toContain("::int8");
    expect(messageOf(() => entity("9223372036854775808", {}, keyed("bigint")))).toMatch(/^400 key: invalid key for Projects/);
  });
});
