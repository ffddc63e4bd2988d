// AiProjectSummaries with the local provider on the fielded demo projects: every figure a summary
// writes equals what the results functions answer (and no other number appears); summaries are
// queued when results are ready, when an objective is saved, per segment, and by Regenerate.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { aiWorld, type AiWorld } from "../helpers/ai.ts";
import { expectGrounded } from "../helpers/grounding.ts";
import { summariesJob, queueReadySummaries, useProvider } from "../../api/src/domains/ai/summaries.service.ts";
import { LocalProvider } from "../../api/src/domains/ai/local.ts";
import { projectContext, type Figure } from "../../api/src/domains/ai/facts.ts";
import { systemCtx } from "../../api/src/domains/lifecycle/lifecycle.service.ts";
import { emailSummariesJob, sendWeeklySummaries } from "../../api/src/domains/ai/email-summaries.ts";
import { outboxMailer } from "../../api/src/email/mailer.ts";
import { qualResults, questionResults } from "../../api/src/domains/results/results.service.ts";
import { subscribe, type NotifiedEvent } from "../../api/src/jobs/channel.ts";
import { STOP_WORDS } from "@ideally/analytics/verbatims";
import { DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let w: AiWorld;
const events: NotifiedEvent[] = [];
let unsubscribe: () => Promise<void>;
const USER = "user@acme.test";
let teamA: number;
let globex: number;

beforeAll(async () => {
  useProvider(new LocalProvider());
  w = await aiWorld([summariesJob, emailSummariesJob]);
  unsubscribe = await subscribe(w.tdb.url, (ev) => void events.push(ev));
  [{ teamA, globex }] = await w.tdb.db<{ teamA: number; globex: number }[]>`
    select (select id from clients where name = 'Acme Team A') as "teamA", (select id from clients where name = 'Globex') as globex`;
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  useProvider(null);
  await unsubscribe();
  await w.stop();
}, 30_000);

interface SummaryRow {
  id: number;
  projectId: number;
  status: string;
  content: string | null;
  title: string | null;
  error: string | null;
  referencesData: Figure[] | null;
  provider: string | null;
  model: string | null;
  usage: { totalTokens: number } | null;
  trigger: string;
  segmentId: number | null;
  projectObjectiveId: number | null;
  jobId: string | null;
}

async function settled(ids: number[]): Promise<SummaryRow[]> {
  for (let i = 0; i < 600; i++) {
    const rows = await w.tdb.db<SummaryRow[]>`
      select id, project_id as "projectId", status, content, title, error, references_data as "referencesData", provider, model, usage, trigger,
             segment_id as "segmentId", project_objective_id as "projectObjectiveId", job_id as "jobId"
      from ai_project_summaries where id = any(${ids}::int[]) order by id`;
    if (rows.length === ids.length && rows.every((r) => r.status === "Ready" || r.status === "Failed")) return rows;
    await Bun.sleep(100);
  }
  throw new Error(`summaries ${ids} were not written`);
}

async function labelsOf(projectId: number, extra: string[] = []): Promise<string[]> {
  const pc = await projectContext(w.tdb.db, systemCtx(), projectId);
  return [
    pc.projectName,
    pc.objective,
    ...pc.testOptions.map((o) => o.name),
    ...pc.measures.map((m) => m.title),
    ...pc.demographics.flatMap((d) => [d.label, ...d.options.map((o) => o.label)]),
    ...pc.regions.map((r) => r.name),
    ...pc.textQuestions.map((q) => q.text),
    ...pc.choiceQuestions.map((q) => q.text),
    ...(await w.tdb.db<{ text: string }[]>`select o.option_text as text from question_options o join project_questions pq on pq.question_id = o.question_id where pq.project_id = ${projectId}`).map(
      (o) => o.text,
    ),
    ...extra,
  ];
}

async function expectSummaryGrounded(r: SummaryRow, extra: string[] = []): Promise<number> {
  expect(r.status, `summary ${r.id}: ${r.error}`).toBe("Ready");
  expect(r.provider).toBe("local");
  expect(r.usage!.totalTokens).toBeGreaterThan(0);
  // Recomputed as staff across clients (the demo includes Globex's project).
  return expectGrounded(w.tdb.db, systemCtx(), r.projectId, r.content!, r.referencesData ?? [], await labelsOf(r.projectId, extra));
}

test("results ready: each completed demo project gets its summaries queued once", async () => {
  // Two ticks at once (as two API processes' fielding ticks can be): together they queue each project
  // once, and a third finds nothing left.
  const [a, b] = await Promise.all([queueReadySummaries(w.tdb.db, w.queue), queueReadySummaries(w.tdb.db, w.queue)]);
  expect(a + b, "every demo project has results, queued by one of the two").toBe(w.projectIds.length);
  expect(await queueReadySummaries(w.tdb.db, w.queue), "and not twice").toBe(0);
  const rows = await w.tdb.db<{ id: number }[]>`select id from ai_project_summaries where trigger = 'ResultsReady' and segment_id is null`;
  expect(rows.length).toBe(w.projectIds.length);
  const done = await settled(rows.map((r) => r.id));
  let cited = 0;
  for (const r of done) cited += await expectSummaryGrounded(r);
  expect(cited, "the summaries cite figures").toBeGreaterThan(w.projectIds.length * 4);
}, 240_000);

test("a question project's summary reads its own questions and its verbatim themes", async () => {
  const [r] = await w.tdb.db<SummaryRow[]>`
    select s.id, s.content, s.references_data as "referencesData" from ai_project_summaries s join projects p on p.id = s.project_id
    where p.project_name = 'Weekday lunch habits' and s.trigger = 'ResultsReady' and s.segment_id is null`;
  expect(r!.content).toContain('"Which best describes your weekday lunch?": ');
  expect(r!.content).toContain("What people said:");
  expect(r!.referencesData!.map((f) => f.source.fn)).toContain("VerbatimCount");
  expect(r!.referencesData!.map((f) => f.source.fn)).toContain("QuestionResults");
});

test("the demo's verbatim themes are content phrases: none is a stop word or starts or ends with one", async () => {
  const rows = await w.tdb.db<{ name: string; answers: number }[]>`
    select th.name, count(x.id)::int as answers from themes th join text_responses_themes x on x.theme_id = th.id
    where th.project_id = any(${w.projectIds}::int[]) and th.is_ai_generated group by th.id order by th.id`;
  expect(rows.length, "the demo has themes").toBeGreaterThan(w.projectIds.length);
  for (const r of rows) {
    const words = r.name.toLowerCase().split(" ");
    expect(STOP_WORDS.has(words[0]!), `${r.name} starts with a stop word`).toBe(false);
    expect(STOP_WORDS.has(words.at(-1)!), `${r.name} ends with a stop word`).toBe(false);
    expect(words.at(-1)!.length, r.name).toBeGreaterThanOrEqual(3);
    expect(r.answers, r.name).toBeGreaterThanOrEqual(2);
  }
  const names = rows.map((r) => r.name.toLowerCase());
  for (const filler of ["like", "honestly", "mostly", "mostly because", "concern", "seems"]) expect(names, filler).not.toContain(filler);
});

test("a summary names the leader of the headline measure with its figure, and the skews it finds are significant", async () => {
  const [r] = await w.tdb.db<SummaryRow[]>`
    select s.id, s.project_id as "projectId", s.content, s.references_data as "referencesData" from ai_project_summaries s join projects p on p.id = s.project_id
    where p.project_name = 'Plant-based snacks idea screen' and s.trigger = 'ResultsReady' and s.segment_id is null`;
  const figures = r!.referencesData!;
  // The leader: the test option with the highest Likability (5) top-2-box, read from the results.
  const pc = await projectContext(w.tdb.db, systemCtx(), r!.projectId);
  // The project has two markets: its own summary reads the all-markets total (as All markets shows it).
  const like = (await qualResults(w.tdb.db, systemCtx(), { projectId: r!.projectId, filters: {}, standardQuestionIds: [5], total: "markets" })).measures[0]!.results;
  const best = [...like].sort((a, b) => b.top2 - a.top2)[0]!;
  expect(best.top2, "a clear leader").toBeGreaterThan([...like].sort((a, b) => b.top2 - a.top2)[1]!.top2);
  const name = pc.testOptions.find((o) => o.id === best.testOptionId)!.name;
  const lead = figures[0]!;
  expect(lead.source).toMatchObject({ fn: "QualResults", standardQuestionId: 5, testOptionId: best.testOptionId, field: "top2", total: "markets" });
  expect(lead.text).toBe(`${(best.top2 * 100).toFixed(1)}%`);
  expect(r!.content).toContain(`**${name}** leads on Likability with ${lead.text} [${lead.ref}] top-2-box`);

  // Each skew: a group's top-2-box against the rest of the sample's, recomputed here from the
  // results under the figure's own filters, significant by a two-proportion z-test with n_eff
  // (|z| > 1.96 at 95%), computed here, not by the code's test.
  const skewLines = r!.content!.split("\n").filter((l) => / rate .* (higher|lower): /.test(l));
  const diffs = figures.filter((f) => f.source.fn === "Difference");
  expect(diffs.length, "one difference per skew line").toBe(skewLines.length);
  if (!skewLines.length) expect(r!.content).toContain("No age group or gender differs significantly from the rest of the sample on Likability.");
  for (const d of diffs) {
    const src = d.source as { fn: "Difference"; a: string; b: string };
    const [g, rest] = [figures.find((f) => f.ref === src.a)!, figures.find((f) => f.ref === src.b)!];
    const side = async (f: Figure) => {
      const s = f.source as Extract<Figure["source"], { fn: "QualResults" }>;
      expect(s.total, "a skew's sides are all-markets totals too").toBe("markets");
      const m = (await qualResults(w.tdb.db, systemCtx(), { projectId: r!.projectId, filters: s.filters, standardQuestionIds: [5], total: "markets" })).measures[0]!.results.find(
        (x) => x.testOptionId === s.testOptionId,
      )!;
      expect(f.text).toBe(`${(m.top2 * 100).toFixed(1)}%`);
      return m;
    };
    const [a, b] = [await side(g), await side(rest)];
    expect(a.nEff, "neither base is small").toBeGreaterThanOrEqual(30);
    expect(b.nEff).toBeGreaterThanOrEqual(30);
    const pooled = (a.top2 * a.nEff + b.top2 * b.nEff) / (a.nEff + b.nEff);
    const z = (a.top2 - b.top2) / Math.sqrt(pooled * (1 - pooled) * (1 / a.nEff + 1 / b.nEff));
    expect(Math.abs(z), `skew ${d.text}: |z| ${z}`).toBeGreaterThan(1.96);
    expect(d.value).toBeCloseTo(a.top2 - b.top2, 12);
  }
}, 60_000);

test("POST AiProjectSummaries queues one; Regenerate writes it again; members of other teams cannot", async () => {
  const id = w.projectIds[0]!;
  const created = await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: id, filters: { regionIds: [2] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.status).toBe("Pending");
  expect(created.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
  const [done] = await settled([created.body.id]);
  await expectSummaryGrounded(done!);
  expect(
    done!.referencesData!.every((f) => !("filters" in f.source) || (f.source.filters.regionIds ?? []).includes(2)),
    "every figure is under the summary's filter",
  ).toBe(true);
  const again = await w.call(USER, teamA, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`);
  expect(again.status, JSON.stringify(again.body)).toBe(202);
  expect(again.body.jobId).not.toBe(created.body.jobId);
  const [re] = await settled([created.body.id]);
  for (let i = 0; i < 50 && !events.some((e) => e.channel === `job-${again.body.jobId}` && e.event === "Success"); i++) await Bun.sleep(50);
  const jobEvents = events.filter((e) => e.channel === `job-${again.body.jobId}`).map((e) => e.event);
  expect(jobEvents[0]).toBe("Progress");
  expect(jobEvents.at(-1), "Progress, then Success on the job's channel").toBe("Success");
  expect(re!.jobId).toBe(again.body.jobId);
  expect(re!.content, "the same results, the same text (deterministic)").toBe(done!.content);
  expect((await w.call("admin@globex.test", globex, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`)).status).toBe(404);
  expect((await w.call("viewer@acme.test", teamA, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`)).status).toBe(403);
  expect((await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: 999999 })).status).toBe(404);
  // While it is being written (Pending or Running) a Regenerate is refused and queues nothing.
  for (const status of ["Pending", "Running"]) {
    await w.tdb.db`update ai_project_summaries set status = ${status} where id = ${created.body.id}`;
    const busy = await w.call(USER, teamA, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`);
    expect(busy.status, status).toBe(409);
    expect(busy.body.message).toBe(`Summary ${created.body.id} is being written already`);
    const [row] = await w.tdb.db<{ jobId: string }[]>`select job_id::text as "jobId" from ai_project_summaries where id = ${created.body.id}`;
    expect(row!.jobId, "still the last job").toBe(again.body.jobId);
  }
  await w.tdb.db`update ai_project_summaries set status = 'Ready' where id = ${created.body.id}`;
}, 120_000);

test("a summary written for the view on screen: its market filter and its benchmark ('None', SPEC 7: against 50%)", async () => {
  const id = w.projectIds[0]!;
  const created = await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: id, filters: { regionIds: [2] }, benchmarkTypeId: 0 });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.benchmarkTypeId).toBe(0);
  const [done] = await settled([created.body.id]);
  expect(done!.status, done!.error ?? "").toBe("Ready");
  await expectSummaryGrounded(done!);
  const benchmarked = done!.referencesData!.filter((f) => "benchmarkTypeId" in f.source && f.source.benchmarkTypeId !== null);
  expect(benchmarked.length, "it cites figures against the benchmark").toBeGreaterThan(0);
  expect(benchmarked.every((f) => "benchmarkTypeId" in f.source && f.source.benchmarkTypeId === 0)).toBe(true);
  expect(done!.content).toContain("the norm of 50.0%");
}, 120_000);

