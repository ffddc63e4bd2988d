// Projects({key})/SurveyPreview (issue 22): a project's survey walked as a respondent meets it,
// page by page through the fielding engine, with its validation, storing nothing.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { ATTENTION } from "../../api/src/domains/fielding/engine.ts";

let tdb: TestDb;
let app: App;
let projectId = 0;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const [p] = await tdb.db<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (1003, 'Preview test', 1, 0, 1000, 9004, 9004) returning id`;
  projectId = p!.id;
  await tdb.db`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (1003, ${projectId}, 1, 100, false)`;
  for (const c of ["Oat bar", "Nut bar"]) await tdb.db`insert into test_options (client_id, project_id, concept_text, concept_description) values (1003, ${projectId}, ${c}, 'A snack bar')`;
});
afterAll(async () => {
  await tdb.drop();
});

type Q = { key: string; type: string; options: { id: number }[] };
/** A respondent's plausible answer to each question of a page. */
function answer(kind: string, questions: Q[]): Record<string, unknown> {
  if (kind === "attention") return { [ATTENTION.key]: ATTENTION.correct };
  const out: Record<string, unknown> = {};
  questions.forEach((q, i) => {
    out[q.key] = q.type === "multiple" ? [q.options[0]!.id] : q.type === "text" ? "Tasty and filling" : q.type === "price" ? 1 + i : q.options[0]!.id;
  });
  return out;
}

async function stored(): Promise<number> {
  const [r] = await tdb.db<{ n: number }[]>`
    select (select count(*) from survey_sessions)::int + (select count(*) from responses)::int + (select count(*) from survey_runs)::int as n`;
  return r!.n;
}

describe("SurveyPreview", () => {
  test("walks every page to the end: each concept in turn, the attention check, the follow-ups; nothing stored", async () => {
    const before = await stored();
    const url = `/api/v1/Projects(${projectId})/SurveyPreview`;
    let res = await call(app, "acmeViewer", 1003, "POST", url, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const kinds: string[] = [];
    const concepts: string[] = [];
    let guard = 0;
    while (res.body.status === "InProgress" && guard++ < 30) {
      const page = res.body.page;
      kinds.push(page.kind);
      if (page.concept) concepts.push(page.concept.text);
      res = await call(app, "acmeViewer", 1003, "POST", url, { pageId: page.id, input: answer(page.kind, page.questions), answers: res.body.answers });
      expect(res.status, `${page.id}: ${JSON.stringify(res.body)}`).toBe(200);
    }
    expect(res.body.status).toBe("Complete");
    expect(res.body.message).toBe("Thank you! Your answers have been recorded.");
    expect(kinds[0]).toBe("demographics");
    expect(concepts, "each test option, in the project's order").toEqual(["Oat bar", "Nut bar"]);
    expect(kinds.indexOf("attention"), "the attention check after the test options").toBeGreaterThan(kinds.lastIndexOf("concept"));
    expect(await stored(), "nothing stored").toBe(before);
  });

  test("a page's answers are validated as a respondent's are (400, the failing answers named); a wrong attention answer ends it", async () => {
    const url = `/api/v1/Projects(${projectId})/SurveyPreview`;
    const first = await call(app, "acmeUser", 1003, "POST", url, {});
    const bad = await call(app, "acmeUser", 1003, "POST", url, { pageId: first.body.page.id, input: {}, answers: {} });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(first.body.page.questions.map((q: Q) => q.key).sort());
    const unknown = await call(app, "acmeUser", 1003, "POST", url, { pageId: "nope" });
    expect(unknown.status).toBe(400);
    const attention = await call(app, "acmeUser", 1003, "POST", url, { pageId: "attention", input: { [ATTENTION.key]: 0 }, answers: {} });
    expect(attention.status).toBe(200);
    expect(attention.body.status, "a careless answer is screened out").toBe("ScreenedOut");
  });

  test("another client's project is not found; a market the project does not field is refused", async () => {
    const url = `/api/v1/Projects(${projectId})/SurveyPreview`;
    expect((await call(app, "globexAdmin", 2001, "POST", url, {})).status).toBe(404);
    expect((await call(app, "acmeUser", 1003, "POST", url, { regionId: 2 })).status).toBe(400);
  });
});
