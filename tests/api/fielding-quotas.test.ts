// Quotas that can be met (issue 21): a target group's quotas add up to at most 100%, the rest is
// open to the group's other answers unless the group takes only these; an impossible design is
// refused at set-up and at Submit before any charge, naming its group; the engine fills a design
// with one option at 50% (the reported New Zealand run that sat at 50/100).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const MALE = 4500001;
const FEMALE = 4500002;
const ANOTHER = 4500003;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

async function draft(sampleSize = 100): Promise<number> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: `Quotas ${Math.random().toString(36).slice(2, 7)}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  for (const conceptText of ["Oat milk barista blend", "Sparkling yerba mate"]) {
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText })).status).toBe(201);
  }
  await tdb.db`update projects_regions set sample_size = ${sampleSize} where project_id = ${id}`;
  return id;
}

const targets = (id: number, list: { o: number; q?: number; only?: boolean }[]) =>
  call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
    targets: list.map((t) => ({ systemQuestionOptionId: t.o, ...(t.q !== undefined ? { quotaPercent: t.q } : {}), ...(t.only ? { onlyThese: true } : {}) })),
  });

describe("quotas checked at set-up", () => {
  test("one option at 50% is accepted: the rest is open to the group's other answers", async () => {
    const id = await draft();
    const r = await targets(id, [{ o: FEMALE, q: 50 }]);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  });

  test("one option at 50% with 'only these' is refused with a message naming the group, and nothing is written", async () => {
    const id = await draft();
    const r = await targets(id, [{ o: FEMALE, q: 50, only: true }]);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('"Gender"');
    expect(r.body.message).toContain("50%");
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from targets where project_id = ${id}`;
    expect(n, "no target half-written").toBe(0);
  });

  test("shares within a group: 100% accepted, 100.01% refused", async () => {
    const id = await draft();
    expect(
      (
        await targets(id, [
          { o: MALE, q: 50 },
          { o: FEMALE, q: 50 },
        ])
      ).status,
      "at 100%",
    ).toBe(200);
    const over = await targets(id, [
      { o: MALE, q: 50 },
      { o: FEMALE, q: 50.01 },
    ]);
    expect(over.status, "just above 100%").toBe(400);
    expect(over.body.message).toBe('The quotas of the group "Gender" add up to 100.01% in New Zealand: the shares within a group may add up to at most 100%');
  });

  test("'only these' with every answer capped: 99.99% refused, 100% accepted", async () => {
    const id = await draft();
    const below = await targets(id, [
      { o: MALE, q: 49.99, only: true },
      { o: FEMALE, q: 50, only: true },
    ]);
    expect(below.status, "just below 100%").toBe(400);
    expect(below.body.message).toContain('"Gender" add up to 99.99%');
    expect(
      (
        await targets(id, [
          { o: MALE, q: 50, only: true },
          { o: FEMALE, q: 50, only: true },
        ])
      ).status,
    ).toBe(200);
  });

  test("every answer of the question with a quota below 100% in all is refused (nobody else can fill it)", async () => {
    const id = await draft();
    const r = await targets(id, [
      { o: MALE, q: 40 },
      { o: FEMALE, q: 40 },
      { o: ANOTHER, q: 10 },
    ]);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('"Gender" add up to 90%');
  });

  test("an impossible design is refused at Submit before any charge, naming its group", async () => {
    const id = await draft();
    // Written past ChangeTargets (as an older project may hold): 60% + 60% of one group.
    await tdb.db`insert into targets (client_id, project_id, system_question_option_id, quota_percent) values (${T}, ${id}, ${MALE}, 60), (${T}, ${id}, ${FEMALE}, 60)`;
    const [{ before }] = await tdb.db<{ before: number }[]>`select count(*)::int as before from credit_logs where client_id = ${T}`;
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(r.status).toBe(400);
    expect(r.body.message).toContain('"Gender" add up to 120%');
    const [{ after }] = await tdb.db<{ after: number }[]>`select count(*)::int as after from credit_logs where client_id = ${T}`;
    expect(after, "no charge").toBe(before);
    const [{ s }] = await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${id}`;
    expect(s, "still a draft").toBe(0);
  });
});

test("the engine fills a run whose group has one option at 50%: 50 women and 50 others of 100", async () => {
  const id = await draft(100);
  expect((await targets(id, [{ o: FEMALE, q: 50 }])).status).toBe(200);
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
  const [run] = await fielding.createSurveys(tdb.db, id);
  await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
  let total = 0;
  for (let i = 0; i < 10 && total < 100; i++) total = (await panel.simulate(tdb.db, run!.surveyRunId, 50)).totalCompletes;
  expect(total, "the run fills").toBe(100);
  const [g] = await tdb.db<{ women: number; others: number }[]>`
    select count(*) filter (where (answers->>'s45')::int = ${FEMALE})::int as women,
           count(*) filter (where (answers->>'s45')::int <> ${FEMALE})::int as others
    from survey_sessions where survey_run_id = ${run!.surveyRunId} and status = 'Complete'`;
  expect(g!.women, "the quota caps women at 50% of 100").toBe(50);
  expect(g!.others, "the other answers fill the remainder").toBe(50);
});

describe("feasibility per market, before Submit (IncidenceEstimate)", () => {
  // New Zealand's panel reach is 6,000 (docs/decisions.md "Feasibility"); women are 51% there
  // (Stats NZ 2023 census margin), so a women-only design can deliver floor(6000 x 0.51) = 3060.
  const estimate = async (id: number) => {
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/IncidenceEstimate`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.regions[0] as { incidence: number; panelReach: number; feasibleCompletes: number; feasible: boolean };
  };

  test("100,000 completes of women in New Zealand are not feasible; 3060 are, 3061 are not", async () => {
    const id = await draft(100000);
    expect((await targets(id, [{ o: FEMALE }])).status).toBe(200);
    const big = await estimate(id);
    expect(big.incidence).toBeCloseTo(0.51, 4);
    expect(big.panelReach).toBe(6000);
    expect(big.feasibleCompletes).toBe(3060);
    expect(big.feasible).toBe(false);
    await tdb.db`update projects_regions set sample_size = 3060 where project_id = ${id}`;
    expect((await estimate(id)).feasible, "at the edge").toBe(true);
    await tdb.db`update projects_regions set sample_size = 3061 where project_id = ${id}`;
    expect((await estimate(id)).feasible, "one above").toBe(false);
  });

  test("a group with a quota open to its other answers screens nobody out", async () => {
    const id = await draft(100);
    expect((await targets(id, [{ o: FEMALE, q: 50 }])).status).toBe(200);
    const r = await estimate(id);
    expect(r.incidence).toBe(1);
    expect(r.feasibleCompletes).toBe(6000);
  });
});

