// The credit rules that need no database, called directly: the cost formula (cost.ts) and the
// ledger's pure rules (ledger.ts: wave mode and wave dates, the overdraft message, which charges a
// cancel refunds, ResyncScheduledProject's plan, the shortfall refund). Every expected value is
// worked by hand from docs/credits.md (the formula, its constants and worked examples, "Charging,
// settling, refunding") and SPEC 3 and 4 (log and schedule types, wave mode), never taken from the
// code. Fast enough to run per mutant (`bun run test:mutation cost ledger`).
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import {
  BOOST_MULTIPLIER,
  CELL_INCREMENT,
  costOfRun,
  CUSTOM_QUESTION_ADDON,
  CUSTOMER_PANEL_RATE,
  INCLUDED_CUSTOM_QUESTIONS,
  MARKET_REACH_ADDON,
  OTHER_REGION_RATE,
  PRICE_SENSITIVITY_ADDON,
  rateOf,
  STANDARD_COMPLETES,
  type CostInputs,
  type RegionInput,
} from "../../api/src/domains/credits/cost.ts";
import {
  assertAffordable,
  DEFAULT_FREQUENCY_WEEKS,
  LOG,
  MANUAL_TYPES,
  PROJECT_ADJUSTMENT_TYPES,
  refundsOf,
  resyncPlan,
  SCHEDULE,
  SHORTFALL_REFUND_RULE,
  shortfallRefund,
  todayUtc,
  waveDates,
  waveMode,
  wavesToSchedule,
  type ProjectForSchedule,
} from "../../api/src/domains/credits/ledger.ts";
import type { ScheduleRow } from "../../api/src/domains/credits/credits.sql.ts";
import { ApiError } from "../../api/src/errors.ts";

const region = (regionId: number, sampleSize: number, isCustomerPanel = false, regionName = `Region ${regionId}`): RegionInput => ({ regionId, regionName, sampleSize, isCustomerPanel });
const nz = (n: number, customer = false) => region(1, n, customer, "New Zealand");
const inputs = (extra: Partial<CostInputs> = {}): CostInputs => ({ regions: [nz(100)], testOptions: 1, priceSensitivity: false, marketReach: false, customQuestions: 0, ...extra });
const total = (extra: Partial<CostInputs>) => costOfRun(inputs(extra)).total;

describe("the constants of docs/credits.md's table", () => {
  test("as documented", () => {
    expect([STANDARD_COMPLETES, BOOST_MULTIPLIER, CELL_INCREMENT, PRICE_SENSITIVITY_ADDON, MARKET_REACH_ADDON, INCLUDED_CUSTOM_QUESTIONS, CUSTOM_QUESTION_ADDON]).toEqual([
      200, 1.5, 0.25, 0.2, 0.15, 5, 0.05,
    ]);
    expect([CUSTOMER_PANEL_RATE, OTHER_REGION_RATE]).toEqual([0.25, 1.25]);
  });
});

describe("rateOf: credits per complete", () => {
  test("Ideally panel: 1.00 New Zealand, Australia, USA; 1.25 Singapore, US states, any other; 1.50 Other markets", () => {
    const ideally = [1, 2, 15, 17, 56, 59, 104, 3, 999999].map((id) => rateOf(id, false));
    expect(ideally).toEqual([1, 1, 1, 1.25, 1.25, 1.25, 1.25, 1.25, 1.5]);
  });
  test("customer panel: 0.25 in any region", () => {
    expect([1, 17, 56, 999999, 3].map((id) => rateOf(id, true))).toEqual([0.25, 0.25, 0.25, 0.25, 0.25]);
  });
});

