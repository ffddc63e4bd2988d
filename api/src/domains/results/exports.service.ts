// Exports (SPEC 7 Projects ExportCsv and ExportExcel): the filtered respondents as a wide data file
// (one row per respondent: who, where, when, weight, demographics, then every question's answer,
// per test option for the questions of the test loop), and an Excel workbook whose summary cells
// are the very figures QualResults answers (same filters, same benchmark), plus demographics, the
// data, and a summary per saved segment when asked.
import { projectQualityReport } from "../fielding/fielding.admin.ts";
import { QUALITY_REASONS } from "../fielding/quality.ts";
// exceljs (about 0.5 s of CPU to load) is imported when a workbook is written, not at start-up.
import type ExcelJS from "exceljs";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { resolveFilter, ResponseFilterSchema, sessionsSql, type ResolvedFilter, type ResponseFilter } from "./filters.ts";
import { qualResults, type Measure, type QualResults } from "./results.service.ts";
import { optionName, reportContext, totalLine, type ReportContext } from "./report.ts";
import { addCrossTabSheet } from "./crosstab.sheet.ts";
import { VERDICT_LABEL } from "./verdict.ts";
import { waveData } from "./analysis.service.ts";
import type { Confidence } from "@ideally/analytics/significance";
import { adjustmentWords, type Adjust } from "@ideally/analytics/design";

type Cell = string | number | null;

export interface RespondentTable {
  columns: string[];
  rows: Cell[][];
}

/** Column names made unique: a repeated name gets " (2)", " (3)"... (two questions with one title). */
export function uniqueNames(names: string[]): string[] {
  const seen = new Set<string>();
  return names.map((n) => {
    let name = n;
    for (let k = 2; seen.has(name.toLowerCase()); k++) name = `${n} (${k})`;
    seen.add(name.toLowerCase());
    return name;
  });
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
    // The respondent's market (a region of the regions table) is "Market": "Region" is a demographic question's label.
    columns: uniqueNames(["Respondent", "Market", "Survey run", "Panel", "Weight", "Completed", "Week", ...keys.map((k) => cols.get(k)!.label)]),
    rows: sessions.map((s) => [s.respondentId, s.region, s.run, s.customer ? "Customer" : "Ideally", s.w, s.completedAt, s.week, ...keys.map((k) => cells.get(`${s.sid}\u0000${k}`) ?? null)]),
  };
}

/** Text a spreadsheet would run as a formula (= + - @, tab, CR first) gets a ' in front. */
export function formulaSafe<T>(v: T): T | string {
  return typeof v === "string" && /^[=+\-@\t\r]/.test(v) ? `'${v}` : v;
}

