// AiProjectSummaries (SPEC 7): a project's summary written by the AI provider from the computed
// results (facts.ts), as a queued job (`ai.summaries`): when results are ready (processing end),
// when an objective is saved (SPEC 8's 'Objective saved' toast: summaries take a few minutes), per
// segment (Segments GenerateSummaries), on request (POST) and again (Regenerate). A row is Pending
// when asked for, Running while written, then Ready (content, the figures it cites, provider,
// model, tokens) or Failed (the error). The job's Progress, Success and Error go to job-{jobId}.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import type { Queue } from "../../jobs/queue.ts";
import { defineJob, enqueueJob, type JobContext } from "../../jobs/workers.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import type { ResponseFilter } from "../results/filters.ts";
import { FigureBook, projectContext, simulatedNote, summaryFacts, withNote } from "./facts.ts";
import { promptFor, SUMMARY_SYSTEM, SUMMARY_TEMPLATE, summaryMessages } from "./messages.ts";
import { providerFor } from "./configured.ts";
import { processConfig } from "../../config.ts";
import { runExchange, type AiProvider } from "./provider.ts";
import type { Registry } from "../../entities/registry.ts";
import { readEntity } from "../projects/common.ts";
import { codeThemesWithModel } from "./themes.ts";
import { jsonParam } from "../../db/params.ts";

export type SummaryTrigger = "ResultsReady" | "ObjectiveSaved" | "Segment" | "Requested";

export interface SummariesJob {
  summaryIds: number[];
}

/** Provider used by the jobs; tests may set another. */
let providerOverride: AiProvider | null = null;
export function useProvider(p: AiProvider | null): void {
  providerOverride = p;
}
export const currentProvider = async (): Promise<AiProvider> => providerOverride ?? providerFor(processConfig().ai);

export const summariesJob = defineJob<SummariesJob>("ai.summaries", (job) => runSummaries(job), { retryLimit: 2, retryDelay: 10, expireInSeconds: 900 });

export interface NewSummary {
  clientId: number;
  projectId: number;
  segmentId?: number | null;
  projectObjectiveId?: number | null;
  filters?: ResponseFilter | null;
  /** The benchmark to write against (0 'None'); null: the default. */
  benchmarkTypeId?: number | null;
  /** The total its figures are (QualResults total): markets, the all-markets total; null: sample. */
  total?: "sample" | "markets" | null;
  trigger: SummaryTrigger;
  createdByUserId: number | null;
}

/** Inserts Pending summaries and queues their job in the caller's transaction; the job id is on the rows. */
export async function queueSummaries(queue: Queue, tx: Tx, rows: NewSummary[], origin: { userId: number | null; clientId: number | null }): Promise<{ jobId: string; summaryIds: number[] }> {
  const ids: number[] = [];
  for (const r of rows) {
    const [row] = await tx<{ id: number }[]>`
      insert into ai_project_summaries (client_id, project_id, summary_type, segment_id, project_objective_id, filters, benchmark_type_id, total, trigger, created_by_user_id)
      values (${r.clientId}, ${r.projectId}, 'FullTestSummary', ${r.segmentId ?? null}, ${r.projectObjectiveId ?? null},
              ${r.filters ? tx.json(r.filters) : null}, ${r.benchmarkTypeId ?? null}, ${r.total ?? null}, ${r.trigger}, ${r.createdByUserId})
      returning id`;
    ids.push(row!.id);
  }
  return { jobId: await requeue(queue, tx, ids, origin), summaryIds: ids };
}

async function requeue(queue: Queue, tx: Tx, ids: number[], origin: { userId: number | null; clientId: number | null }): Promise<string> {
  const jobId = await enqueueJob(queue, tx, summariesJob, { summaryIds: ids }, origin);
  if (!jobId) throw new ApiError("Conflict", "The summaries are already queued");
  await tx`update ai_project_summaries set job_id = ${jobId}, status = 'Pending', error = null, updated_at = now() where id = any(${ids}::int[])`;
  return jobId;
}

