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
  /**
   * Respondent x price evaluations of NMS trial summed one by one before the difference-array path
   * takes over (default NMS_EXACT_WORK). The two paths give the same curve; tests set 0 to check
   * the second on small data.
   */
  exactWork?: number;
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
export function nmsProbability(p: number, r: Pick<PsmRespondent, "tooCheap" | "cheap" | "expensive" | "tooExpensive">, pCheap: number, pExpensive: number): number {
  const xs = [r.tooCheap, r.cheap, r.expensive, r.tooExpensive];
  const ys = [0, pCheap, pExpensive, 0];
  if (p <= xs[0] || p >= xs[3]) return 0;
  for (let i = 1; i < 4; i++) {
    if (p <= xs[i]) return ys[i - 1] + ((ys[i] - ys[i - 1]) * (p - xs[i - 1])) / (xs[i] - xs[i - 1]);
  }
  return 0;
}

/**
 * The respondents as columns (one entry per respondent): what `analyze psm` builds while it
 * streams a file, a few bytes a respondent instead of an object. Intents are 1..5, 0 for none.
 */
export interface PsmColumns {
  tooCheap: Float64Array;
  cheap: Float64Array;
  expensive: Float64Array;
  tooExpensive: Float64Array;
  /** Weights, default 1 each. */
  weight?: Float64Array;
  intentCheap?: Int8Array;
  intentExpensive?: Int8Array;
}

/**
 * Up to this many respondent x grid-price evaluations NMS trial is summed respondent by respondent
 * at each grid price (exact to the last bit of the definition); beyond it (a large file with many
 * distinct prices) by difference arrays along the grid, O(n + grid), equal to about 1e-12.
 */
export const NMS_EXACT_WORK = 50_000_000;

/** An intent score as a column entry: 1..5, or 0 when there is none (or it is not a score). */
const intentCode = (s: number | null | undefined) => (s != null && Number.isInteger(s) && s >= 1 && s <= 5 ? s : 0);

/** Van Westendorp PSM, with the NMS extension when respondents carry both intents. */
export function vanWestendorp(respondents: readonly PsmRespondent[], options: PsmOptions = {}): PsmResult {
  const n = respondents.length;
  const cols: PsmColumns = {
    tooCheap: new Float64Array(n),
    cheap: new Float64Array(n),
    expensive: new Float64Array(n),
    tooExpensive: new Float64Array(n),
    weight: new Float64Array(n),
  };
  const withIntents = respondents.some((r) => r.intentCheap != null || r.intentExpensive != null);
  if (withIntents) {
    cols.intentCheap = new Int8Array(n);
    cols.intentExpensive = new Int8Array(n);
  }
  respondents.forEach((r, i) => {
    cols.tooCheap[i] = r.tooCheap;
    cols.cheap[i] = r.cheap;
    cols.expensive[i] = r.expensive;
    cols.tooExpensive[i] = r.tooExpensive;
    cols.weight![i] = r.weight ?? 1;
    if (withIntents) {
      cols.intentCheap![i] = intentCode(r.intentCheap);
      cols.intentExpensive![i] = intentCode(r.intentExpensive);
    }
  });
  return vanWestendorpColumns(cols, options);
}

/** The distinct values of two ascending arrays of distinct values, ascending. */
function mergeDistinct(a: Float64Array, b: Float64Array): Float64Array {
  const out = new Float64Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    const x = j >= b.length || (i < a.length && a[i]! < b[j]!) ? a[i++]! : b[j++]!;
    if (k === 0 || out[k - 1] !== x) out[k++] = x;
  }
  return out.slice(0, k);
}

