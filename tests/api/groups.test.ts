// Project groups: versions, generated segments and their respondents, counts per segment, results
// and verbatims across the group's projects (checked against the per-project functions), bulk
// segment updates and deletion, the seed project, and who may do what.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
let G: number;
const projects: number[] = [];

async function fielded(name: string, completes: number): Promise<number> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = created.body.id as number;
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: `${name} concept` });
  await tdb.db`update projects_regions set sample_size = ${completes} where project_id = ${id}`;
  await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`);
  const [run] = await fielding.createSurveys(tdb.db, id);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  await panel.simulate(tdb.db, run!.surveyRunId, completes);
  await fielding.processRun(tdb.db, run!.surveyRunId);
  return id;
}

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  projects.push(await fielded("Group wave A", 30), await fielded("Group wave B", 20));
  const [g] = await tdb.db<{ id: number }[]>`insert into project_groups (client_id, name) values (${T}, 'Snacks U&A') returning id`;
  G = g!.id;
  for (const p of projects) await tdb.db`insert into project_group_tags (client_id, project_group_id, project_id, name) values (${T}, ${G}, ${p}, 'U&A')`;
});
afterAll(async () => {
  await tdb.drop();
});

describe("shaping a group (staff)", () => {
  test("members cannot; staff create a version and generate segments with their respondents", async () => {
    expect((await call(app, "acmeAdmin", T, "POST", `/api/v1/ProjectGroups(${G})/CreateNewVersion`, {})).status).toBe(403);
    const v = await call(app, "staff", T, "POST", `/api/v1/ProjectGroups(${G})/CreateNewVersion`, { name: "First" });
    expect(v.status).toBe(200);
    expect(v.body.versionNumber).toBe(1);
    const gen = await call(app, "staff", T, "POST", `/api/v1/ProjectGroups(${G})/GenerateSegments`);
    expect(gen.status, JSON.stringify(gen.body)).toBe(200);
    expect(gen.body.projects).toBe(2);
    // Without segmentation questions: one segment per age group, which together hold everyone.
    expect(gen.body.segments.length).toBe(6);
    expect(gen.body.segments.reduce((a: number, s: { sessions: number }) => a + s.sessions, 0)).toBe(50);
    // A second version copies the segments.
    const v2 = await call(app, "staff", T, "POST", `/api/v1/ProjectGroups(${G})/CreateNewVersion`, {});
    expect(v2.body.versionNumber).toBe(2);
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_group_segments where project_group_version_id = ${v2.body.projectGroupVersionId}`;
    expect(n).toBe(6);
  });

  test("segment counts, overall and by gender, add up", async () => {
    await call(app, "staff", T, "POST", `/api/v1/ProjectGroups(${G})/SyncSegmentSurveySessions`);
    const r = await call(app, "acmeViewer", T, "GET", `/api/v1/ProjectGroups(${G})/ProjectGroupSegmentCounts`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const total = r.body.segments.flatMap((s: { rows: { count: number }[] }) => s.rows).reduce((a: number, x: { count: number }) => a + x.count, 0);
    expect(total).toBe(50);
    const byGender = await call(app, "acmeViewer", T, "GET", `/api/v1/ProjectGroups(${G})/ProjectGroupSegmentCounts?breakdownBy=45`);
    const total2 = byGender.body.segments.flatMap((s: { rows: { count: number }[] }) => s.rows).reduce((a: number, x: { count: number }) => a + x.count, 0);
    expect(total2).toBe(50);
    // The results filter reads the segments: one segment's respondents in one project.
    const seg = r.body.segments[0].projectGroupSegmentId;
    const w = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/WeightSumGroup?projectGroupId=${G}&filters=${encodeURIComponent(JSON.stringify({ projectGroupSegmentIds: [seg] }))}`);
    expect(w.body.count).toBe(r.body.segments[0].rows.reduce((a: number, x: { count: number }) => a + x.count, 0));
  });

  test("BulkUpdate renames and reorders; DeleteSegments removes", async () => {
    const segs = await tdb.db<{ id: number; v: number }[]>`
      select s.id, s.project_group_version_id as v from project_group_segments s join project_groups g on g.active_version_id = s.project_group_version_id where g.id = ${G} order by s.id`;
    const up = await call(app, "staff", T, "POST", "/api/v1/ProjectGroupSegments/BulkUpdate", {
      segments: [
        { id: segs[0]!.id, name: "Young adults", sortOrder: 99 },
        { id: segs[1]!.id, color: "#ff0000" },
      ],
    });
    expect(up.status, JSON.stringify(up.body)).toBe(200);
    expect(up.body.value.find((s: { id: number }) => s.id === segs[0]!.id).name).toBe("Young adults");
    expect((await call(app, "staff", T, "POST", "/api/v1/ProjectGroupSegments/BulkUpdate", { segments: [{ id: 999999, name: "x" }] })).status).toBe(404);
    const del = await call(app, "staff", T, "POST", `/api/v1/ProjectGroupVersions(${segs[0]!.v})/DeleteSegments`, { ids: [segs[5]!.id] });
    expect(del.body.deleted).toEqual([segs[5]!.id]);
  });
});

describe("results across the group", () => {
  test("WeightSumGroup and QualResultsGroup add the projects up", async () => {
    const w = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/WeightSumGroup?projectGroupId=${G}`);
    expect(w.body.count).toBe(50);
    expect(w.body.projects.map((p: { count: number }) => p.count)).toEqual([30, 20]);
    const q = await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResultsGroup?projectGroupId=${G}`);
    expect(q.status, JSON.stringify(q.body)).toBe(200);
    const like = q.body.measures.find((m: { standardQuestionId: number }) => m.standardQuestionId === 5);
    expect(like.group.n).toBe(50);
    expect(like.projects.map((p: { projectId: number; n: number }) => [p.projectId, p.n])).toEqual([
      [projects[0], 30],
      [projects[1], 20],
    ]);
    const a = (await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${projects[0]}`)).body.measures.find((m: { standardQuestionId: number }) => m.standardQuestionId === 5)
      .results[0];
    expect(like.projects[0].top2).toBeCloseTo(a.top2, 12);
  });

  test("VerbatimGroup pages the projects' answers to the same question; the count adds up", async () => {
    const [{ q }] = await tdb.db<
      { q: number }[]
    >`select min(q.id) as q from questions q join project_questions pq on pq.question_id = q.id where pq.project_id = ${projects[0]!} and pq.standard_question_id = 7`;
    const count = await call(app, "acmeViewer", T, "GET", `/api/v1/TextResponses/VerbatimCountGroup?projectGroupId=${G}&questionId=${q}`);
    expect(count.body.count).toBe(50);
    const page = await call(app, "acmeViewer", T, "GET", `/api/v1/TextResponses/VerbatimGroup?projectGroupId=${G}&questionId=${q}&pageSize=7&page=2`);
    expect(page.body.value.length).toBe(7);
    expect(new Set(page.body.value.map((v: { projectId: number }) => v.projectId)).size).toBeGreaterThanOrEqual(1);
  });

  test("another client cannot read the group", async () => {
    expect((await call(app, "globexAdmin", 2001, "GET", `/api/v1/Responses/WeightSumGroup?projectGroupId=${G}`)).status).toBe(404);
  });

  test("a usage-and-attitude seed project joins the group's active version", async () => {
    const r = await call(app, "staff", T, "POST", "/api/v1/Projects/CreateUsageAndAttitudeSeedProject", { projectGroupId: G, projectName: "U&A seed", regionIds: [1] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const [p] = await tdb.db<{ f: number; v: number }[]>`select framework_id as f, project_group_version_id as v from projects where id = ${r.body.projectId}`;
    expect(p!.f).toBe(3998);
    expect(p!.v).toBe(r.body.projectGroupVersionId);
    const t = await call(app, "acmeViewer", T, "GET", "/api/v1/ProjectGroups/Templates");
    expect(t.body.value.map((x: { projectId: number }) => x.projectId)).toContain(r.body.projectId);
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/Projects/CreateUsageAndAttitudeSeedProject", { projectGroupId: G, projectName: "x" })).status).toBe(403);
  });
});

