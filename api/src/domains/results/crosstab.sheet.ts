// The Excel export's "Cross-tabs" sheet: every scaled measure of the project (top-2-box per test
// option) by gender, age group and, with several markets, the market; the figures are those of
// Responses/CrossTab for the same filters (crosstab.service.ts). Per stub row three lines: the
// weighted shares (numbers, 0.0%), "significantly above" with the letters of the columns of the
// same banner variable significantly lower, and the base (respondents; a low base, Kish n_eff
// < 30, is marked). The method closes each table.
import type ExcelJS from "exceljs";
import type { Db } from "../../db/client.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { enterTenant } from "../../access/policy.ts";
import { crossTabResults, type BannerSpec, type CrossTabResult } from "./crosstab.service.ts";
import type { ResponseFilter } from "./filters.ts";
import type { Confidence } from "@ideally/analytics/significance";
import type { Adjust } from "@ideally/analytics/design";

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
  const variables = ws.addRow([
    "",
    ...x.columns.map((c, i) => (c.variable === null ? "" : x.columns[i - 1]?.variable === c.variable ? "" : safe(x.banner.find((b) => b.key === c.variable)?.label ?? ""))),
  ]);
  variables.font = { bold: true, color: { argb: "FF555555" } };
  const head = ws.addRow([safe(x.stub.kind === "measure" ? "Test option" : "Answer"), ...x.columns.map((c) => safe(c.letter ? `${c.label} (${c.letter})` : c.label))]);
  head.font = { bold: true };
  // Figures, letters and bases right-aligned under right-aligned, wrapped column heads.
  const right = (row: ExcelJS.Row, wrap = false) =>
    row.eachCell((cell, col) => {
      if (col > 1) cell.alignment = { horizontal: "right", vertical: "bottom", wrapText: wrap };
    });
  right(head, true);
  for (const r of x.rows) {
    const values = ws.addRow([safe(r.label), ...r.cells.map((c) => c.value)]);
    for (let i = 0; i < r.cells.length; i++) values.getCell(2 + i).numFmt = "0.0%";
    const sig = ws.addRow(["   significantly above", ...r.cells.map((c) => c.higherThan.join(""))]);
    sig.font = { color: { argb: "FF1F4E79" }, bold: true };
    const base = ws.addRow(["   base (n)", ...r.cells.map((c) => (c.smallBase ? `${c.n} (low base)` : c.n))]);
    base.font = { color: { argb: "FF777777" }, size: 9 };
    for (const row of [values, sig, base]) right(row);
  }
  const m = x.method;
  const adj = m.adjust === "none" ? "no multiple-comparison adjustment" : `${m.adjustName} adjustment over the table's ${m.tests} tests`;
  ws.addRow([
    `Letters: the columns of the same banner variable significantly lower at ${x.confidence}% (${adj}); design-based variance (Taylor linearisation, market runs as strata). ` +
      `Low base: n eff below ${m.smallBase}, shown but not tested. ` +
      (x.total === "markets" ? "Weights: the all-markets total, each market's respondents reweighted to its population share. " : "") +
      `See docs/statistics.md "Cross-tabs".`,
  ]).font = { italic: true, size: 9 };
  ws.addRow([]);
}

/** Adds the "Cross-tabs" sheet: every scaled measure of the project by the standard banner. */
export async function addCrossTabSheet(
  wb: ExcelJS.Workbook,
  db: Db,
  ctx: RequestCtx,
  input: { projectId: number; filters: ResponseFilter; confidence?: Confidence; adjust?: Adjust; total?: "sample" | "markets" },
  safe: Safe,
): Promise<void> {
  const { measures, markets } = await enterTenant(db, ctx, async (tx) => ({
    measures: await tx<{ id: number }[]>`
      select distinct sq.id, sq.display_order from project_questions pq join standard_questions sq on sq.id = pq.standard_question_id
      where pq.project_id = ${input.projectId} and pq.deleted_at is null and sq.is_scaled order by sq.display_order, sq.id`,
    markets: (await tx<{ n: number }[]>`select count(*)::int as n from projects_regions where project_id = ${input.projectId}`)[0]!.n,
  }));
  // Printed (or rendered) landscape, one page wide: a banner is wide.
  const ws = wb.addWorksheet("Cross-tabs", { pageSetup: { orientation: "landscape", fitToPage: true, fitToWidth: 1, fitToHeight: 0 } });
  ws.getColumn(1).width = 34;
  const banner = defaultBanner(markets);
  let widest = 0;
  for (const m of measures) {
    // At the workbook's confidence and adjustment (the view's), like its Summary.
    const x = await crossTabResults(db, ctx, {
      projectId: input.projectId,
      filters: input.filters,
      rows: { kind: "measure", id: m.id },
      banner,
      confidence: input.confidence ?? 95,
      adjust: input.adjust ?? "bh",
      total: input.total,
    });
    if (!x.rows.length) continue;
    writeCrossTab(ws, x, safe);
    widest = Math.max(widest, x.columns.length);
  }
  for (let i = 0; i < widest; i++) ws.getColumn(2 + i).width = 15;
  if (!widest) ws.addRow(["No scaled measure has answers for these filters."]);
}
