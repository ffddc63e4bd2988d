// The credit ledger: the cost formula (CreditCostNow == Submit's charge), refunds, schedule
// estimates and the last-run cost, staff adjustments and their audit, transfers, the CSV export,
// the dashboard figures, and the overdraft rule under concurrency: many parallel Submits on one
// balance that fits only some of them.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";
import { connect, type Db } from "../../api/src/db/client.ts";
import { costOfRun } from "../../api/src/domains/credits/cost.ts";
import { csvField } from "../../api/src/domains/credits/credits.service.ts";

let tdb: TestDb;
let app: App;

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
});
afterAll(async () => {
  await tdb.drop();
});

const balanceOf = async (clientId: number): Promise<number> =>
  (await tdb.db<{ b: number }[]>`select coalesce(sum(credit_amount), 0)::float8 as b from credit_logs where client_id = ${clientId}`)[0]!.b;

let seq = 0;
interface ProjectSpec {
  clientId?: number;
  regions?: [number, number, boolean?][];
  testOptions?: number;
  priceSensitivity?: boolean;
  customQuestions?: number;
  schedule?: { start: string; weeks: number; waves: number };
}

/** A Draft written as the owner: regions, test options, add-ons and custom questions as asked. */
async function makeDraft(s: ProjectSpec = {}): Promise<number> {
  const sql = tdb.db;
  const clientId = s.clientId ?? 1003;
  const [p] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id,
                          schedule_start_date, schedule_frequency_weeks, schedule_waves_required, waves_required)
    values (${clientId}, ${`Credits test ${++seq}`}, 1, 0, 1000, 9003, 9003, ${s.schedule?.start ?? null}::date,
            ${s.schedule?.weeks ?? null}, ${s.schedule?.waves ?? null}, ${s.schedule !== undefined})
    returning id`;
  const id = p!.id;
  for (const [regionId, n, customer] of s.regions ?? [[1, 100]]) {
    await sql`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel)
              values (${clientId}, ${id}, ${regionId}, ${n}, ${customer ?? false})`;
  }
  for (let i = 0; i < (s.testOptions ?? 1); i++) {
    await sql`insert into test_options (client_id, project_id, concept_text, sort_order) values (${clientId}, ${id}, ${`Option ${i}`}, ${i})`;
  }
  if (s.priceSensitivity) {
    await sql`insert into project_price_sensitivities (client_id, project_id, currency_code) values (${clientId}, ${id}, 'NZD')`;
  }
  for (let i = 0; i < (s.customQuestions ?? 0); i++) {
    const [q] = await sql<{ id: number }[]>`
      insert into questions (client_id, project_id, question_text, question_type_id) values (${clientId}, ${id}, ${`Custom ${i}`}, 1) returning id`;
    await sql`insert into project_questions (client_id, project_id, question_id, question_position_id, sort_order)
              values (${clientId}, ${id}, ${q!.id}, 6, ${i})`;
  }
  return id;
}

/** Staff top-up through the API (a purchase, type 1). */
async function topUp(clientId: number, amount: number): Promise<void> {
  const res = await call(app, "ops", null, "POST", "/api/v1/CreditLogs", { type: 1, creditAmount: amount, clientId, description: "Test credits" });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
}

async function request(appUnderTest: App, who: string, clientId: number, method: string, path: string, opts: { body?: unknown; descendants?: boolean } = {}) {
  const headers: Record<string, string> = { authorization: `Bearer ${who}`, clientId: String(clientId) };
  if (opts.descendants) headers.requestscope = "descendants";
  if (opts.body !== undefined) headers["content-type"] = "application/json";
  const res = await appUnderTest.request(path, { method, headers, body: opts.body === undefined ? undefined : JSON.stringify(opts.body) });
  const text = await res.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* CSV */
  }
  return { status: res.status, body, text, headers: res.headers };
}

describe("the cost formula", () => {
  const nz = (n: number, customer = false) => ({ regionId: 1, regionName: "New Zealand", sampleSize: n, isCustomerPanel: customer });
  test("constants and rounding, exactly (no float drift)", () => {
    expect(costOfRun({ regions: [nz(200)], testOptions: 2, priceSensitivity: true, marketReach: true, customQuestions: 1 }).total, "200 x 1.25 x 1.35 = 337.5, rounded up").toBe(338);
    expect(costOfRun({ regions: [nz(100)], testOptions: 0, priceSensitivity: false, marketReach: false, customQuestions: 0 }).total, "no test options is one cell").toBe(100);
    const mixed = costOfRun({
      regions: [
        { regionId: 17, regionName: "Singapore", sampleSize: 100, isCustomerPanel: false },
        { regionId: 59, regionName: "California", sampleSize: 300, isCustomerPanel: false },
        { regionId: 999999, regionName: "Other markets", sampleSize: 100, isCustomerPanel: false },
      ],
      testOptions: 1,
      priceSensitivity: false,
      marketReach: false,
      customQuestions: 5,
    });
    expect(
      mixed.regions.map((r) => r.cost),
      "SG 1.25; a US state 1.25 with 100 boosted completes at 1.5x; Other 1.5",
    ).toEqual([125, 438, 150]);
    expect(mixed.addOns.extraCustomQuestions, "five custom questions are included").toBe(0);
  });

  test("the worked example of docs/credits.md", () => {
    const c = costOfRun({
      regions: [nz(250), { regionId: 2, regionName: "Australia", sampleSize: 100, isCustomerPanel: true }],
      testOptions: 3,
      priceSensitivity: true,
      marketReach: false,
      customQuestions: 7,
    });
    expect(c.cellFactor).toBe(1.5);
    expect(c.addOns.rate).toBe(0.3);
    expect(c.regions.map((r) => r.cost)).toEqual([537, 49]);
    expect(c.total).toBe(586);
  });
});

describe("CreditCostNow and Submit", () => {
  test("Submit charges exactly CreditCostNow, one PendingSurveyRun log per region", async () => {
    await topUp(1003, 1000);
    // The worked example's +30% add-ons as 11 custom questions (6 beyond the included 5 x 5%): its price
    // sensitivity cannot be submitted in NZD and AUD markets (the pre-launch check, readiness.ts).
    const id = await makeDraft({
      regions: [
        [1, 250],
        [2, 100, true],
      ],
      testOptions: 3,
      customQuestions: 11,
    });
    const cost = await call(app, "acmeViewer", 1003, "GET", `/api/v1/Projects(${id})/CreditCostNow`);
    expect(cost.status, JSON.stringify(cost.body)).toBe(200);
    expect(cost.body).toMatchObject({ total: 586, cells: 3, cellFactor: 1.5, lastRunCost: null, overdraftLimit: 100, affordable: true });
    // Regions in the product's order (SPEC 9): Australia, then New Zealand.
    expect(cost.body.regions.map((r: { regionId: number; cost: number }) => [r.regionId, r.cost])).toEqual([
      [2, 49],
      [1, 537],
    ]);
    const before = await balanceOf(1003);
    expect(cost.body.balance).toBe(before);

    const sub = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body).toMatchObject({ statusCode: 100, charged: 586, balanceAfter: before - 586 });
    const logs = await tdb.db<{ type: number; amount: number; id: number }[]>`
      select id, type, credit_amount::float8 as amount from credit_logs where project_id = ${id} order by id`;
    expect(logs.map((l) => [l.type, l.amount])).toEqual([
      [30, -49],
      [30, -537],
    ]);
    expect(await balanceOf(1003)).toBe(before - 586);
    const sched = await tdb.db<{ regionId: number; creditLogId: number; wave: number }[]>`
      select region_id as "regionId", credit_log_id as "creditLogId", wave_number as wave from project_schedules where project_id = ${id} order by region_id`;
    expect([...sched]).toEqual([
      { regionId: 1, creditLogId: logs[1]!.id, wave: 1 },
      { regionId: 2, creditLogId: logs[0]!.id, wave: 1 },
    ]);
    const after = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/CreditCostNow`);
    expect(after.body.lastRunCost, "SPEC 9: the latest charged schedule date's charges").toBe(586);

    // Unsubmit refunds the pending charge in full.
    const back = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/Unsubmit`);
    expect(back.body).toMatchObject({ statusCode: 0, refunded: 586 });
    expect(await balanceOf(1003)).toBe(before);
    const refunds = await tdb.db<{ amount: number }[]>`
      select credit_amount::float8 as amount from credit_logs where project_id = ${id} and credit_amount > 0 order by id`;
    expect(
      refunds.map((r) => r.amount).sort((x, y) => x - y),
      "the ledger keeps the charge and its refund",
    ).toEqual([49, 537]);
    const [left] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_schedules where project_id = ${id}`;
    expect(left!.n).toBe(0);
  });

  test("Submit refuses (409) a charge below the overdraft limit, naming balance, cost and limit", async () => {
    const balance = await balanceOf(1003);
    // One region of New Zealand priced above what is available (balance + 100 overdraft).
    const n = Math.ceil(balance + 100 + 1);
    const id = await makeDraft({ regions: [[1, Math.ceil((n - 200) / 1.5) + 200]] });
    const cost = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/CreditCostNow`);
    expect(cost.body.affordable).toBe(false);
    const res = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(res.status).toBe(409);
    expect(res.body.message).toContain(`balance ${balance.toFixed(2)}`);
    expect(res.body.message).toContain(`cost ${cost.body.total.toFixed(2)}`);
    expect(res.body.message).toContain("overdraft limit 100.00");
    const [logs] = await tdb.db<{ n: number }[]>`select count(*)::int as n from credit_logs where project_id = ${id}`;
    expect(logs!.n, "nothing charged").toBe(0);
    const [p] = await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${id}`;
    expect(p!.s).toBe(0);
  });

  test("last-run cost follows SPEC 9 on the fixtures", async () => {
    expect((await call(app, "acmeUser", 1003, "GET", "/api/v1/Projects(1001)/CreditCostNow")).body.lastRunCost, "both regions ran on 2025-03-03").toBe(350);
    expect((await call(app, "globexAdmin", 2001, "GET", "/api/v1/Projects(2001)/CreditCostNow")).body.lastRunCost, "the reserved later wave is the latest charged date").toBe(150);
  });
});

