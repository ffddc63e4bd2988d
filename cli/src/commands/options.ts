// Options and helpers the command modules share (moved from main.ts, issue 34).
import { Option, type Command, type OptionValues } from "commander";

/** Options of the command merged with the global ones (--api, --client). */
// Commander hands options untyped: each command's runner names the options it declared.
export const all = <T>(cmd: Command): T => cmd.optsWithGlobals<T & OptionValues>();
export const JSON_HELP = "print JSON for scripts (nothing else on stdout)";
/**
 * A listing's `--json [FIELDS]` (all, or the fields named) and, beside it, `--jq EXPR`: shaped in
 * json-shape.ts before the command runs. `fields` are the keys of the listing's JSON rows.
 */
export const listingFields = new Map<Option, string[]>();
export function jsonFields(fields: string[]): Option {
  const opt = new Option("--json [fields]", `print JSON (nothing else on stdout); FIELDS (comma-separated, right after --json) picks some of: ${fields.join(", ")}`);
  listingFields.set(opt, fields);
  return opt;
}
export const JQ_HELP = "print what this jq expression makes of the JSON, strings raw (a subset of jq: paths, .[], |, select, map, length, keys, ...; docs/cli.md)";
/** A repeatable option collects its values. */
export const collect = (value: string, previous: string[]) => [...previous, value];

export const YES_HELP = "go ahead without asking (needed when stdin is not a terminal)";

/**
 * Commands whose output goes through the pager on a terminal (pager.ts): every listing (a command
 * with `--json [fields]`) and the ones marked here (results, results verbatims).
 */
const pagedCommands = new WeakSet<Command>();
export function paged(cmd: Command): Command {
  pagedCommands.add(cmd);
  return cmd;
}
export const isPaged = (cmd: Command): boolean => pagedCommands.has(cmd) || cmd.options.some((o) => listingFields.has(o));

/** Global options that take a value (`--api URL`, `--client ID`): their value is not the command word. */
const GLOBAL_VALUES = new Set(["--api", "--client"]);

/** The command word of a command line: its first word that is neither an option nor a global option's value. */
export function commandWord(args: string[]): string | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (GLOBAL_VALUES.has(a)) i++;
    else if (!a.startsWith("-")) return a;
  }
  return undefined;
}

/** Groups declared by name, aliases and description alone (see `declaresGroup`). */
export const shallowGroups = new WeakSet<Command>();

/**
 * Whether a group's subcommands are declared (issue 38: `--help` within 2x of a compiled
 * hello-world): only when the command line names the group or one of its aliases, or needs the
 * whole tree (`completion`, `help`). `ideally --help` lists each group by its name, aliases and
 * description alone, which is all it shows of them.
 */
export function declaresGroup(group: Command, args: string[] = process.argv.slice(2)): boolean {
  const word = commandWord(args);
  if (word === "completion" || word === "help" || word === group.name() || (word !== undefined && group.aliases().includes(word))) return true;
  shallowGroups.add(group);
  return false;
}
