// The exports a client reads (issue 23): the PowerPoint deck and the Excel workbook of a demo project,
// for one market and a named benchmark, opened (unzipped, their XML parsed) and checked against what
// the API answers for the same filters and benchmark: QualResults (top-2-box, intervals, the test
// against the benchmark), QuestionResults, DemographicsResults, Benchmarks, WeightSum and the
// verbatims. Expected values are read from the API here, never from the export code. The concept
// image uploaded for a test option is in the deck, byte for byte; the CSV names no column twice.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import JSZip from "jszip";
import ExcelJS from "exceljs";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp, testStorage } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers } from "../../api/src/jobs/workers.ts";
import { powerPointJob, useDeckFiles } from "../../api/src/domains/results/powerpoint.ts";
import { createDemoWorldDb, demoTeam, demoProject, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";
/** DOMAIN.md "Action standards and verdicts": the decisions' words. */
const DECISION: Record<string, string> = { go: "Go", consider: "Consider", "no-go": "No go" };

let tdb: TestDb;
let app: App;
let queue: Queue;
let token: string;
let team: number;
let projectId: number;
let nz: { id: number; name: string };
let au: { id: number; name: string };
let png: Uint8Array<ArrayBuffer>;
let conceptWithImage: string;
const BENCHMARK = 1;

/** A small PNG (a gradient), written by hand: signature, IHDR, IDAT, IEND with their CRCs. */
function makePng(w: number, h: number): Uint8Array<ArrayBuffer> {
  const chunk = (type: string, data: Uint8Array) => {
    const body = new Uint8Array([...new TextEncoder().encode(type), ...data]);
    const out = new Uint8Array(12 + data.length);
    const v = new DataView(out.buffer);
    v.setUint32(0, data.length);
    out.set(body, 4);
    v.setUint32(8 + data.length, Bun.hash.crc32(body));
    return out;
  };
  const ihdr = new Uint8Array(13);
  const d = new DataView(ihdr.buffer);
  d.setUint32(0, w);
  d.setUint32(4, h);
  ihdr.set([8, 2, 0, 0, 0], 8);
  const raw = new Uint8Array(h * (1 + 3 * w));
  for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) raw.set([(x * 255) / w, (y * 255) / h, 128], y * (1 + 3 * w) + 1 + 3 * x);
  return new Uint8Array([...[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], ...chunk("IHDR", ihdr), ...chunk("IDAT", deflateSync(raw)), ...chunk("IEND", new Uint8Array(0))]);
}

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb());
  queue = await startQueue(tdb.url, () => {});
  await registerWorkers(queue, tdb.db, [powerPointJob], { log: () => {} });
  ({ app } = await realApp(tdb.db, { extra: { queue, storage: testStorage } }));
  useDeckFiles(testStorage);
  ({ token } = await login(app, "user@acme.test", DEMO_PASSWORD));
  team = await demoTeam(tdb.db);
  projectId = await demoProject(tdb.db, team, "Plant-based snacks idea screen");
  const markets = await tdb.db<{ id: number; name: string }[]>`
    select r.id, r.region_name as name from regions r where r.id in (select region_id from project_survey_sessions where project_id = ${projectId}) order by r.id`;
  expect(markets.length, "the demo project has two markets").toBe(2);
  nz = markets.find((m) => m.name === "New Zealand")!;
  au = markets.find((m) => m.name !== "New Zealand")!;
  // A concept image, uploaded as the web app does (stored under the project's key, named on the test option).
  png = makePng(60, 40);
  const [option] = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId} order by sort_order, id limit 1`;
  conceptWithImage = option!.conceptText;
  const key = `clients/${team}/projects/${projectId}/${crypto.randomUUID()}/concept.png`;
  await testStorage.write(key, new Blob([png]).stream(), "image/png", 1 << 20);
  await tdb.db`update test_options set file = ${tdb.db.json({ key, fileType: "image/png", fileName: "concept.png" })} where id = ${option!.id}`;
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  useDeckFiles(null);
  await queue.stop({ graceful: true, timeout: 5000 });
  await tdb.drop();
}, 30_000);

// deno-lint-ignore no-explicit-any
async function get(path: string): Promise<any> {
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}`, clientId: String(team) } });
  const body = await res.json();
  expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  return body;
}
const headers = () => ({ authorization: `Bearer ${token}`, clientId: String(team) });
const filters = () => ({ regionIds: [nz.id] });
const enc = (x: unknown) => encodeURIComponent(JSON.stringify(x));

type Result = {
  testOptionId: number | null;
  n: number;
  top2: number;
  ci: [number, number];
  smallBase: boolean;
  vsBenchmark: { top2Percentage: number; diff: number; significant: boolean; indicative: boolean } | null;
};
type Qual = { measures: { standardQuestionId: number; title: string; results: Result[] }[] };

/** The API's words for a result against the benchmark, as a reader would say them. */
function expectedWords(r: Result): string {
  const b = r.vsBenchmark!;
  if (b.indicative) return "indicative";
  return b.significant ? (b.diff > 0 ? "significantly above" : "significantly below") : "not significant";
}

/** XML text nodes: <tag>text</tag> contents, entities decoded. */
const texts = (xml: string, tag: string) =>
  [...xml.matchAll(new RegExp(`<${tag}>([^<]*)</${tag}>`, "g"))].map((m) =>
    m[1]!
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, "&"),
  );

