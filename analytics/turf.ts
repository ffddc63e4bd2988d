// TURF, total unduplicated reach and frequency (Markowitz 2005, "Using TURF analysis to find the
// optimal product line", Quirk's; reference implementation: the R package turfR). Implemented from
// the definitions in DOMAIN.md:
//
// - reach(S)     = Σ w·[respondent accepts at least `depth` items of S] / Σ w   (depth default 1)
// - frequency(S) = Σ w·(number of items of S accepted) / Σ w, over all respondents
// - Sets are ranked by reach, then frequency (then by item indices, for a stable order).
// - Exhaustive search over all C(n, k) sets when that count is <= `cap` (default 2,000,000):
//   respondents are packed into Uint32Array bitsets per item; a set's "accepts >= m items" masks
//   are built word-parallel by saturating bit-sliced counters (c_m |= c_{m-1} & item), and the
//   weighted count of a mask is read through per-byte lookup tables of weight sums (with unit
//   weights, i.e. no weights given, a popcount is used instead; the tables take 8 KiB per 32
//   respondents). The search is a depth-first walk over combinations that reuses
//   each prefix's masks.
// - Beyond the cap: greedy search. Start empty; k times, add the item that raises reach most,
//   ties by the larger frequency, then the lower index. For depth 1 reach is a monotone submodular
//   coverage function, so greedy reaches at least (1 − 1/e) of the best (Nemhauser, Wolsey and
//   Fisher 1978); exact TURF is NP-hard. Greedy returns one set.
// Pure: no I/O, no app imports.

export interface TurfInput {
  /** acceptance[r][j]: respondent r accepts item j (truthy / 1) or not. */
  acceptance: readonly (readonly (number | boolean)[])[];
  /** Respondent weights, default 1. Finite, >= 0. */
  weights?: readonly number[];
}

/**
 * The same data already packed (what `analyze turf` builds while it streams a file): per item a
 * bitset of the respondents accepting it (bit r of word r >>> 5), and the respondents' count.
 */
export interface TurfBits {
  bits: readonly Uint32Array[];
  respondents: number;
  weights?: Float64Array;
}

/**
 * Weighted counts read through per-byte tables of weight sums take 8 KiB per 32 respondents; past
 * this many 32-respondent words (262,144 respondents, 64 MiB of tables) the weights of a mask's set
 * bits are added one by one instead, so a file of millions of respondents stays within memory.
 */
export const BYTE_TABLE_MAX_WORDS = 8192;

export interface TurfOptions {
  /** Set size. */
  k: number;
  /** A respondent is reached if they accept at least `depth` of the set's items. Default 1. */
  depth?: number;
  /** How many sets to return (exhaustive search). Default 10. */
  top?: number;
  /** Largest C(n, k) searched exhaustively. Default 2,000,000. */
  cap?: number;
  /** Force the greedy search regardless of the cap. */
  greedy?: boolean;
  /** Largest number of 32-respondent words given per-byte weight tables (BYTE_TABLE_MAX_WORDS). */
  tableWords?: number;
}

export interface TurfSet {
  /** 0-based item indices, ascending. */
  items: number[];
  reach: number;
  frequency: number;
}

export interface TurfResult {
  method: "exhaustive" | "greedy";
  /** Number of sets considered: C(n, k) (exhaustive) or the greedy evaluations. */
  evaluated: number;
  /** Best first. */
  sets: TurfSet[];
  /** Weighted share accepting each item (its reach alone). */
  itemReach: number[];
}

/** C(n, k) as a number, or Infinity once it passes `limit`. */
export function binomial(n: number, k: number, limit = Number.MAX_SAFE_INTEGER): number {
  if (k < 0 || k > n) return 0;
  k = Math.min(k, n - k);
  let c = 1;
  for (let i = 1; i <= k; i++) {
    c = (c * (n - k + i)) / i;
    if (c > limit) return Infinity;
  }
  return Math.round(c);
}

interface Packed {
  nItems: number;
  words: number;
  bits: Uint32Array[]; // per item
  /** [word*4 + byte][256] weight sums; null when unweighted (popcount is used) or too large. */
  byteSums: Float64Array | null;
  /** The weights, when weighted and the byte tables would be too large (bits are summed one by one). */
  weights: Float64Array | null;
  total: number;
  itemShare: number[];
}

