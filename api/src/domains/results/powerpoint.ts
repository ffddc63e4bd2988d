// PowerPoint exports (SPEC 7 Projects PowerPointExport, Clients RenewalPowerPointExport): decks of
// native chart objects (pptxgenjs writes real chart parts with their data, which PowerPoint can
// edit), built from the same results functions the API answers, run as queued jobs with progress,
// stored in export_files and downloaded through the calls that started them.
// pptxgenjs is imported when a deck is written, not at start-up (what a process loads to start).
import type PptxGenJS from "pptxgenjs";
import JSZip from "jszip";
import type { Db, Tx } from "../../db/client.ts";
import { enterTenant } from "../../access/policy.ts";
import type { RequestCtx } from "../../access/principal.ts";
import { ApiError } from "../../errors.ts";
import { defineJob, type JobContext } from "../../jobs/workers.ts";
import type { ResponseFilter } from "./filters.ts";
import type { Confidence } from "@ideally/analytics/significance";
import { adjustmentWords, type Adjust } from "@ideally/analytics/design";
import type { Measure, QualResults, QuestionResults } from "./results.service.ts";
import { optionName, plainText, reportContext, type ReportContext } from "./report.ts";
import { benchmarkFigure } from "./view.ts";
import { VERDICT_LABEL } from "./verdict.ts";
import type { FileStorage } from "../../storage/storage.ts";
import { LocalDiskStorage } from "../../storage/local.ts";
import { marketReachResults, priceSensitivityResults } from "./analysis.service.ts";
import { fileName } from "./exports.service.ts";
import type { PowerPointJobResult } from "@ideally/contracts/events";

const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
const COLORS = ["4F46E5", "0EA5E9", "F59E0B", "10B981", "EF4444", "8B5CF6", "14B8A6", "F97316"];

export interface ProjectDeckInput {
  kind: "ProjectPowerPoint";
  projectId: number;
  clientId: number;
  userId: number;
  isStaff: boolean;
  filters: ResponseFilter;
  benchmarkTypeId: number | null;
  /** The results view's settings (absent in jobs queued before they existed: 95%, Benjamini-Hochberg, the sample total). */
  confidence?: Confidence;
  adjust?: Adjust;
  total?: "sample" | "markets";
}
export interface RenewalDeckInput {
  kind: "RenewalPowerPoint";
  clientId: number;
  userId: number;
  isStaff: boolean;
}
export type DeckInput = ProjectDeckInput | RenewalDeckInput;

const ctxOf = (i: DeckInput): RequestCtx => ({ principal: { userId: i.userId, isStaff: i.isStaff, isSuperAdmin: false }, clientId: i.clientId, descendants: false, sessionId: null });

function title(pptx: PptxGenJS, heading: string, sub: string) {
  const s = pptx.addSlide();
  s.background = { color: "14213D" };
  s.addText(heading, { x: 0.6, y: 2.0, w: 12, h: 1.2, fontSize: 36, bold: true, color: "FFFFFF" });
  s.addText(sub, { x: 0.6, y: 3.2, w: 12, h: 0.6, fontSize: 16, color: "C7D2FE" });
}

/** Reads a stored file's bytes (test option images); set by the processes that run the jobs. */
let readFile: ((key: string) => Promise<Uint8Array | null>) | null = null;
export function useDeckFiles(storage: FileStorage | null): void {
  readFile = storage ? (key) => readStored(storage, key) : null;
}

/** A stored file's bytes: from the local disk, or through a signed S3 download URL; null when missing. */
export async function readStored(storage: FileStorage, key: string): Promise<Uint8Array | null> {
  if (storage instanceof LocalDiskStorage) {
    const f = Bun.file(storage.pathOf(key));
    return (await f.exists()) ? new Uint8Array(await f.arrayBuffer()) : null;
  }
  const url = await storage.downloadUrl({ key, baseUrl: "" });
  const res = await fetch(url.url, { signal: AbortSignal.timeout(20_000) });
  return res.ok ? new Uint8Array(await res.arrayBuffer()) : null;
}

/** Pixel size of a PNG, JPEG, GIF or WebP (the deck keeps the image's proportions); null when unknown. */
export function imageSize(b: Uint8Array): { w: number; h: number } | null {
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length > 24 && b[0] === 0x89 && b[1] === 0x50) return { w: v.getUint32(16), h: v.getUint32(20) };
  if (b.length > 10 && b[0] === 0x47 && b[1] === 0x49 && b[2] === 0x46) return { w: v.getUint16(6, true), h: v.getUint16(8, true) };
  if (b.length > 30 && String.fromCharCode(...b.subarray(0, 4)) === "RIFF" && String.fromCharCode(...b.subarray(8, 12)) === "WEBP") {
    const kind = String.fromCharCode(...b.subarray(12, 16));
    if (kind === "VP8X") return { w: 1 + (b[24]! | (b[25]! << 8) | (b[26]! << 16)), h: 1 + (b[27]! | (b[28]! << 8) | (b[29]! << 16)) };
    if (kind === "VP8 ") return { w: v.getUint16(26, true) & 0x3fff, h: v.getUint16(28, true) & 0x3fff };
    if (kind === "VP8L") {
      const bits = v.getUint32(21, true);
      return { w: 1 + (bits & 0x3fff), h: 1 + ((bits >> 14) & 0x3fff) };
    }
    return null;
  }
  if (b.length > 4 && b[0] === 0xff && b[1] === 0xd8) {
    let i = 2;
    while (i + 9 < b.length) {
      if (b[i] !== 0xff) return null;
      const marker = b[i + 1]!;
      const len = v.getUint16(i + 2);
      // Start of frame (baseline, progressive, ...), not DHT (c4), JPG (c8) or DAC (cc).
      if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) return { w: v.getUint16(i + 7), h: v.getUint16(i + 5) };
      i += 2 + len;
    }
  }
  return null;
}

