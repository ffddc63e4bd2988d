// The demo world of a fresh start: seeded once into an empty database, every demo login signs in,
// and the foundation's acceptance query answers exactly for a signed-in demo user.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { login, realApp } from "../helpers/app.ts";
import { DEMO_CREDITS, DEMO_LOGINS, DEMO_PASSWORD, seedDemo } from "../../api/src/db/demo.ts";
import { bunPasswords } from "../../api/src/auth/passwords-bun.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
beforeAll(async () => {
  tdb = await createTestDb({ fixtures: false });
  ({ app } = await realApp(tdb.db));
});
afterAll(async () => {
  await tdb.drop();
});

test("seeds once into an empty database, and not again", async () => {
  expect(await seedDemo(tdb.db, bunPasswords.hash, { whenEmpty: true })).toBe(true);
  expect(await seedDemo(tdb.db, bunPasswords.hash, { whenEmpty: true })).toBe(false);
  expect(await seedDemo(tdb.db, bunPasswords.hash, { whenEmpty: false }), "db:seed finds the logins there").toBe(false);
  const [{ n }] = (await tdb.db`select count(*)::int as n from users where email like '%.test'`) as unknown as [{ n: number }];
  expect(n).toBe(DEMO_LOGINS.length);
});

test("the demo teams have credits to run projects with", async () => {
  const rows = await tdb.db<{ name: string; balance: number }[]>`
    select c.name, sum(l.credit_amount)::float8 as balance from credit_logs l join clients c on c.id = l.client_id group by c.name order by c.name`;
  expect([...rows]).toEqual([
    { name: "Acme Team A", balance: DEMO_CREDITS.teamA },
    { name: "Acme Team B", balance: DEMO_CREDITS.teamB },
    { name: "Globex", balance: DEMO_CREDITS.globex },
  ]);
});

test("every demo login signs in with the demo password", async () => {
  for (const l of DEMO_LOGINS) {
    const { token } = await login(app, l.email, DEMO_PASSWORD);
    expect(token.split(".").length, l.email).toBe(3);
  }
});

test("the acceptance query answers exactly for a signed-in user", async () => {
  const { token } = await login(app, "user@acme.test", DEMO_PASSWORD);
  const [team] = await tdb.db<{ id: number }[]>`select id from clients where name = 'Acme Team A'`;
  const res = await app.request("/api/v1/StandardQuestions?$filter=id le 6&$orderby=id desc&$select=id", {
    headers: { authorization: `Bearer ${token}`, clientId: String(team!.id) },
  });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe('{"value":[{"id":6},{"id":5},{"id":4},{"id":3},{"id":2},{"id":1}]}');
});

test("the demo projects of every type are fielded by the simulated panel and complete", async () => {
  const { seedDemoProjects, DEMO_PROJECTS } = await import("../../api/src/domains/fielding/demo.ts");
  const { registry } = await import("../../api/src/entities/index.ts");
  const ids = await seedDemoProjects(tdb.db, registry, "http://ideally.test");
  expect(ids.length).toBe(DEMO_PROJECTS.length);
  const rows = await tdb.db<{ name: string; type: number; status: number; sessions: number; waves: number; weeks: number; clientName: string }[]>`
    select p.project_name as name, p.project_type_id as type, p.status_code as status, c.name as "clientName",
           (select count(*)::int from project_survey_sessions s where s.project_id = p.id) as sessions,
           (select count(distinct survey_run_id)::int from project_survey_sessions s where s.project_id = p.id) as waves,
           (select count(distinct week)::int from project_survey_sessions s where s.project_id = p.id) as weeks
    from projects p join clients c on c.id = p.client_id where p.id = any(${ids}::int[]) order by p.id`;
  for (const r of rows) {
    const d = DEMO_PROJECTS.find((x) => x.projectName === r.name)!;
    expect(r.status, `${r.name} is complete`).toBe(900);
    expect(r.sessions, `${r.name} has every wave's completes`).toBe(d.sampleSize * d.regionIds.length * (d.waves?.count ?? 1));
  }
  expect(new Set(rows.map((r) => r.type))).toEqual(new Set([1, 2, 3, 4]));
  expect(rows.find((r) => r.type === 4)!.weeks, "the NPD tracker spans launch weeks").toBe(4);
  expect(rows.some((r) => r.clientName === "Globex")).toBe(true);
  // Concepts differ: the best and worst concept of the idea screen are apart on Likability (5).
  const t2b = await tdb.db<{ t: number }[]>`
    select avg((standard_answer_value <= 2)::int)::float8 as t from responses
    where project_id = ${ids[0]!} and standard_question_id = 5 group by test_option_id order by 1`;
  expect(t2b[t2b.length - 1]!.t - t2b[0]!.t).toBeGreaterThan(0.05);
}, 120_000);

test("every demo project has results through the results functions", async () => {
  const svc = await import("../../api/src/domains/results/results.service.ts");
  const projects = await tdb.db<{ id: number; clientId: number; type: number }[]>`
    select id, client_id as "clientId", project_type_id as type from projects where deleted_at is null order by id`;
  const [{ uma }] = await tdb.db<{ uma: number }[]>`select id as uma from users where email = 'user@acme.test'`;
  const [{ gil }] = await tdb.db<{ gil: number }[]>`select id as gil from users where email = 'admin@globex.test'`;
  for (const p of projects) {
    const [{ acme }] = await tdb.db<{ acme: boolean }[]>`select exists (select 1 from user_and_clients where user_id = ${uma} and client_id = ${p.clientId}) as acme`;
    const ctx = { principal: { userId: acme ? uma : gil, isStaff: false, isSuperAdmin: false }, clientId: p.clientId, descendants: false, sessionId: null };
    const counts = await svc.responsesCount(tdb.db, ctx, p.id, {});
    expect(counts.value.length, `project ${p.id} has respondents`).toBeGreaterThan(0);
    const demo = await svc.demographicsResults(tdb.db, ctx, p.id, { filterIds: [4500002] });
    expect(demo.questions.length, `project ${p.id} has demographics for women`).toBeGreaterThan(0);
    if (p.type !== 3) {
      const qual = await svc.qualResults(tdb.db, ctx, { projectId: p.id, filters: {}, benchmarkTypeId: 1 });
      expect(qual.measures.length, `project ${p.id} has measures`).toBeGreaterThan(0);
    }
  }
});
