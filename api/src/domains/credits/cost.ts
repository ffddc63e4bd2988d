// The price of one run (wave) of a project, in credits: the formula of docs/credits.md, with its
// constants. Pure: the inputs are read by credits.sql.ts, and CreditCostNow, Submit's charge and
// the schedule estimates all come from costOfRun(), so they cannot disagree.
//
// Per region r of the project (n_r completes per wave):
//   completes_r = min(n_r, 200) + 1.5 x max(0, n_r - 200)      completes beyond the standard 200
//                                                               are a boosted sample at 1.5x
//   base_r      = rate_r x completes_r                          rate: credits per complete
//   cost_r      = ceil(base_r x cellFactor x (1 + addOns))      whole credits, rounded up
// cellFactor = 1 + 0.25 x (cells - 1)      cells: the live test options (monadic cells), at least 1
// addOns     = 0.20 price sensitivity + 0.15 market reach + 0.05 x max(0, customQuestions - 5)
// total      = sum of cost_r
//
// The arithmetic is exact: every constant is a whole number of hundredths (or quarters), so the
// cost is one integer division rounded up, never a float compared with a float.

/** Completes per region per wave included at the standard rate. */
export const STANDARD_COMPLETES = 200;
/** Price of a complete beyond STANDARD_COMPLETES (a boosted sample), relative to the standard rate. */
export const BOOST_MULTIPLIER = 1.5;
/** Each test option beyond the first adds this share of the region's base (a longer interview). */
export const CELL_INCREMENT = 0.25;
export const PRICE_SENSITIVITY_ADDON = 0.2;
export const MARKET_REACH_ADDON = 0.15;
/** Custom (team-written) questions included in the price; each one beyond adds CUSTOM_QUESTION_ADDON. */
export const INCLUDED_CUSTOM_QUESTIONS = 5;
export const CUSTOM_QUESTION_ADDON = 0.05;
/** Credits per complete on the client's own (customer) panel, in any region: the platform only. */
export const CUSTOMER_PANEL_RATE = 0.25;
/** Credits per complete on the Ideally panel, by region id. */
export const REGION_RATES: Readonly<Record<number, number>> = {
  1: 1, // New Zealand
  2: 1, // Australia
  15: 1, // USA
  17: 1.25, // Singapore
  999999: 1.5, // Other markets
};
/** US states (ids 56..104) and any region not listed: harder to fill than a whole market. */
export const OTHER_REGION_RATE = 1.25;

export interface RegionInput {
  regionId: number;
  regionName: string;
  sampleSize: number;
  isCustomerPanel: boolean;
}

export interface CostInputs {
  regions: readonly RegionInput[];
  /** Live (not deleted) test options. */
  testOptions: number;
  priceSensitivity: boolean;
  marketReach: boolean;
  /** Team-written project questions (no standard question behind them), not deleted. */
  customQuestions: number;
}

export interface RegionCost {
  regionId: number;
  regionName: string;
  sampleSize: number;
  isCustomerPanel: boolean;
  /** Credits per complete. */
  rate: number;
  standardCompletes: number;
  boostedCompletes: number;
  cost: number;
}

export interface RunCost {
  total: number;
  regions: RegionCost[];
  cells: number;
  cellFactor: number;
  addOns: {
    priceSensitivity: boolean;
    marketReach: boolean;
    customQuestions: number;
    includedCustomQuestions: number;
    extraCustomQuestions: number;
    /** The sum of the add-on shares (0.35 = +35%). */
    rate: number;
  };
}

export function rateOf(regionId: number, isCustomerPanel: boolean): number {
  if (isCustomerPanel) return CUSTOMER_PANEL_RATE;
  return REGION_RATES[regionId] ?? OTHER_REGION_RATE;
}

/** Hundredths of a number given with at most two decimals (all constants are). */
const cents = (x: number): bigint => BigInt(Math.round(x * 100));

export function costOfRun(inp: CostInputs): RunCost {
  const cells = Math.max(1, inp.testOptions);
  const extraCustom = Math.max(0, inp.customQuestions - INCLUDED_CUSTOM_QUESTIONS);
  const addOnCents = (inp.priceSensitivity ? cents(PRICE_SENSITIVITY_ADDON) : 0n) + (inp.marketReach ? cents(MARKET_REACH_ADDON) : 0n) + BigInt(extraCustom) * cents(CUSTOM_QUESTION_ADDON);
  // cellFactor x 100 and (1 + addOns) x 100, as integers.
  const cellCents = 100n + BigInt(cells - 1) * cents(CELL_INCREMENT);
  const addCents = 100n + addOnCents;
  const regions = inp.regions.map((r): RegionCost => {
    const rate = rateOf(r.regionId, r.isCustomerPanel);
    const standard = Math.min(r.sampleSize, STANDARD_COMPLETES);
    const boosted = Math.max(0, r.sampleSize - STANDARD_COMPLETES);
    // completes x 100 = standard x 100 + boosted x 150
    const completesCents = BigInt(standard) * 100n + BigInt(boosted) * cents(BOOST_MULTIPLIER);
    const num = cents(rate) * completesCents * cellCents * addCents;
    const den = 100n * 100n * 100n * 100n;
    const cost = Number((num + den - 1n) / den);
    return { regionId: r.regionId, regionName: r.regionName, sampleSize: r.sampleSize, isCustomerPanel: r.isCustomerPanel, rate, standardCompletes: standard, boostedCompletes: boosted, cost };
  });
  return {
    total: regions.reduce((s, r) => s + r.cost, 0),
    regions,
    cells,
    cellFactor: Number(cellCents) / 100,
    addOns: {
      priceSensitivity: inp.priceSensitivity,
      marketReach: inp.marketReach,
      customQuestions: inp.customQuestions,
      includedCustomQuestions: INCLUDED_CUSTOM_QUESTIONS,
      extraCustomQuestions: extraCustom,
      rate: Number(addOnCents) / 100,
    },
  };
}