const NAVY = "14213D";
const GREY = "64748B";
const UP = "15803D";
const DOWN = "B91C1C";
/** A share in percent; an undefined one (no respondents) as a dash, never "NaN%". */
const pct = (x: number) => (Number.isFinite(x) ? `${(x * 100).toFixed(1)}%` : "–");

function heading(s: PptxGenJS.Slide, text: string, sub?: string) {
  s.addText(text, { x: 0.5, y: 0.25, w: 12.3, h: 0.6, fontSize: 24, bold: true, color: NAVY, fit: "shrink" });
  if (sub) s.addText(sub, { x: 0.5, y: 0.82, w: 12.3, h: 0.4, fontSize: 13, color: GREY, fit: "shrink" });
}

/** Every figure slide says whom its figures are of: base, markets, filters, benchmark. */
function footer(s: PptxGenJS.Slide, r: ReportContext, base: string, figures: "total" | "sample" | "answers" = "sample", measure: number | null = r.headline) {
  // Several markets: which total the slide's figures are. The measures, verdict, questions and
  // demographics are the report's total (QualResults, QuestionResults and DemographicsResults take
  // it); price sensitivity and reach pool the markets' respondents at their own weights; themes count answers.
  const total =
    r.markets.length < 2 || figures === "answers"
      ? ""
      : figures === "total" && r.qual.total === "markets"
        ? ` (all-markets total, weighted by ${r.qual.allMarkets.weighting})`
        : " (sample-weighted total)";
  // The benchmark's figure is a measure's norm (the slide's measure, else the action standard's): never an average over measures.
  const bench = measure === null ? r.benchmark.name : `${r.benchmark.name} (${benchmarkFigure(r, measure)})`;
  const text = `${base} · ${r.markets.map((m) => m.name).join(", ")}${total} · Filters: ${r.filters.join("; ")} · Benchmark: ${bench}`;
  s.addText(text, { x: 0.5, y: 6.95, w: 12.3, h: 0.4, fontSize: 9, color: GREY, fit: "shrink" });
}

/** A measure's result against its benchmark in words (the sign, the test's outcome). */
export function versus(m: Measure): { mark: string; words: string; color: string | null } {
  const b = m.vsBenchmark;
  if (!b) return { mark: "", words: "no benchmark", color: null };
  const diff = `${b.diff >= 0 ? "+" : "−"}${Math.abs(b.diff * 100).toFixed(1)} pts`;
  if (b.lowBase) return { mark: "", words: `${diff}, low base: not tested`, color: null };
  if (b.indicative) return { mark: "", words: `${diff}, indicative`, color: null };
  if (!b.significant) return { mark: "", words: `${diff}, not significant`, color: null };
  return b.diff > 0 ? { mark: " ▲", words: `${diff}, significantly above`, color: UP } : { mark: " ▼", words: `${diff}, significantly below`, color: DOWN };
}

function titleSlide(pptx: PptxGenJS, r: ReportContext) {
  const s = pptx.addSlide();
  s.background = { color: NAVY };
  s.addText(r.projectName, { x: 0.6, y: 2.0, w: 12, h: 1.2, fontSize: 36, bold: true, color: "FFFFFF", fit: "shrink" });
  s.addText(`${r.clientName} · ${r.markets.map((m) => m.name).join(", ")} · ${r.respondents} respondents`, { x: 0.6, y: 3.2, w: 12, h: 0.6, fontSize: 18, color: "C7D2FE" });
  s.addText(`Fieldwork ${r.fieldwork.from ?? "–"} to ${r.fieldwork.to ?? "–"} · Benchmark: ${r.benchmark.name}`, { x: 0.6, y: 3.8, w: 12, h: 0.5, fontSize: 14, color: "C7D2FE" });
  // Several markets: whose total the figures are (the all-markets total and its weighting, or the pooled sample).
  if (r.markets.length > 1) s.addText(`Figures: ${r.total}`, { x: 0.6, y: 4.3, w: 12, h: 0.5, fontSize: 14, color: "C7D2FE", fit: "shrink" });
}

