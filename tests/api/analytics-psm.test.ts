// Van Westendorp PSM with the Newton-Miller-Smith extension: hand-computed cases whose answer is
// known by construction, and the smartphone reference data (1,000 respondents) for invariants.
import { describe, expect, test } from "bun:test";
import { parseCsv } from "../../api/src/analytics/csv.ts";
import { isConsistent, parseIntentLabel, vanWestendorp, type PsmRespondent } from "../../api/src/analytics/psm.ts";

const REF = new URL("../fixtures/reference-data", import.meta.url).pathname;
const r = (tooCheap: number, cheap: number, expensive: number, tooExpensive: number, extra: Partial<PsmRespondent> = {}): PsmRespondent => ({
  tooCheap,
  cheap,
  expensive,
  tooExpensive,
  ...extra,
});

describe("Van Westendorp, by hand", () => {
  // Two respondents (1,2,3,4) and (2,3,4,5); grid 1..5.
  // tooCheap = [.5,0,0,0,0], notCheap = [0,.5,1,1,1]        -> PMC between 1 and 2 at 1.5
  // tooExpensive = [0,0,0,.5,1]                               -> OPP where it meets tooCheap: 2 exactly
  // cheap = [1,.5,0,0,0], expensive = [0,0,.5,1,1]            -> IPP at 2.5
  // notExpensive = [1,1,.5,0,0]                               -> PME at 3.5
  test("unweighted crossings by linear interpolation", () => {
    const res = vanWestendorp([r(1, 2, 3, 4), r(2, 3, 4, 5)], { curves: true });
    expect(res).toMatchObject({ n: 2, invalid: 0, pmc: 1.5, opp: 2, ipp: 2.5, pme: 3.5 });
    expect(res.curves!.price).toEqual([1, 2, 3, 4, 5]);
    expect(res.curves!.tooCheap).toEqual([0.5, 0, 0, 0, 0]);
    expect(res.curves!.notExpensive).toEqual([1, 1, 0.5, 0, 0]);
  });

  // Weights 3 and 1: tooCheap = [.25,0,..], notCheap = [0,.75,1,..] -> PMC 1.25; OPP 2;
  // cheap = [1,.25,0,..], expensive = [0,0,.75,1,1] -> IPP 2.25; notExpensive [1,1,.25,0,0] -> PME 3.25.
  test("weighted crossings, and a weight of 3 equals three copies", () => {
    const weighted = vanWestendorp([r(1, 2, 3, 4, { weight: 3 }), r(2, 3, 4, 5)]);
    expect(weighted).toMatchObject({ pmc: 1.25, opp: 2, ipp: 2.25, pme: 3.25 });
    const copies = vanWestendorp([r(1, 2, 3, 4), r(1, 2, 3, 4), r(1, 2, 3, 4), r(2, 3, 4, 5)]);
    for (const k of ["pmc", "opp", "ipp", "pme"] as const) expect(copies[k]).toBeCloseTo(weighted[k]!, 12);
  });

  test("inconsistent respondents are counted and left out", () => {
    const res = vanWestendorp([r(1, 2, 3, 4), r(2, 3, 4, 5), r(3, 3, 4, 5), r(5, 4, 3, 2), r(1, 2, Number.NaN, 4)]);
    expect(res).toMatchObject({ n: 2, invalid: 3, pmc: 1.5, opp: 2, ipp: 2.5, pme: 3.5 });
    expect(vanWestendorp([r(2, 1, 3, 4)])).toMatchObject({ n: 0, invalid: 1, pmc: null, pme: null });
  });

  // One respondent (10,20,30,40), intent 5 at bargain (0.7) and 4 at expensive (0.5):
  // trial on the grid = [0, .7, .5, 0] -> max trial at 20. Between 20 and 30 trial = 1.1 − .02p,
  // revenue 1.1p − .02p², maximal at p = 27.5 with revenue 15.125 (> 14 at 20, 15 at 30).
  test("Newton-Miller-Smith trial and revenue optima", () => {
    const res = vanWestendorp([r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4 })], { curves: true });
    expect(res.curves!.trial).toEqual([0, 0.7, 0.5, 0]);
    expect(res.nms!.trialOptimal).toEqual({ price: 20, trial: 0.7, revenue: 14 });
    expect(res.nms!.revenueOptimal.price).toBeCloseTo(27.5, 12);
    expect(res.nms!.revenueOptimal.revenue).toBeCloseTo(15.125, 12);
    expect(res.nms!.revenueOptimal.trial).toBeCloseTo(0.55, 12);
  });

  test("NMS is weighted; calibration can be overridden", () => {
    const data = [
      r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4, weight: 3 }),
      r(10, 20, 30, 40, { intentCheap: 1, intentExpensive: 1 }),
    ];
    expect(vanWestendorp(data).nms!.trialOptimal.trial).toBeCloseTo(0.525, 12);
    const cal = vanWestendorp(data, { calibration: [1, 0.8, 0.3, 0.1, 0] }).nms!;
    expect(cal.trialOptimal.trial).toBeCloseTo(0.75, 12);
    expect(vanWestendorp([r(1, 2, 3, 4)]).nms).toBeUndefined();
  });

  test("purchase-intent labels", () => {
    expect(["Very likely", "likely", " LIKELY ", "Neither likely  nor unlikely", "Unlikely", "very UNLIKELY"].map(parseIntentLabel)).toEqual([
      5, 4, 4, 3, 2, 1,
    ]);
    expect(parseIntentLabel("Somewhat likely")).toBeNull();
    expect(parseIntentLabel(null)).toBeNull();
  });
});

