// Staff's fielding tools over a run: its state, respondents and their removal, the panel order,
// translations, rebuilding results from the raw answers, and the counts per run of a project.
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { systemCtx } from "../lifecycle/lifecycle.service.ts";
import { quotaProgress, type QuotaGroupProgress, type SurveyDefinition } from "./engine.ts";
import { withCompletes } from "./definition.ts";
import * as q from "./fielding.sql.ts";
import { QUALITY_REASONS } from "./quality.ts";
import { recordOutcomes, recordReversals } from "./suppliers.ts";
import { processRun, statusName, surveyUrl, SURVEY_STATUS, weightRun, type ProcessResult, type WeightingReport } from "./fielding.service.ts";

const system = <T>(db: Db, fn: (tx: Tx) => Promise<T>) => enterTenant(db, systemCtx(), fn);

async function runOf(tx: Tx, runId: number, lock = false): Promise<q.RunRow & { definition: SurveyDefinition }> {
  const run = await q.run(tx, runId, lock);
  if (!run) throw new ApiError("NotFound", `No survey run ${runId}`);
  if (!run.definition) throw new ApiError("Conflict", `Survey run ${runId} has no survey yet: create it with CreateDecipherSurveys`);
  return run as q.RunRow & { definition: SurveyDefinition };
}

/** The project exists (for the caller: staff see every client's). */
export async function assertProject(db: Db, ctx: RequestCtx, projectId: number): Promise<void> {
  const found = await enterTenant(db, ctx, async (tx) => (await tx`select 1 from projects where id = ${projectId} and deleted_at is null`).length > 0);
  if (!found) throw new ApiError("NotFound", `No project ${projectId}`);
}

const iso = (t: string | null) => (t ? new Date(t).toISOString() : null);

/** What the team's status views say: "stalled", or "closes at ..." while filling (docs/decisions.md "Field periods"). */
export function fieldingState(status: number, stalledAt: string | null): "notOpen" | "filling" | "stalled" | "closed" {
  if (status === SURVEY_STATUS.Live || status === SURVEY_STATUS.Testing) return stalledAt ? "stalled" : "filling";
  return status === SURVEY_STATUS.Draft ? "notOpen" : "closed";
}

async function samplifyOf(tx: Tx, runId: number): Promise<{ extProjectId: string; extLineItemId: string; state: string | null; securityLevel: string | null; warnings: string[] } | null> {
  const [r] = await tx<{ p: string | null; l: string | null; s: string | null; level: string | null; warnings: string[] }[]>`
    select samplify_project_id as p, samplify_line_item_id as l, samplify_state as s, samplify_end_links->>'securityLevel' as level,
           samplify_warnings as warnings
    from survey_runs where id = ${runId}`;
  return r?.p && r.l ? { extProjectId: r.p, extLineItemId: r.l, state: r.s, securityLevel: r.level, warnings: r.warnings } : null;
}

export async function runState(db: Db, runId: number, publicUrl: string) {
  return system(db, async (tx) => {
    const r = await q.run(tx, runId);
    if (!r) throw new ApiError("NotFound", `No survey run ${runId}`);
    return {
      id: r.id,
      clientId: r.clientId,
      regionId: r.regionId,
      surveyStatusId: r.surveyStatusId,
      surveyStatus: statusName(r.surveyStatusId),
      isCustomerPanel: r.isCustomerPanel,
      sampleSource: r.sampleSource,
      targetCompletes: r.targetCompletes,
      surveyLink: r.surveyLink,
      surveyUrl: surveyUrl(publicUrl, r.surveyLink),
      isSimulated: r.isSimulated,
      launchedAt: r.launchedAt ? new Date(r.launchedAt).toISOString() : null,
      closedAt: r.closedAt ? new Date(r.closedAt).toISOString() : null,
      processedAt: r.processedAt ? new Date(r.processedAt).toISOString() : null,
      fieldEndAt: iso(r.fieldEndAt),
      lastCompleteAt: iso(r.lastCompleteAt),
      stalledAt: iso(r.stalledAt),
      closedReason: r.closedReason,
      fieldingState: fieldingState(r.surveyStatusId, r.stalledAt),
      sampleSupplierId: r.sampleSupplierId,
      samplify: await samplifyOf(tx, r.id),
    };
  });
}

export async function refreshTranslations(db: Db, runId: number): Promise<void> {
  await system(db, async (tx) => {
    const run = await runOf(tx, runId, true);
    const translations = Object.fromEntries((await q.translations(tx, run.regionId)).map((t) => [t.sourceText, t.translatedText]));
    await q.setDefinition(tx, run.id, { ...run.definition, translations });
  });
}

export async function setTarget(db: Db, runId: number, target: number): Promise<void> {
  await system(db, async (tx) => {
    const run = await runOf(tx, runId, true);
    if (run.surveyStatusId === SURVEY_STATUS.Closed) throw new ApiError("Conflict", `Survey run ${runId} is Closed: its panel order cannot change`);
    await tx`update survey_runs set target_completes = ${target}, updated_at = now() where id = ${run.id}`;
    // The caps follow the new order (withCompletes), in the survey and in what Samplify is sent.
    await q.setDefinition(tx, run.id, withCompletes(run.definition, target));
    const counts = await q.quotaCounts(tx, run.id);
    if (run.surveyStatusId === SURVEY_STATUS.Live && counts.completes >= target) {
      await q.setRunStatus(tx, run.id, SURVEY_STATUS.Closed, "closed_at");
    }
  });
}