function methodSlide(pptx: PptxGenJS, r: ReportContext) {
  const s = pptx.addSlide();
  heading(s, "Method and sample");
  const perMarket = r.markets.map((m) => `${m.name}: ${m.n}`);
  const row = (k: string, v: string): PptxGenJS.TableRow => [
    { text: k, options: { bold: true, color: NAVY, fill: { color: "EEF2FF" } } },
    { text: v, options: { color: "1F2937" } },
  ];
  s.addTable(
    [
      row("Markets", r.markets.map((m) => m.name).join(", ")),
      row("Respondents", `${r.respondents}${perMarket.length > 1 ? ` (${perMarket.join(", ")})` : ""}`),
      row("Fieldwork", `${r.fieldwork.from ?? "–"} to ${r.fieldwork.to ?? "–"}`),
      ...(r.simulated ? [row("Simulated respondents", r.simulated)] : []),
      row("Filters", r.filters.join("; ")),
      row("Concepts", r.options.map((o) => o.conceptText).join(", ") || "none"),
      row(
        "Benchmark",
        `${r.benchmark.name}, each measure's norm (top-2-box): ${r.qual.measures.map((m) => benchmarkFigure(r, m.standardQuestionId)).join(", ") || "none"}${r.benchmark.indicative ? " (indicative: few projects)" : ""}`,
      ),
      row("Total", r.total),
      row("Weighting", r.weighting),
      row("Confidence", `${r.qual.confidence}% (intervals and tests)`),
      row("Multiple comparisons", adjustmentWords(r.qual.method)),
      row("Significance", r.significance),
      ...(r.summaryNote ? [row("AI summary", r.summaryNote)] : []),
    ],
    { x: 0.5, y: 1.2, w: 12.3, colW: [2.6, 9.7], fontSize: 12, border: { type: "solid", pt: 0.5, color: "CBD5E1" }, valign: "middle" },
  );
}

/** The concepts side by side, three a slide: image (proportions kept), name, description. */
function conceptSlides(pptx: PptxGenJS, r: ReportContext, images: Map<number, { data: string; w: number; h: number }>) {
  const shown = r.options.filter((o) => images.has(o.id) || o.conceptDescription);
  for (let i = 0; i < shown.length; i += 3) {
    const s = pptx.addSlide();
    heading(s, shown.length > 3 ? `The concepts (${i / 3 + 1} of ${Math.ceil(shown.length / 3)})` : "The concepts");
    const page = shown.slice(i, i + 3);
    const w = (12.3 - 0.3 * (page.length - 1)) / page.length;
    page.forEach((o, k) => {
      const x = 0.5 + k * (w + 0.3);
      const img = images.get(o.id);
      const boxH = img ? 3.4 : 0;
      if (img) {
        const f = Math.min(w / img.w, boxH / img.h);
        s.addImage({ data: img.data, x: x + (w - img.w * f) / 2, y: 1.2 + (boxH - img.h * f) / 2, w: img.w * f, h: img.h * f, altText: o.conceptText });
      }
      s.addText(o.conceptText, { x, y: 1.3 + boxH, w, h: 0.5, fontSize: 16, bold: true, color: NAVY, fit: "shrink" });
      if (o.conceptDescription) s.addText(o.conceptDescription, { x, y: 1.85 + boxH, w, h: 5.0 - boxH, fontSize: 13, color: "1F2937", valign: "top", fit: "shrink" });
    });
  }
}

const VERDICT = { go: { fill: "DCFCE7", color: UP }, consider: { fill: "FEF3C7", color: "92400E" }, "no-go": { fill: "FEE2E2", color: DOWN } } as const;

/** The verdict: the concepts ranked on the action standard, go / consider / no-go and why (verdict.ts). */
function verdictSlide(pptx: PptxGenJS, r: ReportContext) {
  const v = r.verdict;
  if (!v) return;
  const s = pptx.addSlide();
  const standard = v.judgedAgainst === "benchmark" ? `significantly above ${r.benchmark.name}` : "significantly above every other concept";
  heading(s, "The verdict", `Action standard: ${v.standard.title} top-2-box ${standard}${v.standard.isDefault ? " (the default standard)" : ""}`);
  const headCell = (t: string): PptxGenJS.TableCell => ({ text: t, options: { bold: true, color: "FFFFFF", fill: { color: NAVY }, align: t === "Concept" || t === "Why" ? "left" : "center" } });
  const rows = v.rows.map((x): PptxGenJS.TableRow => {
    const look = VERDICT[x.verdict];
    return [
      { text: String(x.rank), options: { align: "center" } },
      { text: optionName(r.options, x.testOptionId), options: { bold: true, color: NAVY } },
      { text: `${VERDICT_LABEL[x.verdict].toUpperCase()}${x.firm ? "" : "\n(not tested)"}`, options: { bold: true, align: "center", color: look.color, fill: { color: look.fill } } },
      { text: pct(x.top2), options: { align: "center" } },
      { text: `${pct(x.ci[0])}–${pct(x.ci[1])}`, options: { align: "center" } },
      { text: x.reason, options: { color: "1F2937" } },
    ];
  });
  s.addText(v.headline, { x: 0.5, y: 1.3, w: 12.3, h: 0.5, fontSize: 16, bold: true, color: NAVY, fit: "shrink" });
  s.addTable([["Rank", "Concept", "Verdict", "Top-2-box", "Interval", "Why"].map(headCell), ...rows], {
    x: 0.5,
    y: 1.9,
    w: 12.3,
    colW: [0.85, 2.65, 1.3, 1.2, 1.6, 4.7],
    fontSize: 13,
    border: { type: "solid", pt: 0.5, color: "CBD5E1" },
    valign: "middle",
  });
  footer(s, r, `Base: ${v.rows.map((x) => `${optionName(r.options, x.testOptionId)} n = ${x.n}`).join(", ")}`, "total", v.standard.standardQuestionId);
}

