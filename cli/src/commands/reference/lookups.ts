// The lookups a project file needs: `ideally markets`, `targets [--market M]`, `categories`,
// `frameworks`, `industries`. Each prints a table (names as a project file takes them) or --json.
import { PROJECT_TYPES } from "../../../../contracts/labels.ts";
import { usageError } from "../../errors.ts";
import { findMarket, industries, readCategories, readFrameworks, readMarkets, readTargetOptions } from "../../lookups.ts";
import { printJson, table } from "../../output.ts";
import { signedIn, type GlobalOptions } from "../../session.ts";
import { FRAMEWORKS } from "../projects/file.ts";

export interface MarketsOptions extends GlobalOptions {
  states?: boolean;
}

export async function runMarkets(o: MarketsOptions): Promise<void> {
  const api = signedIn(o, { tenant: false });
  const all = await readMarkets(api.client);
  const rows = o.states ? all : all.filter((m) => !m.isUsState);
  if (o.json) return printJson(rows);
  process.stdout.write(`${table(["id", "code", "name", "currency", "parent"], rows.map((m) => [String(m.id), m.code, m.name, m.currency, m.parentId == null ? "" : (all.find((p) => p.id === m.parentId)?.code ?? String(m.parentId))]))}\n`);
  if (!o.states) process.stderr.write(`${all.length - rows.length} US state markets not shown (--states)\n`);
}

export interface TargetsOptions extends GlobalOptions {
  market?: string;
}

export async function runTargets(o: TargetsOptions): Promise<void> {
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
  const code = (id: number | null) => (id === null ? "all" : (markets.find((m) => m.id === id)?.code ?? String(id)));
  if (o.json) return printJson(rows.map((x) => ({ ...x, market: x.marketId === null ? null : code(x.marketId) })));
  process.stdout.write(`${table(["id", "question", "answer", "market"], rows.map((x) => [String(x.id), x.question, x.label, code(x.marketId)]))}\n`);
}

export async function runCategories(o: GlobalOptions): Promise<void> {
  const api = signedIn(o, { tenant: false });
  const rows = await readCategories(api.client);
  if (o.json) return printJson(rows);
  // Children under their parent, indented.
  const ordered = rows.filter((c) => c.parentId === null).flatMap((p) => [p, ...rows.filter((c) => c.parentId === p.id)]);
  const orphans = rows.filter((c) => !ordered.includes(c));
  process.stdout.write(`${table(["id", "name", "industry"], [...ordered, ...orphans].map((c) => [String(c.id), c.parentId === null ? c.name : `  ${c.name}`, c.industry ?? ""]))}\n`);
}

export async function runFrameworks(o: GlobalOptions): Promise<void> {
  const api = signedIn(o, { tenant: false });
  const rows = (await readFrameworks(api.client)).map((f) => ({ ...f, name: Object.keys(FRAMEWORKS).find((k) => FRAMEWORKS[k] === f.id) ?? null, projectType: PROJECT_TYPES[f.projectTypeId] ?? String(f.projectTypeId) }));
  if (o.json) return printJson(rows);
  process.stdout.write(`${table(["id", "name", "type", "title"], rows.map((f) => [String(f.id), f.name ?? "", f.projectType, f.title]))}\n`);
}

export async function runIndustries(o: GlobalOptions): Promise<void> {
  if (o.json) return printJson(industries());
  process.stdout.write(`${table(["code", "name"], industries().map((i) => [i.code, i.name]))}\n`);
}
