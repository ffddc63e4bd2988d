// Design-based estimation for weighted shares and means (pure: no I/O, no app imports).
//
// The design: a stratified sample of primary sampling units (PSUs = respondents), strata = the
// market run, weights w. A respondent may contribute rows to several domains (the test options
// they rated in a sequential monadic design); a domain is any subgroup (a test option, a filter).
//
// Estimate of domain d (a ratio mean; a share when y is 0/1):
//   p_d = Σ_i a_id / Σ_i b_id,  a_id = Σ_{rows of i in d} w·y,  b_id = Σ_{rows of i in d} w,  W_d = Σ_i b_id.
// Taylor linearisation (Wolter 2007, ch. 6; Lumley 2010, sec. 2.2 and 3.4 for domains): the
// linearised score of PSU i in domain d is z_id = (a_id − p_d·b_id)/W_d, zero for a PSU without
// rows in d (domain estimation keeps every PSU of the design: Lumley 2010 sec. 2.3), and
//   Cov(p_d, p_e) = Σ_h n_h/(n_h − 1) · Σ_{i∈h} (z_id − z̄_hd)(z_ie − z̄_he),
// n_h the PSUs of stratum h. This is what R's survey package computes for
// svydesign(ids=~respondent, strata=~market, weights=~w) with svyby(..., svymean, covmat=TRUE).
// `ideally analyze compare --cluster` adds PSUs that are clusters of respondents (a cluster's a, b
// are its respondents' summed: svydesign(ids=~cluster, strata=~stratum, nest=TRUE); Binder 1983).
// A stratum of one PSU contributes nothing (survey's lonely.psu = "certainty").
// The sums needed per stratum are Σa, Σb per domain and Σ a_d a_e, Σ a_d b_e, Σ b_d b_e per pair:
//   Σ_i z_id z_ie = (AA − p_e·AB − p_d·BA + p_d p_e·BB)/(W_d W_e),  Σ_i z_id = (A − p_d B)/W_d.
// Kish (1965) n_eff = (Σw)²/Σw² is kept for display.
import { erfc, type Confidence, SMALL_BASE, Z_CRITICAL } from "./significance.ts";

/** Sufficient sums of one stratum, for k domains (matrices row-major k×k). */
export interface StratumSums {
  /** PSUs (respondents) of the stratum in the design, whether or not in a domain. */
  n: number;
  /** Per domain: PSUs with rows in it, Σa, Σb. */
  count: number[];
  A: number[];
  B: number[];
  /** Per pair (d, e): PSUs in both, Σ a_d a_e, Σ a_d b_e, Σ b_d b_e. */
  NN: number[];
  AA: number[];
  AB: number[];
  BB: number[];
}

export interface DesignSums {
  domains: number;
  strata: Map<string, StratumSums>;
}

export function emptySums(k: number): DesignSums {
  return { domains: k, strata: new Map() };
}

export function stratumOf(s: DesignSums, key: string): StratumSums {
  let h = s.strata.get(key);
  if (!h) {
    const k = s.domains;
    h = {
      n: 0,
      count: new Array(k).fill(0),
      A: new Array(k).fill(0),
      B: new Array(k).fill(0),
      NN: new Array(k * k).fill(0),
      AA: new Array(k * k).fill(0),
      AB: new Array(k * k).fill(0),
      BB: new Array(k * k).fill(0),
    };
    s.strata.set(key, h);
  }
  return h;
}

/**
 * Adds one PSU: its stratum and its (domain, a, b) totals (at most one entry per domain; an empty
 * list is a PSU of the design outside every domain, which still counts in n_h).
 */
export function addPsu(s: DesignSums, stratum: string, cells: readonly { d: number; a: number; b: number }[]): void {
  const h = stratumOf(s, stratum);
  const k = s.domains;
  h.n++;
  for (const c of cells) {
    h.count[c.d]!++;
    h.A[c.d]! += c.a;
    h.B[c.d]! += c.b;
    for (const e of cells) {
      const x = c.d * k + e.d;
      h.NN[x]!++;
      h.AA[x]! += c.a * e.a;
      h.AB[x]! += c.a * e.b;
      h.BB[x]! += c.b * e.b;
    }
  }
}