/** Every measure and concept against the benchmark, significance marked. */
function scorecardSlide(pptx: PptxGenJS, r: ReportContext, optionIds: (number | null)[]) {
  const s = pptx.addSlide();
  heading(s, `All measures against ${r.benchmark.name}`, "▲ significantly above the benchmark, ▼ significantly below; the others are within its margin");
  const head: PptxGenJS.TableRow = [
    { text: "Measure", options: { bold: true, color: "FFFFFF", fill: { color: NAVY } } },
    { text: "Benchmark", options: { bold: true, color: "FFFFFF", fill: { color: NAVY }, align: "right" } },
    ...optionIds.map((id): PptxGenJS.TableCell => ({ text: optionName(r.options, id), options: { bold: true, color: "FFFFFF", fill: { color: NAVY }, align: "right" } })),
  ];
  const rows = r.qual.measures.map(
    (m): PptxGenJS.TableRow => [
      { text: m.title, options: { bold: true, color: NAVY } },
      { text: r.benchmark.byMeasure.has(m.standardQuestionId) ? `${r.benchmark.byMeasure.get(m.standardQuestionId)!.toFixed(1)}%` : "–", options: { align: "right", color: GREY } },
      ...optionIds.map((id): PptxGenJS.TableCell => {
        const x = m.results.find((y) => y.testOptionId === id);
        if (!x) return { text: "–", options: { align: "right" } };
        const v = versus(x);
        return { text: `${pct(x.top2)}${v.mark}${x.smallBase ? " (low base)" : ""}`, options: { align: "right", bold: v.color !== null, color: v.color ?? "1F2937" } };
      }),
    ],
  );
  const w = 12.3;
  const first = Math.min(3.2, w / (optionIds.length + 2) + 1);
  s.addTable([head, ...rows], {
    x: 0.5,
    y: 1.35,
    w,
    colW: [first, 1.4, ...optionIds.map(() => (w - first - 1.4) / optionIds.length)],
    fontSize: 12,
    border: { type: "solid", pt: 0.5, color: "CBD5E1" },
    autoPage: true,
    autoPageRepeatHeader: true,
  });
  footer(s, r, `Base: ${r.respondents} respondents`, "total");
}

/** A combination chart: pptxgenjs takes (types, options), which its type declarations do not describe. */
function combo(s: PptxGenJS.Slide, types: PptxGenJS.IChartMulti[], options: PptxGenJS.IChartOpts): void {
  Reflect.apply(s.addChart, s, [types, options]);
}

/** A bar series' intervals, added to its chart part as custom error bars (pptxgenjs writes none). */
type Whiskers = Map<string, { plus: number[]; minus: number[] }>;

/** A slide per measure: the concepts' top-2-box bars with their intervals, the benchmark line, the tests. */
function measureSlide(pptx: PptxGenJS, r: ReportContext, m: QualResults["measures"][number], whiskers: Whiskers) {
  const s = pptx.addSlide();
  const norm = r.benchmark.byMeasure.get(m.standardQuestionId) ?? null;
  heading(s, m.title, `Top-2-box by concept with ${r.qual.confidence}% intervals (whiskers)${norm === null ? "" : `, against ${r.benchmark.name} (dashed line, ${norm.toFixed(1)}%)`}`);
  const labels = m.results.map((x) => `${optionName(r.options, x.testOptionId)}${versus(x).mark}`);
  const series = `${m.title} top-2-box %`;
  const v = (f: (x: Measure) => number) => m.results.map((x) => +(f(x) * 100).toFixed(1));
  whiskers.set(series, { plus: m.results.map((x) => +((x.ci[1] - x.top2) * 100).toFixed(2)), minus: m.results.map((x) => +((x.top2 - x.ci[0]) * 100).toFixed(2)) });
  combo(
    s,
    [
      {
        type: pptx.ChartType.bar,
        data: [{ name: series, labels, values: v((x) => x.top2) }],
        options: { barDir: "col", chartColors: [COLORS[0]!], barGapWidthPct: 80, showValue: true, dataLabelFormatCode: "0.0", dataLabelPosition: "ctr", dataLabelColor: "FFFFFF" },
      },
      // The benchmark line: the measure's norm (none when the benchmark has no norm for it).
      ...(norm === null ? [] : [benchmarkLine(pptx, `${r.benchmark.name} ${norm.toFixed(1)}%`, labels, +norm.toFixed(1))]),
    ],
    {
      x: 0.4,
      y: 1.3,
      w: 6.6,
      h: 5.5,
      showLegend: true,
      legendPos: "b",
      legendFontSize: 10,
      valAxisMaxVal: 100,
      valAxisMinVal: 0,
      valAxisTitle: "Top-2-box %",
      showValAxisTitle: true,
      showValue: false,
      catAxisLabelFontSize: 11,
    },
  );
  const headCell = (t: string): PptxGenJS.TableCell => ({ text: t, options: { bold: true, color: "FFFFFF", fill: { color: NAVY }, align: t === "Concept" ? "left" : "right" } });
  const rows = m.results.map((x): PptxGenJS.TableRow => {
    const vs = versus(x);
    const higher = x.vsOthers.filter((o) => o.significant && o.diff > 0).map((o) => optionName(r.options, o.testOptionId));
    return [
      { text: optionName(r.options, x.testOptionId), options: { bold: true, color: NAVY } },
      { text: pct(x.top2), options: { align: "right" } },
      { text: `${pct(x.ci[0])}–${pct(x.ci[1])}`, options: { align: "right" } },
      { text: `${x.n}${x.smallBase ? " (low)" : ""}`, options: { align: "right", color: x.smallBase ? DOWN : "1F2937" } },
      { text: vs.words, options: { align: "right", color: vs.color ?? "1F2937" } },
      { text: higher.join(", ") || "–", options: { align: "right" } },
    ];
  });
  s.addTable([["Concept", "T2B", "Interval", "n", "vs benchmark", "Higher than"].map(headCell), ...rows], {
    x: 7.15,
    y: 1.4,
    w: 5.8,
    colW: [1.35, 0.7, 1.15, 0.5, 1.1, 1.0],
    fontSize: 10,
    border: { type: "solid", pt: 0.5, color: "CBD5E1" },
  });
  s.addText(`“Higher than”: significantly above these concepts (paired tests, ${r.qual.method.adjustName} adjusted).`, { x: 7.15, y: 6.2, w: 5.8, h: 0.5, fontSize: 9, color: GREY, valign: "top" });
  footer(s, r, `Base: ${m.results.map((x) => `${optionName(r.options, x.testOptionId)} n = ${x.n}`).join(", ")}`, "total", m.standardQuestionId);
}

