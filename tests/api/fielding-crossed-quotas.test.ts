// Crossed (interlocked) quota cells (issue 36, record 0128): two demographic questions of a market
// crossed, gender x age band, each pair of answers a cell with its share of the market's completes.
// Set through ChangeTargets (crossedQuotas), refused in the error shape when the cells name unknown
// answers, do not add up to 100% or lie outside the targets; estimated per cell (IncidenceEstimate);
// refused at Submit with 409 naming a cell that cannot be met unless the shortfall is accepted; and
// enforced by the engine (a respondent counts in their pair's cell; a full cell is over quota) with
// each cell's progress on the run's status answer.
//
// Figures worked by hand from the reference data: New Zealand's panel reaches 6,000 people in a
// field period (docs/decisions.md "Feasibility"); Stats NZ 2023 census margins: Male 0.49, Female
// 0.51, 18-24 0.117, 25-34 0.189. Crossed, each cell's share is the product of its margins
// (questions independent, as the estimate has them): Male x 18-24 = 0.49 x 0.117 = 0.05733,
// Male x 25-34 = 0.49 x 0.189 = 0.09261, Female x 18-24 = 0.51 x 0.117 = 0.05967, Female x 25-34 =
// 0.51 x 0.189 = 0.09639; the four add up to 0.306, the incidence, so the market can deliver
// floor(6,000 x 0.306) = 1,836 and each cell 1,836 x its share / 0.306 = 6,000 x its share:
// 343.98 -> 343, 555.66 -> 555, 358.02 -> 358, 578.34 -> 578. At 25% per cell a cell needs
// ceil(n / 4): Male x 18-24 fits up to n = 1,372 (343) and not at 1,373 (344), while the market
// (1,836) fits both.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import * as q from "../../api/src/domains/fielding/fielding.sql.ts";
import * as panel from "../../api/src/domains/fielding/simulated-panel.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const MALE = 4500001;
const FEMALE = 4500002;
const AGE_18 = 5100001;
const AGE_25 = 5100002;
const AGE_35 = 5100003;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 10000000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

async function draft(sampleSize = 100): Promise<number> {
  const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: `Crossed ${Math.random().toString(36).slice(2, 7)}`, projectTypeId: 1, frameworkId: 1000, regionIds: [1] });
  expect(created.status).toBe(201);
  const id = created.body.id as number;
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Oat milk barista blend" })).status).toBe(201);
  await tdb.db`update projects_regions set sample_size = ${sampleSize} where project_id = ${id}`;
  return id;
}

