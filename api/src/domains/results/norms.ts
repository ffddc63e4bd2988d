// The norms' rollup (migration 0030): per project, standard question, region and week, the weighted
// sums a norm averages (Σw and Σw·[top 2] of the answers on the 4-point scale) and the distinct
// respondents. Written when a run is processed (fielding processRun) and, for a project whose
// results version (migration 0029) moved since its cells were built (a reweight, a removal, data
// loaded outside processing), by the norms job every minute and, for what it has not reached yet,
// before a norm is read; so a norm reads a few cells per comparable
// project instead of all their responses, and equals the computation over the responses.
import type { Tx } from "../../db/client.ts";

/** pg_advisory_xact_lock's first key: two refreshes of one project's cells queue, not interleave. */
const NORM_LOCK = 41;

/** Rebuilds one project's norm cells from its responses (call inside a transaction). */
export async function refreshNormCells(tx: Tx, projectId: number): Promise<void> {
  await tx`select pg_advisory_xact_lock(${NORM_LOCK}, ${projectId})`;
  // The version first: cells built from a later snapshot than the version they are stamped with
  // are at worst rebuilt once more, never left stale.
  const [v] = await tx<{ version: string }[]>`select coalesce((select version::text from results_versions where project_id = ${projectId}), '0') as version`;
  await tx`delete from norm_cells where project_id = ${projectId}`;
  await tx`
    insert into norm_cells (project_id, client_id, standard_question_id, region_id, week, sum_w, sum_w_top2, respondents)
    select r.project_id, r.client_id, r.standard_question_id, r.region_id, pss.week,
           sum(pss.weight), sum(pss.weight * (r.standard_answer_value <= 2)::int), count(distinct r.survey_session_id)
    from responses r join project_survey_sessions pss on pss.id = r.project_survey_session_id
    where r.project_id = ${projectId} and r.standard_question_id is not null and r.standard_answer_value is not null
    group by 1, 2, 3, 4, 5`;
  await tx`
    insert into norm_versions (project_id, client_id, version)
    select id, client_id, ${v!.version}::bigint from projects where id = ${projectId}
    on conflict (project_id) do update set version = excluded.version`;
}

/** Completed projects (the ones a norm may read) whose results version differs from their cells'. */
export async function staleNormProjects(tx: Tx): Promise<number[]> {
  const stale = await tx<{ id: number }[]>`
    select q.id from projects q
    left join results_versions v on v.project_id = q.id
    left join norm_versions n on n.project_id = q.id
    where q.deleted_at is null and q.status_code >= 800 and q.status_code <> 950
      and n.version is distinct from coalesce(v.version, 0)
    order by q.id`;
  return stale.map((s) => s.id);
}

/**
 * Rebuilds the cells of every stale project. Returns how many it rebuilt. Benchmarks calls it so a
 * norm always equals the computation over the responses; the norms job (norms.jobs.ts) calls it
 * every minute so that the call rarely finds anything to do.
 */
export async function refreshStaleNormCells(tx: Tx): Promise<number> {
  const stale = await staleNormProjects(tx);
  for (const id of stale) await refreshNormCells(tx, id);
  return stale.length;
}
