// Counts and bases as every results face writes them: English grouping ("1,700", as the filter
// sidebar's count and the deck say), whatever the browser's locale. One formatter for every page,
// so the same base never reads "1700" in one place and "1,700" in another.
const whole = new Intl.NumberFormat("en", { maximumFractionDigits: 0 });
const fixed = new Map<number, Intl.NumberFormat>();

/** A count or a base, rounded to a whole number: 1700 -> "1,700". */
export function formatCount(n: number): string {
  return whole.format(n);
}

/** A number with exactly `digits` decimals and English grouping: (1684.84, 1) -> "1,684.8". */
export function formatFixed(n: number, digits: number): string {
  let f = fixed.get(digits);
  if (!f) {
    f = new Intl.NumberFormat("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
    fixed.set(digits, f);
  }
  return f.format(n);
}
