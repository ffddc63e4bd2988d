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
import type { Confidence } from "../../analytics/significance.ts";

export const ActionStandardInput = z
  .strictObject({
    standardQuestionId: z.number().int().positive().describe("The measure the concepts must pass (a scaled standard question the project asks)"),
    against: z.enum(["benchmark", "others"]).describe("benchmark: significantly above the benchmark on screen; others: significantly above every other concept"),
  })
  .openapi("ActionStandardInput");
export type ActionStandard = z.infer<typeof ActionStandardInput>;

export type Verdict = "go" | "consider" | "no-go";

export interface ScoreRow {
  testOptionId: number | null;
  rank: number;
  top2: number;
  ci: [number, number];
  n: number;
  nEff: number;
  smallBase: boolean;
  verdict: Verdict;
  /** One plain sentence: why this verdict. */
  reason: string;
}

const pts = (d: number) => `${(Math.abs(d) * 100).toFixed(1)} points`;
const pc = (x: number) => `${(x * 100).toFixed(1)}%`;

/**
 * The rule (docs/decisions.md "The verdict-first summary"), on one measure's results:
 * - against the benchmark: go when significantly above it, no-go when significantly below, consider
 *   otherwise (no significant difference, an indicative norm, no benchmark);
 * - against each other: go when significantly above every other concept, no-go when significantly
 *   below the leader, consider otherwise (level with the leader); with one concept there is
 *   nothing to compare and the benchmark rule applies.
 * A low base (n_eff below 30) is never a go or a no-go: consider, saying so.
 * Rows rank by top-2-box, highest first (ties share a rank).
 */
export function scorecard(results: Measure[], standard: ActionStandard, name: (id: number | null) => string): { rows: ScoreRow[]; against: ActionStandard["against"] } {
  const against = standard.against === "others" && results.length < 2 ? "benchmark" : standard.against;
  const sorted = [...results].sort((a, b) => b.top2 - a.top2);
  const leader = sorted[0];
  const rows = sorted.map((m): ScoreRow => {
    const rank = 1 + sorted.filter((o) => o.top2 > m.top2).length;
    const base = { testOptionId: m.testOptionId, rank, top2: m.top2, ci: m.ci, n: m.n, nEff: m.nEff, smallBase: m.smallBase };
    const [verdict, reason] = judge(m, against, leader!, name);
    if (m.smallBase && verdict !== "consider") return { ...base, verdict: "consider", reason: `Low base (n eff ${m.nEff.toFixed(1)}): ${reason.charAt(0).toLowerCase()}${reason.slice(1)}` };
    return { ...base, verdict, reason };
  });
  return { rows, against };
}

function judge(m: Measure, against: ActionStandard["against"], leader: Measure, name: (id: number | null) => string): [Verdict, string] {
  if (against === "benchmark") {
    const b = m.vsBenchmark;
    if (!b) return ["consider", `${pc(m.top2)}; no benchmark to test against.`];
    const norm = `the benchmark's ${b.top2Percentage.toFixed(1)}%`;
    if (b.indicative) return ["consider", `${pc(m.top2)} against ${norm}, an indicative norm (too few projects to test).`];
    if (b.significant && b.diff > 0) return ["go", `${pts(b.diff)} above ${norm}, significantly.`];
    if (b.significant && b.diff < 0) return ["no-go", `${pts(b.diff)} below ${norm}, significantly.`];
    return ["consider", `${pc(m.top2)}, not significantly different from ${norm}.`];
  }
  const others = m.vsOthers;
  if (others.length && others.every((o) => o.significant && o.diff > 0)) return ["go", `Significantly ahead of every other concept.`];
  if (m !== leader) {
    const vsLeader = others.find((o) => o.testOptionId === leader.testOptionId);
    if (vsLeader?.significant && vsLeader.diff < 0) return ["no-go", `${pts(vsLeader.diff)} behind ${name(leader.testOptionId)}, significantly.`];
    return ["consider", `Level with ${name(leader.testOptionId)} (${pts(leader.top2 - m.top2)} behind, not significant).`];
  }
  return ["consider", `Leads, but not significantly ahead of every other concept.`];
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
  return { projectId, ...s, title: measures.find((m) => m.id === s.standardQuestionId)?.title ?? `Measure ${s.standardQuestionId}`, isDefault, measures: measures.map((m) => ({ standardQuestionId: m.id, title: m.title })) };
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
  const updated = await enterTenant(db, ctx, (tx) => tx`update projects set action_standard = ${tx.json({ standardQuestionId: input.standardQuestionId, against: input.against })}, updated_at = now() where id = ${projectId} and deleted_at is null returning id`);
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
}
