// Small statistics for the benchmarks' figures (no test asserts a time; these only say how sure a
// figure is).

/** The median: the middle value, or the mean of the two middle ones (the benchmarks' one median;
 * fielding/quality.ts has the product's, which answers null for no values). */
export function median(xs: readonly number[]): number {
  if (!xs.length) throw new Error("median of nothing");
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * A distribution-free confidence interval for the median (the order-statistic interval: e.g.
 * Hollander, Wolfe & Chicken, Nonparametric Statistical Methods, 3rd ed., section 3.6; Conover,
 * Practical Nonparametric Statistics, section 3.2): [x(k), x(n+1-k)] of the sorted values, with k
 * the largest rank for which P(B < k) <= (1 - level) / 2, B ~ Binomial(n, 1/2). Its coverage is at
 * least `level` whatever the distribution of the pairs, as long as they are independent. Null when
 * n is too small for any such interval (n < 6 at 95%).
 */
export function medianInterval(xs: readonly number[], level = 0.95): [number, number] | null {
  const n = xs.length;
  const tail = (1 - level) / 2;
  // P(B <= j) for j = 0.., accumulated exactly enough in floating point for n in the hundreds.
  let p = 2 ** -n;
  let below = 0; // P(B < k)
  let k = 0;
  for (let j = 0; j < n; j++) {
    if (below + p > tail) break;
    below += p;
    k = j + 1;
    p = (p * (n - j)) / (j + 1);
  }
  if (k < 1) return null;
  const s = [...xs].sort((a, b) => a - b);
  return [s[k - 1]!, s[n - k]!];
}
