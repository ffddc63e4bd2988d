// A supplier's respondents walking a run through the public survey API (tests of the redirect
// protocol, callbacks and reversals): a launched run taking respondents from a supplier, and a
// respondent answering it page by page.
import { expect } from "bun:test";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { ATTENTION } from "../../api/src/domains/fielding/engine.ts";
import type { TestDb } from "./db.ts";
import { call } from "./app.ts";

export const MALE = 4500001;
export const FEMALE = 4500002;
export const ANOTHER_GENDER = 4500003;

type Q = { key: string; type: string; options: { id: number; exclusive: boolean }[] };
export type View = { respondentId: string; status: string; redirectUrl: string | null; message: string | null; page: { id: string; questions: Q[] } | null };
/** A supplier made by staff through the API, its four end links on `host` with `{rid}` in `id`; its id. */
export async function createSupplier(app: App, name: string, host = "supplier.example"): Promise<number> {
  const s = await call(app, "staff", null, "POST", "/api/v1/SampleSuppliers", {
    name,
    completeUrl: `https://${host}/end?st=c&id={rid}`,
    screenOutUrl: `https://${host}/end?st=s&id={rid}`,
    overQuotaUrl: `https://${host}/end?st=q&id={rid}`,
    qualityTerminateUrl: `https://${host}/end?st=t&id={rid}`,
  });
  expect(s.status, JSON.stringify(s.body)).toBe(201);
  return s.body.id;
}

export interface SupplierRun {
  id: number;
  link: string;
}

export async function respondentPost(app: App, run: SupplierRun, path: string, body: unknown): Promise<{ status: number; body: View }> {
  const r = await app.request(`/s/api/${run.link}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return { status: r.status, body: (await r.json()) as View };
}

/** Answers that qualify with `gender`, pass the attention check and never straight-line. */
export function answers(v: Pick<View, "page">, gender: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const q of v.page!.questions) {
    if (q.key === "s45") out[q.key] = gender;
    else if (q.key === ATTENTION.key) out[q.key] = ATTENTION.correct;
    else if (q.type === "text") out[q.key] = "It sounds tasty and good value";
    else if (q.type === "multiple") out[q.key] = [q.options.find((o) => !o.exclusive)!.id];
    else out[q.key] = q.options[Object.keys(out).length % q.options.length]!.id;
  }
  return out;
}

/** Enters with `entryQuery` and answers to the end. */
export async function enterAndWalk(app: App, run: SupplierRun, entryQuery: string, gender: number): Promise<View> {
  const start = await respondentPost(app, run, "/start", { entryQuery });
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  let cur = start.body;
  for (let i = 0; i < 30 && cur.status === "InProgress"; i++) {
    const r = await respondentPost(app, run, `/${cur.respondentId}/answers`, { pageId: cur.page!.id, answers: answers(cur, gender) });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    cur = r.body;
  }
  return cur;
}

/** A launched run of `completes` (gender quotas 50/50) taking respondents from `supplierId` only. */
export async function launchSupplierRun(app: App, tdb: TestDb, clientId: number, publicUrl: string, name: string, supplierId: number, completes: number): Promise<SupplierRun> {
  const created = await call(app, "acmeUser", clientId, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  const id = created.body.id as number;
  expect((await call(app, "acmeUser", clientId, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Cold brew" })).status).toBe(201);
  const targets = await call(app, "acmeUser", clientId, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
    targets: [
      { systemQuestionOptionId: MALE, quotaPercent: 50 },
      { systemQuestionOptionId: FEMALE, quotaPercent: 50 },
    ],
  });
  expect(targets.status, JSON.stringify(targets.body)).toBe(200);
  await tdb.db`update projects_regions set sample_size = ${completes}, is_customer_panel = true where project_id = ${id}`;
  expect((await call(app, "staff", clientId, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const [run] = await fielding.createSurveys(tdb.db, id);
  const set = await call(app, "staff", null, "POST", `/api/v1/SurveyRuns(${run!.surveyRunId})/SetSampleSupplier`, { sampleSupplierId: supplierId });
  expect(set.status, JSON.stringify(set.body)).toBe(200);
  await fielding.launchRun(tdb.db, run!.surveyRunId, publicUrl);
  return { id: run!.surveyRunId, link: run!.surveyLink };
}
