// Drivers (the results page's "drivers"): which measures explain purchase intent, per project
// (test options pooled) and per test option, by analytics/drivers.ts (weighted regression on the
// respondent-level scores with Pratt importance). Computed when a run is processed and stored in
// regression_scores (the RegressionScores entity set); scores are 5 − answer, so 4 is Top.
import type { Tx } from "../../db/client.ts";
import { keyDrivers } from "../../analytics/drivers.ts";

/** Standard question 3, Purchase intent: the outcome the drivers explain. */
export const DRIVER_OUTCOME = 3;

export async function computeDrivers(tx: Tx, projectId: number): Promise<number> {
  const rows = await tx<{ sid: number; testOptionId: number | null; w: number; answers: Record<string, number> }[]>`
    select r.survey_session_id as sid, r.test_option_id as "testOptionId", p.weight as w,
           jsonb_object_agg(r.standard_question_id::text, 5 - r.standard_answer_value) as answers
    from responses r
    join project_survey_sessions p on p.id = r.project_survey_session_id
    join standard_questions sq on sq.id = r.standard_question_id and sq.is_scaled
    where r.project_id = ${projectId} and r.standard_answer_value is not null and p.status = 'Complete'
    group by 1, 2, 3`;
  const [{ clientId }] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${projectId}`;
  await tx`delete from regression_scores where project_id = ${projectId}`;
  const predictors = [...new Set(rows.flatMap((r) => Object.keys(r.answers).map(Number)))].filter((id) => id !== DRIVER_OUTCOME).sort((a, b) => a - b);
  if (!predictors.length || !rows.some((r) => r.answers[DRIVER_OUTCOME] !== undefined)) return 0;
  const all = [...rows];
  const groups: [number | null, typeof all][] = [[null, all]];
  for (const t of [...new Set(rows.map((r) => r.testOptionId))]) if (t !== null) groups.push([t, all.filter((r) => r.testOptionId === t)]);
  let written = 0;
  for (const [testOptionId, rs] of groups) {
    const d = keyDrivers({
      rows: rs.map((r) => [r.answers[DRIVER_OUTCOME] ?? null, ...predictors.map((p) => r.answers[p] ?? null)]),
      weights: rs.map((r) => r.w),
    });
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