describe("costOfRun: the formula of docs/credits.md", () => {
  test("one region, one cell, no add-ons: rate x completes", () => {
    const c = costOfRun(inputs());
    expect(c.total).toBe(100);
    expect(c.cells).toBe(1);
    expect(c.cellFactor).toBe(1);
    expect(c.addOns).toEqual({ priceSensitivity: false, marketReach: false, customQuestions: 0, includedCustomQuestions: 5, extraCustomQuestions: 0, rate: 0 });
    expect(c.regions).toEqual([{ regionId: 1, regionName: "New Zealand", sampleSize: 100, isCustomerPanel: false, rate: 1, standardCompletes: 100, boostedCompletes: 0, cost: 100 }]);
  });

  test("completes beyond 200 at 1.5x: 199, 200, 201, 202", () => {
    const at = (n: number) => costOfRun(inputs({ regions: [nz(n)] })).regions[0]!;
    expect([at(199).standardCompletes, at(199).boostedCompletes, at(199).cost]).toEqual([199, 0, 199]);
    expect([at(200).standardCompletes, at(200).boostedCompletes, at(200).cost]).toEqual([200, 0, 200]);
    // 200 + 1.5 = 201.5, rounded up; 200 + 3 = 203 exactly, not rounded further.
    expect([at(201).standardCompletes, at(201).boostedCompletes, at(201).cost]).toEqual([200, 1, 202]);
    expect([at(202).standardCompletes, at(202).boostedCompletes, at(202).cost]).toEqual([200, 2, 203]);
    expect(at(300).cost).toBe(350);
  });

  test("cells: the live test options, at least 1; each beyond the first adds 0.25", () => {
    const c = (testOptions: number) => costOfRun(inputs({ testOptions }));
    expect([c(0).cells, c(0).cellFactor, c(0).total]).toEqual([1, 1, 100]);
    expect([c(1).cells, c(1).cellFactor, c(1).total]).toEqual([1, 1, 100]);
    expect([c(2).cells, c(2).cellFactor, c(2).total]).toEqual([2, 1.25, 125]);
    expect([c(4).cells, c(4).cellFactor, c(4).total]).toEqual([4, 1.75, 175]);
  });

  test("add-ons: price sensitivity 0.20, market reach 0.15, each custom question beyond 5 at 0.05 (4, 5, 6, 7)", () => {
    expect(total({ priceSensitivity: true })).toBe(120);
    expect(total({ marketReach: true })).toBe(115);
    expect(total({ priceSensitivity: true, marketReach: true })).toBe(135);
    const custom = (n: number) => costOfRun(inputs({ customQuestions: n }));
    expect([custom(4).addOns.extraCustomQuestions, custom(4).addOns.rate, custom(4).total]).toEqual([0, 0, 100]);
    expect([custom(5).addOns.extraCustomQuestions, custom(5).addOns.rate, custom(5).total]).toEqual([0, 0, 100]);
    expect([custom(6).addOns.extraCustomQuestions, custom(6).addOns.rate, custom(6).total]).toEqual([1, 0.05, 105]);
    // 100 x 1.10 is 110.00000000000001 in floats: the formula is exact, so 110, not 111.
    expect([custom(7).addOns.extraCustomQuestions, custom(7).addOns.rate, custom(7).total]).toEqual([2, 0.1, 110]);
    const all = costOfRun(inputs({ priceSensitivity: true, marketReach: true, customQuestions: 7 }));
    expect(all.addOns).toEqual({ priceSensitivity: true, marketReach: true, customQuestions: 7, includedCustomQuestions: 5, extraCustomQuestions: 2, rate: 0.45 });
    expect(all.total).toBe(145);
  });

  test("whole credits, rounded up; an exact product is not rounded further", () => {
    expect(total({ regions: [nz(1)], testOptions: 2 })).toBe(2); // 1.25
    expect(total({ regions: [nz(3, true)] })).toBe(1); // 0.75
    expect(total({ regions: [nz(4, true)] })).toBe(1); // 1.00
    expect(total({ regions: [nz(5, true)] })).toBe(2); // 1.25
    expect(total({ regions: [region(17, 80)], marketReach: true })).toBe(115); // 1.25 x 80 x 1.15 = 115
    expect(total({ regions: [nz(0)] })).toBe(0);
  });

  test("regions are priced each and summed, each with its own rate", () => {
    const c = costOfRun(inputs({ regions: [nz(100), region(2, 100, true, "Australia"), region(999999, 100, false, "Other markets"), region(59, 300, false, "California")] }));
    expect(c.regions.map((r) => [r.regionId, r.regionName, r.rate, r.cost, r.isCustomerPanel, r.sampleSize])).toEqual([
      [1, "New Zealand", 1, 100, false, 100],
      [2, "Australia", 0.25, 25, true, 100],
      [999999, "Other markets", 1.5, 150, false, 100],
      [59, "California", 1.25, 438, false, 300], // 1.25 x (200 + 150) = 437.5
    ]);
    expect(c.total).toBe(713);
    expect(costOfRun(inputs({ regions: [] })).total).toBe(0);
  });

  test("the worked example: NZ 250 Ideally panel, AU 100 customer panel, 3 options, price sensitivity, 7 custom: 586", () => {
    const c = costOfRun({ regions: [nz(250), region(2, 100, true, "Australia")], testOptions: 3, priceSensitivity: true, marketReach: false, customQuestions: 7 });
    expect(c.cellFactor).toBe(1.5);
    expect(c.addOns.rate).toBe(0.3);
    expect(c.regions.map((r) => r.cost)).toEqual([537, 49]);
    expect(c.total).toBe(586);
  });

  test("the shortfall example: NZ 100, 2 options, price sensitivity: 150; 50 delivered 75; 37 delivered 56", () => {
    const run = (n: number) => total({ regions: [nz(n)], testOptions: 2, priceSensitivity: true });
    expect([run(100), run(50), run(37)]).toEqual([150, 75, 56]);
  });
});

