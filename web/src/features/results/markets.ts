// The market-by-market table and the cross-tab as a researcher reads them: column letters and the
// letters a cell carries (the columns significantly lower), pure so the pages and tests share them.
import type { QualResults } from "./queries";

/** A, B, .. Z, AA, .. (as the API letters cross-tab columns). */
export function letterOf(i: number): string {
  let s = "";
  for (let k = i + 1; k > 0; k = Math.floor((k - 1) / 26)) s = String.fromCharCode(65 + ((k - 1) % 26)) + s;
  return s;
}

/** The markets' letters in the order of the project's markets. */
export function marketLetters(regionIds: readonly number[]): Map<number, string> {
  return new Map(regionIds.map((r, i) => [r, letterOf(i)]));
}

type MarketCell = QualResults["markets"][number]["measures"][number]["results"][number];

/** The letters of the markets this cell is significantly above (after the table's adjustment). */
export function lowerMarkets(cell: Pick<MarketCell, "vsMarkets">, letters: ReadonlyMap<number, string>): string[] {
  return cell.vsMarkets
    .filter((t) => t.significant && t.diff > 0)
    .map((t) => letters.get(t.regionId))
    .filter((l): l is string => !!l)
    .sort();
}

/** The line that discloses how the all-markets total weights its markets. */
export function weightingNote(all: QualResults["allMarkets"], marketName: (regionId: number) => string): string {
  const shares = all.shares.map((s) => `${marketName(s.regionId)} ${(s.share * 100).toFixed(1)}%`).join(", ");
  const how = all.weighting === "population" ? "weighted by population" : "weighted by sample size";
  return `All markets: ${how} (${shares}).${all.note ? ` ${all.note}.` : ""}`;
}
