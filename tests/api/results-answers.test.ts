// QualResults' and ResponsesCount's remembered answers (columnar.ts answerMemo, results.service.ts
// qualResultsBody, responsesCountBody):
// the route's body is remembered per project copy, selection and options, and is never served
// after anything it was computed from changed: the project's responses or weights (a new results
// version), a comparable project's results (the norm), a measure's title. Each check compares the
// route's body with the service's computation made afresh (qualResults, which remembers nothing).
// On the demo world a first start seeds, signed in as the demo User of Acme Team A.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { qualResults, responsesCount } from "../../api/src/domains/results/results.service.ts";
import { answerStats, clearResultsCache } from "../../api/src/domains/results/columnar.ts";
import { systemCtx } from "../../api/src/domains/lifecycle/lifecycle.service.ts";
import type { ResponseFilter } from "../../api/src/domains/results/filters.ts";
import { createDemoWorldDb, demoTeam, demoProject, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let tdb: TestDb;
let app: App;
let token: string;
let team: number;
let project: number;
/** The filter of the calls: the project's first market. */
let filters: ResponseFilter;

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb());
  ({ app } = await realApp(tdb.db));
  ({ token } = await login(app, "user@acme.test", DEMO_PASSWORD));
  team = await demoTeam(tdb.db);
  project = await demoProject(tdb.db, team, "Plant-based snacks idea screen");
  const [market] = await tdb.db<{ id: number }[]>`select region_id as id from projects_regions where project_id = ${project} order by 1 limit 1`;
  filters = { regionIds: [market!.id] };
  clearResultsCache();
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  await tdb.drop();
}, 30_000);

async function route(extra = "", f: ResponseFilter = filters): Promise<string> {
  const res = await app.request(`/api/v1/Responses/QualResults?projectId=${project}&filters=${encodeURIComponent(JSON.stringify(f))}${extra}`, {
    headers: { authorization: `Bearer ${token}`, clientId: String(team) },
  });
  const text = await res.text();
  expect(res.status, text.slice(0, 300)).toBe(200);
  expect(res.headers.get("content-type")).toStartWith("application/json");
  return text;
}
/** The same figures computed afresh by the service, as the route sends them. */
async function fresh(input: { benchmarkTypeId?: number; confidence?: 90 | 95 | 99 } = {}, f: ResponseFilter = filters): Promise<unknown> {
  return { ...(await qualResults(tdb.db, systemCtx(), { projectId: project, filters: f, benchmarkTypeId: input.benchmarkTypeId ?? null, confidence: input.confidence ?? 95 })), question: null };
}

test("a call asked again is answered from memory, with the bytes of the computation", async () => {
  const first = await route("&benchmarkTypeId=1");
  const kept = answerStats().answers;
  expect(kept, "the answer is remembered").toBeGreaterThan(0);
  const again = await route("&benchmarkTypeId=1");
  expect(again).toBe(first);
  expect(answerStats().answers, "the same call adds nothing").toBe(kept);
  expect(JSON.parse(again)).toEqual(await fresh({ benchmarkTypeId: 1 }));
  // Other options or another filter are other answers.
  const ninety = await route("&benchmarkTypeId=1&confidence=90");
  expect(JSON.parse(ninety)).toEqual(await fresh({ benchmarkTypeId: 1, confidence: 90 }));
  expect(ninety).not.toBe(first);
  const all = await route("&benchmarkTypeId=1", {});
  expect(JSON.parse(all)).toEqual(await fresh({ benchmarkTypeId: 1 }, {}));
  expect(answerStats().answers).toBe(kept + 2);
});

test("a change of the project's weights is a new answer (a new results version)", async () => {
  const before = await route("&benchmarkTypeId=1");
  await tdb.db`update project_survey_sessions set weight = weight * (1 + (id % 5) / 4.0) where project_id = ${project}`;
  const after = await route("&benchmarkTypeId=1");
  expect(after).not.toBe(before);
  expect(JSON.parse(after)).toEqual(await fresh({ benchmarkTypeId: 1 }));
});

test("a change of a comparable project's results is a new answer (the norm it reads)", async () => {
  const before = await route("&benchmarkTypeId=1");
  const [other] = await tdb.db<{ id: number }[]>`
    select q.id from projects q join norm_cells c on c.project_id = q.id
    where q.id <> ${project} and q.status_code >= 800 and q.status_code <> 950 and q.deleted_at is null and c.region_id = ${filters.regionIds![0]!}
    group by q.id order by q.id limit 1`;
  expect(other, "a comparable project in the filter's market").toBeDefined();
  await tdb.db`update responses set standard_answer_value = 1 where project_id = ${other!.id} and standard_answer_value = 4`;
  const after = await route("&benchmarkTypeId=1");
  expect(after).not.toBe(before);
  expect(JSON.parse(after)).toEqual(await fresh({ benchmarkTypeId: 1 }));
});

test("a change of a measure's title is a new answer", async () => {
  const before = JSON.parse(await route("&benchmarkTypeId=1")) as { measures: { standardQuestionId: number; title: string }[] };
  const sq = before.measures[0]!.standardQuestionId;
  await tdb.db`update standard_questions set title = title || ' (renamed)' where id = ${sq}`;
  const after = JSON.parse(await route("&benchmarkTypeId=1")) as typeof before;
  expect(after.measures[0]!.title).toBe(`${before.measures[0]!.title} (renamed)`);
  expect(after).toEqual((await fresh({ benchmarkTypeId: 1 })) as typeof before);
});

test("ResponsesCount asked again is answered from memory, and anew after the project's weights change", async () => {
  const counts = async () => {
    const res = await app.request(`/api/v1/Projects(${project})/ResponsesCount?filters=${encodeURIComponent(JSON.stringify(filters))}`, {
      headers: { authorization: `Bearer ${token}`, clientId: String(team) },
    });
    const text = await res.text();
    expect(res.status, text.slice(0, 300)).toBe(200);
    expect(res.headers.get("content-type")).toStartWith("application/json");
    return text;
  };
  const first = await counts();
  const kept = answerStats().answers;
  expect(await counts()).toBe(first);
  expect(answerStats().answers, "the same call adds nothing").toBe(kept);
  expect(JSON.parse(first)).toEqual(await responsesCount(tdb.db, systemCtx(), project, filters));
  await tdb.db`update project_survey_sessions set weight = weight * 1.5 where project_id = ${project}`;
  const after = await counts();
  expect(after).not.toBe(first);
  expect(JSON.parse(after)).toEqual(await responsesCount(tdb.db, systemCtx(), project, filters));
});