describe("a target sent without its quota keeps the stored one (the web editor's toggle sends none)", () => {
  const stored = (id: number) =>
    tdb.db<
      { o: number; q: string | null; only: boolean }[]
    >`select system_question_option_id as o, quota_percent::text as q, only_these as only from targets where project_id = ${id} order by system_question_option_id`;

  test("toggling another answer on keeps the quota and 'only these' set from the CLI; null clears them", async () => {
    const id = await draft();
    expect(
      (
        await targets(id, [
          { o: MALE, q: 50, only: true },
          { o: FEMALE, q: 50, only: true },
        ])
      ).status,
    ).toBe(200);
    // What the editor sends when a third answer is ticked: the options, no quota fields.
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
      targets: [{ systemQuestionOptionId: MALE }, { systemQuestionOptionId: FEMALE }],
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect((await stored(id)).map((t) => [t.o, Number(t.q), t.only])).toEqual([
      [MALE, 50, true],
      [FEMALE, 50, true],
    ]);
    // Explicit null and false clear them.
    const cleared = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, {
      targets: [
        { systemQuestionOptionId: MALE, quotaPercent: null, onlyThese: false },
        { systemQuestionOptionId: FEMALE, quotaPercent: null, onlyThese: false },
      ],
    });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    expect((await stored(id)).map((t) => [t.o, t.q, t.only])).toEqual([
      [MALE, null, false],
      [FEMALE, null, false],
    ]);
  });

  test("a newly added answer without a quota has none", async () => {
    const id = await draft();
    expect((await targets(id, [{ o: FEMALE, q: 40 }])).status).toBe(200);
    expect((await targets(id, [{ o: FEMALE }, { o: ANOTHER }])).status).toBe(200);
    expect((await stored(id)).map((t) => [t.o, t.q === null ? null : Number(t.q)])).toEqual([
      [FEMALE, 40],
      [ANOTHER, null],
    ]);
  });
});