/** A chart part's series: name, categories and values (c:ser of any chart type), and custom error bars. */
function seriesOf(xml: string) {
  return [...xml.matchAll(/<c:ser>([\s\S]*?)<\/c:ser>/g)].map((m) => {
    const ser = m[1]!;
    const part = (tag: string) => ser.match(new RegExp(`<c:${tag}>([\\s\\S]*?)</c:${tag}>`))?.[1] ?? "";
    return {
      name: texts(part("tx"), "c:v")[0] ?? "",
      labels: texts(part("cat"), "c:v"),
      values: texts(part("val"), "c:v").map(Number),
      plus: texts(part("plus"), "c:v").map(Number),
      minus: texts(part("minus"), "c:v").map(Number),
    };
  });
}

async function deck(body: Record<string, unknown> = { filters: filters(), benchmarkTypeId: BENCHMARK }): Promise<JSZip> {
  const started = await app.request(`/api/v1/Projects(${projectId})/PowerPointExport`, { method: "POST", headers: { ...headers(), "content-type": "application/json" }, body: JSON.stringify(body) });
  const { jobId } = (await started.json()) as { jobId: string };
  expect(started.status, `PowerPointExport ${JSON.stringify(body)}: ${jobId}`).toBe(202);
  let id: string | null = null;
  for (let i = 0; i < 600 && !id; i++) {
    const [r] = await tdb.db<{ id: string }[]>`select id::text from export_files where job_id = ${jobId}`;
    if (r) id = r.id;
    else await Bun.sleep(100);
  }
  expect(id, "the export job finished").not.toBeNull();
  const res = await app.request(`/api/v1/Projects(${projectId})/PowerPointExport/${id}`, { headers: headers() });
  expect(res.status).toBe(200);
  return JSZip.loadAsync(await res.arrayBuffer());
}

