// Every results page of SPEC 2 ({clientId}/results/{projectId}/...) gets non-empty data for a demo
// project through the API, signed in as the demo User of Acme Team A: each test makes the calls
// that page makes (docs/decisions.md "The results pages' calls") and checks their data is there.
// The demo world is the one a first start seeds (api/src/db/demo.ts, domains/fielding/demo.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { createDemoWorldDb, demoTeam, demoProject, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let tdb: TestDb;
let app: App;
let token: string;
let team: number;
const ids: Record<string, number> = {};
const pq: Record<string, number> = {};

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb());
  ({ app } = await realApp(tdb.db));
  ({ token } = await login(app, "user@acme.test", DEMO_PASSWORD));
  team = await demoTeam(tdb.db);
  const names = {
    idea: "Plant-based snacks idea screen",
    pricing: "Protein bar pricing",
    reach: "Energy drink flavour line-up",
    tracker: "Brand message tracker",
    npd: "Sparkling water launch tracker",
    question: "Weekday lunch habits",
  };
  for (const [k, name] of Object.entries(names)) ids[k] = await demoProject(tdb.db, team, name);
  const question = async (project: number, where: { position?: number; type?: number; std?: number }) => {
    const [r] = await tdb.db<{ id: number }[]>`
      select pq.id from project_questions pq join questions q on q.id = pq.question_id
      where pq.project_id = ${project} and pq.deleted_at is null
        and (${where.position ?? null}::int is null or pq.question_position_id = ${where.position ?? null})
        and (${where.type ?? null}::int is null or q.question_type_id = ${where.type ?? null})
        and (${where.std ?? null}::int is null or pq.standard_question_id = ${where.std ?? null})
      order by pq.sort_order, pq.id limit 1`;
    if (!r) throw new Error(`the demo project ${project} has no question ${JSON.stringify(where)}`);
    return r.id;
  };
  pq.segment = await question(ids.question!, { position: 9 });
  pq.followUpChoice = await question(ids.question!, { position: 3, type: 2 });
  pq.followUpText = await question(ids.question!, { position: 3, type: 3 });
  pq.likeMost = await question(ids.idea!, { std: 7 });
  pq.adOuttake = await question(ids.tracker!, { std: 10 });
  pq.trackerLikability = await question(ids.tracker!, { std: 5 });
  pq.npdChoice = await question(ids.npd!, { type: 2 });
  pq.npdText = await question(ids.npd!, { position: 3, type: 3 });
  pq.profile = await question(ids.idea!, { position: 7 });
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  await tdb?.drop();
}, 30_000);

// deno-lint-ignore no-explicit-any
async function get(path: string): Promise<any> {
  const res = await app.request(path, { headers: { authorization: `Bearer ${token}`, clientId: String(team) } });
  const body = await res.json();
  expect(res.status, `${path}: ${JSON.stringify(body).slice(0, 300)}`).toBe(200);
  return body;
}

type Measure = { testOptionId: number | null; n: number; top2: number; vsOthers: unknown[] };
const measures = (q: { measures: { standardQuestionId: number; results: Measure[] }[] }) => q.measures.flatMap((m) => m.results);
const qual = (project: number, extra = "") => get(`/api/v1/Responses/QualResults?projectId=${project}${extra}`);
const verbatims = (project: number, question: number, extra = "") => get(`/api/v1/TextResponses/Verbatim?projectId=${project}&projectQuestionId=${question}${extra}`);