describe("SPEC 3 and 4's codes", () => {
  test("credit log types, the staff-written ones and the project adjustments", () => {
    expect(LOG).toEqual({
      HubspotDeal: 1,
      CBSubscription: 2,
      PendingSurveyRun: 30,
      SurveyRun: 40,
      AddRunAdj: 80,
      StdQuestionAdj: 81,
      AddProfilerAdj: 82,
      MakeGoodAdj: 83,
      BoostedSampleAdj: 84,
      MonadicAdj: 85,
      Freebie: 86,
      OtherAdj: 90,
      PendingTransfer: 130,
      Transfer: 140,
    });
    expect([...MANUAL_TYPES].sort((a, b) => a - b)).toEqual([1, 2, 80, 81, 82, 83, 84, 85, 86, 90]);
    expect([...PROJECT_ADJUSTMENT_TYPES].sort((a, b) => a - b)).toEqual([80, 81, 82, 83, 84, 85, 90]);
    expect(SCHEDULE).toEqual({ Standard: 1, DelayCharge: 10, DelayChargeFuture: 15 });
  });
});

const project = (extra: Partial<ProjectForSchedule> = {}): ProjectForSchedule => ({
  id: 1042,
  clientId: 1003,
  scheduleStartDate: null,
  scheduleFrequencyWeeks: null,
  scheduleWavesRequired: null,
  wavesRequired: false,
  ...extra,
});

describe("wave mode (SPEC 4): a start date and a frequency, or waves required", () => {
  test("waveMode", () => {
    expect(waveMode(project())).toBe(false);
    expect(waveMode(project({ scheduleStartDate: "2026-03-02" }))).toBe(false);
    expect(waveMode(project({ scheduleFrequencyWeeks: 2 }))).toBe(false);
    expect(waveMode(project({ scheduleStartDate: "2026-03-02", scheduleFrequencyWeeks: 2 }))).toBe(true);
    expect(waveMode(project({ wavesRequired: true }))).toBe(true);
    expect(waveMode(project({ scheduleStartDate: "2026-03-02", wavesRequired: true }))).toBe(true);
  });

  test("wavesToSchedule: the waves required in wave mode (1 if unset, at least 1), else one", () => {
    expect(wavesToSchedule(project({ scheduleWavesRequired: 3 }))).toBe(1);
    expect(wavesToSchedule(project({ wavesRequired: true, scheduleWavesRequired: 3 }))).toBe(3);
    expect(wavesToSchedule(project({ wavesRequired: true }))).toBe(1);
    expect(wavesToSchedule(project({ wavesRequired: true, scheduleWavesRequired: 0 }))).toBe(1);
    expect(wavesToSchedule(project({ scheduleStartDate: "2026-03-02", scheduleFrequencyWeeks: 1, scheduleWavesRequired: 2 }))).toBe(2);
  });
});

