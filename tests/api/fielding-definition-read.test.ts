// The respondent routes read a run's definition (its questionnaire) from the database once per
// change, not on every page (fielding.sql.ts runForRespondent; docs/testing.md "The simulated
// panel's cost"): a page reads the run's state, and the definition again only after the run's
// updated_at moved, which every write of the definition sets (setDefinition, the sample source).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as q from "../../api/src/domains/fielding/fielding.sql.ts";
import type { App } from "../../api/src/app.ts";
import { call, TEST_PUBLIC_URL, testApp } from "../helpers/app.ts";
import { createTestDb, type TestDb } from "../helpers/db.ts";

const T = 1003;
let tdb: TestDb;
let app: App;
let link: string;
let runId: number;
/** Statements that read survey_runs.definition (the text of each, while counting). */
let reads: string[] | null = null;

beforeAll(async () => {
  tdb = await createTestDb({ onQuery: (text) => reads !== null && /select[\s\S]*\bdefinition\b[\s\S]*from survey_runs/i.test(text) && reads.push(text) });
  app = testApp(tdb.db, { publicUrl: TEST_PUBLIC_URL });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 1000000, 'Test top-up')`;
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Definition read", projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: 50 });
  await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText: "Cold brew in a can" });
  await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {});
  const [r] = await fielding.createSurveys(tdb.db, p.body.id);
  runId = r!.surveyRunId;
  await fielding.launchRun(tdb.db, runId, TEST_PUBLIC_URL);
  link = (await tdb.db<{ l: string }[]>`select survey_link::text as l from survey_runs where id = ${runId}`)[0]!.l;
});
afterAll(async () => {
  await tdb.drop();
});

type View = { respondentId: string; page: { id: string; questions: { key: string; title: string }[] } | null };
const start = async (): Promise<View> => {
  const r = await app.request(`/s/api/${link}/start`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as View;
};
const get = async (id: string): Promise<View> => {
  const r = await app.request(`/s/api/${link}/${id}`);
  expect(r.status, await r.clone().text()).toBe(200);
  return (await r.json()) as View;
};

describe("a run's definition, read by the respondent routes", () => {
  test("read once for a respondent's start and three reloads while the run's definition is unchanged", async () => {
    reads = [];
    const v = await start();
    for (let i = 0; i < 3; i++) expect((await get(v.respondentId)).page?.id).toBe(v.page!.id);
    expect(reads.length, reads.join("\n---\n")).toBeLessThanOrEqual(1);
    reads = null;
  });

  test("a changed definition (setDefinition) is what the next page shows: read again once", async () => {
    const v = await start();
    const first = v.page!.questions[0]!;
    const [row] = await tdb.db<{ d: fielding.RespondentView["definition"] }[]>`select definition as d from survey_runs where id = ${runId}`;
    const def = row!.d;
    const renamed = { ...def, demographics: def.demographics.map((dq) => (dq.key === first.key ? { ...dq, title: "Renamed for the test" } : dq)) };
    reads = [];
    await q.setDefinition(tdb.db, runId, renamed);
    const after = await get(v.respondentId);
    expect(after.page!.questions.find((x) => x.key === first.key)?.title).toBe("Renamed for the test");
    await get(v.respondentId);
    expect(reads.length, "the new definition read once").toBe(1);
    reads = null;
    await q.setDefinition(tdb.db, runId, def);
    expect((await get(v.respondentId)).page!.questions.find((x) => x.key === first.key)?.title).toBe(first.title);
  });
});
