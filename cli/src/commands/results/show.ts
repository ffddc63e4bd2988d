// `ideally results ID`: the top-2-box table per measure and test option (QualResults) with the
// benchmark difference and significance marks, then the price points (PriceSensitivityResults) and
// the best reach per set size (MarketReachResults) where the project has those set-ups.
import { idArg } from "../../args.ts";
import { usageError } from "../../errors.ts";
import { filterParam, filtersFor } from "../../filters.ts";
import { bold, dim, fmt, pct, printJson, summary, table } from "../../output.ts";
import { ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";

export interface ResultsOptions extends GlobalOptions {
  filter?: string[];
  segment?: string;
  benchmark?: string;
  confidence?: string;
}

/** QualResults as the typed client answers it. */
async function readQual(api: Api, query: { projectId: string; filters?: string; benchmarkTypeId?: string; confidence?: "90" | "95" | "99" }, id: string) {
  return ok(await api.client.GET("/api/v1/Responses/QualResults", { params: { query } }), `reading the results of project ${id}`);
}
type Qual = Awaited<ReturnType<typeof readQual>>;

/** Option letters (A, B, ...) for the "significantly above" column, by test option order. */
export const letter = (i: number) => String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : "");

export async function runResults(id: string, o: ResultsOptions): Promise<void> {
  const key = idArg(id);
  if (o.benchmark !== undefined && !/^\d{1,2}$/.test(o.benchmark)) throw usageError(`--benchmark: expected a benchmark type id (1-10), got '${o.benchmark}'`);
  if (o.confidence !== undefined && !["90", "95", "99"].includes(o.confidence)) throw usageError(`--confidence: expected 90, 95 or 99, got '${o.confidence}'`);
  const api = signedIn(o);
  const filters = await filtersFor(api, o);
  const q = { projectId: key, ...filterParam(filters) };
  const [qual, options, price, reach] = await Promise.all([
    readQual(api, { ...q, benchmarkTypeId: o.benchmark ?? "1", ...(o.confidence ? { confidence: o.confidence as "95" } : {}) }, id),
    api.client
      .GET("/api/v1/TestOptions", { params: { query: { $filter: `projectId eq ${key}`, $select: "id,conceptText", $orderby: "sortOrder,id" } } })
      .then((r) => ok(r, "reading the test options").value),
    api.client.GET("/api/v1/Responses/PriceSensitivityResults", { params: { query: q } }).then((r) => ok(r, "reading the price sensitivity")),
    // A project without a market reach set-up answers 404: no reach section.
    api.client.GET("/api/v1/Responses/MarketReachResults", { params: { query: q } }).then((r) => (r.response.status === 404 ? null : ok(r, "reading the market reach"))),
  ]);
  const names = new Map(options.map((t, i) => [t!.id!, { text: t!.conceptText!, letter: letter(i) }]));
  const priced = price.value.filter((v) => v.n > 0);
  if (o.json) return printJson({ filters, qual, priceSensitivity: priced.length ? price : null, marketReach: reach });

  process.stdout.write(`${bold("Top-2-box")} ${dim(`(${qual.confidence}% confidence; benchmark ${qual.benchmarkTypeId ?? "none"})`)}\n`);
  process.stdout.write(`${qualTable(qual, names)}\n`);
  process.stdout.write(dim("* significant difference from the benchmark; letters: significantly above those options; (small base) n_eff under 30\n"));
  for (const v of priced) {
    const sym = price.currencySymbol ?? "";
    const money = (x: number | null | undefined) => (x == null ? "–" : `${sym}${fmt(x, 2)}`);
    process.stdout.write(`\n${bold(`Price sensitivity${v.conceptText ? `: ${v.conceptText}` : ""}`)} ${dim(`(n ${v.n}, ${v.invalid} inconsistent left out; ${price.currencyCode ?? ""})`)}\n`);
    process.stdout.write(
      `${summary([
        ["optimal price (OPP)", money(v.opp)],
        ["indifference (IPP)", money(v.ipp)],
        ["acceptable range", v.acceptableRange ? `${money(v.acceptableRange[0])} – ${money(v.acceptableRange[1])}` : "–"],
        ...(v.trialOptimal ? ([["trial optimum (NMS)", `${money(v.trialOptimal.price)} (trial ${pct(v.trialOptimal.trial)})`]] as [string, string][]) : []),
        ...(v.revenueOptimal ? ([["revenue optimum (NMS)", `${money(v.revenueOptimal.price)} (trial ${pct(v.revenueOptimal.trial)})`]] as [string, string][]) : []),
      ])}\n`,
    );
  }
  if (reach && reach.byK.length) {
    process.stdout.write(`\n${bold("Market reach: the best set of each size")} ${dim(`(${reach.respondents} respondents, reached = accepts at least ${reach.reachDepth})`)}\n`);
    process.stdout.write(
      `${table(
        ["k", "reach", "frequency", "items"],
        reach.byK.filter((k) => k.sets.length).map((k) => [String(k.k), pct(k.sets[0].reach), fmt(k.sets[0].frequency, 2), k.sets[0].items.join(" + ")]),
      )}\n`,
    );
  }
}

export function qualTable(qual: Qual, names: Map<number, { text: string; letter: string }>): string {
  const rows: string[][] = [];
  for (const m of qual.measures) {
    m.results.forEach((r, i) => {
      const opt = r.testOptionId != null ? names.get(r.testOptionId) : undefined;
      const above = r.vsOthers
        .filter((x) => x.significant && x.diff > 0 && x.testOptionId != null)
        .map((x) => names.get(x.testOptionId!)?.letter ?? "?")
        .join("");
      const b = r.vsBenchmark;
      rows.push([
        i === 0 ? m.title : "",
        opt ? `${opt.letter} ${opt.text}` : "all",
        String(r.n),
        pct(r.top2),
        `${pct(r.ci[0])}–${pct(r.ci[1])}`,
        b ? `${b.diff >= 0 ? "+" : ""}${(b.diff * 100).toFixed(1)}${b.significant ? "*" : ""}` : "",
        above,
        r.smallBase ? "(small base)" : "",
      ]);
    });
  }
  return table(["measure", "test option", "n", "top-2", "interval", "vs bench", "above", ""], rows);
}
