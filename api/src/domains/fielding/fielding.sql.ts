// The fielding domain's SQL: survey runs from started schedules, the questionnaire snapshot,
// respondent sessions, and the rows processing writes (responses, text responses, weights).
import type postgres from "postgres";
import type { Db, Tx } from "../../db/client.ts";
import type { Answers, SurveyDefinition } from "./engine.ts";
import { jsonParam } from "../../db/params.ts";

type Sql = Db | Tx;

// ---- runs ----

export interface RunRow {
  id: number;
  clientId: number;
  regionId: number;
  surveyStatusId: number;
  sampleProviderId: number;
  isCustomerPanel: boolean;
  targetCompletes: number | null;
  surveyLink: string;
  isSimulated: boolean;
  definition: SurveyDefinition | null;
  launchedAt: string | null;
  closedAt: string | null;
  processedAt: string | null;
  scheduleDate: string;
  fieldEndAt: string | null;
  lastCompleteAt: string | null;
  stalledAt: string | null;
  closedReason: ClosedReason | null;
  sampleSupplierId: number | null;
  sampleSource: SampleSource;
}

/** Where a run's respondents come from (survey_runs.sample_source, migration 0047). */
export type SampleSource = "simulated" | "customer" | "supplier";

export type ClosedReason = "quota" | "field end" | "staff";

/**
 * The respondent routes' statements whose text is built from this file's constants (unsafe) are
 * prepared as the tagged ones are (postgres.js prepares only those by default): a start and a page
 * otherwise plan them afresh each time, a third of a simulated person's time in the server
 * (docs/testing.md, "The simulated panel's cost"). A pooled connection prepares nothing (client.ts).
 */
const PREPARED = { prepare: true };

/** The run's columns but its definition (runForRespondent reads the definition once per change). */
const RUN_STATE_COLUMNS = `id, client_id as "clientId", region_id as "regionId", survey_status_id as "surveyStatusId",
  sample_provider_id as "sampleProviderId", is_customer_panel as "isCustomerPanel", target_completes as "targetCompletes",
  survey_link::text as "surveyLink", is_simulated as "isSimulated", launched_at as "launchedAt",
  closed_at as "closedAt", processed_at as "processedAt", schedule_date::text as "scheduleDate",
  field_end_at as "fieldEndAt", last_complete_at as "lastCompleteAt", stalled_at as "stalledAt", closed_reason as "closedReason",
  sample_supplier_id as "sampleSupplierId", sample_source as "sampleSource"`;
const RUN_COLUMNS = `${RUN_STATE_COLUMNS}, definition`;

export async function run(tx: Sql, id: number, lock = false): Promise<RunRow | undefined> {
  // RUN_COLUMNS is a constant of this file: no input in the text.
  const [r] = await tx.unsafe<RunRow[]>(`select ${RUN_COLUMNS} from survey_runs where id = $1 ${lock ? "for update" : ""}`, [id]);
  return r;
}

export async function runByLink(tx: Sql, link: string, lock = false): Promise<RunRow | undefined> {
  const [r] = await tx.unsafe<RunRow[]>(`select ${RUN_COLUMNS} from survey_runs where survey_link = $1::uuid ${lock ? "for update" : ""}`, [link]);
  return r;
}

/** Definitions the respondent routes read, per database, by run id, with the run's updated_at they were read at. */
const definitions = new WeakMap<Db, Map<number, { at: string; definition: SurveyDefinition | null }>>();
/** Runs whose definition a process keeps per database (the most recently read). */
export const DEFINITIONS_KEPT = 1000;

/**
 * The run at a survey link, locked unless `lock` is false (a reload), for a respondent's request: its
 * definition (the questionnaire, often tens of kilobytes of JSON) is read from the database only
 * when the run's updated_at differs from the one it was last read at in this process, since every
 * write of a run's definition sets updated_at (updateDefinition, the sample source's
 * isCustomerPanel). A page otherwise reads the run's state alone. The definition is shared
 * between requests: nothing may change it.
 */
export async function runForRespondent(db: Db, tx: Sql, link: string, lock = true): Promise<RunRow | undefined> {
  const [r] = await tx.unsafe<(Omit<RunRow, "definition"> & { updatedAt: string })[]>(
    `select ${RUN_STATE_COLUMNS}, updated_at::text as "updatedAt" from survey_runs where survey_link = $1::uuid ${lock ? "for update" : ""}`,
    [link],
    PREPARED,
  );
  if (!r) return undefined;
  const { updatedAt, ...run } = r;
  const kept = definitions.get(db) ?? definitions.set(db, new Map()).get(db)!;
  let def = kept.get(run.id);
  if (def?.at !== updatedAt) {
    const [d] = await tx<{ definition: SurveyDefinition | null }[]>`select definition from survey_runs where id = ${run.id}`;
    def = { at: updatedAt, definition: d?.definition ?? null };
    kept.delete(run.id);
    if (kept.size >= DEFINITIONS_KEPT) kept.delete(kept.keys().next().value!);
  }
  // The most recently read last (the first is dropped when the map is full).
  kept.delete(run.id);
  kept.set(run.id, def);
  return { ...run, definition: def.definition };
}