describe("waveDates: from the start date, frequency weeks apart, never in the past", () => {
  const today = "2026-01-01";
  test("from the start date, the frequency apart, across a month and a year", () => {
    const p = project({ scheduleStartDate: "2026-03-02", scheduleFrequencyWeeks: 2 });
    expect(waveDates(p, 1, 3, null, today)).toEqual([
      { wave: 1, date: "2026-03-02" },
      { wave: 2, date: "2026-03-16" },
      { wave: 3, date: "2026-03-30" },
    ]);
    const dec = project({ scheduleStartDate: "2026-12-21", scheduleFrequencyWeeks: 2 });
    expect(waveDates(dec, 1, 2, null, today)).toEqual([
      { wave: 1, date: "2026-12-21" },
      { wave: 2, date: "2027-01-04" },
    ]);
  });

  test("4 weeks apart when the frequency is unset (DEFAULT_FREQUENCY_WEEKS)", () => {
    expect(DEFAULT_FREQUENCY_WEEKS).toBe(4);
    expect(waveDates(project({ scheduleStartDate: "2026-03-02", wavesRequired: true }), 1, 2, null, today)).toEqual([
      { wave: 1, date: "2026-03-02" },
      { wave: 2, date: "2026-03-30" },
    ]);
  });

  test("without a start date: from the first wave's date, else today", () => {
    const p = project({ scheduleFrequencyWeeks: 1, wavesRequired: true });
    expect(waveDates(p, 2, 3, "2026-02-10", today)).toEqual([
      { wave: 2, date: "2026-02-17" },
      { wave: 3, date: "2026-02-24" },
    ]);
    expect(waveDates(p, 1, 2, null, today)).toEqual([
      { wave: 1, date: "2026-01-01" },
      { wave: 2, date: "2026-01-08" },
    ]);
    // The start date wins over the first wave's date.
    expect(waveDates({ ...p, scheduleStartDate: "2026-03-02" }, 1, 1, "2026-02-10", today)).toEqual([{ wave: 1, date: "2026-03-02" }]);
  });

  test("planned dates that have passed go out from today, keeping the frequency", () => {
    const p = project({ scheduleStartDate: "2025-12-01", scheduleFrequencyWeeks: 4 });
    expect(waveDates(p, 1, 3, null, today)).toEqual([
      { wave: 1, date: "2026-01-01" },
      { wave: 2, date: "2026-01-29" },
      { wave: 3, date: "2026-02-26" },
    ]);
    // Resuming after wave 1: wave 2 was planned for 2025-12-29, so it goes today.
    expect(waveDates(p, 2, 3, null, today)).toEqual([
      { wave: 2, date: "2026-01-01" },
      { wave: 3, date: "2026-01-29" },
    ]);
    // A planned date of today itself is kept.
    expect(waveDates(project({ scheduleStartDate: today, scheduleFrequencyWeeks: 1 }), 1, 1, null, today)).toEqual([{ wave: 1, date: today }]);
  });

  test("no waves when the range is empty", () => {
    expect(waveDates(project({ scheduleStartDate: "2026-03-02", scheduleFrequencyWeeks: 2 }), 3, 2, null, today)).toEqual([]);
  });

  test("today by default (UTC)", () => {
    const d = (x: Date) => `${x.getUTCFullYear()}-${String(x.getUTCMonth() + 1).padStart(2, "0")}-${String(x.getUTCDate()).padStart(2, "0")}`;
    const before = d(new Date());
    const got = todayUtc();
    const fromDefault = waveDates(project(), 1, 1)[0]!.date;
    const after = d(new Date());
    expect([before, after]).toContain(got);
    expect([before, after]).toContain(fromDefault);
  });
});

