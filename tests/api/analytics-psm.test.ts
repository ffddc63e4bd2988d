// Van Westendorp PSM with the Newton-Miller-Smith extension: hand-computed cases whose answer is
// known by construction, and the smartphone reference data (1,000 respondents) for invariants.
import { describe, expect, test } from "bun:test";
import { parseCsv } from "@ideally/analytics/csv";
import { isConsistent, parseIntentLabel, vanWestendorp, type PsmRespondent } from "@ideally/analytics/psm";

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

  // The same hand-worked case (and two weighted respondents whose segments overlap and touch the
  // grid's ends) through the difference-array path that large files take (exactWork 0): each
  // respondent's three linear segments added along the grid give the same trial curve and optima.
  test("NMS trial by difference arrays (the large-file path) gives the hand-worked figures", () => {
    const one = vanWestendorp([r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4 })], { curves: true, exactWork: 0 });
    expect(one.curves!.trial!.map((x) => Number(x.toFixed(12)))).toEqual([0, 0.7, 0.5, 0]);
    expect(one.nms!.trialOptimal.price).toBe(20);
    expect(one.nms!.trialOptimal.trial).toBeCloseTo(0.7, 12);
    expect(one.nms!.revenueOptimal.price).toBeCloseTo(27.5, 12);
    expect(one.nms!.revenueOptimal.revenue).toBeCloseTo(15.125, 12);
    // Weight 3 at (10, 20, 30, 40) with intents 5/4, weight 1 at (15, 25, 35, 45) with intents 4/2.
    // Grid 10..45 by 5. First respondent: 0 at 10, 0.7 at 20 (0.35 at 15), 0.5 at 30 (0.6 at 25),
    // 0 at 40 (0.25 at 35). Second: 0 at 15, 0.5 at 25 (0.25 at 20), 0.1 at 35 (0.3 at 30), 0 at 45
    // (0.05 at 40). Trial = (3 p1 + p2) / 4 at each grid price.
    const two = vanWestendorp([r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4, weight: 3 }), r(15, 25, 35, 45, { intentCheap: 4, intentExpensive: 2 })], { curves: true, exactWork: 0 });
    const p1 = [0, 0.35, 0.7, 0.6, 0.5, 0.25, 0, 0];
    const p2 = [0, 0, 0.25, 0.5, 0.3, 0.1, 0.05, 0];
    expect(two.curves!.price).toEqual([10, 15, 20, 25, 30, 35, 40, 45]);
    two.curves!.trial!.forEach((t, i) => {
      expect(t).toBeCloseTo((3 * p1[i]! + p2[i]!) / 4, 12);
    });
    const exact = vanWestendorp([r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4, weight: 3 }), r(15, 25, 35, 45, { intentCheap: 4, intentExpensive: 2 })], { curves: true });
    expect(two.nms!.trialOptimal.price).toBe(exact.nms!.trialOptimal.price);
    expect(two.nms!.revenueOptimal.price).toBeCloseTo(exact.nms!.revenueOptimal.price, 9);
  });

  test("NMS is weighted; calibration can be overridden", () => {
    const data = [r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4, weight: 3 }), r(10, 20, 30, 40, { intentCheap: 1, intentExpensive: 1 })];
    expect(vanWestendorp(data).nms!.trialOptimal.trial).toBeCloseTo(0.525, 12);
    const cal = vanWestendorp(data, { calibration: [1, 0.8, 0.3, 0.1, 0] }).nms!;
    expect(cal.trialOptimal.trial).toBeCloseTo(0.75, 12);
    expect(vanWestendorp([r(1, 2, 3, 4)]).nms).toBeUndefined();
  });

  test("purchase-intent labels", () => {
    expect(["Very likely", "likely", " LIKELY ", "Neither likely  nor unlikely", "Unlikely", "very UNLIKELY"].map(parseIntentLabel)).toEqual([5, 4, 4, 3, 2, 1]);
    expect(parseIntentLabel("Somewhat likely")).toBeNull();
    expect(parseIntentLabel(null)).toBeNull();
  });
});

