// Drivers (the results page's "drivers"): which measures explain purchase intent, per project
// (test options pooled) and per test option, by analytics/drivers.ts (weighted regression on the
// respondent-level scores with Pratt importance). Computed when a run is processed and stored in
// regression_scores (the RegressionScores entity set); scores are 5 − answer, so 4 is Top.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { keyDrivers, type DriverResult } from "@ideally/analytics/drivers";
import { resolveFilter, sessionsSql, type ResolvedFilter, type ResponseFilter } from "./filters.ts";

/** Standard question 3, Purchase intent: the outcome the drivers explain. */
export const DRIVER_OUTCOME = 3;

type DriverRow = { sid: number; testOptionId: number | null; w: number; answers: Record<string, number> };

/**
 * Each complete respondent's scaled answers per test option (`f`: only the filtered respondents),
 * in a fixed order: the regression's sums follow the rows' order to the last bits, and the order of
 * a grouped result is the plan's (a prepared statement's generic plan after five runs can differ
 * from its first), so the same respondents always give the same figures.
 */
function driverRows(tx: Tx, projectId: number, f: ResolvedFilter | null) {
  return tx<DriverRow[]>`
    select r.survey_session_id as sid, r.test_option_id as "testOptionId", p.weight as w,
           jsonb_object_agg(r.standard_question_id::text, 5 - r.standard_answer_value) as answers
    from responses r
    join project_survey_sessions p on p.id = r.project_survey_session_id
    join standard_questions sq on sq.id = r.standard_question_id and sq.is_scaled
    ${f ? tx`join (${sessionsSql(tx, projectId, f)}) s on s.pss = p.id` : tx``}
    where r.project_id = ${projectId} and r.standard_answer_value is not null and p.status = 'Complete'
    group by 1, 2, 3
    order by 1, 2`;
}

const predictorsOf = (rows: DriverRow[]) => [...new Set(rows.flatMap((r) => Object.keys(r.answers).map(Number)))].filter((id) => id !== DRIVER_OUTCOME).sort((a, b) => a - b);

/** The regression of one group of respondents (all test options pooled, or one). */
const regress = (rs: DriverRow[], predictors: number[]) =>
  keyDrivers({ rows: rs.map((r) => [r.answers[DRIVER_OUTCOME] ?? null, ...predictors.map((p) => r.answers[p] ?? null)]), weights: rs.map((r) => r.w) });

/** The groups a driver analysis is run for: all test options pooled (null), then each option. */
function groupsOf(rows: DriverRow[]): [number | null, DriverRow[]][] {
  const groups: [number | null, DriverRow[]][] = [[null, rows]];
  for (const t of [...new Set(rows.map((r) => r.testOptionId))].sort((a, b) => (a ?? 0) - (b ?? 0))) if (t !== null) groups.push([t, rows.filter((r) => r.testOptionId === t)]);
  return groups;
}

