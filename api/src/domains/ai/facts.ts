// Grounding: the figures an AI text may use, computed by the results functions and nothing else.
// Every figure gets a reference (F1, F2, ...), its text as it must be written ("62.3%", "n=120",
// "8.1 points", "$12.50") and its source: the results function, its arguments and the field, so
// anyone can recompute it (the tests do). Texts cite a figure by writing its text followed by its
// reference in brackets: "62.3% [F4]". The same facts go to both providers.
import type { Db } from "../../db/client.ts";
import { enterTenant, readAsCaller } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { twoProportionZTest } from "@ideally/analytics/significance";
import { qualResults, questionResults, type Measure } from "../results/results.service.ts";
import { resolveView } from "../results/view.ts";
import { simulatedWords, viewSimulated } from "../results/simulated.ts";
import { VERDICT_LABEL } from "../results/verdict.ts";
import { marketReachResults, priceSensitivityResults } from "../results/analysis.service.ts";
import { verbatim, themeResults } from "../results/verbatims.service.ts";
import { driverResults } from "../results/drivers.service.ts";
import type { SentimentLabel } from "@ideally/analytics/verbatims";
import type { ResponseFilter } from "../results/filters.ts";
import { ApiError } from "../../errors.ts";

export type FigureSource =
  | {
      fn: "QualResults";
      filters: ResponseFilter;
      benchmarkTypeId: number | null;
      standardQuestionId: number;
      testOptionId: number | null;
      field: "top2" | "n" | "vsBenchmark.diff" | "vsBenchmark.top2Percentage" | "vsOthers.diff";
      otherTestOptionId?: number | null;
      /** QualResults' total: markets, the all-markets total (markets weighted by population); absent: sample. */
      total?: "sample" | "markets";
    }
  /** a − b of two other figures (an audience skew: the group against the rest). */
  | { fn: "Difference"; a: string; b: string }
  | { fn: "PriceSensitivityResults"; filters: ResponseFilter; testOptionId: number | null; field: "opp" | "ipp" | "pmc" | "pme" }
  | { fn: "MarketReachResults"; filters: ResponseFilter; k: number; field: "reach" }
  /** An answer option's weighted share among the question's respondents (QuestionResults, the results function behind QualResults' per-question view). */
  | { fn: "QuestionResults"; filters: ResponseFilter; projectQuestionId: number; testOptionId: number | null; questionOptionId: number; field: "share"; total?: "sample" | "markets" }
  /** VerbatimCount with the theme over VerbatimCount without it (both of one test option's answers, of one sentiment, when given). */
  | { fn: "VerbatimCount"; filters: ResponseFilter; projectQuestionId: number; themeId: number; testOptionId?: number | null; sentiment?: SentimentLabel | null; field: "share" }
  /** A quoted answer (value: its id), one of the answers Verbatim lists under these arguments. */
  | { fn: "Verbatim"; filters: ResponseFilter; projectQuestionId: number; testOptionId: number | null; themeId: number | null; sentiment: SentimentLabel | null; answerId: number; field: "text" }
  /** A measure's Pratt importance in the driver analysis of a group (DriverResults). */
  | { fn: "DriverResults"; filters: ResponseFilter; testOptionId: number | null; standardQuestionId: number; field: "importance" }
  /** The view's respondents, or the simulated panel's among them (Projects SimulatedRespondents). */
  | { fn: "SimulatedRespondents"; filters: ResponseFilter; field: "respondents" | "simulated" };

export interface Figure {
  ref: string;
  text: string;
  value: number;
  source: FigureSource;
}

/** The figures of one text, numbered in the order they are added. */
export class FigureBook {
  readonly figures: Figure[] = [];
  add(text: string, value: number, source: FigureSource): Figure {
    const f = { ref: `F${this.figures.length + 1}`, text, value, source };
    this.figures.push(f);
    return f;
  }
  get(ref: string): Figure | undefined {
    return this.figures.find((f) => f.ref === ref);
  }
}