describe("the results pages of SPEC 2, on the demo projects", () => {
  test("{tab} (the overview of all results): measures against the default benchmark, counts per option", async () => {
    const q = await qual(ids.idea!, "&benchmarkTypeId=1");
    expect(measures(q).length, "top-2-boxes per measure and concept").toBeGreaterThan(0);
    expect(
      measures(q).every((m) => m.n > 0),
      "every cell has respondents",
    ).toBe(true);
    const counts = await get(`/api/v1/Projects(${ids.idea})/ResponsesCount`);
    expect(counts.value.length, "respondents per concept").toBe(3);
  });

  test("summary: measures, counts and the benchmarks to read them against", async () => {
    expect(measures(await qual(ids.idea!)).length).toBeGreaterThan(0);
    const b = await get(`/api/v1/Projects(${ids.idea})/Benchmarks`);
    expect(
      b.value.some((x: { isAvailable: boolean; benchmarkTypeId: number }) => x.isAvailable && x.benchmarkTypeId > 0),
      "an available norm",
    ).toBe(true);
    const w = await get(`/api/v1/Responses/WeightSum?projectId=${ids.idea}`);
    expect(w.count, "weighted respondents").toBeGreaterThan(0);
  });

  test("demographics: who answered, weighted", async () => {
    const d = await get(`/api/v1/Responses/DemographicsResults?projectId=${ids.idea}`);
    expect(d.questions.length).toBeGreaterThan(0);
    expect(d.questions.some((q: { options: { count: number }[] }) => q.options.some((o) => o.count > 0))).toBe(true);
  });

  test("advertising: the message's measures and its advertisement outtake in the respondents' words", async () => {
    expect(measures(await qual(ids.tracker!)).length).toBeGreaterThan(0);
    const v = await verbatims(ids.tracker!, pq.adOuttake!);
    expect(v.value.length, "outtake verbatims").toBeGreaterThan(0);
  });

  test("qual/{projectQuestionId}: a follow-up question's option shares", async () => {
    const q = await qual(ids.question!, `&projectQuestionId=${pq.followUpChoice}`);
    expect(q.question.results[0].options.some((o: { count: number }) => o.count > 0)).toBe(true);
  });

  test("text/{projectQuestionId}: the open answers, counted, with their themes", async () => {
    const v = await verbatims(ids.question!, pq.followUpText!);
    expect(v.value.length).toBeGreaterThan(0);
    expect(
      v.value.some((x: { themes: unknown[]; sentiment: string | null }) => x.themes.length > 0 && x.sentiment !== null),
      "coded answers",
    ).toBe(true);
    const n = await get(`/api/v1/TextResponses/VerbatimCount?projectId=${ids.question}&projectQuestionId=${pq.followUpText}`);
    expect(n.count, "a count").toBeGreaterThan(0);
  });

  test("segment-question/{projectQuestionId}: the segmentation question's shares", async () => {
    const q = await qual(ids.question!, `&projectQuestionId=${pq.segment}`);
    expect(q.question.results[0].n).toBeGreaterThan(0);
  });

  test("wave/{projectQuestionId}: the measure wave by wave", async () => {
    const w = await get(`/api/v1/Responses/WaveData?projectId=${ids.tracker}`);
    const [{ standardQuestionId }] = await tdb.db<{ standardQuestionId: number }[]>`select standard_question_id as "standardQuestionId" from project_questions where id = ${pq.trackerLikability!}`;
    const withIt = w.waves.filter((x: { measures: { standardQuestionId: number; results: Measure[] }[] }) =>
      x.measures.some((m) => m.standardQuestionId === standardQuestionId && m.results.length > 0),
    );
    expect(withIt.length, "the four waves each have the measure").toBe(4);
  });

  test("drivers: the measures' weight in purchase intent", async () => {
    const r = await get(`/api/v1/RegressionScores?$filter=projectId eq ${ids.idea}`);
    expect(r.value.length).toBeGreaterThan(0);
  });

  test("grow-ideas/{testOptionId}: one concept's measures and what people like about it", async () => {
    const [{ id: to }] = await tdb.db<{ id: number }[]>`select id from test_options where project_id = ${ids.idea!} order by sort_order, id limit 1`;
    const q = await qual(ids.idea!, `&filters=${encodeURIComponent(JSON.stringify({ testOptionIds: [to] }))}`);
    expect(measures(q).length).toBeGreaterThan(0);
    expect(
      measures(q).every((m) => m.testOptionId === to),
      "only that concept",
    ).toBe(true);
    const v = await verbatims(ids.idea!, pq.likeMost!, `&testOptionId=${to}`);
    expect(v.value.length, "its verbatims").toBeGreaterThan(0);
  });

  test("h2h/{tab}: concepts head to head, each tested against the others", async () => {
    const m = measures(await qual(ids.idea!));
    expect(
      m.every((x) => x.vsOthers.length === 2),
      "three concepts: two comparisons each",
    ).toBe(true);
  });

  test("price-sensitivity: Van Westendorp per test option", async () => {
    const r = await get(`/api/v1/Responses/PriceSensitivityResults?projectId=${ids.pricing}`);
    expect(r.value.length).toBe(2);
    for (const x of r.value) {
      expect(x.n, "valid respondents").toBeGreaterThan(0);
      expect(x.opp, "an optimal price").not.toBeNull();
    }
  });

  test("market-reach/{tab?}: TURF reach of the flavour sets", async () => {
    const r = await get(`/api/v1/Responses/MarketReachResults?projectId=${ids.reach}`);
    expect(r.respondents).toBeGreaterThan(0);
    expect(r.byK.length).toBeGreaterThan(0);
    expect(r.byK[0].sets[0].reach).toBeGreaterThan(0);
  });

  test("npd: the launch's measures by week since launch", async () => {
    expect(measures(await qual(ids.npd!)).length).toBeGreaterThan(0);
    const w = await get(`/api/v1/Responses/WaveData?projectId=${ids.npd}`);
    expect(w.waveKind).toBe("weekSinceLaunch");
    expect(w.waves.length).toBe(4);
  });

  test("npd-qual/{projectQuestionId}: an NPD question's option shares", async () => {
    const q = await qual(ids.npd!, `&projectQuestionId=${pq.npdChoice}`);
    expect(q.question.results[0].options.some((o: { count: number }) => o.count > 0)).toBe(true);
  });

  test("npd-text/{projectQuestionId}: the NPD tracker's open answers, counted, with their themes", async () => {
    const v = await verbatims(ids.npd!, pq.npdText!);
    expect(v.value.length).toBeGreaterThan(0);
    expect(
      v.value.some((x: { themes: unknown[]; sentiment: string | null }) => x.themes.length > 0 && x.sentiment !== null),
      "coded answers",
    ).toBe(true);
    const n = await get(`/api/v1/TextResponses/VerbatimCount?projectId=${ids.npd}&projectQuestionId=${pq.npdText}`);
    expect(n.count, "every wave's respondents answered it").toBe(4 * 100);
  });

  test("profile-question/{projectQuestionId}: an audience question's option shares", async () => {
    const q = await qual(ids.idea!, `&projectQuestionId=${pq.profile}`);
    const options = q.question.results[0].options as { count: number }[];
    expect(options.filter((o) => o.count > 0).length, "several answers chosen").toBeGreaterThan(1);
    expect(q.question.results[0].n).toBeGreaterThan(0);
  });
});
