// One view, one number (issue 37): for a results view of the demo (markets or the all-markets total,
// filters, benchmark), every output that shows the benchmark's top-2-box or a concept's top-2-box
// shows the same figure to its rounding: QualResults (the page), the verdict (Scorecard), every slide
// of the deck (its XML), the workbook's cover and sheets (their XML), the CSV (the weighted share
// recomputed from its rows and weights) and the AI summary written for the view. Expected values are
// QualResults' own answer; each output is read as a file, never through the code that wrote it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { aiWorld, type AiWorld } from "../helpers/ai.ts";
import { readPptx, readXlsx, rowsOf, type SlideText } from "../helpers/ooxml.ts";
import { summariesJob, useProvider } from "../../api/src/domains/ai/summaries.service.ts";
import { LocalProvider } from "../../api/src/domains/ai/local.ts";
import { powerPointJob } from "../../api/src/domains/results/powerpoint.ts";
import { DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let w: AiWorld;
const USER = "user@acme.test";
let team: number;
let projectId: number;
let options: { id: number; name: string }[];
let female: number;

beforeAll(async () => {
  useProvider(new LocalProvider());
  w = await aiWorld([summariesJob, powerPointJob]);
  const [p] = await w.tdb.db<{ id: number; clientId: number }[]>`select id, client_id as "clientId" from projects where project_name = 'Plant-based snacks idea screen'`;
  projectId = p!.id;
  team = p!.clientId;
  options = await w.tdb.db<{ id: number; name: string }[]>`select id, concept_text as name from test_options where project_id = ${projectId} order by sort_order, id`;
  const [f] = await w.tdb.db<
    { id: number }[]
  >`select o.id from system_question_option o where o.system_question_id = 45 and o.answer_label = 'Female' and (o.region_id is null or o.region_id = 1) order by o.id limit 1`;
  female = f!.id;
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  useProvider(null);
  await w.stop();
}, 30_000);

interface View {
  name: string;
  filters: Record<string, unknown>;
  benchmarkTypeId: number;
  total: "sample" | "markets";
}
const enc = (x: unknown) => encodeURIComponent(JSON.stringify(x));
const query = (v: View) => `filters=${enc(v.filters)}&benchmarkTypeId=${v.benchmarkTypeId}&total=${v.total}`;
const one = (x: number) => (Math.round(x * 1000) / 10).toFixed(1);
const percent = (x: number) => x.toFixed(1);

async function get(path: string) {
  const r = await w.call(USER, team, "GET", path);
  expect(r.status, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`).toBe(200);
  return r.body;
}

type Qual = { measures: { standardQuestionId: number; title: string; results: { testOptionId: number; top2: number; vsBenchmark: { top2Percentage: number } | null }[] }[] };

/** What the view shows, from QualResults: each measure's norm and each concept's top-2-box, as the outputs round them (one decimal of a percent). */
function expected(qual: Qual) {
  const norm = new Map<string, string>();
  const t2b = new Map<string, string>();
  for (const m of qual.measures) {
    const b = m.results.find((r) => r.vsBenchmark)?.vsBenchmark;
    if (b) norm.set(m.title, percent(b.top2Percentage));
    for (const r of m.results) t2b.set(`${m.title}|${options.find((o) => o.id === r.testOptionId)!.name}`, one(r.top2));
  }
  return { norm, t2b };
}

/** The figures an AI summary's text (markdown, or the deck's plain paragraphs) states, as [what, shown]. */
function summaryFigures(paragraphs: string[]): { kind: "norm" | "t2b"; key: string; shown: string }[] {
  const out: { kind: "norm" | "t2b"; key: string; shown: string }[] = [];
  let head = "";
  for (const raw of paragraphs.flatMap((p) => p.split("\n"))) {
    const p = raw.replace(/\s*\[F\d+\]/g, "").replace(/\*\*/g, "");
    const lead = p.match(/^(.+?) leads on (.+?) with (\d+\.\d)%/);
    if (lead) {
      head = lead[2]!;
      out.push({ kind: "t2b", key: `${head}|${lead[1]}`, shown: lead[3]! });
      const second = p.match(/ahead of (.+?) at (\d+\.\d)%/);
      if (second) out.push({ kind: "t2b", key: `${head}|${second[1]}`, shown: second[2]! });
    }
    const against = p.match(/^Against the benchmark \(.+?\) on (.+?): (.*)$/);
    if (against) for (const n of against[2]!.matchAll(/the norm of (\d+\.\d)%/g)) out.push({ kind: "norm", key: against[1]!, shown: n[1]! });
    const other = p.match(/^[-•] (.+?): (.+?) leads with (\d+\.\d)%/);
    if (other) out.push({ kind: "t2b", key: `${other[1]}|${other[2]}`, shown: other[3]! });
  }
  return out;
}

async function summaryFor(v: View): Promise<string> {
  const created = await w.call(USER, team, "POST", "/api/v1/AiProjectSummaries", { projectId, filters: v.filters, benchmarkTypeId: v.benchmarkTypeId, total: v.total });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  for (let i = 0; i < 1200; i++) {
    const [r] = await w.tdb.db<{ status: string; content: string | null; error: string | null }[]>`select status, content, error from ai_project_summaries where id = ${created.body.id}`;
    if (r!.status === "Ready") return r!.content!;
    if (r!.status === "Failed") throw new Error(`summary failed: ${r!.error}`);
    await Bun.sleep(100);
  }
  throw new Error("summary not written");
}

async function deckOf(v: View): Promise<SlideText[]> {
  const started = await w.call(USER, team, "POST", `/api/v1/Projects(${projectId})/PowerPointExport`, { filters: v.filters, benchmarkTypeId: v.benchmarkTypeId, total: v.total });
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  let id: string | null = null;
  for (let i = 0; i < 1200 && !id; i++) {
    const [r] = await w.tdb.db<{ id: string }[]>`select id::text from export_files where job_id = ${started.body.jobId}`;
    if (r) id = r.id;
    else await Bun.sleep(100);
  }
  const res = await w.app.request(`/api/v1/Projects(${projectId})/PowerPointExport/${id}`, { headers: { authorization: `Bearer ${USER}`, clientId: String(team) } });
  expect(res.status).toBe(200);
  return readPptx(await res.arrayBuffer());
}

/** Every benchmark figure a text states: the percentage that follows the word "benchmark" (or "dashed line", the chart's benchmark). */
const benchmarkMentions = (t: string) => [...t.matchAll(/(?:benchmark(?:'s)?|dashed line)\b[^%;·]{0,120}?(\d+\.\d)%/gi)].map((m) => m[1]!);

const VIEWS = (): View[] => [
  { name: "All markets, benchmark 1", filters: { regionIds: [1, 2] }, benchmarkTypeId: 1, total: "markets" },
  { name: "New Zealand, benchmark 1", filters: { regionIds: [1] }, benchmarkTypeId: 1, total: "sample" },
  { name: "All markets, women, benchmark 1", filters: { regionIds: [1, 2], filterIds: [female] }, benchmarkTypeId: 1, total: "markets" },
  { name: "All markets, benchmark 2 (the team's)", filters: { regionIds: [1, 2] }, benchmarkTypeId: 2, total: "markets" },
  { name: "Every respondent at their own weight, 'None' (50%)", filters: {}, benchmarkTypeId: 0, total: "sample" },
];

test("every output of a view shows the view's benchmark and top-2-box figures (QualResults, verdict, deck, workbook, CSV, AI summary)", async () => {
  const views = VIEWS();
  // Each view's AI summary first (the deck shows the one written for its view, not a later one for another).
  const summaries = new Map<string, string>();
  for (const v of views) summaries.set(v.name, await summaryFor(v));
  const problems: string[] = [];
  const check = (where: string, shown: string, want: string | undefined) => {
    if (want === undefined) problems.push(`${where}: shows ${shown}%, which the view does not have`);
    else if (shown !== want) problems.push(`${where}: shows ${shown}%, the view ${want}%`);
  };
  for (const v of views) {
    const qual: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&${query(v)}`);
    const { norm, t2b } = expected(qual);
    const norms = new Set(norm.values());
    expect(norm.size, `${v.name}: every measure has a norm`).toBe(qual.measures.length);

    // The verdict: its reasons name the standard measure's norm; its top-2-box is the page's.
    const card = await get(`/api/v1/Responses/Scorecard?projectId=${projectId}&${query(v)}`);
    for (const row of card.rows) {
      const name = options.find((o) => o.id === row.testOptionId)!.name;
      check(`${v.name}, verdict ${name} top-2-box`, one(row.top2), t2b.get(`${card.standard.title}|${name}`));
      for (const b of benchmarkMentions(row.reason)) check(`${v.name}, verdict ${name} reason`, b, norm.get(card.standard.title));
    }

    // The AI summary written for the view.
    for (const f of summaryFigures(summaries.get(v.name)!.split("\n"))) check(`${v.name}, AI summary (${f.key})`, f.shown, (f.kind === "norm" ? norm : t2b).get(f.key));
    expect(summaryFigures(summaries.get(v.name)!.split("\n")).length, `${v.name}: the summary states figures`).toBeGreaterThan(3);

    // The deck: every benchmark mention on every slide is a norm of the view (on a measure's slide, that measure's);
    // every table row naming a measure or a concept shows the view's figures.
    const [type] = await w.tdb.db<{ name: string }[]>`select lower(description) as name from benchmark_types where id = ${v.benchmarkTypeId}`;
    const benchmarkWords = v.benchmarkTypeId === 0 ? "none: a flat line" : type!.name;
    const deck = await deckOf(v);
    let summarySlides = 0;
    for (const s of deck) {
      const title = s.paragraphs[0] ?? "";
      const measure = qual.measures.find((m) => m.title === title);
      for (const p of s.paragraphs)
        for (const b of benchmarkMentions(p)) check(`${v.name}, slide ${s.number} (${title}) "${p.slice(0, 60)}"`, b, measure ? norm.get(measure.title) : norms.has(b) ? b : undefined);
      for (const row of s.rows) {
        const cells = row.map((c) => c.replace(/[▲▼]/g, "").trim());
        for (const b of benchmarkMentions(cells.join(" · "))) check(`${v.name}, slide ${s.number} row "${cells[0]}"`, b, measure ? norm.get(measure.title) : norms.has(b) ? b : undefined);
        if (measure) {
          // A measure's table: concept, T2B, ...
          const want = t2b.get(`${measure.title}|${cells[0]}`);
          if (want) check(`${v.name}, slide ${s.number} ${measure.title} ${cells[0]}`, cells[1]!.replace("%", ""), want);
        } else if (title.startsWith("All measures against")) {
          // The scorecard: measure, benchmark, then each concept.
          const m = qual.measures.find((x) => x.title === cells[0]);
          if (!m) continue;
          check(`${v.name}, scorecard ${m.title} benchmark`, cells[1]!.replace("%", ""), norm.get(m.title));
          const names = s.rows[0]!.slice(2);
          for (const [i, n] of names.entries()) check(`${v.name}, scorecard ${m.title} ${n}`, cells[2 + i]!.replace("%", ""), t2b.get(`${m.title}|${n.replace(/\s+/g, " ").trim()}`));
        } else if (title === "The verdict") {
          const name = cells[1]!;
          if (options.some((o) => o.name === name)) check(`${v.name}, verdict slide ${name}`, cells[3]!.replace("%", ""), t2b.get(`${card.standard.title}|${name}`));
        }
      }
      if (title.startsWith("AI summary")) {
        summarySlides++;
        // Written against the view's benchmark (not another view's summary of the same respondents).
        for (const p of s.paragraphs) {
          const named = p.match(/^Against the benchmark \((.+?)\) on /)?.[1];
          if (named && named !== benchmarkWords) problems.push(`${v.name}, slide ${s.number}: the AI summary is against "${named}", the view against "${benchmarkWords}"`);
        }
        for (const f of summaryFigures(s.paragraphs)) check(`${v.name}, slide ${s.number} AI summary (${f.key})`, f.shown, (f.kind === "norm" ? norm : t2b).get(f.key));
      }
    }
    expect(summarySlides, `${v.name}: the deck carries the view's AI summary`).toBeGreaterThan(0);

    // The workbook, from its XML: the cover's benchmark rows and verdicts, the Summary's and Markets' figures.
    const res = await w.app.request(`/api/v1/Projects(${projectId})/ExportExcel?${query(v)}`, { headers: { authorization: `Bearer ${USER}`, clientId: String(team) } });
    expect(res.status).toBe(200);
    const book = await readXlsx(await res.arrayBuffer());
    const cover = rowsOf(book.get("Cover")!);
    let coverNorms = 0;
    for (const [k, val] of cover) {
      const key = String(k ?? "");
      if (/^Benchmark top-2-box/.test(key)) {
        coverNorms++;
        const m = qual.measures.find((x) => key.includes(x.title));
        check(`${v.name}, cover "${key}"`, one(Number(val)), m ? norm.get(m.title) : undefined);
      }
      if (key.startsWith("Verdict: ")) for (const b of benchmarkMentions(String(val))) check(`${v.name}, cover ${key}`, b, norm.get(card.standard.title));
    }
    expect(coverNorms, `${v.name}: the cover states the benchmark's top-2-box`).toBeGreaterThan(0);
    const summary = rowsOf(book.get("Summary")!);
    const header = summary[0]!.map((c) => String(c ?? ""));
    for (const row of summary.slice(1)) {
      const m = qual.measures.find((x) => x.title === row[0]);
      if (!m) continue;
      for (const o of options) {
        const at = (c: string) => row[header.indexOf(`${o.name} ${c}`)];
        check(`${v.name}, Summary ${m.title} ${o.name} benchmark`, one(Number(at("benchmark"))), norm.get(m.title));
        check(`${v.name}, Summary ${m.title} ${o.name} top-2-box`, one(Number(at("top-2-box"))), t2b.get(`${m.title}|${o.name}`));
      }
    }
    if (v.total === "markets" || (v.filters.regionIds as number[] | undefined)?.length === 1) {
      // The Markets sheet's all-markets rows are the view's total (or, with one market, that market).
      for (const row of rowsOf(book.get("Markets")!)) {
        if (!String(row[0] ?? "").startsWith("All markets (")) continue;
        check(`${v.name}, Markets ${row[1]} ${row[2]}`, one(Number(row[5])), t2b.get(`${row[1]}|${row[2]}`));
      }
    }

    // The CSV of a view that weights every respondent at their own weight: the weighted share of the
    // top two answers, from its rows and its Weight column, is the page's top-2-box.
    if (v.total === "sample" || (v.filters.regionIds as number[] | undefined)?.length === 1) {
      const csv = await w.app.request(`/api/v1/Projects(${projectId})/ExportCsv?filters=${enc(v.filters)}`, { headers: { authorization: `Bearer ${USER}`, clientId: String(team) } });
      const lines = parseCsv(await csv.text());
      const head = lines[0]!;
      const wi = head.indexOf("Weight");
      // Each measure's answers by their scale value (1 Top .. 4 Bottom; "not sure" has none), from the tables.
      const scale = await w.tdb.db<{ sq: number; text: string; value: number | null }[]>`
        select pq.standard_question_id as sq, o.option_text as text, o.standard_answer_value as value
        from project_questions pq join question_options o on o.question_id = pq.question_id
        where pq.project_id = ${projectId} and pq.standard_question_id is not null and pq.deleted_at is null`;
      for (const m of qual.measures) {
        const scoreOf = new Map(scale.filter((x) => x.sq === m.standardQuestionId).map((x) => [x.text, x.value]));
        for (const o of options) {
          const ci = head.indexOf(`${m.title} [${o.name}]`);
          expect(ci, `${v.name}: the CSV has ${m.title} [${o.name}]`).toBeGreaterThan(0);
          let sw = 0;
          let top = 0;
          for (const r of lines.slice(1)) {
            const value = scoreOf.get(r[ci]!);
            if (value === undefined || value === null) continue;
            sw += Number(r[wi]);
            if (value <= 2) top += Number(r[wi]);
          }
          check(`${v.name}, CSV ${m.title} ${o.name}`, one(top / sw), t2b.get(`${m.title}|${o.name}`));
        }
      }
    }
  }
  expect(problems).toEqual([]);
}, 900_000);

