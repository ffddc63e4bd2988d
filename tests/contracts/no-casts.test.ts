// The web app and the CLI use the typed client as generated (DESIGN.md, issue 18): no cast, no
// `any`, no suppressed type error in api/src, web/src, cli/src, contracts/ or analytics/ (issue 34 added api/src and `as unknown as`). A row type comes from
// contracts/schema.d.ts (Row<>, Schemas[...]); what openapi-fetch cannot say about $select/$expand
// goes through contracts/odata.ts's selected().
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const FORBIDDEN = /as never\b|as any\b|as unknown as\b|:\s*any\b|<any\b|\bany\s*>|@ts-ignore|@ts-expect-error|biome-ignore|eslint-disable/g;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : []));
}

/** Each forbidden spot in a text's code (comments and one-line string literals left out: "Staff: any client" is prose): `line: text`. */
export function forbiddenSpots(text: string): string[] {
  const blank = (c: string) => c.replace(/[^\n]/g, " ");
  const code = text.replace(/\/\*[\s\S]*?\*\//g, blank).replace(/"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'/g, blank);
  return code
    .split("\n")
    .map((line) => line.replace(/(^|\s)\/\/(?!\s*(@ts-|biome-ignore|eslint-disable)).*$/, "$1"))
    .flatMap((line, i) => [...line.matchAll(FORBIDDEN)].map((m) => `${i + 1}: ${m[0]}`));
}

describe("no casts around the typed client", () => {
  test("the check finds each forbidden form, and leaves look-alikes alone", () => {
    const bad = [
      "x as never",
      "y as any",
      "function f(a: any) {}",
      "let b:any = 1",
      "// @ts-ignore",
      "// @ts-expect-error why",
      "z as unknown as T",
      "type J = JobDef<any, any>",
      "// biome-ignore lint: why",
    ].join("\n");
    expect(forbiddenSpots(bad)).toEqual(["1: as never", "2: as any", "3: : any", "4: :any", "5: @ts-ignore", "6: @ts-expect-error", "7: as unknown as", "8: <any", "8: any>", "9: biome-ignore"]);
    expect(forbiddenSpots('const anyOf = 1; type T = { company: anything }; x as Never2; "as nevertheless"')).toEqual([]);
    expect(forbiddenSpots("// refreshed first, as any command\n/* x as never */ const url = 'http://h/as any';")).toEqual([]);
    expect(forbiddenSpots("description: \"Staff: any two clients\", s: 'it is: any', n: x as never")).toEqual(["1: as never"]);
  });

  test("api/src, web/src, cli/src, contracts/ and analytics/ have none", () => {
    const files = [
      ...sources(join(ROOT, "api/src")),
      ...sources(join(ROOT, "web/src")),
      ...sources(join(ROOT, "cli/src")),
      ...["contracts", "analytics"].flatMap((pkg) =>
        readdirSync(join(ROOT, pkg))
          .filter((f) => /\.tsx?$/.test(f))
          .map((f) => join(ROOT, pkg, f)),
      ),
    ];
    expect(files.length).toBeGreaterThan(300);
    const found: Record<string, string[]> = {};
    for (const f of files) {
      const spots = forbiddenSpots(readFileSync(f, "utf8"));
      if (spots.length) found[relative(ROOT, f)] = spots;
    }
    expect(Object.entries(found).map(([f, s]) => `${f}: ${s.join(", ")}`)).toEqual([]);
  });
});