export async function runsOfProject(tx: Sql, projectId: number): Promise<RunRow[]> {
  return tx.unsafe<RunRow[]>(
    `select ${RUN_COLUMNS} from survey_runs r
     where exists (select 1 from project_schedules s where s.survey_run_id = r.id and s.project_id = $1)
        or exists (select 1 from project_weeks w where w.survey_run_id = r.id and w.project_id = $1)
     order by id`,
    [projectId],
  );
}

/** Started schedules waiting for fielding, grouped into the runs to create. */
export interface ReadyGroup {
  projectId: number;
  clientId: number;
  regionId: number;
  isCustomerPanel: boolean;
  /** The sample supplier staff chose for these waves before the run existed (migration 0056). */
  sampleSupplierId: number | null;
  scheduleDate: string;
  scheduleIds: number[];
  sampleSize: number;
  waveNumber: number | null;
}

export async function readyGroups(tx: Sql, projectId: number | null): Promise<ReadyGroup[]> {
  return tx<ReadyGroup[]>`
    select s.project_id as "projectId", s.client_id as "clientId", s.region_id as "regionId", s.is_customer_panel as "isCustomerPanel",
           s.sample_supplier_id as "sampleSupplierId", min(s.schedule_date)::text as "scheduleDate", array_agg(s.id order by s.id) as "scheduleIds",
           max(coalesce(s.sample_size, pr.sample_size, 200))::int as "sampleSize", min(s.wave_number) as "waveNumber"
    from project_schedules s
    join projects p on p.id = s.project_id and p.deleted_at is null
    left join projects_regions pr on pr.project_id = s.project_id and pr.region_id = s.region_id
    where s.survey_run_id is null and s.started_at is not null and s.launch_state = 'ReadyToLaunch'
      and p.status_code in (300, 400)
      and (${projectId}::int is null or s.project_id = ${projectId}::int)
    group by s.project_id, s.client_id, s.region_id, s.is_customer_panel, s.sample_supplier_id
    order by s.project_id, s.region_id, s.sample_supplier_id nulls first`;
}

export async function insertRun(tx: Sql, g: ReadyGroup, seed: number): Promise<number> {
  const [r] = await tx<{ id: number }[]>`
    insert into survey_runs (client_id, region_id, sample_provider_id, sample_supplier_id, schedule_date, target_completes, simulated_seed)
    values (${g.clientId}, ${g.regionId}, ${g.isCustomerPanel ? 2 : 1}, ${g.sampleSupplierId}, ${g.scheduleDate}::date, ${g.sampleSize}, ${seed})
    returning id`;
  await tx`update project_schedules set survey_run_id = ${r!.id}, updated_at = now() where id = any(${g.scheduleIds}::int[])`;
  return r!.id;
}

export async function setDefinition(tx: Sql, runId: number, def: SurveyDefinition): Promise<void> {
  await tx`update survey_runs set definition = ${tx.json(def)}, updated_at = now() where id = ${runId}`;
}

export async function setRunStatus(tx: Sql, runId: number, status: number, stamp: "launched_at" | "closed_at" | "processed_at" | null): Promise<void> {
  if (stamp === "launched_at") await tx`update survey_runs set survey_status_id = ${status}, launched_at = coalesce(launched_at, now()), updated_at = now() where id = ${runId}`;
  else if (stamp === "closed_at") await tx`update survey_runs set survey_status_id = ${status}, closed_at = coalesce(closed_at, now()), updated_at = now() where id = ${runId}`;
  else if (stamp === "processed_at") await tx`update survey_runs set processed_at = now(), updated_at = now() where id = ${runId}`;
  else await tx`update survey_runs set survey_status_id = ${status}, updated_at = now() where id = ${runId}`;
}

export async function setWeighting(tx: Sql, runId: number, report: object): Promise<void> {
  await tx`update survey_runs set weighting = ${jsonParam(tx, report)}, updated_at = now() where id = ${runId}`;
}

export async function markSimulated(tx: Sql, runId: number): Promise<void> {
  await tx`update survey_runs set is_simulated = true, updated_at = now() where id = ${runId}`;
}

export async function setRunError(tx: Sql, runId: number, message: string): Promise<void> {
  await tx`update survey_runs set survey_status_id = 1010, error_message = ${message}, updated_at = now() where id = ${runId}`;
}

export async function waveOfRun(tx: Sql, runId: number): Promise<number | null> {
  const [r] = await tx<{ w: number | null }[]>`select min(wave_number) as w from project_schedules where survey_run_id = ${runId}`;
  return r?.w ?? null;
}

// ---- the questionnaire snapshot ----

export interface ProjectForDef {
  id: number;
  clientId: number;
  projectName: string;
  projectTypeId: number;
  statusCode: number;
  splitCellQuota: boolean;
  launchDate: string | null;
}

export async function projectForDef(tx: Sql, projectId: number, lock = false): Promise<ProjectForDef | undefined> {
  const [p] = await tx.unsafe<ProjectForDef[]>(
    `select id, client_id as "clientId", project_name as "projectName", project_type_id as "projectTypeId", status_code as "statusCode",
            split_cell_quota as "splitCellQuota", launch_date::text as "launchDate"
     from projects where id = $1 and deleted_at is null ${lock ? "for update" : ""}`,
    [projectId],
  );
  return p;
}