function pack(input: TurfInput | TurfBits, tableWords = BYTE_TABLE_MAX_WORDS): Packed {
  if ("bits" in input) return packBits(input.bits.slice(), input.respondents, input.weights ?? null, tableWords);
  const rows = input.acceptance;
  const nResp = rows.length;
  const nItems = nResp > 0 ? rows[0].length : 0;
  if (input.weights && input.weights.length !== nResp) throw new RangeError("weights must have one entry per respondent");
  const words = Math.ceil(nResp / 32);
  const bits = Array.from({ length: nItems }, () => new Uint32Array(words));
  for (let r = 0; r < nResp; r++) {
    if (rows[r].length !== nItems) throw new RangeError(`respondent ${r} has ${rows[r].length} items, expected ${nItems}`);
    for (let j = 0; j < nItems; j++) if (rows[r][j]) bits[j][r >>> 5] |= 1 << (r & 31);
  }
  return packBits(bits, nResp, input.weights ? Float64Array.from(input.weights) : null, tableWords);
}

function packBits(bits: Uint32Array[], nResp: number, weights: Float64Array | null, tableWords: number): Packed {
  const nItems = bits.length;
  const words = Math.ceil(nResp / 32);
  if (weights && weights.length !== nResp) throw new RangeError("weights must have one entry per respondent");
  for (const b of bits) if (b.length < words) throw new RangeError(`an item's bitset has ${b.length} words, expected ${words}`);
  let total = 0;
  const itemW = new Array<number>(nItems).fill(0);
  for (let r = 0; r < nResp; r++) {
    const w = weights ? weights[r] : 1;
    if (!Number.isFinite(w) || w < 0) throw new RangeError(`weight must be finite and >= 0, got ${w}`);
    total += w;
    const word = r >>> 5;
    const bit = 1 << (r & 31);
    for (let j = 0; j < nItems; j++) if (bits[j][word] & bit) itemW[j] += w;
  }
  const tables = weights !== null && words <= tableWords;
  const byteSums = tables ? new Float64Array(words * 4 * 256) : null;
  for (let b = 0; byteSums && b < words * 4; b++) {
    const base = b * 256;
    for (let v = 1; v < 256; v++) {
      const low = v & -v;
      const bit = 31 - Math.clz32(low);
      const r = b * 8 + bit;
      byteSums[base + v] = byteSums[base + (v ^ low)] + (r < nResp ? weights![r] : 0);
    }
  }
  return {
    nItems,
    words,
    bits,
    byteSums,
    weights: tables ? null : weights,
    total,
    itemShare: itemW.map((x) => (total > 0 ? x / total : 0)),
  };
}

function popcount32(x: number): number {
  x -= (x >>> 1) & 0x55555555;
  x = (x & 0x33333333) + ((x >>> 2) & 0x33333333);
  x = (x + (x >>> 4)) & 0x0f0f0f0f;
  return Math.imul(x, 0x01010101) >>> 24;
}

function weightedCount(p: Packed, mask: Uint32Array): number {
  let s = 0;
  const t = p.byteSums;
  const w = p.weights;
  if (w !== null) {
    // Weighted without tables: the weight of each set bit, lowest first.
    for (let i = 0; i < p.words; i++) {
      let m = mask[i];
      while (m !== 0) {
        const low = m & -m;
        s += w[i * 32 + 31 - Math.clz32(low)];
        m ^= low;
      }
    }
    return s;
  }
  if (t === null) {
    for (let i = 0; i < p.words; i++) s += popcount32(mask[i]);
    return s;
  }
  for (let i = 0; i < p.words; i++) {
    const m = mask[i];
    if (m === 0) continue;
    const base = i * 1024;
    s += t[base + (m & 255)] + t[base + 256 + ((m >>> 8) & 255)] + t[base + 512 + ((m >>> 16) & 255)] + t[base + 768 + (m >>> 24)];
  }
  return s;
}

/** counters[m-1] = respondents accepting >= m items so far; add one item word-parallel. */
function addItem(prev: Uint32Array[], next: Uint32Array[], item: Uint32Array, words: number): void {
  const depth = prev.length;
  for (let i = 0; i < words; i++) {
    const x = item[i];
    for (let m = depth - 1; m >= 0; m--) {
      const below = m === 0 ? 0xffffffff : prev[m - 1][i];
      next[m][i] = prev[m][i] | (below & x);
    }
  }
}

