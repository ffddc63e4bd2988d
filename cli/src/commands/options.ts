// Options and helpers the command modules share (moved from main.ts, issue 34).
import { Option, type Command, type OptionValues } from "commander";

/** Options of the command merged with the global ones (--api, --client). */
// Commander hands options untyped: each command's runner names the options it declared.
export const all = <T,>(cmd: Command): T => cmd.optsWithGlobals<T & OptionValues>();
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