test("the deck holds, slide by slide, the figures the API answers for the same market and benchmark", async () => {
  const zip = await deck();
  const slideFiles = Object.keys(zip.files)
    .filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
  const runs = await Promise.all(slideFiles.map(async (f) => texts(await zip.file(f)!.async("string"), "a:t")));
  const slides = runs.map((r) => r.join(" "));
  const chartFiles = Object.keys(zip.files).filter((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f));
  const charts = (await Promise.all(chartFiles.map(async (f) => seriesOf(await zip.file(f)!.async("string"))))).flat();
  const series = (name: string) => charts.filter((s) => s.name === name);

  // Method and sample: the market, n, the benchmark by name and value, weighting and the method.
  const weight = await get(`/api/v1/Responses/WeightSum?projectId=${projectId}&filters=${enc(filters())}`);
  const bench = (await get(`/api/v1/Projects(${projectId})/Benchmarks?regionIds=${nz.id}`)).value.find((b: { benchmarkTypeId: number }) => b.benchmarkTypeId === BENCHMARK);
  const method = slides.find((s) => s.startsWith("Method and sample"));
  expect(method, "a method and sample slide").toBeDefined();
  expect(method).toContain(`Markets ${nz.name} `);
  expect(method).not.toContain(au.name);
  expect(method).toContain(`Respondents ${weight.count} `);
  expect(method).toContain(`Filters Markets: ${nz.name}`);
  // Each measure's norm as QualResults tested against it (issue 37: never an average over measures).
  const viewQual: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(filters())}&benchmarkTypeId=${BENCHMARK}`);
  expect(method).toContain(
    `Benchmark ${bench.description}, each measure's norm (top-2-box): ${viewQual.measures.map((m) => `${m.title} ${m.results[0]!.vsBenchmark!.top2Percentage.toFixed(1)}%`).join(", ")}`,
  );
  expect(method).toMatch(/Weighting Respondents weighted/);
  expect(method).toMatch(/Significance .*Benjamini-Hochberg/);
  expect(slides.join(" "), "the benchmark is named, never a type number").not.toMatch(/benchmark type \d/i);

  // The verdict: Scorecard's go / consider / no-go per concept, with its reason.
  const card = await get(`/api/v1/Responses/Scorecard?projectId=${projectId}&filters=${enc(filters())}&benchmarkTypeId=${BENCHMARK}`);
  const verdict = slides.find((s) => s.startsWith("The verdict"));
  expect(verdict, "a verdict slide").toBeDefined();
  expect(verdict).toContain(`Action standard: ${card.standard.title} top-2-box`);
  const concepts = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId}`;
  for (const row of card.rows) {
    const name = concepts.find((o) => o.id === row.testOptionId)!.conceptText;
    expect(verdict).toContain(`${row.rank} ${name} ${DECISION[row.verdict]!.toUpperCase()}${row.firm ? "" : " (not tested)"} ${(row.top2 * 100).toFixed(1)}%`);
    expect(verdict).toContain(row.reason);
  }
  expect(verdict, "the verdict's one sentence, as Scorecard says it").toContain(card.headline);

  // A slide per measure: its bars are QualResults' top-2-boxes, its whiskers the intervals, its line the norm.
  const qual: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(filters())}&benchmarkTypeId=${BENCHMARK}`);
  expect(qual.measures.length).toBeGreaterThan(2);
  for (const m of qual.measures) {
    const [bars] = series(`${m.title} top-2-box %`);
    expect(bars, `a chart of ${m.title}`).toBeDefined();
    expect(bars!.values).toEqual(m.results.map((r) => +(r.top2 * 100).toFixed(1)));
    expect(bars!.plus).toEqual(m.results.map((r) => +((r.ci[1] - r.top2) * 100).toFixed(2)));
    expect(bars!.minus).toEqual(m.results.map((r) => +((r.top2 - r.ci[0]) * 100).toFixed(2)));
    const norm = m.results[0]!.vsBenchmark!.top2Percentage;
    const line = charts.find((s) => s.name === `${bench.description} ${norm.toFixed(1)}%` && s.labels.join() === bars!.labels.join());
    expect(line?.values, `${m.title}: the benchmark line`).toEqual(m.results.map(() => +norm.toFixed(1)));
    const slide = slides.find((s) => s.startsWith(`${m.title} Top-2-box by concept`))!;
    expect(slide, `${m.title}: its slide`).toBeDefined();
    for (const r of m.results) {
      expect(slide).toContain(`${(r.top2 * 100).toFixed(1)}% ${(r.ci[0] * 100).toFixed(1)}%–${(r.ci[1] * 100).toFixed(1)}% ${r.n}`);
      const d = r.vsBenchmark!.diff * 100;
      expect(slide).toContain(`${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(1)} pts, ${expectedWords(r)}`);
    }
  }

  // Per question: each option's share per concept.
  const questions = await tdb.db<{ id: number }[]>`
    select pq.id from project_questions pq join questions q on q.id = pq.question_id
    where pq.project_id = ${projectId} and pq.deleted_at is null and pq.standard_question_id is null and q.question_type_id <> 3`;
  expect(questions.length).toBeGreaterThan(0);
  for (const pq of questions) {
    const qr = (await get(`/api/v1/Responses/QualResults?projectId=${projectId}&projectQuestionId=${pq.id}&filters=${enc(filters())}`)).question;
    expect(
      slides.some((s) => s.startsWith(qr.questionTitle || qr.questionText)),
      `a slide for ${qr.questionText}`,
    ).toBe(true);
    for (const r of qr.results) {
      const shares = Object.fromEntries(
        qr.options.map((o: { id: number; text: string }) => [o.text, +((r.options.find((x: { questionOptionId: number }) => x.questionOptionId === o.id)?.share ?? 0) * 100).toFixed(1)]),
      );
      const s = charts.find((c) => c.labels.length === qr.options.length && c.labels.every((l, i) => shares[l] === c.values[i]));
      expect(s, `${qr.questionText}: the shares of test option ${r.testOptionId}`).toBeDefined();
    }
  }

  // Demographics: a chart per question with the weighted shares.
  const demo = await get(`/api/v1/Responses/DemographicsResults?projectId=${projectId}&filters=${enc(filters())}`);
  for (const d of demo.questions) {
    const [s] = series(d.questionLabel);
    expect(s, `a chart of ${d.questionLabel}`).toBeDefined();
    const want = Object.fromEntries(d.options.map((o: { answerLabel: string; share: number }) => [o.answerLabel, +(o.share * 100).toFixed(1)]));
    expect(Object.fromEntries(s!.labels.map((l, i) => [l, s!.values[i]]))).toEqual(want);
  }

  // Quotes per theme: open answers of the filtered respondents (this market's), as the verbatims list them.
  const open = await tdb.db<{ id: number }[]>`
    select pq.id from project_questions pq join questions q on q.id = pq.question_id where pq.project_id = ${projectId} and q.question_type_id = 3 and pq.deleted_at is null`;
  const verbatims = new Set<string>();
  for (const o of open) {
    for (let page = 1; ; page++) {
      const v = await get(`/api/v1/TextResponses/VerbatimShort?projectId=${projectId}&projectQuestionId=${o.id}&filters=${enc(filters())}&pageSize=200&page=${page}`);
      for (const x of v.value) verbatims.add(x.text);
      if (v.value.length < 200) break;
    }
  }
  const quoteSlides = runs.filter((r) => r.join(" ").startsWith("What people said"));
  expect(quoteSlides.length, "a themes slide per open question").toBe(open.length);
  const quotes = quoteSlides.flat().flatMap((run) => {
    const m = /^“(.+)” — (.+)$/.exec(run);
    return m ? [{ text: m[1]!, who: m[2]! }] : [];
  });
  expect(quotes.length).toBeGreaterThan(0);
  for (const q of quotes) {
    expect(verbatims.has(q.text) || [...verbatims].some((v) => v.startsWith(q.text.replace(/…$/, ""))), `“${q.text}” is a filtered respondent's answer`).toBe(true);
    expect(q.who).toContain(nz.name);
  }

  // The concept image, byte for byte, and the AI summary.
  const media = Object.keys(zip.files).filter((f) => f.startsWith("ppt/media/") && !zip.files[f]!.dir);
  const images = await Promise.all(media.map((f) => zip.file(f)!.async("uint8array")));
  expect(
    images.some((b) => Buffer.from(b).equals(Buffer.from(png))),
    "the uploaded concept image",
  ).toBe(true);
  expect(slides.find((s) => s.startsWith("The concepts"))).toContain(conceptWithImage);
  // No AI summary was written for this view: the method slide says so, and no summary slide stands in for another view's.
  expect(
    slides.some((s) => s.startsWith("AI summary")),
    "no AI summary of another view",
  ).toBe(false);
  expect(method).toContain("AI summary No AI summary has been written for this view");
}, 120_000);

