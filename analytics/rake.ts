// Raking by iterative proportional fitting (Deming and Stephan 1940, "On a least squares adjustment
// of a sampled frequency table when the expected marginal totals are known", Ann. Math. Stat. 11),
// with the design effect and effective sample size of Kish (1965, Survey Sampling):
//   deff = n·Σw² / (Σw)²,   n_eff = (Σw)² / Σw².
// Implemented from the definitions in DOMAIN.md:
// - One variable at a time, every respondent's weight is multiplied by target share / current
//   weighted share of their level; a respondent missing the variable (null, undefined or blank) is
//   left out of that variable's margin (as the R packages survey, anesrake and ipf do), so margins
//   are shares among the respondents who answered.
// - A pass adjusts every variable once; raking stops when the largest absolute margin error
//   |achieved share − target share| over all variables and levels is <= tolerance (default 1e-6),
//   or after maxIterations passes (default 100).
// - Optional cap c: after each pass weights are rescaled to mean 1 and trimmed to [1/c, c],
//   repeated until no weight lies outside (trimming then rescaling, as anesrake does), and raking
//   continues until margins and cap hold together or the iteration limit is hit; `capBinds` says
//   whether any final weight sits on a bound.
// - Output weights have mean 1 over all rows (a zero starting weight stays 0).
// Pure: no I/O, no app imports.

export type RakeValue = string | number | null | undefined;

export interface RakeOptions {
  /** targets[variable][level] = share; shares are normalised to sum 1 over the listed levels. */
  targets: Record<string, Record<string, number>>;
  /** Starting (design) weights, default 1. */
  startWeights?: readonly number[];
  /** Max absolute margin error to stop at. Default 1e-6. */
  tolerance?: number;
  /** Max passes over the variables. Default 100. */
  maxIterations?: number;
  /** Trim weights to [1/cap, cap] relative to mean 1. Must be > 1. */
  cap?: number;
}

export interface RakeResult {
  /** Weights, mean 1, in row order. */
  weights: number[];
  iterations: number;
  converged: boolean;
  /** Largest absolute margin error at the end. */
  maxError: number;
  /** Achieved shares per variable and level, among respondents not missing the variable. */
  margins: Record<string, Record<string, number>>;
  /** Respondents left out of each variable's margin as missing. */
  missing: Record<string, number>;
  deff: number;
  nEff: number;
  minWeight: number;
  maxWeight: number;
  /** With a cap: whether any weight ends on a cap bound. */
  capBinds: boolean;
}

function isMissing(v: RakeValue): boolean {
  return v == null || (typeof v === "string" && v.trim() === "") || (typeof v === "number" && !Number.isFinite(v));
}

/** Kish (1965) effective sample size and design effect of a weight vector. */
export function kish(weights: readonly number[] | Float64Array): { n: number; sumW: number; nEff: number; deff: number } {
  let s = 0;
  let s2 = 0;
  for (const w of weights) {
    s += w;
    s2 += w * w;
  }
  const n = weights.length;
  const nEff = s2 > 0 ? (s * s) / s2 : 0;
  return { n, sumW: s, nEff, deff: nEff > 0 ? n / nEff : NaN };
}

/** Targets' shares normalised, each checked: non-negative with a positive sum. */
function targetShares(name: string, raw: Record<string, number>): { levels: string[]; share: number[] } {
  const levels = Object.keys(raw);
  const sum = levels.reduce((a, l) => a + raw[l], 0);
  if (!levels.every((l) => Number.isFinite(raw[l]) && raw[l] >= 0) || !(sum > 0)) {
    throw new RangeError(`targets for ${name} must be non-negative with a positive sum`);
  }
  return { levels, share: levels.map((l) => raw[l] / sum) };
}

export function rake(rows: readonly Record<string, RakeValue>[], options: RakeOptions): RakeResult {
  const level: Record<string, Int32Array> = {};
  for (const name of Object.keys(options.targets)) {
    const { levels } = targetShares(name, options.targets[name]);
    const index = new Map(levels.map((l, i) => [l, i]));
    level[name] = Int32Array.from(rows, (r, i) => {
      const v = r[name];
      if (isMissing(v)) return -1;
      const li = index.get(String(v).trim());
      if (li === undefined) throw new RangeError(`row ${i}: ${name} = "${v}" has no target`);
      return li;
    });
  }
  const res = rakeLevels({ rows: rows.length, level }, options);
  return { ...res, weights: Array.from(res.weights) };
}

/**
 * Rows already coded (what `analyze rake` builds while it streams a file): for each variable of
 * the targets, each row's level as an index into Object.keys(targets[variable]), -1 when missing.
 */
export interface RakeLevels {
  rows: number;
  level: Record<string, Int32Array>;
}

/** RakeResult with the weights in a Float64Array. */
export type RakeLevelsResult = Omit<RakeResult, "weights"> & { weights: Float64Array };