export interface DomainEstimate {
  /** Respondents with rows in the domain. */
  n: number;
  /** Σ weights. */
  weight: number;
  /** Kish effective base (Σw)²/Σw². */
  nEff: number;
  estimate: number;
  se: number;
}

export interface DesignEstimates {
  domains: DomainEstimate[];
  /** Linearised covariance, k×k row-major. */
  cov: number[];
  /** Respondents in both domains, k×k row-major. */
  both: number[];
}

/** Estimates and their linearised covariance from the sums (see the header). */
export function designEstimates(s: DesignSums): DesignEstimates {
  const k = s.domains;
  const W = new Array(k).fill(0);
  const Aall = new Array(k).fill(0);
  const n = new Array(k).fill(0);
  const sumW2 = new Array(k).fill(0);
  for (const h of s.strata.values()) {
    for (let d = 0; d < k; d++) {
      W[d] += h.B[d]!;
      Aall[d] += h.A[d]!;
      n[d] += h.count[d]!;
      sumW2[d] += h.BB[d * k + d]!;
    }
  }
  const p = W.map((w, d) => (w > 0 ? Aall[d] / w : NaN));
  const cov = new Array(k * k).fill(0);
  const both = new Array(k * k).fill(0);
  for (const h of s.strata.values()) {
    for (let x = 0; x < k * k; x++) both[x] += h.NN[x]!;
    if (h.n < 2) continue;
    const f = h.n / (h.n - 1);
    const S = p.map((pd, d) => (W[d] > 0 ? (h.A[d]! - pd * h.B[d]!) / W[d] : 0));
    for (let d = 0; d < k; d++) {
      if (!(W[d] > 0)) continue;
      for (let e = d; e < k; e++) {
        if (!(W[e] > 0)) continue;
        const x = d * k + e;
        // Σ a_e b_d = AB[e][d].
        const cross = (h.AA[x]! - p[e] * h.AB[x]! - p[d] * h.AB[e * k + d]! + p[d] * p[e] * h.BB[x]!) / (W[d] * W[e]);
        const c = f * (cross - (S[d]! * S[e]!) / h.n);
        cov[x] += c;
        if (e !== d) cov[e * k + d] += c;
      }
    }
  }
  return {
    domains: p.map((est, d) => ({
      n: n[d],
      weight: W[d],
      nEff: sumW2[d] > 0 ? (W[d] * W[d]) / sumW2[d] : 0,
      estimate: est,
      se: Math.sqrt(Math.max(0, cov[d * k + d])),
    })),
    cov,
    both,
  };
}

/** One row of long-format data: a respondent's value in a domain. */
export interface LongRow {
  respondent: string;
  stratum: string;
  weight: number;
  domain: number;
  y: number;
}

/**
 * Sums from long-format rows (one row per respondent and rated option). A respondent's weight and
 * stratum are those of their first row.
 */
export function sumsFromRows(rows: Iterable<LongRow>, k: number): DesignSums {
  const by = new Map<string, { stratum: string; cells: Map<number, { d: number; a: number; b: number }> }>();
  for (const r of rows) {
    let p = by.get(r.respondent);
    if (!p) {
      p = { stratum: r.stratum, cells: new Map() };
      by.set(r.respondent, p);
    }
    const c = p.cells.get(r.domain) ?? p.cells.set(r.domain, { d: r.domain, a: 0, b: 0 }).get(r.domain)!;
    c.a += r.weight * r.y;
    c.b += r.weight;
  }
  const s = emptySums(k);
  for (const p of by.values()) addPsu(s, p.stratum, [...p.cells.values()]);
  return s;
}

// ---- intervals ----

/**
 * Wilson (1927) score interval with the design's effective sample size n* = p(1 − p)/Var(p)
 * (Korn and Graubard 1998 use the same n* for their interval), capped at the respondents n; where
 * p is 0 or 1 (no variance to read n* from) the Kish n_eff stands in. Never zero width for n* > 0:
 *   centre = (p + z²/2n*)/(1 + z²/n*),  half = z·√(p(1 − p)/n* + z²/4n*²)/(1 + z²/n*).
 */
