// Paging for every list command: --limit N (rows per page), --page P (from 1), --all (every row).
// When rows are left out, one hint line goes to stderr ("showing 1-50 of 312; ..."), never to
// stdout, so `ideally projects list --json | jq` and `| wc -l` see only the rows.
import { Option, type Command } from "commander";
import { usageError } from "./errors.ts";

export interface PageOptions {
  limit?: string;
  page?: string;
  all?: boolean;
  /** The old name of --limit, still accepted (hidden from --help). */
  top?: string;
}

export interface Paging {
  /** Rows per page; null with --all (or a list shown whole by default). */
  limit: number | null;
  /** Rows before this page. */
  skip: number;
}

/** The server's largest page ($top): --all and large limits read in pages of this size. */
export const SERVER_PAGE = 1000;

/** Adds --limit, --page and --all to a list command; `byDefault` is its page size (null: all rows). */
export function pagingOptions(cmd: Command, byDefault: number | null): Command {
  return cmd
    .option("--limit <n>", `rows per page, 1-${SERVER_PAGE}${byDefault === null ? " (default: all)" : ` (default ${byDefault})`}`)
    .option("--page <n>", "which page, from 1 (default 1)")
    .option("--all", "every row, however many")
    .addOption(new Option("--top <n>", "same as --limit").hideHelp());
}

/** Checks the paging options (exit 1 for a bad value) against the command's default page size. */
export function pagingOf(o: PageOptions, byDefault: number | null): Paging {
  const whole = (v: string, name: string, max: number) => {
    if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > max) throw usageError(`${name}: expected a whole number from 1 to ${max}, got '${v}'`);
    return Number(v);
  };
  if (o.limit !== undefined && o.top !== undefined) throw usageError("--limit and --top are the same option: give one");
  const given = o.limit ?? o.top;
  const name = o.limit !== undefined ? "--limit" : "--top";
  if (o.all && (given !== undefined || o.page !== undefined)) throw usageError("--all reads every row: it does not go with --limit or --page");
  const limit = o.all ? null : given !== undefined ? whole(given, name, SERVER_PAGE) : byDefault;
  const page = o.page !== undefined ? whole(o.page, "--page", 1_000_000) : 1;
  if (limit === null && page > 1) throw usageError("--page needs --limit (this list is shown whole by default)");
  return { limit, skip: limit === null ? 0 : (page - 1) * limit };
}

/** One server page: its rows and, when asked with $count=true, the total. */
export type PageReader<T> = (top: number, skip: number) => Promise<{ rows: T[]; total: number | null }>;

/** Reads the asked page from the server, or every page with --all. */
export async function readPaged<T>(p: Paging, read: PageReader<T>): Promise<{ rows: T[]; total: number | null }> {
  if (p.limit !== null) return read(p.limit, p.skip);
  const rows: T[] = [];
  let total: number | null = null;
  for (let skip = 0; ; skip += SERVER_PAGE) {
    const page = await read(SERVER_PAGE, skip);
    rows.push(...page.rows);
    total = page.total ?? total;
    if (page.rows.length < SERVER_PAGE || (total !== null && rows.length >= total)) break;
  }
  return { rows, total: rows.length };
}

/** The page of a list the CLI already holds whole (lookups, clients). */
export function slicePage<T>(p: Paging, all: T[]): { rows: T[]; total: number } {
  return { rows: p.limit === null ? all : all.slice(p.skip, p.skip + p.limit), total: all.length };
}

/**
 * The hint line on stderr when the page is not the whole list: "showing 51-100 of 312; --page 3
 * for the next, --all for everything". Nothing when every row is shown.
 */
export function pageHint(p: Paging, shown: number, total: number | null): void {
  const from = p.skip + 1;
  const to = p.skip + shown;
  if (p.limit === null) return;
  const more = total === null ? shown === p.limit : to < total;
  if (!more && p.skip === 0) return;
  if (shown === 0) {
    process.stderr.write(`no rows on page ${p.skip / p.limit + 1}${total === null ? "" : ` (${total} in all)`}\n`);
    return;
  }
  const page = p.skip / p.limit + 1;
  const next = more ? `--page ${page + 1} for the next, ` : "";
  process.stderr.write(`showing ${from}-${to}${total === null ? "" : ` of ${total}`}; ${next}--all for everything\n`);
}
