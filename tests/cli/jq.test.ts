// The --jq subset (cli/src/jq.ts) against jq 1.7's own answers: each expected value below is what
// `jq -c` printed for the same expression and input (run by hand when this was written), so the
// subset agrees with jq where it has a feature, and refuses what it lacks with a column.
import { describe, expect, test } from "bun:test";
import { jq, jqLines, JqError, parseJq, type Json } from "../../cli/src/jq.ts";

const rows: Json = [
  { id: 1, name: "a", tags: ["x"], n: null },
  { id: 2, name: "b", tags: [], n: 3 },
];

describe("what jq 1.7 answers", () => {
  const cases: [string, Json, Json[]][] = [
    [".", rows, [rows]],
    [".[0].name", rows, ["a"]],
    [".[-1].name", rows, ["b"]],
    [".[5]", rows, [null]],
    [".[].id", rows, [1, 2]],
    ['.[0]."name"', rows, ["a"]],
    [".missing.deeper", { a: 1 }, [null]],
    ["map(.id)", rows, [[1, 2]]],
    [".[] | select(.id > 1) | .name", rows, ["b"]],
    ['.[] | select(.name == "a" and .id == 1) | .id', rows, [1]],
    ['.[] | select(.name != "a" or .n == null) | .id', rows, [1, 2]],
    ["length", rows, [2]],
    [".[0] | keys", rows, [["id", "n", "name", "tags"]]],
    ["keys", { b: 1, B: 2, a: 3 }, [["B", "a", "b"]]],
    ["keys", ["p", "q"], [[0, 1]]],
    [
      "[.[] | {id, nm: .name}]",
      rows,
      [
        [
          { id: 1, nm: "a" },
          { id: 2, nm: "b" },
        ],
      ],
    ],
    ['.[] | .n // "none"', rows, ["none", 3]],
    ["map(.id) | add", rows, [3]],
    ["map(.name) | add", rows, ["ab"]],
    ["[] | add", rows, [null]],
    [".[1].tags[]?", rows, []],
    ['first | has("id")', rows, [true]],
    ["[.[].id] | (first, last)", rows, [1, 2]],
    ["map(select(.tags | length > 0)) | length", rows, [1]],
    ["(1,2) == (2,3)", null, [false, true, false, false]],
    ["[.[] | .id < 2 or .n != null]", rows, [[true, true]]],
    ["length", "é😀", [2]],
    ["length", -3, [3]],
    ["length", null, [0]],
    ['[null < false, false < true, true < 0, 1 < "a", "a" < [], [] < {}]', null, [[true, true, true, true, true, true]]],
    ['["B" < "a", [1,2] < [1,3], {a:1} < {b:0}, {a:1} == {a:1}]', null, [[true, true, true, true]]],
    [".[] | not", [null, false, 0, ""], [true, true, false, false]],
    [
      "{a: (1,2), b: 3}",
      null,
      [
        { a: 1, b: 3 },
        { a: 2, b: 3 },
      ],
    ],
    [".[0] | .tags[0], .id", rows, ["x", 1]],
    ["map(.n) | map(. // 0) | add", rows, [3]],
    ["empty", rows, []],
  ];
  for (const [expr, input, out] of cases) test(expr, () => expect(jq(expr, input)).toEqual(out));
});

test("lines as jq -r prints them: strings raw, the rest compact JSON", () => {
  expect(jqLines(["a b", 1, null, { x: [1] }])).toBe('a b\n1\nnull\n{"x":[1]}\n');
  expect(jqLines([])).toBe("");
});

describe("errors", () => {
  test("what the subset lacks, or a mistake, is a syntax error naming the column", () => {
    const syntax: [string, string][] = [
      [".[] | sort_by(.id)", "unknown function 'sort_by' at column 7 (this jq subset has select, map, has, length, keys, add, first, last, not, empty)"],
      [".a |", "the expression ends too soon"],
      ["select(.a", "expected ')' at column 10 (end of the expression)"],
      ['"abc', "unterminated string at column 1"],
      [".a $x", "unexpected '$' at column 4"],
      ["{1: 2}", "expected a key at column 2"],
      [".a )", "unexpected ')' at column 4"],
    ];
    for (const [expr, message] of syntax) {
      expect(() => parseJq(expr), expr).toThrow(new JqError(message));
    }
  });
  test("type errors at run time, as jq words them", () => {
    expect(() => jq(".[0].name.x", rows)).toThrow(new JqError('cannot index string with "x"'));
    expect(() => jq(".[] | .[]", [1])).toThrow(new JqError("cannot iterate over number (1)"));
    expect(() => jq("keys", 5)).toThrow(new JqError("number (5) has no keys"));
    expect(() => jq("length", true)).toThrow(new JqError("boolean (true) has no length"));
    expect(() => jq("add", [1, "a"])).toThrow(new JqError('number (1) and string ("a") cannot be added'));
  });
});