export async function region(tx: Sql, regionId: number) {
  const [r] = await tx<{ id: number; regionName: string; currencyCode: string; currencySymbol: string }[]>`
    select id, region_name as "regionName", currency_code as "currencyCode", currency_symbol as "currencySymbol" from regions where id = ${regionId}`;
  return r;
}

export async function testOptions(tx: Sql, projectId: number) {
  return tx<{ id: number; conceptText: string; conceptDescription: string | null; fileKey: string | null; fileType: string | null }[]>`
    select id, concept_text as "conceptText", concept_description as "conceptDescription", file->>'key' as "fileKey", file->>'fileType' as "fileType"
    from test_options where project_id = ${projectId} and deleted_at is null order by sort_order, id`;
}

export interface SystemQuestionRow {
  id: number;
  questionLabel: string;
  questionText: string;
  options: { id: number; text: string }[];
}

/** The demographic questions asked in a region: every system question with visible options there. */
export async function systemQuestions(tx: Sql, regionId: number): Promise<SystemQuestionRow[]> {
  return tx<SystemQuestionRow[]>`
    select sq.id, sq.question_label as "questionLabel", sq.question_text as "questionText",
           json_agg(json_build_object('id', o.id, 'text', o.answer_label) order by o.sort_order, o.id) as options
    from system_question sq
    join system_question_option o on o.system_question_id = sq.id and o.is_visible and (o.region_id is null or o.region_id = ${regionId})
    group by sq.id
    order by sq.sort_order, sq.id`;
}

export interface ProjectQuestionRow {
  id: number;
  questionId: number;
  standardQuestionId: number | null;
  positionId: number;
  testOptionId: number | null;
  questionTypeId: number;
  title: string | null;
  text: string;
  minChoices: number | null;
  maxChoices: number | null;
  options: { id: number; text: string; exclusive: boolean; isNotSure: boolean; standardAnswerValue: number | null }[];
}

export async function projectQuestions(tx: Sql, projectId: number): Promise<ProjectQuestionRow[]> {
  return tx<ProjectQuestionRow[]>`
    select pq.id, pq.question_id as "questionId", pq.standard_question_id as "standardQuestionId", pq.question_position_id as "positionId",
           pq.test_option_id as "testOptionId", q.question_type_id as "questionTypeId", q.question_title as title, q.question_text as text,
           q.min_choices as "minChoices", q.max_choices as "maxChoices",
           coalesce((select json_agg(json_build_object('id', o.id, 'text', o.option_text, 'exclusive', o.exclusive, 'isNotSure', o.is_not_sure,
                                                       'standardAnswerValue', o.standard_answer_value) order by o.sort_order, o.id)
                     from question_options o where o.question_id = q.id), '[]') as options
    from project_questions pq
    join questions q on q.id = pq.question_id
    join question_positions pos on pos.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null and q.deleted_at is null
    order by pos.sort_position, pq.sort_order, pq.id`;
}

export async function targets(tx: Sql, projectId: number, regionId: number) {
  return tx<{ systemQuestionId: number | null; questionId: number | null; optionId: number; quotaPercent: number | null; onlyThese: boolean }[]>`
    select so.system_question_id as "systemQuestionId", t.question_id as "questionId",
           coalesce(t.system_question_option_id, t.question_option_id) as "optionId", t.quota_percent::float8 as "quotaPercent",
           t.only_these as "onlyThese"
    from targets t
    left join system_question_option so on so.id = t.system_question_option_id
    where t.project_id = ${projectId} and (t.region_id is null or t.region_id = ${regionId})
    order by t.id`;
}

export async function priceRanges(tx: Sql, projectId: number) {
  return tx<{ testOptionId: number | null; min: number | null; max: number | null; purchaseIntent: boolean }[]>`
    select test_option_id as "testOptionId", min_price::float8 as min, max_price::float8 as max, purchase_intent as "purchaseIntent"
    from project_price_sensitivities where project_id = ${projectId}`;
}

/** Market reach options standing for test options: answer option id -> test option id. */
export async function marketReachOptions(tx: Sql, projectId: number) {
  return tx<{ answerOptionId: number; testOptionId: number }[]>`
    select o.answer_option_id as "answerOptionId", o.test_option_id as "testOptionId"
    from project_market_reach m join project_market_reach_options o on o.project_market_reach_id = m.id
    where m.project_id = ${projectId} and o.answer_option_id is not null and o.test_option_id is not null`;
}

export async function translations(tx: Sql, regionId: number) {
  return tx<{ sourceText: string; translatedText: string }[]>`
    select distinct on (source_text) source_text as "sourceText", translated_text as "translatedText"
    from translated_text_regions where region_id = ${regionId}
    order by source_text, is_verified desc, updated_at desc nulls last, id desc`;
}

// ---- sessions ----

export interface SessionRow {
  id: number;
  clientId: number;
  surveyRunId: number;
  regionId: number;
  respondentUuid: string;
  panelRespondentId: string | null;
  status: string;
  answers: Answers;
  testOptionOrder: number[];
  page: number;
  endReason: string | null;
  isSimulated: boolean;
  completedAt: string | null;
  sampleSupplierId: number | null;
  supplierRid: string | null;
  qualityFlags: string[];
  startedAt: string;
  /** The duplicate checks' own signals (quality.ts): the device's fingerprint and the entry's network key. */
  deviceFingerprint: string | null;
  networkKey: string | null;
}

