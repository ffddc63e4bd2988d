// Market populations for an "all markets" total weighted by population (docs/reference-data.md
// "Market populations" gives each figure's source). Keyed by region id (api/src/db/reference-data.sql).
// Regions without a figure here (US states, "Other markets") make a total fall back to sample
// weighting, and the result says so.
export const MARKET_POPULATION: Readonly<Record<number, { population: number; source: string }>> = {
  1: { population: 5_338_900, source: "Stats NZ, estimated resident population, 30 June 2024" },
  2: { population: 27_204_809, source: "Australian Bureau of Statistics, National, state and territory population, June 2024" },
  15: { population: 340_110_988, source: "U.S. Census Bureau, Vintage 2024 population estimates, 1 July 2024" },
  17: { population: 6_036_900, source: "Department of Statistics Singapore, Population in Brief 2024 (total population, June 2024)" },
};
