// The verdict-first summary (issue 23): a project's action standard (the measure its concepts must
// pass, and whether against the benchmark on screen or against each other), stored per project,
// and the scorecard that ranks the concepts on it with a go / consider / no-go line each. The
// scorecard reads QualResults' own tests (design-based, adjusted within the view, docs/statistics.md):
// nothing here computes a p-value.
import { z } from "@hono/zod-openapi";
import type { Db } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { Measure, QualResults } from "./results.service.ts";
import type { Confidence } from "@ideally/analytics/significance";

export const ActionStandardInput = z
  .strictObject({
    standardQuestionId: z.number().int().positive().describe("The measure the concepts must pass (a scaled standard question the project asks)"),
    against: z.enum(["benchmark", "others"]).describe("benchmark: significantly above the benchmark on screen; others: significantly above every other concept"),
  })
  .openapi("ActionStandardInput");
export type ActionStandard = z.infer<typeof ActionStandardInput>;

export type Verdict = "go" | "consider" | "no-go";

/** The decisions in words (DOMAIN.md: Go, Consider or No go), as every export writes them. */
export const VERDICT_LABEL: Record<Verdict, string> = { go: "Go", consider: "Consider", "no-go": "No go" };

export interface ScoreRow {
  testOptionId: number | null;
  /** 1 + the number of concepts significantly ahead of it in the view's own (paired or independent) tests: concepts no test separates share a rank. */
  rank: number;
  top2: number;
  ci: [number, number];
  n: number;
  nEff: number;
  smallBase: boolean;
  verdict: Verdict;
  /** The decision rests on tests (false: a low base, an indicative norm or no norm, so the words say how far to trust it). */
  firm: boolean;
  /** The concepts significantly ahead of this one (its rank less one). */
  behind: (number | null)[];
  /** Plain sentences: why this verdict, naming every concept significantly ahead and where it stands against the norm's point estimate. */
  reason: string;
}

const pts = (d: number) => `${(Math.abs(d) * 100).toFixed(1)} points`;
const pc = (x: number) => `${(x * 100).toFixed(1)}%`;
const list = (xs: string[]) => (xs.length < 2 ? xs.join("") : `${xs.slice(0, -1).join(", ")} and ${xs.at(-1)}`);

/**
 * The rule (docs/statistics.md "The verdict"; DOMAIN.md "Action standards and verdicts"), on one
 * measure's results in the view. Every test is QualResults' own (paired for concepts rated by the
 * same respondents, adjusted within the view); nothing here computes a p-value.
 * - Rank: 1 + the number of concepts significantly ahead (ties in the tests share a rank).
 * - Against the benchmark, on a norm that can be tested: go when significantly above it, no-go when
 *   significantly below; level with it, no-go when another concept is significantly ahead, consider
 *   otherwise.
 * - Against the benchmark, on an indicative norm (too few projects to test against): its point
 *   estimate decides with the paired tests, and the words say it is indicative (`firm` false): go
 *   when at or above the point estimate with no concept significantly ahead, no-go when below it
 *   and another concept is significantly ahead, consider otherwise. So a thin norm lowers the
 *   confidence of the words and never makes every concept read the same.
 * - Against each other (or against the benchmark with no norm in the view): go when significantly
 *   ahead of every other concept, no-go when another is significantly ahead, consider otherwise.
 * - A low base (n_eff below 30) is not tested: consider, saying so.
 * A consider beside a concept significantly ahead of it, or below the norm's point estimate, says so.
 */
export function scorecard(results: Measure[], standard: ActionStandard, name: (id: number | null) => string): { rows: ScoreRow[]; against: ActionStandard["against"] } {
  const against = standard.against === "others" && results.length < 2 ? "benchmark" : standard.against;
  const ahead = (m: Measure) => results.filter((o) => o !== m && m.vsOthers.some((t) => t.testOptionId === o.testOptionId && t.significant && t.diff < 0));
  const judged = results.map((m): ScoreRow => {
    const behind = ahead(m);
    const [verdict, firm, reason] = judge(m, against, results, behind, name);
    return {
      testOptionId: m.testOptionId,
      rank: 1 + behind.length,
      top2: m.top2,
      ci: m.ci,
      n: m.n,
      nEff: m.nEff,
      smallBase: m.smallBase,
      verdict,
      firm,
      behind: behind.map((o) => o.testOptionId),
      reason,
    };
  });
  const rows = judged.sort((a, b) => a.rank - b.rank || b.top2 - a.top2);
  return { rows, against };
}