describe("Van Westendorp on psm_smartphone_1000.csv", async () => {
  const bytes = await Bun.file(`${REF}/psm_smartphone_1000.csv`).arrayBuffer();
  const [header, ...rows] = parseCsv(new TextDecoder("windows-1252").decode(bytes));
  const data = rows.map((c) =>
    r(Number(c[0]), Number(c[1]), Number(c[2]), Number(c[3]), { intentCheap: parseIntentLabel(c[4]), intentExpensive: parseIntentLabel(c[5]) }),
  );

  test("reads 1,000 respondents and six columns", () => {
    expect(header.length).toBe(6);
    expect(rows.length).toBe(1000);
    expect(rows.every((c) => c.length === 6)).toBe(true);
    expect(data.every((d) => d.intentCheap != null && d.intentExpensive != null)).toBe(true);
  });

  test("invariants of the method", () => {
    const res = vanWestendorp(data);
    // Independent count of the consistency rule, written out.
    let bad = 0;
    for (const c of rows) {
      const [a, b, e, t] = c.slice(0, 4).map(Number);
      if (!(a < b && b < e && e < t)) bad++;
    }
    expect(res.invalid).toBe(bad);
    expect(res.n).toBe(1000 - bad);
    const kept = data.filter(isConsistent);
    const lo = Math.min(...kept.map((d) => d.tooCheap));
    const hi = Math.max(...kept.map((d) => d.tooExpensive));
    const points = [res.pmc!, res.opp!, res.ipp!, res.pme!];
    for (const p of points) {
      expect(p).toBeGreaterThanOrEqual(lo);
      expect(p).toBeLessThanOrEqual(hi);
    }
    // Implied by tc < c < e < te per respondent: PMC <= OPP, IPP <= PME.
    expect(res.pmc!).toBeLessThanOrEqual(res.opp!);
    expect(res.pmc!).toBeLessThanOrEqual(res.ipp!);
    expect(res.opp!).toBeLessThanOrEqual(res.pme!);
    expect(res.ipp!).toBeLessThanOrEqual(res.pme!);
    const nms = res.nms!;
    expect(nms.n).toBe(res.n);
    expect(nms.revenueOptimal.revenue).toBeGreaterThanOrEqual(nms.trialOptimal.revenue);
    expect(nms.trialOptimal.trial).toBeLessThanOrEqual(0.7);
    for (const p of [nms.trialOptimal.price, nms.revenueOptimal.price]) {
      expect(p).toBeGreaterThanOrEqual(lo);
      expect(p).toBeLessThanOrEqual(hi);
    }
    console.log(
      `PSM smartphone: n=${res.n} invalid=${res.invalid} PMC=${res.pmc!.toFixed(2)} OPP=${res.opp!.toFixed(2)} IPP=${res.ipp!.toFixed(2)} PME=${res.pme!.toFixed(2)}; ` +
        `NMS trial max ${nms.trialOptimal.trial.toFixed(4)} at ${nms.trialOptimal.price}, revenue max ${nms.revenueOptimal.revenue.toFixed(3)} at ${nms.revenueOptimal.price.toFixed(2)} (trial ${nms.revenueOptimal.trial.toFixed(4)})`,
    );
  });
});

describe("crossings with float noise (finding 8)", () => {
  test("curves that tie from 3.5 on cross at 3.5, not past the tie by float noise", async () => {
    const { crossing } = await import("../../api/src/analytics/psm.ts");
    // Equal on [3.5, 4] but for 1e-16 of rounding in the weighted sums: the crossing is 3.5.
    expect(crossing([3, 3.5, 4, 4.5], [0.2, 0.5 - 1e-16, 0.5 - 1e-16, 0.9], [0.8, 0.5, 0.5, 0.1])).toBe(3.5);
    // Just beyond the tolerance (1e-12) it is a real gap and the curves cross after 4.
    const beyond = crossing([3, 3.5, 4, 4.5], [0.2, 0.5 - 2e-12, 0.5 - 2e-12, 0.9], [0.8, 0.5, 0.5, 0.1])!;
    expect(beyond).toBeGreaterThan(4);
    // A real crossing between grid prices is still interpolated.
    expect(crossing([1, 2], [0, 1], [1, 0])).toBe(1.5);
  });
});
