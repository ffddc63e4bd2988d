// A supplier run's sample from several suppliers, each with its allocation (issue 36: "supplier (one
// or more sample suppliers, each with its allocation)"; docs/decisions/0146). Before, a run had one
// supplier: a second supplier's entry was refused (403), and nothing capped a supplier's share.
// Now staff give each supplier a share (SetSampleAllocations); each supplier's cap is its share of
// the run's target by the largest remainder (caps worked by hand below); a new rid of a supplier
// whose cap is met goes back to it over quota (signed link, recorded outcome), while a rid already
// answering returns to its session; the run's other suppliers still take people.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createTestDb, type TestDb } from "../helpers/db.ts";
import { call, testApp } from "../helpers/app.ts";
import { createSupplier, respondentPost } from "../helpers/supplier-run.ts";
import type { App } from "../../api/src/app.ts";
import * as fielding from "../../api/src/domains/fielding/fielding.service.ts";
import { capsOf } from "../../api/src/domains/fielding/allocations.ts";
import { simulatedSupplier } from "../../api/src/domains/fielding/suppliers.ts";

let tdb: TestDb;
let app: App;
const T = 1003;
const PUBLIC = "http://ideally.test";
const sup: Record<"a" | "b" | "c", number> = { a: 0, b: 0, c: 0 };

beforeAll(async () => {
  tdb = await createTestDb();
  app = testApp(tdb.db, { publicUrl: PUBLIC });
  await tdb.db`insert into credit_logs (client_id, type, credit_amount, description) values (${T}, 1, 100000, 'Test top-up')`;
  for (const k of ["a", "b", "c"] as const) sup[k] = await createSupplier(app, `Allocated ${k.toUpperCase()}`, `${k}.example`);
});
afterAll(async () => {
  await tdb.drop();
});

/** A Draft run of Acme Team A (super-approved), n completes in New Zealand. */
async function draftRun(name: string, n: number): Promise<{ runId: number; link: string }> {
  const p = await call(app, "acmeUser", T, "POST", "/api/v1/Projects", { projectName: name, projectTypeId: 1, frameworkId: 1000, regionIds: [1], sampleSize: n });
  expect(p.status, JSON.stringify(p.body)).toBe(201);
  expect((await call(app, "acmeUser", T, "POST", "/api/v1/TestOptions", { projectId: p.body.id, conceptText: "Oat bar" })).status).toBe(201);
  expect((await call(app, "staff", T, "POST", `/api/v1/Projects(${p.body.id})/SuperApprove`, {})).body.statusCode).toBe(300);
  const [r] = await fielding.createSurveys(tdb.db, p.body.id);
  return { runId: r!.surveyRunId, link: r!.surveyLink };
}

const setAllocations = (runId: number, allocations: unknown, who: "staff" | "acmeAdmin" = "staff") => call(app, who, T, "POST", `/api/v1/SurveyRuns(${runId})/SetSampleAllocations`, { allocations });
const readAllocations = async (runId: number) => (await call(app, "staff", T, "GET", `/api/v1/SurveyRuns(${runId})/SampleAllocations`)).body.value;
const enter = async (link: string, supplier: number, rid: string) => respondentPost(app, { id: 0, link }, "/start", { entryQuery: `supplier=${supplier}&rid=${rid}` });
/** `n` completes of `supplier` in the run, written as the respondent service leaves them. */
async function completes(runId: number, supplier: number, n: number, prefix: string) {
  for (let i = 0; i < n; i++) {
    await tdb.db`
      insert into survey_sessions (client_id, survey_run_id, region_id, status, completed_at, sample_supplier_id, supplier_rid)
      values (${T}, ${runId}, 1, 'Complete', now(), ${supplier}, ${`${prefix}${i}`})`;
  }
}