const SESSION_COLUMNS = `id, client_id as "clientId", survey_run_id as "surveyRunId", region_id as "regionId",
  respondent_uuid::text as "respondentUuid", panel_respondent_id as "panelRespondentId", status, answers,
  test_option_order as "testOptionOrder", page, end_reason as "endReason", is_simulated as "isSimulated", completed_at as "completedAt",
  sample_supplier_id as "sampleSupplierId", supplier_rid as "supplierRid", quality_flags as "qualityFlags", started_at as "startedAt",
  device_fingerprint as "deviceFingerprint", network_key as "networkKey"`;

export async function session(tx: Sql, runId: number, uuid: string, lock = false): Promise<SessionRow | undefined> {
  const [s] = await tx.unsafe<SessionRow[]>(
    `select ${SESSION_COLUMNS} from survey_sessions where survey_run_id = $1 and respondent_uuid = $2::uuid ${lock ? "for update" : ""}`,
    [runId, uuid],
    PREPARED,
  );
  return s;
}

/**
 * A respondent's session by the run's link, locked: what session() reads, sent with the run's own
 * read (runForRespondent) in one round trip, since it needs no answer of it first.
 */
export async function sessionAtLink(tx: Sql, link: string, uuid: string): Promise<SessionRow | undefined> {
  const [s] = await tx.unsafe<SessionRow[]>(
    `select ${SESSION_COLUMNS} from survey_sessions where survey_run_id = (select id from survey_runs where survey_link = $1::uuid) and respondent_uuid = $2::uuid for update`,
    [link, uuid],
    PREPARED,
  );
  return s;
}

export async function sessionByPanelId(tx: Sql, runId: number, panelId: string): Promise<SessionRow | undefined> {
  const [s] = await tx.unsafe<SessionRow[]>(`select ${SESSION_COLUMNS} from survey_sessions where survey_run_id = $1 and panel_respondent_id = $2`, [runId, panelId], PREPARED);
  return s;
}

export interface NewSession {
  clientId: number;
  surveyRunId: number;
  regionId: number;
  panelRespondentId: string | null;
  testOptionOrder: number[];
  isSimulated: boolean;
  sampleSupplierId?: number | null;
  supplierRid?: string | null;
  deviceFingerprint?: string | null;
  /** The entry's network signal (quality.ts networkKey): a keyed hash, never the address. */
  networkKey?: string | null;
  /** When the respondent started: now, unless the simulated panel's person says (respondentBatch). */
  startedAt?: Date | null;
}

export async function insertSession(tx: Sql, s: NewSession): Promise<SessionRow> {
  const [r] = await tx.unsafe<SessionRow[]>(
    `insert into survey_sessions (client_id, survey_run_id, region_id, panel_respondent_id, test_option_order, is_simulated,
                                  sample_supplier_id, supplier_rid, device_fingerprint, network_key, started_at)
     values ($1, $2, $3, $4, $5::int[], $6, $7, $8, $9, $10, coalesce($11::timestamptz, now())) returning ${SESSION_COLUMNS}`,
    [
      s.clientId,
      s.surveyRunId,
      s.regionId,
      s.panelRespondentId,
      s.testOptionOrder,
      s.isSimulated,
      s.sampleSupplierId ?? null,
      s.supplierRid ?? null,
      s.deviceFingerprint ?? null,
      s.networkKey ?? null,
      s.startedAt?.toISOString() ?? null,
    ],
    PREPARED,
  );
  return r!;
}

/**
 * A supplier's respondent's session, inserted unless their rid has entered the run before (a
 * session of theirs, or an outcome recorded for it: a late arrival): undefined then. One statement
 * where a read of the rid and then the insert took two round trips.
 */
export async function insertSessionOfNewRid(tx: Sql, s: NewSession & { sampleSupplierId: number; supplierRid: string }): Promise<SessionRow | undefined> {
  const [r] = await tx.unsafe<SessionRow[]>(
    `insert into survey_sessions (client_id, survey_run_id, region_id, panel_respondent_id, test_option_order, is_simulated,
                                  sample_supplier_id, supplier_rid, device_fingerprint, network_key, started_at)
     select $1, $2, $3, $4, $5::int[], $6, $7, $8, $9, $10, coalesce($11::timestamptz, now())
     where not exists (select 1 from survey_sessions where survey_run_id = $2 and sample_supplier_id = $7 and supplier_rid = $8)
       and not exists (select 1 from supplier_outcomes where survey_run_id = $2 and sample_supplier_id = $7 and rid = $8)
     returning ${SESSION_COLUMNS}`,
    [
      s.clientId,
      s.surveyRunId,
      s.regionId,
      s.panelRespondentId,
      s.testOptionOrder,
      s.isSimulated,
      s.sampleSupplierId,
      s.supplierRid,
      s.deviceFingerprint ?? null,
      s.networkKey ?? null,
      s.startedAt?.toISOString() ?? null,
    ],
    PREPARED,
  );
  return r;
}

export async function sessionBySupplierRid(tx: Sql, runId: number, supplierId: number, rid: string): Promise<SessionRow | undefined> {
  const [s] = await tx.unsafe<SessionRow[]>(
    `select ${SESSION_COLUMNS} from survey_sessions where survey_run_id = $1 and sample_supplier_id = $2 and supplier_rid = $3`,
    [runId, supplierId, rid],
    PREPARED,
  );
  return s;
}