function better(a: TurfSet, b: TurfSet): boolean {
  if (a.reach !== b.reach) return a.reach > b.reach;
  if (a.frequency !== b.frequency) return a.frequency > b.frequency;
  for (let i = 0; i < a.items.length; i++) if (a.items[i] !== b.items[i]) return a.items[i] < b.items[i];
  return false;
}

/** Reach and frequency of one set (0-based item indices), computed directly. */
export function turfReach(input: TurfInput | TurfBits, items: readonly number[], depth = 1): { reach: number; frequency: number } {
  const p = pack(input);
  return evalSet(p, items, depth);
}

function evalSet(p: Packed, items: readonly number[], depth: number) {
  let cur = Array.from({ length: depth }, () => new Uint32Array(p.words));
  let nxt = Array.from({ length: depth }, () => new Uint32Array(p.words));
  for (const j of items) {
    addItem(cur, nxt, p.bits[j], p.words);
    [cur, nxt] = [nxt, cur];
  }
  const reach = p.total > 0 ? weightedCount(p, cur[depth - 1]) / p.total : 0;
  const frequency = items.reduce((a, j) => a + p.itemShare[j], 0);
  return { reach, frequency };
}

export function turf(input: TurfInput | TurfBits, options: TurfOptions): TurfResult {
  const depth = options.depth ?? 1;
  const top = options.top ?? 10;
  const cap = options.cap ?? 2_000_000;
  const p = pack(input, options.tableWords);
  const { k } = options;
  if (!Number.isInteger(k) || k < 1 || k > p.nItems) throw new RangeError(`k must be an integer in 1..${p.nItems}`);
  if (!Number.isInteger(depth) || depth < 1 || depth > k) throw new RangeError(`depth must be an integer in 1..k`);
  const count = binomial(p.nItems, k, cap);
  if (options.greedy || count > cap) return greedy(p, k, depth);

  const best: TurfSet[] = [];
  const insert = (s: TurfSet) => {
    if (best.length === top && !better(s, best[best.length - 1])) return;
    let i = best.length;
    while (i > 0 && better(s, best[i - 1])) i--;
    best.splice(i, 0, s);
    if (best.length > top) best.pop();
  };
  // Level l holds the counters after the first l chosen items.
  const levels = Array.from({ length: k + 1 }, () => Array.from({ length: depth }, () => new Uint32Array(p.words)));
  const chosen = new Array<number>(k);
  let evaluated = 0;
  const walk = (level: number, start: number, freq: number) => {
    for (let j = start; j <= p.nItems - (k - level); j++) {
      addItem(levels[level], levels[level + 1], p.bits[j], p.words);
      chosen[level] = j;
      const f = freq + p.itemShare[j];
      if (level + 1 === k) {
        evaluated++;
        const reach = p.total > 0 ? weightedCount(p, levels[k][depth - 1]) / p.total : 0;
        if (best.length < top || reach >= best[best.length - 1].reach) insert({ items: chosen.slice(), reach, frequency: f });
      } else walk(level + 1, j + 1, f);
    }
  };
  if (top > 0) walk(0, 0, 0);
  // Frequencies summed in walk order; recompute in index order so equal sets compare equal.
  for (const s of best) s.frequency = s.items.reduce((a, j) => a + p.itemShare[j], 0);
  best.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0));
  return { method: "exhaustive", evaluated, sets: best, itemReach: p.itemShare.slice() };
}

function greedy(p: Packed, k: number, depth: number): TurfResult {
  const items: number[] = [];
  let evaluated = 0;
  let bestSet: TurfSet = { items: [], reach: 0, frequency: 0 };
  for (let step = 0; step < k; step++) {
    let stepBest: TurfSet | null = null;
    for (let j = 0; j < p.nItems; j++) {
      if (items.includes(j)) continue;
      const cand = [...items, j].sort((a, b) => a - b);
      const { reach, frequency } = evalSet(p, cand, depth);
      evaluated++;
      const s = { items: cand, reach, frequency };
      // ties by frequency, then the lower added index (j ascending, so keep the first)
      if (!stepBest || s.reach > stepBest.reach || (s.reach === stepBest.reach && s.frequency > stepBest.frequency)) stepBest = s;
    }
    bestSet = stepBest!;
    items.splice(0, items.length, ...bestSet.items);
  }
  return { method: "greedy", evaluated, sets: [bestSet], itemReach: p.itemShare.slice() };
}