export function wilsonInterval(p: number, se: number, n: number, kishNEff: number, confidence: Confidence): { lo: number; hi: number; nStar: number } {
  const z = Z_CRITICAL[confidence];
  const v = se * se;
  let nStar = p > 0 && p < 1 && v > 0 ? (p * (1 - p)) / v : kishNEff;
  if (nStar > n) nStar = n;
  if (!(nStar > 0) || !Number.isFinite(p)) return { lo: NaN, hi: NaN, nStar: 0 };
  const z2 = z * z;
  const den = 1 + z2 / nStar;
  const centre = (p + z2 / (2 * nStar)) / den;
  const half = (z * Math.sqrt((p * (1 - p)) / nStar + z2 / (4 * nStar * nStar))) / den;
  // At p = 0 (1) the lower (upper) end is exactly 0 (1).
  return { lo: p === 0 ? 0 : Math.max(0, centre - half), hi: p === 1 ? 1 : Math.min(1, centre + half), nStar };
}

/** Kish n_eff below 30 is a low base: 30 is not small, 29.99 is. */
export function isSmallBase(nEff: number): boolean {
  return !(nEff >= SMALL_BASE);
}

// ---- tests ----

/** Two-sided normal p-value of z. */
export function twoSidedP(z: number): number {
  return Number.isFinite(z) ? Math.min(1, erfc(Math.abs(z) / Math.SQRT2)) : NaN;
}

export interface Contrast {
  a: number;
  b: number;
  diff: number;
  se: number;
  z: number;
  p: number;
  /** Whether some respondents are in both (their within-respondent covariance entered the SE). */
  paired: boolean;
}

/**
 * p_a − p_b with SE √(V_aa + V_bb − 2·V_ab) from the linearised covariance (svycontrast): paired
 * where the same respondents rated both (V_ab carries their within-respondent covariance),
 * independent where the samples are disjoint (different strata: V_ab = 0).
 */
export function contrast(est: DesignEstimates, a: number, b: number): Contrast {
  const k = est.domains.length;
  const paired = est.both[a * k + b]! > 0;
  const v = est.cov[a * k + a]! + est.cov[b * k + b]! - 2 * est.cov[a * k + b]!;
  const da = est.domains[a]!;
  const db = est.domains[b]!;
  const diff = da.estimate - db.estimate;
  let se = Math.sqrt(Math.max(0, v));
  // Both shares at 0 or 1 (no variance to linearise, e.g. 100% vs 0%): the pooled binomial variance
  // p̄(1 − p̄)(1/n_a + 1/n_b) with Kish bases, so a difference is never certain by construction.
  if (!(se > 0) && diff !== 0 && da.nEff > 0 && db.nEff > 0) {
    const pooled = (da.estimate * da.nEff + db.estimate * db.nEff) / (da.nEff + db.nEff);
    se = Math.sqrt(pooled * (1 - pooled) * (1 / da.nEff + 1 / db.nEff));
  }
  // Identical degenerate shares (0 vs 0 or 1 vs 1): no evidence of a difference.
  const z = se > 0 ? diff / se : diff === 0 ? 0 : NaN;
  return { a, b, diff, se, z, p: Number.isNaN(z) ? NaN : twoSidedP(z), paired };
}

// ---- multiple comparisons ----

export type Adjust = "bh" | "bonferroni" | "none";
export const ADJUST_NAMES: Record<Adjust, string> = { bh: "Benjamini-Hochberg", bonferroni: "Bonferroni", none: "none" };

/**
 * How a view's tests were adjusted, in words: "Benjamini-Hochberg adjustment over the view's 15
 * tests", "no multiple-comparison adjustment", or, when the view could test nothing (every norm
 * indicative, every base low), that no test was made, never "over the view's 0 tests".
 */