describe("a new version's questions", () => {
  test("the occasions, needs and U&A questions the group's projects ask, once per text, after the copied ones", async () => {
    const ask = async (projectId: number, text: string, position: number, type = 1) => {
      const [q] = await tdb.db<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${T}, ${projectId}, ${text}, ${type}) returning id`;
      await tdb.db`insert into project_questions (client_id, project_id, question_id, question_position_id, sort_order) values (${T}, ${projectId}, ${q!.id}, ${position}, 50)`;
      return q!.id;
    };
    // Both projects ask the occasion; one asks a need (an open question); a custom question is not the group's.
    const occasion = await ask(projects[0]!, "When do you snack?", 10);
    await ask(projects[1]!, "When do you snack?", 10);
    const need = await ask(projects[1]!, "What would make snacking better?", 11, 3);
    await ask(projects[0]!, "Anything else?", 6, 3);
    const versionQuestions = (v: number) =>
      tdb.db<{ questionId: number; position: number; title: string }[]>`
        select question_id as "questionId", question_position_id as position, title from project_group_questions where project_group_version_id = ${v} order by sort_order, id`;
    const v = await call(app, "staff", T, "POST", `/api/v1/ProjectGroups(${G})/CreateNewVersion`, {});
    expect(v.status, JSON.stringify(v.body)).toBe(200);
    const added = (await versionQuestions(v.body.projectGroupVersionId)).filter((q) => q.position >= 10);
    expect(added).toEqual([
      { questionId: occasion, position: 10, title: "When do you snack?" },
      { questionId: need, position: 11, title: "What would make snacking better?" },
    ]);
    // Staff rename one; the next version keeps the new title and adds nothing twice.
    const [row] = await tdb.db<{ id: number }[]>`select id from project_group_questions where project_group_version_id = ${v.body.projectGroupVersionId} and question_id = ${need}`;
    expect((await call(app, "staff", T, "PATCH", `/api/v1/ProjectGroupQuestions(${row!.id})`, { title: "Better snacking" })).status).toBe(200);
    const v2 = await call(app, "staff", T, "POST", `/api/v1/ProjectGroups(${G})/CreateNewVersion`, {});
    const again = (await versionQuestions(v2.body.projectGroupVersionId)).filter((q) => q.position >= 10);
    expect(again.map((q) => q.title)).toEqual(["When do you snack?", "Better snacking"]);
    // The group's pages list them: the occasions page reads the version's questions.
    const listed = await call(
      app,
      "acmeViewer",
      T,
      "GET",
      `/api/v1/ProjectGroupQuestions?$filter=projectGroupVersionId eq ${v2.body.projectGroupVersionId} and questionPositionId eq 10&$select=id,title`,
    );
    expect(listed.body.value.map((q: { title: string }) => q.title)).toEqual(["When do you snack?"]);
  });
});