describe("each quota cell's progress on the run's status answer (Projects DecipherCompletesCounts, issue 36)", () => {
  type Cell = { optionId: number | null; label: string; completes: number; target: number };
  const progress = async (id: number) => {
    const r = await call(app, "acmeUser", T, "GET", `/api/v1/Projects(${id})/DecipherCompletesCounts`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.value[0] as { complete: number; quotas: { key: string; question: string; cells: Cell[] }[] };
  };
  // Completes per gender answer, counted here from the sessions the simulated panel left.
  const byGender = async (runId: number) =>
    new Map(
      (
        await tdb.db<{ o: number; n: number }[]>`
          select (answers->>'s45')::int as o, count(*)::int as n from survey_sessions
          where survey_run_id = ${runId} and status = 'Complete' group by 1`
      ).map((r) => [r.o, r.n]),
    );
  const launched = async (id: number) => {
    expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
    const [run] = await fielding.createSurveys(tdb.db, id);
    await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
    return run!.surveyRunId;
  };

  test("50/50 Male and Female (only these, as the web editor sends them): each cell's completes and its cap of 10 of 20", async () => {
    const id = await draft(20);
    expect(
      (
        await targets(id, [
          { o: MALE, q: 50, only: true },
          { o: FEMALE, q: 50, only: true },
        ])
      ).status,
    ).toBe(200);
    const runId = await launched(id);
    const empty = await progress(id);
    // ceil(20 x 50 / 100) = 10 per cell; nothing answered yet.
    expect(empty.quotas).toEqual([
      {
        key: "s45",
        question: "Gender",
        cells: [
          { optionId: MALE, label: "Male", completes: 0, target: 10 },
          { optionId: FEMALE, label: "Female", completes: 0, target: 10 },
        ],
      },
    ]);
    await panel.simulate(tdb.db, runId, 7);
    const counted = await byGender(runId);
    const mid = await progress(id);
    expect(mid.complete).toBe(7);
    expect(mid.quotas[0]!.cells.map((c) => [c.optionId, c.completes, c.target])).toEqual([
      [MALE, counted.get(MALE) ?? 0, 10],
      [FEMALE, counted.get(FEMALE) ?? 0, 10],
    ]);
    expect((counted.get(MALE) ?? 0) + (counted.get(FEMALE) ?? 0), "only these answers complete").toBe(7);
    for (let i = 0; i < 10 && (await progress(id)).complete < 20; i++) await panel.simulate(tdb.db, runId, 20);
    const full = await progress(id);
    expect(
      full.quotas[0]!.cells.map((c) => c.completes),
      "both cells full at the run's close",
    ).toEqual([10, 10]);
  });

  test("Female at 50%, the rest open: the Female cell and the other answers' cell, counted from the sessions", async () => {
    const id = await draft(30);
    expect((await targets(id, [{ o: FEMALE, q: 50 }])).status).toBe(200);
    const runId = await launched(id);
    await panel.simulate(tdb.db, runId, 12);
    const counted = await byGender(runId);
    const others = [...counted].filter(([o]) => o !== FEMALE).reduce((s, [, n]) => s + n, 0);
    // Female: ceil(30 x 50 / 100) = 15; the others share 30 - 15 = 15.
    expect((await progress(id)).quotas).toEqual([
      {
        key: "s45",
        question: "Gender",
        cells: [
          { optionId: FEMALE, label: "Female", completes: counted.get(FEMALE) ?? 0, target: 15 },
          { optionId: null, label: "Other answers", completes: others, target: 15 },
        ],
      },
    ]);
  });

  test("a run without quotas lists none", async () => {
    const id = await draft(10);
    expect((await targets(id, [{ o: FEMALE }, { o: MALE }])).status).toBe(200);
    await launched(id);
    expect((await progress(id)).quotas).toEqual([]);
  });
});

describe("per-market quota shares (the web editor's cells: only these, adding up to 100%)", () => {
  test("New Zealand 50/50 and Australia 50/40 is refused naming Australia, with the error shape, and the stored targets stay", async () => {
    const id = await draft();
    expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: [], regionIds: [1, 2] })).status).toBe(200);
    const cell = (o: number, regionId: number, quotaPercent: number) => ({ systemQuestionOptionId: o, regionId, quotaPercent, onlyThese: true });
    const good = [cell(MALE, 1, 50), cell(FEMALE, 1, 50), cell(MALE, 2, 50), cell(FEMALE, 2, 50)];
    expect((await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: good })).status).toBe(200);
    const bad = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: [cell(MALE, 1, 50), cell(FEMALE, 1, 50), cell(MALE, 2, 50), cell(FEMALE, 2, 40)] });
    expect(bad.status).toBe(400);
    expect(bad.body.typename).toBe("ValidationError");
    expect(bad.body.message).toBe('The quotas of the group "Gender" add up to 90% in Australia and the group takes only these answers: they must add up to 100%, or the run can never fill');
    expect(bad.body.errors).toEqual([{ path: "targets.s45", message: bad.body.message }]);
    const stored = await tdb.db<{ o: number; r: number; q: string }[]>`
      select system_question_option_id as o, region_id as r, quota_percent::text as q from targets where project_id = ${id} order by region_id, system_question_option_id`;
    expect(
      stored.map((t) => [t.o, t.r, Number(t.q)]),
      "the 50/50 of both markets kept",
    ).toEqual([
      [MALE, 1, 50],
      [FEMALE, 1, 50],
      [MALE, 2, 50],
      [FEMALE, 2, 50],
    ]);
  });
});

