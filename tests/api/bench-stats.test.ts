// The benchmarks' median and its order-statistic interval (tests/perf/stats.ts). Expected ranks
// from the binomial tables (Conover, Practical Nonparametric Statistics, table A3; also
// R: qbinom(0.025, n, 0.5)), worked by hand below, not from the code.
import { describe, expect, test } from "bun:test";
import { median, medianInterval } from "../perf/stats.ts";

const ranks = (n: number) => Array.from({ length: n }, (_, i) => i + 1); // x(i) = i: the interval names its ranks

describe("bench statistics", () => {
  test("median of odd and even counts", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(() => median([])).toThrow();
  });

  test("95% interval of the median: ranks from the binomial", () => {
    // n = 15: P(B <= 3) = (1 + 15 + 105 + 455) / 32768 = 0.01758 <= 0.025 < P(B <= 4) = 0.05923: ranks 4 and 12.
    expect(medianInterval(ranks(15))).toEqual([4, 12]);
    // n = 40: P(B <= 13) = 0.01924 <= 0.025 < P(B <= 14) = 0.04035: ranks 14 and 27.
    expect(medianInterval(ranks(40))).toEqual([14, 27]);
    // n = 6: P(B = 0) = 1/64 = 0.0156 <= 0.025: ranks 1 and 6; n = 5: 1/32 = 0.031 > 0.025, none.
    expect(medianInterval(ranks(6))).toEqual([1, 6]);
    expect(medianInterval(ranks(5))).toBeNull();
  });

  test("the interval does not depend on the input order", () => {
    expect(medianInterval([9, 2, 15, 1, 7, 3, 14, 4, 12, 6, 11, 5, 13, 8, 10])).toEqual([4, 12]);
  });
});
