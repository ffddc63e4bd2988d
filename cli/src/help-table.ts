// The top-level help (`ideally --help`, `-h`) from a table, without commander (issue 38: start-up
// within 2x of a compiled hello-world; importing commander alone costs more than that). The table
// (help-table.generated.ts) is generated from the command tree by scripts/generate-cli-help.ts and
// tests/cli/top-help.test.ts checks it is not stale. The layout below is commander 15's
// Help.formatHelp with no styling (program.ts configures none): the same test compares the two at
// every width from 1 to 200, and the whole output with `ideally help`'s.
import { fitHelp } from "./help-fit.ts";

/** A program's help as commander would lay it out: every string as commander's Help methods return it. */
export interface HelpTable {
  /** Help.commandUsage: `ideally [options] [command]`. */
  usage: string;
  description: string;
  /** Arguments, option groups and command groups in commander's order: [term, description] each. */
  sections: { heading: string; items: [string, string][] }[];
  /** What addHelpText adds before and after the help, as written (each ends with a newline). */
  before: string[];
  after: string[];
}

// commander's Help: minWidthToWrap, the item indent and the spacer between term and description.
const MIN_WIDTH_TO_WRAP = 40;
const ITEM_INDENT = 2;
const SPACER = 2;

/** Help.boxWrap: wrapped at whitespace to `width`, line breaks kept; nothing below 40. */
function boxWrap(str: string, width: number): string {
  if (width < MIN_WIDTH_TO_WRAP) return str;
  const wrapped: string[] = [];
  for (const line of str.split(/\r\n|\n/)) {
    const chunks = line.match(/[\s]*[^\s]+/g);
    if (chunks === null) {
      wrapped.push("");
      continue;
    }
    let sum = [chunks[0]!];
    let sumWidth = chunks[0]!.length;
    for (const chunk of chunks.slice(1)) {
      if (sumWidth + chunk.length <= width) {
        sum.push(chunk);
        sumWidth += chunk.length;
        continue;
      }
      wrapped.push(sum.join(""));
      const next = chunk.trimStart();
      sum = [next];
      sumWidth = next.length;
    }
    wrapped.push(sum.join(""));
  }
  return wrapped.join("\n");
}

/** Help.formatItem: the term padded, the description wrapped under its column (a preformatted one left alone). */
function formatItem(term: string, termWidth: number, description: string, helpWidth: number): string {
  const indent = " ".repeat(ITEM_INDENT);
  if (!description) return indent + term;
  const remaining = helpWidth - termWidth - SPACER - ITEM_INDENT;
  const text = remaining < MIN_WIDTH_TO_WRAP || /\n[^\S\r\n]/.test(description) ? description : boxWrap(description, remaining).replace(/\n/g, `\n${" ".repeat(termWidth + SPACER)}`);
  return `${indent}${term.padEnd(termWidth)}${" ".repeat(SPACER)}${text.replace(/\n/g, `\n${indent}`)}`;
}

/** Help.formatHelp for the table at `helpWidth` (commander's default 80 when no width is known). */
export function formatHelpTable(table: HelpTable, helpWidth: number): string {
  const termWidth = Math.max(0, ...table.sections.flatMap((s) => s.items.map(([term]) => term.length)));
  const out = [`Usage: ${table.usage}`, ""];
  if (table.description.length > 0) out.push(boxWrap(table.description, helpWidth), "");
  for (const s of table.sections) if (s.items.length) out.push(s.heading, ...s.items.map(([term, d]) => formatItem(term, termWidth, d, helpWidth)), "");
  return out.join("\n");
}

/**
 * The whole help as the program prints it: commander's writes (the text added before, the help,
 * the text added after), each fitted to the terminal and printed as program.ts's writeOut does.
 */
export function helpText(table: HelpTable, width: number | undefined): string {
  return [...table.before, formatHelpTable(table, width ?? 80), ...table.after].map((s) => `${fitHelp(s, width).replace(/\n$/, "")}\n`).join("");
}