export function adjustmentWords(m: { adjust: Adjust; tests: number }): string {
  if (m.tests === 0) return "no test: nothing in this view could be tested (indicative norms, low bases)";
  if (m.adjust === "none") return "no multiple-comparison adjustment";
  return `${ADJUST_NAMES[m.adjust]} adjustment over the view's ${m.tests} test${m.tests === 1 ? "" : "s"}`;
}

/**
 * Adjusted p-values within one family, as R's p.adjust: Bonferroni min(1, m·p); Benjamini and
 * Hochberg (1995) step-up, p_(i)·m/i made monotone from the largest down (cummin), capped at 1.
 * NaN p-values are left out of the family and stay NaN.
 */
export function adjustP(ps: readonly number[], method: Adjust): number[] {
  const idx = ps.map((p, i) => ({ p, i })).filter((x) => Number.isFinite(x.p));
  const m = idx.length;
  const out = ps.map(() => NaN);
  if (method === "none") return ps.map((p) => (Number.isFinite(p) ? p : NaN));
  if (method === "bonferroni") {
    for (const x of idx) out[x.i] = Math.min(1, x.p * m);
    return out;
  }
  idx.sort((a, b) => b.p - a.p);
  let min = 1;
  idx.forEach((x, j) => {
    const rank = m - j;
    min = Math.min(min, (x.p * m) / rank);
    out[x.i] = Math.min(1, min);
  });
  return out;
}

/**
 * Significant at the confidence after adjustment: adjusted p below 1 − confidence. The level is
 * (100 − confidence)/100, exact in floating point for 90, 95 and 99, where 1 − 95/100 is
 * 0.050000000000000044 and counted a p of exactly 0.05 as significant.
 */
export function significantAt(pAdjusted: number, confidence: Confidence): boolean {
  return Number.isFinite(pAdjusted) && pAdjusted < (100 - confidence) / 100;
}

// ---- norms as distributions ----

/** A norm with fewer comparable projects than this is thin: indicative, never significant (docs/decisions.md). */
export const THIN_NORM = 5;

export interface NormDistribution {
  /** Unweighted mean of the comparable projects' scores. */
  mean: number;
  /** Between-project standard deviation (n − 1 denominator); NaN under 2 projects. */
  sd: number;
  count: number;
  /** The projects' scores, ascending (for quintiles). */
  scores: number[];
}

export function normDistribution(scores: readonly number[]): NormDistribution {
  const s = [...scores].filter(Number.isFinite).sort((a, b) => a - b);
  const count = s.length;
  const mean = count ? s.reduce((a, b) => a + b, 0) / count : NaN;
  const sd = count > 1 ? Math.sqrt(s.reduce((a, x) => a + (x - mean) ** 2, 0) / (count - 1)) : NaN;
  return { mean, sd, count, scores: s };
}

/**
 * A fixed reference value as a norm: SPEC 7's 'None' benchmark, 50 percent. It is not an average of
 * projects, so it adds no variance (the test is the concept's own z = (p − value)/se), is never
 * thin (count is unbounded) and has no quintile.
 */
export function fixedNorm(value: number): NormDistribution {
  return { mean: value, sd: 0, count: Number.POSITIVE_INFINITY, scores: [] };
}

/**
 * A concept against a norm. The norm's mean is an average of `count` project scores whose spread
 * is the between-project SD, so its variance is sd²/count (a random-effects mean: DerSimonian and
 * Laird 1986); the concept's own sampling variance se² adds: z = (p − mean)/√(se² + sd²/count).
 * Thin (count < THIN_NORM): indicative only, never significant.
 */
export function testAgainstNorm(p: number, se: number, norm: NormDistribution): { diff: number; se: number; z: number; p: number; thin: boolean; quintile: number | null } {
  const thin = norm.count < THIN_NORM;
  const diff = p - norm.mean;
  const v = se * se + (Number.isFinite(norm.sd) ? (norm.sd * norm.sd) / norm.count : 0);
  const s = Math.sqrt(v);
  const z = s > 0 ? diff / s : diff === 0 ? 0 : NaN;
  return { diff, se: s, z, p: Number.isNaN(z) ? NaN : twoSidedP(z), thin, quintile: normQuintile(p, norm.scores) };
}