test("a summary written for All markets (total=markets) cites the all-markets total and says so", async () => {
  const [p] = await w.tdb.db<{ id: number }[]>`select id from projects where project_name = 'Plant-based snacks idea screen'`;
  const regions = (await w.tdb.db<{ id: number }[]>`select region_id as id from projects_regions where project_id = ${p!.id} order by region_id`).map((r) => r.id);
  expect(regions.length, "two markets").toBe(2);
  const created = await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: p!.id, filters: { regionIds: regions }, benchmarkTypeId: 1, total: "markets" });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.total).toBe("markets");
  const [done] = await settled([created.body.id]);
  await expectSummaryGrounded(done!);
  const qual = done!.referencesData!.filter((f) => f.source.fn === "QualResults");
  expect(qual.length).toBeGreaterThan(0);
  expect(
    qual.every((f) => f.source.fn === "QualResults" && f.source.total === "markets"),
    "every QualResults figure is of the all-markets total",
  ).toBe(true);
  // The facts behind it: the choice questions' answer shares (QuestionResults) are of the
  // all-markets total too, each equal to QuestionResults' all-markets share.
  const { projectContext, choiceFacts, FigureBook } = await import("../../api/src/domains/ai/facts.ts");
  const choice = await w.tdb.db<{ projectQuestionId: number; text: string }[]>`
    select pq.id as "projectQuestionId", q.question_text as text from project_questions pq join questions q on q.id = pq.question_id
    where pq.project_id = ${p!.id} and pq.deleted_at is null and pq.standard_question_id is null and q.question_type_id in (1, 2, 4) order by pq.id limit 1`;
  expect(choice.length, "the project asks a choice question").toBe(1);
  const pc = { ...(await projectContext(w.tdb.db, systemCtx(), p!.id)), choiceQuestions: choice };
  const book = new FigureBook();
  await choiceFacts(w.tdb.db, systemCtx(), pc, book, { regionIds: regions }, "markets");
  const shares = book.figures.filter((f) => f.source.fn === "QuestionResults");
  expect(shares.length, "the facts hold a choice question's shares").toBeGreaterThan(0);
  for (const f of shares) {
    const src = f.source as Extract<Figure["source"], { fn: "QuestionResults" }>;
    expect(src.total, "an answer share of the all-markets total").toBe("markets");
    const r = await questionResults(w.tdb.db, systemCtx(), { projectId: p!.id, projectQuestionId: src.projectQuestionId, filters: { regionIds: regions }, total: "markets" });
    expect(f.value).toBe(r.results.find((x) => x.testOptionId === src.testOptionId)!.options.find((o) => o.questionOptionId === src.questionOptionId)!.share);
  }
  // The lead figure, against QualResults' two totals: it is the all-markets one, and they differ.
  const lead = qual[0]!;
  const s = lead.source as Extract<Figure["source"], { fn: "QualResults" }>;
  const read = async (total: "sample" | "markets") =>
    (await qualResults(w.tdb.db, systemCtx(), { projectId: p!.id, filters: { regionIds: regions }, benchmarkTypeId: 1, total })).measures
      .find((m) => m.standardQuestionId === s.standardQuestionId)!
      .results.find((x) => x.testOptionId === s.testOptionId)!.top2;
  const [markets, sample] = [await read("markets"), await read("sample")];
  expect(lead.text).toBe(`${(markets * 100).toFixed(1)}%`);
  expect(Math.abs(markets - sample), "the two totals differ here").toBeGreaterThan(0.0005);
  expect(done!.content).toContain("_Figures: the all-markets total, markets weighted by population._");
  const bad = await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: p!.id, total: "regions" });
  expect(bad.status, "an unknown total").toBe(400);
}, 120_000);