export const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
export const points = (x: number) => `${(Math.abs(x) * 100).toFixed(1)} points`;
export const money = (x: number, symbol: string | null) => `${symbol ?? ""}${x.toFixed(2)}`;
/** A figure as cited in a text. */
export const cite = (f: Pick<Figure, "text" | "ref">) => `${f.text} [${f.ref}]`;

/**
 * The view's simulated respondents in the words every face uses (results/simulated.ts), said once
 * by an AI text (issue 36), its counts cited as figures; null when none of them is simulated.
 */
export async function simulatedNote(db: Db, ctx: RequestCtx, book: FigureBook, projectId: number, filters: ResponseFilter): Promise<string | null> {
  const s = await viewSimulated(db, ctx, projectId, filters);
  return simulatedWords(s.simulated, s.respondents, (value, field) => cite(book.add(value.toLocaleString("en"), value, { fn: "SimulatedRespondents", filters, field })));
}

/** An AI text with the view's note on simulated respondents as its last paragraph (none: as it is). */
export function withNote(content: string, note: string | null): string {
  return note ? `${content}\n\n${note}` : content;
}

/** SPEC 9: the standard questions' order (5, 1, 4, 3, 2, 6, then the rest); the first present is the headline measure. */
export const MEASURE_ORDER = [5, 1, 4, 3, 2, 6];
export function orderMeasures<T extends { standardQuestionId: number }>(ms: T[]): T[] {
  const rank = (id: number) => (MEASURE_ORDER.includes(id) ? MEASURE_ORDER.indexOf(id) : MEASURE_ORDER.length);
  return [...ms].sort((a, b) => rank(a.standardQuestionId) - rank(b.standardQuestionId) || a.standardQuestionId - b.standardQuestionId);
}

/** SPEC 9: the default objective of every project. */
export const DEFAULT_OBJECTIVE = "Summarize the overall performance and highlight any significant audience skews in the results.";

export interface OptionFigures {
  testOptionId: number | null;
  name: string;
  top2: Figure;
  n: Figure;
  smallBase: boolean;
  /** indicative: the norm has too few projects to test against (docs/statistics.md). */
  /** lowBase: the option's n_eff is below the low base, so no test was made (docs/statistics.md). */
  vsBenchmark: { norm: Figure; diff: Figure; significant: boolean; indicative: boolean; lowBase: boolean; above: boolean } | null;
}

export interface MeasureFacts {
  standardQuestionId: number;
  title: string;
  /** Best first. */
  options: OptionFigures[];
  /** The leader against the runner-up. */
  /** lowBase: a side's n_eff is below the low base, so the lead was not tested. */
  lead: { diff: Figure; significant: boolean; lowBase: boolean } | null;
}

/** QualResults as figures: per measure, each option's top-2-box, base, and against the benchmark and the runner-up. */
export function measureFacts(
  book: FigureBook,
  measures: { standardQuestionId: number; title: string; results: Measure[] }[],
  names: Map<number | null, string>,
  src: { filters: ResponseFilter; benchmarkTypeId: number | null; total?: "sample" | "markets" },
): MeasureFacts[] {
  return orderMeasures(measures).map((m) => {
    const base = {
      fn: "QualResults" as const,
      filters: src.filters,
      benchmarkTypeId: src.benchmarkTypeId,
      standardQuestionId: m.standardQuestionId,
      ...(src.total === "markets" ? { total: "markets" as const } : {}),
    };
    const sorted = [...m.results].filter((r) => r.n > 0).sort((a, b) => b.top2 - a.top2 || (a.testOptionId ?? 0) - (b.testOptionId ?? 0));
    const options = sorted.map((r) => ({
      testOptionId: r.testOptionId,
      name: names.get(r.testOptionId) ?? "All respondents",
      top2: book.add(pct(r.top2), r.top2, { ...base, testOptionId: r.testOptionId, field: "top2" }),
      n: book.add(`n=${r.n}`, r.n, { ...base, testOptionId: r.testOptionId, field: "n" }),
      smallBase: r.smallBase,
      vsBenchmark: r.vsBenchmark
        ? {
            norm: book.add(`${r.vsBenchmark.top2Percentage.toFixed(1)}%`, r.vsBenchmark.top2Percentage, { ...base, testOptionId: r.testOptionId, field: "vsBenchmark.top2Percentage" }),
            diff: book.add(points(r.vsBenchmark.diff), r.vsBenchmark.diff, { ...base, testOptionId: r.testOptionId, field: "vsBenchmark.diff" }),
            significant: r.vsBenchmark.significant,
            indicative: r.vsBenchmark.indicative,
            lowBase: r.vsBenchmark.lowBase,
            above: r.vsBenchmark.diff >= 0,
          }
        : null,
    }));
    let lead: MeasureFacts["lead"] = null;
    if (sorted.length > 1) {
      const vs = sorted[0]!.vsOthers.find((o) => o.testOptionId === sorted[1]!.testOptionId)!;
      lead = {
        diff: book.add(points(vs.diff), vs.diff, { ...base, testOptionId: sorted[0]!.testOptionId, field: "vsOthers.diff", otherTestOptionId: sorted[1]!.testOptionId }),
        significant: vs.significant,
        lowBase: vs.lowBase,
      };
    }
    return { standardQuestionId: m.standardQuestionId, title: m.title, options, lead };
  });
}

