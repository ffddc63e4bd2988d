// Van Westendorp price sensitivity meter (Van Westendorp 1976, "NSS Price Sensitivity Meter: a new
// approach to study consumer perception of prices", ESOMAR congress) with the purchase-probability
// extension of Newton, Miller and Smith (1993, "A market acceptance extension to traditional price
// sensitivity measurement", AMA ART Forum). Implemented from the definitions in DOMAIN.md:
//
// - Respondents are kept only if tooCheap < cheap < expensive < tooExpensive (strictly, all finite);
//   the others are counted as `invalid`.
// - F_x is the weighted empirical CDF of answer x, F_x(p) = Σ w·[x ≤ p] / Σ w, evaluated on the grid
//   of all distinct prices the kept respondents gave.
// - Curves: tooCheap(p) = 1 − F_tc(p), cheap(p) = 1 − F_c(p), expensive(p) = F_e(p),
//   tooExpensive(p) = F_te(p), notCheap = 1 − cheap, notExpensive = 1 − expensive.
// - Crossings, found by linear interpolation between adjacent grid prices (as R package
//   pricesensitivitymeter >= 1.3 does, not the 1.2 "first grid price where they cross"):
//   PMC = tooCheap × notCheap, PME = tooExpensive × notExpensive, IPP = cheap × expensive,
//   OPP = tooCheap × tooExpensive. In each pair the difference rising − falling is a sum of ECDFs
//   (non-decreasing), so the crossing is the first root of a non-decreasing piecewise-linear
//   function; on valid data PMC <= min(IPP, OPP) and max(IPP, OPP) <= PME.
// - NMS: purchase intent at the bargain and at the expensive price, on a 5-point scale
//   (5 = very likely .. 1 = very unlikely), is mapped to probabilities 0.7, 0.5, 0.3, 0.1, 0
//   (overridable). A respondent's probability is 0 at or below too cheap and at or above too
//   expensive and linear between (tc, 0), (c, P_c), (e, P_e), (te, 0). trial(p) is the weighted mean
//   over respondents with both intents; revenue(p) = p × trial(p). trial is piecewise linear with
//   kinks only at grid prices, so its maximum is at a grid price (the lowest, at a tie); revenue is quadratic between grid
//   prices, so its maximum is searched exactly within each segment too.
// Pure: no I/O, no app imports.

export interface PsmRespondent {
  tooCheap: number;
  cheap: number;
  expensive: number;
  tooExpensive: number;
  /** Survey weight; default 1. Must be finite and >= 0. */
  weight?: number;
  /** Purchase intent at the cheap (bargain) price, 5 = very likely .. 1 = very unlikely. */
  intentCheap?: number | null;
  /** Purchase intent at the expensive price, 5 = very likely .. 1 = very unlikely. */
  intentExpensive?: number | null;
}

/** Probabilities for intent scores 5, 4, 3, 2, 1 (Newton, Miller and Smith 1993 calibration). */
export type IntentCalibration = readonly [number, number, number, number, number];
export const NMS_DEFAULT_CALIBRATION: IntentCalibration = [0.7, 0.5, 0.3, 0.1, 0];

export interface PsmOptions {
  /** Include the curves on the price grid in the result. Default false. */
  curves?: boolean;
  /** Probabilities for intent 5..1; default 0.7, 0.5, 0.3, 0.1, 0. */
  calibration?: IntentCalibration;
}

export interface PsmCurves {
  price: number[];
  tooCheap: number[];
  cheap: number[];
  expensive: number[];
  tooExpensive: number[];
  notCheap: number[];
  notExpensive: number[];
  /** NMS trial and revenue on the grid, when the extension ran. */
  trial?: number[];
  revenue?: number[];
}

export interface NmsResult {
  /** Respondents (kept by the consistency rule) with both intents. */
  n: number;
  trialOptimal: { price: number; trial: number; revenue: number };
  revenueOptimal: { price: number; trial: number; revenue: number };
}