export async function respondents(db: Db, runId: number, opts: { page: number; pageSize: number; status?: string }) {
  return system(db, async (tx) => {
    await runOf(tx, runId);
    const status = opts.status ?? null;
    const [{ total }] = await tx<{ total: number }[]>`
      select count(*)::int as total from survey_sessions where survey_run_id = ${runId} and (${status}::text is null or status = ${status}::text)`;
    const value = await tx<
      {
        surveySessionId: number;
        respondentId: string;
        panelRespondentId: string | null;
        status: string;
        endReason: string | null;
        isSimulated: boolean;
        startedAt: string;
        completedAt: string | null;
      }[]
    >`
      select id as "surveySessionId", respondent_uuid::text as "respondentId", panel_respondent_id as "panelRespondentId", status,
             end_reason as "endReason", is_simulated as "isSimulated", to_json(started_at)#>>'{}' as "startedAt", to_json(completed_at)#>>'{}' as "completedAt"
      from survey_sessions where survey_run_id = ${runId} and (${status}::text is null or status = ${status}::text)
      order by id desc limit ${opts.pageSize} offset ${(opts.page - 1) * opts.pageSize}`;
    return { surveyRunId: runId, total, value };
  });
}

/** The ids of a CSV's first column; a first row that is no id is a header. */
export function idsFromCsv(csv: string): string[] {
  const ids = csv
    .split(/\r?\n/)
    .map((l) => l.split(",")[0]!.trim().replace(/^"|"$/g, ""))
    .filter((x) => x.length > 0);
  if (ids.length && !/^[0-9a-f-]{36}$/i.test(ids[0]!) && !/^sim-|^\w[\w.-]*\d/.test(ids[0]!)) ids.shift();
  if (!ids.length) throw new ApiError("BadRequest", "The CSV has no respondent ids in its first column");
  return ids;
}

export async function removeRespondents(db: Db, runId: number, ids: string[]): Promise<{ surveyRunId: number; removed: number; notFound: string[]; weighting: WeightingReport | null }> {
  return system(db, async (tx) => {
    const run = await runOf(tx, runId, true);
    const uuids = ids.filter((x) => /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(x));
    const found = await tx<{ id: number; uuid: string; panel: string | null }[]>`
      select id, respondent_uuid::text as uuid, panel_respondent_id as panel from survey_sessions
      where survey_run_id = ${run.id} and (respondent_uuid = any(${uuids}::uuid[]) or panel_respondent_id = any(${ids}::text[]))`;
    const known = new Set(found.flatMap((f) => [f.uuid, f.panel ?? ""]));
    const sessionIds = found.map((f) => f.id);
    // What each supplier respondent that had ended was sent is on record before the removal changes it.
    await recordOutcomes(tx, run.id);
    await tx`update survey_sessions set status = 'Removed', end_reason = 'removed by staff', updated_at = now() where id = any(${sessionIds}::int[])`;
    // A supplier's respondent removed while answering has an outcome now; one that had ended keeps
    // what it was sent, and a reported complete is reversed (its supplier is told: record 0136).
    await recordOutcomes(tx, run.id);
    await recordReversals(tx, run.id, sessionIds, "removed by staff");
    // Their results rows go with their project sessions (responses and text responses cascade).
    await tx`delete from project_survey_sessions where survey_session_id = any(${sessionIds}::int[])`;
    let weighting: WeightingReport | null = null;
    if (run.processedAt) {
      weighting = await weightRun(tx, run);
      if (weighting) await q.setWeighting(tx, run.id, weighting);
    }
    return { surveyRunId: run.id, removed: sessionIds.length, notFound: ids.filter((x) => !known.has(x)), weighting };
  });
}

export async function backwardsSync(db: Db, runId: number): Promise<ProcessResult> {
  await system(db, async (tx) => {
    const run = await runOf(tx, runId, true);
    if (run.surveyStatusId !== SURVEY_STATUS.Closed) throw new ApiError("Conflict", `Survey run ${runId} is ${statusName(run.surveyStatusId)}: rebuild a Closed run`);
    await tx`delete from project_survey_sessions where survey_run_id = ${run.id} and project_id = ${run.definition.projectId}`;
    await tx`update survey_sessions set processed_at = null, updated_at = now() where survey_run_id = ${run.id} and status = 'Complete'`;
  });
  return processRun(db, runId, { reprocess: true });
}

function surveyTexts(def: SurveyDefinition): string[] {
  const texts = new Set<string>();
  for (const q of [...def.demographics, ...def.screener, ...def.loop, ...def.followUps]) {
    texts.add(q.text);
    for (const o of q.options) texts.add(o.text);
  }
  for (const t of def.testOptions) texts.add(t.conceptText);
  return [...texts];
}