export async function saveSession(
  tx: Sql,
  id: number,
  s: { status: string; answers: Answers; page: number; endReason: string | null; qualityFlags?: string[]; at?: Date | null },
): Promise<SessionRow> {
  const [r] = await tx<SessionRow[]>`
    update survey_sessions set status = ${s.status}, answers = ${jsonParam(tx, s.answers)}, page = ${s.page}, end_reason = ${s.endReason},
      quality_flags = ${s.qualityFlags ?? []}::text[],
      completed_at = case when ${s.status} = 'InProgress' then null else coalesce(completed_at, ${s.at?.toISOString() ?? null}::timestamptz, now()) end, updated_at = now()
    where id = ${id}
    returning ${tx.unsafe(SESSION_COLUMNS)}`;
  return r!;
}

/** A run's completes. */
export async function completeCount(tx: Sql, runId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`select count(*)::int as n from survey_sessions where survey_run_id = ${runId} and status = 'Complete'`;
  return r!.n;
}

/** A simulated respondent, walked through the engine in memory, saved in one insert. */
export interface FinishedSession {
  clientId: number;
  surveyRunId: number;
  regionId: number;
  panelRespondentId: string;
  status: string;
  answers: Answers;
  testOptionOrder: number[];
  page: number;
  endReason: string | null;
  /** Seconds from start to end. */
  lengthSeconds: number;
  deviceFingerprint: string | null;
  qualityFlags: string[];
}

export async function insertFinishedSessions(tx: Sql, rows: FinishedSession[]): Promise<number> {
  if (!rows.length) return 0;
  const r = await tx`
    insert into survey_sessions (client_id, survey_run_id, region_id, panel_respondent_id, status, answers, test_option_order, page, end_reason, is_simulated,
                                 started_at, completed_at, device_fingerprint, quality_flags)
    select x.client_id, x.survey_run_id, x.region_id, x.panel_respondent_id, x.status, x.answers, x.test_option_order, x.page, x.end_reason, true,
           now() - make_interval(secs => x.length_seconds), now(), x.device_fingerprint, x.quality_flags
    from jsonb_to_recordset(${tx.json(
      rows.map((s) => ({
        client_id: s.clientId,
        survey_run_id: s.surveyRunId,
        region_id: s.regionId,
        panel_respondent_id: s.panelRespondentId,
        status: s.status,
        answers: s.answers,
        test_option_order: s.testOptionOrder,
        page: s.page,
        end_reason: s.endReason,
        length_seconds: s.lengthSeconds,
        device_fingerprint: s.deviceFingerprint,
        quality_flags: s.qualityFlags,
      })) as postgres.JSONValue,
    )}) as x(client_id int, survey_run_id int, region_id int, panel_respondent_id text, status text, answers jsonb, test_option_order int[], page int, end_reason text,
             length_seconds float8, device_fingerprint text, quality_flags text[])
    on conflict (survey_run_id, panel_respondent_id) where panel_respondent_id is not null do nothing`;
  return r.count;
}

/**
 * Completes in the run: per test option seen (byOption, by its id) and per single-choice answer
 * given (byAnswer, by the engine's answerCell "{answer key}:{option id}": a demographic's, a
 * screener's and a test option's ids come from separate sequences and may be equal), and per pair
 * of demographic answers (the engine's crossedCell "s45:4500001&s51:5100001", keys in code-unit
 * order: engine.ts countComplete counts the same way).
 */
export async function quotaCounts(tx: Sql, runId: number): Promise<{ completes: number; byOption: Record<string, number>; byAnswer: Record<string, number> }> {
  const [r] = await tx<{ completes: number; byOption: Record<string, number> | null; byAnswer: Record<string, number> | null }[]>`
    with c as (select answers, test_option_order from survey_sessions where survey_run_id = ${runId} and status = 'Complete'),
    answers as (select v.key || ':' || (v.value #>> '{}') as k from c, jsonb_each(c.answers) v where jsonb_typeof(v.value) = 'number'),
    pairs as (
      select a.key || ':' || (a.value #>> '{}') || '&' || b.key || ':' || (b.value #>> '{}') as k
      from c cross join lateral jsonb_each(c.answers) a cross join lateral jsonb_each(c.answers) b
      where a.key ~ '^s[0-9]+$' and b.key ~ '^s[0-9]+$' and a.key collate "C" < b.key collate "C"
        and jsonb_typeof(a.value) = 'number' and jsonb_typeof(b.value) = 'number'),
    seen as (select t::text as k from c, unnest(c.test_option_order) t)
    select (select count(*) from c)::int as completes,
           (select jsonb_object_agg(k, n) from (select k, count(*)::int as n from seen group by k) g) as "byOption",
           (select jsonb_object_agg(k, n) from (select k, count(*)::int as n from (select k from answers union all select k from pairs) x group by k) g) as "byAnswer"`;
  return { completes: r!.completes, byOption: r!.byOption ?? {}, byAnswer: r!.byAnswer ?? {} };
}

