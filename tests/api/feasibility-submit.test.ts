// Feasibility before money (issue 36): a design the markets tab calls "Not feasible" was submitted
// and its credits set aside without a word (ReadinessCheck ready with no problems, Submit 200).
// Now Submit refuses it with a 409 stating what each market can deliver, and moves nothing in the
// ledger, unless the body accepts the shortfall; then the answer states the field period and the
// refund rule. ReadinessCheck lists it as a problem that does not block (the editor keeps Submit,
// behind an explicit acceptance).
//
// Expected figures worked by hand from docs/decisions.md "Feasibility" (New Zealand's panel reaches
// 6,000 people in a field period) and the census margin in the reference data (Stats NZ 2023: 51%
// female): a Female target qualifies 51%, so floor(6,000 x 0.51) = 3,060 completes can be
// delivered. The edge: 3,060 ordered is feasible, 3,061 is not.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import type { App } from "../../api/src/app.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const FEMALE = 4500002;
const NZ = 1;
const AU = 2;
const NZ_3061 =
  "New Zealand: 3,061 completes: the panel reaches about 6,000 people there in a field period and 51% are expected to qualify, so about 3,060 completes can be delivered. Not feasible: lower the completes to 3,060 or fewer, or target less narrowly.";

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db);
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 10000000, 'Test top-up')`;
});
afterAll(async () => {
  await tdb.drop();
});

let seq = 0;
/** A Draft of Acme Team A with one test option, a Female target (no quota) and these markets' completes. */
async function draft(markets: [regionId: number, completes: number, customer?: boolean][]): Promise<number> {
  const sql = tdb.db;
  const [p] = await sql<{ id: number }[]>`
    insert into projects (client_id, project_name, project_type_id, status_code, framework_id, owner_user_id, created_by_user_id)
    values (${T}, ${`Feasible ${++seq}`}, 1, 0, 1000, 9004, 9004) returning id`;
  for (const [regionId, n, customer] of markets) {
    await sql`insert into projects_regions (client_id, project_id, region_id, sample_size, is_customer_panel) values (${T}, ${p!.id}, ${regionId}, ${n}, ${customer ?? false})`;
  }
  await sql`insert into test_options (client_id, project_id, concept_text) values (${T}, ${p!.id}, 'Oat bar')`;
  await sql`insert into targets (client_id, project_id, system_question_option_id) values (${T}, ${p!.id}, ${FEMALE})`;
  return p!.id;
}

/** The team's ledger: its rows and its balance. */
async function ledger(): Promise<{ rows: number; balance: number }> {
  const [r] = await tdb.db<{ rows: number; balance: number }[]>`
    select count(*)::int as rows, coalesce(sum(credit_amount), 0)::float8 as balance from credit_logs where client_id = ${T}`;
  return r!;
}
const status = async (id: number) => (await tdb.db<{ s: number }[]>`select status_code as s from projects where id = ${id}`)[0]!.s;
const submit = (id: number, body: unknown = {}) => call(app, "acmeUser", T, "POST", `/api/v1/Projects(${id})/Submit`, body);
const readiness = (id: number) => call(app, "acmeUser", T, "GET", `/api/v1/Projects(${id})/ReadinessCheck`);

describe("Submit refuses a design the panel cannot fill, before any money moves", () => {
  test("3,061 completes where 3,060 can be delivered: 409 stating the deliverable completes, nothing in the ledger, still a Draft", async () => {
    const id = await draft([[NZ, 3061]]);
    const before = await ledger();
    const r = await submit(id);
    expect(r.status, JSON.stringify(r.body)).toBe(409);
    expect(r.body.typename).toBe("Conflict");
    expect(r.body.message).toStartWith("Not feasible: about 3,060 of 3,061 completes can be delivered in New Zealand. Nothing was charged.");
    expect(r.body.message).toContain('"acceptShortfall": true');
    expect(r.body.message).toContain("Each run fields for 14 days from its launch");
    expect(r.body.errors).toEqual([{ path: "feasibility", message: NZ_3061 }]);
    expect(await ledger(), "no credit log written, the balance unchanged").toEqual(before);
    expect(await status(id)).toBe(0);
    const [{ n }] = await tdb.db<{ n: number }[]>`select count(*)::int as n from project_schedules where project_id = ${id}`;
    expect(n, "no wave scheduled").toBe(0);
  });

  test("exactly the deliverable number (3,060) is submitted and charged with no shortfall", async () => {
    const id = await draft([[NZ, 3060]]);
    const r = await submit(id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.charged).toBeGreaterThan(0);
    expect(r.body.shortfall).toBeUndefined();
  });

  test("only the market that falls short is named (Australia's reach of 25,000 x 51% covers 3,061)", async () => {
    const id = await draft([
      [AU, 3061],
      [NZ, 3061],
    ]);
    const r = await submit(id);
    expect(r.status).toBe(409);
    expect(r.body.message).toStartWith("Not feasible: about 3,060 of 3,061 completes can be delivered in New Zealand.");
    expect(r.body.errors).toEqual([{ path: "feasibility", message: NZ_3061 }]);
  });

  test("a customer panel's reach is unknown: never refused for feasibility", async () => {
    const id = await draft([[NZ, 100000, true]]);
    const r = await submit(id);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.shortfall).toBeUndefined();
  });

  test("with acceptShortfall it is submitted, and the answer states the field period and the refund rule", async () => {
    const id = await draft([[NZ, 3061]]);
    expect((await call(app, "acmeUser", T, "PATCH", `/api/v1/Projects(${id})`, { fieldPeriodDays: 10 })).status).toBe(200);
    const before = await ledger();
    const r = await submit(id, { acceptShortfall: true });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.statusCode).toBe(50);
    expect(r.body.charged).toBeGreaterThan(0);
    expect((await ledger()).balance).toBe(before.balance - r.body.charged);
    expect(r.body.shortfall.markets).toEqual([{ regionId: NZ, regionName: "New Zealand", sampleSize: 3061, feasibleCompletes: 3060, text: NZ_3061 }]);
    expect(r.body.shortfall.fieldPeriodDays).toBe(10);
    // docs/credits.md "Shortfall refunds": at the field end the run closes with what it has and is
    // refunded its charge minus the price of the completes delivered, in one row of the run.
    expect(r.body.shortfall.message).toStartWith("About 3,060 of 3,061 completes can be delivered in New Zealand. Each run fields for 10 days from its launch, then closes with the completes it has;");
    expect(r.body.shortfall.message).toContain("its charge minus the price of the completes delivered at the same rates");
    const [log] = await tdb.db<{ data: { shortfallAccepted?: unknown } }[]>`
      select data from data_events_log where project_id = ${id} and event = 'SubmittedForSurvey'`;
    expect(log!.data.shortfallAccepted, "the acceptance is on the record").toEqual([{ regionId: NZ, sampleSize: 3061, feasibleCompletes: 3060 }]);
  });

  test("acceptShortfall on a feasible design changes nothing; a non-boolean or an unknown field is a 400", async () => {
    const id = await draft([[NZ, 100]]);
    expect((await submit(id, { acceptShortfall: "yes" })).status).toBe(400);
    expect((await submit(id, { acceptShortfal: true })).status).toBe(400);
    expect(await status(id)).toBe(0);
    const r = await submit(id, { acceptShortfall: true });
    expect(r.status).toBe(200);
    expect(r.body.shortfall).toBeUndefined();
  });

  test("an incomplete test is still a 400 first (the blocking problems come before feasibility)", async () => {
    const id = await draft([[NZ, 3061]]);
    await tdb.db`delete from test_options where project_id = ${id}`;
    const r = await submit(id, { acceptShortfall: true });
    expect(r.status).toBe(400);
    expect(r.body.errors.map((e: { path: string }) => e.path)).toEqual(["testOptions"]);
  });

  test("SuperApprove from Draft is a super admin's decision: it goes ahead and states the shortfall", async () => {
    const id = await draft([[NZ, 3061]]);
    const r = await call(app, "staff", T, "POST", `/api/v1/Projects(${id})/SuperApprove`, {});
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.statusCode).toBe(300);
    expect(r.body.shortfall.markets[0].feasibleCompletes).toBe(3060);
  });
});

describe("ReadinessCheck lists the shortfall as a problem that does not block", () => {
  test("3,061: one feasibility problem on the markets tab, not blocking, with the statement; 3,060: none", async () => {
    const short = await readiness(await draft([[NZ, 3061]]));
    expect(short.status).toBe(200);
    expect(short.body.ready, "Submit stays available, behind acceptShortfall").toBe(true);
    expect(short.body.problems).toEqual([{ code: "feasibility", message: NZ_3061, tab: "markets", blocking: false }]);
    expect(short.body.shortfall.markets.map((m: { feasibleCompletes: number }) => m.feasibleCompletes)).toEqual([3060]);
    expect(short.body.shortfall.fieldPeriodDays).toBe(14);
    const fits = await readiness(await draft([[NZ, 3060]]));
    expect(fits.body).toMatchObject({ ready: true, problems: [], shortfall: null });
  });

  test("a blocking problem still makes it not ready, beside the shortfall", async () => {
    const id = await draft([[NZ, 3061]]);
    await tdb.db`delete from test_options where project_id = ${id}`;
    const r = await readiness(id);
    expect(r.body.ready).toBe(false);
    expect(r.body.problems.map((p: { code: string; blocking: boolean }) => [p.code, p.blocking])).toEqual([
      ["testOptions", true],
      ["feasibility", false],
    ]);
  });
});