export async function translationCounts(db: Db, runId: number) {
  return system(db, async (tx) => {
    const run = await runOf(tx, runId);
    const have = new Set((await q.translations(tx, run.regionId)).map((t) => t.sourceText));
    const texts = surveyTexts(run.definition);
    const missing = texts.filter((t) => !have.has(t));
    return { surveyRunId: run.id, regionId: run.regionId, texts: texts.length, translated: texts.length - missing.length, missing: missing.slice(0, 200) };
  });
}

export async function completesCounts(db: Db, ctx: RequestCtx, projectId: number, publicUrl: string) {
  const runs = await enterTenant(db, ctx, async (tx) => {
    const found = await tx`select 1 from projects where id = ${projectId} and deleted_at is null`;
    if (!found.length) throw new ApiError("NotFound", `No project ${projectId}`);
    return tx<{ id: number }[]>`
      select distinct s.survey_run_id as id from project_schedules s where s.project_id = ${projectId} and s.survey_run_id is not null`;
  });
  // The project is the caller's (checked above); the run rows are read for it.
  return system(db, async (tx) => {
    const ids = runs.map((r) => r.id);
    const counts = await q.runCounts(tx, ids);
    const meta = await tx<
      {
        id: number;
        regionId: number;
        isCustomerPanel: boolean;
        supplier: boolean;
        sampleSource: q.SampleSource;
        surveyLink: string;
        surveyStatusId: number;
        targetCompletes: number | null;
        waveNumber: number | null;
        fieldEndAt: string | null;
        stalledAt: string | null;
        closedReason: q.ClosedReason | null;
        definition: SurveyDefinition | null;
      }[]
    >`
      select r.id, r.region_id as "regionId", r.is_customer_panel as "isCustomerPanel", r.sample_supplier_id is not null as supplier, r.sample_source as "sampleSource", r.survey_link as "surveyLink", r.survey_status_id as "surveyStatusId",
             r.target_completes as "targetCompletes", (select min(wave_number) from project_schedules s where s.survey_run_id = r.id) as "waveNumber",
             to_json(r.field_end_at)#>>'{}' as "fieldEndAt", to_json(r.stalled_at)#>>'{}' as "stalledAt", r.closed_reason as "closedReason", r.definition
      from survey_runs r where r.id = any(${ids}::int[]) order by r.id`;
    // Each quota cell's progress, from the counts the engine decides over quota with.
    const quotas = new Map<number, QuotaGroupProgress[]>();
    for (const m of meta) {
      if (m.definition?.targets.some((t) => Object.keys(t.quotas).length) || m.definition?.crossed?.length)
        quotas.set(m.id, quotaProgress(m.definition, await q.quotaCounts(tx, m.id).then((c) => ({ completesByOption: c.byOption, completesByAnswer: c.byAnswer }))));
    }
    return {
      projectId,
      value: meta.map((m) => ({
        ...counts.find((c) => c.surveyRunId === m.id)!,
        regionId: m.regionId,
        isCustomerPanel: m.isCustomerPanel,
        sampleSource: m.sampleSource,
        surveyStatusId: m.surveyStatusId,
        targetCompletes: m.targetCompletes,
        waveNumber: m.waveNumber,
        // The team's own list answers a customer panel's run through its page; a supplier's run
        // takes only signed entries, so its bare link would only be refused.
        respondentLink: m.isCustomerPanel && !m.supplier ? `${publicUrl}/s/${m.surveyLink}` : null,
        fieldEndAt: iso(m.fieldEndAt),
        stalledAt: iso(m.stalledAt),
        closedReason: m.closedReason,
        fieldingState: fieldingState(m.surveyStatusId, m.stalledAt),
        quotas: quotas.get(m.id) ?? [],
      })),
    };
  });
}

/** The quality report of one run (staff) or of every run of a project (its team): counts per reason. */
export async function runQualityReport(db: Db, runId: number) {
  return system(db, async (tx) => {
    const [r] = await q.qualityReport(tx, [runId]);
    if (!r) throw new ApiError("NotFound", `No survey run ${runId}`);
    return withReasons(r);
  });
}

const withReasons = (r: q.QualityReportRow) => ({ ...r, byReason: Object.fromEntries(QUALITY_REASONS.map((k) => [k, r.byReason[k] ?? 0])) as Record<(typeof QUALITY_REASONS)[number], number> });

export async function projectQualityReport(db: Db, ctx: RequestCtx, projectId: number) {
  const runs = await enterTenant(db, ctx, async (tx) => {
    const found = await tx`select 1 from projects where id = ${projectId} and deleted_at is null`;
    if (!found.length) throw new ApiError("NotFound", `No project ${projectId}`);
    return tx<{ id: number }[]>`select distinct survey_run_id as id from project_schedules where project_id = ${projectId} and survey_run_id is not null`;
  });
  // The project is the caller's (checked above); its runs' sessions are read for it.
  return system(db, async (tx) => ({
    projectId,
    value: (
      await q.qualityReport(
        tx,
        runs.map((r) => r.id),
      )
    ).map(withReasons),
  }));
}
