// Issue 38: short aliases as gh and kubectl have them (record 0133): every `list` is also `ls`, the
// one `delete` also `rm`, `projects` also `project` and `p`, `clients` also `client`. Shown in
// --help beside the name, run the same command (compared with the full name's answer to the same
// bad input, so no server is needed), completed by the bash and fish scripts, and listed in
// docs/cli.md exactly as --help shows them.
import { expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { cliHarness, helpTree } from "../helpers/cli.ts";

// Nothing here reaches the API: every run below stops at its usage check or its help.
const h = cliHarness("http://127.0.0.1:9");

/** The aliases record 0133 decides, by the command's full path. */
const DECIDED: Record<string, string[]> = {
  projects: ["project", "p"],
  clients: ["client"],
  "projects list": ["ls"],
  "projects delete": ["rm"],
  "clients list": ["ls"],
  "admin runs list": ["ls"],
};

/** The aliases --help shows: a Commands row `name|alias|alias [options] ...`, walked over the tree. */
async function aliasesInHelp(): Promise<Record<string, string[]>> {
  const tree = await helpTree((args) => h.run(args, { env: { COLUMNS: "" } }));
  const top = (await h.run(["--help"], { env: { COLUMNS: "" } })).stdout;
  const found: Record<string, string[]> = {};
  for (const { path, help } of [{ path: [] as string[], help: top }, ...tree]) {
    const section = /\nCommands:\n([\s\S]*?)(\n\n|$)/.exec(help)?.[1] ?? "";
    for (const line of section.split("\n")) {
      const term = /^ {2}(\S+)/.exec(line)?.[1];
      if (!term?.includes("|")) continue;
      const [name, ...aliases] = term.split("|");
      found[[...path, name].join(" ")] = aliases;
    }
  }
  return found;
}

test("--help shows each command's aliases beside its name, and only the decided ones", async () => {
  expect(await aliasesInHelp()).toEqual(DECIDED);
  const top = (await h.run(["--help"], { env: { COLUMNS: "" } })).stdout;
  expect(top).toContain("\n  projects|project|p ");
  const projects = (await h.run(["p", "--help"], { env: { COLUMNS: "" } })).stdout;
  expect(projects).toStartWith("Usage: ideally projects|project|p [options] [command]\n");
  expect(projects).toContain("\n  list|ls [options] ");
  expect(projects).toContain("\n  delete|rm [options] <id> ");
}, 60_000);

test("an alias runs its command: the same answer as the full name, with the same exit code", async () => {
  const pairs: [string[], string[]][] = [
    [
      ["p", "ls", "--limit", "0"],
      ["projects", "list", "--limit", "0"],
    ],
    [
      ["project", "rm", "abc", "--yes"],
      ["projects", "delete", "abc", "--yes"],
    ],
    [
      ["client", "ls", "--page", "0"],
      ["clients", "list", "--page", "0"],
    ],
    [
      ["admin", "runs", "ls", "x"],
      ["admin", "runs", "list", "x"],
    ],
    [
      ["p", "ls", "--json", "nope"],
      ["projects", "list", "--json", "nope"],
    ],
  ];
  for (const [alias, full] of pairs) {
    const [a, b] = await Promise.all([h.run(alias), h.run(full)]);
    expect(b.code, full.join(" ")).toBe(1);
    expect([a.code, a.stdout, a.stderr], alias.join(" ")).toEqual([b.code, b.stdout, b.stderr]);
  }
  // Its help is the command's help (the usage line names the command with its aliases).
  const [a, b] = await Promise.all([h.run(["p", "rm", "--help"]), h.run(["projects", "delete", "--help"])]);
  expect(a.stdout).toBe(b.stdout);
  expect(a.stdout).toStartWith("Usage: ideally projects delete|rm [options] <id>\n");
});

test("docs/cli.md lists the aliases --help shows", async () => {
  const doc = readFileSync(resolve(import.meta.dir, "../../docs/cli.md"), "utf8");
  const section = /\n## Aliases\n([\s\S]*?)\n## /.exec(doc)?.[1] ?? "";
  const rows = [...section.matchAll(/^\| `([^`]+)` \| `ideally ([^`]+)` \|/gm)].map((m) => [m[1], m[2]] as const);
  expect(rows.length, "the Aliases table in docs/cli.md").toBeGreaterThan(0);
  const documented: Record<string, string[]> = {};
  for (const [alias, path] of rows) documented[path] = [...(documented[path] ?? []), alias];
  expect(documented).toEqual(await aliasesInHelp());
}, 60_000);

test("completion knows them: bash completes after an alias as after the name; fish too", async () => {
  const dir = mkdtempSync(join(tmpdir(), "ideally-aliases-"));
  try {
    const script = join(dir, "ideally.bash");
    writeFileSync(script, (await h.run(["completion", "bash"])).stdout);
    const complete = (...words: string[]) =>
      Bun.spawnSync(["bash", "-c", `source ${script}; COMP_WORDS=(${words.map((w) => `'${w}'`).join(" ")}); COMP_CWORD=${words.length - 1}; _ideally; echo "\${COMPREPLY[@]}"`])
        .stdout.toString()
        .trim();
    const subcommands = complete("ideally", "projects", "");
    expect(subcommands.split(" ")).toContain("watch");
    expect(complete("ideally", "p", "")).toBe(subcommands);
    expect(complete("ideally", "project", "")).toBe(subcommands);
    expect(complete("ideally", "p", "ls", "--l")).toBe(complete("ideally", "projects", "list", "--l"));
    expect(complete("ideally", "p", "ls", "--l")).toBe("--limit");
    expect(complete("ideally", "p", "rm", "--y")).toBe("--yes");
    expect(complete("ideally", "client", "ls", "--j")).toBe("--json --jq");
    expect(complete("ideally", "admin", "runs", "ls", "--j")).toBe("--json --jq");
    // The aliases are not offered as words of their own (as gh and kubectl): the names are.
    expect(complete("ideally", "projects", "l")).toBe("list");
    const fish = (await h.run(["completion", "fish"])).stdout;
    expect(fish).toContain("complete -c ideally -n '__fish_seen_subcommand_from projects project p' -a watch");
    expect(fish).toContain("complete -c ideally -n '__fish_seen_subcommand_from list ls' -l limit -r");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
