import { expect, test } from "bun:test";
import { formatCount, formatFixed } from "../../web/src/lib/numbers.ts";

// The banner's "1,700" (the filter sidebar) and the figures table's base are one format; the
// grouping starts at 1,000 exactly.
test("a count is grouped by thousands from 1,000, whatever the locale", () => {
  expect(formatCount(999)).toBe("999");
  expect(formatCount(1000)).toBe("1,000");
  expect(formatCount(1700)).toBe("1,700");
  expect(formatCount(1234567)).toBe("1,234,567");
  expect(formatCount(0)).toBe("0");
  expect(formatCount(1699.5)).toBe("1,700");
});

test("a fixed-decimal figure keeps its decimals and the grouping", () => {
  expect(formatFixed(1684.84, 1)).toBe("1,684.8");
  expect(formatFixed(999.96, 1)).toBe("1,000.0");
  expect(formatFixed(12, 1)).toBe("12.0");
  expect(formatFixed(0.5, 2)).toBe("0.50");
});
