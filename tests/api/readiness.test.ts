// The pre-launch check (issue 22): Submit refuses an incomplete test with a field error per
// problem BEFORE anything is charged, and Projects({key})/ReadinessCheck lists the same problems
// with the editor tab that fixes each. Edges: market reach at 1 (refused) and 2 (accepted) items.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1003, 1, 1000000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

let seq = 0;
/** A Draft of Acme Team A written as the owner: regions [regionId, completes], n test options. */
async function draft(opts: { type?: number; framework?: number; regions?: number[]; options?: number }): Promise<number> {
  const sql = tdb.db;
  const [p] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (1003, ${`Readiness ${++seq}`}, ${opts.type ?? 1}, 0, ${opts.framework ?? 1000}, 9004, 9004) returning id`;
  for (const regionId of opts.regions ?? [1]) {
    await sql`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (1003, ${p!.id}, ${regionId}, 100, false)`;
  }
  for (let i = 0; i < (opts.options ?? 0); i++) await sql`insert into test_options (client_id, project_id, concept_text) values (1003, ${p!.id}, ${`Concept ${i + 1}`})`;
  return p!.id;
}

async function charged(projectId: number): Promise<number> {
  const [r] = await tdb.db<{ n: number }[]>`select count(*)::int as n from credit_logs where project_id = ${projectId}`;
  return r!.n;
}
async function status(projectId: number): Promise<number> {
  const [r] = await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${projectId}`;
  return r!.s;
}
const codes = (body: { problems: { code: string }[] }) => body.problems.map((p) => p.code);

describe("Submit refuses an incomplete test, before charging", () => {
  test("an Idea test with zero test options: 400 naming testOptions, nothing charged, still a Draft", async () => {
    const id = await draft({ options: 0 });
    const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.typename).toBe("ValidationError");
    expect(res.body.errors).toEqual([{ path: "testOptions", message: "Add at least one test option: respondents have nothing to rate." }]);
    expect(await charged(id), "no credit log written").toBe(0);
    expect(await status(id), "still a Draft").toBe(0);
  });

  test("the same test with one test option is submitted and charged", async () => {
    const id = await draft({ options: 1 });
    const check = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`);
    expect(check.body).toEqual({ projectId: id, ready: true, problems: [], shortfall: null });
    const res = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.charged).toBeGreaterThan(0);
    expect(await charged(id)).toBeGreaterThan(0);
  });

  test("SuperApprove from Draft refuses the same way (staff cannot launch an empty test either)", async () => {
    const id = await draft({ options: 0 });
    const res = await call(app, "staff", 1003, "POST", `/api/v1/Projects(${id})/SuperApprove`, {});
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(await charged(id)).toBe(0);
    expect(await status(id)).toBe(0);
  });
});

describe("ReadinessCheck", () => {
  test("zero test options: one problem, fixed on the test options tab", async () => {
    const id = await draft({ options: 0 });
    const res = await call(app, "acmeViewer", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`);
    expect(res.status, "a Viewer may read it").toBe(200);
    expect(res.body).toEqual({
      projectId: id,
      ready: false,
      problems: [{ code: "testOptions", message: "Add at least one test option: respondents have nothing to rate.", tab: "test-options", blocking: true }],
      shortfall: null,
    });
  });

  test("market reach framework: 1 test option is refused, 2 are enough", async () => {
    const one = await draft({ framework: 1020, options: 1 });
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${one})/ReadinessCheck`)).body)).toEqual(["marketReach.testOptions"]);
    expect((await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${one})/Submit`, {})).status).toBe(400);
    expect(await charged(one)).toBe(0);
    const two = await draft({ framework: 1020, options: 2 });
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${two})/ReadinessCheck`)).body)).toEqual([]);
  });

  test("a market reach add-on over test options: one left after a removal is refused", async () => {
    const id = await draft({ options: 2 });
    const set = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/CreateMarketReach`, {});
    expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`)).body)).toEqual([]);
    await tdb.db`update test_options set deleted_at = now() where id = (select max(id) from test_options where project_id = ${id})`;
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`)).body)).toEqual(["marketReach.testOptions"]);
  });

  test("price questions need the markets' one currency: NZD alone passes, NZD and AUD is refused", async () => {
    const id = await draft({ options: 1, regions: [1] });
    const set = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/CreatePriceSensitivities`, {});
    expect(set.status, JSON.stringify(set.body)).toBeLessThan(300);
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`)).body)).toEqual([]);
    await tdb.db`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (1003, ${id}, 2, 100, false)`;
    const res = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`);
    expect(res.body.problems).toEqual([{ code: "priceSensitivity.currencyCode", message: expect.stringContaining("AUD and NZD"), tab: "markets", blocking: true }]);
  });

  test("a Question project needs a question; no markets is a problem too", async () => {
    const id = await draft({ type: 3, framework: 3000, regions: [] });
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ReadinessCheck`)).body)).toEqual(["regions", "questions"]);
  });

  test("quotas a run cannot fill are listed for the markets tab: Gender at 60% + 60% (120%), not at 50% + 50%", async () => {
    const over = await draft({ options: 1 });
    // Written past ChangeTargets (as an older project may hold); 4500001/4500002 are Male and Female.
    await tdb.db`insert into targets (client_id, project_id, system_question_option_id, quota_percent) values (1003, ${over}, 4500001, 60), (1003, ${over}, 4500002, 60)`;
    const res = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${over})/ReadinessCheck`);
    expect(res.body.problems).toEqual([{ code: "quotas", message: expect.stringContaining('"Gender" add up to 120%'), tab: "markets", blocking: true }]);
    const fits = await draft({ options: 1 });
    await tdb.db`insert into targets (client_id, project_id, system_question_option_id, quota_percent) values (1003, ${fits}, 4500001, 50), (1003, ${fits}, 4500002, 50)`;
    expect(codes((await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${fits})/ReadinessCheck`)).body)).toEqual([]);
  });

  test("another client's project is not found", async () => {
    const id = await draft({ options: 0 });
    expect((await call(app, "globexAdmin", 2001, "GET", `/api/v1/Projects(${id})/ReadinessCheck`)).status).toBe(404);
  });
});