describe("ProjectScheduleEstimates and ResyncScheduledProject", () => {
  test("a wave project's upcoming waves: projected, then scheduled with the first charged, then re-priced", async () => {
    await topUp(1003, 2000);
    const start = new Date(Date.now() + 14 * 86400_000).toISOString().slice(0, 10);
    const id = await makeDraft({ regions: [[1, 100]], schedule: { start, weeks: 2, waves: 3 } });
    const est = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ProjectScheduleEstimates`);
    expect(est.status, JSON.stringify(est.body)).toBe(200);
    expect(est.body).toMatchObject({ waveMode: true, costPerWave: 100, upcomingTotal: 300, uncharged: 300 });
    const plus = (d: string, days: number) => new Date(Date.parse(`${d}T00:00:00Z`) + days * 86400_000).toISOString().slice(0, 10);
    expect(est.body.waves.map((w: { scheduleDate: string; scheduled: boolean }) => [w.scheduleDate, w.scheduled])).toEqual([
      [start, false],
      [plus(start, 14), false],
      [plus(start, 28), false],
    ]);
    expect(est.body.waves[0].estimatedCompletionDate, "EstimatedProjectDuration: 1 day of fielding and 1 of processing").toBe(plus(start, 2));

    const before = await balanceOf(1003);
    const sub = await call(app, "acmeAdmin", 1003, "POST", `/api/v1/Projects(${id})/Submit`);
    expect(sub.body.charged, "only the first wave is charged now").toBe(100);
    const after = await call(app, "acmeUser", 1003, "GET", `/api/v1/Projects(${id})/ProjectScheduleEstimates`);
    expect(after.body.waves.map((w: { charged: boolean; scheduled: boolean; scheduleTypeId: number }) => [w.scheduled, w.charged, w.scheduleTypeId])).toEqual([
      [true, true, 1],
      [true, false, 10],
      [true, false, 10],
    ]);
    expect(after.body).toMatchObject({ upcomingTotal: 300, uncharged: 200 });

    // The team doubles the sample: a resync re-prices the charged wave.
    await tdb.db`update projects_regions set sample_size = 200 where project_id = ${id}`;
    const resync = await call(app, "acmeUser", 1003, "POST", `/api/v1/Projects(${id})/ResyncScheduledProject`);
    expect(resync.status, JSON.stringify(resync.body)).toBe(200);
    expect(resync.body).toMatchObject({ statusCode: 100, refunded: 100, charged: 200, waves: 3 });
    expect(await balanceOf(1003)).toBe(before - 200);
    const [pending] = await tdb.db<{ n: number }[]>`select (-sum(credit_amount))::float8 as n from credit_logs where project_id = ${id}`;
    expect(pending!.n, "one wave charged, at the new price").toBe(200);
  });
});

describe("staff adjustments", () => {
  test("POST, PATCH and DELETE /CreditLogs are staff only, checked and audited", async () => {
    for (const who of ["acmeAdmin", "acmeUser"] as const) {
      expect((await call(app, who, 1003, "POST", "/api/v1/CreditLogs", { type: 1, creditAmount: 5 })).status, `${who} cannot add credits`).toBe(403);
    }
    const adj = await call(app, "ops", 1003, "POST", "/api/v1/CreditLogs", { type: 81, creditAmount: -10, projectId: 1001, description: "Extra question" });
    expect(adj.status, JSON.stringify(adj.body)).toBe(201);
    expect(adj.body).toMatchObject({ clientId: 1003, type: 81, creditAmount: -10, projectId: 1001, createdByUserId: 9002 });
    expect((await call(app, "ops", 1003, "POST", "/api/v1/CreditLogs", { type: 81, creditAmount: -10 })).status, "a project adjustment needs its project").toBe(400);
    expect((await call(app, "ops", 1003, "POST", "/api/v1/CreditLogs", { type: 30, creditAmount: -10 })).status, "runs are charged by Submit only").toBe(400);
    expect((await call(app, "ops", 1003, "POST", "/api/v1/CreditLogs", { type: 86, creditAmount: 5, projectId: 1001 })).status, "a freebie is not a project's").toBe(400);
    const broke = await call(app, "ops", 2001, "POST", "/api/v1/CreditLogs", { type: 90, creditAmount: -1000, projectId: 2001 });
    expect(broke.status, "below Globex's limit").toBe(409);

    const patched = await call(app, "ops", 1003, "PATCH", `/api/v1/CreditLogs(${adj.body.id})`, { creditAmount: -12, description: "Two extra questions" });
    expect(patched.body).toMatchObject({ creditAmount: -12, description: "Two extra questions" });
    const system = await call(app, "ops", 1003, "PATCH", "/api/v1/CreditLogs(1002)", { creditAmount: -1 });
    expect(system.status, "a run's charge keeps its amount").toBe(409);
    expect((await call(app, "ops", 1003, "PATCH", "/api/v1/CreditLogs(1002)", { description: "Survey run NZ (corrected)" })).status).toBe(200);
    expect((await call(app, "acmeAdmin", 1003, "PATCH", `/api/v1/CreditLogs(${adj.body.id})`, { description: "x" })).status).toBe(403);

    const gift = await call(app, "ops", 1004, "POST", "/api/v1/CreditLogs", { type: 86, creditAmount: 30 });
    expect(gift.body.clientId, "the clientId header names the client").toBe(1004);
    expect((await call(app, "ops", 1003, "DELETE", "/api/v1/CreditLogs(1002)")).status, "a run's charge stays").toBe(409);
    expect((await call(app, "acmeAdmin", 1003, "DELETE", `/api/v1/CreditLogs(${adj.body.id})`)).status).toBe(403);
    expect((await call(app, "ops", 1003, "DELETE", `/api/v1/CreditLogs(${adj.body.id})`)).status).toBe(204);

    const audit = await tdb.db<{ event: string; userId: number; data: Record<string, any> }[]>`
      select event, user_id as "userId", data from data_events_log where entity_type = 'CreditLog' and entity_id = ${adj.body.id} order by id`;
    expect(audit.map((a) => a.event)).toEqual(["Created", "Updated", "Deleted"]);
    expect(audit.every((a) => a.userId === 9002)).toBe(true);
    expect(audit[1]!.data.before.creditAmount).toBe(-10);
    expect(audit[1]!.data.after.creditAmount).toBe(-12);
    expect(audit[2]!.data.before.description).toBe("Two extra questions");
  });
});

describe("MakeCreditTransfer", () => {
  test("an enterprise Admin moves credits between its teams: two Transfer rows, one transferId", async () => {
    const [a, b] = [await balanceOf(1003), await balanceOf(1004)];
    const res = await call(app, "acmeAdmin", 1001, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1003, toClientId: 1004, amount: 25, note: "For the launch test" });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({ amount: 25, from: { clientId: 1003, balance: a - 25 }, to: { clientId: 1004, balance: b + 25 } });
    const rows = await tdb.db<{ clientId: number; type: number; amount: number; related: number }[]>`
      select client_id as "clientId", type, credit_amount::float8 as amount, related_client_id as related
      from credit_logs where transfer_id = ${res.body.transferId}::uuid order by credit_amount`;
    expect([...rows]).toEqual([
      { clientId: 1003, type: 140, amount: -25, related: 1004 },
      { clientId: 1004, type: 140, amount: 25, related: 1003 },
    ]);
    expect([await balanceOf(1003), await balanceOf(1004)]).toEqual([a - 25, b + 25]);
  });

  test("never below the sender's limit, never outside the enterprise or the caller's scope", async () => {
    const b = await balanceOf(1004);
    const over = await call(app, "acmeAdmin", 1001, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1004, toClientId: 1003, amount: b + 1 });
    expect(over.status).toBe(409);
    expect(over.body.message).toContain("overdraft limit 0.00");
    expect(
      (await call(app, "acmeAdmin", 1003, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1003, toClientId: 1004, amount: 1 })).status,
      "Team A's scope does not hold Team B",
    ).toBe(404);
    expect((await call(app, "acmeAdmin", 1001, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1003, toClientId: 2001, amount: 1 })).status, "Globex is not Acme's").toBe(404);
    expect((await call(app, "staff", null, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1003, toClientId: 2001, amount: 1 })).status, "not even for staff").toBe(409);
    expect((await call(app, "acmeUser", 1003, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1003, toClientId: 1004, amount: 1 })).status).toBe(403);
    expect((await call(app, "acmeAdmin", 1001, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { fromClientId: 1003, toClientId: 1003, amount: 1 })).status).toBe(400);
    expect(await balanceOf(1004)).toBe(b);
  });
});

describe("the management pages", () => {
  test("ExportTransactionListCsv streams the ledger with a header row and a running balance", async () => {
    await call(app, "ops", 1004, "POST", "/api/v1/CreditLogs", { type: 86, creditAmount: 1, description: '=HYPERLINK("x"), "quoted"' });
    const res = await request(app, "acmeAdmin", 1004, "GET", "/api/v1/Clients(1004)/ExportTransactionListCsv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const lines = res.text.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,createdAt,type,typeName,creditAmount,balance,projectId,projectName,surveyRunId,relatedClientId,transferId,description,hubspotDealId,createdByUserId,createdByEmail");
    const [n] = await tdb.db<{ n: number }[]>`select count(*)::int as n from credit_logs where client_id = 1004`;
    expect(lines.length - 1, "one line per ledger row").toBe(n!.n);
    const last = lines[lines.length - 1]!;
    expect(last, "a formula is neutralised and quotes are doubled").toContain(`"'=HYPERLINK(""x""), ""quoted"""`);
    expect(Number(last.split(",")[5]), "the running balance ends at the balance").toBe(await balanceOf(1004));
    expect(lines[1]).toStartWith("1006,2025-02-01T10:00:00.000Z,140,Transfer,50,50,");
    expect((await request(app, "acmeUser", 1003, "GET", "/api/v1/Clients(1003)/ExportTransactionListCsv")).status).toBe(403);
    expect((await request(app, "globexAdmin", 2001, "GET", "/api/v1/Clients(1003)/ExportTransactionListCsv")).status).toBe(404);
    expect(csvField(-12.5)).toBe("-12.5");
  });

  test("ClientSubStats: the client's figures, and each child's with requestscope descendants", async () => {
    const one = await request(app, "acmeAdmin", 1003, "GET", "/api/v1/Clients(1003)/ClientSubStats");
    expect(one.status, JSON.stringify(one.body)).toBe(200);
    expect(one.body.client).toMatchObject({ clientId: 1003, balance: await balanceOf(1003), overdraftLimit: 100, runsTotal: 2 });
    expect(one.body.client.available).toBe(one.body.client.balance + 100);
    expect(one.body.children).toEqual([]);
    expect(one.body.client.projectsByStatus.find((s: { statusCode: number }) => s.statusCode === 900).count).toBe(1);

    const all = await request(app, "acmeAdmin", 1001, "GET", "/api/v1/Clients(1001)/ClientSubStats", { descendants: true });
    expect(all.status).toBe(200);
    expect(all.body.client.clientId).toBe(1001);
    expect(all.body.children.map((c: { clientId: number }) => c.clientId).sort()).toEqual([1002, 1003, 1004]);
    expect(all.body.totals.balance).toBe((await balanceOf(1001)) + (await balanceOf(1002)) + (await balanceOf(1003)) + (await balanceOf(1004)));
    expect((await request(app, "acmeUser", 1003, "GET", "/api/v1/Clients(1003)/ClientSubStats")).status).toBe(403);
    expect((await request(app, "globexAdmin", 2001, "GET", "/api/v1/Clients(1003)/ClientSubStats")).status).toBe(404);
  });
});

describe("no interleaving can overdraw", () => {
  let db: Db;
  let wide: App;
  beforeAll(async () => {
    // Its own pool, wide enough that every request holds a connection at once.
    db = connect(tdb.url, { max: 30 });
    wide = testApp(db);
    await tdb.db`insert into clients (id, name, tier, parent_id) values (1005, 'Acme Team C', 'Team', 1002)`;
    await tdb.db`insert into teams (id, client_id) values (1005, 1005)`;
    await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1005, 1, 750, 'Seed')`;
  });
  afterAll(async () => {
    await db.end({ timeout: 1 });
  });

  test("20 parallel Submits of 100 credits on a balance of 750: exactly 7 succeed", async () => {
    const ids: number[] = [];
    for (let i = 0; i < 20; i++) ids.push(await makeDraft({ clientId: 1005, regions: [[1, 100]] }));
    const results = await Promise.all(ids.map((id) => request(wide, "acmeAdmin", 1005, "POST", `/api/v1/Projects(${id})/Submit`)));
    const ok = results.filter((r) => r.status === 200);
    const refused = results.filter((r) => r.status === 409);
    expect(ok.length, "exactly the affordable number succeed").toBe(7);
    expect(refused.length, "the rest are refused").toBe(13);
    for (const r of refused) expect(r.body.message).toContain("Not enough credits");
    expect(await balanceOf(1005), "750 minus the successful charges").toBe(50);
    const charges = await tdb.db<{ projectId: number; n: number; sum: number }[]>`
      select project_id as "projectId", count(*)::int as n, sum(credit_amount)::float8 as sum
      from credit_logs where client_id = 1005 and type = 30 group by project_id`;
    const succeeded = ok.map((r) => r.body.projectId as number).sort();
    expect(charges.map((c) => c.projectId).sort(), "a charge for every success, none for a refusal").toEqual(succeeded);
    expect(
      charges.every((c) => c.n === 1 && c.sum === -100),
      "no charge lost or duplicated",
    ).toBe(true);
    const statuses = await tdb.db<{ s: number; n: number }[]>`
      select status_code as s, count(*)::int as n from projects where id = any(${ids}::int[]) group by status_code order by s`;
    expect([...statuses]).toEqual([
      { s: 0, n: 13 },
      { s: 100, n: 7 },
    ]);
  }, 30_000);

  test("transfers and Submits racing for one balance never take it below the limit", async () => {
    await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (1005, 1, 400, 'Seed 2')`;
    const start = await balanceOf(1005); // 450
    const ids: number[] = [];
    for (let i = 0; i < 8; i++) ids.push(await makeDraft({ clientId: 1005, regions: [[1, 100]] }));
    const calls = [
      ...ids.map((id) => request(wide, "acmeAdmin", 1005, "POST", `/api/v1/Projects(${id})/Submit`)),
      ...Array.from({ length: 8 }, () => request(wide, "acmeAdmin", 1001, "POST", "/api/v1/CreditLogs/MakeCreditTransfer", { body: { fromClientId: 1005, toClientId: 1004, amount: 100 } })),
    ];
    const results = await Promise.all(calls);
    const ok = results.filter((r) => r.status === 200).length;
    expect(
      results.every((r) => r.status === 200 || r.status === 409),
      JSON.stringify(results.map((r) => r.status)),
    ).toBe(true);
    expect(ok, "4 of 100 fit in 450").toBe(4);
    expect(await balanceOf(1005)).toBe(start - 400);
  }, 30_000);
});

test("staff set a client's overdraft limit and approval rule through PATCH Clients; an Admin cannot", async () => {
  const { call, testApp } = await import("../helpers/app.ts");
  const app2 = testApp(tdb.db);
  const refused = await call(app2, "acmeAdmin", 1003, "PATCH", "/api/v1/Clients(1003)", { overdraftLimit: 1000000 });
  expect(refused.status).toBe(403);
  const ok = await call(app2, "staff", null, "PATCH", "/api/v1/Clients(1004)", { overdraftLimit: 250, requiresProjectApproval: true });
  expect(ok.status, JSON.stringify(ok.body)).toBe(200);
  expect(ok.body).toMatchObject({ overdraftLimit: 250, requiresProjectApproval: true });
});

describe("CreditCostEstimate refusals (an error-path test per operation, issue 27)", () => {
  const estimate = (who: "acmeViewer" | "globexAdmin" | "staff", clientId: number | null, body: unknown) => call(app, who, clientId, "POST", "/api/v1/Projects/CreditCostEstimate", body);
  const ok = { regionIds: [1], sampleSize: 100, testOptions: 1 };

  test("400 without a clientId header, with the reason (a member: the access rule; staff: the estimate's own)", async () => {
    const member = await estimate("acmeViewer", null, ok);
    expect(member.status).toBe(400);
    expect(member.body.message).toBe("A clientId header is required");
    const staff = await estimate("staff", null, ok);
    expect(staff.status).toBe(400);
    expect(staff.body.message).toBe("A clientId header is required: the cost is read against a team's credits");
  });

  test("400 for an unknown region, named with its place in the list", async () => {
    const r = await estimate("acmeViewer", 1003, { ...ok, regionIds: [1, 99999] });
    expect(r.status).toBe(400);
    expect(r.body.message).toBe("No region 99999");
    expect(r.body.errors).toEqual([{ path: "regionIds.1", message: "No region 99999" }]);
  });

  test("sampleSize at its bounds: 1 and 100000 taken, 0 and 100001 refused; no region at all refused", async () => {
    expect((await estimate("acmeViewer", 1003, { ...ok, sampleSize: 1 })).status).toBe(200);
    expect((await estimate("acmeViewer", 1003, { ...ok, sampleSize: 100000 })).status).toBe(200);
    for (const sampleSize of [0, 100001]) {
      const r = await estimate("acmeViewer", 1003, { ...ok, sampleSize });
      expect(r.status, `sampleSize ${sampleSize}`).toBe(400);
      expect(JSON.stringify(r.body.errors)).toContain("sampleSize");
    }
    expect((await estimate("acmeViewer", 1003, { ...ok, regionIds: [] })).status).toBe(400);
  });

  test("403 on a team the caller is not a member of", async () => {
    const r = await estimate("globexAdmin", 1003, ok);
    expect(r.status).toBe(403);
  });
});
