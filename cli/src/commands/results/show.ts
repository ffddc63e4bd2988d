// `ideally results ID`: the top-2-box table per measure and test option (QualResults) with the
// benchmark difference and significance marks, the verdict on the action standard (Scorecard: the
// same view, the page's words), then the price points (PriceSensitivityResults) and
// the best reach per set size (MarketReachResults) where the project has those set-ups, then every
// other closed question (custom, screener, follow-up; a Question project has only these) as its
// option shares per test option (QualResults with projectQuestionId), and the open questions'
// ids for `results verbatims`. Respondents of the simulated panel are said first, in the API's words
// (Projects SimulatedRespondents). A project that has not fielded is refused in one line (exit 2).
import { benchmarkArg, idArg } from "../../args.ts";
import { usageError } from "../../errors.ts";
import { checkFilters, filterParam, filtersFor } from "../../filters.ts";
import { bold, dim, fit, fmt, note, pct, printJson, summary, table, warn } from "../../output.ts";
import { fieldedProject } from "../../fielded.ts";
import { ok, signedIn, type Api, type GlobalOptions } from "../../session.ts";
import { DEFAULT_BENCHMARK_TYPE } from "@ideally/contracts/results-view";

export interface ResultsOptions extends GlobalOptions {
  filter?: string[];
  segment?: string;
  benchmark?: string;
  confidence?: string;
  total?: string;
}

/** QualResults as the typed client answers it. */
async function readQual(
  api: Api,
  query: { projectId: string; filters?: string; benchmarkTypeId?: string; confidence?: "90" | "95" | "99"; projectQuestionId?: string; total?: "sample" | "markets" },
  id: string,
) {
  return ok(await api.client.GET("/api/v1/Responses/QualResults", { params: { query } }), `reading the results of project ${id}`);
}
type Qual = Awaited<ReturnType<typeof readQual>>;

/** The verdict on the project's action standard for the same view (Responses/Scorecard); null for a project without a scaled measure (404). */
async function readVerdict(api: Api, query: { projectId: string; filters?: string; benchmarkTypeId?: string; confidence?: "90" | "95" | "99"; total?: "sample" | "markets" }, id: string) {
  const r = await api.client.GET("/api/v1/Responses/Scorecard", { params: { query } });
  if (r.response.status === 404) return null;
  return ok(r, `reading the verdict of project ${id}`);
}
type Verdict = NonNullable<Awaited<ReturnType<typeof readVerdict>>>;

/** DOMAIN.md's words for the decisions, as the page, the deck and the workbook write them. */
const DECISION: Record<Verdict["rows"][number]["verdict"], string> = { go: "Go", consider: "Consider", "no-go": "No go" };

/** The verdict: its one sentence, the concepts ranked by the paired tests with their decisions, and why (wrapped, never cut). */
export function verdictText(v: Verdict, names: Map<number, { text: string; letter: string }>): string {
  const against = v.judgedAgainst === "others" ? "every other concept" : "the benchmark";
  const label = (id: number | null) => (id == null ? "all" : `${names.get(id)?.letter ?? "?"} ${names.get(id)?.text ?? id}`);
  const rows = v.rows.map((r) => [String(r.rank), label(r.testOptionId), `${DECISION[r.verdict]}${r.firm ? "" : " †"}`, pct(r.top2)]);
  return [
    bold(fit(`Verdict (action standard: ${v.standard.title} top-2-box significantly above ${against})`)),
    note(v.headline),
    table(["rank", "test option", "decision", "top-2"], rows),
    ...v.rows.map((r) => note(`${r.testOptionId == null ? "all" : (names.get(r.testOptionId)?.letter ?? "?")}: ${r.reason}`)),
    ...(v.rows.some((r) => !r.firm)
      ? [dim(note("† not a tested verdict (a low base, an indicative norm, or nothing to test against); ranks count the options significantly ahead in the paired tests"))]
      : [dim(note("ranks count the options significantly ahead in the paired tests"))]),
  ].join("\n");
}
type QuestionResults = NonNullable<Qual["question"]>;

/** The project's questions besides the standard measures: closed ones get option results, open ones are listed. */
async function readQuestions(api: Api, key: string, measured: Set<number>, query: { projectId: string; filters?: string; total?: "sample" | "markets" }) {
  const pqs = ok(
    await api.client.GET("/api/v1/ProjectQuestions", {
      params: {
        query: {
          $filter: `projectId eq ${key}`,
          $select: "id,standardQuestionId,questionPositionId",
          $expand: "question($select=questionText,questionTypeId)",
          $orderby: "questionPositionId,sortOrder,id",
        },
      },
    }),
    "reading the questions",
  ).value.filter((q) => q!.standardQuestionId == null || !measured.has(q!.standardQuestionId));
  const open = pqs.filter((q) => q!.question?.questionTypeId === 3).map((q) => ({ projectQuestionId: q!.id!, questionText: q!.question?.questionText ?? "" }));
  const closed = pqs.filter((q) => q!.question?.questionTypeId !== 3);
  const questions: QuestionResults[] = [];
  for (const q of closed) {
    const r = await readQual(api, { ...query, projectQuestionId: String(q!.id) }, key);
    if (r.question) questions.push(r.question);
  }
  return { questions, openQuestions: open };
}

/** Option letters (A, B, ...) for the "significantly above" column, by test option order. */
export const letter = (i: number) => String.fromCharCode(65 + (i % 26)) + (i >= 26 ? String(Math.floor(i / 26)) : "");