/** A dashed line at a measure's norm across its bars. */
function benchmarkLine(pptx: PptxGenJS, name: string, labels: string[], value: number): PptxGenJS.IChartMulti {
  return {
    type: pptx.ChartType.line,
    data: [{ name, labels, values: labels.map(() => value) }],
    options: { chartColors: ["F59E0B"], lineSize: 2, lineDash: "dash", lineDataSymbol: "none", showValue: false },
  };
}

/**
 * A chart point with no value (NaN or Infinity: a share of no respondents) is left out of its chart
 * part: OOXML has no NaN, and a missing <c:pt> is how a chart holds an empty point. Chart values
 * and the embedded workbooks' cells are checked; the XML of every other part never holds a number.
 */
export async function finiteCharts(deck: Uint8Array): Promise<Uint8Array> {
  const zip = await JSZip.loadAsync(deck);
  let changed = false;
  for (const name of Object.keys(zip.files).filter((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f))) {
    const xml = await zip.file(name)!.async("string");
    const fixed = xml.replace(/<c:pt idx="\d+"><c:v>(?:NaN|-?Infinity)<\/c:v><\/c:pt>/g, "");
    if (fixed !== xml) {
      zip.file(name, fixed);
      changed = true;
    }
  }
  return changed ? zip.generateAsync({ type: "uint8array", compression: "DEFLATE" }) : deck;
}

/** Custom error bars (the intervals) into the bar series `whiskers` names, in the deck's chart parts. */
export async function addWhiskers(deck: Uint8Array, whiskers: Whiskers): Promise<Uint8Array> {
  if (!whiskers.size) return deck;
  const zip = await JSZip.loadAsync(deck);
  const lit = (xs: number[]) => `<c:numLit><c:formatCode>General</c:formatCode><c:ptCount val="${xs.length}"/>${xs.map((x, i) => `<c:pt idx="${i}"><c:v>${x}</c:v></c:pt>`).join("")}</c:numLit>`;
  const esc = (t: string) => t.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
  for (const name of Object.keys(zip.files).filter((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f))) {
    let xml = await zip.file(name)!.async("string");
    let changed = false;
    for (const [series, w] of whiskers) {
      const at = xml.indexOf(`<c:v>${esc(series)}</c:v>`);
      if (at < 0) continue;
      const cat = xml.indexOf("<c:cat>", at);
      const bars = `<c:errBars><c:errDir val="y"/><c:errBarType val="both"/><c:errValType val="cust"/><c:noEndCap val="0"/><c:plus>${lit(w.plus)}</c:plus><c:minus>${lit(w.minus)}</c:minus><c:spPr><a:ln w="19050"><a:solidFill><a:srgbClr val="${NAVY}"/></a:solidFill></a:ln></c:spPr></c:errBars>`;
      xml = xml.slice(0, cat) + bars + xml.slice(cat);
      changed = true;
    }
    if (changed) zip.file(name, xml);
  }
  return zip.generateAsync({ type: "uint8array", compression: "DEFLATE" });
}

function questionSlide(pptx: PptxGenJS, r: ReportContext, qr: QuestionResults) {
  const s = pptx.addSlide();
  heading(
    s,
    qr.questionTitle || qr.questionText,
    qr.questionTitle ? qr.questionText : qr.questionTypeId === 2 ? "Several answers allowed: shares add to more than 100%" : "Weighted share of respondents",
  );
  // A horizontal bar chart draws its first category at the bottom: the options go in reverse.
  const opts = [...qr.options].reverse();
  const labels = opts.map((o) => o.text);
  const data = qr.results.map((x) => ({
    name: optionName(r.options, x.testOptionId),
    labels,
    values: opts.map((o) => +((x.options.find((y) => y.questionOptionId === o.id)?.share ?? 0) * 100).toFixed(1)),
  }));
  if (data.length) {
    s.addChart(pptx.ChartType.bar, data, {
      x: 0.5,
      y: 1.3,
      w: 12.3,
      h: 5.5,
      barDir: "bar",
      barGrouping: "clustered",
      chartColors: COLORS.slice(0, data.length),
      showLegend: data.length > 1,
      legendPos: "b",
      showValue: true,
      dataLabelFormatCode: "0.0",
      valAxisMaxVal: 100,
      valAxisMinVal: 0,
      valAxisTitle: "% of respondents",
      showValAxisTitle: true,
      catAxisLabelFontSize: 11,
    });
  }
  footer(s, r, `Base: ${qr.results.map((x) => `${optionName(r.options, x.testOptionId)} n = ${x.n}`).join(", ") || "no answers"}`, "total");
}