test("the workbook: a cover naming market, filters, dates and benchmark; numeric deltas; a sheet per question", async () => {
  const res = await app.request(`/api/v1/Projects(${projectId})/ExportExcel?benchmarkTypeId=${BENCHMARK}&filters=${enc(filters())}`, { headers: headers() });
  expect(res.status).toBe(200);
  const buf = await res.arrayBuffer();
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(buf);
  const weight = await get(`/api/v1/Responses/WeightSum?projectId=${projectId}&filters=${enc(filters())}`);
  const bench = (await get(`/api/v1/Projects(${projectId})/Benchmarks?regionIds=${nz.id}`)).value.find((b: { benchmarkTypeId: number }) => b.benchmarkTypeId === BENCHMARK);

  const cover = wb.getWorksheet("Cover")!;
  expect(wb.worksheets[0]!.name, "the cover comes first").toBe("Cover");
  const field = (k: string) => {
    let v: unknown;
    cover.eachRow((r) => {
      if (r.getCell(1).value === k) v = r.getCell(2).value;
    });
    return v;
  };
  expect(field("Markets")).toBe(nz.name);
  expect(field("Respondents")).toBe(weight.count);
  expect(String(field("Filters"))).toBe(`Markets: ${nz.name}`);
  expect(field("Benchmark")).toBe(bench.description + (bench.indicative ? " (indicative: few projects)" : ""));
  const viewQual: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(filters())}&benchmarkTypeId=${BENCHMARK}`);
  for (const m of viewQual.measures) expect(field(`Benchmark top-2-box: ${m.title}`), m.title).toBe(m.results[0]!.vsBenchmark!.top2Percentage / 100);
  const [dates] = await tdb.db<{ from: string; to: string }[]>`
    select to_char(min(completed_at) at time zone 'UTC', 'YYYY-MM-DD') as from, to_char(max(completed_at) at time zone 'UTC', 'YYYY-MM-DD') as to
    from project_survey_sessions where project_id = ${projectId} and region_id = ${nz.id} and status = 'Complete'`;
  expect(field("Fieldwork from")).toBe(dates!.from);
  expect(field("Fieldwork to")).toBe(dates!.to);
  // The demo's respondents are the simulated panel's (issue 36: a report of simulated answers says so).
  const [sim] = await tdb.db<{ n: number; simulated: number }[]>`
    select count(*)::int as n, count(*) filter (where s.is_simulated)::int as simulated
    from project_survey_sessions p join survey_sessions s on s.id = p.survey_session_id
    where p.project_id = ${projectId} and p.region_id = ${nz.id} and p.status = 'Complete'`;
  expect(sim!.simulated, "every demo respondent is simulated").toBe(sim!.n);
  expect(field("Simulated respondents")).toBe(`All ${sim!.n.toLocaleString("en")} respondents are simulated: answers generated by the simulated panel, not real people.`);
  expect(String(field("Weighting"))).toContain("weighted");
  expect(String(field("Significance method"))).toContain("Benjamini-Hochberg");
  const card = await get(`/api/v1/Responses/Scorecard?projectId=${projectId}&filters=${enc(filters())}&benchmarkTypeId=${BENCHMARK}`);
  const concepts = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId}`;
  expect(field("Verdict")).toBe(card.headline);
  for (const row of card.rows)
    expect(field(`Verdict: ${concepts.find((o) => o.id === row.testOptionId)!.conceptText}`)).toBe(
      `${DECISION[row.verdict]}${row.firm ? "" : " (not a tested verdict)"}, rank ${row.rank}: ${row.reason}`,
    );

  // Summary: numbers with number formats (the delta in points, not text), the benchmark by name.
  const qual: Qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(filters())}&benchmarkTypeId=${BENCHMARK}`);
  const ws = wb.getWorksheet("Summary")!;
  const header = (ws.getRow(1).values as unknown[]).slice(1);
  const options = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId}`;
  let rows = 0;
  ws.eachRow((row, i) => {
    const m = qual.measures.find((x) => x.title === row.getCell(1).value);
    if (i === 1 || !m) return;
    for (const r of m.results) {
      const name = options.find((o) => o.id === r.testOptionId)!.conceptText;
      const cell = (h: string) => row.getCell(header.indexOf(`${name} ${h}`) + 1);
      expect(cell("top-2-box").value).toBe(r.top2);
      expect(cell("top-2-box").numFmt).toBe("0.0%");
      expect(cell("vs benchmark (pts)").value).toBeCloseTo(r.vsBenchmark!.diff * 100, 10);
      expect(typeof cell("vs benchmark (pts)").value).toBe("number");
      expect(cell("vs benchmark (pts)").numFmt).toContain("0.0");
      expect(cell("benchmark").value).toBeCloseTo(r.vsBenchmark!.top2Percentage / 100, 12);
      expect(cell("significance").value).toBe(expectedWords(r) + (r.smallBase ? " (low base)" : ""));
    }
    rows++;
  });
  expect(rows).toBe(qual.measures.length);
  const words: string[] = [];
  wb.eachSheet((s) => s.eachRow((r) => r.eachCell((c) => void (typeof c.value === "string" && words.push(c.value)))));
  expect(words.filter((w) => /benchmark type \d/i.test(w))).toEqual([]);
  expect(words.some((w) => w.includes(bench.description))).toBe(true);

  // A sheet per question, its shares QuestionResults'.
  const questions = await tdb.db<{ id: number }[]>`
    select pq.id from project_questions pq join questions q on q.id = pq.question_id join question_positions pos on pos.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null and pq.standard_question_id is null and q.question_type_id <> 3 order by pos.sort_position, pq.sort_order, pq.id`;
  for (const [k, pq] of questions.entries()) {
    const qr = (await get(`/api/v1/Responses/QualResults?projectId=${projectId}&projectQuestionId=${pq.id}&filters=${enc(filters())}`)).question;
    const sheet = wb.worksheets.find((w) => w.name.startsWith(`Q${k + 1} `))!;
    expect(sheet, `a sheet for ${qr.questionText}`).toBeDefined();
    expect(sheet.getRow(1).getCell(1).value).toBe(qr.questionText);
    for (const o of qr.options) {
      let found = false;
      sheet.eachRow((row) => {
        if (row.getCell(1).value !== o.text) return;
        found = true;
        qr.results.forEach((r: { options: { questionOptionId: number; share: number; count: number }[] }, i: number) => {
          const x = r.options.find((y) => y.questionOptionId === o.id)!;
          expect(row.getCell(2 + i * 2).value).toBe(x.share);
          expect(row.getCell(3 + i * 2).value).toBe(x.count);
        });
      });
      expect(found, `${qr.questionText}: a row for ${o.text}`).toBe(true);
    }
    sheet.eachRow((row) => {
      if (row.getCell(1).value !== "Base (n)") return;
      qr.results.forEach((r: { n: number }, i: number) => {
        expect(row.getCell(2 + i * 2).value, "the base").toBe(r.n);
        expect(row.getCell(2 + i * 2).numFmt, "a count, not a share").toBe("0");
      });
    });
  }
}, 120_000);

