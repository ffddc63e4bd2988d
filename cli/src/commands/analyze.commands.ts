// `ideally analyze`: the analytics on a CSV file, run locally (moved from main.ts, issue 34).
import { type Command, Option } from "commander";
import { collect, declaresGroup } from "./options.ts";

/** The analyze command and its subcommands. */
export function registerAnalyzeCommands(program: Command): void {
  const analyze = program
    .command("analyze")
    .description("run the analytics on a CSV file (header row; UTF-8, or windows-1252 when not valid UTF-8)")
    .addHelpText(
      "after",
      `
Columns (COL) are header names or 1-based column numbers. Runs locally: no sign-in needed.
A row with more or fewer fields than the header is left out with a warning naming its line.
Exit codes: 0 ok, 1 bad options or a bad input file (one line naming the file and line).`,
    );
  if (!declaresGroup(analyze)) return;
  registerPriceAndReach(analyze);
  registerRakeAndCompare(analyze);
}

/** analyze psm and turf. */
function registerPriceAndReach(analyze: Command): void {
  analyze
    .command("psm")
    .description("Van Westendorp price sensitivity meter, with the Newton-Miller-Smith purchase-probability extension")
    .argument("<file>", "CSV file, one respondent per row; - for stdin")
    .requiredOption("--too-cheap <col>", "price felt too cheap to trust the quality")
    .requiredOption("--cheap <col>", "bargain price")
    .requiredOption("--expensive <col>", "getting-expensive price")
    .requiredOption("--too-expensive <col>", "too-expensive price")
    .option("--pi-cheap <col>", "purchase intent at the bargain price (NMS; needs --pi-expensive)")
    .option("--pi-expensive <col>", "purchase intent at the expensive price (NMS; needs --pi-cheap)")
    .option(
      "--pi-scale <labels>",
      "five intent labels with probabilities, most likely first (default 'Very likely=0.7,Likely=0.5,Neither likely nor unlikely=0.3,Unlikely=0.1,Very unlikely=0'); cells may also hold 5..1",
    )
    .option("--weight <col>", "respondent weight column")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
Respondents must answer too cheap < cheap < expensive < too expensive; the others (and blank
prices) are counted as invalid. A price cell that is not a number is an error (exit 1).

Examples:
  $ ideally analyze psm prices.csv --too-cheap 1 --cheap 2 --expensive 3 --too-expensive 4
  $ ideally analyze psm prices.csv --too-cheap 1 --cheap 2 --expensive 3 --too-expensive 4 \\
      --pi-cheap 5 --pi-expensive 6 --json
  $ ideally analyze psm prices.csv --too-cheap tc --cheap c --expensive e --too-expensive te \\
      --pi-cheap pi_c --pi-expensive pi_e --weight wgt \\
      --pi-scale 'Sure=0.8,Likely=0.5,Maybe=0.3,Unlikely=0.1,Never=0'

JSON: { n, invalid, pmc, pme, ipp, opp, trialOptimal?, revenueOptimal? }`,
    )
    .action(async (file: string, opts) => {
      const { runPsm } = await import("./analyze/psm.ts");
      await runPsm(file, opts);
    });

  analyze
    .command("turf")
    .description("TURF: the item sets of size k with the highest reach (then frequency)")
    .argument("<file>", "CSV file, one respondent per row, items as 0/1 columns; - for stdin")
    .requiredOption("--items <cols>", "comma-separated item columns")
    .requiredOption("--k <n>", "set size")
    .option("--weight <col>", "respondent weight column")
    .option("--top <n>", "how many sets to list", "10")
    .option("--depth <n>", "reached = accepts at least this many of the set's items", "1")
    .option("--none <col>", 'column marking "none of these" (1; 0 or blank: not): kept in the base, reached by nothing')
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
An item cell is 1 (accepts the item), 0 or blank (does not); anything else (-1, 0.5, 2, yes) is an
error (exit 1). Every respondent is in the base, also one who accepts nothing, and a row whose cells
are all blank is such a respondent (an empty line is no row). --none names the column of a
"none of these" answer: it is never an item (listing it in --items is refused), a respondent who
marks it and an item is an error, and the JSON adds its weighted share as "none".
All C(items, k) sets are searched up to 2,000,000 sets, beyond that a greedy search returns one.

Examples:
  $ ideally analyze turf flavours.csv --items item_1,item_2,item_3,item_4,item_5 --k 3
  $ ideally analyze turf flavours.csv --items 3,4,5,6,7,8 --weight wgt --k 2 --top 5 --json
  $ ideally analyze turf flavours.csv --items a,b,c,d --k 3 --depth 2

JSON: { results: [{ items: [names], reach, frequency }], none? }, best first`,
    )
    .action(async (file: string, opts) => {
      const { runTurf } = await import("./analyze/turf.ts");
      await runTurf(file, opts);
    });
}