test("Segments GenerateSummaries: the segment's summary under its saved filters", async () => {
  const id = w.projectIds[0]!;
  const seg = await w.call(USER, teamA, "POST", "/api/v1/Segments", { projectId: id, name: "Women", responsesFilters: { filterIds: [4500002] } });
  expect(seg.status, JSON.stringify(seg.body)).toBe(201);
  const r = await w.call(USER, teamA, "POST", `/api/v1/Segments(${seg.body.id})/GenerateSummaries`);
  expect(r.status, JSON.stringify(r.body)).toBe(202);
  const [done] = await settled(r.body.summaryIds);
  expect(done!.segmentId).toBe(seg.body.id);
  expect(done!.title).toBe("Segment: Women");
  await expectSummaryGrounded(done!, ["Women"]);
  const q = done!.referencesData!.find((f) => f.source.fn === "QualResults")!;
  expect((q.source as { filters: { filterIds: number[] } }).filters.filterIds).toContain(4500002);
  const count = await w.call(USER, teamA, "GET", `/api/v1/Segments?$filter=id eq ${seg.body.id}&$expand=aiProjectSummaries/$count`);
  expect(count.status, JSON.stringify(count.body)).toBe(200);
}, 120_000);

test("Segments GenerateSummaries refuses: 404 for an unknown segment and another team's, 403 for a Viewer", async () => {
  const id = w.projectIds[0]!;
  const seg = await w.call(USER, teamA, "POST", "/api/v1/Segments", { projectId: id, name: "Men", responsesFilters: { filterIds: [4500001] } });
  expect(seg.status, JSON.stringify(seg.body)).toBe(201);
  const before = await w.tdb.db<{ n: number }[]>`select count(*)::int as n from ai_project_summaries where segment_id = ${seg.body.id}`;
  const unknown = await w.call(USER, teamA, "POST", "/api/v1/Segments(99999999)/GenerateSummaries");
  expect(unknown.status).toBe(404);
  expect(unknown.body.message).toBe("No segment 99999999");
  const other = await w.call("admin@globex.test", globex, "POST", `/api/v1/Segments(${seg.body.id})/GenerateSummaries`);
  expect(other.status, "another client's segment is not found, not forbidden").toBe(404);
  expect(other.body.message).toBe(`No segment ${seg.body.id}`);
  const viewer = await w.call("viewer@acme.test", teamA, "POST", `/api/v1/Segments(${seg.body.id})/GenerateSummaries`);
  expect(viewer.status).toBe(403);
  const after = await w.tdb.db<{ n: number }[]>`select count(*)::int as n from ai_project_summaries where segment_id = ${seg.body.id}`;
  expect(after[0]!.n, "no summary queued by a refused call").toBe(before[0]!.n);
}, 120_000);