type Cell = { regionId: number; systemQuestionOptionIds: [number, number]; quotaPercent: number };
const cell = (a: number, b: number, quotaPercent: number, regionId = 1): Cell => ({ regionId, systemQuestionOptionIds: [a, b], quotaPercent });
/** Gender x age band at 25% each: Male and Female by 18-24 and 25-34. */
const QUARTERS = [cell(MALE, AGE_18, 25), cell(MALE, AGE_25, 25), cell(FEMALE, AGE_18, 25), cell(FEMALE, AGE_25, 25)];
const change = (id: number, body: { targets?: unknown[]; crossedQuotas?: unknown[] }) => call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/ChangeTargets`, { targets: [], ...body });
const stored = (id: number) =>
  tdb.db<{ r: number; a: number; b: number; q: string }[]>`
    select region_id as r, first_option_id as a, second_option_id as b, quota_percent::text as q from crossed_quota_cells where project_id = ${id} order by first_option_id, second_option_id`;

describe("crossed cells set through ChangeTargets", () => {
  test("four cells at 25% are stored and read back, each pair in the question order (gender before age), whichever order they were sent in", async () => {
    const id = await draft();
    const r = await change(id, { crossedQuotas: [cell(AGE_18, MALE, 25), ...QUARTERS.slice(1)] });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const read = await call(
      app,
      "acmeUser",
      T,
      "GET",
      `/api/v1/CrossedQuotaCells?$filter=projectId eq ${id}&$orderby=firstOptionId,secondOptionId&$select=regionId,firstOptionId,secondOptionId,quotaPercent`,
    );
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.value).toEqual([
      { regionId: 1, firstOptionId: MALE, secondOptionId: AGE_18, quotaPercent: 25 },
      { regionId: 1, firstOptionId: MALE, secondOptionId: AGE_25, quotaPercent: 25 },
      { regionId: 1, firstOptionId: FEMALE, secondOptionId: AGE_18, quotaPercent: 25 },
      { regionId: 1, firstOptionId: FEMALE, secondOptionId: AGE_25, quotaPercent: 25 },
    ]);
    // Omitted, the cells stay; an empty list removes them.
    expect((await change(id, { targets: [{ systemQuestionOptionId: MALE }, { systemQuestionOptionId: FEMALE }] })).status).toBe(200);
    expect((await stored(id)).length, "kept when omitted").toBe(4);
    expect((await change(id, { crossedQuotas: [] })).status).toBe(200);
    expect((await stored(id)).length, "removed by an empty list").toBe(0);
  });

  test("the shares of a crossing: 100% accepted, 99.99% and 100.01% refused in the error shape, and nothing written", async () => {
    const id = await draft();
    expect((await change(id, { crossedQuotas: QUARTERS })).status).toBe(200);
    const low = await change(id, { crossedQuotas: [...QUARTERS.slice(0, 3), cell(FEMALE, AGE_25, 24.99)] });
    expect(low.status).toBe(400);
    expect(low.body.typename).toBe("ValidationError");
    expect(low.body.message).toBe("The crossed cells of Gender × Age group add up to 99.99% in New Zealand: they must add up to 100%, or the run can never fill");
    expect(low.body.errors).toEqual([{ path: "crossedQuotas.s45&s51", message: low.body.message }]);
    const high = await change(id, { crossedQuotas: [...QUARTERS.slice(0, 3), cell(FEMALE, AGE_25, 25.01)] });
    expect(high.status).toBe(400);
    expect(high.body.message).toBe("The crossed cells of Gender × Age group add up to 100.01% in New Zealand: they must add up to 100%, or the run can never fill");
    expect(
      (await stored(id)).map((c) => Number(c.q)),
      "the 25% cells kept",
    ).toEqual([25, 25, 25, 25]);
  });

  test("an unknown answer, two answers of one question, the same cell twice and a market the project does not field in are each named at their field", async () => {
    const id = await draft();
    const r = await change(id, {
      crossedQuotas: [cell(MALE, 99999999, 50), cell(MALE, FEMALE, 50), cell(FEMALE, AGE_18, 50), cell(AGE_18, FEMALE, 50), cell(MALE, AGE_18, 100, 2)],
    });
    expect(r.status).toBe(400);
    expect(r.body.typename).toBe("ValidationError");
    expect(r.body.errors).toEqual([
      { path: "crossedQuotas.0.systemQuestionOptionIds.1", message: "No system question option 99999999" },
      { path: "crossedQuotas.1.systemQuestionOptionIds", message: "A crossed cell pairs answers of two different questions: Male and Female both answer Gender" },
      { path: "crossedQuotas.3", message: "The same crossed cell twice: Female × 18-24 in New Zealand" },
      { path: "crossedQuotas.4.regionId", message: "Region 2 is not one of the project's regions" },
    ]);
    expect((await stored(id)).length).toBe(0);
  });

  test("a cell no target admits is refused, naming the answers the targets take", async () => {
    const id = await draft();
    const r = await change(id, { targets: [{ systemQuestionOptionId: AGE_18 }, { systemQuestionOptionId: AGE_35 }], crossedQuotas: QUARTERS });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("The crossed cell Male × 25-34 in New Zealand is one no target admits: the targets of Age group take only 18-24 and 35-44 there");
    expect(r.body.errors[0].path).toBe("crossedQuotas.s45&s51");
    // Admitted by the targets, the same cells are accepted.
    expect((await change(id, { targets: [{ systemQuestionOptionId: AGE_18 }, { systemQuestionOptionId: AGE_25 }], crossedQuotas: QUARTERS })).status).toBe(200);
  });

  test("a crossed question takes no quota of its own in the same market", async () => {
    const id = await draft();
    const r = await change(id, {
      targets: [
        { systemQuestionOptionId: MALE, quotaPercent: 50, onlyThese: true },
        { systemQuestionOptionId: FEMALE, quotaPercent: 50, onlyThese: true },
      ],
      crossedQuotas: QUARTERS,
    });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("Gender has quotas of its own in New Zealand and is crossed with Age group there: set its shares in the crossed cells only");
  });
});

describe("feasibility per crossed cell (IncidenceEstimate), and Submit", () => {
  type CellOut = { optionIds: number[]; label: string; needed: number; deliverable: number; feasible: boolean };
  const estimateAt = async (n: number) => {
    const id = await draft(n);
    expect((await change(id, { crossedQuotas: QUARTERS })).status).toBe(200);
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/IncidenceEstimate`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return { id, body: r.body };
  };

  test("1,372 completes: the crossing's factor is 0.306 of the market, every cell fits (Male × 18-24 at its edge)", async () => {
    const { body } = await estimateAt(1372);
    const region = body.regions[0];
    expect(region.incidence).toBeCloseTo(0.306, 4);
    expect(region.feasibleCompletes).toBe(1836);
    const factor = region.factors.find((f: { kind: string }) => f.kind === "crossed");
    expect(factor.systemQuestionIds).toEqual([45, 51]);
    expect(factor.share).toBeCloseTo(0.306, 6);
    const x = body.explanation.crossed[0] as { key: string; text: string; cells: CellOut[] };
    expect(x.key).toBe("s45&s51");
    expect(x.cells.map((c) => [c.label, c.needed, c.deliverable, c.feasible])).toEqual([
      ["Male × 18-24", 343, 343, true],
      ["Male × 25-34", 343, 555, true],
      ["Female × 18-24", 343, 358, true],
      ["Female × 25-34", 343, 578, true],
    ]);
    expect(x.text).toBe("Gender × Age group in New Zealand: Male × 18-24 25%, Male × 25-34 25%, Female × 18-24 25%, Female × 25-34 25%, 100% in all.");
    expect(body.explanation.lines).toContain(x.text);
  });

  test("1,373 completes: the market fits, the Male × 18-24 cell does not; Submit answers 409 naming it and moves nothing, ReadinessCheck lists it", async () => {
    const { id, body } = await estimateAt(1373);
    expect(body.regions[0].feasible, "1,836 can be delivered in the market").toBe(true);
    const x = body.explanation.crossed[0] as { text: string; cells: CellOut[] };
    expect(x.cells[0]).toMatchObject({ label: "Male × 18-24", needed: 344, deliverable: 343, feasible: false });
    expect(x.text).toEndWith("Not feasible in every cell: Male × 18-24 needs 344 completes and about 343 can be delivered.");
    const [{ before }] = await tdb.db<{ before: number }[]>`select count(*)::int as before from credit_logs where client_id = ${T}`;
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.message).toStartWith("Not feasible: the quota cell Male × 18-24 needs 344 completes and about 343 can be delivered in New Zealand. Nothing was charged.");
    expect(r.body.errors).toEqual([{ path: "feasibility", message: "New Zealand: the quota cell Male × 18-24 needs 344 completes and about 343 can be delivered." }]);
    const [{ after }] = await tdb.db<{ after: number }[]>`select count(*)::int as after from credit_logs where client_id = ${T}`;
    expect(after, "nothing charged").toBe(before);
    const ready = await call(app, "acmeUser", T, "GET", `/api/v1/Projects(${id})/ReadinessCheck`);
    expect(ready.body.ready).toBe(true);
    expect(ready.body.problems).toEqual([
      { code: "feasibility", message: "New Zealand: the quota cell Male × 18-24 needs 344 completes and about 343 can be delivered.", tab: "markets", blocking: false },
    ]);
    expect(ready.body.shortfall.cells).toEqual([
      {
        regionId: 1,
        regionName: "New Zealand",
        label: "Male × 18-24",
        needed: 344,
        deliverable: 343,
        text: "New Zealand: the quota cell Male × 18-24 needs 344 completes and about 343 can be delivered.",
      },
    ]);
    const accepted = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, { acceptShortfall: true });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    expect(accepted.body.shortfall.message).toStartWith("The quota cell Male × 18-24 needs 344 completes and about 343 can be delivered in New Zealand. Each run fields for");
  });

  test("1,372 completes are submitted with no shortfall", async () => {
    const { id } = await estimateAt(1372);
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shortfall).toBeUndefined();
  });

  test("a one-question cell that cannot be met is refused at Submit too (Male at 50% of 5,881: 2,941 needed, 2,940 deliverable)", async () => {
    // fielding-quotas.test.ts: Male 0.49 of 6,000 = 2,940; ceil(5,881 / 2) = 2,941.
    const id = await draft(5881);
    const body = { targets: [MALE, FEMALE].map((o) => ({ systemQuestionOptionId: o, quotaPercent: 50, onlyThese: true })) };
    expect((await change(id, body)).status).toBe(200);
    const r = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.message).toStartWith("Not feasible: the quota cell Male needs 2,941 completes and about 2,940 can be delivered in New Zealand.");
  });
});

