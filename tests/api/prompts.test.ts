// Prompt versions: publish switching (exactly one published), YAML round trip, history, Run on a
// project's computed results, the plugin options; staff only.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
let promptId: number;
let v1: number;
let v2: number;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  const p = await call(app, "staff", null, "POST", "/api/v1/Prompts", { name: "Full test summary (test)", promptType: "FullTestSummary" });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  promptId = p.body.id;
  v1 = (await call(app, "staff", null, "POST", "/api/v1/PromptVersions", { promptId, template: "Summary of {{projectName}}:\n{{leaders}}" })).body.id;
  v2 = (await call(app, "staff", null, "POST", "/api/v1/PromptVersions", { promptId, template: "v2 {{projectName}} {{nonsense}}" })).body.id;
});
afterAll(async () => {
  await tdb.drop();
});

test("publishing switches the one published version", async () => {
  expect((await call(app, "staff", null, "POST", `/api/v1/PromptVersions(${v1})/Publish`)).body.isPublished).toBe(true);
  expect((await call(app, "staff", null, "POST", `/api/v1/PromptVersions(${v2})/Publish`)).body.isPublished).toBe(true);
  const rows = await tdb.db<{ id: number }[]>`select id from prompt_versions where prompt_id = ${promptId} and is_published`;
  expect(rows.map((r) => r.id)).toEqual([v2]);
  const [p] = await tdb.db<{ v: number }[]>`select published_version_id as v from prompts where id = ${promptId}`;
  expect(p!.v).toBe(v2);
  expect((await call(app, "acmeAdmin", 1003, "POST", `/api/v1/PromptVersions(${v1})/Publish`)).status).toBe(403);
  expect((await call(app, "staff", null, "POST", `/api/v1/PromptVersions(999999)/Publish`)).status).toBe(404);
});

test("YAML round trip: download, import as the next version with the same fields", async () => {
  const res = await app.request(`/api/v1/PromptVersions(${v1})/DownloadToYml`, { method: "POST", headers: { authorization: "Bearer staff" } });
  expect(res.status).toBe(200);
  const yml = await res.text();
  expect(yml).toContain("name: Full test summary (test)");
  const imported = await call(app, "staff", null, "POST", "/api/v1/PromptVersions/ImportFromYml", { yml });
  expect(imported.status, JSON.stringify(imported.body)).toBe(200);
  expect(imported.body.promptId).toBe(promptId);
  expect(imported.body.versionNumber).toBe(3);
  expect(imported.body.template).toBe("Summary of {{projectName}}:\n{{leaders}}");
  expect(imported.body.isPublished).toBe(false);
  const bad = await call(app, "staff", null, "POST", "/api/v1/PromptVersions/ImportFromYml", { yml: "prompt:\n  name: x\ntemplate: [unclosed" });
  expect(bad.status).toBe(400);
  expect(bad.body.message).toMatch(/^The YAML does not parse \(line 3\): .+/);
  const missing = await call(app, "staff", null, "POST", "/api/v1/PromptVersions/ImportFromYml", { yml: "prompt:\n  name: Brand new\n" });
  expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual(["template"]);
  expect(missing.body.message).toBe("template: Required");
  // A prompt not yet known needs its type; nothing is created without it.
  const untyped = await call(app, "staff", null, "POST", "/api/v1/PromptVersions/ImportFromYml", { yml: "prompt:\n  name: Brand new\ntemplate: Hello\n" });
  expect(untyped.status).toBe(400);
  expect(untyped.body.message).toBe("prompt.type: required for a new prompt");
  expect((await tdb.db`select 1 from prompts where name = 'Brand new'`).length).toBe(0);
});

test("the history lists creations, publications and the import in order", async () => {
  const h = await call(app, "staff", null, "GET", `/api/v1/DataEventsLog/GetPromptVersionHistory?promptId=${promptId}`);
  expect(h.status).toBe(200);
  const events = h.body.value.map((e: { event: string; versionNumber: number }) => `${e.event} v${e.versionNumber}`);
  expect(events).toEqual(["Created v1", "Created v2", "Published v1", "Published v2", "Created v3", "ImportedFromYml v3"]);
});

test("Run fills the template from the project's computed results", async () => {
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1003, 1, 100000, 'Test top-up')`;
  const created = await call(app, "acmeUser", 1003, "POST", "/api/v1/Projects", { projectName: "Prompt run", projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = created.body.id as number;
  for (const conceptText of ["Alpha", "Beta"]) await call(app, "acmeUser", 1003, "POST", "/api/v1/TestOptions", { projectId: id, conceptText });
  await tdb.db`update projects_regions set sample_size = 40 where project_id = ${id}`;
  await call(app, "staff", 1003, "POST", `/api/v1/Projects(${id})/SuperApprove`);
  const [run] = await fielding.createSurveys(tdb.db, id);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  await panel.simulate(tdb.db, run!.surveyRunId, 40);
  const r = await call(app, "staff", 1003, "POST", `/api/v1/PromptVersions(${v1})/Run`, { projectId: id });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  expect(r.body.output.startsWith("Summary of Prompt run:\n")).toBe(true);
  const qual = (await call(app, "acmeViewer", 1003, "GET", `/api/v1/Responses/QualResults?projectId=${id}`)).body;
  const like = qual.measures.find((m: { title: string }) => m.title === "Likability");
  const best = [...like.results].sort((a: { top2: number }, b: { top2: number }) => b.top2 - a.top2)[0];
  const [{ name }] = await tdb.db<{ name: string }[]>`select concept_text as name from test_options where id = ${best.testOptionId}`;
  expect(r.body.output).toContain(`Likability: ${name} leads with ${(best.top2 * 100).toFixed(1)}% top-2-box (n=${best.n})`);
  const r2 = await call(app, "staff", 1003, "POST", `/api/v1/PromptVersions(${v2})/Run`, { projectId: id });
  expect(r2.body.unknownPlaceholders).toEqual(["nonsense"]);
  const opts = await call(app, "staff", null, "GET", "/api/v1/Prompts/PlaybookPluginOptions");
  expect(opts.body.variables.map((v: { placeholder: string }) => v.placeholder)).toContain("{{leaders}}");
});
