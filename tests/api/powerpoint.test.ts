// PowerPoint exports: the job builds a deck whose chart parts are native charts holding the very
// figures the results functions answer; the deck downloads for the project's team only; the
// renewal deck is staff's.
import { afterAll, beforeAll, expect, test } from "bun:test";
import JSZip from "jszip";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { startQueue, type Queue } from "../../api/src/jobs/queue.ts";
import { registerWorkers } from "../../api/src/jobs/workers.ts";
import { powerPointJob } from "../../api/src/domains/results/powerpoint.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
let queue: Queue;
let projectId: number;
const T = 1003;

beforeAll(async () => {
  tdb = await createTestDb();
  queue = await startQueue(tdb.url, () => {});
  await registerWorkers(queue, tdb.db, [powerPointJob], { log: () => {} });
  app = testApp(tdb.db, { queue });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Deck check", projectTypeId: 1, frameworkId: 1010, regionIds: [1] });
  projectId = created.body.id;
  for (const conceptText of ["Alpha bar", "Beta bar"]) await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId, conceptText });
  await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${projectId})/CreatePriceSensitivities`, { minPrice: 2, maxPrice: 6 });
  await tdb.db`update projects_regions set sample_size = 60 where project_id = ${projectId}`;
  await call(app, "staff", T, "POST", `/api/v1/Projects(${projectId})/SuperApprove`);
  const [run] = await fielding.createSurveys(tdb.db, projectId);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  await panel.simulate(tdb.db, run!.surveyRunId, 60);
  await fielding.processRun(tdb.db, run!.surveyRunId);
}, 60_000);
afterAll(async () => {
  await queue.stop({ graceful: true, timeout: 5000 });
  await tdb.drop();
});

async function exportOf(jobId: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const [r] = await tdb.db<{ id: string }[]>`select id::text from export_files where job_id = ${jobId}`;
    if (r) return r.id;
    await Bun.sleep(100);
  }
  throw new Error("the export job did not finish");
}

test("the project deck: native charts holding the API's figures", async () => {
  const started = await call(app, "acmeViewer", T, "POST", `/api/v1/Projects(${projectId})/PowerPointExport`, {});
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = await exportOf(started.body.jobId);
  const res = await app.request(`/api/v1/Projects(${projectId})/PowerPointExport/${id}`, { headers: { authorization: "Bearer acmeViewer", clientId: String(T) } });
  expect(res.status).toBe(200);
  expect(res.headers.get("content-disposition")).toContain("Deck-check.pptx");
  const zip = await JSZip.loadAsync(await res.arrayBuffer());
  const charts = Object.keys(zip.files).filter((f) => /^ppt\/charts\/chart\d+\.xml$/.test(f));
  expect(charts.length, "a top-2-box chart and a price chart per concept").toBeGreaterThanOrEqual(3);
  const first = await zip.file(charts.sort()[0]!)!.async("string");
  expect(first).toContain("<c:barChart>");
  const qual = (await call(app, "acmeViewer", T, "GET", `/api/v1/Responses/QualResults?projectId=${projectId}`)).body;
  const like = qual.measures.find((m: { title: string }) => m.title === "Likability").results[0];
  expect(first).toContain(`<c:v>${+(like.top2 * 100).toFixed(1)}</c:v>`);
  const other = await app.request(`/api/v1/Projects(${projectId})/PowerPointExport/${id}`, { headers: { authorization: "Bearer globexAdmin", clientId: "2001" } });
  expect(other.status).toBe(404);
});

test("the renewal deck is staff's", async () => {
  expect((await call(app, "acmeAdmin", T, "POST", `/api/v1/Clients(${T})/RenewalPowerPointExport`)).status).toBe(403);
  const started = await call(app, "staff", null, "POST", `/api/v1/Clients(${T})/RenewalPowerPointExport`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = await exportOf(started.body.jobId);
  const res = await app.request(`/api/v1/Clients(${T})/RenewalPowerPointExport/${id}`, { headers: { authorization: "Bearer staff" } });
  expect(res.status).toBe(200);
  const zip = await JSZip.loadAsync(await res.arrayBuffer());
  expect(Object.keys(zip.files).some((f) => f.startsWith("ppt/charts/chart"))).toBe(true);
});