export interface PsmResult {
  /** Respondents kept (consistent, with positive weight). */
  n: number;
  /** Respondents dropped by the consistency rule tc < c < e < te (or with non-finite prices). */
  invalid: number;
  /** Point of marginal cheapness; null only if no respondent was kept. */
  pmc: number | null;
  /** Point of marginal expensiveness. */
  pme: number | null;
  /** Indifference price point. */
  ipp: number | null;
  /** Optimal price point. */
  opp: number | null;
  /** How crossings were found. */
  interpolation: "linear";
  nms?: NmsResult;
  curves?: PsmCurves;
}

/** Standard English 5-point purchase-intent labels, case- and whitespace-insensitive, to 5..1. */
export function parseIntentLabel(label: string | null | undefined): number | null {
  if (label == null) return null;
  const key = label.trim().toLowerCase().replace(/\s+/g, " ");
  switch (key) {
    case "very likely":
      return 5;
    case "likely":
      return 4;
    case "neither likely nor unlikely":
      return 3;
    case "unlikely":
      return 2;
    case "very unlikely":
      return 1;
    default:
      return null;
  }
}

/** True when the four prices are finite and strictly increasing (DOMAIN.md's consistency rule). */
export function isConsistent(r: Pick<PsmRespondent, "tooCheap" | "cheap" | "expensive" | "tooExpensive">): boolean {
  const { tooCheap: a, cheap: b, expensive: c, tooExpensive: d } = r;
  return [a, b, c, d].every(Number.isFinite) && a < b && b < c && c < d;
}

/** Weighted ECDF of `values` evaluated at each price of the sorted grid. */
function weightedEcdf(values: number[], weights: number[], grid: number[], total: number): number[] {
  const idx = values.map((_, i) => i).sort((i, j) => values[i] - values[j]);
  const out = new Array<number>(grid.length);
  let k = 0;
  let acc = 0;
  for (let g = 0; g < grid.length; g++) {
    while (k < idx.length && values[idx[k]] <= grid[g]) acc += weights[idx[k++]];
    out[g] = Math.min(1, acc / total);
  }
  return out;
}

/** Curve values (shares in [0, 1]) closer than this are equal: sums of weights carry rounding of about 1e-16. */
export const TIE_TOLERANCE = 1e-12;

/**
 * First crossing of a rising and a falling curve on the grid, by linear interpolation between the
 * last grid price where rising < falling and the first where rising >= falling. Null if never.
 * A difference within TIE_TOLERANCE of 0 is a tie: the crossing is that grid price exactly (else
 * rounding noise in the weighted sums moved it to the end of a tie, 4.000000000000022 for 3.5).
 */
export function crossing(price: number[], rising: number[], falling: number[]): number | null {
  for (let i = 0; i < price.length; i++) {
    const d = rising[i] - falling[i];
    if (Math.abs(d) <= TIE_TOLERANCE) return price[i];
    if (d >= 0) {
      if (i === 0) return price[0];
      const d0 = rising[i - 1] - falling[i - 1];
      return price[i - 1] + ((price[i] - price[i - 1]) * -d0) / (d - d0);
    }
  }
  return null;
}

/** A respondent's NMS purchase probability at price p (0 outside (tc, te), linear between knots). */
export function nmsProbability(
  p: number,
  r: Pick<PsmRespondent, "tooCheap" | "cheap" | "expensive" | "tooExpensive">,
  pCheap: number,
  pExpensive: number,
): number {
  const xs = [r.tooCheap, r.cheap, r.expensive, r.tooExpensive];
  const ys = [0, pCheap, pExpensive, 0];
  if (p <= xs[0] || p >= xs[3]) return 0;
  for (let i = 1; i < 4; i++) {
    if (p <= xs[i]) return ys[i - 1] + ((ys[i] - ys[i - 1]) * (p - xs[i - 1])) / (xs[i] - xs[i - 1]);
  }
  return 0;
}

function intentProbability(score: number | null | undefined, cal: IntentCalibration): number | null {
  if (score == null || !Number.isInteger(score) || score < 1 || score > 5) return null;
  return cal[5 - score];
}