describe("Van Westendorp on psm_smartphone_1000.csv", async () => {
  const bytes = await Bun.file(`${REF}/psm_smartphone_1000.csv`).arrayBuffer();
  const [header, ...rows] = parseCsv(new TextDecoder("windows-1252").decode(bytes));
  const data = rows.map((c) => r(Number(c[0]), Number(c[1]), Number(c[2]), Number(c[3]), { intentCheap: parseIntentLabel(c[4]), intentExpensive: parseIntentLabel(c[5]) }));

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
    const { crossing } = await import("@ideally/analytics/psm");
    // Equal on [3.5, 4] but for 1e-16 of rounding in the weighted sums: the crossing is 3.5.
    expect(crossing([3, 3.5, 4, 4.5], [0.2, 0.5 - 1e-16, 0.5 - 1e-16, 0.9], [0.8, 0.5, 0.5, 0.1])).toBe(3.5);
    // Just beyond the tolerance (1e-12) it is a real gap and the curves cross after 4.
    const beyond = crossing([3, 3.5, 4, 4.5], [0.2, 0.5 - 2e-12, 0.5 - 2e-12, 0.9], [0.8, 0.5, 0.5, 0.1])!;
    expect(beyond).toBeGreaterThan(4);
    // A real crossing between grid prices is still interpolated.
    expect(crossing([1, 2], [0, 1], [1, 0])).toBe(1.5);
  });
});