export async function computeDrivers(tx: Tx, projectId: number): Promise<number> {
  const rows = await driverRows(tx, projectId, null);
  const [{ clientId }] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${projectId}`;
  await tx`delete from regression_scores where project_id = ${projectId}`;
  const predictors = predictorsOf(rows);
  if (!predictors.length || !rows.some((r) => r.answers[DRIVER_OUTCOME] !== undefined)) return 0;
  let written = 0;
  for (const [testOptionId, rs] of groupsOf(rows)) {
    const d = regress(rs, predictors);
    if (!d) continue;
    const out = predictors.map((sq, j) => ({
      client_id: clientId,
      project_id: projectId,
      test_option_id: testOptionId,
      outcome_standard_question_id: DRIVER_OUTCOME,
      standard_question_id: sq,
      coefficient: d.beta[j]!,
      importance: Number.isFinite(d.importance[j]!) ? d.importance[j]! : null,
      r_squared: Math.min(1, Math.max(0, d.rSquared)),
      sample_size: d.n,
    }));
    await tx`insert into regression_scores ${tx(out)}`;
    written += out.length;
  }
  return written;
}

/**
 * The smallest base a driver analysis is recomputed for under a filter: Green (1991, "How many
 * subjects does it take to do a regression analysis?", Multivariate Behavioral Research 26) gives
 * N >= 104 + k to test individual predictors (k predictors), which is what importances rank.
 */
export const minimumDriverBase = (predictors: number) => 104 + predictors;
/** Whether a filtered base is large enough for its own driver analysis (at the minimum: yes). */
export const filteredDriversAllowed = (base: number, predictors: number) => base >= minimumDriverBase(predictors);

/** Why a model ranks nothing, in words (analytics/drivers.ts: R² under MIN_R_SQUARED or the F-test not significant at MODEL_ALPHA). */
function unfitNote(d: DriverResult, outcome: string): string {
  const p = d.fTest.pValue < 0.001 ? "p < 0.001" : `p = ${d.fTest.pValue.toFixed(3)}`;
  return `These measures explain too little of ${outcome} to rank them (R² ${Math.max(0, d.rSquared).toFixed(3)}, F-test ${p} on an effective base of ${Math.round(d.nEff)}): no importances are given.`;
}

/**
 * DriverResults: the driver analysis of the filtered respondents, per group (all test options
 * pooled, then each option), recomputed where the group's filtered base reaches
 * minimumDriverBase; a group under it shows the analysis of all its respondents instead, labelled
 * (filtered false, with the filtered base and a note).
 */
export async function driverResults(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter) {
  return enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ id: number }[]>`select id from projects where id = ${projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    const f = await resolveFilter(tx, filters);
    const [all, filtered, titles] = await Promise.all([
      driverRows(tx, projectId, null),
      driverRows(tx, projectId, f),
      tx<{ id: number; title: string }[]>`select id, title from standard_questions where is_scaled`,
    ]);
    const title = (id: number) => titles.find((t) => t.id === id)?.title ?? `Measure ${id}`;
    const predictors = predictorsOf(all);
    const minimumBase = minimumDriverBase(predictors.length);
    const complete = (r: DriverRow) => r.answers[DRIVER_OUTCOME] !== undefined && predictors.every((q) => r.answers[q] !== undefined);
    const mine = new Map(groupsOf(filtered));
    const groups = groupsOf(all)
      .filter(([t]) => t === null || !f.testOptionIds || f.testOptionIds.includes(t))
      .map(([testOptionId, everyone]) => {
        const rs = mine.get(testOptionId) ?? [];
        const base = rs.filter(complete).length;
        const use = filteredDriversAllowed(base, predictors.length);
        const d = predictors.length ? regress(use ? rs : everyone, predictors) : null;
        return {
          testOptionId,
          filtered: use,
          filteredBase: base,
          n: d?.n ?? 0,
          rSquared: d ? Math.min(1, Math.max(0, d.rSquared)) : null,
          modelPValue: d ? d.fTest.pValue : null,
          fits: d?.fits ?? false,
          note:
            [
              use
                ? null
                : `The filter leaves n=${base}, under the minimum base of ${minimumBase} for a driver analysis: these drivers are for all respondents${testOptionId === null ? "" : " who saw this option"}.`,
              d && !d.fits ? unfitNote(d, title(DRIVER_OUTCOME)) : null,
            ]
              .filter((x) => x !== null)
              .join(" ") || null,
          drivers: d
            ? predictors
                .map((sq, j) => ({ standardQuestionId: sq, title: title(sq), coefficient: d.beta[j]!, importance: Number.isFinite(d.importance[j]!) ? d.importance[j]! : null }))
                .sort((a, b) => (b.importance ?? -Infinity) - (a.importance ?? -Infinity))
            : [],
        };
      });
    return { projectId, outcome: { standardQuestionId: DRIVER_OUTCOME, title: title(DRIVER_OUTCOME) }, minimumBase, groups };
  });
}