// FeasibilityEstimate (the CLI's validate and dry run) explains crossed cells of settings not saved
// anywhere, by the same computation. Worked by hand for Australia (region 2): the panel reaches
// 25,000 people there in a field period (docs/decisions.md "Feasibility"); ABS 2021 census margins:
// Male 0.492, Female 0.508, 18-24 0.113, 25-34 0.183. Cells (product of margins): Male x 18-24 =
// 0.055596, Male x 25-34 = 0.090036, Female x 18-24 = 0.057404, Female x 25-34 = 0.092964; they add
// up to 0.296 = (0.113 + 0.183) x (0.492 + 0.508), the incidence, so the market can deliver
// floor(25,000 x 0.296) = 7,400 and each cell 7,400 x its share / 0.296 = 25,000 x its share:
// 1,389.9 -> 1,389, 2,250.9 -> 2,250, 1,435.1 -> 1,435, 2,324.1 -> 2,324. At 20% / 30% / 20% / 30%,
// Male x 18-24 needs ceil(0.2 n): 1,389 at n = 6,945 (fits), 1,390 at n = 6,946 (one short), while a
// 30% cell needs ceil(0.3 x 6,946) = 2,084 <= 2,250 and the market (7,400) fits both.
describe("FeasibilityEstimate: crossed cells of settings not saved anywhere (the CLI's validate and dry run)", () => {
  const AU = 2;
  const SHARES = [cell(MALE, AGE_18, 20, AU), cell(MALE, AGE_25, 30, AU), cell(FEMALE, AGE_18, 20, AU), cell(FEMALE, AGE_25, 30, AU)];
  type CellOut = { optionIds: number[]; label: string; needed: number; deliverable: number; feasible: boolean };
  type Crossed = { key: string; ok: boolean; text: string; cells: CellOut[] };
  const feasibility = (sampleSize: number, crossedQuotas: unknown[], targets: unknown[] = []) =>
    call(app, "acmeUser", T, "POST", "/api/v1/Projects/FeasibilityEstimate", { regionIds: [AU], sampleSize, targets, crossedQuotas });
  const rows = (x: Crossed) => x.cells.map((c) => [c.label, c.needed, c.deliverable, c.feasible]);

  test("6,945 completes in Australia: the crossing is the market's one factor (0.296), every cell fits, Male × 18-24 at its edge", async () => {
    const r = await feasibility(6945, SHARES);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    const region = r.body.regions[0];
    expect(region.incidence).toBeCloseTo(0.296, 4);
    expect(region.feasibleCompletes).toBe(7400);
    expect(region.factors.map((f: { kind: string }) => f.kind)).toEqual(["crossed"]);
    const x = r.body.explanation.crossed[0] as Crossed;
    expect(x.key).toBe("s45&s51");
    expect(x.ok).toBe(true);
    expect(rows(x)).toEqual([
      ["Male × 18-24", 1389, 1389, true],
      ["Male × 25-34", 2084, 2250, true],
      ["Female × 18-24", 1389, 1435, true],
      ["Female × 25-34", 2084, 2324, true],
    ]);
    expect(x.text).toBe("Gender × Age group in Australia: Male × 18-24 20%, Male × 25-34 30%, Female × 18-24 20%, Female × 25-34 30%, 100% in all.");
    expect(r.body.explanation.lines).toContain(x.text);
    expect(r.body.explanation.quotasOk).toBe(true);
    expect(r.body.explanation.feasible, "every cell fits: the design as a whole is feasible").toBe(true);
  });

  test("6,946 completes: Male × 18-24 needs 1,390 and about 1,389 can be delivered, the same figures and cells as IncidenceEstimate and Submit's 409 for the saved project", async () => {
    const r = await feasibility(6946, SHARES);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.regions[0].feasible, "7,400 can be delivered in the market").toBe(true);
    const x = r.body.explanation.crossed[0] as Crossed;
    expect(rows(x)).toEqual([
      ["Male × 18-24", 1390, 1389, false],
      ["Male × 25-34", 2084, 2250, true],
      ["Female × 18-24", 1390, 1435, true],
      ["Female × 25-34", 2084, 2324, true],
    ]);
    expect(x.text).toEndWith("Not feasible in every cell: Male × 18-24 needs 1,390 completes and about 1,389 can be delivered.");
    // One cell short while the market fits: the design is not feasible as a whole (Submit refuses
    // it below), though every quota adds up.
    expect(r.body.explanation.quotasOk).toBe(true);
    expect(r.body.explanation.feasible, "a cell one complete short").toBe(false);
    // The same settings saved on a draft: IncidenceEstimate explains them alike, Submit refuses the cell.
    const created = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: "Crossed AU", projectTypeId: 1, frameworkId: 1000, regionIds: [AU], sampleSize: 6946 });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.id as number;
    expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: id, conceptText: "Oat milk barista blend" })).status).toBe(201);
    expect((await change(id, { crossedQuotas: SHARES })).status).toBe(200);
    const saved = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/IncidenceEstimate`);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
    expect(saved.body.explanation.crossed).toEqual(r.body.explanation.crossed);
    expect(saved.body.regions).toEqual(r.body.regions);
    const submit = await call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, {});
    expect(submit.status, JSON.stringify(submit.body)).toBe(409);
    expect(submit.body.message).toStartWith("Not feasible: the quota cell Male × 18-24 needs 1,390 completes and about 1,389 can be delivered in Australia.");
  });

  test("cells the settings cannot take are refused at their field (400, the error shape); shares no run can fill are explained, not refused", async () => {
    const bad = await feasibility(100, [cell(MALE, 99999999, 50, AU), cell(MALE, AGE_18, 50, 1)]);
    expect(bad.status).toBe(400);
    expect(bad.body.typename).toBe("ValidationError");
    expect(bad.body.errors).toEqual([
      { path: "crossedQuotas.0.systemQuestionOptionIds.1", message: "No system question option 99999999" },
      { path: "crossedQuotas.1.regionId", message: "Region 1 is not one of the settings' regions" },
    ]);
    const short = await feasibility(100, [...SHARES.slice(0, 3), cell(FEMALE, AGE_25, 29.99, AU)]);
    expect(short.status, JSON.stringify(short.body)).toBe(200);
    const x = short.body.explanation.crossed[0] as Crossed;
    expect(x.ok).toBe(false);
    expect(x.text).toBe("The crossed cells of Gender × Age group add up to 99.99% in Australia: they must add up to 100%, or the run can never fill.");
    expect(short.body.explanation.quotasOk).toBe(false);
    const own = await feasibility(100, SHARES, [
      { systemQuestionOptionId: MALE, quotaPercent: 50, onlyThese: true },
      { systemQuestionOptionId: FEMALE, quotaPercent: 50, onlyThese: true },
    ]);
    expect(own.status).toBe(200);
    expect((own.body.explanation.crossed[0] as Crossed).text).toBe("Gender has quotas of its own in Australia and is crossed with Age group there: set its shares in the crossed cells only.");
  });
});

describe("the engine: a respondent counts in their pair's cell, a full cell is over quota", () => {
  test("20 completes in four cells at 25%: 5 each, nobody outside them, over-quota once a cell is full, and each cell's progress on the status answer", async () => {
    const id = await draft(20);
    expect((await change(id, { crossedQuotas: QUARTERS })).status).toBe(200);
    expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`)).body.statusCode).toBe(300);
    const [run] = await fielding.createSurveys(tdb.db, id);
    await fielding.launchRun(tdb.db, run!.surveyRunId, "http://ideally.test");
    const runId = run!.surveyRunId;
    await panel.simulate(tdb.db, runId, 6);
    const progress = async () => {
      const r = await call(app, "acmeUser", T, "GET", `/api/v1/Projects(${id})/DecipherCompletesCounts`);
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      return r.body.value[0] as {
        complete: number;
        quotas: { key: string; question: string; cells: { optionId: number | null; optionIds?: number[]; label: string; completes: number; target: number }[] }[];
      };
    };
    const counted = async () =>
      tdb.db<{ g: number; a: number; n: number }[]>`
        select (answers->>'s45')::int as g, (answers->>'s51')::int as a, count(*)::int as n from survey_sessions
        where survey_run_id = ${runId} and status = 'Complete' group by 1, 2 order by 1, 2`;
    const cellCount = (rows: { g: number; a: number; n: number }[], g: number, a: number) => rows.find((r) => r.g === g && r.a === a)?.n ?? 0;
    // Midway: the status answer's counts are the sessions' (ceil(20 x 25 / 100) = 5 per cell).
    const mid = await progress();
    const rows = await counted();
    expect(mid.quotas).toEqual([
      {
        key: "s45&s51",
        question: "Gender × Age group",
        cells: [
          { optionId: null, optionIds: [MALE, AGE_18], label: "Male × 18-24", completes: cellCount(rows, MALE, AGE_18), target: 5 },
          { optionId: null, optionIds: [MALE, AGE_25], label: "Male × 25-34", completes: cellCount(rows, MALE, AGE_25), target: 5 },
          { optionId: null, optionIds: [FEMALE, AGE_18], label: "Female × 18-24", completes: cellCount(rows, FEMALE, AGE_18), target: 5 },
          { optionId: null, optionIds: [FEMALE, AGE_25], label: "Female × 25-34", completes: cellCount(rows, FEMALE, AGE_25), target: 5 },
        ],
      },
    ]);
    for (let i = 0; i < 20 && (await progress()).complete < 20; i++) await panel.simulate(tdb.db, runId, 20);
    const full = await counted();
    expect(
      full.map((r) => [r.g, r.a, r.n]),
      "every complete in a cell, each cell at its cap",
    ).toEqual([
      [MALE, AGE_18, 5],
      [MALE, AGE_25, 5],
      [FEMALE, AGE_18, 5],
      [FEMALE, AGE_25, 5],
    ]);
    const [ends] = await tdb.db<{ over: number; outside: number; overInCell: number }[]>`
      select count(*) filter (where status = 'OverQuota')::int as over,
             count(*) filter (where status = 'ScreenedOut' and end_reason = 'crossed s45&s51')::int as outside,
             count(*) filter (where status = 'OverQuota' and (answers->>'s45')::int in (${MALE}, ${FEMALE}) and (answers->>'s51')::int in (${AGE_18}, ${AGE_25}))::int as "overInCell"
      from survey_sessions where survey_run_id = ${runId}`;
    expect(ends!.over, "people of a full cell were sent back over quota").toBeGreaterThan(0);
    expect(ends!.overInCell, "only people of a cell are over quota").toBe(ends!.over);
    expect(ends!.outside, "people of no cell (other ages) screened out").toBeGreaterThan(0);
    // What a page's verdict reads (quotaCells): the keys and crossings asked for and nothing else,
    // counted from the stored completes (20: 10 of each gender, 5 in each cell); s51 not asked.
    expect(await q.quotaCells(tdb.db, runId, ["s45"], [["s45", "s51"]])).toEqual({
      completes: 20,
      byAnswer: {
        "s45:4500001": 10,
        "s45:4500002": 10,
        "s45:4500001&s51:5100001": 5,
        "s45:4500001&s51:5100002": 5,
        "s45:4500002&s51:5100001": 5,
        "s45:4500002&s51:5100002": 5,
      },
    });
    expect(await q.quotaCells(tdb.db, runId, [], [["s51", "s45"]]), "a pair in the order the crossing gives").toEqual({
      completes: 20,
      byAnswer: { "s51:5100001&s45:4500001": 5, "s51:5100002&s45:4500001": 5, "s51:5100001&s45:4500002": 5, "s51:5100002&s45:4500002": 5 },
    });
  });
});