describe("feasibility per quota cell (IncidenceEstimate's explanation, issue 36)", () => {
  // New Zealand: the panel reaches 6,000 (docs/decisions.md "Feasibility"); the census margins are
  // Male 0.49 and Female 0.51 (reference data, Stats NZ 2023), so a Male/Female design qualifies
  // 0.49 + 0.51 = 100% and the market can deliver 6,000. Its cells: Male floor(6000 x 0.49) = 2,940,
  // Female floor(6000 x 0.51) = 3,060. At 50/50 a cell needs ceil(n / 2): Male fits up to n = 5,880.
  const cellsAt = async (n: number) => {
    const id = await draft(n);
    expect(
      (
        await targets(id, [
          { o: MALE, q: 50, only: true },
          { o: FEMALE, q: 50, only: true },
        ])
      ).status,
    ).toBe(200);
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/IncidenceEstimate`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const g = r.body.explanation.groups[0] as { text: string; answers: { optionId: number; needed: number; deliverable: number; feasible: boolean }[] };
    return { market: r.body.regions[0].feasible as boolean, text: g.text, cells: g.answers.map((a) => [a.optionId, a.needed, a.deliverable, a.feasible]) };
  };

  test("5,880 completes at 50/50: both cells fit (Male at its edge)", async () => {
    const at = await cellsAt(5880);
    expect(at.cells).toEqual([
      [MALE, 2940, 2940, true],
      [FEMALE, 2940, 3060, true],
    ]);
    expect(at.text).toBe("Gender in New Zealand: Male 50%, Female 50%, 100% in all.");
  });

  test("5,881 completes: the market fits but the Male cell does not, and the group's words say so", async () => {
    const at = await cellsAt(5881);
    expect(at.market, "6,000 can be delivered in the market").toBe(true);
    expect(at.cells).toEqual([
      [MALE, 2941, 2940, false],
      [FEMALE, 2941, 3060, true],
    ]);
    expect(at.text).toBe("Gender in New Zealand: Male 50%, Female 50%, 100% in all. Not feasible in every cell: Male needs 2,941 completes and about 2,940 can be delivered.");
  });

  test("a group open to its other answers screens nobody, so the estimate has no share for its cells", async () => {
    const id = await draft(100);
    expect((await targets(id, [{ o: FEMALE, q: 50 }])).status).toBe(200);
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/IncidenceEstimate`);
    expect(r.body.explanation.groups[0].answers).toEqual([{ optionId: FEMALE, label: "Female", quotaPercent: 50, needed: 50, deliverable: null, feasible: null }]);
  });
});