/** Raking on coded rows: the same method as `rake`, in typed arrays (a few bytes a row). */
export function rakeLevels(input: RakeLevels, options: RakeOptions): RakeLevelsResult {
  const tol = options.tolerance ?? 1e-6;
  const maxIt = options.maxIterations ?? 100;
  const cap = options.cap;
  if (cap != null && !(cap > 1)) throw new RangeError("cap must be > 1");
  const n = input.rows;
  const w = options.startWeights ? Float64Array.from(options.startWeights) : new Float64Array(n).fill(1);
  if (w.length !== n) throw new RangeError("startWeights must have one entry per row");
  if (!w.every((x) => Number.isFinite(x) && x >= 0)) throw new RangeError("startWeights must be finite and >= 0");

  // Per variable: level index per row (-1 = missing), normalised target shares.
  const vars = Object.keys(options.targets).map((name) => {
    const { levels, share } = targetShares(name, options.targets[name]);
    const level = input.level[name];
    if (!level || level.length !== n) throw new RangeError(`${name}: expected a level for each of the ${n} rows`);
    let missing = 0;
    for (let i = 0; i < n; i++) {
      if (level[i] < 0) missing++;
      else if (level[i] >= levels.length) throw new RangeError(`row ${i}: ${name} level ${level[i]} has no target`);
    }
    // Nobody to rake on: its margin could never be met, so raking would run to the limit and say
    // only "not converged". Refused instead, like a target level with nobody in it.
    if (n > 0 && missing === n) throw new RangeError(`${name}: every row is missing it, so it cannot be raked to`);
    return { name, levels, share, level, missing };
  });

  const totals = (v: (typeof vars)[number]) => {
    const t = new Array<number>(v.levels.length).fill(0);
    for (let i = 0; i < n; i++) if (v.level[i] >= 0) t[v.level[i]] += w[i];
    return t;
  };
  const maxError = () => {
    let e = 0;
    for (const v of vars) {
      const t = totals(v);
      const s = t.reduce((a, b) => a + b, 0);
      for (let l = 0; l < t.length; l++) e = Math.max(e, Math.abs((s > 0 ? t[l] / s : 0) - v.share[l]));
    }
    return e;
  };
  const normalise = () => {
    const s = w.reduce((a, b) => a + b, 0);
    if (s > 0) for (let i = 0; i < n; i++) w[i] *= n / s;
  };
  const trim = (c: number) => {
    const lo = 1 / c;
    for (let round = 0; round < 1000; round++) {
      normalise();
      let out = false;
      for (let i = 0; i < n; i++) {
        if (w[i] === 0) continue;
        if (w[i] > c + 1e-12) {
          w[i] = c;
          out = true;
        } else if (w[i] < lo - 1e-12) {
          w[i] = lo;
          out = true;
        }
      }
      if (!out) return;
    }
  };

  let iterations = 0;
  let err = maxError();
  let converged = err <= tol && cap == null;
  while (!converged && iterations < maxIt) {
    iterations++;
    for (const v of vars) {
      const t = totals(v);
      const s = t.reduce((a, b) => a + b, 0);
      if (!(s > 0)) continue;
      const factor = t.map((tl, l) => {
        if (tl > 0) return (v.share[l] * s) / tl;
        if (v.share[l] > 0) throw new RangeError(`${v.name} = "${v.levels[l]}" has a target but no weighted respondents`);
        return 1;
      });
      for (let i = 0; i < n; i++) if (v.level[i] >= 0) w[i] *= factor[v.level[i]];
    }
    if (cap != null) trim(cap);
    err = maxError();
    converged = err <= tol;
  }
  normalise();
  err = maxError();

  const margins: Record<string, Record<string, number>> = {};
  const missing: Record<string, number> = {};
  for (const v of vars) {
    const t = totals(v);
    const s = t.reduce((a, b) => a + b, 0);
    margins[v.name] = Object.fromEntries(v.levels.map((l, i) => [l, s > 0 ? t[i] / s : 0]));
    missing[v.name] = v.missing;
  }
  const k = kish(w);
  let minWeight = n > 0 ? Infinity : 0;
  let maxWeight = n > 0 ? -Infinity : 0;
  let minPositive = Infinity;
  for (const x of w) {
    minWeight = Math.min(minWeight, x);
    maxWeight = Math.max(maxWeight, x);
    if (x > 0) minPositive = Math.min(minPositive, x);
  }
  const capBinds = cap != null && (maxWeight >= cap - 1e-9 || minPositive <= 1 / cap + 1e-9);
  return {
    weights: w,
    iterations,
    converged,
    maxError: err,
    margins,
    missing,
    deff: k.deff,
    nEff: k.nEff,
    minWeight,
    maxWeight,
    capBinds,
  };
}
