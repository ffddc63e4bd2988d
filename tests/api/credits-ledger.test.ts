// The ledger's writing paths (api/src/domains/credits/ledger.ts) called directly in a transaction on
// a copy of the test database: no server, no HTTP, no fielded project. Submit's charge
// (chargeFirstWave), the refund of unrun waves (Unsubmit, Decline, StopProjectScheduling),
// ResyncScheduledProject, settling a run's charges and the shortfall refund, each checked row by
// row against docs/credits.md ("Charging, settling, refunding", the worked examples) with the
// amounts worked by hand from its formula. Narrow enough to run per mutant
// (`bun run test:mutation ledger`); credits.test.ts covers the same paths through the API.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import type { Tx } from "../../api/src/db/client.ts";
import * as ledger from "../../api/src/domains/credits/ledger.ts";
import { ApiError } from "../../api/src/errors.ts";

let tdb: TestDb;
beforeAll(async () => {
  tdb = await createTestDb();
});
afterAll(async () => {
  await tdb.drop();
});

const ADMIN = 9003; // admin@acme.test (fixtures)
const STAFF = 9001;
const NZ = 1;
const AU = 2; // listed before New Zealand (regions.sort_order)

/** A team of its own (so no other test's rows touch its balance), with `credits` bought. */
async function newClient(credits: number, overdraftLimit = 0): Promise<number> {
  const [c] = await tdb.db<{ id: number }[]>`
    insert into clients (name, tier, parent_id, overdraft_limit) values (${`Ledger test ${Math.random()}`}, 'Team', 1002, ${overdraftLimit}) returning id`;
  if (credits) await tdb.db`insert into credit_logs (client_id, type, credit_amount, description, created_by_user_id) values (${c!.id}, 1, ${credits}, 'Bought', ${STAFF})`;
  return c!.id;
}

interface Spec {
  regions: [number, number, boolean?][];
  testOptions?: number;
  priceSensitivity?: boolean;
  customQuestions?: number;
  schedule?: { start: string; weeks: number; waves: number };
}