export async function runResults(id: string, o: ResultsOptions): Promise<void> {
  const key = idArg(id);
  if (o.benchmark !== undefined) benchmarkArg(o.benchmark);
  checkFilters(o);
  if (o.confidence !== undefined && !["90", "95", "99"].includes(o.confidence)) throw usageError(`--confidence: expected 90, 95 or 99, got '${o.confidence}'`);
  if (o.total !== undefined && o.total !== "sample" && o.total !== "markets") throw usageError(`--total: expected sample or markets, got '${o.total}'`);
  // The measures' and the questions' total: markets is the all-markets total (each market reweighted to its population share).
  const total = o.total === "markets" ? { total: "markets" as const } : {};
  const api = signedIn(o);
  const project = await fieldedProject(api, key, "results yet", "results follow fielding");
  const filters = await filtersFor(api, o);
  const q = { projectId: key, ...filterParam(filters) };
  const view = { ...q, ...total, benchmarkTypeId: o.benchmark ?? String(DEFAULT_BENCHMARK_TYPE), ...(o.confidence ? { confidence: o.confidence as "95" } : {}) };
  const [qual, verdict, options, price, reach, simulated] = await Promise.all([
    readQual(api, view, id),
    readVerdict(api, view, id),
    api.client
      .GET("/api/v1/TestOptions", { params: { query: { $filter: `projectId eq ${key}`, $select: "id,conceptText", $orderby: "sortOrder,id" } } })
      .then((r) => ok(r, "reading the test options").value),
    api.client.GET("/api/v1/Responses/PriceSensitivityResults", { params: { query: q } }).then((r) => ok(r, "reading the price sensitivity")),
    // A project without a market reach set-up answers 404, one whose set-up has no items 409: no
    // reach section (the 409 said on stderr), the rest of the results still shown.
    api.client.GET("/api/v1/Responses/MarketReachResults", { params: { query: q } }).then((r) => {
      if (r.response.status === 404) return null;
      if (r.response.status === 409) {
        warn(`no market reach: ${r.error?.message ?? "its set-up is incomplete"}`);
        return null;
      }
      return ok(r, "reading the market reach");
    }),
    // Whether the view's respondents are the simulated panel's, in the API's words (issue 36).
    api.client.GET("/api/v1/Projects({key})/SimulatedRespondents", { params: { path: { key }, query: filterParam(filters) } }).then((r) => ok(r, "reading whether the respondents are simulated")),
  ]);
  const names = new Map(options.map((t, i) => [t!.id!, { text: t!.conceptText!, letter: letter(i) }]));
  const priced = price.value.filter((v) => v.n > 0);
  const { questions, openQuestions } = await readQuestions(api, key, new Set(qual.measures.map((m) => m.standardQuestionId)), { ...q, ...total });
  if (o.json) return printJson({ filters, simulated, qual, verdict, priceSensitivity: priced.length ? price : null, marketReach: reach, questions, openQuestions });

  if (simulated.words) process.stdout.write(`${note(simulated.words)}\n\n`);
  if (qual.measures.length) {
    process.stdout.write(`${bold(fit(`Top-2-box (${qual.confidence}% confidence; benchmark ${qual.benchmarkTypeId ?? "none"}${qual.total === "markets" ? "; all-markets total" : ""})`))}\n`);
    process.stdout.write(`${qualTable(qual, names)}\n`);
    process.stdout.write(`${dim(note("* significant difference from the benchmark; letters: significantly above those options; (small base) n_eff under 30"))}\n`);
    if (verdict?.rows.length) process.stdout.write(`\n${verdictText(verdict, names)}\n`);
  } else {
    process.stdout.write(`${fit(`${project.projectName} (${project.projectType ?? "project"}: no standard measures; its results are its questions)`)}\n`);
  }
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
  if (reach?.byK.length) {
    process.stdout.write(`\n${bold("Market reach: the best set of each size")} ${dim(`(${reach.respondents} respondents, reached = accepts at least ${reach.reachDepth})`)}\n`);
    process.stdout.write(
      `${table(
        ["k", "reach", "frequency", "items"],
        reach.byK.filter((k) => k.sets.length).map((k) => [String(k.k), pct(k.sets[0].reach), fmt(k.sets[0].frequency, 2), k.sets[0].items.join(" + ")]),
      )}\n`,
    );
  }
  for (const question of questions) process.stdout.write(`\n${questionTable(question, names)}\n`);
  if (openQuestions.length) {
    process.stdout.write(`\n${note(`Open questions (answers: ideally results verbatims ${key} --question ID)`)}\n`);
    process.stdout.write(
      `${table(
        ["question", "text"],
        openQuestions.map((x) => [String(x.projectQuestionId), x.questionText]),
      )}\n`,
    );
  }
}

const TYPE_NAMES: Record<number, string> = { 1: "single choice", 2: "multiple choice", 4: "dropdown" };

/** A closed question: each answer's weighted share per test option (columns), with the bases. */
export function questionTable(question: QuestionResults, names: Map<number, { text: string; letter: string }>): string {
  const cols = question.results.map((r) => `${r.testOptionId == null ? "all" : (names.get(r.testOptionId)?.letter ?? String(r.testOptionId))} (n ${r.n})`);
  const title = `${question.questionTitle ? `${question.questionTitle}: ` : ""}${question.questionText}`;
  const head = fit(`${title} (question ${question.projectQuestionId}, ${TYPE_NAMES[question.questionTypeId] ?? `type ${question.questionTypeId}`})`);
  const rows = question.options.map((opt) => [opt.text, ...question.results.map((r) => (r.n > 0 ? pct(r.options.find((x) => x.questionOptionId === opt.id)?.share ?? 0) : "–"))]);
  return `${head}\n${table(["answer", ...cols], rows)}`;
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