/** Van Westendorp PSM, with the NMS extension when respondents carry both intents. */
export function vanWestendorp(respondents: readonly PsmRespondent[], options: PsmOptions = {}): PsmResult {
  const cal = options.calibration ?? NMS_DEFAULT_CALIBRATION;
  if (cal.length !== 5 || !cal.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)) {
    throw new RangeError("calibration must be five probabilities in [0, 1] for intents 5..1");
  }
  const kept: PsmRespondent[] = [];
  const w: number[] = [];
  let invalid = 0;
  for (const r of respondents) {
    const weight = r.weight ?? 1;
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`weight must be finite and >= 0, got ${weight}`);
    if (!isConsistent(r)) {
      invalid++;
      continue;
    }
    if (weight === 0) continue; // contributes nothing; not an inconsistency
    kept.push(r);
    w.push(weight);
  }
  const n = kept.length;
  const empty: PsmResult = { n, invalid, pmc: null, pme: null, ipp: null, opp: null, interpolation: "linear" };
  if (n === 0) return empty;

  const total = w.reduce((a, b) => a + b, 0);
  const grid = [...new Set(kept.flatMap((r) => [r.tooCheap, r.cheap, r.expensive, r.tooExpensive]))].sort((a, b) => a - b);
  const F = (key: "tooCheap" | "cheap" | "expensive" | "tooExpensive") =>
    weightedEcdf(
      kept.map((r) => r[key]),
      w,
      grid,
      total,
    );
  const Ftc = F("tooCheap");
  const Fc = F("cheap");
  const Fe = F("expensive");
  const Fte = F("tooExpensive");
  const tooCheap = Ftc.map((v) => 1 - v);
  const cheap = Fc.map((v) => 1 - v);
  const expensive = Fe;
  const tooExpensive = Fte;
  const notCheap = Fc;
  const notExpensive = Fe.map((v) => 1 - v);

  const result: PsmResult = {
    n,
    invalid,
    pmc: crossing(grid, notCheap, tooCheap),
    pme: crossing(grid, tooExpensive, notExpensive),
    ipp: crossing(grid, expensive, cheap),
    opp: crossing(grid, tooExpensive, tooCheap),
    interpolation: "linear",
  };

  // Newton-Miller-Smith extension over respondents with both intents.
  const withIntent: { r: PsmRespondent; w: number; pc: number; pe: number }[] = [];
  kept.forEach((r, i) => {
    const pc = intentProbability(r.intentCheap, cal);
    const pe = intentProbability(r.intentExpensive, cal);
    if (pc != null && pe != null) withIntent.push({ r, w: w[i], pc, pe });
  });
  let trial: number[] | undefined;
  let revenue: number[] | undefined;
  const nmsTotal = withIntent.reduce((a, x) => a + x.w, 0);
  if (withIntent.length > 0 && nmsTotal > 0) {
    const tr = grid.map((p) => withIntent.reduce((a, x) => a + x.w * nmsProbability(p, x.r, x.pc, x.pe), 0) / nmsTotal);
    const rev = grid.map((p, i) => p * tr[i]);
    trial = tr;
    revenue = rev;
    let ti = 0;
    for (let i = 1; i < grid.length; i++) if (tr[i] > tr[ti]) ti = i;
    // Revenue: p·(a + b·p) on each segment; check grid points and any interior stationary point.
    let best = { price: grid[0], trial: tr[0], revenue: rev[0] };
    for (let i = 0; i < grid.length; i++) {
      if (rev[i] > best.revenue) best = { price: grid[i], trial: tr[i], revenue: rev[i] };
      if (i + 1 < grid.length) {
        const b = (tr[i + 1] - tr[i]) / (grid[i + 1] - grid[i]);
        const a = tr[i] - b * grid[i];
        if (b < 0) {
          const p = -a / (2 * b);
          if (p > grid[i] && p < grid[i + 1]) {
            const t = a + b * p;
            if (p * t > best.revenue) best = { price: p, trial: t, revenue: p * t };
          }
        }
      }
    }
    result.nms = {
      n: withIntent.length,
      trialOptimal: { price: grid[ti], trial: tr[ti], revenue: rev[ti] },
      revenueOptimal: best,
    };
  }
  if (options.curves) {
    result.curves = { price: grid, tooCheap, cheap, expensive, tooExpensive, notCheap, notExpensive };
    if (trial && revenue) Object.assign(result.curves, { trial, revenue });
  }
  return result;
}
