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

let w: AiWorld;
const USER = "user@acme.test";
let teamA: number;
let globex: number;

beforeAll(async () => {
  useProvider(new LocalProvider());
  w = await aiWorld([summariesJob]);
  [{ teamA, globex }] = await w.tdb.db<{ teamA: number; globex: number }[]>`
    select (select id from clients where name = 'Acme Team A') as "teamA", (select id from clients where name = 'Globex') as globex`;
}, 240_000);
afterAll(async () => {
  useProvider(null);
  await w.stop();
});

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
  const queued = await queueReadySummaries(w.tdb.db, w.queue);
  expect(queued, "every demo project has results").toBe(w.projectIds.length);
  expect(await queueReadySummaries(w.tdb.db, w.queue), "and not twice").toBe(0);
  const rows = await w.tdb.db<{ id: number }[]>`select id from ai_project_summaries where trigger = 'ResultsReady' and segment_id is null`;
  expect(rows.length).toBe(w.projectIds.length);
  const done = await settled(rows.map((r) => r.id));
  let cited = 0;
  for (const r of done) cited += await expectSummaryGrounded(r);
  expect(cited, "the summaries cite figures").toBeGreaterThan(w.projectIds.length * 4);
}, 240_000);

test("a summary names the leader of the headline measure with its figure, and the skews it finds are significant", async () => {
  const [r] = await w.tdb.db<SummaryRow[]>`
    select s.id, s.content, s.references_data as "referencesData" from ai_project_summaries s join projects p on p.id = s.project_id
    where p.project_name = 'Plant-based snacks idea screen' and s.trigger = 'ResultsReady' and s.segment_id is null`;
  const first = r!.referencesData![0]!;
  expect(first.source.fn).toBe("QualResults");
  expect(r!.content).toContain(`leads on Likability with ${first.text} [${first.ref}] top-2-box`);
});

test("POST AiProjectSummaries queues one; Regenerate writes it again; members of other teams cannot", async () => {
  const id = w.projectIds[0]!;
  const created = await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: id, filters: { regionIds: [2] } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  expect(created.body.status).toBe("Pending");
  expect(created.body.jobId).toMatch(/^[0-9a-f-]{36}$/);
  const [done] = await settled([created.body.id]);
  await expectSummaryGrounded(done!);
  expect(done!.referencesData!.every((f) => !("filters" in f.source) || (f.source.filters.regionIds ?? []).includes(2)), "every figure is under the summary's filter").toBe(true);
  const again = await w.call(USER, teamA, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`);
  expect(again.status, JSON.stringify(again.body)).toBe(202);
  expect(again.body.jobId).not.toBe(created.body.jobId);
  const [re] = await settled([created.body.id]);
  expect(re!.jobId).toBe(again.body.jobId);
  expect(re!.content, "the same results, the same text (deterministic)").toBe(done!.content);
  expect((await w.call("admin@globex.test", globex, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`)).status).toBe(404);
  expect((await w.call("viewer@acme.test", teamA, "POST", `/api/v1/AiProjectSummaries(${created.body.id})/Regenerate`)).status).toBe(403);
  expect((await w.call(USER, teamA, "POST", "/api/v1/AiProjectSummaries", { projectId: 999999 })).status).toBe(404);
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