/**
 * The quota cells a page's verdict reads, counted over the run's completes (what afterPage needs of
 * quotaCounts, and nothing else): the completes, each single answer to the given keys by
 * answerCell ("s45:4500001"), and each given crossing's pair by crossedCell, keys in the order
 * given ("s45:4500001&s51:5100001"). A respondent's page reads each key of the run's stored
 * answers it names instead of every answer and every pair of every complete (quotaCounts), so a
 * page costs the run's completes once, not their answers squared.
 */
export async function quotaCells(tx: Sql, runId: number, keys: readonly string[], crossings: readonly (readonly [string, string])[]): Promise<{ completes: number; byAnswer: Record<string, number> }> {
  const [r] = await tx<{ completes: number; byAnswer: Record<string, number> | null }[]>`
    with c as (select answers from survey_sessions where survey_run_id = ${runId} and status = 'Complete'),
    cells as (
      select k || ':' || (c.answers -> k #>> '{}') as k from c, unnest(${[...keys]}::text[]) k where jsonb_typeof(c.answers -> k) = 'number'
      union all
      select x.a || ':' || (c.answers -> x.a #>> '{}') || '&' || x.b || ':' || (c.answers -> x.b #>> '{}')
      from c, unnest(${crossings.map((x) => x[0])}::text[], ${crossings.map((x) => x[1])}::text[]) x(a, b)
      where jsonb_typeof(c.answers -> x.a) = 'number' and jsonb_typeof(c.answers -> x.b) = 'number')
    select (select count(*) from c)::int as completes,
           (select jsonb_object_agg(k, n) from (select k, count(*)::int as n from cells group by k) g) as "byAnswer"`;
  return { completes: r!.completes, byAnswer: r!.byAnswer ?? {} };
}

/** A run's completes and its completes per test option seen (quotaCounts without the answers' cells). */
export async function completesByOption(tx: Sql, runId: number): Promise<{ completes: number; byOption: Record<string, number> }> {
  const [r] = await tx<{ completes: number; byOption: Record<string, number> | null }[]>`
    with c as (select test_option_order from survey_sessions where survey_run_id = ${runId} and status = 'Complete')
    select (select count(*) from c)::int as completes,
           (select jsonb_object_agg(k, n) from (select t::text as k, count(*)::int as n from c, unnest(c.test_option_order) t group by t) g) as "byOption"`;
  return { completes: r!.completes, byOption: r!.byOption ?? {} };
}

export interface RunCounts {
  surveyRunId: number;
  started: number;
  inProgress: number;
  complete: number;
  screenedOut: number;
  overQuota: number;
  removed: number;
}

export async function runCounts(tx: Sql, runIds: number[]): Promise<RunCounts[]> {
  return tx<RunCounts[]>`
    select r.id as "surveyRunId", count(s.id)::int as started,
           count(*) filter (where s.status = 'InProgress')::int as "inProgress",
           count(*) filter (where s.status = 'Complete')::int as complete,
           count(*) filter (where s.status = 'ScreenedOut')::int as "screenedOut",
           count(*) filter (where s.status = 'OverQuota')::int as "overQuota",
           count(*) filter (where s.status = 'Removed')::int as removed
    from survey_runs r left join survey_sessions s on s.survey_run_id = r.id
    where r.id = any(${runIds}::int[])
    group by r.id order by r.id`;
}

// ---- processing ----

export async function unprocessedCompletes(tx: Sql, runId: number): Promise<SessionRow[]> {
  return tx.unsafe<SessionRow[]>(`select ${SESSION_COLUMNS} from survey_sessions where survey_run_id = $1 and status = 'Complete' and processed_at is null order by id for update`, [runId]);
}

export async function insertProjectSessions(
  tx: Sql,
  rows: { clientId: number; projectId: number; surveySessionId: number; surveyRunId: number; regionId: number; isCustomerPanel: boolean; week: number | null; completedAt: string | null }[],
): Promise<{ id: number; surveySessionId: number }[]> {
  if (!rows.length) return [];
  return tx<{ id: number; surveySessionId: number }[]>`
    insert into project_survey_sessions (client_id, project_id, survey_session_id, survey_run_id, region_id, is_customer_panel, status, week, completed_at)
    select x.client_id, x.project_id, x.survey_session_id, x.survey_run_id, x.region_id, x.is_customer_panel, 'Complete', x.week, coalesce(x.completed_at, now())
    from jsonb_to_recordset(${tx.json(
      rows.map((r) => ({
        client_id: r.clientId,
        project_id: r.projectId,
        survey_session_id: r.surveySessionId,
        survey_run_id: r.surveyRunId,
        region_id: r.regionId,
        is_customer_panel: r.isCustomerPanel,
        week: r.week,
        completed_at: r.completedAt,
      })) as postgres.JSONValue,
    )}) as x(client_id int, project_id int, survey_session_id int, survey_run_id int, region_id int, is_customer_panel boolean, week int, completed_at timestamptz)
    on conflict (project_id, survey_session_id) do nothing
    returning id, survey_session_id as "surveySessionId"`;
}

export type ResponseRow = {
  client_id: number;
  project_id: number;
  survey_run_id: number;
  survey_session_id: number;
  project_survey_session_id: number;
  region_id: number;
  is_customer_panel: boolean;
  project_question_id: number | null;
  question_id: number | null;
  standard_question_id: number | null;
  test_option_id: number | null;
  question_option_id: number | null;
  system_question_id: number | null;
  system_question_option_id: number | null;
  standard_answer_value: number | null;
  numeric_value: number | null;
  purchase_intent?: number | null;
  created_at: string;
};