/** analyze rake and compare. */
function registerRakeAndCompare(analyze: Command): void {
  analyze
    .command("rake")
    .description("rake weights to target margins by iterative proportional fitting")
    .argument("<file>", "CSV file, one respondent per row; - for stdin")
    .addOption(new Option("--target <spec>", "'variable=Level:share,Level:share,...' (repeat per variable)").argParser(collect).default([]))
    .option("--cap <n>", "trim weights to [1/n, n] around mean 1 (n > 1)")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
Shares are numbers in [0, 1]; each variable's must sum to 1 within 0.01 (they are then normalised
exactly), otherwise the target is refused (exit 1). Every non-blank level in the data needs a share.
A respondent with a blank in a variable is left out of that variable's margin. Weights are
reported in row order, scaled to mean 1.

Examples:
  $ ideally analyze rake panel.csv --target 'sex=Female:0.51,Male:0.49'
  $ ideally analyze rake panel.csv --target 'sex=Female:0.51,Male:0.49' \\
      --target 'race=White:0.6,Black:0.13,Hispanic:0.19,Other:0.08' --cap 5 --json

JSON: { converged, maxError, iterations, deff, nEff, min, max, weights: [...] }`,
    )
    .action(async (file: string, opts) => {
      const { runRake } = await import("./analyze/rake.ts");
      await runRake(file, opts);
    });

  analyze
    .command("compare")
    .description("compare groups' weighted top-box shares with design-based variance and adjusted p-values")
    .argument("<file>", "CSV file, long format: one row per respondent and rated option; - for stdin")
    .requiredOption("--value <col>", "the answer column: whole numbers on the scale (blank: not answered)")
    .requiredOption("--top <values>", "comma-separated values that count as top box, e.g. 1,2")
    .requiredOption("--group <col>", "the column naming the option (or cell, wave, market) rated")
    .option("--weight <col>", "respondent weight column")
    .option("--strata <col>", "stratum column (e.g. the market): stratified variance")
    .option("--cluster <col>", "cluster column (household, site, panel wave): the sampled units above the respondent, read within their stratum")
    .option("--respondent <col>", "respondent id column: a respondent's rows are paired")
    .option("--scale <lo-hi>", "the scale's points, e.g. 1-5: a value outside is refused; a --top point nobody chose is allowed")
    .option("--min-base <n>", "effective base (Kish n_eff) under which a group is flagged and not tested", "30")
    .option("--confidence <pct>", "90, 95 or 99", "95")
    .option("--adjust <method>", "multiple-comparison adjustment: bh, none or bonferroni", "bh")
    .option("--json", "print the result as JSON")
    .addHelpText(
      "after",
      `
A blank value is not an answer (the row stays in the design, outside its group). A value that is
not a whole number (five, 2.5), or is outside --scale, is an error (exit 1); 2.0 is read as 2. So
is a --top value no row has (without --scale), and a group whose weights are all 0. Without
--respondent every row is its own respondent (independent groups); without --cluster each
respondent is its own cluster. Clusters are read within their stratum (cluster 1 of two strata is
two clusters). A stratum of one cluster adds no variance and is warned about (R's survey refuses
it by default). A group under --min-base is flagged "low base" and none of its comparisons is
tested. deff is each group's design effect. docs/statistics.md has the methods.

Examples:
  $ ideally analyze compare ratings.csv --value answer --top 1,2 --group option
  $ ideally analyze compare ratings.csv --value answer --top 1,2 --group option \\
      --weight w --strata market --respondent respondent --adjust bonferroni --json
  $ ideally analyze compare homes.csv --value answer --top 1,2 --group option \\
      --weight w --strata site --cluster household --respondent respondent --scale 1-5

JSON: { groups: [{ group, n, clusters, nEff, share, se, deff, ci: [lo, hi], smallBase }],
        comparisons: [{ a, b, diff, se, tested, z, p, pAdjusted, significant, paired }],
        method: { ..., clusters, minBase, tests, lonelyPsu } }; z, p, pAdjusted null when not tested`,
    )
    .action(async (file: string, opts) => {
      const { runCompare } = await import("./analyze/compare.ts");
      await runCompare(file, opts);
    });
}