/** RFC 4180 quoting; a cell starting with = + - @ is prefixed with ' so spreadsheets never run it; an undefined number (NaN, ±Infinity) is empty. */
export function csvCell(v: Cell): string {
  if (v === null || (typeof v === "number" && !Number.isFinite(v))) return "";
  const s = typeof v === "number" ? String(v) : formulaSafe(v);
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** What an empty cell that stands for an undefined figure says (a cell note; the Summary's note explains the empty p adjusted). */
export const UNDEFINED_NOTE = "No value: the figure is undefined here (no respondents, or no variance to test).";

/**
 * OOXML has no NaN or Infinity (a <v>NaN</v> makes readers such as openpyxl refuse the workbook):
 * every cell holding one becomes empty, with a note saying why. Run over the whole workbook before
 * it is written, so no sheet builder can leave one.
 */
export function undefinedAsEmpty(wb: ExcelJS.Workbook): number {
  let n = 0;
  for (const ws of wb.worksheets) {
    ws.eachRow((row) =>
      row.eachCell((cell) => {
        if (typeof cell.value === "number" && !Number.isFinite(cell.value)) {
          cell.value = null;
          cell.note = UNDEFINED_NOTE;
          n++;
        }
      }),
    );
  }
  return n;
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
  return `${
    projectName
      .replace(/[^\w\- ]+/g, "")
      .trim()
      .replace(/\s+/g, "-")
      .slice(0, 80) || "project"
  }.${ext}`;
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
  /** The results view's settings, as QualResults takes them (default 95%, Benjamini-Hochberg, the sample total). */
  confidence?: Confidence;
  adjust?: Adjust;
  total?: "sample" | "markets";
}

/** Per option: the figures QualResults answers, with their design-based SE, interval and tests (numbers, formatted). */
const SUMMARY_COLUMNS = ["top-2-box", "n", "n eff", "SE", "CI low", "CI high", "benchmark", "vs benchmark (pts)", "p adjusted", "significance", "norm quintile"] as const;
const SUMMARY_FORMATS: Partial<Record<(typeof SUMMARY_COLUMNS)[number], string>> = {
  "top-2-box": "0.0%",
  "n eff": "0.0",
  SE: "0.0%",
  "CI low": "0.0%",
  "CI high": "0.0%",
  benchmark: "0.0%",
  "vs benchmark (pts)": "+0.0;-0.0;0.0",
  "p adjusted": "0.000",
};

/** A sheet's name: Excel's characters and 31-character limit, unique in the workbook. */
function sheetName(wb: ExcelJS.Workbook, title: string): string {
  const base =
    title
      .replace(/[*?:\\/[\]]/g, " ")
      .replace(/\s+/g, " ")
      .trim()
      .slice(0, 31) || "Sheet";
  let name = base;
  for (let k = 2; wb.worksheets.some((w) => w.name.toLowerCase() === name.toLowerCase()); k++) name = `${base.slice(0, 31 - String(k).length - 1)} ${k}`;
  return name;
}

/** Printing (and PDF): landscape, `wide` pages across, as many down as it takes; the header rows and first column on every page. */
function printSetup(ws: ExcelJS.Worksheet, wide: number, titles: { rows?: string; columns?: string } = {}) {
  ws.pageSetup = { orientation: "landscape", fitToPage: true, fitToWidth: wide, fitToHeight: 0, paperSize: 9, margins: { left: 0.4, right: 0.4, top: 0.5, bottom: 0.5, header: 0.3, footer: 0.3 } };
  if (titles.rows) ws.pageSetup.printTitlesRow = titles.rows;
  if (titles.columns) ws.pageSetup.printTitlesColumn = titles.columns;
}

/** A wrapped cell's row made tall enough for its text (spreadsheets do not grow rows written with wrapped text). */
function fitHeight(row: ExcelJS.Row, text: string, width: number) {
  const lines = text.split("\n").reduce((a, l) => a + Math.max(1, Math.ceil(l.length / (width * 1.1))), 0);
  if (lines > 1) row.height = lines * 15;
}

/** The significance of a measure against the benchmark, in words (the number is beside it). */
function significanceWords(r: Measure): string {
  const b = r.vsBenchmark;
  const low = r.smallBase ? " (low base)" : "";
  if (!b) return `no benchmark${low}`;
  // Below the low base no test is made (docs/statistics.md "The low base"): no p-value, no mark.
  if (b.lowBase) return "not tested (low base)";
  if (b.indicative) return `indicative${low}`;
  return `${b.significant ? (b.diff > 0 ? "significantly above" : "significantly below") : "not significant"}${low}`;
}

function summarySheet(wb: ExcelJS.Workbook, title: string, qual: QualResults, options: { id: number; conceptText: string }[], benchmarkName: string, markets: { regionId: number; name: string }[]) {
  const ws = wb.addWorksheet(sheetName(wb, title));
  const optionIds = [...new Set(qual.measures.flatMap((m) => m.results.map((r) => r.testOptionId)))];
  ws.addRow(sheetRow(["Measure", ...optionIds.flatMap((id) => SUMMARY_COLUMNS.map((c) => `${optionName(options, id)} ${c}`))]));
  ws.getRow(1).font = { bold: true };
  for (const m of qual.measures) {
    ws.addRow([
      formulaSafe(m.title),
      ...optionIds.flatMap((id) => {
        const r = m.results.find((x) => x.testOptionId === id);
        if (!r) return SUMMARY_COLUMNS.map(() => null);
        const b = r.vsBenchmark;
        return [r.top2, r.n, r.nEff, r.se, r.ci[0], r.ci[1], b ? b.top2Percentage / 100 : null, b ? b.diff * 100 : null, b?.pAdjusted ?? null, significanceWords(r), b?.quintile ?? null];
      }),
    ]);
  }
  ws.columns.forEach((c, i) => {
    c.width = i === 0 ? 24 : 14;
    const f = i > 0 ? SUMMARY_FORMATS[SUMMARY_COLUMNS[(i - 1) % SUMMARY_COLUMNS.length]!] : undefined;
    if (f) c.numFmt = f;
  });
  ws.getRow(1).alignment = { wrapText: true, vertical: "top" };
  ws.getRow(1).height = 54;
  ws.views = [{ state: "frozen", xSplit: 1, ySplit: 1 }];
  printSetup(ws, Math.max(1, optionIds.length), { rows: "1:1", columns: "A:A" });
  ws.addRow([]);
  const note = ws.addRow([
    "Note",
    (markets.length > 1
      ? qual.total === "markets"
        ? `Figures: the all-markets total, markets weighted by ${qual.allMarkets.weighting}${qual.allMarkets.note ? ` (${qual.allMarkets.note})` : ""} (${qual.allMarkets.shares.map((x) => `${markets.find((m) => m.regionId === x.regionId)?.name ?? `region ${x.regionId}`} ${(x.share * 100).toFixed(1)}%`).join(", ")}). `
        : `Figures: ${totalLine(qual, markets).replace(/^E/, "e")}. `
      : "") +
      `Weighted top-2-box with design-based SE (Taylor linearisation, market runs as strata) and ${qual.confidence}% Wilson interval; ` +
      `vs benchmark: the difference from the ${benchmarkName} norm in percentage points, significant at ${qual.confidence}% after ${adjustmentWords(qual.method)}; ` +
      `indicative: a norm of fewer than ${qual.method.thinNorm} projects; low base: n eff below ${qual.method.smallBase}, not tested. ` +
      `An empty p adjusted means no test was made (a low base, an indicative norm, or a share with no variance to test against a fixed line). See docs/statistics.md.`,
  ]);
  // The note wraps over the first concept's columns (the width of a printed page). It starts in the
  // second column: the first is repeated on every printed page, where a merged cell's first part
  // would show cut off.
  ws.mergeCells(note.number, 2, note.number, 1 + SUMMARY_COLUMNS.length);
  note.getCell(1).font = { bold: true };
  note.getCell(1).alignment = { vertical: "top" };
  note.getCell(2).alignment = { wrapText: true, vertical: "top" };
  note.height = markets.length > 1 ? 80 : 48;
}

/** The cover: whose figures these are (project, markets, respondents, filters, dates), read against what, how. */
function coverSheet(wb: ExcelJS.Workbook, r: ReportContext) {
  const ws = wb.addWorksheet("Cover");
  ws.addRow([r.projectName]).font = { bold: true, size: 16 };
  ws.mergeCells("A1:B1");
  ws.getRow(1).height = 24;
  ws.addRow([]);
  const row = (k: string, v: string | number, fmt?: string) => {
    const x = ws.addRow([k, formulaSafe(v)]);
    x.getCell(1).font = { bold: true };
    x.getCell(1).alignment = { vertical: "top" };
    x.getCell(2).alignment = { wrapText: true, vertical: "top", horizontal: "left" };
    if (fmt) x.getCell(2).numFmt = fmt;
    fitHeight(x, String(v), 90);
  };
  row("Project", r.projectName);
  row("Client", r.clientName);
  row("Markets", r.markets.map((m) => m.name).join(", "));
  row("Respondents", r.respondents);
  row("Fieldwork from", r.fieldwork.from ?? "");
  row("Fieldwork to", r.fieldwork.to ?? "");
  if (r.simulated) row("Simulated respondents", r.simulated);
  row("Filters", r.filters.join("; "));
  row("Benchmark", r.benchmark.name + (r.benchmark.indicative ? " (indicative: few projects)" : ""));
  // Each measure's norm, as the Summary sheet, the deck and the verdict read it (view.ts): a benchmark has no single top-2-box.
  for (const m of r.qual.measures) {
    const norm = r.benchmark.byMeasure.get(m.standardQuestionId);
    row(`Benchmark top-2-box: ${m.title}`, norm === undefined ? "no norm" : norm / 100, norm === undefined ? undefined : "0.0%");
  }
  row("Total", r.total);
  row("Weighting", r.weighting);
  row("Significance method", r.significance);
  row("Confidence", r.qual.confidence / 100, "0%");
  row("Multiple comparisons", r.qual.method.adjustName);
  if (r.summaryNote) row("AI summary", r.summaryNote);
  if (r.verdict) {
    const v = r.verdict;
    row("Action standard", `${v.standard.title} top-2-box ${v.judgedAgainst === "benchmark" ? `significantly above ${r.benchmark.name}` : "significantly above every other concept"}`);
    row("Verdict", v.headline);
    for (const x of v.rows) row(`Verdict: ${optionName(r.options, x.testOptionId)}`, `${VERDICT_LABEL[x.verdict]}${x.firm ? "" : " (not a tested verdict)"}, rank ${x.rank}: ${x.reason}`);
  }
  row("Exported", `${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC`);
  ws.getColumn(1).width = 34;
  ws.getColumn(2).width = 90;
  printSetup(ws, 1);
}

/** The all-markets total (with its weighting disclosed) and the market-by-market table. */
function marketsSheet(wb: ExcelJS.Workbook, r: ReportContext) {
  const ws = wb.addWorksheet("Markets");
  const market = (id: number) => r.markets.find((m) => m.regionId === id)?.name ?? `Region ${id}`;
  const titles = new Map(r.qual.measures.map((m) => [m.standardQuestionId, m.title]));
  const t = r.qual.allMarkets;
  ws.addRow([`All markets, weighted by ${t.weighting}${t.note ? ` (${t.note})` : ""}`]).font = { bold: true };
  ws.addRow(["Market", "Population", "Source", "Sample share", "Share in the total"]).font = { bold: true };
  for (const x of t.shares) {
    const row = ws.addRow([market(x.regionId), x.population, x.source, x.sampleShare, x.share]);
    row.getCell(3).alignment = { wrapText: true, vertical: "top" };
    fitHeight(row, x.source ?? "", 56);
  }
  ws.addRow([]);
  ws.addRow(["Market", "Measure", "Option", "n", "n eff", "top-2-box", "SE", "CI low", "CI high", "Low base"]).font = { bold: true };
  const start = ws.rowCount + 1;
  const rows = (name: string, measures: QualResults["allMarkets"]["measures"]) => {
    for (const m of measures)
      for (const c of m.results)
        ws.addRow(
          sheetRow([
            name,
            titles.get(m.standardQuestionId) ?? String(m.standardQuestionId),
            optionName(r.options, c.testOptionId),
            c.n,
            c.nEff,
            c.top2,
            c.se,
            c.ci[0],
            c.ci[1],
            c.smallBase ? "yes" : "",
          ]),
        );
  };
  rows(`All markets (${t.weighting})`, t.measures);
  for (const m of r.qual.markets) rows(market(m.regionId), m.measures);
  // The first column holds "All markets (population)"; the third a population's source and the options' names.
  ws.columns.forEach((c, i) => {
    c.width = i === 0 ? 26 : i === 2 ? 56 : 16;
  });
  for (let i = 3; i <= 2 + t.shares.length; i++) for (const k of [4, 5]) ws.getRow(i).getCell(k).numFmt = "0.0%";
  for (let i = start; i <= ws.rowCount; i++) {
    const x = ws.getRow(i);
    x.getCell(5).numFmt = "0.0";
    for (const k of [6, 7, 8, 9]) x.getCell(k).numFmt = "0.0%";
  }
  printSetup(ws, 1);
}

/** A sheet per question (not the standard measures, which the summary has): each option's weighted share by concept. */
function questionSheets(wb: ExcelJS.Workbook, r: ReportContext) {
  r.questions.forEach((qr, k) => {
    const ws = wb.addWorksheet(sheetName(wb, `Q${k + 1} ${qr.questionTitle || qr.questionText}`));
    ws.addRow([formulaSafe(qr.questionText)]).font = { bold: true };
    // Across markets: the workbook's total (QuestionResults takes it as QualResults does).
    const pooled =
      r.markets.length > 1
        ? qr.total === "markets"
          ? " The all-markets total: each market's respondents reweighted to its population share."
          : " Markets pooled: every respondent at their own weight (the sample-weighted total)."
        : "";
    ws.addRow([(qr.questionTypeId === 2 ? "Several answers allowed: shares add to more than 100%." : "Weighted share of the respondents who answered.") + pooled]);
    ws.addRow([]);
    const cols = qr.results.map((x) => optionName(r.options, x.testOptionId));
    ws.addRow(sheetRow(["Answer", ...cols.flatMap((c) => [`${c} share`, `${c} count`])])).font = { bold: true };
    for (const o of qr.options) {
      ws.addRow([
        formulaSafe(o.text),
        ...qr.results.flatMap((x) => {
          const y = x.options.find((z) => z.questionOptionId === o.id);
          return [y?.share ?? 0, y?.count ?? 0];
        }),
      ]);
    }
    const base = ws.addRow(["Base (n)", ...qr.results.flatMap((x) => [x.n, null])]);
    base.font = { italic: true };
    ws.getColumn(1).width = 40;
    qr.results.forEach((_, i) => {
      ws.getColumn(2 + i * 2).numFmt = "0.0%";
      ws.getColumn(2 + i * 2).width = 18;
      ws.getColumn(3 + i * 2).width = 16;
    });
    // The base is a count in the shares' column: its own format.
    qr.results.forEach((_, i) => {
      base.getCell(2 + i * 2).numFmt = "0";
    });
    ws.getRow(4).alignment = { wrapText: true, vertical: "top" };
    ws.getRow(4).height = 45;
    printSetup(ws, 1);
  });
}

/**
 * A tracker's waves (or an NPD's weeks since launch), when there are two or more: each wave's
 * top-2-box per measure and option with its design-based SE and interval, and the change from the
 * previous wave with its test (independent samples; WaveData, in the view's family and adjustment).
 */
async function wavesSheet(wb: ExcelJS.Workbook, w: WorkbookInput) {
  const d = await waveData(w.db, w.ctx, w.input.projectId, w.filters, w.input.confidence ?? 95, w.input.adjust ?? "bh");
  if (d.waves.length < 2) return;
  const unit = d.waveKind === "weekSinceLaunch" ? "week" : "wave";
  const ws = wb.addWorksheet("Waves");
  ws.addRow([
    `${unit === "week" ? "Weeks since launch" : "Waves"}: each against the ${unit} before (independent samples, market runs as strata), ` +
      `significant at ${d.confidence}% after ${adjustmentWords(d.method)}.`,
  ]).font = { bold: true };
  const change = `vs previous ${unit} (pts)`;
  const cols = [unit === "week" ? "Week" : "Wave", "From", "To", "Respondents", "Measure", "Option", "n", "n eff", "top-2-box", "SE", "CI low", "CI high", change, "p", "p adjusted", "significance"];
  ws.addRow(cols).font = { bold: true };
  for (const x of d.waves) {
    for (const m of x.measures) {
      for (const r of m.results) {
        const v = r.vsPreviousWave;
        const words = !v
          ? ""
          : v.lowBase
            ? "not tested (low base)"
            : v.significant
              ? `significantly ${v.diff > 0 ? "above" : "below"} ${unit} ${v.wave}`
              : v.pValue === null
                ? "not tested (no variance)"
                : "not significant";
        ws.addRow(
          sheetRow([
            x.wave,
            x.from,
            x.to,
            x.respondents,
            m.title,
            optionName(w.report.options, r.testOptionId),
            r.n,
            r.nEff,
            r.top2,
            r.se,
            r.ci[0],
            r.ci[1],
            v ? v.diff * 100 : null,
            v?.pValue ?? null,
            v?.pAdjusted ?? null,
            words + (r.smallBase && !v?.lowBase ? " (low base)" : ""),
          ]),
        );
      }
    }
  }
  const fmt: Record<string, string> = { "n eff": "0.0", "top-2-box": "0.0%", SE: "0.0%", "CI low": "0.0%", "CI high": "0.0%", [change]: "+0.0;-0.0;0.0", p: "0.000", "p adjusted": "0.000" };
  const widths: Record<string, number> = { Wave: 6, Week: 6, From: 11, To: 11, Respondents: 12, Measure: 18, Option: 30, significance: 30 };
  const text = new Set(["From", "To", "Measure", "Option", "significance"]);
  const head = ws.getRow(2);
  head.height = 44;
  cols.forEach((c, i) => {
    const col = ws.getColumn(i + 1);
    col.width = widths[c] ?? 10;
    if (fmt[c]) col.numFmt = fmt[c]!;
    // Numbers' heads right, over them; long heads wrap in their column.
    // Text columns start one indent in, clear of the number to their left.
    head.getCell(i + 1).alignment = { wrapText: true, vertical: "bottom", horizontal: text.has(c) ? "left" : "right", indent: text.has(c) ? 1 : 0 };
    if (text.has(c)) for (let r = 3; r <= ws.rowCount; r++) ws.getRow(r).getCell(i + 1).alignment = { wrapText: c === "Option", vertical: "top", indent: 1 };
  });
  printSetup(ws, 1, { rows: "2:2" });
}

/** What the workbook's sheets are built from: the report (the same figures the deck shows) and the respondents' table. */
export interface WorkbookInput {
  db: Db;
  ctx: RequestCtx;
  input: ExcelInput;
  filters: ResponseFilter;
  report: ReportContext;
  segments: { id: number; name: string; filters: unknown }[];
  respondents: RespondentTable;
}

/** One or more sheets of the workbook. */
export type SheetBuilder = (wb: ExcelJS.Workbook, w: WorkbookInput) => void | Promise<void>;

/** The view's settings every summary sheet is computed at. */
const viewOf = (i: ExcelInput) => ({ confidence: i.confidence, adjust: i.adjust, total: i.total });

/** The workbook's sheets, in order (a new sheet is a builder added here). */
export const WORKBOOK_SHEETS: readonly SheetBuilder[] = [
  (wb, w) => coverSheet(wb, w.report),
  (wb, w) => summarySheet(wb, "Summary", w.report.qual, w.report.options, w.report.benchmark.name, w.report.markets),
  (wb, w) => marketsSheet(wb, w.report),
  wavesSheet,
  (wb, w) =>
    addCrossTabSheet(wb, w.db, w.ctx, { projectId: w.input.projectId, filters: w.filters, confidence: w.input.confidence, adjust: w.input.adjust, total: w.input.total }, (v) =>
      String(formulaSafe(v)),
    ),
  async (wb, w) => {
    if (!w.input.includeAllSegments) return;
    for (const s of w.segments) {
      const parsed = ResponseFilterSchema.safeParse(s.filters);
      if (!parsed.success) continue;
      summarySheet(
        wb,
        `Segment ${s.name}`,
        await qualResults(w.db, w.ctx, { projectId: w.input.projectId, filters: { ...parsed.data }, benchmarkTypeId: w.report.benchmark.id, ...viewOf(w.input) }),
        w.report.options,
        w.report.benchmark.name,
        w.report.markets,
      );
    }
  },
  async (wb, w) => {
    if (!w.input.includeGroupSegments) return;
    const groupSegments = await enterTenant(
      w.db,
      w.ctx,
      (tx) => tx<{ id: number; name: string }[]>`
      select gs.id, gs.name from project_group_segments gs join projects p on p.project_group_version_id = gs.project_group_version_id
      where p.id = ${w.input.projectId} order by gs.id`,
    );
    for (const g of groupSegments) {
      summarySheet(
        wb,
        `Group ${g.name}`,
        await qualResults(w.db, w.ctx, { projectId: w.input.projectId, filters: { ...w.filters, projectGroupSegmentIds: [g.id] }, benchmarkTypeId: w.report.benchmark.id, ...viewOf(w.input) }),
        w.report.options,
        w.report.benchmark.name,
        w.report.markets,
      );
    }
  },
  (wb, w) => questionSheets(wb, w.report),
  (wb, w) => {
    const ws = wb.addWorksheet("Demographics");
    ws.addRow(["Question", "Answer", "Respondents", "Weighted share"]).font = { bold: true };
    for (const qd of w.report.demographics.questions) for (const o of qd.options) ws.addRow(sheetRow([qd.questionLabel, w.report.answerLabel(qd, o), o.count, o.share]));
    ws.getColumn(4).numFmt = "0.0%";
    if (w.report.markets.length > 1) {
      ws.addRow([]);
      ws.addRow([
        w.report.demographics.total === "markets"
          ? "Weighted shares: the all-markets total, each market's respondents reweighted to its population share."
          : "Weighted shares: every respondent at their own weight (the sample-weighted total).",
      ]).font = { italic: true, size: 9 };
    }
    // Answers can be long ("I try new technology once most people have it") and carry their market.
    ws.columns.forEach((c, i) => {
      c.width = i === 1 ? 60 : 22;
    });
    printSetup(ws, 1, { rows: "1:1" });
  },
  async (wb, w) => {
    // Respondent quality before weighting: exclusions per run and reason.
    const quality = await projectQualityReport(w.db, w.ctx, w.input.projectId);
    const qs = wb.addWorksheet("Quality");
    qs.addRow(["Survey run", "Market", "Valid completes", "Excluded", ...QUALITY_REASONS]).font = { bold: true };
    for (const r of quality.value)
      qs.addRow([r.surveyRunId, w.report.markets.find((m) => m.regionId === r.regionId)?.name ?? r.regionId, r.completes, r.excluded, ...QUALITY_REASONS.map((k) => r.byReason[k])]);
    for (const c of qs.columns) c.width = 16;
    // Counts sit right in their cells: their heads too, so each number stands under its own head.
    qs.getRow(1).eachCell((cell, col) => {
      if (col > 2) cell.alignment = { horizontal: "right" };
    });
    qs.getColumn(1).alignment = { horizontal: "left" };
    printSetup(qs, 1);
  },
  (wb, w) => {
    const data = wb.addWorksheet("Data");
    data.addRow(sheetRow(w.respondents.columns)).font = { bold: true };
    for (const r of w.respondents.rows) data.addRow(sheetRow(r));
    data.columns.forEach((c, i) => {
      c.width = i === 0 ? 38 : 16;
    });
    // The survey run and the weight are numbers: their heads right, over them; the weight to three decimals.
    for (const col of [3, 5]) data.getRow(1).getCell(col).alignment = { horizontal: "right" };
    data.getColumn(5).numFmt = "0.000";
    data.views = [{ state: "frozen", xSplit: 1, ySplit: 1 }];
    data.pageSetup = { orientation: "landscape", paperSize: 9, printTitlesRow: "1:1", printTitlesColumn: "A:A" };
  },
];

export async function exportExcel(db: Db, ctx: RequestCtx, input: ExcelInput): Promise<{ fileName: string; body: Uint8Array<ArrayBuffer> }> {
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
  const { name, table: respondents } = await table(db, ctx, input.projectId, filters);
  const report = await reportContext(db, ctx, { projectId: input.projectId, filters, benchmarkTypeId: input.benchmarkTypeId ?? null, ...viewOf(input) });
  const { default: Excel } = await import("exceljs");
  const wb = new Excel.Workbook();
  wb.creator = "Ideally";
  wb.title = name;
  const w: WorkbookInput = { db, ctx, input, filters, report, segments, respondents };
  for (const build of WORKBOOK_SHEETS) await build(wb, w);
  undefinedAsEmpty(wb);
  const buf = await wb.xlsx.writeBuffer();
  return { fileName: fileName(name, "xlsx"), body: new Uint8Array(buf as ArrayBuffer) };
}
