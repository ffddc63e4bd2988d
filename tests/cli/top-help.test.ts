// Issue 38: `ideally --help` (and `-h`) is answered by the entry (main.ts) from a table generated
// from the command tree (cli/src/help-table.generated.ts, scripts/generate-cli-help.ts), without
// commander or any command module. What it prints must be what commander prints for the same
// command line: the reference is `ideally help`, which commander answers (the whole tree declared).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { cliHarness } from "../helpers/cli.ts";
import { fitHelp } from "../../cli/src/help-fit.ts";
import { formatHelpTable, helpText } from "../../cli/src/help-table.ts";
import { TOP_HELP } from "../../cli/src/help-table.generated.ts";
import { helpTableOf, helpWrites, TABLE_FILE, tableModule } from "../../scripts/generate-cli-help.ts";
import { program } from "../../cli/src/program.ts";

const h = cliHarness("http://127.0.0.1:9");
const ROOT = resolve(import.meta.dir, "../..");

test("--help and -h from the table: byte for byte commander's help, at 40, 60, 80, 120 and no width, with and without colour", async () => {
  const colours: Record<string, string>[] = [
    { NO_COLOR: "1", FORCE_COLOR: "" },
    { NO_COLOR: "", FORCE_COLOR: "1" },
  ];
  const cases = ["40", "60", "80", "120", ""].flatMap((columns) => colours.map((c) => ({ ...c, COLUMNS: columns })));
  for (const env of cases) {
    const [help, h1, reference] = await Promise.all([h.run(["--help"], { env }), h.run(["-h"], { env }), h.run(["help"], { env })]);
    const label = JSON.stringify(env);
    expect([reference.code, reference.stderr], label).toEqual([0, ""]);
    expect(reference.stdout, label).toStartWith("Usage: ideally [options] [command]\n");
    expect([help.code, help.stderr, help.stdout], label).toEqual([0, "", reference.stdout]);
    expect([h1.code, h1.stderr, h1.stdout], label).toEqual([0, "", reference.stdout]);
  }
}, 120_000);

test("`ideally` with no arguments: the top-level help on stdout and exit 0, as `gh` run bare does, the bytes of --help, at every width and on a terminal", async () => {
  const envs: Record<string, string>[] = [{ COLUMNS: "60", NO_COLOR: "1" }, { COLUMNS: "120", FORCE_COLOR: "1", NO_COLOR: "" }, { COLUMNS: "" }];
  for (const env of envs) {
    const [bare, reference] = await Promise.all([h.run([], { env }), h.run(["help"], { env })]);
    expect(reference.code).toBe(0);
    expect([bare.code, bare.stderr, bare.stdout], JSON.stringify(env)).toEqual([0, "", reference.stdout]);
  }
  const [bare, reference] = await Promise.all([h.tty([], { columns: 70, env: { COLUMNS: undefined } }), h.tty(["help"], { columns: 70, env: { COLUMNS: undefined } })]);
  expect([bare.code, bare.stderr, bare.screen]).toEqual([0, "", reference.screen]);
}, 60_000);

test("on a terminal (its width from the terminal, not $COLUMNS): the same as commander's", async () => {
  for (const columns of [50, 100]) {
    const [fast, reference] = await Promise.all([h.tty(["--help"], { columns, env: { COLUMNS: undefined } }), h.tty(["help"], { columns, env: { COLUMNS: undefined } })]);
    expect(reference.code).toBe(0);
    expect(fast.screen.split("\n").every((l) => l.length <= columns)).toBe(true);
    expect([fast.code, fast.stderr, fast.screen], `${columns} columns`).toEqual([0, "", reference.screen]);
  }
}, 60_000);

/** What commander writes for `program --help` at a width, each write fitted and printed as program.ts's writeOut does. */
const commanderHelp = (width: number | undefined): string =>
  helpWrites(program, width ?? 80)
    .map((s) => `${fitHelp(s, width).replace(/\n$/, "")}\n`)
    .join("");

test("the table's help is commander's at every width from 1 to 200 and with none", () => {
  for (let width = 1; width <= 200; width++) {
    const helper = program.createHelp();
    helper.prepareContext({ helpWidth: width });
    expect(formatHelpTable(TOP_HELP, width), `width ${width}`).toBe(helper.formatHelp(program, helper));
    expect(helpText(TOP_HELP, width), `width ${width}`).toBe(commanderHelp(width));
  }
  expect(helpText(TOP_HELP, undefined)).toBe(commanderHelp(undefined));
});

test("the generated table is not stale: generated again from the command tree, it is the committed file", () => {
  const table = helpTableOf(program);
  expect(TOP_HELP).toEqual(table);
  expect(readFileSync(TABLE_FILE, "utf8"), "run `bun run cli-help` and commit").toBe(tableModule(table));
  // Every command and global option of the tree is in it.
  const terms = TOP_HELP.sections.flatMap((s) => s.items.map(([term]) => term));
  for (const c of program.commands.filter((c) => !c.name().startsWith("__"))) expect(terms.some((t) => t.split(" ")[0]!.split("|")[0] === c.name())).toBe(true);
  for (const o of program.options) expect(terms).toContain(o.flags);
});

test("main.ts's static imports hold neither commander nor the program nor any command module", () => {
  const transpiler = new Bun.Transpiler({ loader: "ts" });
  const seen = new Set<string>();
  const bare = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    // scanImports leaves type-only imports out; dynamic import() is kind "dynamic-import".
    for (const i of transpiler.scanImports(readFileSync(file, "utf8").replace(/^#!.*/, ""))) {
      if (i.kind !== "import-statement") continue;
      if (i.path.startsWith(".")) visit(resolve(dirname(file), i.path));
      else bare.add(i.path);
    }
  };
  visit(resolve(ROOT, "cli/src/main.ts"));
  const files = [...seen].map((f) => f.slice(ROOT.length + 1));
  expect(files).toContain("cli/src/help-table.generated.ts");
  expect(files.filter((f) => f === "cli/src/program.ts" || f.startsWith("cli/src/commands/"))).toEqual([]);
  expect([...bare].filter((b) => !b.startsWith("node:"))).toEqual([]);
});