/** The first index of the sorted `grid` holding x (x is on the grid). */
function gridIndex(grid: Float64Array, x: number): number {
  let lo = 0;
  let hi = grid.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (grid[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Van Westendorp PSM (and NMS) on columns. Memory is a few arrays of the respondents' length and
 * one of the grid's; time O(n log n). The curves are each answer's weighted ECDF on the grid,
 * accumulated respondent by respondent in the order of a stable sort by price (a counting sort on
 * the grid index), as the definition reads. NMS trial at a grid price is Σ w·P(p) over the
 * respondents whose (too cheap, too expensive) holds it: P is linear on each of the three segments
 * between a respondent's prices, all grid prices, so trial(p) = p·Σ slope + Σ intercept over the
 * segments holding p, summed with difference arrays along the grid.
 */
export function vanWestendorpColumns(cols: PsmColumns, options: PsmOptions = {}): PsmResult {
  const cal = options.calibration ?? NMS_DEFAULT_CALIBRATION;
  if (cal.length !== 5 || !cal.every((v) => Number.isFinite(v) && v >= 0 && v <= 1)) {
    throw new RangeError("calibration must be five probabilities in [0, 1] for intents 5..1");
  }
  const size = cols.tooCheap.length;
  const keptIdx = new Uint32Array(size);
  let n = 0;
  let invalid = 0;
  for (let i = 0; i < size; i++) {
    const weight = cols.weight ? cols.weight[i]! : 1;
    if (!Number.isFinite(weight) || weight < 0) throw new RangeError(`weight must be finite and >= 0, got ${weight}`);
    if (!isConsistent({ tooCheap: cols.tooCheap[i]!, cheap: cols.cheap[i]!, expensive: cols.expensive[i]!, tooExpensive: cols.tooExpensive[i]! })) {
      invalid++;
      continue;
    }
    if (weight === 0) continue; // contributes nothing; not an inconsistency
    keptIdx[n++] = i;
  }
  const empty: PsmResult = { n, invalid, pmc: null, pme: null, ipp: null, opp: null, interpolation: "linear" };
  if (n === 0) return empty;
  const kept = keptIdx.subarray(0, n);
  const w = new Float64Array(n);
  let total = 0;
  for (let r = 0; r < n; r++) total += w[r] = cols.weight ? cols.weight[kept[r]!]! : 1;

  const keys = [cols.tooCheap, cols.cheap, cols.expensive, cols.tooExpensive] as const;
  // The grid: each answer's distinct prices (one sorted copy at a time), merged.
  let grid: Float64Array = new Float64Array(0);
  const v = new Float64Array(n);
  for (const col of keys) {
    for (let r = 0; r < n; r++) v[r] = col[kept[r]!]!;
    v.sort();
    let u = 0;
    for (let i = 0; i < n; i++) if (u === 0 || v[i] !== v[u - 1]) v[u++] = v[i]!;
    grid = mergeDistinct(grid, v.subarray(0, u));
  }
  const g = grid.length;
  // Each answer's grid index per kept respondent (reused by NMS).
  const at = keys.map((col) => {
    const ix = new Uint32Array(n);
    for (let r = 0; r < n; r++) ix[r] = gridIndex(grid, col[kept[r]!]!);
    return ix;
  });
  // One buffer for the counting sort of each answer (the sort buffer's bytes, reused).
  const order = new Uint32Array(v.buffer, 0, n);
  const ecdf = (ix: Uint32Array) => {
    const start = new Uint32Array(g + 1);
    for (let r = 0; r < n; r++) start[ix[r]! + 1]!++;
    for (let j = 0; j < g; j++) start[j + 1]! += start[j]!;
    const fill = start.slice(0, g);
    for (let r = 0; r < n; r++) order[fill[ix[r]!]!++] = r;
    const out = new Array<number>(g);
    let acc = 0;
    for (let j = 0; j < g; j++) {
      for (let k = start[j]!; k < start[j + 1]!; k++) acc += w[order[k]!]!;
      out[j] = Math.min(1, acc / total);
    }
    return out;
  };
  const price = Array.from(grid);
  const Ftc = ecdf(at[0]!);
  const Fc = ecdf(at[1]!);
  const Fe = ecdf(at[2]!);
  const Fte = ecdf(at[3]!);
  const tooCheap = Ftc.map((v) => 1 - v);
  const cheap = Fc.map((v) => 1 - v);
  const expensive = Fe;
  const tooExpensive = Fte;
  const notCheap = Fc;
  const notExpensive = Fe.map((v) => 1 - v);

  const result: PsmResult = {
    n,
    invalid,
    pmc: crossing(price, notCheap, tooCheap),
    pme: crossing(price, tooExpensive, notExpensive),
    ipp: crossing(price, expensive, cheap),
    opp: crossing(price, tooExpensive, tooCheap),
    interpolation: "linear",
  };

  // Newton-Miller-Smith extension over respondents with both intents.
  let trial: number[] | undefined;
  let revenue: number[] | undefined;
  const nmsR = new Uint32Array(cols.intentCheap && cols.intentExpensive ? n : 0);
  const nmsSc = new Uint8Array(nmsR.length);
  const nmsSe = new Uint8Array(nmsR.length);
  let nmsN = 0;
  let nmsTotal = 0;
  if (cols.intentCheap && cols.intentExpensive) {
    for (let r = 0; r < n; r++) {
      const sc = cols.intentCheap[kept[r]!]!;
      const se = cols.intentExpensive[kept[r]!]!;
      if (!(sc >= 1 && sc <= 5 && se >= 1 && se <= 5)) continue;
      nmsSc[nmsN] = sc;
      nmsSe[nmsN] = se;
      nmsR[nmsN++] = r;
      nmsTotal += w[r]!;
    }
  }
  const pcOf = (m: number) => cal[5 - nmsSc[m]!]!;
  const peOf = (m: number) => cal[5 - nmsSe[m]!]!;
  if (nmsN > 0 && nmsTotal > 0) {
    const tr = new Array<number>(g);
    if (nmsN * g <= (options.exactWork ?? NMS_EXACT_WORK)) {
      // Each grid price, every respondent's probability summed in their order.
      for (let j = 0; j < g; j++) {
        const p = price[j]!;
        let acc = 0;
        for (let m = 0; m < nmsN; m++) {
          const i = kept[nmsR[m]!]!;
          const x = { tooCheap: cols.tooCheap[i]!, cheap: cols.cheap[i]!, expensive: cols.expensive[i]!, tooExpensive: cols.tooExpensive[i]! };
          acc += w[nmsR[m]!]! * nmsProbability(p, x, pcOf(m), peOf(m));
        }
        tr[j] = acc / nmsTotal;
      }
    } else {
      // P is linear on each segment between a respondent's prices (all grid prices): slope and
      // intercept sums over the segments holding each grid price, by difference arrays.
      const slope = new Float64Array(g + 1);
      const intercept = new Float64Array(g + 1);
      const segment = (from: number, to: number, x0: number, y0: number, x1: number, y1: number, wr: number) => {
        if (from > to) return;
        const b = (y1 - y0) / (x1 - x0);
        const a = y0 - b * x0;
        slope[from]! += wr * b;
        slope[to + 1]! -= wr * b;
        intercept[from]! += wr * a;
        intercept[to + 1]! -= wr * a;
      };
      for (let m = 0; m < nmsN; m++) {
        const r = nmsR[m]!;
        const i = kept[r]!;
        const [itc, ic, ie, ite] = [at[0]![r]!, at[1]![r]!, at[2]![r]!, at[3]![r]!];
        segment(itc + 1, ic, cols.tooCheap[i]!, 0, cols.cheap[i]!, pcOf(m), w[r]!);
        segment(ic + 1, ie, cols.cheap[i]!, pcOf(m), cols.expensive[i]!, peOf(m), w[r]!);
        segment(ie + 1, ite - 1, cols.expensive[i]!, peOf(m), cols.tooExpensive[i]!, 0, w[r]!);
      }
      let b = 0;
      let a = 0;
      for (let j = 0; j < g; j++) {
        b += slope[j]!;
        a += intercept[j]!;
        tr[j] = Math.max(0, (a + b * price[j]!) / nmsTotal);
      }
    }
    const grid = price;
    const rev = grid.map((p, i) => p * tr[i]!);
    trial = tr;
    revenue = rev;
    let ti = 0;
    for (let i = 1; i < grid.length; i++) if (tr[i]! > tr[ti]!) ti = i;
    // Revenue: p·(a + b·p) on each segment; check grid points and any interior stationary point.
    let best = { price: grid[0]!, trial: tr[0]!, revenue: rev[0]! };
    for (let i = 0; i < grid.length; i++) {
      if (rev[i]! > best.revenue) best = { price: grid[i]!, trial: tr[i]!, revenue: rev[i]! };
      if (i + 1 < grid.length) {
        const b = (tr[i + 1]! - tr[i]!) / (grid[i + 1]! - grid[i]!);
        const a = tr[i]! - b * grid[i]!;
        if (b < 0) {
          const p = -a / (2 * b);
          if (p > grid[i]! && p < grid[i + 1]!) {
            const t = a + b * p;
            if (p * t > best.revenue) best = { price: p, trial: t, revenue: p * t };
          }
        }
      }
    }
    result.nms = {
      n: nmsN,
      trialOptimal: { price: grid[ti]!, trial: tr[ti]!, revenue: rev[ti]! },
      revenueOptimal: best,
    };
  }
  if (options.curves) {
    result.curves = { price, tooCheap, cheap, expensive, tooExpensive, notCheap, notExpensive };
    if (trial && revenue) Object.assign(result.curves, { trial, revenue });
  }
  return result;
}
