// The lookups a project file needs: `ideally markets`, `targets [--market M]`, `categories`,
// `frameworks`, `industries`. Each prints a table (names as a project file takes them) or --json.
import { PROJECT_TYPES } from "@ideally/contracts/labels";
import { usageError } from "../../errors.ts";
import { findMarket, industries, readCategories, readFrameworks, readMarkets, readTargetOptions } from "../../lookups.ts";
import { printJson, table } from "../../output.ts";
import { pageHint, pagingOf, slicePage, type PageOptions, type Paging } from "../../paging.ts";
import { signedIn, type GlobalOptions } from "../../session.ts";
import { FRAMEWORKS } from "../projects/file.ts";

// Reference lists are shown whole unless --limit asks for pages: a project file needs all of them.
type LookupOptions = GlobalOptions & PageOptions;

/** The asked page of a lookup, with the hint on stderr when rows are left out. */
function page<T>(paging: Paging, rows: T[]): T[] {
  const p = slicePage(paging, rows);
  pageHint(paging, p.rows.length, p.total);
  return p.rows;
}

export interface MarketsOptions extends LookupOptions {
  states?: boolean;
}

export async function runMarkets(o: MarketsOptions): Promise<void> {
  const paging = pagingOf(o, null);
  const api = signedIn(o, { tenant: false });
  const all = await readMarkets(api.client);
  const rows = page(paging, o.states ? all : all.filter((m) => !m.isUsState));
  if (o.json) return printJson(rows);
  process.stdout.write(
    `${table(
      ["id", "code", "name", "currency", "parent"],
      rows.map((m) => [String(m.id), m.code, m.name, m.currency, m.parentId == null ? "" : (all.find((p) => p.id === m.parentId)?.code ?? String(m.parentId))]),
    )}\n`,
  );
  if (!o.states) process.stderr.write(`${all.length - rows.length} US state markets not shown (--states)\n`);
}

export interface TargetsOptions extends LookupOptions {
  market?: string;
}

export async function runTargets(o: TargetsOptions): Promise<void> {
  const paging = pagingOf(o, null);
  const api = signedIn(o, { tenant: false });
  const [markets, options] = await Promise.all([readMarkets(api.client), readTargetOptions(api.client)]);
  let rows = options;
  if (o.market !== undefined) {
    const m = findMarket(markets, o.market);
    if (!m) throw usageError(`--market: no market '${o.market}' (see \`ideally markets\`)`);
    rows = options.filter((x) => x.marketId === null || x.marketId === m.id);
  } else {
    // Without --market the options of every market but the US states' copies.
    const states = new Set(markets.filter((m) => m.isUsState).map((m) => m.id));
    rows = options.filter((x) => x.marketId === null || !states.has(x.marketId));
  }
  rows = page(paging, rows);
  const code = (id: number | null) => (id === null ? "all" : (markets.find((m) => m.id === id)?.code ?? String(id)));
  if (o.json) return printJson(rows.map((x) => ({ ...x, market: x.marketId === null ? null : code(x.marketId) })));
  process.stdout.write(
    `${table(
      ["id", "question", "answer", "market"],
      rows.map((x) => [String(x.id), x.question, x.label, code(x.marketId)]),
    )}\n`,
  );
}

export async function runCategories(o: LookupOptions): Promise<void> {
  const paging = pagingOf(o, null);
  const api = signedIn(o, { tenant: false });
  const all = await readCategories(api.client);
  // Children under their parent, indented (pages follow this order).
  const ordered = all.filter((c) => c.parentId === null).flatMap((p) => [p, ...all.filter((c) => c.parentId === p.id)]);
  const rows = page(paging, [...ordered, ...all.filter((c) => !ordered.includes(c))]);
  if (o.json) return printJson(rows);
  process.stdout.write(
    `${table(
      ["id", "name", "industry"],
      rows.map((c) => [String(c.id), c.parentId === null ? c.name : `  ${c.name}`, c.industry ?? ""]),
    )}\n`,
  );
}

export async function runFrameworks(o: LookupOptions): Promise<void> {
  const paging = pagingOf(o, null);
  const api = signedIn(o, { tenant: false });
  const rows = page(
    paging,
    (await readFrameworks(api.client)).map((f) => ({
      ...f,
      name: Object.keys(FRAMEWORKS).find((k) => FRAMEWORKS[k] === f.id) ?? null,
      projectType: PROJECT_TYPES[f.projectTypeId] ?? String(f.projectTypeId),
    })),
  );
  if (o.json) return printJson(rows);
  process.stdout.write(
    `${table(
      ["id", "name", "type", "title"],
      rows.map((f) => [String(f.id), f.name ?? "", f.projectType, f.title]),
    )}\n`,
  );
}

export async function runIndustries(o: LookupOptions): Promise<void> {
  const paging = pagingOf(o, null);
  const rows = page(paging, industries());
  if (o.json) return printJson(rows);
  process.stdout.write(
    `${table(
      ["code", "name"],
      rows.map((i) => [i.code, i.name]),
    )}\n`,
  );
}
