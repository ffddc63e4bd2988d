// The Excel export's "Cross-tabs" sheet: every scaled measure of the project (top-2-box per test
// option) by gender, age group and, with several markets, the market; the figures are those of
// Responses/CrossTab for the same filters (crosstab.service.ts). Per stub row three lines: the
// weighted shares (numbers, 0.0%), the significance letters (the columns of the same banner
// variable significantly lower), and the base (respondents); a low base (Kish n_eff < 30) is
// marked. The method closes each table.
import type ExcelJS from "exceljs";
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { crossTabResults, type BannerSpec, type CrossTabResult } from "./crosstab.service.ts";
import type { ResponseFilter } from "./filters.ts";

/** The standard banner: gender (45), age group (51) and, with more than one market, the market. */
export function defaultBanner(markets: number): BannerSpec[] {
  return [{ kind: "demographic", id: 45 }, { kind: "demographic", id: 51 }, ...(markets > 1 ? [{ kind: "market" } as const] : [])];
}

/** User text made formula-safe (exports.service.ts formulaSafe, passed in to keep the modules acyclic). */
type Safe = (v: string) => string;

/** Writes one cross-tab at the sheet's next row. */
export function writeCrossTab(ws: ExcelJS.Worksheet, x: CrossTabResult, safe: Safe): void {
  const title = ws.addRow([safe(`${x.stub.title}: ${x.stub.value.toLowerCase()}`)]);
  title.font = { bold: true, size: 12 };
  // Banner variables over their columns, then the column labels with their letters.
  const variables = ws.addRow(["", "", ...x.columns.map((c, i) => (c.variable === null ? "" : x.columns[i - 1]?.variable === c.variable ? "" : safe(x.banner.find((b) => b.key === c.variable)?.label ?? "")))]);
  variables.font = { bold: true, color: { argb: "FF555555" } };
  const head = ws.addRow(["", "", ...x.columns.map((c) => safe(c.letter ? `${c.label} (${c.letter})` : c.label))]);
  head.font = { bold: true };
  for (const r of x.rows) {
    const values = ws.addRow([safe(r.label), "%", ...r.cells.map((c) => c.value)]);
    for (let i = 0; i < r.cells.length; i++) values.getCell(3 + i).numFmt = "0.0%";
    ws.addRow(["", "sig.", ...r.cells.map((c) => c.higherThan.join(""))]).font = { color: { argb: "FF1F4E79" }, bold: true };
    ws.addRow(["", "base", ...r.cells.map((c) => (c.smallBase ? `${c.n} (low base)` : c.n))]).font = { color: { argb: "FF777777" }, size: 9 };
  }
  const m = x.method;
  const adj = m.adjust === "none" ? "no multiple-comparison adjustment" : `${m.adjustName} adjustment over the table's ${m.tests} tests`;
  ws.addRow([
    `Letters: the columns of the same banner variable significantly lower at ${x.confidence}% (${adj}); design-based variance (Taylor linearisation, market runs as strata). ` +
      `Low base: n eff below ${m.smallBase}, shown but not tested. See docs/statistics.md "Cross-tabs".`,
  ]).font = { italic: true, size: 9 };
  ws.addRow([]);
}

/** Adds the "Cross-tabs" sheet: every scaled measure of the project by the standard banner. */
export async function addCrossTabSheet(wb: ExcelJS.Workbook, db: Db, ctx: RequestCtx, input: { projectId: number; filters: ResponseFilter }, safe: Safe): Promise<void> {
  const { measures, markets } = await enterTenant(db, ctx, async (tx) => ({
    measures: await tx<{ id: number }[]>`
      select distinct sq.id, sq.display_order from project_questions pq join standard_questions sq on sq.id = pq.standard_question_id
      where pq.project_id = ${input.projectId} and pq.deleted_at is null and sq.is_scaled order by sq.display_order, sq.id`,
    markets: (await tx<{ n: number }[]>`select count(*)::int as n from projects_regions where project_id = ${input.projectId}`)[0]!.n,
  }));
  const ws = wb.addWorksheet("Cross-tabs");
  ws.getColumn(1).width = 34;
  ws.getColumn(2).width = 6;
  const banner = defaultBanner(markets);
  let widest = 0;
  for (const m of measures) {
    const x = await crossTabResults(db, ctx, { projectId: input.projectId, filters: input.filters, rows: { kind: "measure", id: m.id }, banner });
    if (!x.rows.length) continue;
    writeCrossTab(ws, x, safe);
    widest = Math.max(widest, x.columns.length);
  }
  for (let i = 0; i < widest; i++) ws.getColumn(3 + i).width = 14;
  if (!widest) ws.addRow(["No scaled measure has answers for these filters."]);
}
