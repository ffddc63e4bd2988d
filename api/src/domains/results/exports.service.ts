// Exports (SPEC 7 Projects ExportCsv and ExportExcel): the filtered respondents as a wide data file
// (one row per respondent: who, where, when, weight, demographics, then every question's answer,
// per test option for the questions of the test loop), and an Excel workbook whose summary cells
// are the very figures QualResults answers (same filters, same benchmark), plus demographics, the
// data, and a summary per saved segment when asked.
import { projectQualityReport } from "../fielding/fielding.admin.ts";
import { QUALITY_REASONS } from "../fielding/quality.ts";
import ExcelJS from "exceljs";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { resolveFilter, ResponseFilterSchema, sessionsSql, type ResolvedFilter, type ResponseFilter } from "./filters.ts";
import * as q from "./results.sql.ts";
import { demographicsResults, qualResults, type QualResults } from "./results.service.ts";
import { addCrossTabSheet } from "./crosstab.sheet.ts";

type Cell = string | number | null;

export interface RespondentTable {
  columns: string[];
  rows: Cell[][];
}

async function respondentTable(tx: Tx, projectId: number, f: ResolvedFilter): Promise<RespondentTable> {
  const sessions = await tx<{ sid: number; respondentId: string; region: string; run: number; customer: boolean; w: number; completedAt: string | null; week: number | null }[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select s.sid, ss.respondent_uuid::text as "respondentId", r.region_name as region, s.survey_run_id as run, s.is_customer_panel as customer,
           s.w, to_json(s.completed_at)#>>'{}' as "completedAt", s.week
    from s join survey_sessions ss on ss.id = s.sid join regions r on r.id = s.region_id
    order by s.completed_at, s.sid`;
  const answers = await tx<{ sid: number; key: string; label: string; sort: number; value: string | null; numeric: number | null }[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select r.survey_session_id as sid,
           case when r.system_question_id is not null then 's' || r.system_question_id
                else 'q' || r.project_question_id || coalesce(':t' || r.test_option_id, '') end as key,
           case when r.system_question_id is not null then sq.question_label
                else coalesce(nullif(qq.question_title, ''), left(qq.question_text, 60)) || coalesce(' [' || t.concept_text || ']', '') end as label,
           case when r.system_question_id is not null then sq.sort_order
                else 1000 + pos.sort_position * 1000000 + pq.sort_order * 1000 + coalesce(t.sort_order, 0) end as sort,
           coalesce(so.answer_label, o.option_text) as value, r.numeric_value::float8 as numeric
    from responses r join s on s.sid = r.survey_session_id
    left join system_question sq on sq.id = r.system_question_id
    left join system_question_option so on so.id = r.system_question_option_id
    left join project_questions pq on pq.id = r.project_question_id
    left join question_positions pos on pos.id = pq.question_position_id
    left join questions qq on qq.id = r.question_id
    left join question_options o on o.id = r.question_option_id
    left join test_options t on t.id = r.test_option_id
    where r.project_id = ${projectId}`;
  const texts = await tx<{ sid: number; key: string; label: string; sort: number; value: string }[]>`
    with s as (${sessionsSql(tx, projectId, f)})
    select x.survey_session_id as sid, 'q' || x.project_question_id || coalesce(':t' || x.test_option_id, '') as key,
           coalesce(nullif(qq.question_title, ''), left(qq.question_text, 60)) || coalesce(' [' || t.concept_text || ']', '') as label,
           1000 + pos.sort_position * 1000000 + pq.sort_order * 1000 + coalesce(t.sort_order, 0) as sort, x.response_text as value
    from text_responses x join s on s.sid = x.survey_session_id
    join project_questions pq on pq.id = x.project_question_id
    join question_positions pos on pos.id = pq.question_position_id
    join questions qq on qq.id = x.question_id
    left join test_options t on t.id = x.test_option_id
    where x.project_id = ${projectId}`;
  const cols = new Map<string, { label: string; sort: number }>();
  const cells = new Map<string, Cell>();
  for (const a of [...answers, ...texts]) {
    if (!cols.has(a.key)) cols.set(a.key, { label: a.label, sort: Number(a.sort) });
    const k = `${a.sid}\u0000${a.key}`;
    const v: Cell = "numeric" in a && a.numeric !== null ? a.numeric : a.value;
    const prev = cells.get(k);
    // A multiple-choice answer lists its options, separated by semicolons.
    cells.set(k, prev === undefined || prev === null ? v : `${prev}; ${v}`);
  }
  const keys = [...cols.entries()].sort((a, b) => a[1].sort - b[1].sort || a[0].localeCompare(b[0])).map(([k]) => k);
  return {
    columns: ["Respondent", "Region", "Survey run", "Panel", "Weight", "Completed", "Week", ...keys.map((k) => cols.get(k)!.label)],
    rows: sessions.map((s) => [s.respondentId, s.region, s.run, s.customer ? "Customer" : "Ideally", s.w, s.completedAt, s.week, ...keys.map((k) => cells.get(`${s.sid}\u0000${k}`) ?? null)]),
  };
}

/** Text a spreadsheet would run as a formula (= + - @, tab, CR first) gets a ' in front. */
export function formulaSafe<T>(v: T): T | string {
  return typeof v === "string" && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

/** RFC 4180 quoting; a cell starting with = + - @ is prefixed with ' so spreadsheets never run it. */
export function csvCell(v: Cell): string {
  if (v === null) return "";
  const s = typeof v === "number" ? String(v) : formulaSafe(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A row of user text for a worksheet: every string formula-safe, as in the CSV exports. */
const sheetRow = (r: readonly unknown[]) => r.map(formulaSafe);

async function table(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter): Promise<{ name: string; table: RespondentTable }> {
  return enterTenant(db, ctx, async (tx) => {
    const [p] = await tx<{ name: string }[]>`select project_name as name from projects where id = ${projectId} and deleted_at is null`;
    if (!p) throw new ApiError("NotFound", `No project ${projectId}`);
    return { name: p.name, table: await respondentTable(tx, projectId, await resolveFilter(tx, filters)) };
  });
}

export function fileName(projectName: string, ext: string): string {
  return `${projectName.replace(/[^\w\- ]+/g, "").trim().replace(/\s+/g, "-").slice(0, 80) || "project"}.${ext}`;
}

export async function exportCsv(db: Db, ctx: RequestCtx, projectId: number, filters: ResponseFilter): Promise<{ fileName: string; body: string }> {
  const { name, table: t } = await table(db, ctx, projectId, filters);
  const lines = [t.columns, ...t.rows].map((r) => r.map(csvCell).join(","));
  return { fileName: fileName(name, "csv"), body: `${lines.join("\r\n")}\r\n` };
}

export interface ExcelInput {
  projectId: number;
  filters: ResponseFilter;
  segmentId?: number | null;
  includeAllSegments?: boolean;
  includeGroupSegments?: boolean;
  benchmarkTypeId?: number | null;
}

/** Per option: the figures QualResults answers, with their design-based SE, interval and tests. */
const SUMMARY_COLUMNS = ["top-2-box", "n", "n eff", "SE", "CI low", "CI high", "vs benchmark", "norm quintile"] as const;

function summarySheet(wb: ExcelJS.Workbook, title: string, qual: QualResults, options: { id: number; conceptText: string }[]) {
  const ws = wb.addWorksheet(title.replace(/[*?:\\/[\]]/g, " ").slice(0, 31));
  const optionIds = [...new Set(qual.measures.flatMap((m) => m.results.map((r) => r.testOptionId)))];
  const name = (id: number | null) => (id === null ? "All" : (options.find((o) => o.id === id)?.conceptText ?? String(id)));
  ws.addRow(sheetRow(["Measure", ...optionIds.flatMap((id) => SUMMARY_COLUMNS.map((c) => `${name(id)} ${c}`))]));
  ws.getRow(1).font = { bold: true };
  for (const m of qual.measures) {
    ws.addRow([
      formulaSafe(m.title),
      ...optionIds.flatMap((id) => {
        const r = m.results.find((x) => x.testOptionId === id);
        if (!r) return SUMMARY_COLUMNS.map(() => null);
        const b = r.vsBenchmark;
        const vs = b ? `${b.diff >= 0 ? "+" : ""}${(b.diff * 100).toFixed(1)} pts${b.indicative ? " (indicative)" : b.significant ? " *" : ""}` : null;
        return [r.top2, r.n, r.nEff, r.se, r.ci[0], r.ci[1], r.smallBase ? `${vs ?? ""} (low base)`.trim() : vs, b?.quintile ?? null];
      }),
    ]);
  }
  const percent = new Set(["top-2-box", "SE", "CI low", "CI high"]);
  ws.columns.forEach((c, i) => {
    c.width = i === 0 ? 24 : 14;
    if (i > 0 && percent.has(SUMMARY_COLUMNS[(i - 1) % SUMMARY_COLUMNS.length]!)) c.numFmt = "0.0%";
    if (i > 0 && SUMMARY_COLUMNS[(i - 1) % SUMMARY_COLUMNS.length] === "n eff") c.numFmt = "0.0";
  });
  ws.addRow([]);
  ws.addRow([
    `Weighted top-2-box with design-based SE (Taylor linearisation, market runs as strata) and ${qual.confidence}% Wilson interval; ` +
      `* significant at ${qual.confidence}% against benchmark type ${qual.benchmarkTypeId ?? "none"} after ${qual.method.adjustName} adjustment over the view's ${qual.method.tests} tests; ` +
      `indicative: a norm of fewer than ${qual.method.thinNorm} projects; low base: n eff below ${qual.method.smallBase}. See docs/statistics.md.`,
  ]);
}

/** The all-markets total (with its weighting disclosed) and the market-by-market table. */
function marketsSheet(wb: ExcelJS.Workbook, qual: QualResults, options: { id: number; conceptText: string }[], titles: Map<number, string>) {
  const ws = wb.addWorksheet("Markets");
  const name = (id: number | null) => (id === null ? "All" : (options.find((o) => o.id === id)?.conceptText ?? String(id)));
  const t = qual.allMarkets;
  ws.addRow([`All markets, weighted by ${t.weighting}${t.note ? ` (${t.note})` : ""}`]).font = { bold: true };
  ws.addRow(["Region", "Population", "Source", "Sample share", "Share in the total"]).font = { bold: true };
  for (const x of t.shares) ws.addRow([x.regionId, x.population, x.source, x.sampleShare, x.share]);
  ws.addRow([]);
  ws.addRow(["Market", "Measure", "Option", "n", "n eff", "top-2-box", "SE", "CI low", "CI high", "Low base"]).font = { bold: true };
  const rows = (market: string, measures: QualResults["allMarkets"]["measures"]) => {
    for (const m of measures) for (const r of m.results) ws.addRow(sheetRow([market, titles.get(m.standardQuestionId) ?? String(m.standardQuestionId), name(r.testOptionId), r.n, r.nEff, r.top2, r.se, r.ci[0], r.ci[1], r.smallBase ? "yes" : ""]));
  };
  rows(`All markets (${t.weighting})`, t.measures);
  for (const m of qual.markets) rows(`Region ${m.regionId}`, m.measures);
  ws.columns.forEach((c, i) => (c.width = i === 2 ? 40 : 16));
}

export async function exportExcel(db: Db, ctx: RequestCtx, input: ExcelInput): Promise<{ fileName: string; body: Uint8Array }> {
  const segments = await enterTenant(db, ctx, async (tx) => {
    const rows = await tx<{ id: number; name: string; filters: unknown }[]>`
      select id, name, responses_filters as filters from segments where project_id = ${input.projectId} order by id`;
    return rows;
  });
  let filters = input.filters;
  if (input.segmentId) {
    const s = segments.find((x) => x.id === input.segmentId);
    if (!s) throw new ApiError("NotFound", `No segment ${input.segmentId} in project ${input.projectId}`);
    filters = { ...ResponseFilterSchema.parse(s.filters), ...filters };
  }
  const { name, table: t } = await table(db, ctx, input.projectId, filters);
  const options = await enterTenant(db, ctx, (tx) => q.testOptions(tx, input.projectId));
  const wb = new ExcelJS.Workbook();
  wb.creator = "Ideally";
  const total = await qualResults(db, ctx, { projectId: input.projectId, filters, benchmarkTypeId: input.benchmarkTypeId ?? null });
  summarySheet(wb, "Summary", total, options);
  marketsSheet(wb, total, options, new Map(total.measures.map((m) => [m.standardQuestionId, m.title])));
  await addCrossTabSheet(wb, db, ctx, { projectId: input.projectId, filters }, (v) => String(formulaSafe(v)));
  if (input.includeAllSegments) {
    for (const s of segments) {
      const parsed = ResponseFilterSchema.safeParse(s.filters);
      if (!parsed.success) continue;
      summarySheet(wb, `Segment ${s.name}`, await qualResults(db, ctx, { projectId: input.projectId, filters: { ...parsed.data }, benchmarkTypeId: input.benchmarkTypeId ?? null }), options);
    }
  }
  if (input.includeGroupSegments) {
    const groupSegments = await enterTenant(db, ctx, (tx) => tx<{ id: number; name: string }[]>`
      select gs.id, gs.name from project_group_segments gs join projects p on p.project_group_version_id = gs.project_group_version_id
      where p.id = ${input.projectId} order by gs.id`);
    for (const g of groupSegments) {
      summarySheet(wb, `Group ${g.name}`, await qualResults(db, ctx, { projectId: input.projectId, filters: { ...filters, projectGroupSegmentIds: [g.id] }, benchmarkTypeId: input.benchmarkTypeId ?? null }), options);
    }
  }
  const demo = await demographicsResults(db, ctx, input.projectId, filters);
  const ws = wb.addWorksheet("Demographics");
  ws.addRow(["Question", "Answer", "Respondents", "Weighted share"]).font = { bold: true };
  for (const qd of demo.questions) for (const o of qd.options) ws.addRow(sheetRow([qd.questionLabel, o.answerLabel, o.count, o.share]));
  ws.getColumn(4).numFmt = "0.0%";
  ws.columns.forEach((c) => (c.width = 22));
  // Respondent quality before weighting: exclusions per run and reason.
  const quality = await projectQualityReport(db, ctx, input.projectId);
  const qs = wb.addWorksheet("Quality");
  qs.addRow(["Survey run", "Region", "Valid completes", "Excluded", ...QUALITY_REASONS]).font = { bold: true };
  for (const r of quality.value) qs.addRow([r.surveyRunId, r.regionId, r.completes, r.excluded, ...QUALITY_REASONS.map((k) => r.byReason[k])]);
  qs.columns.forEach((c) => (c.width = 16));
  const data = wb.addWorksheet("Data");
  data.addRow(sheetRow(t.columns)).font = { bold: true };
  for (const r of t.rows) data.addRow(sheetRow(r));
  const buf = await wb.xlsx.writeBuffer();
  return { fileName: fileName(name, "xlsx"), body: new Uint8Array(buf as ArrayBuffer) };
}