test("saving an objective on a project with results queues its summaries under that objective", async () => {
  const id = w.projectIds[0]!;
  const o = await w.call(USER, teamA, "POST", "/api/v1/ProjectObjectives", { projectId: id, summary: "Which snack should we launch with younger buyers?" });
  expect(o.status, JSON.stringify(o.body)).toBe(201);
  const rows = await w.tdb.db<{ id: number }[]>`select id from ai_project_summaries where project_objective_id = ${o.body.id} and trigger = 'ObjectiveSaved'`;
  expect(rows.length, "the project's summary and one per segment").toBeGreaterThanOrEqual(2);
  const done = await settled(rows.map((r) => r.id));
  for (const r of done) {
    expect(r.content).toContain("_Objective: Which snack should we launch with younger buyers?_");
    await expectSummaryGrounded(r, ["Women"]);
  }
}, 120_000);

test("the weekly results email: one per watched project and week, through the email layer, written from the results", async () => {
  const id = w.projectIds[0]!;
  const watch = await w.call(USER, teamA, "POST", `/api/v1/Projects(${id})/StartWatching`);
  expect(watch.status, JSON.stringify(watch.body)).toBeLessThan(300);
  const r = await sendWeeklySummaries(w.tdb.db, { weekOf: "2026-11-23", projectId: id }, outboxMailer(w.tdb.db, { publicUrl: "http://ideally.test" }));
  expect(r).toEqual({ weekOf: "2026-11-23", projects: 1, sent: 1, failed: 0 });
  const [row] = await w.tdb.db<{ subject: string; body: string; status: string; recipients: string[] }[]>`
    select subject, body, status, recipients from project_email_summaries where project_id = ${id} and week_of = '2026-11-23'`;
  expect(row!.status).toBe("Sent");
  const watchers = await w.tdb.db<{ email: string }[]>`select u.email from project_watchers pw join users u on u.id = pw.user_id where pw.project_id = ${id} order by 1`;
  expect(row!.recipients, "every watcher").toEqual(watchers.map((x) => x.email));
  expect(row!.recipients).toContain(USER);
  expect(row!.body).not.toContain("[F");
  const q = await qualResults(w.tdb.db, systemCtx(), { projectId: id, filters: {}, standardQuestionIds: [5] });
  const best = [...q.measures[0]!.results].sort((a, b) => b.top2 - a.top2)[0]!;
  expect(row!.body, "the leader's figure, as the results function gives it").toContain(`leads on Likability with ${(best.top2 * 100).toFixed(1)}% top-2-box`);
  const mail = await w.tdb.db<{ text: string }[]>`select text from email_outbox where "to" = ${USER} and subject = ${row!.subject}`;
  expect(mail.length).toBe(1);
  expect(mail[0]!.text).toContain(`Open the results: http://ideally.test/${teamA}/results/${id}`);
  expect((await sendWeeklySummaries(w.tdb.db, { weekOf: "2026-11-23", projectId: id }, outboxMailer(w.tdb.db))).projects, "not twice in a week").toBe(0);
  // The job does the same for the next week.
  await w.queue.send(emailSummariesJob.name, { input: { weekOf: "2026-11-30", projectId: id }, origin: { userId: null, clientId: null } });
  for (let i = 0; i < 300; i++) {
    const [x] = await w.tdb.db`select 1 from project_email_summaries where project_id = ${id} and week_of = '2026-11-30' and status = 'Sent'`;
    if (x) break;
    await Bun.sleep(100);
  }
  const sent = await w.tdb.db`select 1 from email_outbox where "to" = ${USER} and subject = ${row!.subject}`;
  expect(sent.length, "the second week's email").toBe(2);
}, 120_000);