export async function insertResponses(tx: Sql, rows: ResponseRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    await tx`
      insert into responses (client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, is_customer_panel,
        project_question_id, question_id, standard_question_id, test_option_id, question_option_id, system_question_id, system_question_option_id,
        standard_answer_value, numeric_value, purchase_intent, created_at)
      select client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id, is_customer_panel,
        project_question_id, question_id, standard_question_id, test_option_id, question_option_id, system_question_id, system_question_option_id,
        standard_answer_value, numeric_value, purchase_intent, created_at
      from jsonb_to_recordset(${tx.json(chunk)}) as x(client_id int, project_id int, survey_run_id int, survey_session_id int,
        project_survey_session_id int, region_id int, is_customer_panel boolean, project_question_id int, question_id int, standard_question_id int,
        test_option_id int, question_option_id int, system_question_id int, system_question_option_id int, standard_answer_value int,
        numeric_value numeric, purchase_intent smallint, created_at timestamptz)`;
  }
}

export type TextResponseRow = {
  client_id: number;
  project_id: number;
  survey_run_id: number;
  survey_session_id: number;
  project_survey_session_id: number;
  region_id: number;
  project_question_id: number;
  question_id: number;
  standard_question_id: number | null;
  test_option_id: number | null;
  response_text: string;
  created_at: string;
};

export async function insertTextResponses(tx: Sql, rows: TextResponseRow[]): Promise<void> {
  for (let i = 0; i < rows.length; i += 5000) {
    const chunk = rows.slice(i, i + 5000);
    await tx`
      insert into text_responses (client_id, project_id, survey_run_id, survey_session_id, project_survey_session_id, region_id,
        project_question_id, question_id, standard_question_id, test_option_id, response_text, created_at)
      select * from jsonb_to_recordset(${tx.json(chunk)}) as x(client_id int, project_id int, survey_run_id int, survey_session_id int,
        project_survey_session_id int, region_id int, project_question_id int, question_id int, standard_question_id int, test_option_id int,
        response_text text, created_at timestamptz)`;
  }
}

export async function markProcessed(tx: Sql, sessionIds: number[]): Promise<void> {
  await tx`update survey_sessions set processed_at = now(), updated_at = now() where id = any(${sessionIds}::int[])`;
}

/** The run's weighting sample: every complete project session of the project in the run, with its demographics. */
export async function weightingSample(tx: Sql, projectId: number, runId: number) {
  return tx<{ id: number; answers: Answers }[]>`
    select pss.id, ss.answers
    from project_survey_sessions pss join survey_sessions ss on ss.id = pss.survey_session_id
    where pss.project_id = ${projectId} and pss.survey_run_id = ${runId} and pss.status = 'Complete'
    order by pss.id`;
}

export async function censusMargins(tx: Sql, regionId: number) {
  return tx<{ systemQuestionId: number; optionId: number; share: number }[]>`
    select o.system_question_id as "systemQuestionId", m.system_question_option_id as "optionId", m.share::float8 as share
    from census_margins m join system_question_option o on o.id = m.system_question_option_id
    where m.region_id = ${regionId} order by 1, 2`;
}

export async function setWeights(tx: Sql, ids: number[], weights: number[]): Promise<void> {
  if (!ids.length) return;
  await tx`
    update project_survey_sessions p set weight = x.w, updated_at = now()
    from unnest(${ids}::int[], ${weights}::float8[]) as x(id, w) where p.id = x.id`;
}

/** Another run of the project still open or waiting for processing (its wave is not done). */
export async function otherRunsPending(tx: Sql, projectId: number, runId: number): Promise<boolean> {
  const [r] = await tx<{ x: boolean }[]>`
    select exists (
      select 1 from survey_runs r
      where r.id <> ${runId} and r.processed_at is null and r.survey_status_id in (0, 10, 50, 90)
        and exists (select 1 from project_schedules s where s.survey_run_id = r.id and s.project_id = ${projectId})) as x`;
  return r!.x;
}

// ---- field periods ----

/** The run's field end: launch + the project's field period (days), set once at launch. */
export async function setFieldEnd(tx: Sql, runId: number, projectId: number, defaultDays: number): Promise<void> {
  await tx`
    update survey_runs set field_end_at = coalesce(field_end_at, now() + make_interval(days => coalesce(
      (select field_period_days from projects where id = ${projectId}), ${defaultDays}::int))), updated_at = now()
    where id = ${runId}`;
}

export async function touchComplete(tx: Sql, runId: number): Promise<void> {
  await tx`update survey_runs set last_complete_at = now(), stalled_at = null, updated_at = now() where id = ${runId}`;
}