type Judgement = [Verdict, boolean, string];

function judge(m: Measure, against: ActionStandard["against"], all: Measure[], behind: Measure[], name: (id: number | null) => string): Judgement {
  const others = all.filter((o) => o !== m);
  const b = m.vsBenchmark;
  const norm = b ? `the benchmark's ${b.top2Percentage.toFixed(1)}%` : "";
  const words = (...xs: string[]) => xs.filter(Boolean).join(" ");
  // What a decision beside another concept must never leave unsaid: who is significantly ahead, and
  // a share below the norm's point estimate.
  const ahead = behind.length ? `${list(behind.map((o) => name(o.testOptionId)))} ${behind.length === 1 ? "is" : "are"} significantly ahead` : "";
  const below = b && m.top2 * 100 < b.top2Percentage ? `Below ${norm} (${pts(b.diff)}).` : "";
  if (m.smallBase) return ["consider", false, words(`Low base (n eff ${(Math.floor(m.nEff * 10) / 10).toFixed(1)}, under 30): not tested, read with care.`, below)];

  if (against === "benchmark" && b) {
    if (b.indicative) {
      const thin = "The benchmark is indicative (too few projects to test against).";
      const atOrAbove = m.top2 * 100 >= b.top2Percentage;
      if (atOrAbove && !ahead) return ["go", false, words(`${pts(b.diff)} above ${norm}, with no concept significantly ahead.`, thin)];
      if (!atOrAbove && ahead) return ["no-go", false, words(`${pts(b.diff)} below ${norm}, and ${ahead}.`, thin)];
      return ["consider", false, words(atOrAbove ? `${pts(b.diff)} above ${norm}, but ${ahead}.` : `${pts(b.diff)} below ${norm}, with no concept significantly ahead.`, thin)];
    }
    if (b.significant && b.diff > 0) return ["go", true, words(`${pts(b.diff)} above ${norm}, significantly.`, ahead && `${ahead}.`)];
    if (b.significant && b.diff < 0) return ["no-go", true, words(`${pts(b.diff)} below ${norm}, significantly.`, ahead && `${ahead}.`)];
    if (ahead) return ["no-go", true, `Not significantly different from ${norm}, and ${ahead}.`];
    return ["consider", true, words(`${pc(m.top2)}, not significantly different from ${norm}; no concept significantly ahead.`, below)];
  }

  // Against each other (or against the benchmark when the view has no norm).
  const noNorm = against === "benchmark" ? "No benchmark in the view: judged on the tests between concepts." : "";
  if (!others.length) return ["consider", false, `${pc(m.top2)}; no benchmark and no other concept to judge against.`];
  const clear = others.every((o) => m.vsOthers.some((t) => t.testOptionId === o.testOptionId && t.significant && t.diff > 0));
  if (clear) return ["go", true, words(noNorm, "Significantly ahead of every other concept.", below)];
  if (ahead) return ["no-go", true, words(noNorm, `${ahead}.`, below)];
  const level = others.filter((o) => !m.vsOthers.some((t) => t.testOptionId === o.testOptionId && t.significant));
  return ["consider", true, words(noNorm, `Level with ${list(level.map((o) => name(o.testOptionId)))} (not significantly different); no concept significantly ahead.`, below)];
}

/** The verdict in one sentence, for every output that shows it (page, deck, workbook, AI summary). */
export function verdictHeadline(rows: ScoreRow[], name: (id: number | null) => string): string {
  const of = (v: Verdict) => rows.filter((r) => r.verdict === v);
  const go = of("go");
  const consider = of("consider");
  const soft = rows.length > 0 && rows.every((r) => !r.firm) ? " Read with care: no verdict here rests on a test against a norm." : "";
  const names = (rs: ScoreRow[]) => list(rs.map((r) => name(r.testOptionId)));
  if (go.length) {
    const first = go.filter((r) => r.rank === go[0]!.rank);
    const order = go.length > 1 && first.length < go.length ? ` ${names(first)} ${first.length === 1 ? "ranks" : "rank"} first.` : "";
    return `Go: ${names(go)} ${go.length === 1 ? "meets" : "meet"} the action standard.${order}${soft}`;
  }
  if (consider.length) return `No concept clearly meets the action standard; consider ${names(consider)}.${soft}`;
  return `No go: no concept meets the action standard.${soft}`;
}