/**
 * The concept's quintile within the norm's projects (1 bottom fifth .. 5 top fifth), from its
 * mid-rank percentile (projects below + half the ties)/count; null without projects.
 */
export function normQuintile(p: number, sortedScores: readonly number[]): number | null {
  const m = sortedScores.length;
  if (!m || !Number.isFinite(p)) return null;
  let below = 0;
  let ties = 0;
  for (const x of sortedScores) {
    if (x < p) below++;
    else if (x === p) ties++;
  }
  const pct = (below + ties / 2) / m;
  return Math.min(5, Math.floor(pct * 5) + 1);
}

// ---- design effects ----

/**
 * The design effect of a share (Kish 1965, sec. 8.2): its design-based variance over the variance
 * simple random sampling with replacement would give the same number of observations,
 * deff = se² / (p(1 − p)/(m − 1)), m the domain's observations with a non-zero weight. The SRS
 * variance is R survey's svyvar (the weighted variance with m/(m − 1)) over m, as
 * svymean(..., deff = "replace") computes it (survey 4.1.1). NaN at p = 0 or 1 (no
 * variance to compare) or under two observations.
 */
export function designEffect(p: number, se: number, m: number): number {
  const srs = (p * (1 - p)) / (m - 1);
  return m >= 2 && srs > 0 ? (se * se) / srs : NaN;
}

// ---- a whole comparison on long-format data (the engine of `ideally analyze compare`) ----

export interface LongInput {
  /** Respondent id; null: every row is its own unit (the comparisons are then independent). */
  respondent: string | null;
  /** Stratum; null: one stratum. */
  stratum: string | null;
  weight: number;
  group: string;
  /** The value; null when not answered (the row stays in the design, outside the domain). */
  y: number | null;
}

/** A group's bases, counted on respondents whatever the clusters (the PSUs) are. */
export interface GroupBase {
  /** Respondents with rows in the group. */
  n: number;
  /** Kish (1965) n_eff = (Σw)²/Σw² over those respondents (a respondent's weight: Σ of their rows' in the group). */
  nEff: number;
  /** Rows in the group with a non-zero weight (the design effect's m). */
  observations: number;
}

export interface CompareResult {
  groups: { group: string; n: number; clusters: number; nEff: number; share: number; se: number; deff: number | null; ci: [number, number]; smallBase: boolean }[];
  comparisons: {
    a: string;
    b: string;
    diff: number;
    se: number;
    /** False when either group is under the minimum base: no z, p or star. */
    tested: boolean;
    z: number | null;
    p: number | null;
    pAdjusted: number | null;
    significant: boolean;
    paired: boolean;
  }[];
  method: {
    variance: "taylor-linearisation";
    strata: boolean;
    /** Clusters above the respondent (false: each respondent is its own cluster). */
    clusters: boolean;
    paired: boolean;
    interval: "wilson-neff";
    adjust: Adjust;
    adjustName: string;
    confidence: Confidence;
    /** The minimum base (Kish n_eff): a group under it is flagged and not tested. */
    minBase: number;
    /** The same figure under its older name. */
    smallBase: number;
    /** The comparisons tested: the family the adjustment runs over. */
    tests: number;
    /** A stratum of one cluster adds no variance (R's survey.lonely.psu = "certainty"). */
    lonelyPsu: "certainty";
  };
}

/**
 * Groups (sorted by name, as R orders factor levels), each group's estimate with its linearised
 * SE and Wilson interval, and every pair (a before b) compared with the design's covariance,
 * p-values adjusted within the family of the pairs tested (both groups at the minimum base or above).
 */