/** RFC 4180 rows. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = "";
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === ",") {
      row.push(cell);
      cell = "";
    } else if (ch === "\n") {
      row.push(cell.replace(/\r$/, ""));
      rows.push(row);
      row = [];
      cell = "";
    } else cell += ch;
  }
  if (cell || row.length) {
    row.push(cell);
    rows.push(row);
  }
  return rows;
}

test("a summary whose figures have changed since it was written (the norm moved) is left out of the deck and the workbook, which say why; written again, it is back", async () => {
  const v: View = { name: "All markets, benchmark 1", filters: { regionIds: [1, 2] }, benchmarkTypeId: 1, total: "markets" };
  await summaryFor(v);
  const before = await deckOf(v);
  expect(
    before.some((s) => s.paragraphs[0]?.startsWith("AI summary")),
    "written for the view, it is in the deck",
  ).toBe(true);
  // A comparable project leaves the norm (deleted): every benchmark figure of the view moves.
  const normBefore: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&${query(v)}`);
  const [other] = await w.tdb.db<{ id: number }[]>`select id from projects where project_name = 'Protein bar pricing'`;
  await w.tdb.db`update projects set deleted_at = now() where id = ${other!.id}`;
  try {
    const normAfter: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&${query(v)}`);
    expect(normAfter.measures[0]!.results[0]!.vsBenchmark!.top2Percentage, "the norm moved").not.toBe(normBefore.measures[0]!.results[0]!.vsBenchmark!.top2Percentage);
    const after = await deckOf(v);
    expect(
      after.some((s) => s.paragraphs[0]?.startsWith("AI summary")),
      "the old summary is not in the deck",
    ).toBe(false);
    const method = after.find((s) => s.paragraphs[0] === "Method and sample")!;
    expect(method.rows.find((r) => r[0] === "AI summary")?.[1]).toContain("cites figures or states a verdict that have changed since");
    const res = await w.app.request(`/api/v1/Projects(${projectId})/ExportExcel?${query(v)}`, { headers: { authorization: `Bearer ${USER}`, clientId: String(team) } });
    const cover = rowsOf((await readXlsx(await res.arrayBuffer())).get("Cover")!);
    expect(String(cover.find((r) => r[0] === "AI summary")?.[1])).toContain("regenerate it");
    // Written again for the view: it is back, with the view's figures.
    await summaryFor(v);
    const again = await deckOf(v);
    const slide = again.find((s) => s.paragraphs[0]?.startsWith("AI summary"));
    expect(slide, "the new summary is in the deck").toBeDefined();
    const { norm } = expected(normAfter);
    const stated = summaryFigures(slide!.paragraphs).filter((f) => f.kind === "norm");
    expect(stated.length).toBeGreaterThan(0);
    for (const f of stated) expect(f.shown).toBe(norm.get(f.key)!);
  } finally {
    await w.tdb.db`update projects set deleted_at = null where id = ${other!.id}`;
  }
}, 300_000);