function demographicSlides(pptx: PptxGenJS, r: ReportContext) {
  const qs = r.demographics.questions;
  for (let i = 0; i < qs.length; i += 2) {
    const s = pptx.addSlide();
    heading(s, "Who answered", "Weighted share of the filtered respondents");
    qs.slice(i, i + 2).forEach((d, k) => {
      s.addChart(pptx.ChartType.bar, [{ name: d.questionLabel, labels: d.options.map((o) => r.answerLabel(d, o)).reverse(), values: d.options.map((o) => +(o.share * 100).toFixed(1)).reverse() }], {
        x: 0.4 + k * 6.3,
        y: 1.3,
        w: 6.1,
        h: 5.5,
        barDir: "bar",
        chartColors: [COLORS[k + 1]!],
        showTitle: true,
        title: d.questionLabel,
        titleFontSize: 14,
        showValue: true,
        dataLabelFormatCode: "0.0",
        valAxisMinVal: 0,
        valAxisTitle: "%",
        showValAxisTitle: true,
        catAxisLabelFontSize: 10,
      });
    });
    footer(s, r, `Base: ${r.respondents} respondents`, "total");
  }
}

const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1).trimEnd()}…` : t);

function themeSlides(pptx: PptxGenJS, r: ReportContext) {
  for (const q of r.themes) {
    const s = pptx.addSlide();
    heading(s, `What people said: ${cut(q.question, 80)}`, `Themes of ${q.answers} open answers from the filtered respondents, with quotes`);
    const themes = q.themes;
    const up = [...themes].reverse();
    s.addChart(pptx.ChartType.bar, [{ name: "Share of answers %", labels: up.map((t) => cut(t.name, 40)), values: up.map((t) => +(t.share * 100).toFixed(1)) }], {
      x: 0.4,
      y: 1.3,
      w: 4.8,
      h: 5.5,
      barDir: "bar",
      chartColors: [COLORS[1]!],
      showValue: true,
      dataLabelFormatCode: "0.0",
      valAxisMinVal: 0,
      catAxisLabelFontSize: 10,
      valAxisTitle: "% of answers",
      showValAxisTitle: true,
    });
    const lines: PptxGenJS.TextProps[] = [];
    for (const t of themes.slice(0, 4)) {
      lines.push({ text: `${t.name} (${t.count}${t.sentiment ? `, ${t.sentiment.toLowerCase()}` : ""})`, options: { bold: true, color: NAVY, fontSize: 12, breakLine: true } });
      for (const x of t.quotes.slice(0, 2))
        lines.push({
          text: `“${cut(x.text, 160)}” — ${[x.concept, x.market].filter(Boolean).join(", ")}`,
          options: { italic: true, color: "1F2937", fontSize: 11, breakLine: true, paraSpaceAfter: 4 },
        });
    }
    s.addText(lines, { x: 5.4, y: 1.3, w: 7.5, h: 5.5, valign: "top", fit: "shrink" });
    footer(s, r, `Base: ${q.answers} answers`, "answers");
  }
}

const isHeading = (p: string) => p.length < 60 && !p.startsWith("•") && !/[.!?]$/.test(p);

function summarySlides(pptx: PptxGenJS, r: ReportContext) {
  const sm = r.summary;
  if (!sm) return;
  const paragraphs = plainText(sm.content);
  // About 2,400 characters a slide at 13 pt (a paragraph's break counts as 90); a heading never ends a slide.
  const pages: string[][] = [[]];
  let size = 0;
  for (const p of paragraphs) {
    if (size + p.length + 90 > 2400 && pages.at(-1)!.length) {
      const last = pages.at(-1)!;
      const carried = last.length > 1 && isHeading(last.at(-1)!) ? [last.pop()!] : [];
      pages.push(carried);
      size = carried.reduce((a, x) => a + x.length + 90, 0);
    }
    pages.at(-1)!.push(p);
    size += p.length + 90;
  }
  pages.forEach((ps, i) => {
    const s = pptx.addSlide();
    heading(
      s,
      `AI summary${pages.length > 1 ? ` (${i + 1} of ${pages.length})` : ""}`,
      `${sm.scope}${sm.generatedAt ? `; written ${sm.generatedAt}` : ""}. Generated by AI from the results: check the figures against the charts.`,
    );
    s.addText(
      ps.map((p) => ({ text: p, options: { breakLine: true, paraSpaceAfter: 8, bold: isHeading(p) } })),
      { x: 0.5, y: 1.35, w: 12.3, h: 5.5, fontSize: 13, color: "1F2937", valign: "top", fit: "shrink" },
    );
  });
}

/**
 * The project deck: title; method and sample; the concepts (image, description); a scorecard of
 * every measure against the benchmark; a slide per measure (bars, benchmark line, intervals,
 * tests); a slide per question; demographics; themes with quotes; the AI summary; price curves and
 * reach. Every figure is the results functions' for the deck's filters and benchmark.
 */
export async function projectDeck(db: Db, i: ProjectDeckInput, progress: (pct: number, m: string) => Promise<void>): Promise<{ fileName: string; body: Uint8Array; charts: number }> {
  const ctx = ctxOf(i);
  await progress(10, "computing results");
  const r = await reportContext(db, ctx, { projectId: i.projectId, filters: i.filters, benchmarkTypeId: i.benchmarkTypeId, confidence: i.confidence, adjust: i.adjust, total: i.total });
  const images = new Map<number, { data: string; w: number; h: number }>();
  for (const o of r.options) {
    if (!o.file?.key || !o.file.fileType?.startsWith("image/") || !readFile) continue;
    const bytes = await readFile(o.file.key).catch(() => null);
    const size = bytes ? imageSize(bytes) : null;
    if (bytes && size) images.set(o.id, { data: `${o.file.fileType};base64,${Buffer.from(bytes).toString("base64")}`, ...size });
  }
  const pptx = new (await import("pptxgenjs")).default();
  pptx.layout = "LAYOUT_WIDE";
  pptx.title = r.projectName;
  pptx.company = r.clientName;
  titleSlide(pptx, r);
  methodSlide(pptx, r);
  conceptSlides(pptx, r, images);
  let charts = 0;
  const whiskers: Whiskers = new Map();
  const optionIds = [...new Set(r.qual.measures.flatMap((m) => m.results.map((x) => x.testOptionId)))];
  verdictSlide(pptx, r);
  if (r.qual.measures.length) {
    scorecardSlide(pptx, r, optionIds);
    for (const m of r.qual.measures) {
      measureSlide(pptx, r, m, whiskers);
      charts++;
    }
  }
  await progress(40, "questions, demographics and themes");
  for (const qr of r.questions) {
    if (qr.results.length) {
      questionSlide(pptx, r, qr);
      charts++;
    }
  }
  demographicSlides(pptx, r);
  charts += r.demographics.questions.length;
  themeSlides(pptx, r);
  charts += r.themes.length;
  summarySlides(pptx, r);
  await progress(60, "price sensitivity and reach");
  const price = await priceSensitivityResults(db, ctx, i.projectId, i.filters).catch(() => null);
  for (const x of price?.value ?? []) {
    if (!x.curves?.price.length) continue;
    const s = pptx.addSlide();
    heading(s, `Price sensitivity: ${x.conceptText ?? "all"}`);
    const labels = x.curves.price.map((p) => p.toFixed(2));
    const line = (n: string, v: number[]) => ({ name: n, labels, values: v.map((y) => +(y * 100).toFixed(1)) });
    s.addChart(pptx.ChartType.line, [line("Too cheap", x.curves.tooCheap), line("Cheap", x.curves.cheap), line("Expensive", x.curves.expensive), line("Too expensive", x.curves.tooExpensive)], {
      x: 0.5,
      y: 1.1,
      w: 8.5,
      h: 5.6,
      chartColors: COLORS.slice(0, 4),
      showLegend: true,
      legendPos: "b",
      valAxisTitle: "% of respondents",
      showValAxisTitle: true,
      catAxisTitle: `Price (${price?.currencyCode ?? ""})`,
      showCatAxisTitle: true,
    });
    charts++;
    const fmt = (y: number | null) => (y === null ? "–" : `${price?.currencySymbol ?? ""}${y.toFixed(2)}`);
    s.addText(
      [
        { text: `Optimal price: ${fmt(x.opp)}\n`, options: { bold: true } },
        { text: `Indifference price: ${fmt(x.ipp)}\n` },
        { text: `Acceptable range: ${fmt(x.pmc)} – ${fmt(x.pme)}\n` },
        { text: `Respondents: ${x.n} (${x.invalid} inconsistent left out)` },
      ],
      { x: 9.2, y: 1.4, w: 3.8, h: 3, fontSize: 14, color: NAVY },
    );
    footer(s, r, `Base: ${x.n} respondents`);
  }
  const reach = await marketReachResults(db, ctx, i.projectId, i.filters).catch(() => null);
  if (reach?.byK.length) {
    const s = pptx.addSlide();
    heading(s, "Market reach (TURF)", "The best set of each size: the share of respondents who would buy at least one");
    const best = reach.byK.map((k) => k.sets[0]!).filter(Boolean);
    s.addChart(pptx.ChartType.bar, [{ name: "Reach %", labels: best.map((b) => b.items.join(" + ")), values: best.map((b) => +(b.reach * 100).toFixed(1)) }], {
      x: 0.5,
      y: 1.3,
      w: 12.3,
      h: 5.5,
      barDir: "bar",
      chartColors: [COLORS[0]!],
      showValue: true,
      dataLabelFormatCode: "0.0",
      valAxisMaxVal: 100,
      valAxisTitle: "Reach %",
      showValAxisTitle: true,
    });
    charts++;
    footer(s, r, `Base: ${r.respondents} respondents`);
  }
  await progress(80, "writing the deck");
  const body = await finiteCharts(await addWhiskers(new Uint8Array((await pptx.write({ outputType: "arraybuffer" })) as ArrayBuffer), whiskers));
  return { fileName: fileName(r.projectName, "pptx"), body, charts };
}

/** The renewal deck: what a client ran this year, its credits, and its projects' respondents. */
export async function renewalDeck(db: Db, i: RenewalDeckInput, progress: (pct: number, m: string) => Promise<void>): Promise<{ fileName: string; body: Uint8Array; charts: number }> {
  const data = await enterTenant(db, { ...ctxOf(i), clientId: null, principal: { userId: i.userId, isStaff: true, isSuperAdmin: false } }, async (tx) => {
    const [c] = await tx<{ name: string }[]>`select name from clients where id = ${i.clientId}`;
    if (!c) throw new ApiError("NotFound", `No client ${i.clientId}`);
    const projects = await tx<{ name: string; respondents: number; completedAt: string | null }[]>`
      select p.project_name as name, (select count(*)::int from project_survey_sessions s where s.project_id = p.id) as respondents,
             to_json(p.completed_at)#>>'{}' as "completedAt"
      from projects p where p.client_id = ${i.clientId} and p.deleted_at is null and p.status_code >= 800
      order by p.completed_at nulls last, p.id limit 30`;
    const months = await tx<{ month: string; spent: number }[]>`
      select to_char(date_trunc('month', created_at), 'YYYY-MM') as month, -sum(credit_amount)::float8 as spent
      from credit_logs where client_id = ${i.clientId} and credit_amount < 0 and created_at > now() - interval '12 months'
      group by 1 order by 1`;
    return { name: c.name, projects, months };
  });
  await progress(40, "charting usage");
  const pptx = new (await import("pptxgenjs")).default();
  pptx.layout = "LAYOUT_WIDE";
  title(pptx, `${data.name}: the year with Ideally`, `${data.projects.length} completed projects`);
  let charts = 0;
  if (data.projects.length) {
    const s = pptx.addSlide();
    s.addText("Respondents per project", { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    s.addChart(pptx.ChartType.bar, [{ name: "Respondents", labels: data.projects.map((p) => p.name), values: data.projects.map((p) => p.respondents) }], {
      x: 0.5,
      y: 1.1,
      w: 12.3,
      h: 5.8,
      barDir: "bar",
      chartColors: [COLORS[0]!],
      showValue: true,
      valAxisTitle: "Respondents",
      showValAxisTitle: true,
    });
    charts++;
  }
  if (data.months.length) {
    const s = pptx.addSlide();
    s.addText("Credits spent per month", { x: 0.5, y: 0.3, w: 12, h: 0.6, fontSize: 24, bold: true, color: "14213D" });
    s.addChart(pptx.ChartType.bar, [{ name: "Credits", labels: data.months.map((m) => m.month), values: data.months.map((m) => m.spent) }], {
      x: 0.5,
      y: 1.1,
      w: 12.3,
      h: 5.8,
      barDir: "col",
      chartColors: [COLORS[1]!],
      showValue: true,
      valAxisTitle: "Credits",
      showValAxisTitle: true,
    });
    charts++;
  }
  const body = new Uint8Array((await pptx.write({ outputType: "arraybuffer" })) as ArrayBuffer);
  return { fileName: fileName(`${data.name}-renewal`, "pptx"), body, charts };
}

async function store(tx: Tx, i: DeckInput, jobId: string, f: { fileName: string; body: Uint8Array }): Promise<string> {
  const [r] = await tx<{ id: string }[]>`
    insert into export_files (client_id, project_id, created_by_user_id, kind, job_id, file_name, content_type, size_bytes, body)
    values (${i.clientId}, ${i.kind === "ProjectPowerPoint" ? i.projectId : null}, ${i.userId}, ${i.kind}, ${jobId}, ${f.fileName}, ${PPTX}, ${f.body.byteLength}, ${f.body})
    on conflict (job_id) where job_id is not null do update set body = excluded.body, size_bytes = excluded.size_bytes
    returning id::text`;
  return r!.id;
}

/** The job: build the deck, keep it (once per job: a retry replaces its own file), answer where to download it. */
export const powerPointJob = defineJob<DeckInput, PowerPointJobResult>(
  "exports.powerpoint",
  async (job: JobContext<DeckInput>): Promise<PowerPointJobResult> => {
    const i = job.data;
    const progress = (pct: number, m: string) => job.progress(pct, m);
    const deck = i.kind === "ProjectPowerPoint" ? await projectDeck(job.db, i, progress) : await renewalDeck(job.db, i, progress);
    const id = await enterTenant(job.db, { principal: { userId: i.userId, isStaff: true, isSuperAdmin: false }, clientId: null, descendants: false, sessionId: null }, (tx) =>
      store(tx, i, job.jobId, deck),
    );
    const download = i.kind === "ProjectPowerPoint" ? `/api/v1/Projects(${i.projectId})/PowerPointExport/${id}` : `/api/v1/Clients(${i.clientId})/RenewalPowerPointExport/${id}`;
    return { exportId: id, fileName: deck.fileName, sizeBytes: deck.body.byteLength, charts: deck.charts, download };
  },
  { retryLimit: 2, retryDelay: 5, expireInSeconds: 600 },
);

/** A stored deck, for its client's members (RLS keeps other clients' out). */
export async function download(db: Db, ctx: RequestCtx, id: string, owner: { projectId?: number; clientId?: number }) {
  if (!/^[0-9a-f-]{36}$/i.test(id)) throw new ApiError("NotFound", "No such export");
  return enterTenant(db, ctx, async (tx) => {
    // bytea comes back as a Buffer over an ArrayBuffer (never a SharedArrayBuffer): what c.body takes.
    const [f] = await tx<{ fileName: string; contentType: string; body: Uint8Array<ArrayBuffer> }[]>`
      select file_name as "fileName", content_type as "contentType", body from export_files
      where id = ${id}::uuid and expires_at > now()
        and (${owner.projectId ?? null}::int is null or project_id = ${owner.projectId ?? null}::int)
        and (${owner.clientId ?? null}::int is null or client_id = ${owner.clientId ?? null}::int)`;
    if (!f) throw new ApiError("NotFound", "No such export (exports are kept for 7 days)");
    return f;
  });
}