/** A deck's slides (text runs, and joined) and its chart series. */
async function readDeck(zip: JSZip) {
  const slideFiles = Object.keys(zip.files)
    .filter((f) => /^ppt\/slides\/slide\d+\.xml$/.test(f))
    .sort((a, b) => Number(a.match(/\d+/)![0]) - Number(b.match(/\d+/)![0]));
  const runs = await Promise.all(slideFiles.map(async (f) => texts(await zip.file(f)!.async("string"), "a:t")));
  const chartFiles = Object.keys(zip.files).filter((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f));
  const charts = (await Promise.all(chartFiles.map(async (f) => seriesOf(await zip.file(f)!.async("string"))))).flat();
  return { runs, slides: runs.map((r) => r.join(" ")), charts };
}

// All markets (the web's market picker's region 0) with a demographic filter, at a view's own settings:
// every market's id in the filter, the all-markets total (markets weighted by population), 90% and Bonferroni.
let female = 0;
const allMarkets = () => ({ regionIds: [au.id, nz.id].sort((a, b) => a - b), filterIds: [female] });
const VIEW = { confidence: 90, adjust: "bonferroni", total: "markets" } as const;
const viewQuery = () => `&confidence=${VIEW.confidence}&adjust=${VIEW.adjust}&total=${VIEW.total}`;
const marketName = (id: number) => [au, nz].find((m) => m.id === id)!.name;

async function femaleOption(): Promise<number> {
  const [o] = await tdb.db<{ id: number }[]>`
    select o.id from system_question_option o where o.system_question_id = 45 and o.answer_label = 'Female' and o.is_visible
      and (o.region_id is null or o.region_id = ${au.id}) order by o.region_id nulls first, o.id limit 1`;
  expect(o, "a Female option of the gender question").toBeDefined();
  return o!.id;
}

