// Finding (a clean run of session 18, with other work on the machine): ExportExcel of the demo's
// "Energy drink flavour line-up" answered 503 (statement timeout, 5 s). Its design-based variance
// sums paired each respondent's answers to a question by joining the answers with themselves on
// (respondent, question). The demo world is a fresh database with no statistics, so the planner
// estimated one row per side and joined them in a nested loop: 24.7 million rows compared and
// thrown away for 200 respondents of five concepts, 4 s on a quiet machine (results.sql.ts
// pairsPerRespondent). The pairs are now made within each respondent, so no plan can make the
// work quadratic in the respondents.
//
// The check counts work, not time: every statement that makes these pairs (QualResults on the SQL
// path, WaveData) is run again under EXPLAIN ANALYZE with hash and merge joins off (the plan the
// planner chooses without statistics), and no step of its plan may handle more rows than twice the
// pairs there are: Σ over respondents and questions of k², k the options a respondent rated on that
// question, counted here from the answers with SQL of this test's own.
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_PASSWORD } from "../../api/src/db/demo.ts";
import type { App } from "../../api/src/app.ts";
import { createDemoWorldDb, DEMO_WORLD_HOOK_MS } from "../helpers/demo.ts";
import { designCells } from "../../api/src/domains/results/results.sql.ts";
import { resolveFilter } from "../../api/src/domains/results/filters.ts";

let tdb: TestDb;
let app: App;
let token: string;
let clientId: number;
let projectId: number;
const statements: { text: string; params: readonly unknown[] }[] = [];

beforeAll(async () => {
  ({ tdb } = await createDemoWorldDb({ onQuery: (text, params) => statements.push({ text, params }) }));
  ({ app } = await realApp(tdb.db));
  const [c] = await tdb.db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  clientId = c!.id;
  token = (await login(app, "user@acme.test", DEMO_PASSWORD)).token;
  // The team's project with the most options rated by one respondent on one question.
  const [p] = await tdb.db<{ id: number }[]>`
    select r.project_id as id from responses r join projects p on p.id = r.project_id
    where p.client_id = ${clientId} and r.standard_question_id is not null and r.standard_answer_value is not null
    group by r.project_id, r.survey_session_id, r.standard_question_id order by count(distinct r.test_option_id) desc, 1 limit 1`;
  projectId = p!.id;
}, DEMO_WORLD_HOOK_MS);
afterAll(async () => {
  await tdb.drop();
}, 30_000);

interface PlanNode {
  "Node Type": string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Join Filter"?: number;
  "Rows Removed by Filter"?: number;
  Plans?: PlanNode[];
}

/** The largest number of rows one step of the plan handled: produced over its loops, plus those it compared and dropped. */
function largestStep(n: PlanNode): { rows: number; node: string } {
  const own = { rows: n["Actual Rows"] * n["Actual Loops"] + (n["Rows Removed by Join Filter"] ?? 0) + (n["Rows Removed by Filter"] ?? 0), node: n["Node Type"] };
  return (n.Plans ?? []).map(largestStep).reduce((a, b) => (b.rows > a.rows ? b : a), own);
}

async function worstCasePlan(text: string, params: readonly unknown[]): Promise<{ rows: number; node: string }> {
  return tdb.db.begin(async (tx) => {
    await tx`set local enable_hashjoin = off`;
    await tx`set local enable_mergejoin = off`;
    const [r] = await tx.unsafe<{ "QUERY PLAN": { Plan: PlanNode }[] }[]>(`explain (analyze, timing off, format json) ${text}`, params as never[]);
    return largestStep(r!["QUERY PLAN"][0]!.Plan);
  });
}

test("the design's pairs of answers are made within each respondent: no plan handles more rows than twice the pairs", async () => {
  const [{ pairs }] = await tdb.db<{ pairs: number }[]>`
    select coalesce(sum(k * k), 0)::int as pairs from (
      select count(distinct coalesce(test_option_id, 0)) as k from responses
      where project_id = ${projectId} and standard_question_id is not null and standard_answer_value is not null
      group by survey_session_id, standard_question_id) x`;
  expect(pairs, "the project has respondents who rated several options").toBeGreaterThan(1000);

  statements.length = 0;
  // The SQL path of QualResults' sums (the results cache reads the same sums from its columnar copy).
  await tdb.db.begin(async (tx) => designCells(tx, projectId, await resolveFilter(tx, {}), null));
  const res = await app.request(`/api/v1/Responses/WaveData?projectId=${projectId}`, { headers: { authorization: `Bearer ${token}`, clientId: String(clientId) } });
  expect(res.status, await res.clone().text()).toBe(200);

  const pairing = statements.filter((s) => /standard_answer_value <= 2/.test(s.text) && /\bunnest\(|join y b/.test(s.text));
  expect(pairing.length, "designCells and WaveData's pair sums were both run").toBe(2);
  for (const s of pairing) {
    const worst = await worstCasePlan(s.text, s.params);
    expect(worst.rows, `${worst.node} handled ${worst.rows} rows for ${pairs} pairs in: ${s.text.slice(0, 200)}`).toBeLessThanOrEqual(2 * pairs);
  }
}, 60_000);