describe("the overdraft refusal names the balance, the cost and the limit (docs/credits.md)", () => {
  test("the documented message", () => {
    let err: unknown;
    try {
      assertAffordable({ clientId: 1003, balance: 590, overdraftLimit: 100 }, -700, "project 1042");
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).message).toBe("Not enough credits for project 1042: balance 590.00, cost 700.00, overdraft limit 100.00 (the balance may not go below -100.00; it would be -110.00)");
    expect(() => assertAffordable({ clientId: 1003, balance: 590, overdraftLimit: 100 }, -690, "project 1042")).not.toThrow();
  });
});

function schedule(extra: Partial<ScheduleRow>): ScheduleRow {
  return {
    id: 1,
    regionId: 1,
    surveyRunId: null,
    scheduleDate: "2026-03-02",
    scheduleTypeId: SCHEDULE.DelayCharge,
    isCustomerPanel: false,
    creditLogId: null,
    waveNumber: 1,
    sampleSize: 100,
    sampleSupplierId: null,
    creditAmount: null,
    creditType: null,
    ...extra,
  };
}
const charged = (wave: number, amount: number, logId: number, extra: Partial<ScheduleRow> = {}) =>
  schedule({ id: logId, waveNumber: wave, scheduleTypeId: SCHEDULE.Standard, creditLogId: logId, creditAmount: amount, creditType: LOG.PendingSurveyRun, ...extra });
const uncharged = (wave: number, date: string, id = 100 + wave) => schedule({ id, waveNumber: wave, scheduleDate: date });

describe("refundsOf: a cancel refunds each pending charge still negative, with the sign turned", () => {
  test("only pending (30) charges below zero", () => {
    const rows = [
      charged(1, -100, 501),
      uncharged(2, "2026-03-16"),
      charged(1, 100, 502), // a positive 30 row is a refund, not a charge
      charged(1, 0, 503),
      charged(1, -50, 504, { creditType: LOG.Freebie }),
      charged(1, -25, 505, { creditType: LOG.SurveyRun }),
      schedule({ id: 7, creditLogId: 506, creditType: LOG.PendingSurveyRun, creditAmount: null }),
      charged(2, -37.5, 507),
    ];
    expect(refundsOf(rows)).toEqual([
      { creditLogId: 501, amount: 100 },
      { creditLogId: 507, amount: 37.5 },
    ]);
    expect(refundsOf([])).toEqual([]);
  });
});