test("All markets with a filter: the deck's figures are QualResults' all-markets total at the view's confidence and adjustment, and its method slide says so", async () => {
  female ||= await femaleOption();
  const { slides, charts } = await readDeck(await deck({ filters: allMarkets(), benchmarkTypeId: BENCHMARK, ...VIEW }));
  const qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(allMarkets())}&benchmarkTypeId=${BENCHMARK}${viewQuery()}`);
  expect(qual.total).toBe("markets");
  expect(qual.allMarkets.weighting, "the demo markets have populations").toBe("population");
  // The sample-weighted total differs from the all-markets one, so the deck could not pass with the wrong one.
  const sample = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(allMarkets())}&benchmarkTypeId=${BENCHMARK}&confidence=${VIEW.confidence}&adjust=${VIEW.adjust}`);
  const pooled = new Map<string, number>(sample.measures.flatMap((m: Qual["measures"][number]) => m.results.map((r) => [`${m.standardQuestionId}:${r.testOptionId}`, r.top2] as const)));
  expect(qual.measures.some((m: Qual["measures"][number]) => m.results.some((r) => Math.abs(r.top2 - pooled.get(`${m.standardQuestionId}:${r.testOptionId}`)!) > 0.001))).toBe(true);

  for (const m of (qual as Qual).measures) {
    const bars = charts.find((s) => s.name === `${m.title} top-2-box %`);
    expect(bars?.values, `${m.title}: the all-markets top-2-boxes`).toEqual(m.results.map((r) => +(r.top2 * 100).toFixed(1)));
    expect(bars!.plus, `${m.title}: the 90% intervals`).toEqual(m.results.map((r) => +((r.ci[1] - r.top2) * 100).toFixed(2)));
    expect(bars!.minus).toEqual(m.results.map((r) => +((r.top2 - r.ci[0]) * 100).toFixed(2)));
    const slide = slides.find((s) => s.startsWith(`${m.title} Top-2-box by concept`))!;
    expect(slide, `${m.title}: its slide names the 90% intervals`).toContain("90% intervals");
    for (const r of m.results) {
      const d = r.vsBenchmark!.diff * 100;
      expect(slide).toContain(`${d >= 0 ? "+" : "−"}${Math.abs(d).toFixed(1)} pts, ${expectedWords(r)}`);
    }
  }
  const method = slides.find((s) => s.startsWith("Method and sample"))!;
  expect(method).toContain(`Confidence ${VIEW.confidence}%`);
  expect(method).toContain("Multiple comparisons Bonferroni");
  expect(method).toMatch(/Significance .*Bonferroni/);
  expect(method, "the total named with its weighting").toContain("Total All markets, weighted by population:");
  for (const x of qual.allMarkets.shares) expect(method).toContain(`${marketName(x.regionId)} ${(x.share * 100).toFixed(1)}%`);
  const title = slides[0]!;
  expect(title, "the title slide names the total").toContain("All markets, weighted by population");
  // Two markets' own answers to one question (two "European"s) are told apart by their market.
  const ethnicity = charts.find((s) => s.name === "Ethnicity");
  expect(ethnicity, "an Ethnicity chart").toBeDefined();
  expect(new Set(ethnicity!.labels).size, `Ethnicity's answers, each once: ${ethnicity!.labels.join(", ")}`).toBe(ethnicity!.labels.length);

  const card = await get(`/api/v1/Responses/Scorecard?projectId=${projectId}&filters=${enc(allMarkets())}&benchmarkTypeId=${BENCHMARK}${viewQuery()}`);
  const verdict = slides.find((s) => s.startsWith("The verdict"))!;
  const concepts = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId}`;
  for (const row of card.rows)
    expect(verdict).toContain(
      `${row.rank} ${concepts.find((o) => o.id === row.testOptionId)!.conceptText} ${DECISION[row.verdict]!.toUpperCase()}${row.firm ? "" : " (not tested)"} ${(row.top2 * 100).toFixed(1)}%`,
    );
}, 120_000);

test("a deck's options are checked: an unknown total or adjustment, or a confidence not offered, is a 400", async () => {
  for (const bad of [{ total: "regions" }, { adjust: "holm" }, { confidence: 80 }]) {
    const res = await app.request(`/api/v1/Projects(${projectId})/PowerPointExport`, {
      method: "POST",
      headers: { ...headers(), "content-type": "application/json" },
      body: JSON.stringify({ filters: filters(), ...bad }),
    });
    expect(res.status, JSON.stringify(bad)).toBe(400);
  }
});

test("All markets with a filter: the workbook's Summary is QualResults' all-markets total at the view's confidence and adjustment; the cover names the weighting", async () => {
  female ||= await femaleOption();
  const res = await app.request(`/api/v1/Projects(${projectId})/ExportExcel?benchmarkTypeId=${BENCHMARK}&filters=${enc(allMarkets())}${viewQuery()}`, { headers: headers() });
  expect(res.status).toBe(200);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(await res.arrayBuffer());
  const qual = await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(allMarkets())}&benchmarkTypeId=${BENCHMARK}${viewQuery()}`);
  const options = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId}`;
  const ws = wb.getWorksheet("Summary")!;
  const header = (ws.getRow(1).values as unknown[]).slice(1);
  let rows = 0;
  ws.eachRow((row, i) => {
    const m = (qual as Qual).measures.find((x) => x.title === row.getCell(1).value);
    if (i === 1 || !m) return;
    for (const r of m.results as (Result & { ci: [number, number]; vsBenchmark: { pAdjusted: number | null } })[]) {
      const name = options.find((o) => o.id === r.testOptionId)!.conceptText;
      const cell = (h: string) => row.getCell(header.indexOf(`${name} ${h}`) + 1).value;
      expect(cell("top-2-box"), `${m.title}, ${name}: the all-markets top-2-box`).toBe(r.top2);
      expect(cell("CI low")).toBe(r.ci[0]);
      expect(cell("CI high")).toBe(r.ci[1]);
      expect(cell("p adjusted"), "Bonferroni's adjusted p").toBe(r.vsBenchmark!.pAdjusted);
      expect(cell("significance")).toBe(expectedWords(r) + (r.smallBase ? " (low base)" : ""));
    }
    rows++;
  });
  expect(rows).toBe(qual.measures.length);
  const cover = wb.getWorksheet("Cover")!;
  const field = (k: string) => {
    let v: unknown;
    cover.eachRow((r) => {
      if (r.getCell(1).value === k) v = r.getCell(2).value;
    });
    return v;
  };
  expect(field("Confidence")).toBe(0.9);
  expect(String(field("Significance method"))).toContain("Bonferroni");
  const total = String(field("Total"));
  expect(total).toContain("All markets, weighted by population:");
  for (const x of qual.allMarkets.shares) expect(total).toContain(`${marketName(x.regionId)} ${(x.share * 100).toFixed(1)}%`);
  const notes: string[] = [];
  ws.eachRow((r) => void (r.getCell(1).value === "Note" && notes.push(String(r.getCell(2).value))));
  expect(
    notes.some((n) => n.includes("all-markets total") && n.includes("Bonferroni")),
    "the Summary's note names the total and the adjustment",
  ).toBe(true);
  // The cross-tabs at the same confidence and adjustment.
  const xt: string[] = [];
  wb.getWorksheet("Cross-tabs")!.eachRow((r) => void (typeof r.getCell(1).value === "string" && xt.push(String(r.getCell(1).value))));
  expect(
    xt.filter((n) => n.startsWith("Letters:")).every((n) => n.includes("at 90% (Bonferroni adjustment")),
    "the cross-tabs' letters at 90%, Bonferroni",
  ).toBe(true);
  // Demographics: an answer of one market's own (two markets' "European") says its market, as the rows' region ids have it.
  const demo = await get(`/api/v1/Responses/DemographicsResults?projectId=${projectId}&filters=${enc(allMarkets())}`);
  const own = new Map(
    (await tdb.db<{ id: number; region: number | null }[]>`select id, region_id as region from system_question_option where system_question_id in (41, 46)`).map((o) => [o.id, o.region]),
  );
  const shown: string[] = [];
  wb.getWorksheet("Demographics")!.eachRow((r) => void shown.push(`${r.getCell(1).value}|${r.getCell(2).value}`));
  let mixed = 0;
  for (const d of demo.questions as { systemQuestionId: number; questionLabel: string; options: { systemQuestionOptionId: number; answerLabel: string }[] }[]) {
    const regions = new Set(d.options.map((o) => own.get(o.systemQuestionOptionId)).filter((x) => x !== null && x !== undefined));
    if (regions.size < 2) continue;
    mixed++;
    for (const o of d.options) {
      const r = own.get(o.systemQuestionOptionId);
      const want = r ? `${o.answerLabel} (${marketName(r)})` : o.answerLabel;
      expect(shown, `${d.questionLabel}: ${want}`).toContain(`${d.questionLabel}|${want}`);
    }
  }
  expect(mixed, "ethnicity and income hold both markets' own answers").toBeGreaterThan(0);
}, 120_000);

test("All markets with a filter: the questions, demographics and cross-tabs of the workbook and the deck are the all-markets total (QuestionResults, DemographicsResults and CrossTab with total=markets), not the sample-weighted one", async () => {
  female ||= await femaleOption();
  const res = await app.request(`/api/v1/Projects(${projectId})/ExportExcel?benchmarkTypeId=${BENCHMARK}&filters=${enc(allMarkets())}${viewQuery()}`, { headers: headers() });
  expect(res.status).toBe(200);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(await res.arrayBuffer());
  const { charts } = await readDeck(await deck({ filters: allMarkets(), benchmarkTypeId: BENCHMARK, ...VIEW }));
  const concepts = await tdb.db<{ id: number; conceptText: string }[]>`select id, concept_text as "conceptText" from test_options where project_id = ${projectId}`;
  type QR = { questionText: string; total: string; options: { id: number; text: string }[]; results: { testOptionId: number | null; options: { questionOptionId: number; share: number }[] }[] };
  // Questions: each sheet's shares and each slide's bars are QuestionResults' all-markets shares.
  const questions = await tdb.db<{ id: number }[]>`
    select pq.id from project_questions pq join questions q on q.id = pq.question_id join question_positions pos on pos.id = pq.question_position_id
    where pq.project_id = ${projectId} and pq.deleted_at is null and pq.standard_question_id is null and q.question_type_id <> 3 order by pos.sort_position, pq.sort_order, pq.id`;
  expect(questions.length).toBeGreaterThan(0);
  let differs = 0;
  for (const [k, pq] of questions.entries()) {
    const qr = (await get(`/api/v1/Responses/QualResults?projectId=${projectId}&projectQuestionId=${pq.id}&filters=${enc(allMarkets())}&total=markets`)).question as QR;
    const sample = (await get(`/api/v1/Responses/QualResults?projectId=${projectId}&projectQuestionId=${pq.id}&filters=${enc(allMarkets())}`)).question as QR;
    expect(qr.total).toBe("markets");
    const sheet = wb.worksheets.find((w) => w.name.startsWith(`Q${k + 1} `))!;
    expect(String(sheet.getRow(2).getCell(1).value)).toContain("all-markets total");
    for (const o of qr.options) {
      sheet.eachRow((row) => {
        if (row.getCell(1).value !== o.text) return;
        qr.results.forEach((r, i) => {
          expect(row.getCell(2 + i * 2).value, `${qr.questionText}: ${o.text}`).toBe(r.options.find((y) => y.questionOptionId === o.id)!.share);
        });
      });
      for (const [i, r] of qr.results.entries())
        if (Math.abs(r.options.find((y) => y.questionOptionId === o.id)!.share - sample.results[i]!.options.find((y) => y.questionOptionId === o.id)!.share) > 1e-6) differs++;
    }
    const labels = [...qr.options].reverse().map((o) => o.text);
    for (const r of qr.results) {
      const name = concepts.find((c) => c.id === r.testOptionId)?.conceptText;
      const values = [...qr.options].reverse().map((o) => +((r.options.find((y) => y.questionOptionId === o.id)?.share ?? 0) * 100).toFixed(1));
      const bars = charts.filter((c) => (name === undefined || c.name === name) && JSON.stringify(c.labels) === JSON.stringify(labels)).map((c) => c.values);
      expect(bars, `${qr.questionText}: its slide's bars`).toContainEqual(values);
    }
  }
  expect(differs, "the two totals differ on the demo's questions").toBeGreaterThan(0);
  // Demographics: the sheet's shares (in DemographicsResults' order) and the deck's charts.
  type Demo = { total: string; questions: { questionLabel: string; options: { share: number }[] }[] };
  const demo = (await get(`/api/v1/Responses/DemographicsResults?projectId=${projectId}&filters=${enc(allMarkets())}&total=markets`)) as Demo;
  const demoSample = (await get(`/api/v1/Responses/DemographicsResults?projectId=${projectId}&filters=${enc(allMarkets())}`)) as Demo;
  expect(demo.total).toBe("markets");
  const shares: unknown[] = [];
  wb.getWorksheet("Demographics")!.eachRow((r, i) => void (i > 1 && typeof r.getCell(4).value === "number" && shares.push(r.getCell(4).value)));
  expect(shares).toEqual(demo.questions.flatMap((d) => d.options.map((o) => o.share)));
  expect(demo.questions.flatMap((d) => d.options.map((o) => o.share))).not.toEqual(demoSample.questions.flatMap((d) => d.options.map((o) => o.share)));
  for (const d of demo.questions) expect(charts.find((c) => c.name === d.questionLabel)?.values, d.questionLabel).toEqual(d.options.map((o) => +(o.share * 100).toFixed(1)).reverse());
  // Cross-tabs: the first measure's table is CrossTab's with total=markets (its Total column included).
  const qual = (await get(`/api/v1/Responses/QualResults?projectId=${projectId}&filters=${enc(allMarkets())}${viewQuery()}`)) as Qual;
  const m = qual.measures[0]!;
  const xq = `/api/v1/Responses/CrossTab?projectId=${projectId}&filters=${enc(allMarkets())}&rows=measure:${m.standardQuestionId}&banner=demographic:45,demographic:51,market&confidence=90&adjust=bonferroni`;
  const xt = await get(`${xq}&total=markets`);
  const xs = await get(xq);
  expect(xt.total).toBe("markets");
  const rows = Array.from(wb.getWorksheet("Cross-tabs")!.getSheetValues(), (r) => (Array.isArray(r) ? Array.from(r.slice(1)) : []));
  const at = rows.findIndex((r) => typeof r[0] === "string" && r[0].startsWith(`${m.title}: `));
  expect(at).toBeGreaterThanOrEqual(0);
  for (const r of xt.rows as { label: string; cells: { value: number | null }[] }[]) {
    const row = rows.slice(at).find((x) => x[0] === r.label)!;
    expect(row.slice(1), r.label).toEqual(r.cells.map((c) => c.value ?? undefined));
  }
  expect(Math.abs(xt.rows[0].cells[0].value - xs.rows[0].cells[0].value), "the Total column differs between the totals").toBeGreaterThan(1e-6);
  expect(rows.some((r) => typeof r[0] === "string" && r[0].includes("each market's respondents reweighted to its population share"))).toBe(true);
}, 180_000);