let seq = 0;
async function newProject(clientId: number, s: Spec): Promise<{ p: ledger.ProjectForSchedule; name: string }> {
  const sql = tdb.db;
  const name = `Ledger project ${++seq}`;
  const [p] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id,
                          schedule_start_date, schedule_frequency_weeks, schedule_waves_required, waves_required)
    values (${clientId}, ${name}, 1, 0, 1000, ${ADMIN}, ${ADMIN}, ${s.schedule?.start ?? null}::date,
            ${s.schedule?.weeks ?? null}, ${s.schedule?.waves ?? null}, ${s.schedule !== undefined})
    returning id`;
  const id = p!.id;
  for (const [regionId, n, customer] of s.regions) {
    await sql`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (${clientId}, ${id}, ${regionId}, ${n}, ${customer ?? false})`;
  }
  for (let i = 0; i < (s.testOptions ?? 1); i++) {
    await sql`insert into test_options (client_id, project_id, concept_text, sort_order) values (${clientId}, ${id}, ${`Option ${i}`}, ${i})`;
  }
  if (s.priceSensitivity) await sql`insert into project_price_sensitivities (client_id, project_id, currency_code) values (${clientId}, ${id}, 'NZD')`;
  for (let i = 0; i < (s.customQuestions ?? 0); i++) {
    const [q] = await sql<{ id: number }[]>`insert into questions (client_id, project_id, question_text, question_type_id) values (${clientId}, ${id}, ${`Custom ${i}`}, 1) returning id`;
    await sql`insert into project_questions (client_id, project_id, question_id, question_position_id, sort_order) values (${clientId}, ${id}, ${q!.id}, 6, ${i})`;
  }
  return {
    p: {
      id,
      clientId,
      scheduleStartDate: s.schedule?.start ?? null,
      scheduleFrequencyWeeks: s.schedule?.weeks ?? null,
      scheduleWavesRequired: s.schedule?.waves ?? null,
      wavesRequired: s.schedule !== undefined,
    },
    name,
  };
}

const inTx = <T>(f: (tx: Tx) => Promise<T>): Promise<T> => tdb.db.begin((tx) => f(tx)) as Promise<T>;

async function refusal(f: () => Promise<unknown>): Promise<ApiError> {
  try {
    await f();
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error("expected a refusal");
}

const balance = async (clientId: number) => (await tdb.db<{ b: number }[]>`select coalesce(sum(credit_amount), 0)::float8 as b from credit_logs where client_id = ${clientId}`)[0]!.b;

interface LogRow {
  id: number;
  clientId: number;
  type: number;
  amount: number;
  surveyRunId: number | null;
  description: string;
  by: number;
}
interface ScheduleRowRead {
  id: number;
  clientId: number;
  regionId: number;
  date: string;
  type: number;
  customer: boolean;
  logId: number | null;
  wave: number;
  sampleSize: number;
  runId: number | null;
}

const logsOf = async (projectId: number): Promise<LogRow[]> => [
  ...(await tdb.db<LogRow[]>`
  select id, client_id as "clientId", type, credit_amount::float8 as amount, survey_run_id as "surveyRunId", description, created_by_user_id as by
  from credit_logs where project_id = ${projectId} order by id`),
];

const schedulesOf = async (projectId: number): Promise<ScheduleRowRead[]> => [
  ...(await tdb.db<ScheduleRowRead[]>`
  select id, client_id as "clientId", region_id as "regionId", schedule_date::text as date, schedule_type_id as type, is_customer_panel as customer,
         credit_log_id as "logId", wave_number as wave, sample_size as "sampleSize", survey_run_id as "runId"
  from project_schedules where project_id = ${projectId} order by wave_number, id`),
];

// The worked example of docs/credits.md: Australia 100 on a customer panel (0.25 x 100 x 1.5 x 1.3
// = 48.75: 49) and New Zealand 250 on the Ideally panel (1.00 x 275 x 1.5 x 1.3 = 536.25: 537), 586.
const WORKED: Spec = {
  regions: [
    [NZ, 250],
    [AU, 100, true],
  ],
  testOptions: 3,
  priceSensitivity: true,
  customQuestions: 7,
  schedule: { start: "2030-01-07", weeks: 2, waves: 2 },
};

describe("lockLedgerOrThrow and runCost", () => {
  test("the client's balance and limit; 404 for a client that does not exist", async () => {
    const c = await newClient(250, 40);
    expect(await inTx((tx) => ledger.lockLedgerOrThrow(tx, c))).toEqual({ clientId: c, balance: 250, overdraftLimit: 40 });
    const e = await refusal(() => inTx((tx) => ledger.lockLedgerOrThrow(tx, 987654)));
    expect([e.status, e.message]).toEqual([404, "Clients(987654) not found"]);
  });

  test("runCost prices the project's regions, options and add-ons by the formula (the worked example: 586)", async () => {
    const c = await newClient(0);
    const { p } = await newProject(c, WORKED);
    const cost = await inTx((tx) => ledger.runCost(tx, p.id));
    expect(cost.regions.map((r) => [r.regionId, r.cost])).toEqual([
      [AU, 49],
      [NZ, 537],
    ]);
    expect(cost.total).toBe(586);
  });
});

describe("chargeFirstWave (Submit): every wave scheduled, the first charged per region", () => {
  test("one schedule per region and wave; one PendingSurveyRun (30) log per region of wave 1, together the run's cost", async () => {
    const c = await newClient(2000);
    const { p, name } = await newProject(c, WORKED);
    const r = await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const logs = await logsOf(p.id);
    expect(logs.map((l) => [l.clientId, l.type, l.amount, l.surveyRunId, l.description, l.by])).toEqual([
      [c, 30, -49, null, `${name}: wave 1, Australia, 100 completes`, ADMIN],
      [c, 30, -537, null, `${name}: wave 1, New Zealand, 250 completes`, ADMIN],
    ]);
    const sch = await schedulesOf(p.id);
    expect(sch.map((s) => [s.clientId, s.regionId, s.date, s.type, s.customer, s.logId, s.wave, s.sampleSize, s.runId])).toEqual([
      [c, AU, "2030-01-07", 1, true, logs[0]!.id, 1, 100, null],
      [c, NZ, "2030-01-07", 1, false, logs[1]!.id, 1, 250, null],
      [c, AU, "2030-01-21", 10, true, null, 2, 100, null],
      [c, NZ, "2030-01-21", 10, false, null, 2, 250, null],
    ]);
    expect(r).toEqual({ total: 586, creditLogIds: logs.map((l) => l.id), scheduleIds: sch.map((s) => s.id), balanceAfter: 1414 });
    expect(await balance(c)).toBe(1414);

    // Submitted again (after an Unsubmit that kept the waves, say): the waves go on from the last one.
    const again = await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const later = (await schedulesOf(p.id)).filter((s) => s.wave > 2);
    expect(later.map((s) => [s.wave, s.date, s.type, s.logId === null])).toEqual([
      [3, "2030-02-04", 1, false],
      [3, "2030-02-04", 1, false],
      [4, "2030-02-18", 10, true],
      [4, "2030-02-18", 10, true],
    ]);
    expect((await logsOf(p.id)).slice(2).map((l) => l.description)).toEqual([`${name}: wave 3, Australia, 100 completes`, `${name}: wave 3, New Zealand, 250 completes`]);
    expect(again.balanceAfter).toBe(1414 - 586);
    expect(await balance(c)).toBe(828);
  });

  test("the charge may take the balance to -limit exactly, not a credit further (409, nothing written)", async () => {
    // New Zealand 100, 2 options: 125. A balance of 25 with a limit of 100 reaches -100 exactly.
    const c = await newClient(25, 100);
    const { p, name } = await newProject(c, { regions: [[NZ, 100]], testOptions: 2 });
    const r = await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    expect([r.total, r.balanceAfter, await balance(c)]).toEqual([125, -100, -100]);

    const poor = await newClient(24.99, 100);
    const q = await newProject(poor, { regions: [[NZ, 100]], testOptions: 2 });
    const e = await refusal(() => inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, q.p, q.name)));
    expect([e.status, e.message]).toEqual([
      409,
      `Not enough credits for project ${q.p.id}: balance 24.99, cost 125.00, overdraft limit 100.00 (the balance may not go below -100.00; it would be -100.01)`,
    ]);
    expect([await logsOf(q.p.id), await schedulesOf(q.p.id), await balance(poor)]).toEqual([[], [], 24.99]);
  });

  test("a project without regions: 409 before anything is written", async () => {
    const c = await newClient(100);
    const { p, name } = await newProject(c, { regions: [] });
    const e = await refusal(() => inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name)));
    expect([e.status, e.message]).toEqual([409, `Project ${p.id} has no regions: choose at least one region before submitting`]);
    expect(await schedulesOf(p.id)).toEqual([]);
  });

  test("a client that does not exist: 404", async () => {
    const c = await newClient(100);
    const { p, name } = await newProject(c, { regions: [[NZ, 10]] });
    const e = await refusal(() => inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, { ...p, clientId: 987654 }, name)));
    expect([e.status, e.message]).toEqual([404, "Clients(987654) not found"]);
  });
});

describe("refundUnrunWaves (Unsubmit, Decline, StopProjectScheduling)", () => {
  test("a positive 30 row per charge, naming it and the reason; the unrun schedules cancelled; the balance back", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const charges = await logsOf(p.id);
    const r = await inTx((tx) => ledger.refundUnrunWaves(tx, STAFF, p.id, c, "Unsubmit"));
    const refunds = (await logsOf(p.id)).slice(2);
    // In the schedules' order (date, wave, region id): New Zealand's charge first.
    expect(refunds.map((l) => [l.clientId, l.type, l.amount, l.surveyRunId, l.description, l.by])).toEqual([
      [c, 30, 537, null, `Refund of credit log ${charges[1]!.id} (Unsubmit)`, STAFF],
      [c, 30, 49, null, `Refund of credit log ${charges[0]!.id} (Unsubmit)`, STAFF],
    ]);
    expect(r).toEqual({ total: 586, creditLogIds: refunds.map((l) => l.id), cancelledSchedules: 4 });
    expect(await schedulesOf(p.id)).toEqual([]);
    expect(await balance(c)).toBe(1000);
    // Nothing left to refund.
    expect(await inTx((tx) => ledger.refundUnrunWaves(tx, STAFF, p.id, c, "Decline"))).toEqual({ total: 0, creditLogIds: [], cancelledSchedules: 0 });
  });

  test("a wave that has run keeps its schedules and its charge; only the unrun ones go", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const [run] = await tdb.db<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, target_completes) values (${c}, ${NZ}, '2030-01-07', 250) returning id`;
    await tdb.db`update project_schedules set survey_run_id = ${run!.id} where project_id = ${p.id} and wave_number = 1`;
    const r = await inTx((tx) => ledger.refundUnrunWaves(tx, STAFF, p.id, c, "StopProjectScheduling"));
    expect(r).toEqual({ total: 0, creditLogIds: [], cancelledSchedules: 2 });
    expect((await schedulesOf(p.id)).map((s) => s.wave)).toEqual([1, 1]);
    expect(await balance(c)).toBe(414);
  });
});