describe("caps from shares (largest remainder, worked by hand)", () => {
  test("each share of the target rounded down, the rest to the largest remainders, ties to the earlier supplier", () => {
    expect(capsOf([60, 40], 200)).toEqual([120, 80]);
    // 33.33 / 33.33 / 33.34 of 100: 33.33, 33.33, 33.34 -> 33, 33, 33 and one left, to the .34.
    expect(capsOf([33.33, 33.33, 33.34], 100)).toEqual([33, 33, 34]);
    // 50 / 50 of 3: 1.5 and 1.5 -> 1, 1 and one left, to the first.
    expect(capsOf([50, 50], 3)).toEqual([2, 1]);
    // 60 / 40 of 5: 3 and 2.
    expect(capsOf([60, 40], 5)).toEqual([3, 2]);
    // 99.99 / 0.01 of 1: 0.9999 and 0.0001 -> 0, 0 and one left, to the larger remainder.
    expect(capsOf([99.99, 0.01], 1)).toEqual([1, 0]);
  });
});

describe("a run's suppliers with their allocations", () => {
  test("two suppliers 60/40 of 5: each enters, the one whose cap is met goes back over quota; its rid already answering returns to its session", async () => {
    const { runId, link } = await draftRun("Allocations 60 40", 5);
    const set = await setAllocations(runId, [
      { sampleSupplierId: sup.a, share: 60 },
      { sampleSupplierId: sup.b, share: 40 },
    ]);
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.value.map((a: { sampleSupplierId: number; share: number; cap: number; supplierName: string }) => [a.sampleSupplierId, a.supplierName, a.share, a.cap])).toEqual([
      [sup.a, "Allocated A", 60, 3],
      [sup.b, "Allocated B", 40, 2],
    ]);
    const run = (await call(app, "staff", T, "GET", `/api/v1/SurveyRuns(${runId})?$select=sampleSource`)).body;
    expect(run.sampleSource).toBe("supplier");
    await fielding.launchRun(tdb.db, runId, PUBLIC);

    // B's rid b-open starts answering, then B's cap (2) is met by two completes.
    const open = await enter(link, sup.b, "b-open");
    expect([open.status, open.body.status]).toEqual([200, "InProgress"]);
    await completes(runId, sup.b, 2, "b-done-");
    const over = await enter(link, sup.b, "b-late");
    expect([over.status, over.body.status, over.body.redirectUrl]).toEqual([200, "Removed", "https://b.example/end?st=q&id=b-late"]);
    const [outcome] = await tdb.db<{ outcome: string }[]>`select outcome from supplier_outcomes where survey_run_id = ${runId} and rid = 'b-late'`;
    expect(outcome!.outcome, "the reconciliation lists it over quota").toBe("over-quota");
    const again = await enter(link, sup.b, "b-open");
    expect([again.status, again.body.status, again.body.respondentId], "answering when the cap was met: back to its session").toEqual([200, "InProgress", open.body.respondentId]);
    const a = await enter(link, sup.a, "a-1");
    expect([a.status, a.body.status], "A's cap is not met").toEqual([200, "InProgress"]);
    const c = await enter(link, sup.c, "c-1");
    expect(c.status, "a supplier with no allocation is refused").toBe(403);
    expect(await readAllocations(runId)).toEqual([
      { sampleSupplierId: sup.a, supplierName: "Allocated A", share: 60, cap: 3, completes: 0, inProgress: 1 },
      { sampleSupplierId: sup.b, supplierName: "Allocated B", share: 40, cap: 2, completes: 2, inProgress: 1 },
    ]);

    // Staff move shares in the field: B to 60 (cap 3) takes a new rid again.
    expect(
      (
        await setAllocations(runId, [
          { sampleSupplierId: sup.a, share: 40 },
          { sampleSupplierId: sup.b, share: 60 },
        ])
      ).status,
    ).toBe(200);
    expect((await enter(link, sup.b, "b-more")).body.status).toBe("InProgress");
  });

  test("before: one supplier; a second one's entry is refused, and SetSampleSupplier replaces the allocations with its one", async () => {
    const { runId, link } = await draftRun("Allocations replaced", 10);
    expect(
      (
        await setAllocations(runId, [
          { sampleSupplierId: sup.a, share: 50 },
          { sampleSupplierId: sup.b, share: 50 },
        ])
      ).status,
    ).toBe(200);
    expect((await call(app, "staff", T, "POST", `/api/v1/SurveyRuns(${runId})/SetSampleSupplier`, { sampleSupplierId: sup.c })).status).toBe(200);
    expect(await readAllocations(runId)).toEqual([]);
    await fielding.launchRun(tdb.db, runId, PUBLIC);
    expect((await enter(link, sup.a, "a-x")).status).toBe(403);
    expect((await enter(link, sup.c, "c-x")).body.status).toBe("InProgress");
  });

  test("refused with nothing changed: shares not summing to 100, a supplier twice, none, a share below 0.01 (400); unknown (404); the simulated panel (409); a member (403)", async () => {
    const { runId } = await draftRun("Allocations refused", 10);
    const cases: [unknown, number, unknown][] = [
      [
        [
          { sampleSupplierId: sup.a, share: 60 },
          { sampleSupplierId: sup.b, share: 39.99 },
        ],
        400,
        [{ path: "allocations", message: "The shares sum to 99.99%, not 100%" }],
      ],
      [
        [
          { sampleSupplierId: sup.a, share: 50 },
          { sampleSupplierId: sup.a, share: 50 },
        ],
        400,
        [{ path: "allocations/1/sampleSupplierId", message: "Named twice" }],
      ],
      [[], 400, [{ path: "allocations", message: "From 1 to 10 suppliers" }]],
      [
        [
          { sampleSupplierId: sup.a, share: 99.995 },
          { sampleSupplierId: sup.b, share: 0.005 },
        ],
        400,
        [
          { path: "allocations/0/share", message: "A percent from 0.01 to 100, in hundredths" },
          { path: "allocations/1/share", message: "A percent from 0.01 to 100, in hundredths" },
        ],
      ],
    ];
    for (const [body, status, errors] of cases) {
      const r = await setAllocations(runId, body);
      expect([r.status, r.body.errors], JSON.stringify(body)).toEqual([status, errors]);
    }
    expect((await setAllocations(runId, [{ sampleSupplierId: 987654, share: 100 }])).status).toBe(404);
    const sim = await tdb.db.begin((tx) => simulatedSupplier(tx));
    expect((await setAllocations(runId, [{ sampleSupplierId: sim.id, share: 100 }])).status).toBe(409);
    expect((await setAllocations(runId, [{ sampleSupplierId: sup.a, share: 100 }], "acmeAdmin")).status).toBe(403);
    expect(await readAllocations(runId)).toEqual([]);
    const [r] = await tdb.db<{ source: string }[]>`select sample_source as source from survey_runs where id = ${runId}`;
    expect(r!.source).toBe("simulated");
  });

  test("a supplier with respondents in the run cannot be dropped; a run without a number of completes, or with respondents of the simulated panel, takes no allocations (409)", async () => {
    const { runId } = await draftRun("Allocations kept", 10);
    expect(
      (
        await setAllocations(runId, [
          { sampleSupplierId: sup.a, share: 50 },
          { sampleSupplierId: sup.b, share: 50 },
        ])
      ).status,
    ).toBe(200);
    await completes(runId, sup.b, 1, "kept-");
    const dropped = await setAllocations(runId, [{ sampleSupplierId: sup.a, share: 100 }]);
    expect([dropped.status, dropped.body.message]).toEqual([
      409,
      `SampleSuppliers(${sup.b}) has 1 respondent in survey run ${runId}: keep it in the allocations (a share of what it has delivered, at least)`,
    ]);
    const untargeted = await draftRun("Allocations untargeted", 10);
    await tdb.db`update survey_runs set target_completes = null where id = ${untargeted.runId}`;
    const noTarget = await setAllocations(untargeted.runId, [{ sampleSupplierId: sup.a, share: 100 }]);
    expect([noTarget.status, noTarget.body.message]).toEqual([409, `Survey run ${untargeted.runId} has no number of completes to share: set it first (CreateOrUpdateSamplifyProject)`]);
    const other = await draftRun("Allocations simulated", 10);
    await tdb.db`insert into survey_sessions (client_id, survey_run_id, region_id, status, is_simulated) values (${T}, ${other.runId}, 1, 'Complete', true)`;
    const mixed = await setAllocations(other.runId, [{ sampleSupplierId: sup.a, share: 100 }]);
    expect([mixed.status, mixed.body.message]).toEqual([
      409,
      `Survey run ${other.runId} has 1 respondent of the simulated panel or the team's own list: a supplier's run takes only its suppliers' respondents, or its results would mix kinds of sample`,
    ]);
  });
});