test("the deck's themes are ThemeResults' for the filters, and each quote an answer Verbatim lists under the theme", async () => {
  female ||= await femaleOption();
  const { runs, charts } = await readDeck(await deck({ filters: allMarkets(), benchmarkTypeId: BENCHMARK, ...VIEW }));
  const open = await tdb.db<{ id: number }[]>`
    select pq.id from project_questions pq join questions q on q.id = pq.question_id where pq.project_id = ${projectId} and q.question_type_id = 3 and pq.deleted_at is null order by pq.id`;
  expect(open.length).toBeGreaterThan(0);
  const cut = (t: string, n: number) => (t.length > n ? `${t.slice(0, n - 1).trimEnd()}…` : t);
  let quoted = 0;
  for (const o of open) {
    const tr = await get(`/api/v1/TextResponses/ThemeResults?projectId=${projectId}&projectQuestionId=${o.id}&filters=${enc(allMarkets())}`);
    type T = { id: number; name: string; sentiment: string | null; count: number; share: number };
    const want: T[] = tr.themes.filter((t: T) => t.count > 0).slice(0, 6);
    if (!want.length) continue;
    const chart = charts.find(
      (s) =>
        s.name === "Share of answers %" &&
        s.labels.join("|") ===
          [...want]
            .reverse()
            .map((t) => cut(t.name, 40))
            .join("|"),
    );
    expect(chart?.values, `question ${o.id}: ThemeResults' themes, in its order, with its shares`).toEqual([...want].reverse().map((t) => +(t.share * 100).toFixed(1)));
    const slide = runs.find((r) => r[0]?.startsWith("What people said") && r.some((x) => x === `Themes of ${tr.answers} open answers from the filtered respondents, with quotes`));
    expect(slide, `question ${o.id}: a slide with ThemeResults' ${tr.answers} answers`).toBeDefined();
    let theme: T | null = null;
    for (const run of slide!) {
      const head = want.find((t) => run === `${t.name} (${t.count}${t.sentiment ? `, ${t.sentiment.toLowerCase()}` : ""})`);
      if (head) {
        theme = head;
        continue;
      }
      const m = /^“(.+)” — (.+)$/.exec(run);
      if (!m) continue;
      expect(theme, `“${m[1]}” comes under a theme`).not.toBeNull();
      const listed: string[] = [];
      for (let page = 1; ; page++) {
        const v = await get(`/api/v1/TextResponses/Verbatim?projectId=${projectId}&projectQuestionId=${o.id}&themeId=${theme!.id}&filters=${enc(allMarkets())}&pageSize=200&page=${page}`);
        for (const x of v.value) listed.push(x.translatedText ?? x.responseText);
        if (v.value.length < 200) break;
      }
      const text = m[1]!;
      expect(
        listed.some((x) => x === text || (text.endsWith("…") && x.startsWith(text.slice(0, -1)))),
        `“${text}” is an answer of ${theme!.name} under the filters`,
      ).toBe(true);
      quoted++;
    }
  }
  expect(quoted).toBeGreaterThan(0);
}, 120_000);

test("the CSV names every column once (the market and the Region question apart)", async () => {
  const res = await app.request(`/api/v1/Projects(${projectId})/ExportCsv`, { headers: headers() });
  expect(res.status).toBe(200);
  const header = (await res.text()).split("\r\n")[0]!.split(",");
  expect(header.length).toBeGreaterThan(10);
  expect(
    header.filter((h, i) => header.indexOf(h) !== i),
    "repeated column names",
  ).toEqual([]);
  expect(header).toContain("Market");
  expect(header).toContain("Region");
});

test("column names made unique", async () => {
  const { uniqueNames } = await import("../../api/src/domains/results/exports.service.ts");
  expect(uniqueNames(["Region", "Region", "A", "region", "Region"])).toEqual(["Region", "Region (2)", "A", "region (3)", "Region (4)"]);
});