/** Live runs whose field end has passed. */
export async function runsPastFieldEnd(tx: Sql): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select id from survey_runs where survey_status_id = 50 and field_end_at is not null and field_end_at <= now() order by id`;
  return rows.map((r) => r.id);
}

/** Live runs with quota open and no complete for `hours` (since launch when none yet), not yet marked stalled. */
export async function runsStalling(tx: Sql, hours: number): Promise<number[]> {
  const rows = await tx<{ id: number }[]>`
    select r.id from survey_runs r
    where r.survey_status_id = 50 and r.stalled_at is null and r.definition is not null
      and coalesce(r.last_complete_at, r.launched_at) <= now() - make_interval(hours => ${hours}::int)
      and (select count(*) from survey_sessions s where s.survey_run_id = r.id and s.status = 'Complete') < coalesce(r.target_completes, 0)
    order by r.id`;
  return rows.map((r) => r.id);
}

/** The project's owner, else its client's Admins: who hears about its runs. */
export async function projectOwners(tx: Sql, projectId: number): Promise<{ clientId: number; projectName: string; userIds: number[] }> {
  const [p] = await tx<{ clientId: number; projectName: string; ownerUserId: number | null }[]>`
    select client_id as "clientId", project_name as "projectName", owner_user_id as "ownerUserId" from projects where id = ${projectId}`;
  if (!p) return { clientId: 0, projectName: "", userIds: [] };
  if (p.ownerUserId !== null) return { clientId: p.clientId, projectName: p.projectName, userIds: [p.ownerUserId] };
  const [a] = await tx<{ v: number[] }[]>`select app_client_admin_ids(${p.clientId}) as v`;
  return { clientId: p.clientId, projectName: p.projectName, userIds: a?.v ?? [] };
}

/** Completes the run delivered: its complete project survey sessions (removed respondents are not). */
export async function deliveredCompletes(tx: Sql, runId: number): Promise<number> {
  const [r] = await tx<{ n: number }[]>`select count(*)::int as n from project_survey_sessions where survey_run_id = ${runId} and status = 'Complete'`;
  return r?.n ?? 0;
}

// ---- respondent quality ----

/** The run's valid completes: their lengths (seconds), devices and network signals, for the quality checks. */
export async function completeLengths(tx: Sql, runId: number): Promise<{ lengths: number[]; fingerprints: string[]; networkKeys: string[] }> {
  const rows = await tx<{ len: number; fp: string | null; nk: string | null }[]>`
    select extract(epoch from completed_at - started_at)::float8 as len, device_fingerprint as fp, network_key as nk
    from survey_sessions where survey_run_id = ${runId} and status = 'Complete' and completed_at is not null`;
  return { lengths: rows.map((r) => r.len), fingerprints: rows.flatMap((r) => (r.fp ? [r.fp] : [])), networkKeys: rows.flatMap((r) => (r.nk ? [r.nk] : [])) };
}

/**
 * completesByOption, completeLengths and completeCount of a run at once, from one scan of its
 * completes (the simulated panel's batch asks them for each person: respondentBatch).
 */
export async function completesSoFar(
  tx: Sql,
  runId: number,
): Promise<{
  byOption: { completes: number; byOption: Record<string, number> };
  lengths: { lengths: number[]; fingerprints: string[]; networkKeys: string[] };
  completes: number;
}> {
  const [r] = await tx<{ completes: number; byOption: Record<string, number> | null; lengths: number[]; fingerprints: string[]; networkKeys: string[] }[]>`
    with c as materialized (
      select test_option_order, completed_at, started_at, device_fingerprint, network_key from survey_sessions where survey_run_id = ${runId} and status = 'Complete')
    select (select count(*) from c)::int as completes,
           (select jsonb_object_agg(k, n) from (select t::text as k, count(*)::int as n from c, unnest(c.test_option_order) t group by t) g) as "byOption",
           (select coalesce(array_agg(extract(epoch from completed_at - started_at)::float8), '{}') from c where completed_at is not null) as lengths,
           (select coalesce(array_agg(device_fingerprint), '{}') from c where completed_at is not null and device_fingerprint is not null) as fingerprints,
           (select coalesce(array_agg(network_key), '{}') from c where completed_at is not null and network_key is not null) as "networkKeys"`;
  return {
    byOption: { completes: r!.completes, byOption: r!.byOption ?? {} },
    lengths: { lengths: r!.lengths, fingerprints: r!.fingerprints, networkKeys: r!.networkKeys },
    completes: r!.completes,
  };
}

/** A run's key for its entries' network signals (quality.ts networkKey). */
export async function respondentKey(tx: Sql, runId: number): Promise<string> {
  const [r] = await tx<{ key: string }[]>`select respondent_key::text as key from survey_runs where id = ${runId}`;
  return r!.key;
}

export interface QualityReportRow {
  surveyRunId: number;
  regionId: number;
  completes: number;
  excluded: number;
  byReason: Record<string, number>;
}

/** Per run: valid completes, respondents excluded for quality, and counts per reason (a respondent may have several). */
export async function qualityReport(tx: Sql, runIds: number[]): Promise<QualityReportRow[]> {
  return tx<QualityReportRow[]>`
    select r.id as "surveyRunId", r.region_id as "regionId",
           (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and s.status = 'Complete') as completes,
           (select count(*)::int from survey_sessions s where s.survey_run_id = r.id and cardinality(s.quality_flags) > 0) as excluded,
           coalesce((select jsonb_object_agg(f, n) from (
             select f, count(*)::int as n from survey_sessions s, unnest(s.quality_flags) f where s.survey_run_id = r.id group by f) x), '{}') as "byReason"
    from survey_runs r where r.id = any(${runIds}::int[]) order by r.id`;
}
