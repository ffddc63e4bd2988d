// Help text that fits the terminal (issue 24: no wrap at 80 or 60 columns). Commander wraps its own
// option and command tables to the width it is given; the prose and examples added with
// addHelpText are ours, written for 100 columns. A line longer than the width is broken at a space:
// prose continues at the line's own indent, an example (`$ ideally ...`) continues as a shell
// line continuation (` \`), so a wrapped example can still be copied and run. Lines that fit are
// left alone, and with no terminal (piped, no $COLUMNS) nothing changes.

import type { Command } from "commander";
import { fstatSync } from "node:fs";

/** Whether fd may be a terminal (a character device): asked before process.stdout or stderr is touched. */
function maybeTerminal(fd: 1 | 2): boolean {
  try {
    return fstatSync(fd).isCharacterDevice();
  } catch {
    return false;
  }
}

/**
 * The terminal's width: stdout's, else stderr's (piped into `head` from a terminal), else $COLUMNS.
 * A stream that is no character device has no width; it is not touched, since Bun builds
 * process.stdout and stderr on first use, which costs more than the rest of `--help` (issue 38).
 */
export function terminalWidth(): number | undefined {
  const cols = (maybeTerminal(1) && process.stdout.columns) || (maybeTerminal(2) && process.stderr.columns) || Number(process.env.COLUMNS) || 0;
  return cols > 0 ? cols : undefined;
}

/**
 * Breaks `line` at the last space within `room` characters (for an example, a space outside
 * quotes: a quoted argument is never split; in prose with no space, after a comma). With no
 * place to break the line is left long.
 */
function breakAt(line: string, room: number, example: boolean): [string, string] {
  if (line.length <= room) return [line, ""];
  let at = -1;
  let quote = "";
  for (let i = 0; i < line.length && i <= room; i++) {
    const c = line[i]!;
    if (example && (c === "'" || c === '"')) quote = quote === c ? "" : quote || c;
    else if (c === " " && !quote && i > 0) at = i;
  }
  // Text with no space to break at (a JSON shape) breaks after a comma.
  if (at <= 0 && !example) at = line.lastIndexOf(",", room - 1) + 1;
  if (at <= 0) return [line, ""];
  return [line.slice(0, at).trimEnd(), line.slice(at).trimStart()];
}

/**
 * One line fitted. An example continues as a shell continuation 4 further in (a continuation
 * line of one at its own indent); a row of a table
 * ("  --flag <x>   what it does") under its text column; the JSON shape line 2 in; prose at its
 * own indent.
 */
function fitLine(line: string, width: number, example: boolean): string {
  if (line.length <= width) return line;
  const indent = /^ */.exec(line)![0];
  const column = indent ? /^( +\S+(?: \S+)*? {2,})\S/.exec(line)?.[1]?.length : undefined;
  const next = example ? (line.trimStart().startsWith("$ ") ? `${indent}    ` : indent) : column !== undefined && column < width - 20 ? " ".repeat(column) : line.startsWith("JSON:") ? "  " : indent;
  const out: string[] = [];
  let rest = line.slice(indent.length);
  let lead = indent;
  while (lead.length + rest.length > width) {
    const [head, tail] = breakAt(rest, width - lead.length - (example ? 2 : 0), example);
    if (!tail) break;
    out.push(`${lead}${head}${example ? " \\" : ""}`);
    rest = tail;
    lead = next;
  }
  out.push(`${lead}${rest}`);
  return out.join("\n");
}

/**
 * Prose filled to `width` for the CLI's own output: the first line after `lead`, the rest after
 * `next` (a list item's text continues under its text, not under its dash). No terminal: one line.
 */
export function fillProse(text: string, width: number | undefined, lead = "", next = lead): string {
  if (!width || width < 20) return `${lead}${text}`;
  const out: string[] = [];
  let rest = text;
  let l = lead;
  while (l.length + rest.length > width) {
    const [head, tail] = breakAt(rest, width - l.length, false);
    if (!tail) break;
    out.push(`${l}${head}`);
    rest = tail;
    l = next;
  }
  out.push(`${l}${rest}`);
  return out.join("\n");
}

/** A line of running prose: unindented, not a heading ("Examples:") and not the JSON shape line. */
const prose = (line: string) => line !== "" && !line.startsWith(" ") && !line.endsWith(":") && !line.startsWith("JSON:");

export function fitHelp(text: string, width: number | undefined): string {
  if (!width || width < 20) return text;
  const lines = text.split("\n");
  const out: string[] = [];
  let continued = false; // the line before was an example ending in a shell continuation
  for (let i = 0; i < lines.length; ) {
    const line = lines[i]!;
    const example: boolean = continued || line.trimStart().startsWith("$ ");
    continued = example && line.endsWith(" \\");
    // A paragraph of prose with a line too long is joined and filled again, so it does not read
    // as one long line and one short one; everything else is fitted line by line.
    let j = i;
    while (!example && j < lines.length && prose(lines[j]!)) j++;
    if (j > i + 1 && lines.slice(i, j).some((l) => l.length > width)) {
      out.push(fitLine(lines.slice(i, j).join(" "), width, false));
      i = j;
    } else {
      out.push(fitLine(line, width, example));
      i++;
    }
  }
  return out.join("\n");
}

/**
 * A command's name with every alias (`projects|project|p`): commander's help shows the first alias
 * only, so the Commands table and the usage line are built here (record 0133).
 */
export const namedWithAliases = (cmd: Command): string => [cmd.name(), ...cmd.aliases()].join("|");

/** The help terms with every alias: passed to configureHelp before the commands are declared (they inherit it). */
export const helpTerms = {
  subcommandTerm: (cmd: Command): string =>
    [
      namedWithAliases(cmd),
      cmd.options.length ? "[options]" : "",
      ...cmd.registeredArguments.map((a) => (a.required ? `<${a.name()}${a.variadic ? "..." : ""}>` : `[${a.name()}${a.variadic ? "..." : ""}]`)),
    ]
      .filter(Boolean)
      .join(" "),
  commandUsage: (cmd: Command): string => {
    const ancestors: string[] = [];
    for (let p = cmd.parent; p; p = p.parent) ancestors.unshift(p.name());
    return [...ancestors, namedWithAliases(cmd), cmd.usage()].join(" ");
  },
};
