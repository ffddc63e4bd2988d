// Issue 38, start-up (docs/performance.md "CLI startup"): `ideally --version` and `ideally --help`
// are answered by the entry with nothing else loaded (the help from a generated table:
// top-help.test.ts), and any other command line declares each command group by its name, aliases
// and description alone, its subcommands only when the command line names the group. Neither may
// change what is printed: the top-level help with the groups declared shallow (`ideally --no-pager
// --help`, which commander answers) is the help with the whole tree (`ideally help`, which declares
// it), at every width, and a group named after a global option's value is still the whole group.
import { expect, test } from "bun:test";
import { cliHarness } from "../helpers/cli.ts";
import { commandWord } from "../../cli/src/commands/options.ts";

const h = cliHarness("http://127.0.0.1:9");

test("the command word: the first word that is not an option or a global option's value", () => {
  expect(commandWord([])).toBeUndefined();
  expect(commandWord(["--help"])).toBeUndefined();
  expect(commandWord(["projects", "list"])).toBe("projects");
  expect(commandWord(["--api", "http://x", "--client", "3", "p", "ls"])).toBe("p");
  expect(commandWord(["--api=http://x", "--wide", "clients", "ls"])).toBe("clients");
  expect(commandWord(["--no-pager", "credits"])).toBe("credits");
});

test("commander's --help with the groups declared by name alone is the help of the whole tree, at 80, 60 and no width", async () => {
  for (const columns of ["", "80", "60"]) {
    const [shallow, whole] = await Promise.all([h.run(["--no-pager", "--help"], { env: { COLUMNS: columns } }), h.run(["help"], { env: { COLUMNS: columns } })]);
    expect(shallow.code).toBe(0);
    expect(shallow.stdout, `COLUMNS=${columns}`).toBe(whole.stdout);
    // Each group is listed without [options]: nothing was added to a group that does not run.
    for (const group of ["auth", "clients|client", "projects|project|p", "credits", "admin", "analyze"]) expect(shallow.stdout).toMatch(new RegExp(`\\n  ${group.replaceAll("|", "\\|")} {2,}\\S`));
  }
});

test("a group named after global options is declared whole", async () => {
  for (const args of [
    ["--client", "3", "p", "ls", "--limit", "0"],
    ["--api", "http://127.0.0.1:9", "projects", "list", "--limit", "0"],
  ]) {
    const r = await h.run(args);
    expect([r.code, r.stderr], args.join(" ")).toEqual([1, "ideally: --limit: expected a whole number from 1 to 1000, got '0'\n"]);
  }
  const ledger = await h.run(["--client", "3", "credits", "ledger", "--help"]);
  expect(ledger.stdout).toStartWith("Usage: ideally credits ledger [options]\n");
});

test("--version, alone or with --json or --api: the version without the program, the same words as `version --offline`", async () => {
  const [fast, offline] = await Promise.all([h.run(["--version"]), h.run(["version", "--offline"])]);
  expect([fast.code, fast.stderr]).toEqual([0, ""]);
  expect(fast.stdout).toMatch(/^ideally \d+\.\d+\.\d+( \([0-9a-f]{12}\))?\ncontract {2}v\d+\n$/);
  expect(offline.stdout).toBe(fast.stdout);
  const json = await h.run(["--api", "http://127.0.0.1:9", "--version", "--json"]);
  expect(JSON.parse(json.stdout)).toEqual(JSON.parse((await h.run(["version", "--offline", "--json"])).stdout));
  // Anything else beside it is the program's: commander reads it (an unknown option is its error).
  const other = await h.run(["--version", "--nope"]);
  expect(other.code).toBe(1);
  expect(other.stderr).toContain("unknown option '--nope'");
});
