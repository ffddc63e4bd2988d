// The web app and the CLI use the typed client as generated (DESIGN.md, issue 18): no cast, no
// `any`, no suppressed type error in web/src, cli/src or contracts/client.ts. A row type comes from
// contracts/schema.d.ts (Row<>, Schemas[...]); what openapi-fetch cannot say about $select/$expand
// goes through contracts/odata.ts's selected().
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";

const ROOT = resolve(import.meta.dir, "../..");
const FORBIDDEN = /as never\b|as any\b|:\s*any\b|@ts-ignore|@ts-expect-error/g;

/**
 * Files not yet moved onto the typed client, with how many forbidden spots each still has. The
 * list only shrinks: a file that reaches zero must leave it (the test says so), and no other file
 * may gain one.
 */
const NOT_YET: Record<string, number> = {
  "web/src/routes/admin/shared.tsx": 12,
  "web/src/routes/admin/Prompts.tsx": 14,
  "web/src/routes/admin/Translations.tsx": 9,
  "web/src/routes/admin/AiConversations.tsx": 18,
  "web/src/routes/groups-admin/GroupEditor.tsx": 6,
  "cli/src/commands/admin/commands.ts": 1,
  "cli/src/commands/projects/file.ts": 1,
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : /\.tsx?$/.test(e.name) ? [join(dir, e.name)] : [],
  );
}

/** Each forbidden spot in a text's code (comments left out: "as any command" is prose): `line: text`. */
export function forbiddenSpots(text: string): string[] {
  const code = text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, " "));
  return code
    .split("\n")
    .map((line) => line.replace(/(^|\s)\/\/(?! @ts-).*$/, "$1"))
    .flatMap((line, i) => [...line.matchAll(FORBIDDEN)].map((m) => `${i + 1}: ${m[0]}`));
}

describe("no casts around the typed client", () => {
  test("the check finds each forbidden form, and leaves look-alikes alone", () => {
    const bad = ['x as never', 'y as any', 'function f(a: any) {}', 'let b:any = 1', '// @ts-ignore', '// @ts-expect-error why'].join("\n");
    expect(forbiddenSpots(bad)).toEqual(["1: as never", "2: as any", "3: : any", "4: :any", "5: @ts-ignore", "6: @ts-expect-error"]);
    expect(forbiddenSpots('const anyOf = 1; type T = { company: anything }; x as Never2; "as nevertheless"')).toEqual([]);
    expect(forbiddenSpots("// refreshed first, as any command\n/* x as never */ const url = 'http://h/as any';")).toEqual(["2: as any"]);
  });

  test("web/src, cli/src and contracts/client.ts have none, but for the files still listed", () => {
    const files = [...sources(join(ROOT, "web/src")), ...sources(join(ROOT, "cli/src")), join(ROOT, "contracts/client.ts")];
    expect(files.length).toBeGreaterThan(100);
    const found: Record<string, string[]> = {};
    for (const f of files) {
      const spots = forbiddenSpots(readFileSync(f, "utf8"));
      if (spots.length) found[relative(ROOT, f)] = spots;
    }
    const unexpected = Object.entries(found).filter(([f]) => !(f in NOT_YET)).map(([f, s]) => `${f}: ${s.join(", ")}`);
    expect(unexpected).toEqual([]);
    // A listed file never gains a spot, and leaves the list once it has none.
    const grew = Object.entries(NOT_YET).filter(([f, n]) => (found[f]?.length ?? 0) > n).map(([f]) => f);
    expect(grew).toEqual([]);
    const done = Object.keys(NOT_YET).filter((f) => !found[f]);
    expect(done).toEqual([]);
  });
});