describe("resyncUnrunWaves (ResyncScheduledProject)", () => {
  test("a charged wave refunded and charged again at today's cost; an uncharged one stays uncharged", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const charges = await logsOf(p.id);
    // New Zealand down to 200 completes: 1.00 x 200 x 1.5 x 1.3 = 390; with Australia's 49, 439.
    await tdb.db`update projects_regions set sample_size = 200 where project_id = ${p.id} and region_id = ${NZ}`;
    const r = await inTx((tx) => ledger.resyncUnrunWaves(tx, ADMIN, p, name));
    expect(r).toEqual({ refunded: 586, charged: 439, waves: 2, balanceAfter: 561 });
    const logs = (await logsOf(p.id)).slice(2);
    expect(logs.map((l) => [l.type, l.amount, l.description, l.by])).toEqual([
      [30, 537, `Refund of credit log ${charges[1]!.id} (ResyncScheduledProject)`, ADMIN],
      [30, 49, `Refund of credit log ${charges[0]!.id} (ResyncScheduledProject)`, ADMIN],
      [30, -49, `${name}: wave 1, Australia, 100 completes (rescheduled)`, ADMIN],
      [30, -390, `${name}: wave 1, New Zealand, 200 completes (rescheduled)`, ADMIN],
    ]);
    const sch = await schedulesOf(p.id);
    expect(sch.map((s) => [s.clientId, s.regionId, s.date, s.type, s.customer, s.logId, s.wave, s.sampleSize])).toEqual([
      [c, AU, "2030-01-07", 1, true, logs[2]!.id, 1, 100],
      [c, NZ, "2030-01-07", 1, false, logs[3]!.id, 1, 200],
      [c, AU, "2030-01-21", 10, true, null, 2, 100],
      [c, NZ, "2030-01-21", 10, false, null, 2, 200],
    ]);
    expect(await balance(c)).toBe(561);
  });

  test("a market's sample supplier, chosen by staff on its unrun waves, stays with the rebuilt waves (record 0145); a customer-panel market has none", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const [sup] = await tdb.db<{ id: number }[]>`
      insert into sample_suppliers (name, complete_url, screen_out_url, over_quota_url, quality_terminate_url)
      values ('Ledger supplier', 'https://s.example/c?{rid}', 'https://s.example/s?{rid}', 'https://s.example/q?{rid}', 'https://s.example/t?{rid}') returning id`;
    // Chosen on New Zealand's first wave only: the market's choice, carried to each of its rebuilt waves.
    await tdb.db`update project_schedules set sample_supplier_id = ${sup!.id} where project_id = ${p.id} and region_id = ${NZ} and wave_number = 1`;
    await inTx((tx) => ledger.resyncUnrunWaves(tx, ADMIN, p, name));
    const rebuilt = await tdb.db<{ regionId: number; wave: number; supplier: number | null }[]>`
      select region_id as "regionId", wave_number as wave, sample_supplier_id as supplier from project_schedules where project_id = ${p.id} order by wave_number, region_id`;
    expect([...rebuilt]).toEqual([
      { regionId: NZ, wave: 1, supplier: sup!.id },
      { regionId: AU, wave: 1, supplier: null },
      { regionId: NZ, wave: 2, supplier: sup!.id },
      { regionId: AU, wave: 2, supplier: null },
    ]);
  });

  test("checked against the limit as one change: refused (409) when today's cost does not fit", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    // New Zealand up to 1000: 1.00 x (200 + 1.5 x 800) x 1.5 x 1.3 = 2730; with 49, 2779. The change
    // is +586 - 2779 = -2193 on a balance of 414.
    await tdb.db`update projects_regions set sample_size = 1000 where project_id = ${p.id} and region_id = ${NZ}`;
    const e = await refusal(() => inTx((tx) => ledger.resyncUnrunWaves(tx, ADMIN, p, name)));
    expect([e.status, e.message]).toEqual([
      409,
      `Not enough credits for rescheduling project ${p.id}: balance 414.00, cost 2193.00, overdraft limit 0.00 (the balance may not go below 0.00; it would be -1779.00)`,
    ]);
    expect(await balance(c)).toBe(414);
  });

  test("a wave that has run keeps its charge, settled or not yet: only the unrun waves are refunded and rebuilt", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    // Wave 1 is in the field (its schedules have a run) and CloseProjectSurvey has not settled its
    // charge yet: still PendingSurveyRun (30). Wave 2 was never charged.
    const [run] = await tdb.db<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, target_completes) values (${c}, ${NZ}, '2030-01-07', 250) returning id`;
    await tdb.db`update project_schedules set survey_run_id = ${run!.id} where project_id = ${p.id} and wave_number = 1`;
    const r = await inTx((tx) => ledger.resyncUnrunWaves(tx, ADMIN, p, name));
    expect(r).toEqual({ refunded: 0, charged: 0, waves: 1, balanceAfter: 414 });
    expect((await logsOf(p.id)).map((l) => l.amount)).toEqual([-49, -537]);
    expect((await schedulesOf(p.id)).map((s) => [s.wave, s.type, s.logId === null, s.runId === null])).toEqual([
      [1, 1, false, false],
      [1, 1, false, false],
      [2, 10, true, true],
      [2, 10, true, true],
    ]);
    expect(await balance(c)).toBe(414);
  });

  test("no regions left with waves to rebuild: 409", async () => {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, WORKED);
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    await tdb.db`delete from projects_regions where project_id = ${p.id}`;
    const e = await refusal(() => inTx((tx) => ledger.resyncUnrunWaves(tx, ADMIN, p, name)));
    expect([e.status, e.message]).toEqual([409, `Project ${p.id} has no regions to schedule`]);
  });
});

describe("settleRunCharges and refundRunShortfall (a run and its close)", () => {
  // New Zealand 100, 2 options, price sensitivity: 1.00 x 100 x 1.25 x 1.2 = 150 (docs/credits.md).
  async function ranProject() {
    const c = await newClient(1000);
    const { p, name } = await newProject(c, { regions: [[NZ, 100]], testOptions: 2, priceSensitivity: true });
    await inTx((tx) => ledger.chargeFirstWave(tx, ADMIN, p, name));
    const [run] = await tdb.db<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, target_completes) values (${c}, ${NZ}, '2030-01-07', 100) returning id`;
    await tdb.db`update project_schedules set survey_run_id = ${run!.id} where project_id = ${p.id}`;
    return { c, p, runId: run!.id };
  }
  const shortfall = (x: { c: number; p: ledger.ProjectForSchedule; runId: number }, delivered: number, ordered = 100, regionId = NZ) =>
    inTx((tx) => ledger.refundRunShortfall(tx, STAFF, { id: x.runId, clientId: x.c, projectId: x.p.id, regionId, isCustomerPanel: false, ordered, delivered }));

  test("settling turns the run's pending charges into SurveyRun (40) logs of the run; the balance does not move", async () => {
    const x = await ranProject();
    expect(await inTx((tx) => ledger.settleRunCharges(tx, x.p.id))).toBe(1);
    expect((await logsOf(x.p.id)).map((l) => [l.type, l.amount, l.surveyRunId])).toEqual([[40, -150, x.runId]]);
    expect(await balance(x.c)).toBe(850);
  });

  test("37 of 100 delivered: one positive SurveyRun row of the run, 150 - 56 = 94, worded as docs/credits.md; never twice", async () => {
    const x = await ranProject();
    const r = await shortfall(x, 37);
    const row = (await logsOf(x.p.id)).at(-1)!;
    expect(r).toEqual({ creditLogId: row.id, charged: 150, deliveredCost: 56, refund: 94 });
    expect([row.clientId, row.type, row.amount, row.surveyRunId, row.by, row.description]).toEqual([
      x.c,
      40,
      94,
      x.runId,
      STAFF,
      "Shortfall refund: New Zealand, 37 of 100 completes delivered (charged 150.00, the delivered sample costs 56.00)",
    ]);
    expect(await balance(x.c)).toBe(944);
    expect(await shortfall(x, 37)).toBeNull();
    expect(await balance(x.c)).toBe(944);
  });

  test("the run delivered its quota (100 of 100) or more: no refund; 99 of 100: 150 - 149 = 1", async () => {
    const x = await ranProject();
    expect(await shortfall(x, 100)).toBeNull();
    expect(await shortfall(x, 101)).toBeNull();
    expect((await logsOf(x.p.id)).length).toBe(1);
    // 99 x 1.25 x 1.2 = 148.5: 149.
    expect((await shortfall(x, 99))?.refund).toBe(1);
  });

  test("a run never charged refunds nothing; nor one whose delivered sample now costs the charge or more", async () => {
    const c = await newClient(1000);
    const { p } = await newProject(c, { regions: [[NZ, 100]] });
    const [run] = await tdb.db<{ id: number }[]>`insert into survey_runs (client_id, region_id, schedule_date, target_completes) values (${c}, ${NZ}, '2030-01-07', 100) returning id`;
    expect(await shortfall({ c, p, runId: run!.id }, 10)).toBeNull();
    expect(await logsOf(p.id)).toEqual([]);

    const x = await ranProject();
    // A third option since: 99 delivered now cost 99 x 1.5 x 1.2 = 178.2: 179, more than the 150 charged.
    await tdb.db`insert into test_options (client_id, project_id, concept_text, sort_order) values (${x.c}, ${x.p.id}, 'Option 2', 2)`;
    expect(await shortfall(x, 99)).toBeNull();
    // 50 delivered: 50 x 1.5 x 1.2 = 90; refund 60.
    expect((await shortfall(x, 50))?.refund).toBe(60);
  });

  test("a run that delivered its quota refunds nothing, even when its settings cost less now", async () => {
    const x = await ranProject();
    // One option fewer since: 100 delivered now cost 100 x 1.2 = 120, below the 150 charged; the
    // run delivered what was ordered, so the team paid for what it got.
    await tdb.db`delete from test_options where project_id = ${x.p.id} and sort_order = 1`;
    expect(await shortfall(x, 100)).toBeNull();
    expect(await shortfall(x, 101)).toBeNull();
    expect((await logsOf(x.p.id)).length).toBe(1);
    // 99 delivered is short: 150 - 99 x 1.2 (118.8: 119) = 31.
    expect((await shortfall(x, 99))?.refund).toBe(31);
  });

  test("a run of a region the project no longer has: priced at that region's rate, named by its id", async () => {
    const x = await ranProject();
    // Singapore (17) at 1.25: 37 x 1.25 x 1.25 x 1.2 = 69.375: 70; refund 80.
    const r = await shortfall(x, 37, 100, 17);
    expect(r?.refund).toBe(80);
    expect((await logsOf(x.p.id)).at(-1)!.description).toBe("Shortfall refund: region 17, 37 of 100 completes delivered (charged 150.00, the delivered sample costs 70.00)");
  });

  test("a client that does not exist: 404", async () => {
    const x = await ranProject();
    const e = await refusal(() =>
      inTx((tx) => ledger.refundRunShortfall(tx, STAFF, { id: x.runId, clientId: 987654, projectId: x.p.id, regionId: NZ, isCustomerPanel: false, ordered: 100, delivered: 1 })),
    );
    expect(e.status).toBe(404);
  });
});