export function compareLong(rows: readonly LongInput[], opts: { confidence: Confidence; adjust: Adjust; minBase?: number }): CompareResult {
  const names = [...new Set(rows.map((r) => r.group))].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const index = new Map(names.map((g, i) => [g, i]));
  const paired = rows.some((r) => r.respondent !== null);
  const strat = rows.some((r) => r.stratum !== null);
  const long: LongRow[] = [];
  const designOnly: { respondent: string; stratum: string }[] = [];
  rows.forEach((r, i) => {
    const respondent = r.respondent ?? `#${i}`;
    const stratum = r.stratum ?? "";
    if (r.y === null) designOnly.push({ respondent, stratum });
    else long.push({ respondent, stratum, weight: r.weight, domain: index.get(r.group)!, y: r.y });
  });
  const s = sumsFromRows(long, names.length);
  // Respondents with no answered row are still units of the design.
  const seen = new Set(long.map((r) => r.respondent));
  for (const d of designOnly) {
    if (seen.has(d.respondent)) continue;
    seen.add(d.respondent);
    addPsu(s, d.stratum, []);
  }
  // Respondents are the PSUs here: their bases are the domains' own.
  const est = designEstimates(s);
  const observations = names.map((_, d) => long.filter((r) => r.domain === d && r.weight !== 0).length);
  const bases = est.domains.map((d, i) => ({ n: d.n, nEff: d.nEff, observations: observations[i]! }));
  return compareSums(s, names, bases, { ...opts, minBase: opts.minBase ?? SMALL_BASE, paired, strata: strat, clusters: false });
}

/**
 * compareLong from the design's sums, for data summed elsewhere (`analyze compare` streams a file
 * into them, a PSU being a cluster of respondents when it has clusters): `names` are the domains'
 * groups in their order, `bases` their respondents' counts, `paired`, `strata` and `clusters` what
 * the method reports. A group whose Kish n_eff is under `minBase` is flagged (smallBase) and its
 * comparisons are not tested: no z, p or star, and they are not in the adjustment's family.
 */
export function compareSums(
  s: DesignSums,
  names: readonly string[],
  bases: readonly GroupBase[],
  opts: { confidence: Confidence; adjust: Adjust; minBase: number; paired: boolean; strata: boolean; clusters: boolean },
): CompareResult {
  const est = designEstimates(s);
  const low = bases.map((b) => !(b.nEff >= opts.minBase));
  const groups = est.domains.map((d, i) => {
    const b = bases[i]!;
    const ci = wilsonInterval(d.estimate, d.se, b.n, b.nEff, opts.confidence);
    const deff = designEffect(d.estimate, d.se, b.observations);
    return {
      group: names[i]!,
      n: b.n,
      clusters: d.n,
      nEff: b.nEff,
      share: d.estimate,
      se: d.se,
      deff: Number.isFinite(deff) ? deff : null,
      ci: [ci.lo, ci.hi] as [number, number],
      smallBase: low[i]!,
    };
  });
  const cs: Contrast[] = [];
  for (let a = 0; a < names.length; a++) for (let b = a + 1; b < names.length; b++) cs.push(contrast(est, a, b));
  const tested = cs.map((c) => !low[c.a] && !low[c.b]);
  const adj = adjustP(
    cs.map((c, i) => (tested[i] ? c.p : NaN)),
    opts.adjust,
  );
  const num = (x: number) => (Number.isFinite(x) ? x : null);
  return {
    groups,
    comparisons: cs.map((c, i) =>
      tested[i]
        ? {
            a: names[c.a]!,
            b: names[c.b]!,
            diff: c.diff,
            se: c.se,
            tested: true,
            z: num(c.z),
            p: num(c.p),
            pAdjusted: num(adj[i]!),
            significant: significantAt(adj[i]!, opts.confidence),
            paired: c.paired,
          }
        : { a: names[c.a]!, b: names[c.b]!, diff: c.diff, se: c.se, tested: false, z: null, p: null, pAdjusted: null, significant: false, paired: c.paired },
    ),
    method: {
      variance: "taylor-linearisation",
      strata: opts.strata,
      clusters: opts.clusters,
      paired: opts.paired,
      interval: "wilson-neff",
      adjust: opts.adjust,
      adjustName: ADJUST_NAMES[opts.adjust],
      confidence: opts.confidence,
      minBase: opts.minBase,
      smallBase: opts.minBase,
      tests: tested.filter((t, i) => t && Number.isFinite(cs[i]!.p)).length,
      lonelyPsu: "certainty",
    },
  };
}