describe("resyncPlan: ResyncScheduledProject rebuilds the unrun waves, charging as many as were charged", () => {
  const today = "2026-01-01";
  const cost = costOfRun(inputs({ testOptions: 2 })); // 125 a run
  const waves3 = project({ scheduleStartDate: "2026-03-02", scheduleFrequencyWeeks: 2, scheduleWavesRequired: 3 });

  test("nothing run yet: every wave rebuilt, the charged first wave charged again at today's cost", () => {
    const all = [charged(1, -100, 501), uncharged(2, "2026-03-16"), uncharged(3, "2026-03-30")];
    const plan = resyncPlan(waves3, all, all, cost, today);
    expect(plan.waves).toEqual([
      { wave: 1, date: "2026-03-02" },
      { wave: 2, date: "2026-03-16" },
      { wave: 3, date: "2026-03-30" },
    ]);
    expect([...plan.charge]).toEqual([1]);
    expect(plan.newCharges).toBe(125);
    expect(plan.oldPending).toBe(100);
  });

  test("after wave 1 ran: waves 2 on, up to the waves now required", () => {
    const ran = charged(1, -100, 501, { surveyRunId: 7, creditType: LOG.SurveyRun });
    const unrun = [charged(2, -100, 502), uncharged(3, "2026-03-30")];
    const plan = resyncPlan({ ...waves3, scheduleWavesRequired: 4 }, unrun, [ran, ...unrun], cost, today);
    expect(plan.waves).toEqual([
      { wave: 2, date: "2026-03-16" },
      { wave: 3, date: "2026-03-30" },
      { wave: 4, date: "2026-04-13" },
    ]);
    expect([...plan.charge]).toEqual([2]);
    expect(plan.newCharges).toBe(125);
    expect(plan.oldPending).toBe(100);
  });

  test("the last wave that ran counts, not the first; all waves run: nothing rebuilt, regions or not", () => {
    const ran1 = charged(1, -100, 501, { surveyRunId: 7, creditType: LOG.SurveyRun });
    const ran2 = charged(2, -100, 502, { surveyRunId: 8, creditType: LOG.SurveyRun });
    const unrun = [charged(3, -100, 503)];
    const plan = resyncPlan(waves3, unrun, [ran2, ran1, ...unrun], cost, today);
    expect(plan.waves).toEqual([{ wave: 3, date: "2026-03-30" }]);
    expect([...plan.charge]).toEqual([3]);
    const done = resyncPlan({ ...waves3, scheduleWavesRequired: 2 }, [], [ran1, ran2], { total: 0, regions: [] }, today);
    expect(done).toEqual({ waves: [], charge: new Set(), newCharges: 0, oldPending: 0 });
  });

  test("a schedule of a run without a wave number counts as wave 0", () => {
    const legacy = schedule({ id: 9, waveNumber: null, surveyRunId: 3 });
    const plan = resyncPlan(waves3, [], [legacy], cost, today);
    expect(plan.waves.map((w) => w.wave)).toEqual([1, 2, 3]);
    expect(plan.charge.size).toBe(0);
  });

  test("not in wave mode: one wave, at the first wave's date", () => {
    const single = project({ scheduleWavesRequired: 3 });
    const all = [charged(1, -80, 501, { scheduleDate: "2026-02-10" })];
    const plan = resyncPlan(single, all, all, cost, today);
    expect(plan.waves).toEqual([{ wave: 1, date: "2026-02-10" }]);
    expect([...plan.charge]).toEqual([1]);
    expect([plan.newCharges, plan.oldPending]).toEqual([125, 80]);
  });

  test("without a start date, the dates follow wave 1's date, whatever order the schedules come in", () => {
    const p = project({ scheduleFrequencyWeeks: 1, wavesRequired: true, scheduleWavesRequired: 3 });
    const ran2 = charged(2, -100, 502, { surveyRunId: 8, creditType: LOG.SurveyRun, scheduleDate: "2026-02-17" });
    const ran1 = charged(1, -100, 501, { surveyRunId: 7, creditType: LOG.SurveyRun, scheduleDate: "2026-02-10" });
    const unrun = [charged(3, -100, 503, { scheduleDate: "2026-02-24" })];
    // Wave 3 is planned two weeks after wave 1 (2026-02-10), not after the first row listed.
    expect(resyncPlan(p, unrun, [ran2, ran1, ...unrun], cost, today).waves).toEqual([{ wave: 3, date: "2026-02-24" }]);
  });

  test("wave mode without waves required: as many waves as the project has, at least one", () => {
    const open = project({ scheduleStartDate: "2026-03-02", scheduleFrequencyWeeks: 2, wavesRequired: true });
    const two = [charged(1, -100, 501), uncharged(2, "2026-03-16")];
    expect(resyncPlan(open, two, two, cost, today).waves.map((w) => w.wave)).toEqual([1, 2]);
    const none = resyncPlan(open, [], [], cost, today);
    expect(none.waves).toEqual([{ wave: 1, date: "2026-03-02" }]);
    expect([none.charge.size, none.newCharges, none.oldPending]).toEqual([0, 0, 0]);
  });

  test("two regions charged in one wave: one wave to charge again; two charged waves: both", () => {
    const twoRegions = [charged(1, -60, 501), charged(1, -40, 502, { regionId: 2 }), uncharged(2, "2026-03-16"), uncharged(3, "2026-03-30")];
    const plan = resyncPlan(waves3, twoRegions, twoRegions, cost, today);
    expect([...plan.charge]).toEqual([1]);
    expect([plan.newCharges, plan.oldPending]).toEqual([125, 100]);
    const twoWaves = [charged(1, -100, 501), charged(2, -100, 502, { scheduleDate: "2026-03-16" }), uncharged(3, "2026-03-30")];
    const both = resyncPlan(waves3, twoWaves, twoWaves, cost, today);
    expect([...both.charge]).toEqual([1, 2]);
    expect([both.newCharges, both.oldPending]).toEqual([250, 200]);
  });

  test("a schedule whose log is not a pending charge is neither refunded nor charged again", () => {
    const freebie = [charged(1, -100, 501, { creditType: LOG.Freebie }), uncharged(2, "2026-03-16")];
    const plan = resyncPlan(waves3, freebie, freebie, cost, today);
    expect([plan.charge.size, plan.newCharges, plan.oldPending]).toEqual([0, 0, 0]);
  });

  test("no regions: 409 when waves are to be rebuilt", () => {
    const all = [charged(1, -100, 501)];
    let err: unknown;
    try {
      resyncPlan(waves3, all, all, { total: 0, regions: [] }, today);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(409);
    expect((err as ApiError).message).toBe("Project 1042 has no regions to schedule");
  });

  test("dates that have passed go out from today", () => {
    const late = project({ scheduleStartDate: "2025-12-01", scheduleFrequencyWeeks: 4, scheduleWavesRequired: 2 });
    const all = [charged(1, -100, 501, { scheduleDate: "2025-12-01" }), uncharged(2, "2025-12-29")];
    expect(resyncPlan(late, all, all, cost, today).waves).toEqual([
      { wave: 1, date: "2026-01-01" },
      { wave: 2, date: "2026-01-29" },
    ]);
  });
});

describe("shortfallRefund: the charge minus what the delivered sample costs, never below 0 (docs/credits.md)", () => {
  test("the worked examples and the edges", () => {
    expect(shortfallRefund(150, 75)).toBe(75);
    expect(shortfallRefund(150, 56)).toBe(94);
    expect(shortfallRefund(150, 150)).toBe(0);
    expect(shortfallRefund(150, 151)).toBe(0);
  });
  test("in hundredths: 0.30 - 0.10 is 0.20, not 0.19999999999999998", () => {
    expect(shortfallRefund(0.3, 0.1)).toBe(0.2);
    expect(shortfallRefund(100.1, 33)).toBe(67.1);
  });
});

describe("the shortfall refund rule in words (said to those who accept a shortfall at Submit)", () => {
  test("states docs/credits.md 'Shortfall refunds': refunded at processing, one credit log of the run, the charge minus the delivered completes' price, exclusions not delivered", () => {
    // Each clause against docs/credits.md's own words (read here, not copied from the constant).
    const doc = readFileSync(new URL("../../docs/credits.md", import.meta.url), "utf8");
    const section = doc.slice(doc.indexOf("**Shortfall refunds**"), doc.indexOf("**ResyncScheduledProject**")).replace(/\s+/g, " ");
    expect(section).toContain("is refunded when it is processed");
    expect(section).toContain("one positive SurveyRun (40) row of the run");
    expect(section).toContain("the run's charge minus the price of the completes delivered by the same formula");
    expect(section).toContain("removed by staff or excluded for quality are not delivered");
    expect(SHORTFALL_REFUND_RULE).toBe(
      "the shortfall is refunded when the run is processed, as one credit log of the run: its charge minus the price of the completes delivered at the same rates (respondents excluded for quality or removed are not delivered)",
    );
  });
});