/**
 * The total a project's own summaries read: across several markets the all-markets total (markets
 * weighted by population), the figures the web app's All markets shows (DOMAIN.md: totals across
 * markets); null (the sample total, the same figures) with one market.
 */
async function projectTotal(tx: Tx, projectId: number): Promise<"markets" | null> {
  const [m] = await tx<{ n: number }[]>`select count(*)::int as n from projects_regions where project_id = ${projectId}`;
  return (m?.n ?? 0) > 1 ? "markets" : null;
}

/** The project's summary and one per saved segment: what processing end and a new objective ask for. */
async function projectRows(tx: Tx, projectId: number, trigger: SummaryTrigger, extra: Partial<NewSummary>): Promise<NewSummary[]> {
  const [p] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${projectId} and deleted_at is null`;
  if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
  const segments = await tx<{ id: number; filters: ResponseFilter }[]>`select id, responses_filters as filters from segments where project_id = ${projectId} order by id`;
  const total = await projectTotal(tx, projectId);
  const base = { clientId: p.clientId, projectId, trigger, createdByUserId: null, total, ...extra };
  return [base, ...segments.map((s) => ({ ...base, segmentId: s.id, filters: s.filters }))];
}

/** POST ProjectObjectives saved an objective: the project's summaries under it (in the saving transaction). */
export async function queueObjectiveSummaries(queue: Queue, tx: Tx, ctx: RequestCtx, projectId: number, objectiveId: number) {
  return queueSummaries(queue, tx, await projectRows(tx, projectId, "ObjectiveSaved", { projectObjectiveId: objectiveId, createdByUserId: ctx.principal.userId }), {
    userId: ctx.principal.userId,
    clientId: ctx.clientId,
  });
}

/**
 * Results are ready: every project whose latest ResultsReady (a processed wave) is newer than its
 * latest summaries of that trigger gets them. Run by the fielding tick after each pass, so whatever
 * processed the wave (the tick, StartSurveyProcessing, ProcessProjectData), the summaries follow.
 */
export async function queueReadySummaries(db: Db, queue: Queue): Promise<number> {
  const due = await db<{ projectId: number }[]>`
    select p.id as "projectId" from projects p
    where p.deleted_at is null and p.status_code >= 800
      and exists (select 1 from data_events_log e where e.project_id = p.id and e.event = 'ResultsReady'
                  and e.created_at > coalesce((select max(s.created_at) from ai_project_summaries s where s.project_id = p.id and s.trigger = 'ResultsReady'), '-infinity'))
    order by p.id`;
  let queued = 0;
  for (const d of due) {
    await db.begin(async (tx) => {
      // One transaction per project, locked, so two ticks never queue the same summaries twice; a
      // project locked by another tick is left to it. NO KEY UPDATE, not UPDATE: the key-share lock
      // any insert referencing the project takes (a foreign key check) does not make it skip.
      const [locked] = await tx`select 1 from projects where id = ${d.projectId} for no key update skip locked`;
      if (!locked) return;
      const [again] = await tx`
        select 1 from data_events_log e where e.project_id = ${d.projectId} and e.event = 'ResultsReady'
          and e.created_at > coalesce((select max(s.created_at) from ai_project_summaries s where s.project_id = ${d.projectId} and s.trigger = 'ResultsReady'), '-infinity')`;
      if (!again) return;
      const rows = await projectRows(tx, d.projectId, "ResultsReady", {});
      await queueSummaries(queue, tx, rows, { userId: null, clientId: rows[0]!.clientId });
      queued++;
    });
  }
  // The projects queued now: a project found due but locked by another transaction (skipped) or
  // queued by another tick meanwhile is not counted (it was: a side-by-side run saw a second call
  // answer 2 where the first had counted projects it had skipped).
  return queued;
}

/** POST AiProjectSummaries: a summary of the project (optionally a segment's, an objective's, or under filters); answers the row as queued (Pending). */
export async function requestSummary(
  db: Db,
  reg: Registry,
  queue: Queue,
  ctx: RequestCtx,
  input: { projectId: number; segmentId?: number | null; projectObjectiveId?: number | null; filters?: ResponseFilter | null; benchmarkTypeId?: number | null; total?: "sample" | "markets" | null },
): Promise<string> {
  return enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ clientId: number }[]>`select client_id as "clientId" from projects where id = ${input.projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${input.projectId}`);
    let filters = input.filters ?? null;
    if (input.segmentId) {
      const [s] = await tx<{ filters: ResponseFilter }[]>`select responses_filters as filters from segments where id = ${input.segmentId} and project_id = ${input.projectId}`;
      if (!s) throw new ApiError("NotFound", `No segment ${input.segmentId} in project ${input.projectId}`);
      filters = s.filters;
    }
    if (input.projectObjectiveId) {
      const [o] = await tx`select 1 from project_objectives where id = ${input.projectObjectiveId} and project_id = ${input.projectId}`;
      if (!o) throw new ApiError("NotFound", `No objective ${input.projectObjectiveId} in project ${input.projectId}`);
    }
    const r = await queueSummaries(
      queue,
      tx,
      [
        {
          clientId: p.clientId,
          projectId: input.projectId,
          segmentId: input.segmentId ?? null,
          projectObjectiveId: input.projectObjectiveId ?? null,
          filters,
          benchmarkTypeId: input.benchmarkTypeId ?? null,
          total: input.total ?? null,
          trigger: "Requested",
          createdByUserId: ctx.principal.userId,
        },
      ],
      { userId: ctx.principal.userId, clientId: ctx.clientId },
    );
    return readEntity(tx, reg, ctx, "AiProjectSummaries", r.summaryIds[0]!);
  });
}

/** Segments({key})/GenerateSummaries: the segment's summary under its saved filters. */
export async function generateSegmentSummaries(db: Db, queue: Queue, ctx: RequestCtx, segmentId: number) {
  return enterTenant(db, ctx, async (tx) => {
    const [s] = await tx<{ id: number; clientId: number; projectId: number; filters: ResponseFilter }[]>`
      select s.id, s.client_id as "clientId", s.project_id as "projectId", s.responses_filters as filters from segments s
      join projects p on p.id = s.project_id and p.deleted_at is null where s.id = ${segmentId}`;
    if (!s) throw new ApiError("NotFound", `No segment ${segmentId}`);
    const [p] = await tx<{ objectiveId: number | null }[]>`select active_project_objective_id as "objectiveId" from projects where id = ${s.projectId}`;
    return queueSummaries(
      queue,
      tx,
      [
        {
          clientId: s.clientId,
          projectId: s.projectId,
          segmentId: s.id,
          projectObjectiveId: p?.objectiveId ?? null,
          filters: s.filters,
          total: await projectTotal(tx, s.projectId),
          trigger: "Segment",
          createdByUserId: ctx.principal.userId,
        },
      ],
      { userId: ctx.principal.userId, clientId: ctx.clientId },
    );
  });
}

/** AiProjectSummaries({key})/Regenerate: the same summary written again (Pending, a new job). */
export async function regenerate(db: Db, queue: Queue, ctx: RequestCtx, id: number) {
  return enterTenant(db, ctx, async (tx) => {
    const [s] = await tx<{ id: number; status: string }[]>`select id, status from ai_project_summaries where id = ${id} for update`;
    if (!s) throw new ApiError("NotFound", `No summary ${id}`);
    if (s.status === "Pending" || s.status === "Running") throw new ApiError("Conflict", `Summary ${id} is being written already`);
    return { jobId: await requeue(queue, tx, [id], { userId: ctx.principal.userId, clientId: ctx.clientId }), id };
  });
}

interface Row {
  id: number;
  projectId: number;
  segmentId: number | null;
  segmentName: string | null;
  objective: string | null;
  filters: ResponseFilter | null;
  benchmarkTypeId: number | null;
  total: "sample" | "markets" | null;
  status: string;
  jobId: string | null;
}

/** Writes one summary (idempotent: a Ready row written by this job is left alone). */
export async function generateSummary(db: Db, provider: AiProvider, id: number, jobId: string | null): Promise<"Ready" | "Skipped"> {
  const [row] = await db<Row[]>`
    select s.id, s.project_id as "projectId", s.segment_id as "segmentId", g.name as "segmentName", o.summary as objective, s.filters, s.benchmark_type_id as "benchmarkTypeId", s.total, s.status, s.job_id as "jobId"
    from ai_project_summaries s left join segments g on g.id = s.segment_id left join project_objectives o on o.id = s.project_objective_id where s.id = ${id}`;
  if (!row || (row.status === "Ready" && row.jobId === jobId) || (jobId !== null && row.jobId !== jobId)) return "Skipped"; // deleted, done, or re-queued by a newer job
  await db`update ai_project_summaries set status = 'Running', updated_at = now() where id = ${id}`;
  try {
    const ctx = systemCtx();
    const pc = await projectContext(db, ctx, row.projectId);
    if (row.objective) pc.objective = row.objective;
    const book = new FigureBook();
    const scope = row.segmentName ? `Segment: ${row.segmentName}` : null;
    const facts = await summaryFacts(db, ctx, pc, book, { filters: row.filters ?? {}, scope, benchmarkTypeId: row.benchmarkTypeId ?? undefined, total: row.total ?? "sample" });
    const prompt = await promptFor(db, "FullTestSummary", { systemPrompt: SUMMARY_SYSTEM, template: SUMMARY_TEMPLATE });
    const ex = await runExchange(provider, summaryMessages(prompt, facts), {}, { model: prompt.model, temperature: prompt.temperature });
    // Simulated respondents under the summary's view are said once, last (issue 36).
    const content = withNote(ex.content, await simulatedNote(db, ctx, book, row.projectId, row.filters ?? {}));
    const cited = new Set([...content.matchAll(/\[(F\d+)\]/g)].map((m) => m[1]));
    await db`
      update ai_project_summaries set status = 'Ready', title = ${scope ?? pc.projectName}, content = ${content}, error = null,
        references_data = ${jsonParam(
          db,
          book.figures.filter((f) => cited.has(f.ref)),
        )}, provider = ${provider.name}, model = ${ex.model},
        usage = ${jsonParam(db, ex.usage)}, prompt_version_id = ${prompt.promptVersionId}, generated_at = now(), updated_at = now()
      where id = ${id}`;
    return "Ready";
  } catch (e) {
    await db`update ai_project_summaries set status = 'Failed', error = ${(e as Error).message.slice(0, 500)}, updated_at = now() where id = ${id}`;
    throw e;
  }
}

async function runSummaries(job: JobContext<SummariesJob>) {
  const provider = await currentProvider();
  const ids = job.data.summaryIds;
  if (provider.name !== "local") {
    // New results and a model: the model codes the open answers' themes first (processing coded
    // them locally, inside its transaction, where no network call belongs). A failure keeps those.
    const fresh = await job.db<
      { projectId: number }[]
    >`select distinct project_id as "projectId" from ai_project_summaries where id = any(${ids}::int[]) and trigger = 'ResultsReady' and status <> 'Ready'`;
    for (const p of fresh) {
      await codeThemesWithModel(job.db, provider, p.projectId).catch((e) => job.progress(0, `themes kept from the local coding: ${(e as Error).message}`));
    }
  }
  let ready = 0;
  const failed: { id: number; message: string }[] = [];
  for (const [i, id] of ids.entries()) {
    await job.progress((i / ids.length) * 100, `Summary ${i + 1} of ${ids.length}`);
    try {
      if ((await generateSummary(job.db, provider, id, job.jobId)) === "Ready") ready++;
    } catch (e) {
      failed.push({ id, message: (e as Error).message });
    }
  }
  // The job fails (and is retried) when a summary failed; the ones written stay written.
  if (failed.length) throw new Error(`${failed.length} of ${ids.length} summaries failed: ${failed[0]!.message}`);
  await job.progress(100, "Summaries ready");
  return { summaryIds: ids, ready };
}
