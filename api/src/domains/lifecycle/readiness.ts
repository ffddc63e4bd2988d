// The pre-launch check: what a Draft still lacks before it can be submitted. Submit refuses an
// incomplete test with these problems BEFORE it charges anything (400, one field error each), and
// Projects({key})/ReadinessCheck lists them for the editor, each naming the editor tab that fixes
// it. Quota feasibility is fielding's (quotas.ts, its own check at Submit); the editor's list
// includes it. A market the panel cannot fill in a field period (estimate.ts, the same computation
// as IncidenceEstimate) is listed too, as a problem that does not block: Submit refuses it with a 409
// unless the team accepts the shortfall (docs/project-lifecycle.md "Feasibility before money").
import type { Tx } from "../../db/client.ts";
import type { FieldError } from "../../errors.ts";
import { projectQuotaProblems } from "../fielding/quotas.ts";
import { fieldPeriodDaysOf } from "../fielding/field-period.ts";
import { SHORTFALL_REFUND_RULE } from "../credits/ledger.ts";
import { estimateIn, shortfallsOf, shortfallWords as marketShortfallWords, type MarketShortfall } from "./estimate.ts";
import { cellShortfallWords, cellShortfalls, explainProject, type CellShortfall } from "./explain.ts";

/** The editor tab where a problem is fixed (web: /{clientId}/projects/{id}/{tab}). */
export type ReadinessTab = "setup" | "markets" | "test-options" | "questions" | "add-ons" | "scheduling";

export interface ReadinessProblem {
  /** A stable code (the field error's path). */
  code: "testOptions" | "questions" | "regions" | "marketReach.testOptions" | "priceSensitivity.currencyCode" | "priceSensitivity.testOptions" | "quotas" | "feasibility";
  message: string;
  tab: ReadinessTab;
  /**
   * true: Submit refuses (400) until it is fixed. false: a market that will fall short
   * ("feasibility"): Submit refuses it (409) unless its body accepts the shortfall.
   */
  blocking: boolean;
}

/** Project types whose respondents rate test options (Idea, Message, Npd); Question projects ask questions only. */
const TESTS_OPTIONS = new Set([1, 2, 4]);
/** The market reach framework (SPEC 3). */
const MARKET_REACH_FRAMEWORK = 1020;
/** TURF combines items: one item reaches what it reaches, there is nothing to combine. */
export const MIN_REACH_ITEMS = 2;

interface Facts {
  testOptions: number;
  questions: number;
  regions: number;
  currencies: string[];
  priceCurrencies: string[];
  priceOnMissingOptions: number;
  reach: { fromTestOptions: boolean; liveItems: number } | null;
}

async function facts(tx: Tx, projectId: number): Promise<Facts> {
  const [f] = await tx<Facts[]>`
    select
      (select count(*)::int from test_options where project_id = ${projectId} and deleted_at is null) as "testOptions",
      (select count(*)::int from project_questions where project_id = ${projectId} and deleted_at is null) as questions,
      (select count(*)::int from projects_regions where project_id = ${projectId}) as regions,
      (select coalesce(array_agg(distinct r.currency_code order by r.currency_code), '{}')
         from projects_regions pr join regions r on r.id = pr.region_id where pr.project_id = ${projectId}) as currencies,
      (select coalesce(array_agg(distinct s.currency_code order by s.currency_code), '{}')
         from project_price_sensitivities s where s.project_id = ${projectId}) as "priceCurrencies",
      (select count(*)::int from project_price_sensitivities s left join test_options t on t.id = s.test_option_id
         where s.project_id = ${projectId} and s.test_option_id is not null and (t.id is null or t.deleted_at is not null)) as "priceOnMissingOptions",
      (select json_build_object(
                'fromTestOptions', m.question_id is null,
                'liveItems', (select count(*) from project_market_reach_options i left join test_options t on t.id = i.test_option_id
                              where i.project_market_reach_id = m.id and (i.test_option_id is null or t.deleted_at is null)))
         from project_market_reach m where m.project_id = ${projectId}) as reach`;
  return f!;
}

/**
 * The problems of a project's set-up, in the editor's tab order; empty when it can be submitted.
 * opts.quotas adds fielding's quota feasibility (quotas.ts) for the editor's list; Submit leaves it
 * out here because it refuses infeasible quotas itself, with each quota group's own field error.
 */