/** The default standard: the headline measure (the first in SPEC 9's order) against the benchmark. */
export function defaultStandard(measureIdsInOrder: number[]): ActionStandard | null {
  const first = measureIdsInOrder[0];
  return first === undefined ? null : { standardQuestionId: first, against: "benchmark" };
}

/** The scaled standard questions a project asks, in SPEC 9's order (what a standard may name). */
async function scaledMeasures(db: Db, ctx: RequestCtx, projectId: number): Promise<{ stored: ActionStandard | null; measures: { id: number; title: string }[] }> {
  return enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ stored: ActionStandard | null }[]>`select action_standard as stored from projects where id = ${projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `Projects(${projectId}) not found`);
    const measures = await tx<{ id: number; title: string }[]>`
      select sq.id, sq.title from standard_questions sq
      where sq.is_scaled and exists (select 1 from project_questions pq where pq.project_id = ${projectId} and pq.deleted_at is null and pq.standard_question_id = sq.id)
      order by sq.display_order, sq.id`;
    return { stored: p.stored, measures };
  });
}

export interface ActionStandardState extends ActionStandard {
  projectId: number;
  title: string;
  /** Nothing stored: the default (the headline measure against the benchmark). */
  isDefault: boolean;
  /** The measures a standard may name. */
  measures: { standardQuestionId: number; title: string }[];
}

function state(projectId: number, s: ActionStandard, isDefault: boolean, measures: { id: number; title: string }[]): ActionStandardState {
  return {
    projectId,
    ...s,
    title: measures.find((m) => m.id === s.standardQuestionId)?.title ?? `Measure ${s.standardQuestionId}`,
    isDefault,
    measures: measures.map((m) => ({ standardQuestionId: m.id, title: m.title })),
  };
}

export async function getActionStandard(db: Db, ctx: RequestCtx, projectId: number): Promise<ActionStandardState> {
  const { stored, measures } = await scaledMeasures(db, ctx, projectId);
  const s = stored ?? defaultStandard(measures.map((m) => m.id));
  if (!s) throw new ApiError("NotFound", `Projects(${projectId}) asks no scaled standard question: there is nothing to set a standard on`);
  return state(projectId, s, !stored, measures);
}

export async function setActionStandard(db: Db, ctx: RequestCtx, projectId: number, input: ActionStandard): Promise<ActionStandardState> {
  const { measures } = await scaledMeasures(db, ctx, projectId);
  if (!measures.some((m) => m.id === input.standardQuestionId))
    throw new ApiError("BadRequest", `standardQuestionId: the project asks no scaled standard question ${input.standardQuestionId} (it asks ${measures.map((m) => m.id).join(", ") || "none"})`);
  const updated = await enterTenant(
    db,
    ctx,
    (tx) =>
      tx`update projects set action_standard = ${tx.json({ standardQuestionId: input.standardQuestionId, against: input.against })}, updated_at = now() where id = ${projectId} and deleted_at is null returning id`,
  );
  // Readable but not writable (a project shared with the caller): row security updates nothing.
  if (!updated.length) throw new ApiError("Forbidden", `You may read Projects(${projectId}) but not change it`);
  return state(projectId, input, false, measures);
}

export interface Scorecard {
  projectId: number;
  standard: ActionStandardState;
  /** What the verdicts were judged against ('others' with one concept falls back to 'benchmark'). */
  judgedAgainst: ActionStandard["against"];
  benchmarkTypeId: number | null;
  confidence: Confidence;
  method: QualResults["method"];
  /** The measure's bases summed over the concepts (0: the filters match nobody). */
  base: number;
  rows: ScoreRow[];
  headline: string;
}