// The rules of the header of analytics/psm.ts at their edges, each expected value worked by hand.
describe("Van Westendorp: input rules and edges, by hand", () => {
  test("an infinite price is inconsistent, like a NaN", () => {
    expect(isConsistent(r(1, 2, 3, Number.POSITIVE_INFINITY))).toBe(false);
    expect(isConsistent(r(Number.NEGATIVE_INFINITY, 2, 3, 4))).toBe(false);
    expect(isConsistent(r(1, 2, 3, 4))).toBe(true);
  });

  test("the order of the respondents does not matter (the weighted case, reversed)", () => {
    // The same answers as "weighted crossings" above, in the other order: PMC 1.25, OPP 2, IPP 2.25, PME 3.25.
    const res = vanWestendorp([r(2, 3, 4, 5), r(1, 2, 3, 4, { weight: 3 })], { curves: true });
    expect(res).toMatchObject({ n: 2, pmc: 1.25, opp: 2, ipp: 2.25, pme: 3.25, interpolation: "linear" });
    expect(res.curves!.price).toEqual([1, 2, 3, 4, 5]);
    expect(res.curves!.tooCheap).toEqual([0.25, 0, 0, 0, 0]);
  });

  test("a crossing at the first grid price, where the rising curve is already above", async () => {
    const { crossing } = await import("@ideally/analytics/psm");
    expect(crossing([1, 2, 3], [0.5, 0.6, 0.7], [0.2, 0.1, 0])).toBe(1);
    expect(crossing([1, 2, 3], [0, 0.1, 0.2], [0.9, 0.8, 0.7])).toBeNull();
  });

  test("no respondent kept: the empty result, nothing computed", () => {
    expect(vanWestendorp([r(2, 1, 3, 4)])).toEqual({ n: 0, invalid: 1, pmc: null, pme: null, ipp: null, opp: null, interpolation: "linear" });
  });

  test("weights: negative or not finite is refused with its value; 0 is left out without being invalid", () => {
    expect(() => vanWestendorp([r(1, 2, 3, 4, { weight: -1 })])).toThrow("weight must be finite and >= 0, got -1");
    expect(() => vanWestendorp([r(1, 2, 3, 4, { weight: Number.POSITIVE_INFINITY })])).toThrow("weight must be finite and >= 0, got Infinity");
    expect(() => vanWestendorp([r(1, 2, 3, 4, { weight: Number.NaN })])).toThrow("got NaN");
    const res = vanWestendorp([r(1, 2, 3, 4), r(2, 3, 4, 5), r(10, 20, 30, 40, { weight: 0 })], { curves: true });
    expect(res).toMatchObject({ n: 2, invalid: 0, pmc: 1.5, opp: 2, ipp: 2.5, pme: 3.5 });
    expect(res.curves!.price).toEqual([1, 2, 3, 4, 5]);
  });

  test("calibration: five probabilities in [0, 1], else refused", () => {
    const one = [r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4 })];
    const msg = "calibration must be five probabilities in [0, 1] for intents 5..1";
    for (const cal of [
      [0.7, 0.5, 0.3, 0.1],
      [0.7, 0.5, 0.3, 0.1, -0.01],
      [1.01, 0.5, 0.3, 0.1, 0],
      [Number.NaN, 0.5, 0.3, 0.1, 0],
      [0.7, 0.5, 0.3, 0.1, 0, 0],
    ]) {
      expect(() => vanWestendorp(one, { calibration: cal as unknown as readonly [number, number, number, number, number] }), String(cal)).toThrow(msg);
    }
    // The ends of [0, 1] are allowed: intent 5 at 1, intent 4 at 0 -> trial [0, 1, 0, 0] on 10..40.
    const edge = vanWestendorp(one, { calibration: [1, 0, 0, 0, 0], curves: true });
    expect(edge.curves!.trial).toEqual([0, 1, 0, 0]);
  });

  test("NMS: a respondent's probability is 0 outside (too cheap, too expensive) and linear between the knots", async () => {
    const { nmsProbability } = await import("@ideally/analytics/psm");
    const k = r(10, 20, 30, 40);
    const at = (p: number) => nmsProbability(p, k, 0.7, 0.5);
    expect([5, 10, 15, 20, 25, 30, 35, 40, 45].map((p) => +at(p).toFixed(12))).toEqual([0, 0, 0.35, 0.7, 0.6, 0.5, 0.25, 0, 0]);
  });

  test("NMS: only respondents with both intents; none, no NMS and no trial curve", () => {
    // A (5, 4) alone counts: B has no expensive intent, C an intent outside 1..5, D a fraction.
    const res = vanWestendorp(
      [
        r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 4 }),
        r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: null }),
        r(10, 20, 30, 40, { intentCheap: 6, intentExpensive: 4 }),
        r(10, 20, 30, 40, { intentCheap: 4.5, intentExpensive: 4 }),
      ],
      { curves: true },
    );
    expect(res.nms!.n).toBe(1);
    expect(res.curves!.trial).toEqual([0, 0.7, 0.5, 0]);
    const none = vanWestendorp([r(10, 20, 30, 40)], { curves: true });
    expect(none.nms).toBeUndefined();
    expect("trial" in none.curves!).toBe(false);
    expect("revenue" in none.curves!).toBe(false);
    expect(vanWestendorp([r(10, 20, 30, 40)]).curves, "curves only when asked").toBeUndefined();
  });

  test("NMS: a segment's own revenue peak lower than the best so far does not replace it", () => {
    // (10, 20, 30, 40) and (10, 20, 30, 100), intents 5 and 5 (0.7): trial [0, .7, .7, .35, 0] on
    // 10, 20, 30, 40, 100; revenue 0, 14, 21, 14, 0. On [40, 100] trial = .58333 − .0058333p peaks in
    // revenue at p = 50 (14.58), inside the segment but below 21 at 30.
    const nms = vanWestendorp([r(10, 20, 30, 40, { intentCheap: 5, intentExpensive: 5 }), r(10, 20, 30, 100, { intentCheap: 5, intentExpensive: 5 })]).nms!;
    expect(nms.revenueOptimal.price).toBe(30);
    expect(nms.revenueOptimal.trial).toBeCloseTo(0.7, 12);
    expect(nms.revenueOptimal.revenue).toBeCloseTo(21, 12);
  });

  test("NMS: a flat trial maximum is reported at its lowest price; revenue then peaks at the top of the flat", () => {
    // Intents 4 and 4: trial [0, .5, .5, 0] on 10..40; revenue 0, 10, 15, 0; on [30, 40] trial = 2 − .05p
    // peaks in revenue at p = 20, outside the segment, so the best revenue is 15 at 30.
    const nms = vanWestendorp([r(10, 20, 30, 40, { intentCheap: 4, intentExpensive: 4 })]).nms!;
    expect(nms.trialOptimal).toEqual({ price: 20, trial: 0.5, revenue: 10 });
    expect(nms.revenueOptimal).toEqual({ price: 30, trial: 0.5, revenue: 15 });
  });
});
