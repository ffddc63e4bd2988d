// Themes and drivers under the filters (issue 23): on the fielded demo project with two markets,
// ThemeResults counts each theme over the filtered respondents' answers, so Australia's counts are
// not both markets' counts; every count is recomputed here from the raw rows in SQL (text answers,
// their themes, their respondents' market, demographics and completion), per test option and by
// sentiment. DriverResults recomputes the drivers for a market and labels a base too small for it.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { aiWorld, type AiWorld } from "../helpers/ai.ts";
import { filteredDriversAllowed, minimumDriverBase } from "../../api/src/domains/results/drivers.service.ts";
import { FigureBook, projectContext, themeFacts } from "../../api/src/domains/ai/facts.ts";
import { DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";

let w: AiWorld;
const USER = "user@acme.test";
let client: number;
let projectId: number;
let pq: number;

beforeAll(async () => {
  w = await aiWorld([]);
  [{ id: client }] = await w.tdb.db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  [{ id: projectId }] = await w.tdb.db<{ id: number }[]>`select id from projects where project_name = 'Plant-based snacks idea screen'`;
  [{ pq }] = await w.tdb.db<{ pq: number }[]>`select distinct project_question_id::int as pq from text_responses where project_id = ${projectId} limit 1`;
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => w.stop(), 30_000);

type Row = { themeId: number; testOptionId: number | null; sentiment: string | null; n: number };

/** Theme counts straight from the rows: answers of complete respondents in the markets (and with the demographic option). */
async function sqlCounts(regionIds: number[], optionId: number | null = null): Promise<Row[]> {
  return w.tdb.db<Row[]>`
    select x.theme_id::int as "themeId", t.test_option_id as "testOptionId", t.sentiment, count(*)::int as n
    from text_responses t
    join text_responses_themes x on x.text_response_id = t.id
    join project_survey_sessions p on p.project_id = t.project_id and p.survey_session_id = t.survey_session_id
    where t.project_id = ${projectId} and t.project_question_id = ${pq} and p.status = 'Complete' and p.region_id = any(${regionIds}::int[])
      and (${optionId}::int is null or exists (select 1 from responses r where r.project_id = t.project_id and r.survey_session_id = t.survey_session_id and r.system_question_option_id = ${optionId}))
    group by 1, 2, 3`;
}
const sum = (rows: Row[], keep: (r: Row) => boolean) => rows.filter(keep).reduce((a, r) => a + r.n, 0);

async function themeResults(filters: object) {
  const r = await w.call(USER, client, "GET", `/api/v1/TextResponses/ThemeResults?projectId=${projectId}&projectQuestionId=${pq}&filters=${encodeURIComponent(JSON.stringify(filters))}`);
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body as {
    answers: number;
    themes: { id: number; count: number; share: number; bySentiment: Record<string, number>; byTestOption: { testOptionId: number | null; count: number; share: number }[] }[];
    testOptions: { testOptionId: number | null; answers: number }[];
  };
}

function expectMatches(api: Awaited<ReturnType<typeof themeResults>>, rows: Row[]) {
  expect(api.themes.length).toBeGreaterThan(0);
  for (const th of api.themes) {
    expect(th.count, `theme ${th.id}`).toBe(sum(rows, (r) => r.themeId === th.id));
    for (const s of ["Positive", "Negative", "Neutral", "Mixed"]) expect(th.bySentiment[s], `theme ${th.id} ${s}`).toBe(sum(rows, (r) => r.themeId === th.id && r.sentiment === s));
    for (const o of th.byTestOption) {
      const k = sum(rows, (r) => r.themeId === th.id && r.testOptionId === o.testOptionId);
      expect(o.count, `theme ${th.id} option ${o.testOptionId}`).toBe(k);
      expect(o.share).toBeCloseTo(k / api.testOptions.find((t) => t.testOptionId === o.testOptionId)!.answers, 12);
    }
    expect(th.share).toBeCloseTo(th.count / api.answers, 12);
  }
}

test("the themes of Australia are counted over Australia's answers, not both markets'", async () => {
  const regions = (await w.tdb.db<{ id: number }[]>`select region_id as id from projects_regions where project_id = ${projectId} order by region_id`).map((r) => r.id);
  expect(regions.length).toBe(2);
  const au = await themeResults({ regionIds: [regions[0]] });
  const both = await themeResults({ regionIds: regions });
  const auRows = await sqlCounts([regions[0]!]);
  const bothRows = await sqlCounts(regions);
  expectMatches(au, auRows);
  expectMatches(both, bothRows);
  // The bug: every theme had both markets' count whatever the filter.
  const [{ n: auAnswers }] = await w.tdb.db<{ n: number }[]>`
    select count(*)::int as n from text_responses t join project_survey_sessions p on p.project_id = t.project_id and p.survey_session_id = t.survey_session_id
    where t.project_id = ${projectId} and t.project_question_id = ${pq} and p.status = 'Complete' and p.region_id = ${regions[0]!}`;
  expect(au.answers).toBe(auAnswers);
  expect(au.answers).toBeLessThan(both.answers);
  expect(au.themes.some((t) => t.count !== both.themes.find((b) => b.id === t.id)!.count)).toBe(true);
  expect(au.themes.every((t) => t.count <= both.themes.find((b) => b.id === t.id)!.count)).toBe(true);
}, 60_000);

test("a demographic filter narrows the theme counts the same way", async () => {
  const [female] = await w.tdb.db<{ id: number }[]>`select o.id from system_question_option o where o.system_question_id = 45 and o.answer_label = 'Female' limit 1`;
  const regions = (await w.tdb.db<{ id: number }[]>`select region_id as id from projects_regions where project_id = ${projectId}`).map((r) => r.id);
  const women = await themeResults({ regionIds: regions, filterIds: [female!.id] });
  expectMatches(women, await sqlCounts(regions, female!.id));
}, 60_000);

test("ThemeResults refuses a question of another project and a bad filter", async () => {
  const other = await w.call(USER, client, "GET", `/api/v1/TextResponses/ThemeResults?projectId=${projectId}&projectQuestionId=999999`);
  expect(other.status).toBe(404);
  const bad = await w.call(USER, client, "GET", `/api/v1/TextResponses/ThemeResults?projectId=${projectId}&projectQuestionId=${pq}&filters=nope`);
  expect(bad.status).toBe(400);
  expect(bad.body.message).toContain("filters");
}, 60_000);

test("the minimum base for drivers under a filter is Green's 104 + predictors, at its edge", () => {
  expect(minimumDriverBase(5)).toBe(109);
  expect(minimumDriverBase(0)).toBe(104);
  expect(filteredDriversAllowed(108, 5)).toBe(false);
  expect(filteredDriversAllowed(109, 5)).toBe(true);
  expect(filteredDriversAllowed(110, 5)).toBe(true);
});

test("drivers are recomputed for a market when its base allows, and labelled with all respondents' when it does not", async () => {
  const regions = (await w.tdb.db<{ id: number }[]>`select region_id as id from projects_regions where project_id = ${projectId} order by region_id`).map((r) => r.id);
  const get = async (filters: object) => {
    const r = await w.call(USER, client, "GET", `/api/v1/Responses/DriverResults?projectId=${projectId}&filters=${encodeURIComponent(JSON.stringify(filters))}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as {
      minimumBase: number;
      groups: { testOptionId: number | null; filtered: boolean; filteredBase: number; n: number; note: string | null; drivers: { standardQuestionId: number; importance: number | null }[] }[];
    };
  };
  const all = await get({});
  const au = await get({ regionIds: [regions[0]] });
  const predictors = all.groups[0]!.drivers.length;
  expect(all.minimumBase).toBe(104 + predictors);
  // The pooled base: ratings of complete respondents in the market with purchase intent and every measure, counted in SQL.
  const base = async (regionIds: number[], optionId: number | null) => {
    const [{ n }] = await w.tdb.db<{ n: number }[]>`
      select count(*)::int as n from (
        select r.survey_session_id, r.test_option_id from responses r
        join project_survey_sessions p on p.id = r.project_survey_session_id
        join standard_questions sq on sq.id = r.standard_question_id and sq.is_scaled
        where r.project_id = ${projectId} and r.standard_answer_value is not null and p.status = 'Complete' and p.region_id = any(${regionIds}::int[])
          and exists (select 1 from responses f where f.project_id = r.project_id and f.survey_session_id = r.survey_session_id and (${optionId}::int is null or f.system_question_option_id = ${optionId}))
        group by 1, 2 having count(distinct r.standard_question_id) = ${predictors + 1}) x`;
    return n;
  };
  const pooled = au.groups.find((g) => g.testOptionId === null)!;
  expect(pooled.filteredBase).toBe(await base([regions[0]!], null));
  expect(pooled.filteredBase).toBeGreaterThanOrEqual(au.minimumBase);
  expect(pooled.filtered).toBe(true);
  expect(pooled.n).toBe(pooled.filteredBase);
  expect(pooled.note).toBeNull();
  // Australia's drivers are its own, not both markets'.
  const allPooled = all.groups.find((g) => g.testOptionId === null)!;
  expect(pooled.drivers.map((d) => d.importance)).not.toEqual(allPooled.drivers.map((d) => d.importance));
  // Women aged 18-24 in one market: too few to recompute, so all respondents' drivers, labelled.
  const [young] = await w.tdb.db<{ id: number }[]>`select o.id from system_question_option o where o.system_question_id = 51 and o.answer_label = '18-24' limit 1`;
  const small = await get({ regionIds: [regions[0]], filterIds: [young!.id] });
  for (const g of small.groups) {
    expect(g.filteredBase).toBeLessThan(small.minimumBase);
    expect(g.filtered).toBe(false);
    expect(g.note).toContain(`minimum base of ${small.minimumBase}`);
    expect(g.drivers).toEqual(all.groups.find((a) => a.testOptionId === g.testOptionId)!.drivers);
  }
  expect(small.groups.find((g) => g.testOptionId === null)!.filteredBase).toBe(await base([regions[0]!], young!.id));
}, 60_000);

test("the AI summary names the market's own top themes, with the market's shares", async () => {
  const regions = (await w.tdb.db<{ id: number }[]>`select region_id as id from projects_regions where project_id = ${projectId} order by region_id`).map((r) => r.id);
  const ctx = await w.ctxOf(USER, client);
  const pc = await projectContext(w.tdb.db, ctx, projectId);
  for (const region of regions) {
    const rows = await sqlCounts([region]);
    const [{ n: answers }] = await w.tdb.db<{ n: number }[]>`
      select count(*)::int as n from text_responses t join project_survey_sessions p on p.project_id = t.project_id and p.survey_session_id = t.survey_session_id
      where t.project_id = ${projectId} and t.project_question_id = ${pq} and p.status = 'Complete' and p.region_id = ${region}`;
    const names = await w.tdb.db<{ id: number; name: string }[]>`select id::int, name from themes where project_question_id = ${pq}`;
    const top = names
      .map((t) => ({ name: t.name, id: t.id, n: sum(rows, (r) => r.themeId === t.id) }))
      .sort((a, b) => b.n - a.n || a.id - b.id)
      .slice(0, 3);
    const facts = (await themeFacts(w.tdb.db, ctx, pc, new FigureBook(), { regionIds: [region] })).filter((t) => pc.textQuestions.find((q) => q.projectQuestionId === pq)!.text === t.question);
    expect(
      facts.map((t) => t.name),
      `market ${region}`,
    ).toEqual(top.map((t) => t.name));
    facts.forEach((t, i) => {
      expect(t.share.value).toBeCloseTo(top[i]!.n / answers, 12);
    });
  }
}, 60_000);