export interface ProjectContext {
  projectId: number;
  projectName: string;
  clientId: number;
  projectTypeId: number;
  frameworkId: number | null;
  testOptions: { id: number; name: string }[];
  measures: { standardQuestionId: number; title: string }[];
  /** The filterable demographics of the project's markets (SPEC 3's always-shown filters first). */
  demographics: { systemQuestionId: number; label: string; code: string; options: { id: number; label: string }[] }[];
  regions: { id: number; name: string }[];
  /** Open questions (verbatims and themes). */
  textQuestions: { projectQuestionId: number; text: string }[];
  /** The team's own choice questions (segment, follow-up, custom). */
  choiceQuestions: { projectQuestionId: number; text: string }[];
  objective: string;
}

/** What a text about a project may refer to: names, measures, demographics, markets (no figures). */
export async function projectContext(db: Db, ctx: RequestCtx, projectId: number): Promise<ProjectContext> {
  return readAsCaller(db, ctx, async (tx) => {
    // One statement in one round trip (the tenant entry, it and the commit pipelined by
    // readAsCaller): the project's row with its lists as JSON arrays, each read by the project id
    // under the caller's row-level security; an unknown or deleted project has no row, and is refused.
    type Named = { id: number; name: string };
    type Question = { projectQuestionId: number; text: string };
    const [p] = await tx<
      {
        id: number;
        name: string;
        clientId: number;
        typeId: number;
        frameworkId: number | null;
        objective: string | null;
        testOptions: Named[];
        measures: { standardQuestionId: number; title: string }[];
        regions: Named[];
        rows: { sqId: number; label: string; code: string; id: number; optLabel: string }[];
        textQuestions: Question[];
        choiceQuestions: Question[];
      }[]
    >`
      select p.id, p.project_name as name, p.client_id as "clientId", p.project_type_id as "typeId", p.framework_id as "frameworkId", o.summary as objective,
        coalesce((select json_agg(json_build_object('id', t.id, 'name', t.concept_text) order by t.sort_order, t.id)
          from test_options t where t.project_id = p.id and t.deleted_at is null), '[]') as "testOptions",
        coalesce((select json_agg(json_build_object('standardQuestionId', m.id, 'title', m.title) order by m.id)
          from (select distinct s.id, s.title from project_questions pq join standard_questions s on s.id = pq.standard_question_id
                where pq.project_id = p.id and pq.deleted_at is null and s.is_scaled) m), '[]') as measures,
        coalesce((select json_agg(json_build_object('id', r.id, 'name', r.region_name) order by r.id)
          from projects_regions pr join regions r on r.id = pr.region_id where pr.project_id = p.id), '[]') as regions,
        coalesce((select json_agg(json_build_object('sqId', sq.id, 'label', sq.question_label, 'code', sq.question_code, 'id', so.id, 'optLabel', so.answer_label)
                    order by sq.sort_order, sq.id, so.sort_order, so.id)
          from system_question sq join system_question_option so on so.system_question_id = sq.id
          where sq.is_filterable and so.is_visible and (so.region_id is null or so.region_id in (select region_id from projects_regions where project_id = p.id))), '[]') as rows,
        coalesce((select json_agg(json_build_object('projectQuestionId', pq.id, 'text', q.question_text) order by pq.question_position_id, pq.sort_order, pq.id)
          from project_questions pq join questions q on q.id = pq.question_id
          where pq.project_id = p.id and pq.deleted_at is null and q.question_type_id = 3), '[]') as "textQuestions",
        coalesce((select json_agg(json_build_object('projectQuestionId', pq.id, 'text', q.question_text) order by pq.question_position_id desc, pq.sort_order, pq.id)
          from project_questions pq join questions q on q.id = pq.question_id
          where pq.project_id = p.id and pq.deleted_at is null and pq.standard_question_id is null and q.question_type_id in (1, 2, 4)
            and pq.question_position_id in (3, 6, 9)), '[]') as "choiceQuestions"
      from projects p left join project_objectives o on o.id = p.active_project_objective_id where p.id = ${projectId} and p.deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    const demographics: ProjectContext["demographics"] = [];
    for (const r of p.rows) {
      let d = demographics.find((x) => x.systemQuestionId === r.sqId);
      if (!d) {
        d = { systemQuestionId: r.sqId, label: r.label, code: r.code, options: [] };
        demographics.push(d);
      }
      d.options.push({ id: r.id, label: r.optLabel });
    }
    return {
      projectId: p.id,
      projectName: p.name,
      clientId: p.clientId,
      projectTypeId: p.typeId,
      frameworkId: p.frameworkId,
      testOptions: p.testOptions,
      measures: orderMeasures(p.measures),
      demographics,
      regions: p.regions,
      textQuestions: p.textQuestions,
      choiceQuestions: p.choiceQuestions,
      objective: p.objective ?? DEFAULT_OBJECTIVE,
    };
  });
}

export interface SkewFacts {
  demographic: string;
  group: string;
  testOption: string;
  measure: string;
  group2: Figure;
  rest: Figure;
  diff: Figure;
  significant: boolean;
}

export interface SummaryFacts {
  kind: "summary";
  projectName: string;
  objective: string;
  scope: string | null;
  /** The benchmark's description (SPEC 9), e.g. "all customers and historical data". */
  benchmarkName: string | null;
  /** Across several markets, whose total the figures are, in words (no figures): "the all-markets total, markets weighted by population". */
  total: string | null;
  measures: MeasureFacts[];
  skews: SkewFacts[];
  price: { name: string; currency: string | null; opp: Figure | null; ipp: Figure | null; pmc: Figure | null; pme: Figure | null }[];
  reach: { k: number; items: string[]; reach: Figure } | null;
  themes: { question: string; name: string; share: Figure; quote: string | null }[];
  /** The top answers of the team's own choice questions (all respondents, or the first test option's when split). */
  questions: { question: string; answers: { option: string; share: Figure }[] }[];
  /** The view's verdict on the action standard, in the words every output of the view uses (results/verdict.ts); null without a scaled measure. */
  verdict: { standard: string; headline: string; ranks: { name: string; rank: number; decision: string }[] } | null;
}

const SKEW_QUESTIONS = [45, 51]; // gender, age group: the audience splits every summary reads

/**
 * The facts of a project summary under a filter (a segment's, or none): measures with the
 * benchmark, audience skews of the headline measure (each group against the rest of the sample,
 * DOMAIN.md: never against a total that contains it), price points, the best reach set and the top
 * verbatim themes with a quote.
 */
export async function summaryFacts(
  db: Db,
  ctx: RequestCtx,
  pc: ProjectContext,
  book: FigureBook,
  opts: { filters: ResponseFilter; scope: string | null; benchmarkTypeId?: number | null; total?: "sample" | "markets" },
): Promise<SummaryFacts> {
  const filters = opts.filters;
  const benchmarkTypeId = opts.benchmarkTypeId === undefined ? 1 : opts.benchmarkTypeId;
  // The all-markets total (the web app's All markets) or every respondent at their own weight, for every QualResults figure.
  const total = opts.total ?? "sample";
  const names = new Map<number | null, string>(pc.testOptions.map((o) => [o.id, o.name]));
  // The view's figures, resolved as the page, the verdict and the exports resolve them (results/view.ts).
  const view = (benchmark: number | null) => resolveView(db, ctx, { projectId: pc.projectId, filters, benchmarkTypeId: benchmark, total });
  const resolved = await view(benchmarkTypeId).catch(async (e) => {
    // A project whose market has no norm yet: the same figures without a benchmark.
    if (e instanceof ApiError && e.code === "BadRequest") return view(null);
    throw e;
  });
  const qual = resolved.qual;
  const verdict: SummaryFacts["verdict"] =
    resolved.verdict && resolved.standard
      ? {
          standard: `${resolved.standard.title} top-2-box significantly above ${resolved.verdict.judgedAgainst === "others" ? "every other concept" : resolved.benchmark.name}`,
          headline: resolved.verdict.headline,
          ranks: resolved.verdict.rows.map((r) => ({ name: resolved.optionName(r.testOptionId), rank: r.rank, decision: VERDICT_LABEL[r.verdict] + (r.firm ? "" : ", not tested") })),
        }
      : null;
  const measures = measureFacts(book, qual.measures, names, { filters, benchmarkTypeId: qual.benchmarkTypeId, total });
  const severalMarkets = qual.allMarkets.shares.length > 1;
  const t = qual.allMarkets;
  const totalWords = !severalMarkets
    ? null
    : total === "markets"
      ? `the all-markets total, markets weighted by ${t.weighting}${t.note ? " (a market has no population figure)" : ""}`
      : "every respondent at their own weight (the sample-weighted total across markets)";
  const totalOf = total === "markets" ? { total: "markets" as const } : {};
  const benchmarkName =
    qual.benchmarkTypeId === 0
      ? "none: a flat line"
      : qual.benchmarkTypeId
        ? ((await enterTenant(db, ctx, (tx) => tx<{ name: string }[]>`select lower(description) as name from benchmark_types where id = ${qual.benchmarkTypeId}`))[0]?.name ?? null)
        : null;

  const skews: SkewFacts[] = [];
  const head = measures[0];
  if (head) {
    for (const d of pc.demographics.filter((x) => SKEW_QUESTIONS.includes(x.systemQuestionId))) {
      for (const o of d.options) {
        const others = d.options.filter((x) => x.id !== o.id).map((x) => x.id);
        const gf = { ...filters, filterIds: [...(filters.filterIds ?? []), o.id] };
        const rf = { ...filters, filterIds: [...(filters.filterIds ?? []), ...others] };
        const [g, r] = await Promise.all([
          qualResults(db, ctx, { projectId: pc.projectId, filters: gf, standardQuestionIds: [head.standardQuestionId], total }),
          qualResults(db, ctx, { projectId: pc.projectId, filters: rf, standardQuestionIds: [head.standardQuestionId], total }),
        ]);
        for (const gm of g.measures[0]?.results ?? []) {
          const rm = r.measures[0]?.results.find((x) => x.testOptionId === gm.testOptionId);
          if (!rm || gm.smallBase || rm.smallBase) continue;
          const t = twoProportionZTest({ p: gm.top2, n: gm.nEff }, { p: rm.top2, n: rm.nEff });
          if (!t.significant) continue;
          skews.push({
            demographic: d.label,
            group: o.label,
            testOption: names.get(gm.testOptionId) ?? "All respondents",
            measure: head.title,
            group2: {
              ref: "",
              text: pct(gm.top2),
              value: gm.top2,
              source: { fn: "QualResults", filters: gf, benchmarkTypeId: null, standardQuestionId: head.standardQuestionId, testOptionId: gm.testOptionId, field: "top2", ...totalOf },
            },
            rest: {
              ref: "",
              text: pct(rm.top2),
              value: rm.top2,
              source: { fn: "QualResults", filters: rf, benchmarkTypeId: null, standardQuestionId: head.standardQuestionId, testOptionId: gm.testOptionId, field: "top2", ...totalOf },
            },
            diff: { ref: "", text: points(gm.top2 - rm.top2), value: gm.top2 - rm.top2, source: { fn: "Difference", a: "", b: "" } },
            significant: true,
          });
        }
      }
    }
    // The three largest significant skews enter the book (and the text), each once: a group against
    // the rest and another group of the same demographic against its rest (women against the rest,
    // men against the rest) are one skew seen from both sides, so a demographic and test option
    // keep only their largest.
    skews.sort((a, b) => Math.abs(b.diff.value) - Math.abs(a.diff.value));
    const seen = new Set<string>();
    const once = skews.filter((s) => {
      const k = `${s.demographic}\u0000${s.testOption}`;
      if (seen.has(k)) return false;
      seen.add(k);
      return true;
    });
    skews.splice(0, skews.length, ...once.slice(0, 3));
    for (const s of skews) {
      s.group2 = book.add(s.group2.text, s.group2.value, s.group2.source);
      s.rest = book.add(s.rest.text, s.rest.value, s.rest.source);
      s.diff = book.add(s.diff.text, s.diff.value, { fn: "Difference", a: s.group2.ref, b: s.rest.ref });
    }
  }

  const price = pc.frameworkId === 1010 ? await priceFacts(db, ctx, pc, book, filters) : [];
  const reach = pc.frameworkId === 1020 ? await reachFacts(db, ctx, pc, book, filters) : null;
  const themes = await themeFacts(db, ctx, pc, book, filters);
  const questions = await choiceFacts(db, ctx, pc, book, filters, total);
  return { kind: "summary", projectName: pc.projectName, objective: pc.objective, scope: opts.scope, benchmarkName, total: totalWords, measures, skews, price, reach, themes, questions, verdict };
}

/** Van Westendorp's price points per test option (PriceSensitivityResults). */
export async function priceFacts(db: Db, ctx: RequestCtx, pc: ProjectContext, book: FigureBook, filters: ResponseFilter): Promise<SummaryFacts["price"]> {
  const price: SummaryFacts["price"] = [];
  const ps = await priceSensitivityResults(db, ctx, pc.projectId, filters);
  for (const r of ps.value.filter((x) => x.n > 0)) {
    const fig = (field: "opp" | "ipp" | "pmc" | "pme") =>
      r[field] === null ? null : book.add(money(r[field]!, ps.currencySymbol), r[field]!, { fn: "PriceSensitivityResults", filters, testOptionId: r.testOptionId, field });
    price.push({ name: r.conceptText ?? "All respondents", currency: ps.currencyCode, opp: fig("opp"), ipp: fig("ipp"), pmc: fig("pmc"), pme: fig("pme") });
  }
  return price;
}

/** The best combination of the largest size (MarketReachResults), or null without a set-up. */
export async function reachFacts(db: Db, ctx: RequestCtx, pc: ProjectContext, book: FigureBook, filters: ResponseFilter): Promise<SummaryFacts["reach"]> {
  const mr = await marketReachResults(db, ctx, pc.projectId, filters, { top: 1 }).catch((e) => {
    if (e instanceof ApiError && (e.code === "NotFound" || e.code === "Conflict")) return null;
    throw e;
  });
  const last = mr?.byK.at(-1);
  const best = last?.sets[0];
  return last && best ? { k: last.k, items: best.items, reach: book.add(pct(best.reach), best.reach, { fn: "MarketReachResults", filters, k: last.k, field: "reach" }) } : null;
}

/** The top three themes of each open question (up to three questions) among the filtered answers: share of answers and a quote. */
export async function themeFacts(db: Db, ctx: RequestCtx, pc: ProjectContext, book: FigureBook, filters: ResponseFilter): Promise<SummaryFacts["themes"]> {
  const themes: SummaryFacts["themes"] = [];
  for (const tq of pc.textQuestions.slice(0, 3)) {
    // Ranked under the filter (ThemeResults), so a market's summary names that market's top themes.
    const r = await themeResults(db, ctx, { projectId: pc.projectId, projectQuestionId: tq.projectQuestionId, filters });
    if (!r.answers) continue;
    for (const th of r.themes.filter((t) => t.count > 0).slice(0, 3)) {
      const quote = (await verbatim(db, ctx, { projectId: pc.projectId, projectQuestionId: tq.projectQuestionId, filters, themeId: th.id, pageSize: 1 })).value[0];
      themes.push({
        question: tq.text,
        name: th.name,
        share: book.add(pct(th.share), th.share, { fn: "VerbatimCount", filters, projectQuestionId: tq.projectQuestionId, themeId: th.id, field: "share" }),
        quote: quote ? (quote.translatedText ?? quote.responseText).slice(0, 200) : null,
      });
    }
  }
  return themes;
}

/** The three most chosen answers of up to four of the team's own choice questions (QuestionResults). */
export async function choiceFacts(db: Db, ctx: RequestCtx, pc: ProjectContext, book: FigureBook, filters: ResponseFilter, total: "sample" | "markets" = "sample"): Promise<SummaryFacts["questions"]> {
  const out: SummaryFacts["questions"] = [];
  const totalOf = total === "markets" ? { total: "markets" as const } : {};
  for (const cq of pc.choiceQuestions.slice(0, 4)) {
    // The same total as the summary's QualResults figures (the all-markets total under All markets).
    const r = await questionResults(db, ctx, { projectId: pc.projectId, projectQuestionId: cq.projectQuestionId, filters, total });
    const row = r.results.find((x) => x.testOptionId === null) ?? r.results[0];
    if (!row?.n) continue;
    const top = [...row.options]
      .filter((o) => o.count > 0)
      .sort((a, b) => b.share - a.share || a.questionOptionId - b.questionOptionId)
      .slice(0, 3);
    out.push({
      question: cq.text,
      answers: top.map((o) => ({
        option: r.options.find((x) => x.id === o.questionOptionId)!.text,
        share: book.add(pct(o.share), o.share, {
          fn: "QuestionResults",
          filters,
          projectQuestionId: cq.projectQuestionId,
          testOptionId: row.testOptionId,
          questionOptionId: o.questionOptionId,
          field: "share",
          ...totalOf,
        }),
      })),
    });
  }
  return out;
}

export interface WhyFacts {
  testOption: string;
  stance: "like" | "dislike" | null;
  /** Per open question asked about the test option: its top themes among the answers of the stance, each with a quote. */
  questions: {
    question: string;
    answers: number;
    themes: { name: string; share: Figure; quote: { text: Figure; segment: string } | null }[];
    /** Answers of the stance quoted when none of the themes has one. */
    quotes: { text: Figure; segment: string }[];
  }[];
  drivers: { outcome: string; filtered: boolean; note: string | null; top: { title: string; importance: Figure }[] } | null;
}

/** The respondent's gender, age group and market, as a quote's attribution ("Female, 25-34, Australia"). */
async function segmentOf(db: Db, ctx: RequestCtx, answerId: number): Promise<string> {
  const [r] = await enterTenant(
    db,
    ctx,
    (tx) =>
      tx<{ parts: string[] }[]>`
      select array_remove(array[
        (select o.answer_label from responses r join system_question_option o on o.id = r.system_question_option_id
          where r.project_id = t.project_id and r.survey_session_id = t.survey_session_id and o.system_question_id = 45 limit 1),
        (select o.answer_label from responses r join system_question_option o on o.id = r.system_question_option_id
          where r.project_id = t.project_id and r.survey_session_id = t.survey_session_id and o.system_question_id = 51 limit 1),
        (select g.region_name from regions g where g.id = t.region_id)], null) as parts
      from text_responses t where t.id = ${answerId}`,
  );
  return r?.parts.join(", ") || "a respondent";
}

const QUOTE_CHARS = 200;
/** A quote as a figure: its text in curly quotes, its value the answer's id. */
const quoteText = (s: string) => `“${s.replace(/\s+/g, " ").trim().slice(0, QUOTE_CHARS)}”`;

/**
 * Why people like or dislike a test option (or what they say about it): per open question asked
 * about it, the top three themes of its answers of that sentiment (Positive for like, Negative
 * for dislike, any for neither) with their share of those answers and a quote with the
 * respondent's segment; then what drives purchase intent for it (DriverResults).
 */
export async function whyFacts(db: Db, ctx: RequestCtx, pc: ProjectContext, book: FigureBook, filters: ResponseFilter, testOptionId: number, stance: "like" | "dislike" | null): Promise<WhyFacts> {
  const sentiment: SentimentLabel | null = stance === "like" ? "Positive" : stance === "dislike" ? "Negative" : null;
  const questions: WhyFacts["questions"] = [];
  const quoteOf = async (projectQuestionId: number, themeId: number | null) => {
    const v = (await verbatim(db, ctx, { projectId: pc.projectId, projectQuestionId, filters, testOptionId, themeId, sentiment, pageSize: 1 })).value[0];
    if (!v) return null;
    const text = book.add(quoteText(v.translatedText ?? v.responseText), v.id, { fn: "Verbatim", filters, projectQuestionId, testOptionId, themeId, sentiment, answerId: v.id, field: "text" });
    return { text, segment: await segmentOf(db, ctx, v.id) };
  };
  for (const tq of pc.textQuestions) {
    const r = await themeResults(db, ctx, { projectId: pc.projectId, projectQuestionId: tq.projectQuestionId, filters, testOptionId });
    // Only the questions asked about this test option (their answers carry it).
    if (!r.testOptions.some((o) => o.testOptionId === testOptionId)) continue;
    const total = sentiment ? r.bySentiment[sentiment] : r.answers;
    if (!total) {
      questions.push({ question: tq.text, answers: 0, themes: [], quotes: [] });
      continue;
    }
    const ranked = r.themes
      .map((t) => ({ t, n: sentiment ? t.bySentiment[sentiment] : t.count }))
      .filter((x) => x.n > 0)
      .sort((a, b) => b.n - a.n || a.t.id - b.t.id)
      .slice(0, 3);
    const themes: WhyFacts["questions"][number]["themes"] = [];
    for (const { t, n } of ranked) {
      const share = book.add(pct(n / total), n / total, { fn: "VerbatimCount", filters, projectQuestionId: tq.projectQuestionId, themeId: t.id, testOptionId, sentiment, field: "share" });
      themes.push({ name: t.name, share, quote: await quoteOf(tq.projectQuestionId, t.id) });
    }
    const quotes = themes.length ? [] : [await quoteOf(tq.projectQuestionId, null)].filter((q): q is NonNullable<typeof q> => !!q);
    questions.push({ question: tq.text, answers: total, themes, quotes });
  }
  const d = await driverResults(db, ctx, pc.projectId, filters);
  const g = d.groups.find((x) => x.testOptionId === testOptionId);
  const who = pc.testOptions.find((o) => o.id === testOptionId)?.name ?? "it";
  // A model that does not fit (drivers.ts: R² under 1% or its F-test not significant) ranks
  // nothing: the answer says so in words (its R² and p stay on the Drivers page, uncited here).
  const unfit =
    g?.drivers.length && !g.fits
      ? {
          outcome: d.outcome.title,
          filtered: g.filtered,
          note: `The measures explain too little of ${d.outcome.title} for ${who} to say what drives it: the model is not significant, so no driver is ranked.`,
          top: [],
        }
      : null;
  const drivers =
    unfit ??
    (g?.drivers.some((x) => x.importance !== null)
      ? {
          outcome: d.outcome.title,
          filtered: g.filtered,
          note: g.filtered ? null : `The audience is too small for its own driver analysis, so these drivers are for all respondents who saw ${who}.`,
          top: g.drivers
            .filter((x) => x.importance !== null && x.importance > 0)
            .slice(0, 2)
            .map((x) => ({
              title: x.title,
              importance: book.add(pct(x.importance!), x.importance!, { fn: "DriverResults", filters, testOptionId, standardQuestionId: x.standardQuestionId, field: "importance" }),
            })),
        }
      : null);
  return { testOption: pc.testOptions.find((o) => o.id === testOptionId)?.name ?? "This test option", stance, questions, drivers };
}