export async function readinessProblems(tx: Tx, p: { id: number; projectTypeId: number; frameworkId: number | null }, opts: { quotas?: boolean } = {}): Promise<ReadinessProblem[]> {
  const f = await facts(tx, p.id);
  const out: ReadinessProblem[] = [];
  if (f.regions === 0) out.push({ code: "regions", message: "Choose at least one market.", tab: "markets", blocking: true });
  if (TESTS_OPTIONS.has(p.projectTypeId) && f.testOptions === 0) {
    out.push({ code: "testOptions", message: "Add at least one test option: respondents have nothing to rate.", tab: "test-options", blocking: true });
  }
  if (p.projectTypeId === 3 && f.questions === 0) out.push({ code: "questions", message: "Add at least one question.", tab: "questions", blocking: true });
  const reachOnOptions = p.frameworkId === MARKET_REACH_FRAMEWORK || (f.reach?.fromTestOptions ?? false);
  const reachItems = f.reach?.fromTestOptions ? Math.min(f.reach.liveItems, f.testOptions) : f.testOptions;
  if (reachOnOptions && f.testOptions > 0 && reachItems < MIN_REACH_ITEMS) {
    out.push({ code: "marketReach.testOptions", message: `Market reach combines test options: add at least ${MIN_REACH_ITEMS}.`, tab: "test-options", blocking: true });
  } else if (f.reach && !f.reach.fromTestOptions && f.reach.liveItems < MIN_REACH_ITEMS) {
    out.push({ code: "marketReach.testOptions", message: `Market reach needs at least ${MIN_REACH_ITEMS} answer options to combine.`, tab: "add-ons", blocking: true });
  }
  if (f.priceCurrencies.length) {
    if (f.currencies.length > 1) {
      out.push({
        code: "priceSensitivity.currencyCode",
        message: `Price questions are asked in one currency, but the markets use ${f.currencies.join(" and ")}: choose markets with one currency or remove price sensitivity.`,
        tab: "markets",
        blocking: true,
      });
    } else if (f.currencies.length === 1 && f.priceCurrencies.some((c) => c !== f.currencies[0])) {
      out.push({
        code: "priceSensitivity.currencyCode",
        message: `Price questions were set up in ${f.priceCurrencies.join(" and ")} but the markets use ${f.currencies[0]}: save price sensitivity again.`,
        tab: "add-ons",
        blocking: true,
      });
    }
    if (f.priceOnMissingOptions > 0)
      out.push({ code: "priceSensitivity.testOptions", message: "Price sensitivity names a test option that was removed: save price sensitivity again.", tab: "add-ons", blocking: true });
  }
  if (opts.quotas && f.regions > 0) {
    for (const q of await projectQuotaProblems(tx, p.id)) out.push({ code: "quotas", message: q.message, tab: "markets", blocking: true });
  }
  return out;
}

/** A design that will fall short, and what buying it anyway means. */
export interface ShortfallStatement {
  markets: MarketShortfall[];
  /** The quota cells (of one question, or crossed) a market cannot fill. */
  cells: CellShortfall[];
  /** Days each run fields from its launch before it closes with the completes it has. */
  fieldPeriodDays: number;
  /** The shortfall, the field period and the refund rule, in words. */
  message: string;
}

/**
 * The markets and quota cells of a project (with at least one market) that the panel cannot fill
 * in a field period, by the same estimate and explanation as IncidenceEstimate, with the field
 * period and the refund rule; null when every market and cell can be filled (or its reach is
 * unknown: a customer panel).
 */
export async function shortfallOf(tx: Tx, projectId: number): Promise<ShortfallStatement | null> {
  const est = await estimateIn(tx, projectId);
  const markets = shortfallsOf(est.regions);
  const cells = cellShortfalls(await explainProject(tx, projectId, est));
  if (!markets.length && !cells.length) return null;
  const days = await fieldPeriodDaysOf(tx, projectId);
  const words = shortfallWords(markets, cells);
  return { markets, cells, fieldPeriodDays: days, message: `${words[0]!.toUpperCase()}${words.slice(1)}. ${shortfallTerms(days)}` };
}

/** The markets' then the cells' shortfalls in words: "about 2 of 5,000 completes can be delivered in New Zealand; the quota cell ...". */
export const shortfallWords = (markets: readonly MarketShortfall[], cells: readonly CellShortfall[]) =>
  [...(markets.length ? [marketShortfallWords(markets)] : []), ...cells.map(cellShortfallWords)].join("; ");

/** What buying a design that falls short means: the field period and the refund rule. */
export const shortfallTerms = (days: number) => `Each run fields for ${days} day${days === 1 ? "" : "s"} from its launch, then closes with the completes it has; ${SHORTFALL_REFUND_RULE}.`;

/**
 * ReadinessCheck's list: the blocking problems with quota feasibility, then one non-blocking
 * "feasibility" problem per market that will fall short (its markets-tab words) and per quota cell
 * that will, and the statement.
 */
export async function preLaunchCheck(tx: Tx, p: { id: number; projectTypeId: number; frameworkId: number | null }): Promise<{ problems: ReadinessProblem[]; shortfall: ShortfallStatement | null }> {
  const problems = await readinessProblems(tx, p, { quotas: true });
  const shortfall = problems.some((x) => x.code === "regions") ? null : await shortfallOf(tx, p.id);
  for (const m of [...(shortfall?.markets ?? []), ...(shortfall?.cells ?? [])]) problems.push({ code: "feasibility", message: m.text, tab: "markets", blocking: false });
  return { problems, shortfall };
}

/** The problems as the API's field errors (Submit's 400). */
export const asFieldErrors = (problems: ReadinessProblem[]): FieldError[] => problems.map((x) => ({ path: x.code, message: x.message }));
